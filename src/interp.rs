//! Hiera interpolation tokens (`%{...}`) and Hiera key splitting (`split_key`), exact to Puppet.
//!
//! This module only *reads* strings: it finds the tokens of a string the way Puppet's
//! `Interpolation#interpolate_string` does (reference §5.2) and splits keys and variable
//! expressions into segments the way `SubLookup#split_key` does (§7.1). Resolving the tokens
//! (scope variables, sub-lookups) is the engine's business; rules use the tokens and their byte
//! ranges to point at problems.

use std::ops::Range;

/// One segment of a dotted key: Puppet turns unquoted digit runs into Integers (§7.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    Str(String),
    Int(i64),
}

impl Segment {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Segment::Str(s) => Some(s),
            Segment::Int(_) => None,
        }
    }
}

impl std::fmt::Display for Segment {
    /// Ruby `to_s` of the segment (as Puppet prints it in messages and in `Sub key: "a.0"`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Segment::Str(s) => f.write_str(s),
            Segment::Int(i) => write!(f, "{i}"),
        }
    }
}

/// The key or expression cannot be split: Puppet says `Syntax error in key: '<key>'` for a lookup
/// key and `Syntax error in string: <string>` for an interpolation expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySyntaxError;

/// Ruby's `String#strip` whitespace: NUL, `\t`, `\n`, `\v`, `\f`, `\r` and space.
fn is_ruby_strip_ws(c: char) -> bool {
    matches!(c, '\0' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ')
}

/// Regex `\s` in Ruby (ASCII only): space, `\t`, `\n`, `\v`, `\f`, `\r`.
fn is_ruby_regex_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Ruby `String#strip`, returning the byte range of the stripped text.
fn ruby_strip_range(s: &str) -> Range<usize> {
    let start = s.len() - s.trim_start_matches(is_ruby_strip_ws).len();
    let end = s.trim_end_matches(is_ruby_strip_ws).len();
    if end <= start {
        start..start
    } else {
        start..end
    }
}

/// Ruby `String#strip`.
pub fn ruby_strip(s: &str) -> &str {
    &s[ruby_strip_range(s)]
}

/// One match of Puppet's split regex `/(\s*"[^"]+"\s*|\s*'[^']+'\s*|[^'".]+)/` starting exactly
/// at `i`, if any (the alternatives are tried in order, as Onigmo does).
fn split_match_at(s: &[u8], i: usize) -> Option<usize> {
    for q in [b'"', b'\''] {
        let mut j = i;
        while j < s.len() && is_ruby_regex_space(s[j]) {
            j += 1;
        }
        if j < s.len() && s[j] == q {
            let body = j + 1;
            // `[^q]+`: at least one character, then the closing quote.
            if body < s.len() && s[body] != q {
                if let Some(off) = s[body..].iter().position(|&b| b == q) {
                    let mut end = body + off + 1;
                    while end < s.len() && is_ruby_regex_space(s[end]) {
                        end += 1;
                    }
                    return Some(end);
                }
            }
        }
    }
    let mut j = i;
    while j < s.len() && !matches!(s[j], b'\'' | b'"' | b'.') {
        j += 1;
    }
    (j > i).then_some(j)
}

/// Ruby `String#to_i` (base 10): leading whitespace, an optional sign, digits with single
/// underscores between them; anything else ends the number (`":1".to_i` is 0). Values beyond
/// `i64` saturate (Ruby would make a Bignum no data key can equal).
pub fn ruby_to_i(s: &str) -> i64 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && (is_ruby_regex_space(b[i])) {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut v: i64 = 0;
    let mut last_digit = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            let d = (c - b'0') as i64;
            v = if neg {
                v.saturating_mul(10).saturating_sub(d)
            } else {
                v.saturating_mul(10).saturating_add(d)
            };
            last_digit = true;
        } else if c == b'_' && last_digit && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            last_digit = false;
        } else {
            break;
        }
        i += 1;
    }
    v
}

/// Does some line of `seg` match `/^(:?[+-]?[0-9]+)$/` (Ruby anchors are per line)?
fn is_integer_segment(seg: &str) -> bool {
    seg.split('\n').any(|line| {
        let l = line.strip_prefix(':').unwrap_or(line);
        let l = l
            .strip_prefix('+')
            .or_else(|| l.strip_prefix('-'))
            .unwrap_or(l);
        !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Puppet's `split_key` (`sub_lookup.rb`; reference §7.1).
///
/// A key without `'`, `"` or `.` is one segment, verbatim (no trimming). Otherwise the key is cut
/// by the split regex; the pieces must alternate with `.`, each is stripped, quotes are removed,
/// and a segment matching `/^(:?[+-]?[0-9]+)$/` becomes an Integer via `to_i` (so `:1` is 0).
pub fn split_key(key: &str) -> Result<Vec<Segment>, KeySyntaxError> {
    if !key.contains(['\'', '"', '.']) {
        return Ok(vec![Segment::Str(key.to_string())]);
    }
    // The usual dotted key (`facts.os.family`): identifiers joined by single dots. The split
    // regex cuts it at each dot, nothing is stripped or unquoted, and no identifier is an
    // Integer, so each is a string segment as written (the general path below was 2,000
    // instructions a key: half of resolving a variable in a hierarchy path).
    if key.split('.').all(is_ident) {
        return Ok(key
            .split('.')
            .map(|s| Segment::Str(s.to_string()))
            .collect());
    }
    split_key_general(key)
}

/// An ASCII identifier: a letter or `_`, then letters, digits and `_`.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// [`split_key`] by the split regex, for any key.
fn split_key_general(key: &str) -> Result<Vec<Segment>, KeySyntaxError> {
    let b = key.as_bytes();
    // Ruby `String#split` with a capturing regex: the text between matches and the captures.
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    while i < b.len() {
        if let Some(end) = split_match_at(b, i) {
            pieces.push((&key[pos..i], false));
            pieces.push((&key[i..end], true));
            pos = end;
            i = end;
        } else {
            // Advance one character (the regex engine tries the next start position).
            i += key[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    pieces.push((&key[pos..], false));
    while pieces.last().is_some_and(|(p, _)| p.is_empty()) {
        pieces.pop();
    }
    if pieces.is_empty() {
        return Err(KeySyntaxError);
    }
    let (first, _) = pieces.remove(0);
    if !first.is_empty() {
        return Err(KeySyntaxError);
    }
    let count = pieces.len();
    if count == 0 {
        return Err(KeySyntaxError);
    }
    let kept: Vec<&str> = pieces
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| *p != ".")
        .collect();
    if kept.len() * 2 != count + 1 {
        return Err(KeySyntaxError);
    }
    Ok(kept
        .into_iter()
        .map(|seg| {
            let seg = ruby_strip(seg);
            if seg.starts_with(['"', '\'']) {
                // `segment[1..-2]`
                let inner = &seg[1..];
                let inner = match inner.char_indices().last() {
                    Some((last, _)) => &inner[..last],
                    None => "",
                };
                Segment::Str(inner.to_string())
            } else if is_integer_segment(seg) {
                Segment::Int(ruby_to_i(seg))
            } else {
                Segment::Str(seg.to_string())
            }
        })
        .collect())
}

/// The interpolation methods Puppet knows (case-sensitive; §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Lookup,
    Hiera,
    Alias,
    Scope,
    Literal,
}

impl Method {
    pub fn from_name(name: &str) -> Option<Method> {
        Some(match name {
            "lookup" => Method::Lookup,
            "hiera" => Method::Hiera,
            "alias" => Method::Alias,
            "scope" => Method::Scope,
            "literal" => Method::Literal,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Lookup => "lookup",
            Method::Hiera => "hiera",
            Method::Alias => "alias",
            Method::Scope => "scope",
            Method::Literal => "literal",
        }
    }
}

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `%{}`, `%{::}`, `%{""}`, `%{''}`, `%{"::"}`, `%{'::'}` (after stripping): the empty string.
    /// Used as an escape: `%%{}{x}` gives `%{x}`.
    Empty,
    /// `name('arg')` with a known method. `arg` is the text inside the quotes.
    Method {
        method: Method,
        arg: String,
        /// Byte range of `arg` in the scanned string.
        arg_range: Range<usize>,
    },
    /// `name('arg')` with a name Puppet does not know: `Unknown interpolation method 'name'`
    /// (raised only when methods are allowed; otherwise the method-syntax error wins).
    UnknownMethod {
        name: String,
        arg: String,
        arg_range: Range<usize>,
    },
    /// Anything else: a scope variable expression (dotted sub-keys allowed), split when resolved.
    Variable,
}

/// One `%{...}` token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Byte range of the whole token, `%{` through `}`.
    pub range: Range<usize>,
    /// Byte range of the stripped expression.
    pub expr_range: Range<usize>,
    /// The stripped expression.
    pub expr: String,
    pub kind: TokenKind,
}

impl Token {
    /// For a variable or a `scope('…')` token: the key to resolve in scope (the expression, or
    /// the method argument).
    pub fn scope_key(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Variable => Some(&self.expr),
            TokenKind::Method {
                method: Method::Scope,
                arg,
                ..
            } => Some(arg),
            _ => None,
        }
    }

    /// The lookup key of a `lookup`/`hiera`/`alias` token.
    pub fn lookup_key(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Method {
                method: Method::Lookup | Method::Hiera | Method::Alias,
                arg,
                ..
            } => Some(arg),
            _ => None,
        }
    }

    pub fn method(&self) -> Option<Method> {
        match &self.kind {
            TokenKind::Method { method, .. } => Some(*method),
            _ => None,
        }
    }

    /// True for any `name('arg')` token, known or not (forbidden where methods are not allowed).
    pub fn is_method_syntax(&self) -> bool {
        matches!(
            self.kind,
            TokenKind::Method { .. } | TokenKind::UnknownMethod { .. }
        )
    }
}

const EMPTY_INTERPOLATIONS: [&str; 6] = ["", "::", "\"\"", "''", "\"::\"", "'::'"];

/// Puppet's method regex `/^(\w+)\((?:"([^"]+)"|'([^']+)')\)$/` (Ruby: `^`/`$` are line
/// anchors, `\w` is ASCII). Returns (name range, arg range) of the leftmost match.
fn match_method(expr: &str) -> Option<(Range<usize>, Range<usize>)> {
    let b = expr.as_bytes();
    let mut p = 0;
    loop {
        if let Some(m) = match_method_at(b, p) {
            return Some(m);
        }
        // Next line start.
        let nl = b[p..].iter().position(|&c| c == b'\n')?;
        p += nl + 1;
    }
}

fn match_method_at(b: &[u8], p: usize) -> Option<(Range<usize>, Range<usize>)> {
    let mut j = p;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    if j == p || b.get(j) != Some(&b'(') {
        return None;
    }
    let name = p..j;
    let q = *b.get(j + 1)?;
    if q != b'"' && q != b'\'' {
        return None;
    }
    let body = j + 2;
    if body >= b.len() || b[body] == q {
        return None;
    }
    let close = body + b[body..].iter().position(|&c| c == q)?;
    if b.get(close + 1) != Some(&b')') {
        return None;
    }
    let after = close + 2;
    if after == b.len() || b[after] == b'\n' {
        Some((name, body..close))
    } else {
        None
    }
}

/// Classifies one stripped expression (§5.2).
fn classify(expr: &str, expr_start: usize) -> TokenKind {
    if EMPTY_INTERPOLATIONS.contains(&expr) {
        return TokenKind::Empty;
    }
    match match_method(expr) {
        Some((name, arg)) => {
            let arg_range = expr_start + arg.start..expr_start + arg.end;
            let arg = expr[arg].to_string();
            match Method::from_name(&expr[name.clone()]) {
                Some(method) => TokenKind::Method {
                    method,
                    arg,
                    arg_range,
                },
                None => TokenKind::UnknownMethod {
                    name: expr[name].to_string(),
                    arg,
                    arg_range,
                },
            }
        }
        None => TokenKind::Variable,
    }
}

/// Finds the tokens of `s` as Ruby `s.gsub(/%\{([^}]*)\}/)` does: non-nested, left to right; an
/// unterminated `%{` stays literal, and only the first `}` closes a token.
pub fn tokens(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(off) = s[from..].find("%{") {
        let start = from + off;
        let inner = start + 2;
        let Some(close) = s[inner..].find('}') else {
            // No `}` after this `%{`, hence none after any later one either.
            break;
        };
        let end = inner + close + 1;
        let raw = &s[inner..inner + close];
        let r = ruby_strip_range(raw);
        let expr_range = inner + r.start..inner + r.end;
        let expr = s[expr_range.clone()].to_string();
        let kind = classify(&expr, expr_range.start);
        out.push(Token {
            range: start..end,
            expr_range,
            expr,
            kind,
        });
        from = end;
    }
    out
}

/// True if the string holds `%{` (Puppet interpolates only such strings). Asked of every
/// scalar by several rules and the engine: a `%` search (vectorized) is faster than
/// `str::contains` on the short strings data holds.
pub fn has_interpolation(s: &str) -> bool {
    contains_short(s, "%{")
}

/// `text.contains(needle)` for a short needle in short, mostly non-matching text (every scalar
/// of a file): a vectorized search for the needle's first byte, then a comparison there.
pub fn contains_short(text: &str, needle: &str) -> bool {
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else {
        return true;
    };
    memchr::memchr_iter(first, t).any(|i| t[i..].starts_with(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `split_key`'s shortcut for dotted identifiers gives what the split regex gives, on keys
    /// built from identifiers, digits, quotes, colons, spaces and stray dots.
    #[test]
    fn split_key_shortcut_matches_the_general_split() {
        let parts = [
            "a", "facts", "os", "_x", "x1", "1", "01", "-1", "+2", "'q'", "\"d\"", "a b", " a",
            "a ", "::a", "a::b", ":1", "", "é", "A_B", "k-v",
        ];
        let mut n = 0;
        for a in parts {
            for b in parts {
                for c in ["", ".", "..", "x"] {
                    let key = format!("{a}.{b}{c}");
                    let want = split_key_general(&key);
                    if key.contains(['\'', '"', '.']) {
                        assert_eq!(split_key(&key), want, "{key:?}");
                        n += 1;
                    }
                    let key = format!("{a}.{b}.{a}{c}");
                    assert_eq!(split_key(&key), split_key_general(&key), "{key:?}");
                }
            }
        }
        assert!(n > 1000);
    }

    #[test]
    fn contains_short_is_contains() {
        for (t, n) in [
            ("xENC[a]", "ENC["),
            ("ENC", "ENC["),
            ("EENC[", "ENC["),
            ("", "a"),
            ("a", ""),
        ] {
            assert_eq!(contains_short(t, n), t.contains(n), "{t:?} {n:?}");
        }
    }

    #[test]
    fn has_interpolation_looks_for_percent_brace() {
        for (s, want) in [
            ("%{x}", true),
            ("a%{b", true),
            ("%%{", true),
            ("%", false),
            ("%}{", false),
            ("{%", false),
            ("", false),
            ("100% {x}", false),
        ] {
            assert_eq!(has_interpolation(s), want, "{s:?}");
        }
    }

    fn seg(s: &str) -> Segment {
        Segment::Str(s.into())
    }

    #[test]
    fn split_plain_key_is_verbatim() {
        assert_eq!(split_key(" a "), Ok(vec![seg(" a ")]));
        assert_eq!(split_key("mod::x"), Ok(vec![seg("mod::x")]));
        assert_eq!(split_key(""), Ok(vec![seg("")]));
    }

    #[test]
    fn split_dotted_and_quoted() {
        // §2.3 table
        assert_eq!(split_key("mod::x.y"), Ok(vec![seg("mod::x"), seg("y")]));
        assert_eq!(split_key("\"mod::a.b\""), Ok(vec![seg("mod::a.b")]));
        // §7.2: quoted whole keys and quoted segments
        assert_eq!(split_key("a.\"b.c\""), Ok(vec![seg("a"), seg("b.c")]));
        assert_eq!(split_key("'a.b'"), Ok(vec![seg("a.b")]));
        assert_eq!(split_key("a.'d.x'"), Ok(vec![seg("a"), seg("d.x")]));
        // Segments are stripped; whitespace inside quotes is kept.
        assert_eq!(split_key(" a . ' b ' "), Ok(vec![seg("a"), seg(" b ")]));
        assert_eq!(
            split_key("mod_a::a.quoted.key"),
            Ok(vec![seg("mod_a::a"), seg("quoted"), seg("key")])
        );
    }

    #[test]
    fn split_integer_segments() {
        // §7.1: 01 → 1, +2 → 2, -1 → -1, the `:1` quirk → 0, quoted "0" stays a String.
        assert_eq!(
            split_key("a.01.+2.-1.:1"),
            Ok(vec![
                seg("a"),
                Segment::Int(1),
                Segment::Int(2),
                Segment::Int(-1),
                Segment::Int(0)
            ])
        );
        assert_eq!(split_key("a.\"0\""), Ok(vec![seg("a"), seg("0")]));
        assert_eq!(
            split_key("mod::g.6.-4"),
            Ok(vec![seg("mod::g"), Segment::Int(6), Segment::Int(-4)])
        );
        assert_eq!(split_key("mod::g.'6'"), Ok(vec![seg("mod::g"), seg("6")]));
        // Root segments can be integers too.
        assert_eq!(split_key("1.a"), Ok(vec![Segment::Int(1), seg("a")]));
    }

    #[test]
    fn split_syntax_errors() {
        // §7.1 and the recorded dotted/keys case.
        for bad in [
            "a..b", "a.", ".a", "''", "'pa'key", "a.b'", "h.'", "'a\"", ".", "a 'b'",
        ] {
            assert_eq!(split_key(bad), Err(KeySyntaxError), "{bad}");
        }
    }

    #[test]
    fn ruby_to_i_quirks() {
        assert_eq!(ruby_to_i(":1"), 0);
        assert_eq!(ruby_to_i("01"), 1);
        assert_eq!(ruby_to_i("+2"), 2);
        assert_eq!(ruby_to_i("-1"), -1);
        assert_eq!(ruby_to_i("1_000"), 1000);
        assert_eq!(ruby_to_i("1__0"), 1);
        assert_eq!(ruby_to_i("99999999999999999999"), i64::MAX);
    }

    fn kinds(s: &str) -> Vec<(Range<usize>, String, TokenKind)> {
        tokens(s)
            .into_iter()
            .map(|t| (t.range, t.expr, t.kind))
            .collect()
    }

    #[test]
    fn token_scan_is_non_nested() {
        // §5.2: `%{x}}` closes at the first `}`; `%%{x}` is `%` + token; unterminated stays.
        assert_eq!(
            kinds("%{x}}"),
            vec![(0..4, "x".into(), TokenKind::Variable)]
        );
        assert_eq!(
            kinds("%%{x}"),
            vec![(1..5, "x".into(), TokenKind::Variable)]
        );
        assert!(tokens("%{x").is_empty());
        assert!(tokens("plain").is_empty());
        // `%{a %{b}` is one token whose expression is `a %{b`.
        assert_eq!(
            kinds("%{a %{b}"),
            vec![(0..8, "a %{b".into(), TokenKind::Variable)]
        );
        assert_eq!(
            kinds("x%{a}y%{ b }z"),
            vec![
                (1..5, "a".into(), TokenKind::Variable),
                (6..12, "b".into(), TokenKind::Variable)
            ]
        );
        let t = &tokens("x%{ b }")[0];
        assert_eq!(t.expr_range, 4..5);
    }

    #[test]
    fn empty_forms() {
        for e in [
            "%{}",
            "%{::}",
            "%{\"\"}",
            "%{''}",
            "%{\"::\"}",
            "%{'::'}",
            "%{ }",
        ] {
            assert_eq!(tokens(e)[0].kind, TokenKind::Empty, "{e}");
        }
        // `%%{}{x}` is the escape for a literal `%{x}`.
        assert_eq!(tokens("%%{}{x}")[0].kind, TokenKind::Empty);
    }

    #[test]
    fn methods() {
        let t = &tokens("a %{lookup('k.x')} b")[0];
        assert_eq!(
            t.kind,
            TokenKind::Method {
                method: Method::Lookup,
                arg: "k.x".into(),
                arg_range: 12..15
            }
        );
        assert_eq!(tokens("%{ alias(\"a\") }")[0].method(), Some(Method::Alias));
        assert_eq!(tokens("%{hiera('a')}")[0].method(), Some(Method::Hiera));
        assert_eq!(tokens("%{scope('a')}")[0].method(), Some(Method::Scope));
        assert_eq!(tokens("%{literal('%')}")[0].method(), Some(Method::Literal));
        assert!(matches!(
            &tokens("%{what('x')}")[0].kind,
            TokenKind::UnknownMethod { name, .. } if name == "what"
        ));
        assert!(matches!(
            &tokens("%{Lookup('a')}")[0].kind,
            TokenKind::UnknownMethod { name, .. } if name == "Lookup"
        ));
    }

    #[test]
    fn method_like_text_falls_back_to_variables() {
        // §5.2 [verified]: these are scope variable expressions (some then fail to split).
        for e in [
            "%{lookup(a)}",
            "%{lookup( 'a' )}",
            "%{literal('')}",
            "%{lookup('a').x}",
            "%{lookup('a', 'b')}",
            "%{('a')}",
            "%{'the.key\"}",
        ] {
            assert_eq!(tokens(e)[0].kind, TokenKind::Variable, "{e}");
        }
        assert!(split_key("lookup( 'a' )").is_err());
        assert!(split_key("literal('')").is_err());
        assert!(split_key("lookup('a').x").is_err());
        assert!(split_key("'the.key\"").is_err());
        assert!(split_key("('a')").is_err());
        assert_eq!(split_key("lookup(a)"), Ok(vec![seg("lookup(a)")]));
    }

    #[test]
    fn method_regex_is_line_anchored() {
        // Ruby `^`/`$` match at line boundaries: the second line is a method call.
        let t = &tokens("%{x\nlookup('a')}")[0];
        assert_eq!(t.method(), Some(Method::Lookup));
    }

    #[test]
    fn interpolation_dotted_forms() {
        // §7.2 interpolation examples
        assert_eq!(split_key("'a.b'"), Ok(vec![seg("a.b")]));
        assert_eq!(split_key("a.'d.x'"), Ok(vec![seg("a"), seg("d.x")]));
        assert_eq!(split_key("'a.x'.d"), Ok(vec![seg("a.x"), seg("d")]));
        assert_eq!(
            split_key("facts.os.family"),
            Ok(vec![seg("facts"), seg("os"), seg("family")])
        );
        assert_eq!(
            split_key("::facts.os.family"),
            Ok(vec![seg("::facts"), seg("os"), seg("family")])
        );
    }

    #[test]
    fn split_matches_ruby_recordings() {
        // Recorded with Puppet 7.23's SubLookup#split_key (Ruby 3.1).
        let i = Segment::Int;
        let cases: Vec<(&str, Option<Vec<Segment>>)> = vec![
            ("x.\"\"", None),
            ("a.b c.d", Some(vec![seg("a"), seg("b c"), seg("d")])),
            ("a. \"b\" .c", Some(vec![seg("a"), seg("b"), seg("c")])),
            ("a.\"b\"c", None),
            ("\"a\" \"b\"", None),
            ("a\n.5", Some(vec![seg("a"), i(5)])),
            ("a.x\n5", Some(vec![seg("a"), i(0)])),
            ("a.' '", Some(vec![seg("a"), seg(" ")])),
            ("é.ü", Some(vec![seg("é"), seg("ü")])),
            ("a.'b'.'c'", Some(vec![seg("a"), seg("b"), seg("c")])),
            (":1", Some(vec![seg(":1")])),
            ("a.b.", None),
            ("'a'.'b", None),
            ("a.'b'x", None),
        ];
        for (k, want) in cases {
            assert_eq!(split_key(k).ok(), want, "{k:?}");
        }
    }
}

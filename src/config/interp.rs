//! The `%{...}` tokens of hiera.yaml strings, for the checks Puppet makes when it interpolates them
//! with methods forbidden (reference §5.1, §5.2).
//!
//! hiera.yaml strings are interpolated with `allow_methods = false`: any token whose stripped
//! expression matches Puppet's method regex (`lookup('x')`, `scope("x")`, `literal('%')`, even an
//! unknown `foo('x')`) raises `Interpolation using method syntax is not allowed in this context`,
//! and a variable expression `split_key` rejects raises `Syntax error in string: <string>`.
//! Resolving the variables is the engine's job. The regexes are Puppet's, run with Onigmo's Ruby
//! syntax (so `^`/`$` are line anchors and `\w` is ASCII, as in Ruby).

use std::ops::Range;
use std::sync::OnceLock;

use onig::{Regex, Syntax};

/// One `%{...}` token of a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Byte range of `%{...}` in the string.
    pub range: Range<usize>,
    /// The stripped expression.
    pub expr: String,
}

/// What Puppet does with a token when methods are not allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenProblem {
    /// Method syntax (`lookup('x')`...); the method name.
    Method(String),
    /// `split_key` fails on the variable expression.
    Syntax,
}

/// Puppet's regexes as Ruby runs them: `\w` is ASCII-only in Ruby (`"Ώ" =~ /\w/` is nil), which
/// Oniguruma's Ruby syntax does not give by itself (found by the `interp` fuzz target comparing
/// this scanner with `crate::interp`).
fn ruby(pattern: &str) -> Option<Regex> {
    Regex::with_options(pattern, crate::engine::ruby::ruby_options(), Syntax::ruby()).ok()
}

fn token_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| ruby(r"%\{([^\}]*)\}")).as_ref()
}

fn method_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| ruby(r#"^(\w+)\((?:["]([^"]+)["]|[']([^']+)['])\)$"#))
        .as_ref()
}

fn split_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| ruby(r#"(\s*"[^"]+"\s*|\s*'[^']+'\s*|[^'".]+)"#))
        .as_ref()
}

/// Ruby `String#strip` (whitespace and NUL).
fn ruby_strip(s: &str) -> &str {
    let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\0');
    s.trim_start_matches(ws).trim_end_matches(ws)
}

/// The tokens of `s`, as `s.gsub(/%\{([^\}]*)\}/)` finds them. Strings without `%{` have none.
pub fn tokens(s: &str) -> Vec<Token> {
    if !s.contains("%{") {
        return Vec::new();
    }
    let Some(re) = token_re() else {
        return Vec::new();
    };
    re.captures_iter(s)
        .filter_map(|c| {
            let (start, end) = c.pos(0)?;
            let expr = c.at(1).unwrap_or("");
            Some(Token {
                range: start..end,
                expr: ruby_strip(expr).to_string(),
            })
        })
        .collect()
}

/// The empty expressions Puppet turns into `''` without looking further (an escape).
fn is_empty_interpolation(expr: &str) -> bool {
    matches!(expr, "" | "::" | "\"\"" | "''" | "\"::\"" | "'::'")
}

/// What Puppet raises for this token when interpolating with methods forbidden, if anything.
pub fn problem(token: &Token) -> Option<TokenProblem> {
    if is_empty_interpolation(&token.expr) {
        return None;
    }
    if let Some(re) = method_re() {
        if let Some(c) = re.captures(&token.expr) {
            return Some(TokenProblem::Method(c.at(1).unwrap_or("").to_string()));
        }
    }
    if split_key_ok(&token.expr) {
        None
    } else {
        Some(TokenProblem::Syntax)
    }
}

/// Whether Puppet's `split_key` accepts `key` (`sub_lookup.rb`; reference §7.1).
pub fn split_key_ok(key: &str) -> bool {
    if !key.contains(['\'', '"', '.']) {
        return true;
    }
    let Some(re) = split_re() else {
        return true;
    };
    // Ruby `key.split(re)` with a capture group: the pieces between matches and the captures,
    // trailing empty strings removed.
    let mut parts: Vec<&str> = Vec::new();
    let mut pos = 0;
    for (start, end) in re.find_iter(key) {
        parts.push(&key[pos..start]);
        parts.push(&key[start..end]);
        pos = end;
    }
    parts.push(&key[pos..]);
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    if parts.is_empty() || !parts[0].is_empty() {
        return false;
    }
    let rest = &parts[1..];
    let count = rest.len();
    if count == 0 {
        return false;
    }
    let kept = rest.iter().filter(|s| **s != ".").count();
    kept * 2 == count + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_methods_and_syntax_errors() {
        let t = tokens("a/%{lookup('x')}/%{facts.os.family}/%{ scope(\"y\") }/%{}");
        assert_eq!(t.len(), 4);
        assert_eq!(t[0].range, 2..16);
        assert_eq!(problem(&t[0]), Some(TokenProblem::Method("lookup".into())));
        assert_eq!(problem(&t[1]), None);
        assert_eq!(problem(&t[2]), Some(TokenProblem::Method("scope".into())));
        assert_eq!(problem(&t[3]), None);
        // Not method syntax (space inside the parentheses): a variable that split_key rejects.
        let t = tokens("%{lookup( 'a' )}");
        assert_eq!(problem(&t[0]), Some(TokenProblem::Syntax));
        // An unknown method name is still method syntax.
        let t = tokens("%{foo('a')}");
        assert_eq!(problem(&t[0]), Some(TokenProblem::Method("foo".into())));
        // `lookup(a)` (no quotes) is a variable name.
        let t = tokens("%{lookup(a)}");
        assert_eq!(problem(&t[0]), None);
        // Ruby's `\w` is ASCII: `l0okuΏ('&')` is no method call; a later line that is one
        // (`^`/`$` are line anchors in Ruby) is the match (fuzz find, interp target).
        let t = tokens("%{l0okuΏ('&')\np('q')\n}");
        assert_eq!(problem(&t[0]), Some(TokenProblem::Method("p".into())));
        let t = tokens("%{lookupΏ('a')}");
        assert_eq!(problem(&t[0]), Some(TokenProblem::Syntax));
    }

    #[test]
    fn split_key_validity() {
        for ok in ["a", "a.b", "a.'b.c'", "facts.os.family", "\"x\"", "a.0"] {
            assert!(split_key_ok(ok), "{ok}");
        }
        for bad in ["a..b", ".a", "a.", "'a\"", "a'b'"] {
            assert!(!split_key_ok(bad), "{bad}");
        }
    }
}

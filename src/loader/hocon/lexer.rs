//! The HOCON tokenizer: a port of ruby-hocon 1.3.1's `Hocon::Impl::Tokenizer`
//! (`lib/hocon/impl/tokenizer.rb`), with byte spans added.
//!
//! Kept from Ruby on purpose: whitespace between two simple values becomes an unquoted-text token
//! (that is how `a = foo bar` keeps its inner space), `true`/`false`/`null` are recognised as soon
//! as an unquoted run starts with them (`true1` is `true` then `1`), numbers are decided by Ruby's
//! `Integer()`/`Float()` (so `010` is 8 and `-.5` is -0.5), and a tokenizer error is not raised
//! but becomes a problem token that the parser reports with its own wording.

use std::fmt;

use crate::span::Span;

/// A number token's value, as Ruby's `Integer()`/`Float()` read it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Num {
    Int(i64),
    /// An integer too big for 64 bits (Ruby keeps it exactly): its decimal digits.
    Big(String),
    Float(f64),
}

/// A value token's value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum TokValue {
    /// A quoted (or triple-quoted) string.
    Str(String),
    /// A number and its source text (concatenations use the text: `2.50 x` stays `"2.50 x"`).
    Num(Num, String),
    Bool(bool),
    Null,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Start,
    Eof,
    Comma,
    Equals,
    Colon,
    OpenCurly,
    CloseCurly,
    OpenSquare,
    CloseSquare,
    PlusEquals,
    Newline,
    /// Whitespace that separates nothing that concatenates (Ruby's IgnoredWhitespace).
    Whitespace(String),
    Unquoted(String),
    Comment(String),
    Value(TokValue),
    Substitution {
        optional: bool,
        expr: Vec<Token>,
    },
    /// A tokenizer error, reported by the parser when it meets it.
    Problem {
        what: String,
        message: String,
    },
    /// A Ruby exception raised while tokenizing (not a ConfigError): `FloatDomainError` for a
    /// number that overflows to Infinity (recorded: `a = 1e400` fails with "Infinity").
    Crash(String),
    /// Ruby's bad-escape problem is built with a String as its origin, so the first parser step
    /// asking for its line number crashes with this NoMethodError message (recorded in
    /// fixtures/hocon/cases.json, "bad escape").
    CrashingProblem(String),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    pub span: Span,
    /// The line of the token's origin; `None` for Ruby's origin-less constant tokens (punctuation,
    /// start and end of file), whose `line_number` is -1.
    pub line: Option<usize>,
}

impl Token {
    pub fn is_value(&self) -> bool {
        matches!(self.tok, Tok::Value(_))
    }

    pub fn is_unquoted(&self) -> bool {
        matches!(self.tok, Tok::Unquoted(_))
    }

    pub fn is_substitution(&self) -> bool {
        matches!(self.tok, Tok::Substitution { .. })
    }

    /// Unquoted text made only of whitespace (the parser treats it as whitespace).
    pub fn is_unquoted_whitespace(&self) -> bool {
        match &self.tok {
            Tok::Unquoted(s) => s.chars().all(char::is_whitespace),
            _ => false,
        }
    }

    /// The token's text as Ruby's `token_text` gives it (used for key paths).
    pub fn text(&self) -> String {
        match &self.tok {
            Tok::Unquoted(s) | Tok::Whitespace(s) => s.clone(),
            Tok::Value(TokValue::Num(_, t)) => t.clone(),
            Tok::Value(TokValue::Bool(b)) => b.to_string(),
            Tok::Value(TokValue::Null) => "null".into(),
            _ => String::new(),
        }
    }
}

/// Ruby's `Token#to_s`, which parse error messages quote.
impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tok {
            Tok::Start => f.write_str("start of file"),
            Tok::Eof => f.write_str("end of file"),
            Tok::Comma => f.write_str("','"),
            Tok::Equals => f.write_str("'='"),
            Tok::Colon => f.write_str("':'"),
            Tok::OpenCurly => f.write_str("'{'"),
            Tok::CloseCurly => f.write_str("'}'"),
            Tok::OpenSquare => f.write_str("'['"),
            Tok::CloseSquare => f.write_str("']'"),
            Tok::PlusEquals => f.write_str("'+='"),
            Tok::Newline => f.write_str("NEWLINE"),
            Tok::Whitespace(s) => write!(f, "'{s}' (WHITESPACE)"),
            Tok::Unquoted(s) => write!(f, "'{s}'"),
            Tok::Comment(s) => write!(f, "'#{s}' (COMMENT)"),
            Tok::Value(v) => match v {
                TokValue::Str(s) => write!(f, "'{s}' (STRING)"),
                TokValue::Num(n, _) => match n {
                    Num::Int(i) => write!(f, "'{i}' (NUMBER)"),
                    Num::Big(d) => write!(f, "'{d}' (NUMBER)"),
                    Num::Float(x) => {
                        write!(f, "'{}' (NUMBER)", crate::value::ruby_float_to_s(*x))
                    }
                },
                TokValue::Bool(b) => write!(f, "'{b}' (BOOLEAN)"),
                TokValue::Null => f.write_str("'' (NULL)"),
            },
            Tok::Substitution { expr, .. } => {
                f.write_str("'${")?;
                for t in expr {
                    write!(f, "{t}")?;
                }
                f.write_str("}'")
            }
            Tok::Problem { what, message } => write!(f, "'{what}' ({message})"),
            Tok::CrashingProblem(_) | Tok::Crash(_) => f.write_str("PROBLEM"),
        }
    }
}

/// Characters that end unquoted text and cannot start it (`NOT_IN_UNQUOTED_TEXT`).
const NOT_IN_UNQUOTED_TEXT: &str = "$\"{}[]:=,+#`^?!@*&\\";
/// `NUMBER_CHARS`.
const NUMBER_CHARS: &str = "0123456789eE+-.";

/// Ruby's `/[[:space:]]/` on a UTF-8 string is the Unicode White_Space property.
fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

/// Ruby's `TokenIterator::WhitespaceSaver`.
#[derive(Default)]
struct WhitespaceSaver {
    ws: String,
    start: usize,
    last_was_simple: bool,
}

impl WhitespaceSaver {
    fn add(&mut self, c: char, at: usize) {
        if self.ws.is_empty() {
            self.start = at;
        }
        self.ws.push(c);
    }

    fn check(&mut self, t: &Token, line: usize) -> Option<Token> {
        let simple = t.is_substitution() || t.is_unquoted() || t.is_value();
        if simple {
            let w = self.take(line);
            self.last_was_simple = true;
            w
        } else {
            self.last_was_simple = false;
            self.take(line)
        }
    }

    fn take(&mut self, line: usize) -> Option<Token> {
        if self.ws.is_empty() {
            return None;
        }
        let s = std::mem::take(&mut self.ws);
        let span = Span::new(self.start, self.start + s.len());
        let tok = if self.last_was_simple {
            Tok::Unquoted(s)
        } else {
            Tok::Whitespace(s)
        };
        Some(Token {
            tok,
            span,
            line: Some(line),
        })
    }
}

/// A tokenizer problem (Ruby's TokenizerProblemError): becomes a problem token.
struct Problem {
    what: String,
    message: String,
    crash: Option<String>,
}

fn problem(what: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        what: what.into(),
        message: message.into(),
        crash: None,
    }
}

/// Ruby prints the end of input (`-1`) in problem messages as `-1`.
fn what_of(c: Option<char>) -> String {
    match c {
        Some(c) => c.to_string(),
        None => "-1".into(),
    }
}

pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    saver: WhitespaceSaver,
    /// Where the current top-level token starts (after whitespace), to span problems.
    tok_start: usize,
    /// Comments seen, as byte spans (marker through end of line).
    pub comments: Vec<Span>,
}

/// Tokenizes the whole text (Ruby tokenizes lazily, but a problem never stops it, so the token
/// stream is the same).
pub(super) fn tokenize(text: &str) -> (Vec<Token>, Vec<Span>) {
    let mut lx = Lexer {
        text,
        pos: 0,
        line: 1,
        saver: WhitespaceSaver::default(),
        tok_start: 0,
        comments: Vec::new(),
    };
    let mut out = vec![Token {
        tok: Tok::Start,
        span: Span::empty(0),
        line: None,
    }];
    loop {
        let t = match lx.pull_with_saver(None) {
            Ok(t) => t,
            Err(p) => {
                let start = lx.tok_start;
                let span = Span::new(start, lx.pos.max(start));
                let tok = match p.crash {
                    Some(c) => Tok::CrashingProblem(c),
                    None => Tok::Problem {
                        what: p.what,
                        message: p.message,
                    },
                };
                out.push(Token {
                    tok,
                    span,
                    line: Some(lx.line),
                });
                continue;
            }
        };
        let line = lx.line;
        if let Some(w) = lx.saver.check(&t, line) {
            out.push(w);
        }
        let eof = t.tok == Tok::Eof;
        out.push(t);
        if eof {
            break;
        }
    }
    let comments = lx.comments;
    (out, comments)
}

impl<'a> Lexer<'a> {
    fn next_char(&mut self) -> Option<char> {
        let c = self.text[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn put_back(&mut self, c: Option<char>) {
        if let Some(c) = c {
            self.pos -= c.len_utf8();
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn token(&self, tok: Tok, start: usize, line: Option<usize>) -> Token {
        Token {
            tok,
            span: Span::new(start, self.pos),
            line,
        }
    }

    /// `start_of_comment?`: `#`, or `/` followed by `/` (nothing consumed).
    fn start_of_comment(&self, c: char) -> bool {
        c == '#' || (c == '/' && self.peek() == Some('/'))
    }

    fn next_char_after_whitespace(
        &mut self,
        own_saver: Option<&mut WhitespaceSaver>,
    ) -> Option<char> {
        let mut own = own_saver;
        loop {
            let at = self.pos;
            let c = self.next_char()?;
            if c != '\n' && is_ws(c) {
                match own.as_deref_mut() {
                    Some(s) => s.add(c, at),
                    None => self.saver.add(c, at),
                }
            } else {
                return Some(c);
            }
        }
    }

    /// Ruby's `pull_next_token`; inside a substitution, whitespace goes to its own saver.
    fn pull_with_saver(&mut self, saver: Option<&mut WhitespaceSaver>) -> Result<Token, Problem> {
        let top = saver.is_none();
        let c = self.next_char_after_whitespace(saver);
        let start = self.pos - c.map_or(0, char::len_utf8);
        if top {
            self.tok_start = start;
        }
        let Some(c) = c else {
            return Ok(self.token(Tok::Eof, self.pos, None));
        };
        if c == '\n' {
            let t = self.token(Tok::Newline, start, Some(self.line));
            self.line += 1;
            return Ok(t);
        }
        if self.start_of_comment(c) {
            return Ok(self.pull_comment(c, start));
        }
        let fixed = match c {
            '"' => return self.pull_quoted_string(start),
            '$' => return self.pull_substitution(start),
            ':' => Some(Tok::Colon),
            ',' => Some(Tok::Comma),
            '=' => Some(Tok::Equals),
            '{' => Some(Tok::OpenCurly),
            '}' => Some(Tok::CloseCurly),
            '[' => Some(Tok::OpenSquare),
            ']' => Some(Tok::CloseSquare),
            '+' => {
                let n = self.next_char();
                if n != Some('=') {
                    let w = what_of(n);
                    let message = format!("'+' not followed by =, '{w}' not allowed after '+'");
                    return Err(problem(w, message));
                }
                Some(Tok::PlusEquals)
            }
            _ => None,
        };
        if let Some(tok) = fixed {
            return Ok(self.token(tok, start, None));
        }
        if c.is_ascii_digit() || c == '-' {
            return self.pull_number(c, start);
        }
        if NOT_IN_UNQUOTED_TEXT.contains(c) {
            return Err(problem(
                c.to_string(),
                format!("Reserved character '{c}' is not allowed outside quotes"),
            ));
        }
        self.put_back(Some(c));
        Ok(self.pull_unquoted_text(start))
    }

    fn pull_comment(&mut self, first: char, start: usize) -> Token {
        if first == '/' {
            self.next_char();
        }
        let text_start = self.pos;
        let end = self.text[self.pos..]
            .find('\n')
            .map_or(self.text.len(), |i| self.pos + i);
        self.pos = end;
        let mut cend = end;
        if self.text[..cend].ends_with('\r') {
            cend -= 1;
        }
        self.comments.push(Span::new(start, cend));
        let text = self.text[text_start..end].to_string();
        self.token(Tok::Comment(text), start, Some(self.line))
    }

    fn pull_unquoted_text(&mut self, start: usize) -> Token {
        let line = Some(self.line);
        let mut s = String::new();
        while let Some(c) = self.next_char() {
            if NOT_IN_UNQUOTED_TEXT.contains(c) || is_ws(c) || self.start_of_comment(c) {
                self.put_back(Some(c));
                break;
            }
            s.push(c);
            // true/false/null are tokens as soon as the run starts with them.
            match s.as_str() {
                "true" => return self.token(Tok::Value(TokValue::Bool(true)), start, line),
                "null" => return self.token(Tok::Value(TokValue::Null), start, line),
                "false" => return self.token(Tok::Value(TokValue::Bool(false)), start, line),
                _ => {}
            }
        }
        self.token(Tok::Unquoted(s), start, line)
    }

    fn pull_number(&mut self, first: char, start: usize) -> Result<Token, Problem> {
        let mut s = String::from(first);
        let mut dec_or_e = false;
        while let Some(c) = self.peek() {
            if !NUMBER_CHARS.contains(c) {
                break;
            }
            self.next_char();
            dec_or_e |= matches!(c, '.' | 'e' | 'E');
            s.push(c);
        }
        let line = Some(self.line);
        let num = if dec_or_e {
            match ruby_float(&s) {
                // Ruby's ConfigNumber.new_number: a Float equal to its to_i is an Integer.
                Some(f) if f.is_infinite() => {
                    let m = if f > 0.0 { "Infinity" } else { "-Infinity" };
                    return Ok(self.token(Tok::Crash(m.into()), start, line));
                }
                Some(f) if f.fract() == 0.0 => Some(whole_float(f)),
                Some(f) => Some(Num::Float(f)),
                None => None,
            }
        } else {
            ruby_integer(&s)
        };
        match num {
            Some(n) => Ok(self.token(Tok::Value(TokValue::Num(n, s)), start, line)),
            None => {
                // Not a number after all: unquoted text, unless it holds a reserved character
                // (only `+` can). Ruby's message lacks a space here.
                if s.contains('+') {
                    return Err(problem(
                        "+",
                        "Reserved character '+'is not allowed outside quotes",
                    ));
                }
                Ok(self.token(Tok::Unquoted(s), start, line))
            }
        }
    }

    fn pull_quoted_string(&mut self, start: usize) -> Result<Token, Problem> {
        let mut sb = String::new();
        loop {
            let c = self.next_char();
            match c {
                None => {
                    return Err(problem("-1", "End of input but string quote was still open"))
                }
                Some('\\') => self.pull_escape_sequence(&mut sb)?,
                Some('"') => break,
                Some(c) if c.is_control() => {
                    return Err(problem(
                        c.to_string(),
                        format!("JSON does not allow unescaped {c} in quoted strings, use a backslash escape"),
                    ))
                }
                Some(c) => sb.push(c),
            }
        }
        if sb.is_empty() {
            let third = self.next_char();
            if third == Some('"') {
                self.append_triple_quoted_string(&mut sb)?;
            } else {
                self.put_back(third);
            }
        }
        Ok(self.token(Tok::Value(TokValue::Str(sb)), start, Some(self.line)))
    }

    fn pull_escape_sequence(&mut self, sb: &mut String) -> Result<(), Problem> {
        let Some(escaped) = self.next_char() else {
            return Err(problem(
                "",
                "End of input but backslash in string had nothing after it",
            ));
        };
        match escaped {
            '"' => sb.push('"'),
            '\\' => sb.push('\\'),
            '/' => sb.push('/'),
            'b' => sb.push('\u{8}'),
            'f' => sb.push('\u{c}'),
            'n' => sb.push('\n'),
            'r' => sb.push('\r'),
            't' => sb.push('\t'),
            'u' => {
                let mut code = String::new();
                for _ in 0..4 {
                    match self.next_char() {
                        Some(c) => code.push(c),
                        None => {
                            return Err(problem(
                                "-1",
                                "End of input but expecting 4 hex digits for \\uXXXX escape",
                            ))
                        }
                    }
                }
                // Ruby: `[codepoint.hex].pack("U")`, and "_" (U+005F) is taken as the failure.
                match ruby_hex(&code) {
                    Some(0x5F) => {
                        return Err(problem(
                            code.clone(),
                            format!("Malformed hex digits after \\u escape in string: '{code}'"),
                        ))
                    }
                    Some(v) => match u32::try_from(v).ok().and_then(char::from_u32) {
                        Some(ch) => sb.push(ch),
                        // A surrogate: Ruby builds an invalid string; we keep U+FFFD.
                        None if (0xD800..0xE000).contains(&v) => sb.push('\u{FFFD}'),
                        None => {
                            return Err(Problem {
                                what: String::new(),
                                message: String::new(),
                                crash: Some("pack(U): value out of range".into()),
                            })
                        }
                    },
                    None => {
                        return Err(Problem {
                            what: String::new(),
                            message: String::new(),
                            crash: Some("pack(U): value out of range".into()),
                        })
                    }
                }
            }
            other => {
                let name = match other {
                    '\n' => "newline".to_string(),
                    '\t' => "tab".to_string(),
                    c if c.is_control() => format!("control character 0x{:x}", c as u32),
                    c => c.to_string(),
                };
                return Err(Problem {
                    what: String::new(),
                    message: String::new(),
                    crash: Some(format!(
                        "undefined method `line_number' for {}:String",
                        crate::value::Value::string(name).ruby_inspect()
                    )),
                });
            }
        }
        Ok(())
    }

    fn append_triple_quoted_string(&mut self, sb: &mut String) -> Result<(), Problem> {
        let mut quotes = 0;
        loop {
            let c = self.next_char();
            if c == Some('"') {
                quotes += 1;
            } else if quotes >= 3 {
                // The last three quotes end the string; earlier ones are content.
                sb.truncate(sb.len() - 3);
                self.put_back(c);
                return Ok(());
            } else {
                quotes = 0;
                match c {
                    None => {
                        return Err(problem(
                            "-1",
                            "End of input but triple-quoted string was still open",
                        ))
                    }
                    Some('\n') => self.line += 1,
                    _ => {}
                }
            }
            if let Some(c) = c {
                sb.push(c);
            }
        }
    }

    fn pull_substitution(&mut self, start: usize) -> Result<Token, Problem> {
        let c = self.next_char();
        if c != Some('{') {
            let w = what_of(c);
            let message = format!("'$' not followed by {{, '{w}' not allowed after '$'");
            return Err(problem(w, message));
        }
        let optional = if self.peek() == Some('?') {
            self.next_char();
            true
        } else {
            false
        };
        let mut saver = WhitespaceSaver::default();
        let mut expr = Vec::new();
        loop {
            let t = self.pull_with_saver(Some(&mut saver))?;
            match t.tok {
                Tok::CloseCurly => break,
                Tok::Eof => {
                    return Err(problem(
                        "end of file",
                        "Substitution ${ was not closed with a }",
                    ))
                }
                _ => {
                    if let Some(w) = saver.check(&t, self.line) {
                        expr.push(w);
                    }
                    expr.push(t);
                }
            }
        }
        Ok(self.token(Tok::Substitution { optional, expr }, start, Some(self.line)))
    }
}

/// Ruby's `Integer(s)` for the characters a number token can hold (`[0-9+-]`): an optional `-`,
/// then decimal digits, or octal when there is a leading `0` (`010` is 8, `08` fails).
fn ruby_integer(s: &str) -> Option<Num> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (radix, body) = if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if radix == 8 && !body.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    let text = if neg {
        format!("-{body}")
    } else {
        body.to_string()
    };
    match i64::from_str_radix(&text, radix) {
        Ok(i) => Some(Num::Int(i)),
        Err(_) => Some(Num::Big(big_to_decimal(body, radix, neg))),
    }
}

/// A whole Float as Ruby's `to_i` gives it: exact, a Bignum beyond 64 bits.
fn whole_float(f: f64) -> Num {
    // i64::MIN and 2^63 are exact as floats.
    if (i64::MIN as f64..-(i64::MIN as f64)).contains(&f) {
        Num::Int(f as i64)
    } else {
        Num::Big(format!("{f:.0}"))
    }
}

/// Decimal digits of a big octal or decimal number.
fn big_to_decimal(body: &str, radix: u32, neg: bool) -> String {
    let big = crate::value::BigInt::parse_bytes(body.as_bytes(), radix).unwrap_or_default();
    (if neg { -big } else { big }).to_string()
}

/// Ruby's `Float(s)` for the characters a number token can hold: `-?(digits(.digits)?|.digits)`
/// with an optional exponent. Overflow gives infinity (Ruby warns and returns Infinity).
fn ruby_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let has_int = i > int_start;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let f = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == f {
            return None;
        }
    } else if !has_int {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let e = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    s.parse().ok()
}

/// Ruby's `String#hex`: optional leading whitespace and sign, optional `0x`, hex digits with
/// single underscores between them; stops at the first other character; 0 when none.
fn ruby_hex(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let mut v: i64 = 0;
    let mut last_us = true;
    for c in t.chars() {
        if c == '_' && !last_us {
            last_us = true;
            continue;
        }
        match c.to_digit(16) {
            Some(d) => {
                v = v * 16 + i64::from(d);
                last_us = false;
            }
            None => break,
        }
    }
    let v = if neg { -v } else { v };
    if v < 0 {
        None
    } else {
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_number_rules() {
        assert_eq!(ruby_integer("010"), Some(Num::Int(8)));
        assert_eq!(ruby_integer("007"), Some(Num::Int(7)));
        assert_eq!(ruby_integer("08"), None);
        assert_eq!(ruby_integer("-0"), Some(Num::Int(0)));
        assert_eq!(ruby_integer("1-2"), None);
        assert_eq!(
            ruby_integer("9223372036854775808"),
            Some(Num::Big("9223372036854775808".into()))
        );
        assert_eq!(
            ruby_integer("01000000000000000000000"),
            Some(Num::Big("9223372036854775808".into()))
        );
        assert_eq!(ruby_float("-.5"), Some(-0.5));
        assert_eq!(ruby_float("5."), None);
        assert_eq!(ruby_float("1.e5"), None);
        assert_eq!(ruby_float("1e5"), Some(1e5));
        assert_eq!(ruby_float("1.5.3"), None);
        assert_eq!(ruby_hex("00e9"), Some(0xe9));
        assert_eq!(ruby_hex("zzzz"), Some(0));
        assert_eq!(ruby_hex("-001"), None);
    }

    #[test]
    fn whitespace_between_simple_values_is_text() {
        let (toks, _) = tokenize("a = foo bar\n");
        let kinds: Vec<String> = toks.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            kinds,
            [
                "start of file",
                "'a'",
                "' ' (WHITESPACE)",
                "'='",
                "' ' (WHITESPACE)",
                "'foo'",
                "' '",
                "'bar'",
                "NEWLINE",
                "end of file"
            ]
        );
        assert_eq!(toks[5].span, Span::new(4, 7));
    }
}

//! Psych 4.0.3 (YAML 1.1) scalar resolution, replicated without regexes.
//!
//! Psych types a plain scalar in `Psych::ScalarScanner#tokenize`
//! (`/usr/lib/ruby/3.1.0/psych/scalar_scanner.rb`) and applies tags in
//! `Psych::Visitors::ToRuby#deserialize` (`psych/visitors/to_ruby.rb`). Puppet loads data with
//! `YAML.safe_load(content, permitted_classes: [Symbol], aliases: true)` (reference §6.1), so a
//! Date, Time or any other class makes the whole file fail with
//! `Tried to load unspecified class: <Class>`.
//!
//! Every branch below follows `tokenize` in order; each is written as a hand matcher for the Ruby
//! regex it replaces (quoted above it). Ruby's `^`/`$` are *line* anchors: only the first branch
//! can see a `\n` (every string containing one is caught there), so the later matchers work on
//! whole strings. The recorded table `fixtures/psych/scalars.json` proves every rule
//! (`tests/loader_yaml.rs::psych_scalar_table`).

use std::sync::Arc;

use super::LoadIssueKind;
use crate::value::{BigInt, Resolution, Value};

/// The outcome of resolving one scalar as Psych does.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub value: Value,
    /// The rule that fired (`None`: a plain string).
    pub resolution: Option<Resolution>,
    /// Set when Psych raises instead of returning a value (a Date/Time, a forbidden class,
    /// `Float()`/`Integer()` rejecting what the regexes let through), or when Psych returns a
    /// value hieralint cannot represent exactly (a Bignum). `value` then holds the best
    /// approximation (the text as a string, or the Bignum as a Float).
    pub error: Option<Failure>,
}

/// Why Psych does not give a plain value: the issue kind and message the loader reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub kind: LoadIssueKind,
    pub message: String,
}

impl Resolved {
    fn ok(value: Value, resolution: Option<Resolution>) -> Resolved {
        Resolved {
            value,
            resolution,
            error: None,
        }
    }

    fn string(s: &Arc<str>) -> Resolved {
        Resolved::ok(Value::String(s.clone()), None)
    }

    fn fail(
        s: &Arc<str>,
        resolution: Resolution,
        kind: LoadIssueKind,
        message: String,
    ) -> Resolved {
        Resolved {
            value: Value::String(s.clone()),
            resolution: Some(resolution),
            error: Some(Failure { kind, message }),
        }
    }

    /// An integer of any size: Psych gives an exact Bignum beyond 64 bits and Puppet returns
    /// it from lookups (recorded: fixtures/conformance/yaml/scalars).
    fn integer(i: BigInt, resolution: Resolution) -> Resolved {
        Resolved::ok(Value::from_bigint(i), Some(resolution))
    }
}

/// `Psych::DisallowedClass#message` for `safe_load`.
pub(crate) fn disallowed(class: &str) -> String {
    format!("Tried to load unspecified class: {class}")
}

/// `ScalarScanner#tokenize` for a plain, untagged scalar. `s` is the scalar's value (after YAML
/// line folding), shared with the returned string value when it stays a string.
pub fn tokenize(s: &Arc<str>) -> Resolved {
    let t: &str = s;
    if t.is_empty() {
        return Resolved::ok(Value::Undef, Some(Resolution::Null));
    }
    // %r{^[^\d.:-]?[[:alpha:]_\s!@#$%\^&*(){}<>|/\\~;=]+} || /\n/
    // A byte loop: plain scalars here are short (numbers, dates), and `contains('\n')` set a
    // char searcher up on every one.
    if looks_like_word(t) || t.bytes().any(|b| b == b'\n') {
        return word(s);
    }
    let b = t.as_bytes();
    if is_time(b) {
        // parse_time starts with `class_loader.load 'Time'`, which raises before any
        // ArgumentError could be rescued.
        return Resolved::fail(
            s,
            Resolution::DateTime,
            LoadIssueKind::DateTime,
            disallowed("Time"),
        );
    }
    if is_date(b) {
        // `class_loader.date.strptime(...)`: loading Date raises first.
        return Resolved::fail(
            s,
            Resolution::DateTime,
            LoadIssueKind::DateTime,
            disallowed("Date"),
        );
    }
    // /^\+?\.inf$/i, /^-\.inf$/i, /^\.nan$/i
    let unsigned = b.strip_prefix(b"+").unwrap_or(b);
    if unsigned.eq_ignore_ascii_case(b".inf") {
        return Resolved::ok(Value::Float(f64::INFINITY), Some(Resolution::FloatSpecial));
    }
    if b.eq_ignore_ascii_case(b"-.inf") {
        return Resolved::ok(
            Value::Float(f64::NEG_INFINITY),
            Some(Resolution::FloatSpecial),
        );
    }
    if b.eq_ignore_ascii_case(b".nan") {
        return Resolved::ok(Value::Float(f64::NAN), Some(Resolution::FloatSpecial));
    }
    // /^:./
    if b.len() >= 2 && b[0] == b':' {
        return Resolved::ok(Value::Symbol(symbol_name(t)), Some(Resolution::Symbol));
    }
    if let Some(parts) = sexagesimal(b, false) {
        return sexagesimal_int(&parts);
    }
    if let Some(parts) = sexagesimal(b, true) {
        return Resolved::ok(
            Value::Float(sexagesimal_float(t, &parts)),
            Some(Resolution::Sexagesimal),
        );
    }
    if is_float(b) {
        // if string.match?(/\A[-+]?\.\Z/) then string
        if matches!(b, b"." | b"+." | b"-.") {
            return Resolved::string(s);
        }
        // Float(string.gsub(/[,_]|\.([Ee]|$)/, '\1'))
        let cleaned = float_gsub(t);
        return match ruby_float(&cleaned) {
            Some(f) => Resolved::ok(Value::Float(f), Some(Resolution::Float)),
            None => Resolved::fail(
                s,
                Resolution::Float,
                LoadIssueKind::RubyError,
                format!("invalid value for Float(): {}", ruby_str_inspect(&cleaned)),
            ),
        };
    }
    if let Some(radix) = integer_form(b) {
        // parse_int: Integer(string.gsub(/[,_]/, ''))
        let cleaned: String = t.chars().filter(|&c| c != ',' && c != '_').collect();
        let resolution = if radix == 10 && cleaned.len() == t.len() {
            Resolution::Int
        } else {
            Resolution::IntRadixOrSeparators
        };
        return match ruby_integer(&cleaned) {
            IntParse::Ok(i) => Resolved::ok(Value::Integer(i), Some(resolution)),
            IntParse::Big(i) => Resolved::integer(i, resolution),
            IntParse::Invalid => Resolved::fail(
                s,
                resolution,
                LoadIssueKind::RubyError,
                format!(
                    "invalid value for Integer(): {}",
                    ruby_str_inspect(&cleaned)
                ),
            ),
        };
    }
    Resolved::string(s)
}

/// The characters of `[[:alpha:]_\s!@#$%\^&*(){}<>|/\\~;=]`. `[[:alpha:]]` is Onigmo's
/// Unicode Alphabetic property (Rust's `char::is_alphabetic` is the same property); `\s` is
/// Ruby's ASCII `[ \t\n\v\f\r]`.
fn is_word_char(c: char) -> bool {
    match c {
        '_' | ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' | '!' | '@' | '#' | '$' | '%' | '^'
        | '&' | '*' | '(' | ')' | '{' | '}' | '<' | '>' | '|' | '/' | '\\' | '~' | ';' | '=' => {
            true
        }
        c if c.is_ascii() => c.is_ascii_alphabetic(),
        c => c.is_alphabetic(),
    }
}

/// `%r{^[^\d.:-]?[[:alpha:]_\s...]+}` at any line start: the first character is a word char, or
/// it is not one of `0-9 . : -` and the second is a word char.
fn looks_like_word(t: &str) -> bool {
    let mut at_line_start = true;
    let mut chars = t.chars().peekable();
    while let Some(c0) = chars.next() {
        if at_line_start {
            if is_word_char(c0) {
                return true;
            }
            let excluded = c0.is_ascii_digit() || matches!(c0, '.' | ':' | '-');
            if !excluded {
                if let Some(&c1) = chars.peek() {
                    if is_word_char(c1) {
                        return true;
                    }
                }
            }
        }
        at_line_start = c0 == '\n';
    }
    false
}

/// The first branch of `tokenize`: strings, with the null and boolean words.
fn word(s: &Arc<str>) -> Resolved {
    let t: &str = s;
    // return string if string.length > 5
    if t.chars().nth(5).is_some() {
        return Resolved::string(s);
    }
    // string.match?(/^[^ytonf~]/i): some line starts with another character (a negated class
    // matches "\n" too, so an empty line counts).
    let mut at_line_start = true;
    for c in t.chars() {
        if at_line_start && !matches!(c.to_ascii_lowercase(), 'y' | 't' | 'o' | 'n' | 'f' | '~') {
            return Resolved::string(s);
        }
        at_line_start = c == '\n';
    }
    // Five characters at most here, almost always one line (`true`, `no`): compared whole
    // without splitting (a char searcher set up three times per such scalar).
    let one_line = !t.bytes().any(|b| b == b'\n');
    let any_line = |words: &[&str]| {
        if one_line {
            words.iter().any(|w| t.eq_ignore_ascii_case(w))
        } else {
            t.split('\n')
                .any(|line| words.iter().any(|w| line.eq_ignore_ascii_case(w)))
        }
    };
    if t == "~" || any_line(&["null"]) {
        Resolved::ok(Value::Undef, Some(Resolution::Null))
    } else if any_line(&["yes", "true", "on"]) {
        Resolved::ok(Value::Bool(true), Some(Resolution::Bool))
    } else if any_line(&["no", "false", "off"]) {
        Resolved::ok(Value::Bool(false), Some(Resolution::Bool))
    } else {
        Resolved::string(s)
    }
}

fn is_ruby_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Counts ASCII digits at `b[i..]`, at most `max`.
fn digits(b: &[u8], i: usize, max: usize) -> usize {
    b[i.min(b.len())..]
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_digit())
        .count()
}

/// `^\d{4}-\d{1,2}-\d{1,2}` (with the optional leading `-` of TIME): returns the index after it.
fn date_prefix(b: &[u8], allow_sign: bool) -> Option<usize> {
    let mut i = 0;
    if allow_sign && b.first() == Some(&b'-') {
        i = 1;
    }
    if digits(b, i, 4) != 4 {
        return None;
    }
    i += 4;
    for _ in 0..2 {
        if b.get(i) != Some(&b'-') {
            return None;
        }
        i += 1;
        let n = digits(b, i, 2);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

/// TIME = `/^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?
/// (?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$/`
fn is_time(b: &[u8]) -> bool {
    let Some(mut i) = date_prefix(b, true) else {
        return false;
    };
    match b.get(i) {
        Some(b'T' | b't') => i += 1,
        Some(&c) if is_ruby_space(c) => {
            while b.get(i).is_some_and(|&c| is_ruby_space(c)) {
                i += 1;
            }
        }
        _ => return false,
    }
    let n = digits(b, i, 2);
    if n == 0 {
        return false;
    }
    i += n;
    for _ in 0..2 {
        if b.get(i) != Some(&b':') || digits(b, i + 1, 2) != 2 {
            return false;
        }
        i += 3;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        i += digits(b, i, usize::MAX);
    }
    if i == b.len() {
        return true;
    }
    while b.get(i).is_some_and(|&c| is_ruby_space(c)) {
        i += 1;
    }
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'-' | b'+') => is_tz_digits(&b[i + 1..]),
        _ => false,
    }
}

/// `\d{1,2}:?(?:\d\d)?$`, with the backtracking the regex allows.
fn is_tz_digits(t: &[u8]) -> bool {
    (1..=2).any(|n| {
        if digits(t, 0, n) != n {
            return false;
        }
        let rest = &t[n..];
        let two = |r: &[u8]| r.is_empty() || (r.len() == 2 && digits(r, 0, 2) == 2);
        two(rest) || (rest.first() == Some(&b':') && two(&rest[1..]))
    })
}

/// `/^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$/`
fn is_date(b: &[u8]) -> bool {
    if b.len() < 8 || digits(b, 0, 4) != 4 || b[4] != b'-' {
        return false;
    }
    let rest = &b[5..];
    let Some(dash) = rest.iter().position(|&c| c == b'-') else {
        return false;
    };
    let (month, day) = (&rest[..dash], &rest[dash + 1..]);
    let month_ok = match month {
        [m] => m.is_ascii_digit(),
        [b'1', m] => matches!(m, b'0'..=b'2'),
        [b'0', m] => m.is_ascii_digit(),
        _ => false,
    };
    let day_ok = match day {
        [d] => d.is_ascii_digit(),
        [b'1' | b'2' | b'0', d] => d.is_ascii_digit(),
        [b'3', d] => matches!(d, b'0' | b'1'),
        _ => false,
    };
    month_ok && day_ok
}

/// The symbol branch: `/^:(["'])(.*)\1/` takes what is between the quotes (the regex is greedy and
/// unanchored at the end: up to the last matching quote), else everything after the colon; then
/// `.sub(/^:/, '')` drops one more leading colon.
fn symbol_name(t: &str) -> Arc<str> {
    let rest = &t[1..];
    if let Some(q @ ('"' | '\'')) = rest.chars().next() {
        let inner = &rest[1..];
        if let Some(end) = inner.rfind(q) {
            let name = &inner[..end];
            return Arc::from(name.strip_prefix(':').unwrap_or(name));
        }
    }
    Arc::from(rest)
}

/// `/^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$/` (int) or the same followed by `\.[0-9_]*` (float).
/// Returns the `:`-separated parts.
fn sexagesimal(b: &[u8], float: bool) -> Option<Vec<&[u8]>> {
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    if !b.get(i)?.is_ascii_digit() {
        return None;
    }
    i += 1;
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut parts = vec![&b[..i]];
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        let n = digits(b, i + 1, 2);
        let ok = match n {
            1 => true,
            2 => b[i + 1] <= b'5',
            _ => false,
        };
        if !ok || groups == 2 {
            return None;
        }
        groups += 1;
        let start = i + 1;
        i += 1 + n;
        if float
            && b.get(i) == Some(&b'.')
            && i + 1 + rest_digits_underscores(&b[i + 1..]) == b.len()
        {
            parts.push(&b[start..]);
            return (groups >= 1).then_some(parts);
        }
        parts.push(&b[start..i]);
    }
    (!float && groups >= 1 && i == b.len()).then_some(parts)
}

fn rest_digits_underscores(b: &[u8]) -> usize {
    b.iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'_')
        .count()
}

/// `i += n.to_i * 60 ** (e - 2).abs` over the parts. Ruby integers do not overflow; beyond i64
/// this is a Bignum.
fn sexagesimal_int(parts: &[&[u8]]) -> Resolved {
    let mut total = BigInt::from(0);
    for (e, part) in parts.iter().enumerate() {
        let mult = num_traits::pow(BigInt::from(60), (e as i32 - 2).unsigned_abs() as usize);
        total += ruby_to_i(part) * mult;
    }
    Resolved::integer(total, Resolution::Sexagesimal)
}

/// The float form: `i += n.to_f * 60 ** (e - 2).abs`, starting from Integer 0.
fn sexagesimal_float(t: &str, parts: &[&[u8]]) -> f64 {
    let _ = t;
    let mut total = 0.0f64;
    for (e, part) in parts.iter().enumerate() {
        let mult = 60f64.powi((e as i32 - 2).abs());
        total += ruby_to_f(part) * mult;
    }
    total
}

/// Ruby's `String#to_i` on `[-+]?[0-9_]*...`: digits with single underscores between them; stops
/// at anything else. Saturates far beyond i64 (the caller checks the range).
fn ruby_to_i(b: &[u8]) -> BigInt {
    let (neg, digits_part) = sign(b);
    let v = BigInt::parse_bytes(&digit_run(digits_part).0, 10).unwrap_or_default();
    if neg {
        -v
    } else {
        v
    }
}

fn sign(b: &[u8]) -> (bool, &[u8]) {
    match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    }
}

/// Ruby's `String#to_f` on the sexagesimal parts: digits (single `_` between), optional
/// `.digits`.
fn ruby_to_f(b: &[u8]) -> f64 {
    let (neg, rest) = sign(b);
    let (int, used) = digit_run(rest);
    let mut s: String = int.iter().map(|&c| char::from(c)).collect();
    if rest.get(used) == Some(&b'.') {
        let (frac, _) = digit_run(&rest[used + 1..]);
        if !frac.is_empty() {
            s.push('.');
            s.extend(frac.iter().map(|&c| char::from(c)));
        }
    }
    let v: f64 = if s.is_empty() {
        0.0
    } else {
        s.parse().unwrap_or(0.0)
    };
    if neg {
        -v
    } else {
        v
    }
}

/// The leading run of digits with single `_` between digits (as `to_i`/`to_f` read), and how
/// many bytes it spans.
fn digit_run(b: &[u8]) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut i = 0;
    let mut end = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            out.push(b[i]);
            i += 1;
            end = i;
        } else if b[i] == b'_' && i > 0 && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
        } else {
            break;
        }
    }
    (out, end)
}

/// FLOAT = `/^(?:[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?)$/`
fn is_float(b: &[u8]) -> bool {
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    if b.get(i).is_some_and(u8::is_ascii_digit) {
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_digit() || *c == b'_' || *c == b',')
        {
            i += 1;
        }
    }
    if b.get(i) != Some(&b'.') {
        return false;
    }
    i += 1;
    i += digits(b, i, usize::MAX);
    if i == b.len() {
        return true;
    }
    if !matches!(b[i], b'e' | b'E') || !matches!(b.get(i + 1), Some(b'-' | b'+')) {
        return false;
    }
    let n = digits(b, i + 2, usize::MAX);
    n > 0 && i + 2 + n == b.len()
}

/// `string.gsub(/[,_]|\.([Ee]|$)/, '\1')`: drops separators, and a `.` that is followed by an
/// exponent or ends the string.
fn float_gsub(t: &str) -> String {
    let b = t.as_bytes();
    let mut out = String::with_capacity(t.len());
    for (i, &c) in b.iter().enumerate() {
        match c {
            b',' | b'_' => {}
            b'.' if matches!(b.get(i + 1), None | Some(b'e' | b'E')) => {}
            _ => out.push(c as char),
        }
    }
    out
}

/// Ruby's `Float(string)` (strict): optional surrounding whitespace, sign, decimal digits with
/// single underscores between digits, optional `.digits` (a digit must follow the dot), optional
/// exponent with optional sign; or a hexadecimal form. `None` is an ArgumentError.
pub(crate) fn ruby_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c.is_ascii() && is_ruby_space(c as u8));
    let b = t.as_bytes();
    let (neg, body) = sign(b);
    if body.len() >= 2 && body[0] == b'0' && matches!(body[1], b'x' | b'X') {
        return ruby_hex_float(&body[2..]).map(|v| if neg { -v } else { v });
    }
    let mut clean = String::with_capacity(b.len());
    if neg {
        clean.push('-');
    }
    let mut i = 0;
    let run = |i: &mut usize, clean: &mut String| -> usize {
        let start = *i;
        let mut n = 0;
        while *i < body.len() {
            let c = body[*i];
            if c.is_ascii_digit() {
                clean.push(c as char);
                n += 1;
                *i += 1;
            } else if c == b'_'
                && *i > start
                && body[*i - 1].is_ascii_digit()
                && body.get(*i + 1).is_some_and(u8::is_ascii_digit)
            {
                *i += 1;
            } else {
                break;
            }
        }
        n
    };
    let int_digits = run(&mut i, &mut clean);
    let mut frac_digits = 0;
    if body.get(i) == Some(&b'.') {
        clean.push('.');
        i += 1;
        frac_digits = run(&mut i, &mut clean);
        if frac_digits == 0 {
            return None;
        }
    }
    if int_digits == 0 && frac_digits == 0 {
        return None;
    }
    if matches!(body.get(i), Some(b'e' | b'E')) {
        clean.push('e');
        i += 1;
        if let Some(&c @ (b'-' | b'+')) = body.get(i) {
            clean.push(c as char);
            i += 1;
        }
        if run(&mut i, &mut clean) == 0 {
            return None;
        }
    }
    if i != body.len() {
        return None;
    }
    clean.parse().ok()
}

/// `0x` hexadecimal for `Float()`: hex digits, optional `.hex` fraction, optional `p[+-]dec`.
fn ruby_hex_float(b: &[u8]) -> Option<f64> {
    let mut i = 0;
    let mut mant = 0f64;
    let mut any = false;
    while let Some(d) = b.get(i).and_then(|c| (*c as char).to_digit(16)) {
        mant = mant * 16.0 + d as f64;
        any = true;
        i += 1;
    }
    let mut scale = 0i32;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while let Some(d) = b.get(i).and_then(|c| (*c as char).to_digit(16)) {
            mant = mant * 16.0 + d as f64;
            scale -= 4;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if matches!(b.get(i), Some(b'p' | b'P')) {
        let (neg, rest) = sign(&b[i + 1..]);
        let n = digits(rest, 0, usize::MAX);
        if n == 0 || n != rest.len() {
            return None;
        }
        let e: i32 = std::str::from_utf8(&rest[..n]).ok()?.parse().ok()?;
        scale += if neg { -e } else { e };
        i = b.len();
    }
    (i == b.len()).then(|| mant * 2f64.powi(scale))
}

/// INTEGER: base 2 `[-+]?0b[0-1_,]+`, base 8 `[-+]?0[0-7_,]+`, base 10
/// `[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)`, base 16 `[-+]?0x[0-9a-fA-F_,]+`. Returns the
/// radix of the first alternative that matches the whole string.
fn integer_form(b: &[u8]) -> Option<u32> {
    let body = match b.first() {
        Some(b'-' | b'+') => &b[1..],
        _ => b,
    };
    let all = |r: &[u8], f: fn(u8) -> bool| !r.is_empty() && r.iter().all(|&c| f(c));
    if let Some(r) = body.strip_prefix(b"0b") {
        if all(r, |c| matches!(c, b'0' | b'1' | b'_' | b',')) {
            return Some(2);
        }
    }
    if let Some(r) = body.strip_prefix(b"0") {
        if all(r, |c| matches!(c, b'0'..=b'7' | b'_' | b',')) {
            return Some(8);
        }
    }
    if body == b"0" {
        return Some(10);
    }
    if body.first().is_some_and(|c| matches!(c, b'1'..=b'9')) {
        let mut i = 1;
        let mut ok = true;
        while i < body.len() {
            match body[i] {
                b'0'..=b'9' => i += 1,
                b',' | b'_' if body.get(i + 1).is_some_and(u8::is_ascii_digit) => i += 2,
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Some(10);
        }
    }
    if let Some(r) = body.strip_prefix(b"0x") {
        if all(r, |c| c.is_ascii_hexdigit() || c == b'_' || c == b',') {
            return Some(16);
        }
    }
    None
}

enum IntParse {
    Ok(i64),
    /// Beyond i64: a Bignum.
    Big(BigInt),
    Invalid,
}

/// Ruby's `Integer(string)` on what `integer_form` accepted, separators removed: a prefix picks
/// the radix (`0b`, `0o`, `0x`, a bare leading `0` is octal).
/// The radix and digits of an unsigned integer body: `0b`, `0x`, a leading `0`, or decimal.
fn radix_digits(body: &[u8]) -> (u32, &[u8]) {
    if let Some(r) = body.strip_prefix(b"0b") {
        (2, r)
    } else if let Some(r) = body.strip_prefix(b"0x") {
        (16, r)
    } else if body.len() > 1 && body[0] == b'0' {
        (8, &body[1..])
    } else {
        (10, body)
    }
}

fn ruby_integer(s: &str) -> IntParse {
    let (neg, body) = sign(s.as_bytes());
    let (radix, digits) = radix_digits(body);
    if digits.is_empty() {
        return IntParse::Invalid;
    }
    if !digits.iter().all(|&c| (c as char).is_digit(radix)) {
        return IntParse::Invalid;
    }
    // Most integers fit an i64: accumulated directly (a BigInt parse was 700 instructions per
    // integer); on overflow, the BigInt path below decides.
    let mut acc: i64 = 0;
    let mut fits = true;
    for &c in digits {
        let d = i64::from((c as char).to_digit(radix).unwrap_or(0));
        match acc
            .checked_mul(i64::from(radix))
            .and_then(|x| x.checked_add(d))
        {
            Some(x) => acc = x,
            None => {
                fits = false;
                break;
            }
        }
    }
    if fits {
        return IntParse::Ok(if neg { -acc } else { acc });
    }
    let Some(v) = BigInt::parse_bytes(digits, radix) else {
        return IntParse::Invalid;
    };
    let v = if neg { -v } else { v };
    match i64::try_from(&v) {
        Ok(i) => IntParse::Ok(i),
        Err(_) => IntParse::Big(v),
    }
}

/// Ruby's `String#inspect` for the ASCII texts that appear in exception messages.
fn ruby_str_inspect(s: &str) -> String {
    Value::string(s).ruby_inspect()
}

/// Ruby's lenient `String#unpack('m')` (base64, as `!!binary` is decoded): characters outside
/// the alphabet are skipped, `=` ends the data, a trailing partial group yields its bytes.
pub(crate) fn unpack_base64(s: &str) -> Vec<u8> {
    // A table (0xff: not in the alphabet) instead of range tests per character: eyaml blocks
    // are hundreds of characters each, and malformed-eyaml decodes every PKCS7 one.
    const TABLE: [u8; 256] = {
        let mut t = [0xffu8; 256];
        let mut i = 0;
        while i < 26 {
            t[b'A' as usize + i] = i as u8;
            t[b'a' as usize + i] = i as u8 + 26;
            i += 1;
        }
        let mut d = 0;
        while d < 10 {
            t[b'0' as usize + d] = d as u8 + 52;
            d += 1;
        }
        t[b'+' as usize] = 62;
        t[b'/' as usize] = 63;
        t
    };
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let mut group = [0u32; 4];
    let mut n = 0;
    for &c in s.as_bytes() {
        if c == b'=' && n >= 2 {
            break;
        }
        let v = TABLE[c as usize];
        if v != 0xff {
            group[n] = v as u32;
            n += 1;
            if n == 4 {
                let w = group[0] << 18 | group[1] << 12 | group[2] << 6 | group[3];
                out.extend_from_slice(&[(w >> 16) as u8, (w >> 8) as u8, w as u8]);
                n = 0;
            }
        }
    }
    if n >= 2 {
        out.push((group[0] << 2 | group[1] >> 4) as u8);
        if n == 3 {
            out.push((group[1] << 4 | group[2] >> 2) as u8);
        }
    }
    out
}

/// The tag of a scalar in Psych's terms: `!!str` is `tag:yaml.org,2002:str`, `!foo` is `!foo`, a
/// verbatim `!<x>` is `x`, a lone `!` is `!`.
///
/// `ToRuby#deserialize`: an untagged quoted or block scalar is a string (`o.quoted`); an
/// untagged plain one is tokenized; a tagged one (whatever its style: libyaml reports a tagged
/// scalar as not `quoted`) goes through the tag `case`, whose `else` tokenizes. So `!!str 1` is
/// `"1"`, `!!int "1"` is `1`, and `!ruby/object:Foo 1` is `1`.
pub fn scalar(tag: Option<&str>, plain: bool, s: &Arc<str>) -> Resolved {
    let Some(tag) = tag else {
        return if plain {
            tokenize(s)
        } else {
            Resolved::string(s)
        };
    };
    let forbidden = |class: &str| Resolved {
        value: Value::String(s.clone()),
        resolution: None,
        error: Some(Failure {
            kind: LoadIssueKind::ForbiddenTag,
            message: disallowed(class),
        }),
    };
    match tag {
        // o.value.unpack('m').first: a binary String. Bytes that are not UTF-8 cannot be held by
        // a Value and are replaced (reported by the caller through `binary_not_utf8`).
        "!binary" | "tag:yaml.org,2002:binary" => {
            let bytes = unpack_base64(s);
            match String::from_utf8(bytes) {
                Ok(text) => Resolved::ok(Value::string(text), None),
                Err(e) => Resolved {
                    value: Value::string(String::from_utf8_lossy(e.as_bytes()).as_ref()),
                    resolution: None,
                    error: Some(Failure {
                        kind: LoadIssueKind::Unmodelled,
                        message: "this !!binary value decodes to bytes that are not UTF-8: Psych \
                                  loads a binary String, hieralint replaces the invalid bytes"
                            .into(),
                    }),
                },
            }
        }
        "tag:yaml.org,2002:str" => Resolved::string(s),
        t if str_tag_class(t).is_some() => match str_tag_class(t) {
            Some(Some(class)) if !class.is_empty() => forbidden(class),
            _ => Resolved::string(s),
        },
        "!ruby/object:BigDecimal" => forbidden("BigDecimal"),
        "!ruby/object:DateTime" => forbidden("DateTime"),
        "!ruby/object:Complex" => forbidden("Complex"),
        "!ruby/object:Rational" => forbidden("Rational"),
        // ::Encoding.find o.value: no class loader is asked, Psych returns an Encoding (or
        // raises for an unknown name). Puppet fails only when the key is looked up: `got
        // Runtime[ruby, 'Encoding']` (recorded with the oracle).
        "!ruby/encoding" => Resolved {
            value: Value::String(s.clone()),
            resolution: None,
            error: Some(Failure {
                kind: LoadIssueKind::Unmodelled,
                message: "Psych loads !ruby/encoding as a Ruby Encoding object, which Puppet \
                          rejects when the key is looked up (`got Runtime[ruby, 'Encoding']`); \
                          hieralint keeps the text"
                    .into(),
            }),
        },
        // resolve_class(o.value): nil for an empty name, else the class is refused.
        "!ruby/class" | "!ruby/module" => {
            if s.is_empty() {
                Resolved::ok(Value::Undef, None)
            } else {
                forbidden(s)
            }
        }
        // Float(@ss.tokenize(o.value))
        "tag:yaml.org,2002:float" | "!float" => {
            let inner = tokenize(s);
            if inner
                .error
                .as_ref()
                .is_some_and(|f| f.kind != LoadIssueKind::Unmodelled)
            {
                return inner;
            }
            let float = |f: f64| Resolved::ok(Value::Float(f), Some(Resolution::Float));
            let type_error = |what: &str| {
                Resolved::fail(
                    s,
                    Resolution::Float,
                    LoadIssueKind::RubyError,
                    format!("can't convert {what} into Float"),
                )
            };
            match &inner.value {
                Value::Integer(i) => float(*i as f64),
                Value::BigInt(i) => {
                    float(num_traits::ToPrimitive::to_f64(i.as_ref()).unwrap_or(f64::NAN))
                }
                Value::Float(f) => float(*f),
                Value::String(text) => match ruby_float(text) {
                    Some(f) => float(f),
                    None => Resolved::fail(
                        s,
                        Resolution::Float,
                        LoadIssueKind::RubyError,
                        format!("invalid value for Float(): {}", ruby_str_inspect(text)),
                    ),
                },
                Value::Undef => type_error("nil"),
                Value::Bool(true) => type_error("true"),
                Value::Bool(false) => type_error("false"),
                Value::Symbol(_) => type_error("Symbol"),
                Value::Array(_) | Value::Hash(_) | Value::Sensitive(_) => type_error("Object"),
            }
        }
        "!ruby/regexp" => forbidden("Regexp"),
        "!ruby/range" => forbidden("Range"),
        // /^!ruby\/sym(bol)?:?(.*)?$/: class_loader.symbolize o.value
        t if t.starts_with("!ruby/sym") => {
            Resolved::ok(Value::Symbol(s.clone()), Some(Resolution::Symbol))
        }
        _ => tokenize(s),
    }
}

/// `/^!(?:str|ruby\/string)(?::(.*))?$/`: `Some(class)` when the tag matches (`class` is the part
/// after the colon, if any).
fn str_tag_class(t: &str) -> Option<Option<&str>> {
    let rest = t
        .strip_prefix("!ruby/string")
        .or_else(|| t.strip_prefix("!str"))?;
    if rest.is_empty() {
        Some(None)
    } else {
        rest.strip_prefix(':').map(Some)
    }
}

/// The part after `prefix` and one optional `:` (for Psych's `/^prefix:?(.*)?$/` tags).
fn after_prefix<'a>(t: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = t.strip_prefix(prefix)?;
    Some(rest.strip_prefix(':').unwrap_or(rest))
}

/// Ruby 3.1's NoMethodError message when Psych calls `allocate` on the nil an empty class name
/// resolves to.
const NIL_ALLOCATE: &str = "undefined method `allocate' for nil:NilClass";

/// `!!omap` element that is a scalar or alias: `a.children` is nil.
pub(crate) const OMAP_NOT_COLLECTION: &str = "undefined method `first' for nil:NilClass";

/// `!!omap` element that is an empty collection: `accept(nil)`; Ruby prints the visitor's
/// inspect after `for`, which we abbreviate.
pub(crate) const OMAP_EMPTY: &str =
    "undefined method `visit_NilClass' for #<Psych::Visitors::ToRuby>";

/// What a tagged sequence becomes (`ToRuby#visit_Psych_Nodes_Sequence`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SeqTag {
    Array,
    /// `!!omap`: a `Psych::Omap` (a Hash) built from single-pair mappings.
    Omap,
    /// Psych raises: kind and message.
    Fail(LoadIssueKind, String),
}

pub(crate) fn seq_tag(tag: &str) -> SeqTag {
    match tag {
        "!omap" | "tag:yaml.org,2002:omap" => SeqTag::Omap,
        _ => {
            let class = tag
                .strip_prefix("!seq:")
                .or_else(|| tag.strip_prefix("!ruby/array:"));
            match class {
                Some("") => SeqTag::Fail(LoadIssueKind::RubyError, NIL_ALLOCATE.into()),
                Some(c) => SeqTag::Fail(LoadIssueKind::ForbiddenTag, disallowed(c)),
                None => SeqTag::Array,
            }
        }
    }
}

/// What a tagged mapping becomes (`ToRuby#visit_Psych_Nodes_Mapping`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MapTag {
    /// A Hash: `!!map`, unknown tags like `!foo`, `!ruby/object:Hash`.
    Hash,
    /// `!ruby/hash-with-ivars`: a Hash of the pairs under its `elements` key (`ivars` become
    /// instance variables, other keys are ignored).
    Elements,
    /// `!!str`/`!str` on a mapping: Psych returns the value of its `str` key (nil without one);
    /// other keys become instance variables of that value.
    StrKey,
    /// Psych raises: kind and message.
    Fail(LoadIssueKind, String),
}

pub(crate) fn map_tag(tag: &str) -> MapTag {
    if tag == "!ruby/hash-with-ivars" || tag == "!ruby/hash-with-ivars:" {
        return MapTag::Elements;
    }
    match map_tag_failure(tag) {
        Some((LoadIssueKind::Unmodelled, _)) => MapTag::StrKey,
        Some((kind, message)) => MapTag::Fail(kind, message),
        None => MapTag::Hash,
    }
}

fn map_tag_failure(tag: &str) -> Option<(LoadIssueKind, String)> {
    let forbidden = |c: &str| Some((LoadIssueKind::ForbiddenTag, disallowed(c)));
    let nil_allocate = || Some((LoadIssueKind::RubyError, NIL_ALLOCATE.to_string()));
    if let Some(c) = after_prefix(tag, "!ruby/struct") {
        return forbidden(if c.is_empty() { "Struct" } else { c });
    }
    if let Some(name) = after_prefix(tag, "!ruby/object") {
        return match name {
            "Hash" => None,
            "" => forbidden("Object"),
            other => forbidden(other),
        };
    }
    if let Some(class) = str_tag_class(tag) {
        return match class {
            Some(c) if !c.is_empty() => forbidden(c),
            _ => Some((
                LoadIssueKind::Unmodelled,
                "Psych builds a String from a mapping tagged !!str (its `str` key), which \
                 hieralint does not model"
                    .into(),
            )),
        };
    }
    if tag == "tag:yaml.org,2002:str" {
        return map_tag_failure("!str");
    }
    if let Some(c) = tag.strip_prefix("!ruby/array:") {
        return if c.is_empty() {
            nil_allocate()
        } else {
            forbidden(c)
        };
    }
    if tag == "!ruby/range" {
        return forbidden("Range");
    }
    if let Some(c) = after_prefix(tag, "!ruby/exception") {
        return forbidden(if c.is_empty() { "Exception" } else { c });
    }
    if matches!(tag, "!set" | "tag:yaml.org,2002:set") {
        return forbidden("Psych::Set");
    }
    if let Some(rest) = tag.strip_prefix("!ruby/hash-with-ivars") {
        return match rest.strip_prefix(':') {
            Some(c) if !c.is_empty() => forbidden(c),
            _ => None,
        };
    }
    if let Some(c) = tag
        .strip_prefix("!map:")
        .or_else(|| tag.strip_prefix("!ruby/hash:"))
    {
        return if c.is_empty() {
            nil_allocate()
        } else {
            forbidden(c)
        };
    }
    if matches!(tag, "!omap" | "tag:yaml.org,2002:omap") {
        return forbidden("Psych::Omap");
    }
    if let Some(c) = tag.strip_prefix("!ruby/marshalable:") {
        return if c.is_empty() {
            nil_allocate()
        } else {
            forbidden(c)
        };
    }
    None
}

#[cfg(test)]
mod tests {

    /// The i64 fast path of `ruby_integer` gives what the BigInt parse gives.
    #[test]
    fn integer_fast_path_matches_bigint() {
        let bodies = [
            "0",
            "7",
            "-7",
            "+7",
            "10",
            "0755",
            "-0755",
            "0x1f",
            "-0x7fffffffffffffff",
            "0x8000000000000000",
            "-0x8000000000000000",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "0b101",
            "0b",
            "0x",
            "08",
            "1e3",
            "123456789012345678901234567890",
            "-0",
            "00",
            "0o7",
            "0777777777777777777777",
            "01777777777777777777777",
            "-01000000000000000000000",
        ];
        for b in bodies {
            let (neg, body) = sign(b.as_bytes());
            let (radix, digits) = radix_digits(body);
            let slow = if digits.is_empty() || !digits.iter().all(|&c| (c as char).is_digit(radix))
            {
                None
            } else {
                BigInt::parse_bytes(digits, radix).map(|v| if neg { -v } else { v })
            };
            let fast = match ruby_integer(b) {
                IntParse::Ok(i) => Some(BigInt::from(i)),
                IntParse::Big(v) => {
                    assert!(i64::try_from(&v).is_err(), "{b}: a Big that fits");
                    Some(v)
                }
                IntParse::Invalid => None,
            };
            assert_eq!(fast, slow, "{b}");
        }
    }
    use super::*;

    fn r(s: &str) -> Resolved {
        tokenize(&Arc::from(s))
    }

    #[test]
    fn words_and_numbers() {
        assert_eq!(r("on").value, Value::Bool(true));
        assert_eq!(r("y").value, Value::string("y"));
        assert_eq!(r("0755").value, Value::Integer(493));
        assert_eq!(r("1:20").value, Value::Integer(4800));
        assert_eq!(r("1e3").value, Value::string("1e3"));
        assert_eq!(r("12.").value, Value::Float(12.0));
        let msg = |s: &str| r(s).error.map(|f| f.message);
        assert_eq!(
            msg(".e+5").as_deref(),
            Some("invalid value for Float(): \"e+5\"")
        );
        assert_eq!(
            msg("2001-12-14").as_deref(),
            Some("Tried to load unspecified class: Date")
        );
        assert_eq!(r(":\"a b\"").value, Value::Symbol(Arc::from("a b")));
    }

    #[test]
    fn time_zone_backtracking() {
        for ok in ["+5", "+05", "+530", "+0530", "+05:30", "+5:30", "+5:"] {
            assert!(is_tz_digits(&ok.as_bytes()[1..]), "{ok}");
        }
        for bad in ["+", "+05:3", "+12345", "+a"] {
            assert!(!is_tz_digits(&bad.as_bytes()[1..]), "{bad}");
        }
    }

    #[test]
    fn base64_is_lenient() {
        assert_eq!(unpack_base64("aGVs\nbG8="), b"hello");
        assert_eq!(unpack_base64("aGVsbG8"), b"hello");
    }

    /// Every byte value and every length of a trailing group, against the `base64` crate,
    /// with line breaks and stray characters the lenient reader skips.
    #[test]
    fn base64_decodes_what_the_base64_crate_encodes() {
        use base64::Engine as _;
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in 0..bytes.len() {
            let data = &bytes[..len];
            let encoded = base64::engine::general_purpose::STANDARD.encode(data);
            assert_eq!(unpack_base64(&encoded), data, "{len}");
            let lenient: String = encoded
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let extra = match i % 17 {
                        0 => Some('\n'),
                        5 => Some(' '),
                        11 => Some('*'),
                        _ => None,
                    };
                    extra.into_iter().chain(std::iter::once(c))
                })
                .collect();
            assert_eq!(unpack_base64(&lenient), data, "{len} {lenient:?}");
        }
    }
}

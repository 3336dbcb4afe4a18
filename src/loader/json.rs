//! The span-exact JSON loader, with the semantics of Ruby's `JSON.parse` (json 2.6.1, Ruby 3.1) as
//! Puppet's `json_data` calls it (reference §6.2; Puppet has no MultiJson on the reference system).
//!
//! serde_json has no spans, so this is a hand-written parser producing [`Node`]s. Every behaviour
//! below was recorded from Ruby; `fixtures/json/cases.json` holds the recorded answers
//! (re-record with `ruby fixtures/json/record.rb`):
//!
//! * Comments are accepted wherever whitespace is: `/* ... */` and `// ...` — but a `//` comment
//!   must end with a line feed: at the very end of the file without one it is a parse error.
//!   `#` comments are not accepted. Whitespace is only space, tab, CR and LF.
//! * Duplicate keys: the last value wins, in the first key's position (Ruby `Hash#[]=`). Recorded
//!   as [`LoadIssueKind::DuplicateKey`] at the second key.
//! * `NaN`, `Infinity`, `-Infinity` are errors; numbers too big for a Float become `Infinity`;
//!   integers too big for 64 bits are Ruby Bignums (see [`LoadIssueKind::Unmodelled`]).
//! * Any character may be escaped (`\q` is `q`); `\u` needs four hex digits. A `\uD8xx` high
//!   surrogate combines with whatever `\u` escape follows it (even a non-surrogate); when another
//!   character follows, Ruby writes `?` and drops that character; with fewer than 6 bytes left
//!   before the closing quote it raises `incomplete surrogate pair at '...'`. A lone low surrogate
//!   gives an invalid UTF-8 string in Ruby.
//! * Trailing commas, leading zeros (`01`), `1.`, `.5`, `+1`, single quotes, unquoted keys, raw
//!   control characters in strings are errors. Top-level scalars and arrays are accepted (the
//!   engine then reports that the file is not a hash).
//! * A UTF-8 byte order mark is NOT skipped: Puppet reads the file as UTF-8 and Ruby's parser fails
//!   on the BOM (recorded with the oracle), so such a file never loads.
//! * Nesting deeper than 100 arrays/objects raises `nesting of 101 is too deep` (json's default
//!   `max_nesting`), which also bounds this parser's recursion.
//!
//! Error messages reproduce Ruby's, including the quirks of its Ragel parser: the message is
//! `"<line of parser.c>: unexpected token at '<rest of the input>'"`, and the position Ruby quotes
//! is not always the real problem. A failure inside an object is silent until the nearest
//! enclosing array (which quotes from the start of the failing element, prefix `451`) or the top
//! level (which quotes from the start of the document's value, prefix `859`); an array quotes from
//! the character it could not accept. The issue's span, in contrast, is always the real problem
//! (the trailing comma, the bad token, the unterminated string's opening quote).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::{Comment, Document, Format, LoadIssue, LoadIssueKind};
use crate::span::{SourceFile, Span};
use crate::value::{Entry, Mapping, Node, NodeKind, Scalar, ScalarStyle, Value};

/// json's default `max_nesting` (JSON.parse with Puppet's empty options).
const MAX_NESTING: usize = 100;

/// Ruby json 2.6.1 prefixes its parse errors with the line of `parser.c` that raised them; these
/// are the values it prints (recorded in fixtures/json/cases.json).
const LINE_TOP: u32 = 859;
const LINE_ARRAY: u32 = 451;
const LINE_NAN: u32 = 225;
const LINE_INFINITY: u32 = 232;
const LINE_MINUS_INFINITY: u32 = 249;
const LINE_SURROGATE: u32 = 521;
const LINE_INCOMPLETE_UNICODE: u32 = 508;

/// Parses one JSON file.
pub fn load(file: &SourceFile) -> Document {
    let text = file.text();
    let mut p = Parser {
        text,
        b: text.as_bytes(),
        pos: 0,
        comments: Vec::new(),
        issues: Vec::new(),
    };
    let root = match p.parse_document() {
        Ok(node) => Some(node),
        Err(Fail::Raise(issue)) => {
            p.issues.push(issue);
            None
        }
        // parse_document turns every silent failure into a raise.
        Err(Fail::Silent(span)) => {
            let message = p.ruby_message(LINE_TOP, Some(0));
            p.issues.push(syntax(span, message));
            None
        }
    };
    let mut issues = p.issues;
    if let Some(at) = file.invalid_utf8_at {
        issues.push(LoadIssue {
            kind: LoadIssueKind::Encoding,
            // The invalid bytes were replaced by U+FFFD (three bytes) in the text: cover the
            // whole replacement so the span stays on character boundaries (found by fuzzing,
            // tests/hostile.rs `fuzz_json_invalid_utf8_span`).
            span: Span::new(at, (at + '\u{FFFD}'.len_utf8()).min(text.len())),
            message:
                "invalid UTF-8: Puppet reads the file as UTF-8 and keeps the bytes as they are; \
                      hieralint replaced them with U+FFFD"
                    .into(),
        });
    }
    if file.had_bom {
        // Puppet reads the file with `encoding: 'utf-8'`, which keeps the BOM, and Ruby's parser
        // fails on it at offset 0 before anything else (recorded with the oracle).
        let mut message = format!("{LINE_TOP}: unexpected token at '\u{FEFF}");
        message.push_str(until_nul(text));
        message.push('\'');
        issues.insert(0, syntax(Span::empty(0), message));
    }
    Document {
        format: Format::Json,
        root,
        comments: p.comments,
        issues,
        scalar_flags: Default::default(),
        lookup_options_at: Default::default(),
        root_key_hashes: Default::default(),
        interp_sites: Default::default(),
    }
}

fn syntax(span: Span, message: String) -> LoadIssue {
    LoadIssue {
        kind: LoadIssueKind::Syntax,
        span,
        message,
    }
}

/// Ruby formats the rest of the input with `%s`, so it stops at a NUL byte.
fn until_nul(s: &str) -> &str {
    match s.find('\0') {
        Some(i) => &s[..i],
        None => s,
    }
}

/// How a parse step failed, mirroring Ruby's parser.
enum Fail {
    /// Ruby raised here: the issue is final.
    Raise(LoadIssue),
    /// Ruby's sub-parser returned NULL without raising (objects, strings, literals, numbers): the
    /// enclosing array or the top level raises. The span is the real problem.
    Silent(Span),
}

/// Where Ruby's `ignore*` (whitespace and comments) could not go on: Ruby's position and the span
/// of the broken comment.
struct IgnoreFail {
    ruby_at: usize,
    span: Span,
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    comments: Vec<Comment>,
    issues: Vec<LoadIssue>,
}

impl<'a> Parser<'a> {
    /// Ruby's message `"<line>: unexpected token at '<input from at>'"`; `None` stands for the
    /// byte before the start of the input (Ruby's `Infinity` quirk), which Ruby prints as empty.
    fn ruby_message(&self, line: u32, at: Option<usize>) -> String {
        let rest = at.and_then(|a| self.text.get(a..)).unwrap_or("");
        format!("{line}: unexpected token at '{}'", until_nul(rest))
    }

    fn raise(&self, line: u32, at: usize, span: Span) -> Fail {
        Fail::Raise(syntax(span, self.ruby_message(line, Some(at))))
    }

    /// The span of the character at `at` (empty at the end of the input).
    fn char_span(&self, at: usize) -> Span {
        match self.text.get(at..).and_then(|s| s.chars().next()) {
            Some(c) => Span::new(at, at + c.len_utf8()),
            None => Span::empty(at.min(self.b.len())),
        }
    }

    /// The span of a bad bare token (`tru`, `01`, `-x`): the run of word characters from `at`.
    fn token_span(&self, at: usize) -> Span {
        let mut end = at;
        while let Some(&c) = self.b.get(end) {
            if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.') {
                end += 1;
            } else {
                break;
            }
        }
        if end == at {
            self.char_span(at)
        } else {
            Span::new(at, end)
        }
    }

    fn parse_document(&mut self) -> Result<Node, Fail> {
        if let Err(f) = self.skip_ignore() {
            return Err(self.raise(LINE_TOP, f.ruby_at, f.span));
        }
        let start = self.pos;
        let node = match self.parse_value(0) {
            Ok(n) => n,
            Err(Fail::Silent(span)) => return Err(self.raise(LINE_TOP, start, span)),
            Err(raise) => return Err(raise),
        };
        if let Err(f) = self.skip_ignore() {
            return Err(self.raise(LINE_TOP, f.ruby_at, f.span));
        }
        if self.pos < self.b.len() {
            return Err(self.raise(LINE_TOP, self.pos, self.char_span(self.pos)));
        }
        Ok(node)
    }

    /// Skips whitespace and comments (Ruby's `ignore*`), recording the comments.
    fn skip_ignore(&mut self) -> Result<(), IgnoreFail> {
        let len = self.b.len();
        loop {
            match self.b.get(self.pos) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b'/') => {
                    let start = self.pos;
                    match self.b.get(start + 1) {
                        Some(b'*') => match find_close(&self.b[start + 2..]) {
                            Some(i) => {
                                let end = start + 2 + i + 2;
                                self.push_comment(start, end);
                                self.pos = end;
                            }
                            None => {
                                return Err(IgnoreFail {
                                    ruby_at: len,
                                    span: Span::new(start, start + 2),
                                })
                            }
                        },
                        Some(b'/') => match self.b[start + 2..].iter().position(|&c| c == b'\n') {
                            Some(i) => {
                                let nl = start + 2 + i;
                                let end = if nl > start + 2 && self.b[nl - 1] == b'\r' {
                                    nl - 1
                                } else {
                                    nl
                                };
                                self.push_comment(start, end);
                                self.pos = nl + 1;
                            }
                            // A `//` comment needs its line feed (recorded: `[1] // c` fails).
                            None => {
                                return Err(IgnoreFail {
                                    ruby_at: len,
                                    span: Span::new(start, len),
                                })
                            }
                        },
                        Some(_) => {
                            return Err(IgnoreFail {
                                ruby_at: start + 1,
                                span: self.char_span(start),
                            })
                        }
                        None => {
                            return Err(IgnoreFail {
                                ruby_at: len,
                                span: self.char_span(start),
                            })
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn push_comment(&mut self, start: usize, end: usize) {
        let line_start = self.b[..start]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let own_line = self.b[line_start..start]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r'));
        self.comments.push(Comment {
            span: Span::new(start, end),
            own_line,
        });
    }

    /// One value; `depth` is the nesting of the container holding it (0 at the top level).
    fn parse_value(&mut self, depth: usize) -> Result<Node, Fail> {
        let start = self.pos;
        match self.b.get(start) {
            Some(b'"') => {
                let (span, s) = self.parse_string()?;
                Ok(string_node(span, s))
            }
            Some(b'{') => self.parse_object(depth + 1),
            Some(b'[') => self.parse_array(depth + 1),
            Some(b'-' | b'0'..=b'9') => self.parse_number(),
            Some(b'n') => self.literal("null", Value::Undef),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'N') if self.b[start..].starts_with(b"NaN") => {
                Err(self.raise(LINE_NAN, start, Span::new(start, start + 3)))
            }
            Some(b'I') if self.b[start..].starts_with(b"Infinity") => {
                // Ruby quotes from the byte before `Infinity` (recorded: `[Infinity]` is quoted
                // from the `[`; at offset 0 it quotes nothing).
                let span = Span::new(start, start + 8);
                let message = self.ruby_message(LINE_INFINITY, start.checked_sub(1));
                Err(Fail::Raise(syntax(span, message)))
            }
            _ => Err(Fail::Silent(self.token_span(start))),
        }
    }

    fn literal(&mut self, word: &'static str, value: Value) -> Result<Node, Fail> {
        let start = self.pos;
        if self.b[start..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            let span = Span::new(start, self.pos);
            Ok(Node::scalar(span, value, ScalarStyle::Json, word))
        } else {
            Err(Fail::Silent(self.token_span(start)))
        }
    }

    fn parse_number(&mut self) -> Result<Node, Fail> {
        let b = self.b;
        let s = self.pos;
        if b[s..].starts_with(b"-Infinity") {
            return Err(self.raise(LINE_MINUS_INFINITY, s, Span::new(s, s + 9)));
        }
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = s;
        if b[i] == b'-' {
            i += 1;
        }
        let int_end = match b.get(i) {
            Some(b'0') => i + 1,
            Some(b'1'..=b'9') => digits(i + 1),
            _ => return Err(Fail::Silent(self.token_span(s))),
        };
        // Ruby tries its float machine first: int ( '.' digits+ exp? | exp ), and the float must
        // not be followed by any of [0-9Ee.-] (so `1.5-` is no float, and no integer either
        // once the array sees the `.`: recorded `[1.5-]` fails at `.5-]`).
        let exponent = |i: usize| -> Option<usize> {
            let mut j = i + 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            let end = digits(j);
            (end > j).then_some(end)
        };
        let float_end = match b.get(int_end) {
            Some(b'.') => {
                let frac_end = digits(int_end + 1);
                if frac_end == int_end + 1 {
                    None
                } else if matches!(b.get(frac_end), Some(b'e' | b'E')) {
                    exponent(frac_end)
                } else {
                    Some(frac_end)
                }
            }
            Some(b'e' | b'E') => exponent(int_end),
            _ => None,
        }
        .filter(|&end| !matches!(b.get(end), Some(b'0'..=b'9' | b'e' | b'E' | b'.' | b'-')));
        if let Some(end) = float_end {
            let src = &self.text[s..end];
            // Rust's parser rounds correctly like Ruby's strtod, overflows to infinity and
            // underflows to zero (recorded: `1e400` is Infinity, `0.1e-400` is 0.0).
            let f: f64 = src.parse().unwrap_or(f64::NAN);
            self.pos = end;
            return Ok(Node::scalar(
                Span::new(s, end),
                Value::Float(f),
                ScalarStyle::Json,
                src,
            ));
        }
        // The integer machine: `0` followed by a digit is no integer (`01`, `00`).
        if b.get(int_end).is_some_and(u8::is_ascii_digit) {
            return Err(Fail::Silent(self.token_span(s)));
        }
        let src = &self.text[s..int_end];
        let span = Span::new(s, int_end);
        self.pos = int_end;
        // Beyond 64 bits Ruby's JSON gives an exact Bignum, and so do we.
        let value = Value::parse_integer(src).unwrap_or(Value::Float(f64::NAN));
        Ok(Node::scalar(span, value, ScalarStyle::Json, src))
    }

    /// A string at `self.pos` (on its opening quote). Returns the span including the quotes and
    /// the unescaped content.
    fn parse_string(&mut self) -> Result<(Span, Arc<str>), Fail> {
        let b = self.b;
        let start = self.pos;
        let content = start + 1;
        // Pass 1, Ruby's string machine: find the closing quote, reject raw control characters
        // and `\` followed by a control character or by `u` without four hex digits.
        let mut i = content;
        let mut escaped = false;
        let end = loop {
            while let Some(&c) = b.get(i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                i += 1;
            }
            match b.get(i) {
                None => return Err(Fail::Silent(Span::new(start, start + 1))),
                Some(b'"') => break i,
                Some(b'\\') => {
                    escaped = true;
                    match b.get(i + 1) {
                        None => return Err(Fail::Silent(Span::new(start, start + 1))),
                        Some(&c) if c < 0x20 => return Err(Fail::Silent(Span::new(i, i + 2))),
                        Some(b'u') => {
                            let hex = b.get(i + 2..i + 6);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                // Up to the sixth byte, extended to the end of the character
                                // it falls in (found by fuzzing: `"\ud83é`, tests/hostile.rs
                                // `fuzz_json_bad_unicode_escape_span`).
                                let mut end = (i + 6).min(b.len());
                                while !self.text.is_char_boundary(end) {
                                    end += 1;
                                }
                                return Err(Fail::Silent(Span::new(i, end)));
                            }
                            i += 6;
                        }
                        Some(_) => i += 2,
                    }
                }
                Some(_) => return Err(Fail::Silent(self.char_span(i))),
            }
        };
        self.pos = end + 1;
        let span = Span::new(start, end + 1);
        if !escaped {
            return Ok((span, Arc::from(&self.text[content..end])));
        }
        let s = self.unescape(content, end)?;
        Ok((span, Arc::from(s)))
    }

    /// Pass 2, Ruby's `json_string_unescape` over validated content `[from, end)`.
    fn unescape(&mut self, from: usize, end: usize) -> Result<String, Fail> {
        let b = self.b;
        let text = self.text;
        let mut out = String::with_capacity(end - from);
        // `run` is Ruby's `p`: the start of the pending literal text, which the surrogate error
        // quotes from (recorded: `"ab\nc\ud83dxx"` is quoted from `c`).
        let mut run = from;
        let mut i = from;
        while i < end {
            if b[i] != b'\\' {
                i += 1;
                continue;
            }
            out.push_str(&text[run..i]);
            let esc = i;
            let simple = match b[i + 1] {
                b'n' => Some('\n'),
                b'r' => Some('\r'),
                b't' => Some('\t'),
                b'b' => Some('\u{8}'),
                b'f' => Some('\u{c}'),
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                b'/' => Some('/'),
                b'u' => None,
                // Any other escaped character stands for itself: Ruby resumes its literal run
                // at the character after the backslash.
                _ => {
                    run = i + 1;
                    i += 2;
                    continue;
                }
            };
            if let Some(c) = simple {
                out.push(c);
                i += 2;
                run = i;
                continue;
            }
            if i + 5 > end {
                // Pass 1 saw four hex digits after every `\u`; after a shift (below) the digits may
                // run past the string's end, which is Ruby's `pe > stringEnd - 4` check
                // (recorded with json 2.6.1: `["\ud83d\\\\\\u12"]` raises `508: incomplete
                // unicode character escape sequence at '\u12"]'`; fuzzing, tests/hostile.rs
                // `fuzz_json_escape_shifted_past_the_string`).
                let message = format!(
                    "{LINE_INCOMPLETE_UNICODE}: incomplete unicode character escape sequence at \
                     '{}'",
                    until_nul(&text[run..])
                );
                return Err(Fail::Raise(syntax(Span::new(esc, end), message)));
            }
            // After a lone high surrogate Ruby skips one byte, which can pair the next backslash
            // differently from pass 1 (recorded: `"\ud83d\\uzzzz"` is `"?\u{FFFD}"`): this `\u`
            // was not validated then, so its digits may be anything. Ruby reads four bytes and
            // makes U+FFFD of invalid digits; our text has U+FFFD (three bytes) where the file had
            // an invalid byte, so the cursor is moved to the next character boundary (found by
            // fuzzing, tests/hostile.rs `fuzz_json_desynchronised_unicode_escape`).
            let ch = unescape_unicode(b.get(i + 2..(i + 6).min(end)).unwrap_or_default());
            // `pe` is Ruby's cursor: the next character to look at after this escape.
            let mut pe = ceil_boundary(text, (i + 6).min(end));
            if ch & 0xFC00 == 0xD800 {
                if pe + 6 > end {
                    let message = format!(
                        "{LINE_SURROGATE}: incomplete surrogate pair at '{}'",
                        until_nul(&text[run..])
                    );
                    return Err(Fail::Raise(syntax(Span::new(esc, esc + 6), message)));
                }
                if b[pe] == b'\\' && b[pe + 1] == b'u' {
                    let low = unescape_unicode(&b[pe + 2..pe + 6]);
                    let combined =
                        ((ch & 0x3F) << 10) | ((((ch >> 6) & 0xF) + 1) << 16) | (low & 0x3FF);
                    // Always in U+10000..=U+10FFFF, so always a char.
                    out.push(char::from_u32(combined).unwrap_or('\u{FFFD}'));
                    pe = ceil_boundary(text, pe + 6);
                } else {
                    // Ruby writes `?` and skips one byte after the escape.
                    out.push('?');
                    let skipped = text[pe..].chars().next().map_or(1, char::len_utf8);
                    if skipped > 1 {
                        // The rest of a multi-byte character is left as invalid bytes.
                        self.encoding_issue(
                            Span::new(pe, pe + skipped),
                            "Ruby skips the first byte of this character after a lone \\u \
                             high surrogate, leaving invalid UTF-8",
                        );
                        for _ in 1..skipped {
                            out.push('\u{FFFD}');
                        }
                    }
                    pe += skipped;
                }
            } else if ch & 0xFC00 == 0xDC00 {
                // Ruby encodes the lone low surrogate as three bytes (ED Bx xx): an invalid
                // string, which the oracle prints scrubbed as three U+FFFD.
                self.encoding_issue(
                    Span::new(esc, esc + 6),
                    "a lone \\u low surrogate: Ruby produces an invalid UTF-8 string",
                );
                out.push_str("\u{FFFD}\u{FFFD}\u{FFFD}");
            } else {
                out.push(char::from_u32(ch).unwrap_or('\u{FFFD}'));
            }
            i = pe;
            run = pe;
        }
        // After such a shift the last escape can take the closing quote itself (`\"`): Ruby
        // appends the `"` and leaves `p` past the end, with nothing more to copy (recorded:
        // `["\ud83d\\\\\\"]` is `["?\\\\\""]`; found by fuzzing).
        if run < end {
            out.push_str(&text[run..end]);
        }
        Ok(out)
    }

    fn encoding_issue(&mut self, span: Span, message: &str) {
        self.issues.push(LoadIssue {
            kind: LoadIssueKind::Encoding,
            span,
            message: message.into(),
        });
    }

    fn nesting(&self, depth: usize) -> Fail {
        Fail::Raise(LoadIssue {
            kind: LoadIssueKind::Limit,
            span: Span::new(self.pos, self.pos + 1),
            message: format!("nesting of {depth} is too deep"),
        })
    }

    fn parse_object(&mut self, depth: usize) -> Result<Node, Fail> {
        if depth > MAX_NESTING {
            return Err(self.nesting(depth));
        }
        let start = self.pos;
        self.pos += 1;
        let mut entries: Vec<Entry> = Vec::new();
        // Key index for duplicate detection, built only for large objects.
        let mut index: KeyIndex = HashMap::default();
        let silent = |f: IgnoreFail| Fail::Silent(f.span);
        self.skip_ignore().map_err(silent)?;
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(map_node(Span::new(start, self.pos), entries));
        }
        let mut comma: Option<usize> = None;
        loop {
            if self.b.get(self.pos) != Some(&b'"') {
                let span = match (comma, self.b.get(self.pos)) {
                    // A trailing comma: point at the comma.
                    (Some(c), Some(b'}')) => Span::new(c, c + 1),
                    _ => self.char_span(self.pos),
                };
                return Err(Fail::Silent(span));
            }
            let (key_span, key) = self.parse_string()?;
            self.skip_ignore().map_err(silent)?;
            if self.b.get(self.pos) != Some(&b':') {
                return Err(Fail::Silent(self.char_span(self.pos)));
            }
            self.pos += 1;
            self.skip_ignore().map_err(silent)?;
            let value = self.parse_value(depth)?;
            self.check_duplicate(&entries, &mut index, &key, key_span);
            entries.push(Entry {
                key: string_node(key_span, key),
                value,
                merged: false,
            });
            self.skip_ignore().map_err(silent)?;
            match self.b.get(self.pos) {
                Some(b',') => {
                    comma = Some(self.pos);
                    self.pos += 1;
                    self.skip_ignore().map_err(silent)?;
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(map_node(Span::new(start, self.pos), entries));
                }
                _ => return Err(Fail::Silent(self.char_span(self.pos))),
            }
        }
    }

    fn check_duplicate(
        &mut self,
        entries: &[Entry],
        index: &mut KeyIndex,
        key: &Arc<str>,
        key_span: Span,
    ) {
        const LINEAR: usize = 16;
        let first = if entries.len() < LINEAR {
            entries
                .iter()
                .find(|e| e.key.as_str() == Some(key))
                .map(|e| e.key.span)
        } else {
            if index.is_empty() {
                for e in entries {
                    if let Some(k) = e.key.as_scalar() {
                        index.entry(k.text.clone()).or_insert(e.key.span);
                    }
                }
            }
            let first = index.get(key).copied();
            if first.is_none() {
                index.insert(key.clone(), key_span);
            }
            first
        };
        if let Some(first) = first {
            self.issues.push(LoadIssue {
                kind: LoadIssueKind::DuplicateKey { first },
                span: key_span,
                message: format!(
                    "duplicate key {}: Ruby's JSON parser keeps the last value",
                    Value::String(key.clone()).ruby_inspect()
                ),
            });
        }
    }

    fn parse_array(&mut self, depth: usize) -> Result<Node, Fail> {
        if depth > MAX_NESTING {
            return Err(self.nesting(depth));
        }
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        macro_rules! ignore {
            () => {
                if let Err(f) = self.skip_ignore() {
                    return Err(self.raise(LINE_ARRAY, f.ruby_at, f.span));
                }
            };
        }
        ignore!();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(seq_node(Span::new(start, self.pos), items));
        }
        loop {
            let value_start = self.pos;
            match self.parse_value(depth) {
                Ok(n) => items.push(n),
                Err(Fail::Silent(span)) => return Err(self.raise(LINE_ARRAY, value_start, span)),
                Err(raise) => return Err(raise),
            }
            ignore!();
            match self.b.get(self.pos) {
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    ignore!();
                    if self.b.get(self.pos) == Some(&b']') {
                        // Trailing comma: Ruby quotes from the `]`, the span is the comma.
                        return Err(self.raise(LINE_ARRAY, self.pos, Span::new(comma, comma + 1)));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(seq_node(Span::new(start, self.pos), items));
                }
                _ => return Err(self.raise(LINE_ARRAY, self.pos, self.char_span(self.pos))),
            }
        }
    }
}

/// Keys of a large object, for duplicate detection. FNV-1a: keys are short and come from a file
/// we only read, and SipHash was a tenth of the parse time on a 200,000-key object.
type KeyIndex = HashMap<Arc<str>, Span, BuildHasherDefault<Fnv>>;

#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// `*/` in a block comment's body.
fn find_close(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = b[from..].iter().position(|&c| c == b'*') {
        let at = from + i;
        if b.get(at + 1) == Some(&b'/') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Ruby's `unescape_unicode`: four hex digits, or U+FFFD when any of them is not one.
fn unescape_unicode(h: &[u8]) -> u32 {
    if h.len() == 4 && h.iter().all(u8::is_ascii_hexdigit) {
        hex4(h)
    } else {
        0xFFFD
    }
}

/// The first character boundary of `text` at or after `at`.
fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at.min(text.len())
}

fn hex4(h: &[u8]) -> u32 {
    h.iter().fold(0, |acc, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => 0,
        };
        (acc << 4) | u32::from(d)
    })
}

fn string_node(span: Span, s: Arc<str>) -> Node {
    Node {
        span,
        kind: NodeKind::Scalar(Scalar {
            value: Value::String(s.clone()),
            style: ScalarStyle::Json,
            resolved: None,
            text: s,
        }),
        props: None,
        from_alias: false,
    }
}

fn map_node(span: Span, entries: Vec<Entry>) -> Node {
    Node {
        span,
        kind: NodeKind::Map(Mapping { entries }),
        props: None,
        from_alias: false,
    }
}

fn seq_node(span: Span, items: Vec<Node>) -> Node {
    Node {
        span,
        kind: NodeKind::Seq(items),
        props: None,
        from_alias: false,
    }
}

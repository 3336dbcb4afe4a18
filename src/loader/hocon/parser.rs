//! The HOCON document parser: a port of ruby-hocon 1.3.1's `ConfigDocumentParser`
//! (`lib/hocon/impl/config_document_parser.rb`) and of its `PathParser` for keys, producing a
//! syntax tree with spans. Error messages and the line they name follow Ruby's bookkeeping
//! exactly, including its quirks (the line is the one of the last token that carried a line).

use super::lexer::{Tok, TokValue, Token};
use crate::span::Span;

/// The deepest nesting of objects and arrays we parse (the message below says it). Ruby recurses
/// too and would end in a `SystemStackError` far deeper; this bound, with the loader's own
/// thread stack, keeps our recursion safe.
pub(super) const MAX_DEPTH: usize = 256;

/// A parse failure.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Fail {
    /// A `Hocon::ConfigError`: Puppet says `Unable to parse (<path>): <message>`.
    Config { message: String, span: Span },
    /// Another Ruby exception escaping ruby-hocon (Puppet reports it without the prefix).
    Crash { message: String, span: Span },
    /// One of our own limits (what was too deep, for the message).
    TooDeep { span: Span, what: &'static str },
    /// One of the configurable limits (docs/limits.md), with the whole message.
    Limit { span: Span, message: String },
}

/// One key path element with the span of its text.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct KeyPart {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sep {
    Colon,
    Equals,
    PlusEquals,
    /// `key { ... }`.
    None,
}

#[derive(Clone, Debug)]
pub(super) struct Field {
    pub path: Vec<KeyPart>,
    pub sep: Sep,
    pub value: Value,
    /// The key text as written (Ruby's `path.render`).
    pub key_span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IncludeKind {
    Heuristic,
    File,
    Url,
    Classpath,
}

#[derive(Clone, Debug)]
pub(super) struct Include {
    pub kind: IncludeKind,
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(super) enum ObjChild {
    Newline,
    Field(Box<Field>),
    Include(Include),
}

#[derive(Clone, Debug)]
pub(super) struct Object {
    pub children: Vec<ObjChild>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(super) enum ArrChild {
    Newline,
    Value(Value),
}

#[derive(Clone, Debug)]
pub(super) struct Array {
    pub children: Vec<ArrChild>,
    pub span: Span,
}

/// A value node (Ruby's `AbstractConfigNodeValue`).
#[derive(Clone, Debug)]
pub(super) enum Value {
    /// A value, unquoted-text or substitution token.
    Simple(Token),
    Object(Object),
    Array(Array),
    /// Two or more adjacent values (whitespace pieces are unquoted-text tokens).
    Concat(Vec<Value>),
}

impl Value {
    pub fn span(&self) -> Span {
        match self {
            Value::Simple(t) => t.span,
            Value::Object(o) => o.span,
            Value::Array(a) => a.span,
            Value::Concat(v) => match (v.first(), v.last()) {
                (Some(a), Some(b)) => a.span().cover(b.span()),
                _ => Span::default(),
            },
        }
    }
}

/// The document's top level children as ConfigParser walks them.
#[derive(Clone, Debug)]
pub(super) enum RootChild {
    Newline,
    Value(Value),
}

/// Ruby's ConfigNode children lists hold whitespace and comment nodes too; ConfigParser only
/// looks at newlines (for its line count), fields, includes and values, so those are all we keep.
enum Collected {
    Newline,
    Other,
}

pub(super) struct Parser<'t> {
    text: &'t str,
    tokens: &'t [Token],
    next: usize,
    buffer: Vec<&'t Token>,
    line: i64,
    equals_count: usize,
    depth: usize,
}

type R<T> = Result<T, Fail>;

/// Parses the token stream. Also returns how many tokens were taken from the stream, which says
/// whether Ruby's lazy tokenizer would have reached a token that crashes it.
pub(super) fn parse(text: &str, tokens: &[Token]) -> (R<Vec<RootChild>>, usize) {
    let mut p = Parser {
        text,
        tokens,
        next: 0,
        buffer: Vec::new(),
        line: 1,
        equals_count: 0,
        depth: 0,
    };
    let r = p.parse_root();
    (r, p.next)
}

impl<'t> Parser<'t> {
    fn pop_token(&mut self) -> &'t Token {
        if let Some(t) = self.buffer.pop() {
            return t;
        }
        match self.tokens.get(self.next) {
            Some(t) => {
                self.next += 1;
                t
            }
            // The stream ends with EOF; reading past it keeps giving EOF.
            None => self.tokens.last().unwrap_or(&EOF),
        }
    }

    fn put_back(&mut self, t: &'t Token) {
        self.buffer.push(t);
    }

    fn error(&self, message: String, span: Span) -> Fail {
        Fail::Config {
            message: format!("String: {}: {message}", self.line),
            span,
        }
    }

    /// `next_token_collecting_whitespace`: skips whitespace, newlines and comments, updating the
    /// line as Ruby does, and records newlines in `nodes`.
    fn next_collecting(&mut self, nodes: &mut Vec<Collected>) -> R<&'t Token> {
        loop {
            let t = self.pop_token();
            match &t.tok {
                Tok::Whitespace(_) => nodes.push(Collected::Other),
                Tok::Newline => {
                    nodes.push(Collected::Newline);
                    if let Some(l) = t.line {
                        self.line = l as i64 + 1;
                    }
                }
                _ if t.is_unquoted_whitespace() => nodes.push(Collected::Other),
                Tok::Comment(_) => nodes.push(Collected::Other),
                Tok::CrashingProblem(m) => {
                    return Err(Fail::Crash {
                        message: m.clone(),
                        span: t.span,
                    })
                }
                _ => {
                    if let Some(l) = t.line {
                        self.line = l as i64;
                    }
                    return Ok(t);
                }
            }
        }
    }

    /// `check_element_separator`: a comma, or at least one newline, separates elements.
    fn check_separator(&mut self, nodes: &mut Vec<Collected>) -> bool {
        let mut saw_newline = false;
        loop {
            let t = self.pop_token();
            match &t.tok {
                Tok::Whitespace(_) | Tok::Comment(_) => nodes.push(Collected::Other),
                _ if t.is_unquoted_whitespace() => nodes.push(Collected::Other),
                Tok::Newline => {
                    saw_newline = true;
                    self.line += 1;
                    nodes.push(Collected::Newline);
                }
                Tok::Comma => return true,
                _ => {
                    self.put_back(t);
                    return saw_newline;
                }
            }
        }
    }

    fn starts_value(t: &Token) -> bool {
        t.is_value()
            || t.is_unquoted()
            || t.is_substitution()
            || matches!(t.tok, Tok::OpenCurly | Tok::OpenSquare)
    }

    /// `consolidate_values`: a concatenation of adjacent values on one line, or the single value,
    /// or `None` (the token is put back).
    fn consolidate(&mut self, nodes: &mut Vec<Collected>) -> R<Option<Value>> {
        enum Piece<'t> {
            Ws(&'t Token),
            Value(Value),
        }
        let mut values: Vec<Piece> = Vec::new();
        let mut count = 0;
        let mut t = self.next_collecting(nodes)?;
        loop {
            if matches!(t.tok, Tok::Whitespace(_)) {
                values.push(Piece::Ws(t));
                t = self.pop_token();
                continue;
            }
            if !Self::starts_value(t) {
                break;
            }
            let v = self.parse_value(t)?;
            count += 1;
            values.push(Piece::Value(v));
            t = self.pop_token();
        }
        self.put_back(t);
        if count < 2 {
            let mut value = None;
            for p in values {
                match p {
                    Piece::Value(v) => value = Some(v),
                    Piece::Ws(w) => {
                        if value.is_some() {
                            self.put_back(w);
                        }
                    }
                }
            }
            return Ok(value);
        }
        // Trailing whitespace goes back to the enclosing object or array.
        while matches!(values.last(), Some(Piece::Ws(_))) {
            if let Some(Piece::Ws(w)) = values.pop() {
                self.put_back(w);
            }
        }
        Ok(Some(Value::Concat(
            values
                .into_iter()
                .filter_map(|p| match p {
                    Piece::Value(v) => Some(v),
                    Piece::Ws(_) => None,
                })
                .collect(),
        )))
    }

    /// Ruby's `add_quote_suggestion` (its `last_path` is never set, so only two forms exist).
    fn quote_suggestion(bad: &Token, message: String) -> String {
        if bad.tok == Tok::Eof {
            message
        } else {
            format!(
                "{message} (if you intended {bad} to be part of a key or string value, try \
                 enclosing the key or value in double quotes"
            )
        }
    }

    fn parse_value(&mut self, t: &'t Token) -> R<Value> {
        if t.is_value() || t.is_unquoted() || t.is_substitution() {
            return Ok(Value::Simple(t.clone()));
        }
        match t.tok {
            Tok::OpenCurly | Tok::OpenSquare => {
                if self.depth >= MAX_DEPTH {
                    return Err(Fail::TooDeep {
                        span: t.span,
                        what: "nesting deeper than 256 levels of braces and brackets",
                    });
                }
                self.depth += 1;
                let r = if t.tok == Tok::OpenCurly {
                    self.parse_object(Some(t.span.start)).map(Value::Object)
                } else {
                    self.parse_array(t.span.start).map(Value::Array)
                };
                self.depth -= 1;
                r
            }
            _ => {
                let msg = format!("Expecting a value but got wrong token: {t}");
                Err(self.error(Self::quote_suggestion(t, msg), t.span))
            }
        }
    }

    fn parse_key(&mut self, first: &'t Token) -> R<(Vec<KeyPart>, Span)> {
        let mut expr = Vec::new();
        let mut t = first;
        while t.is_value() || t.is_unquoted() {
            expr.push(t);
            t = self.pop_token();
        }
        if expr.is_empty() {
            let span = t.span;
            return Err(self.error(
                format!("expecting a close brace or a field name here, got {t}"),
                span,
            ));
        }
        self.put_back(t);
        let span = expr[0].span.cover(expr[expr.len() - 1].span);
        let parts = parse_path(&expr).map_err(|message| Fail::Config { message, span })?;
        Ok((parts, span))
    }

    fn parse_include(&mut self, nodes: &mut Vec<Collected>, start: u32) -> R<Include> {
        let t = self.next_collecting(nodes)?;
        if let Tok::Unquoted(kind_text) = &t.tok {
            let kind = match kind_text.as_str() {
                "url(" => IncludeKind::Url,
                "file(" => IncludeKind::File,
                "classpath(" => IncludeKind::Classpath,
                _ => {
                    return Err(self.error(
                        format!(
                            "expecting include parameter to be quoted filename, file(), \
                             classpath(), or url(). No spaces are allowed before the open paren. \
                             Not expecting: {t}"
                        ),
                        t.span,
                    ))
                }
            };
            let s = self.next_collecting(nodes)?;
            let Tok::Value(TokValue::Str(name)) = &s.tok else {
                return Err(self.error(
                    format!(
                        "expecting a quoted string inside file(), classpath(), or url(), rather \
                         than: {s}"
                    ),
                    s.span,
                ));
            };
            let name = name.clone();
            let close = self.next_collecting(nodes)?;
            if close.tok != Tok::Unquoted(")".into()) {
                return Err(self.error(
                    format!("expecting a close parentheses ')' here, not: {close}"),
                    close.span,
                ));
            }
            Ok(Include {
                kind,
                name,
                span: Span {
                    start,
                    end: close.span.end,
                },
            })
        } else if let Tok::Value(TokValue::Str(name)) = &t.tok {
            Ok(Include {
                kind: IncludeKind::Heuristic,
                name: name.clone(),
                span: Span {
                    start,
                    end: t.span.end,
                },
            })
        } else {
            Err(self.error(
                format!("include keyword is not followed by a quoted string, but by: {t}"),
                t.span,
            ))
        }
    }

    /// `parse_object`; `open` is the offset of the `{`, `None` for a root without braces.
    fn parse_object(&mut self, open: Option<u32>) -> R<Object> {
        let had_open_curly = open.is_some();
        let mut children = Vec::new();
        let mut nodes = Vec::new();
        let start = open.unwrap_or(0);
        let mut end;
        macro_rules! flush {
            () => {
                for n in nodes.drain(..) {
                    if let Collected::Newline = n {
                        children.push(ObjChild::Newline);
                    }
                }
            };
        }
        loop {
            let t = self.next_collecting(&mut nodes)?;
            flush!();
            if t.tok == Tok::CloseCurly {
                if !had_open_curly {
                    let msg = Self::quote_suggestion(
                        t,
                        "unbalanced close brace '}' with no open brace".into(),
                    );
                    return Err(self.error(msg, t.span));
                }
                end = t.span.end;
                break;
            } else if t.tok == Tok::Eof && !had_open_curly {
                end = t.span.start;
                self.put_back(t);
                break;
            } else if t.tok == Tok::Unquoted("include".into()) {
                let inc = self.parse_include(&mut nodes, t.span.start)?;
                // Newlines inside an include statement belong to its node, not the object's.
                nodes.clear();
                end = inc.span.end;
                children.push(ObjChild::Include(inc));
            } else {
                let mut kv_nodes = Vec::new();
                let (path, key_span) = self.parse_key(t)?;
                let after_key = self.next_collecting(&mut kv_nodes)?;
                let (sep, value) = if after_key.tok == Tok::OpenCurly {
                    (Sep::None, self.parse_value(after_key)?)
                } else {
                    let sep = match after_key.tok {
                        Tok::Colon => Sep::Colon,
                        Tok::Equals => Sep::Equals,
                        Tok::PlusEquals => Sep::PlusEquals,
                        _ => {
                            let msg = format!(
                                "Key '{}' may not be followed by token: {after_key}",
                                self.text.get(key_span.range()).unwrap_or("")
                            );
                            let msg = Self::quote_suggestion(after_key, msg);
                            return Err(self.error(msg, after_key.span));
                        }
                    };
                    if sep == Sep::Equals {
                        self.equals_count += 1;
                    }
                    let v = match self.consolidate(&mut kv_nodes)? {
                        Some(v) => v,
                        None => {
                            let t = self.next_collecting(&mut kv_nodes)?;
                            self.parse_value(t)?
                        }
                    };
                    if sep == Sep::Equals {
                        self.equals_count -= 1;
                    }
                    (sep, v)
                };
                end = value.span().end;
                children.push(ObjChild::Field(Box::new(Field {
                    path,
                    sep,
                    value,
                    key_span,
                })));
            }
            if self.check_separator(&mut nodes) {
                flush!();
                continue;
            }
            flush!();
            let t = self.next_collecting(&mut nodes)?;
            flush!();
            if t.tok == Tok::CloseCurly {
                if !had_open_curly {
                    let msg = Self::quote_suggestion(
                        t,
                        "unbalanced close brace '}' with no open brace".into(),
                    );
                    return Err(self.error(msg, t.span));
                }
                end = t.span.end;
                break;
            } else if had_open_curly || t.tok != Tok::Eof {
                let msg = Self::quote_suggestion(
                    t,
                    format!("Expecting close brace }} or a comma, got {t}"),
                );
                return Err(self.error(msg, t.span));
            } else {
                self.put_back(t);
                break;
            }
        }
        Ok(Object {
            children,
            span: Span { start, end },
        })
    }

    fn parse_array(&mut self, open: u32) -> R<Array> {
        let mut children = Vec::new();
        let mut nodes = Vec::new();
        macro_rules! flush {
            () => {
                for n in nodes.drain(..) {
                    if let Collected::Newline = n {
                        children.push(ArrChild::Newline);
                    }
                }
            };
        }
        let first = self.consolidate(&mut nodes)?;
        flush!();
        match first {
            Some(v) => children.push(ArrChild::Value(v)),
            None => {
                let t = self.next_collecting(&mut nodes)?;
                flush!();
                if t.tok == Tok::CloseSquare {
                    return Ok(Array {
                        children,
                        span: Span {
                            start: open,
                            end: t.span.end,
                        },
                    });
                } else if Self::starts_value(t) {
                    let v = self.parse_value(t)?;
                    children.push(ArrChild::Value(v));
                } else {
                    return Err(self.error(
                        format!(
                            "List should have ] or a first element after the open [, instead had \
                             token: {t} (if you want {t} to be part of a string value, then \
                             double-quote it)"
                        ),
                        t.span,
                    ));
                }
            }
        }
        loop {
            let sep = self.check_separator(&mut nodes);
            flush!();
            if !sep {
                let t = self.next_collecting(&mut nodes)?;
                flush!();
                if t.tok == Tok::CloseSquare {
                    return Ok(Array {
                        children,
                        span: Span {
                            start: open,
                            end: t.span.end,
                        },
                    });
                }
                return Err(self.error(
                    format!(
                        "List should have ended with ] or had a comma, instead had token: {t} (if \
                         you want {t} to be part of a string value, then double-quote it)"
                    ),
                    t.span,
                ));
            }
            let next = self.consolidate(&mut nodes)?;
            flush!();
            match next {
                Some(v) => children.push(ArrChild::Value(v)),
                None => {
                    let t = self.next_collecting(&mut nodes)?;
                    flush!();
                    if Self::starts_value(t) {
                        let v = self.parse_value(t)?;
                        children.push(ArrChild::Value(v));
                    } else if t.tok == Tok::CloseSquare {
                        // One trailing comma is allowed.
                        self.put_back(t);
                    } else {
                        return Err(self.error(
                            format!(
                                "List should have had new element after a comma, instead had \
                                 token: {t} (if you want the comma or {t} to be part of a string \
                                 value, then double-quote it)"
                            ),
                            t.span,
                        ));
                    }
                }
            }
        }
    }

    fn parse_root(&mut self) -> R<Vec<RootChild>> {
        let _start = self.pop_token();
        let mut children = Vec::new();
        let mut nodes = Vec::new();
        let t = self.next_collecting(&mut nodes)?;
        let missing_curly = !matches!(t.tok, Tok::OpenCurly | Tok::OpenSquare);
        let result = if missing_curly {
            self.put_back(t);
            // The leading newlines belong to the brace-less root object itself.
            let mut obj = self.parse_object(None)?;
            let mut lead: Vec<ObjChild> = nodes
                .drain(..)
                .filter(|n| matches!(n, Collected::Newline))
                .map(|_| ObjChild::Newline)
                .collect();
            lead.append(&mut obj.children);
            obj.children = lead;
            Value::Object(obj)
        } else {
            for n in nodes.drain(..) {
                if let Collected::Newline = n {
                    children.push(RootChild::Newline);
                }
            }
            self.parse_value(t)?
        };
        children.push(RootChild::Value(result));
        let t = self.next_collecting(&mut nodes)?;
        for n in nodes.drain(..) {
            if let Collected::Newline = n {
                children.push(RootChild::Newline);
            }
        }
        if t.tok != Tok::Eof {
            return Err(self.error(
                format!("Document has trailing tokens after first object or array: {t}"),
                t.span,
            ));
        }
        Ok(children)
    }
}

/// What reading past the end gives (the stream always ends with its own EOF token).
static EOF: Token = Token {
    tok: Tok::Eof,
    span: Span::empty(0),
    line: None,
};

/// One path element being built (Ruby's `PathParser::Element`).
struct Element {
    text: String,
    can_be_empty: bool,
    start: Option<usize>,
    end: usize,
}

/// `PathParser.parse_path_expression` over key or substitution tokens. Returns the message of
/// Ruby's ConfigBadPathError (without origin) on failure.
pub(super) fn parse_path(expr: &[&Token]) -> Result<Vec<KeyPart>, String> {
    if expr.is_empty() {
        return Err("Expecting a field name or path here, but got nothing".into());
    }
    let mut buf = vec![Element {
        text: String::new(),
        can_be_empty: false,
        start: None,
        end: 0,
    }];
    for t in expr {
        match &t.tok {
            Tok::Whitespace(_) | Tok::Eof => continue,
            Tok::Value(TokValue::Str(s)) => {
                add_path_text(&mut buf, true, s, t.span.start as usize, t.span)
            }
            Tok::Value(_) | Tok::Unquoted(_) => {
                add_path_text(&mut buf, false, &t.text(), t.span.start as usize, t.span)
            }
            _ => {
                return Err(format!(
                    "Token not allowed in path expression: {t} (you can double-quote this token \
                     if you really want it here)"
                ))
            }
        }
    }
    let mut out = Vec::with_capacity(buf.len());
    for e in buf {
        if e.text.is_empty() && !e.can_be_empty {
            return Err(
                "path has a leading, trailing, or two adjacent period '.' (use quoted \"\" \
                        empty string if you want an empty element)"
                    .into(),
            );
        }
        let start = e.start.unwrap_or(e.end);
        out.push(KeyPart {
            name: e.text,
            span: Span::new(start, e.end.max(start)),
        });
    }
    Ok(out)
}

/// `add_path_text`: unquoted text splits on `.`; quoted text does not. `at` is where `text`
/// starts in the source (exact for unquoted text, whose source is the text itself). Iterative,
/// so a key with many dots cannot exhaust the stack.
fn add_path_text(buf: &mut Vec<Element>, quoted: bool, text: &str, at: usize, tok: Span) {
    if quoted {
        let Some(cur) = buf.last_mut() else { return };
        if cur.start.is_none() {
            cur.start = Some(tok.start as usize);
        }
        cur.text.push_str(text);
        cur.end = tok.end as usize;
        if cur.text.is_empty() {
            cur.can_be_empty = true;
        }
        return;
    }
    let mut rest = text;
    let mut pos = at;
    loop {
        let piece = match rest.find('.') {
            Some(i) => &rest[..i],
            None => rest,
        };
        if let Some(cur) = buf.last_mut() {
            if !piece.is_empty() {
                if cur.start.is_none() {
                    cur.start = Some(pos);
                }
                cur.end = pos + piece.len();
            }
            cur.text.push_str(piece);
        }
        if piece.len() == rest.len() {
            return;
        }
        pos += piece.len() + 1;
        rest = &rest[piece.len() + 1..];
        buf.push(Element {
            text: String::new(),
            can_be_empty: false,
            start: None,
            end: pos,
        });
    }
}

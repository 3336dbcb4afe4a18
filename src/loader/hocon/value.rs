//! HOCON values before and after resolution, and the step that builds them from the syntax tree:
//! a port of ruby-hocon 1.3.1's `ConfigParser` (`lib/hocon/impl/config_parser.rb`), of
//! `with_fallback` (`abstract_config_value.rb`, `simple_config_object.rb#merged_with_object`) and
//! of `ConfigConcatenation.join` (`config_concatenation.rb`).
//!
//! The key order of merged objects follows Ruby's: `new.with_fallback(old)` lists the newer
//! object's keys first, then the keys only the older one has (recorded: `a {b: 1}` then
//! `a {c: 2}` gives `{"c"=>2, "b"=>1}`).

use indexmap::IndexMap;

use super::lexer::{Num, Tok, TokValue, Token};
use super::parser::{self, ArrChild, Fail, IncludeKind, ObjChild, RootChild, Sep};
use crate::loader::{LoadIssue, LoadIssueKind};
use crate::span::Span;

/// A substitution `${path}` / `${?path}`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Subst {
    pub path: Vec<String>,
    pub optional: bool,
    /// Ruby's `SubstitutionExpression#to_s`, e.g. `${?a."b.c"}`.
    pub render: String,
    pub line: usize,
    /// Identity of the reference as written. Ruby's cycle markers are a Set of reference objects,
    /// which compares them by identity (ConfigReference defines no `eql?`): a reference is a
    /// cycle only when the same one is met again (recorded: `a = [1]`, `a += 2`, `a += 3` gives
    /// `[1, 2, 3]`, the second `+=` reference is not the first one).
    pub id: u32,
}

#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub key_span: Span,
    pub value: HV,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Obj {
    pub fields: IndexMap<String, Entry>,
    /// Set once the object has been merged over a non-object: older values no longer matter.
    pub ignores_fallbacks: bool,
}

#[derive(Clone, Debug)]
pub(super) enum K {
    Obj(Obj),
    List(Vec<HV>),
    /// A string; `quoted` is false for unquoted text (which a list or object next to it in a
    /// concatenation swallows, recorded: `[1] foo` is `[1]`).
    Str {
        s: String,
        quoted: bool,
    },
    Num(Num, String),
    Bool(bool),
    Null,
    Ref(Subst),
    /// Values still to be concatenated once their substitutions are resolved.
    Concat(Vec<HV>),
    /// Ruby's ConfigDelayedMerge / ConfigDelayedMergeObject: values to merge once resolved,
    /// newest first.
    Merge(Vec<HV>),
}

/// A HOCON value with the span of its text and the origin lines Ruby would print for it.
#[derive(Clone, Debug)]
pub(super) struct HV {
    pub kind: K,
    pub span: Span,
    pub lines: (usize, usize),
    /// No substitution anywhere inside (Ruby's ResolveStatus::RESOLVED).
    pub resolved: bool,
    /// Nesting depth (1 for a scalar), bounded by the parser and the resolver so that the
    /// recursive clone and drop of values stay shallow.
    pub depth: u32,
    /// Values inside, this one included, and the bytes of their strings and keys (saturating):
    /// what the resolver bounds, since substitutions copy values.
    pub nodes: u64,
    pub bytes: u64,
}

impl HV {
    pub fn new(kind: K, span: Span, line: usize) -> HV {
        let resolved = match &kind {
            K::Obj(o) => o.fields.values().all(|e| e.value.resolved),
            K::List(items) => items.iter().all(|v| v.resolved),
            K::Ref(_) | K::Concat(_) | K::Merge(_) => false,
            _ => true,
        };
        let depth = match &kind {
            K::Obj(o) => 1 + o.fields.values().map(|e| e.value.depth).max().unwrap_or(0),
            K::List(items) => 1 + items.iter().map(|v| v.depth).max().unwrap_or(0),
            K::Concat(items) | K::Merge(items) => items.iter().map(|v| v.depth).max().unwrap_or(1),
            _ => 1,
        };
        let (nodes, bytes) = match &kind {
            K::Obj(o) => o.fields.iter().fold((1u64, 0u64), |(n, b), (k, e)| {
                (
                    n.saturating_add(e.value.nodes),
                    b.saturating_add(e.value.bytes)
                        .saturating_add(k.len() as u64),
                )
            }),
            K::List(items) | K::Concat(items) | K::Merge(items) => {
                items.iter().fold((1u64, 0u64), |(n, b), v| {
                    (n.saturating_add(v.nodes), b.saturating_add(v.bytes))
                })
            }
            K::Str { s, .. } => (1, s.len() as u64),
            _ => (1, 0),
        };
        HV {
            kind,
            span,
            lines: (line, line),
            resolved,
            depth,
            nodes,
            bytes,
        }
    }

    fn with_lines(mut self, lines: (usize, usize)) -> HV {
        self.lines = lines;
        self
    }

    /// Ruby's Unmergeable: references, concatenations and delayed merges.
    pub fn is_unmergeable(&self) -> bool {
        matches!(self.kind, K::Ref(_) | K::Concat(_) | K::Merge(_))
    }

    fn is_object_like(&self) -> bool {
        match &self.kind {
            K::Obj(_) => true,
            K::Merge(stack) => matches!(stack.first().map(|v| &v.kind), Some(K::Obj(_))),
            _ => false,
        }
    }

    /// Ruby's `ignores_fallbacks?`.
    fn ignores_fallbacks(&self) -> bool {
        match &self.kind {
            K::Obj(o) => o.ignores_fallbacks,
            K::Merge(stack) => stack.last().is_some_and(HV::ignores_fallbacks),
            K::Ref(_) | K::Concat(_) => false,
            _ => self.resolved,
        }
    }

    fn unmerged_values(self) -> Vec<HV> {
        match self.kind {
            K::Merge(stack) => stack,
            _ => vec![self],
        }
    }

    fn merge_stack(stack: Vec<HV>) -> HV {
        let span = stack
            .iter()
            .map(|v| v.span)
            .reduce(Span::cover)
            .unwrap_or_default();
        let lines = merge_lines(stack.iter().map(|v| v.lines));
        HV::new(K::Merge(stack), span, lines.0).with_lines(lines)
    }

    /// Ruby's `with_fallback`: `self` is newer, `fallback` older. `dups` collects values that a
    /// newer scalar silently replaced (for duplicate-key issues), as (new key, old key) spans.
    pub fn with_fallback(self, fallback: HV, dups: &mut Option<&mut Vec<(Span, Span)>>) -> HV {
        if self.ignores_fallbacks() {
            return self;
        }
        match self.kind {
            K::Obj(_) if fallback.is_unmergeable() => {
                let mut stack = vec![self];
                stack.extend(fallback.unmerged_values());
                HV::merge_stack(stack)
            }
            K::Obj(mut o) => match fallback.kind {
                K::Obj(old) => {
                    // merged_with_object: the newer keys in order, then the older-only keys.
                    let mut old_fields = old.fields;
                    let mut fields = IndexMap::with_capacity(o.fields.len() + old_fields.len());
                    for (k, e) in o.fields.drain(..) {
                        match old_fields.shift_remove(&k) {
                            Some(oe) => {
                                if let Some(d) = dups.as_deref_mut() {
                                    if replaces(&e.value, &oe.value) {
                                        d.push((e.key_span, oe.key_span));
                                    }
                                }
                                let value = e.value.with_fallback(oe.value, dups);
                                fields.insert(
                                    k,
                                    Entry {
                                        key_span: e.key_span,
                                        value,
                                    },
                                );
                            }
                            None => {
                                fields.insert(k, e);
                            }
                        }
                    }
                    for (k, e) in old_fields {
                        fields.insert(k, e);
                    }
                    let obj = Obj {
                        fields,
                        ignores_fallbacks: old.ignores_fallbacks,
                    };
                    let lines = merge_lines([self.lines, fallback.lines].into_iter());
                    HV::new(K::Obj(obj), self.span, self.lines.0).with_lines(lines)
                }
                _ => {
                    // A scalar or list fallback: a resolved object ignores it from now on.
                    if self.resolved {
                        o.ignores_fallbacks = true;
                        HV {
                            kind: K::Obj(o),
                            ..self
                        }
                    } else {
                        let me = HV {
                            kind: K::Obj(o),
                            ..self
                        };
                        HV::merge_stack(vec![me, fallback])
                    }
                }
            },
            K::Merge(mut stack) => {
                stack.extend(fallback.unmerged_values());
                HV::merge_stack(stack)
            }
            _ => {
                // An unresolved list, reference or concatenation.
                let mut stack = vec![self];
                stack.extend(fallback.unmerged_values());
                HV::merge_stack(stack)
            }
        }
    }

    /// Ruby's `transform_to_string` (None for objects and lists).
    fn transform_to_string(&self) -> Option<String> {
        match &self.kind {
            K::Str { s, .. } => Some(s.clone()),
            K::Num(_, text) => Some(text.clone()),
            K::Bool(b) => Some(b.to_string()),
            K::Null => Some("null".into()),
            _ => None,
        }
    }

    /// Ruby's `AbstractConfigValue#to_s`: the class name and the value rendered as concise JSON.
    pub fn ruby_to_s(&self) -> String {
        let class = match &self.kind {
            K::Obj(_) => "SimpleConfigObject",
            K::List(_) => "SimpleConfigList",
            K::Str { quoted: true, .. } => "Quoted",
            K::Str { quoted: false, .. } => "Unquoted",
            K::Num(Num::Float(_), _) => "ConfigDouble",
            K::Num(..) => "ConfigInt",
            K::Bool(_) => "ConfigBoolean",
            K::Null => "ConfigNull",
            K::Ref(_) => "ConfigReference",
            K::Concat(_) => "ConfigConcatenation",
            K::Merge(_) => "ConfigDelayedMerge",
        };
        let mut out = String::new();
        self.render(&mut out);
        format!("{class}({out})")
    }

    fn render(&self, out: &mut String) {
        match &self.kind {
            K::Obj(o) => {
                out.push('{');
                for (i, (k, e)) in o.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&render_json_string(k));
                    out.push(':');
                    e.value.render(out);
                }
                out.push('}');
            }
            K::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.render(out);
                }
                out.push(']');
            }
            K::Str { s, .. } => out.push_str(&render_json_string(s)),
            K::Num(_, text) => out.push_str(text),
            K::Bool(b) => out.push_str(&b.to_string()),
            K::Null => out.push_str("null"),
            K::Ref(s) => out.push_str(&s.render),
            K::Concat(pieces) => pieces.iter().for_each(|p| p.render(out)),
            K::Merge(stack) => {
                if let Some(v) = stack.first() {
                    v.render(out)
                }
            }
        }
    }
}

/// Whether setting `new` over `old` silently drops `old`: a resolved scalar or list replaces
/// anything, an object replaces a resolved scalar or list. Objects merge, and unresolved values
/// (`+=`, self references) use the older value.
fn replaces(new: &HV, old: &HV) -> bool {
    (new.ignores_fallbacks() && !new.is_object_like())
        || (new.is_object_like() && old.resolved && !old.is_object_like())
}

fn merge_lines(it: impl Iterator<Item = (usize, usize)>) -> (usize, usize) {
    it.reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
        .unwrap_or((1, 1))
}

/// Ruby's `SimpleConfigOrigin#description` for parse_string: `String: 3` or `String: 3-5`.
pub(super) fn origin(lines: (usize, usize)) -> String {
    if lines.0 == lines.1 {
        format!("String: {}", lines.0)
    } else {
        format!("String: {}-{}", lines.0, lines.1)
    }
}

/// `ConfigImplUtil.render_json_string`.
pub(super) fn render_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `Path#render`: elements joined by `.`, each quoted when empty or holding characters other
/// than alphanumerics, `-` and `_`.
pub(super) fn render_path(path: &[String]) -> String {
    path.iter()
        .map(|e| {
            if e.is_empty()
                || e.chars()
                    .any(|c| !(c.is_alphanumeric() || c == '-' || c == '_'))
            {
                render_json_string(e)
            } else {
                e.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// `ConfigConcatenation.consolidate`: flattens and joins adjacent pieces.
pub(super) fn consolidate(pieces: Vec<HV>) -> Result<Vec<HV>, Fail> {
    let mut out: Vec<HV> = Vec::with_capacity(pieces.len());
    for p in pieces {
        let flat = match p.kind {
            K::Concat(inner) => inner,
            _ => vec![p],
        };
        for right in flat {
            match out.pop() {
                None => out.push(right),
                Some(left) => match join(left, right)? {
                    Joined::One(v) => out.push(v),
                    Joined::Two(l, r) => {
                        out.push(l);
                        out.push(r);
                    }
                },
            }
        }
    }
    Ok(out)
}

enum Joined {
    One(HV),
    Two(HV, HV),
}

/// `ConfigConcatenation.join`.
fn join(left: HV, right: HV) -> Result<Joined, Fail> {
    let lines = merge_lines([left.lines, right.lines].into_iter());
    let span = left.span.cover(right.span);
    if left.is_object_like() && right.is_object_like() {
        let mut none = None;
        let joined = right.with_fallback(left, &mut none);
        return Ok(Joined::One(HV { span, ..joined }));
    }
    if let (K::List(a), K::List(b)) = (&left.kind, &right.kind) {
        let mut items = Vec::with_capacity(a.len() + b.len());
        items.extend(a.iter().cloned());
        items.extend(b.iter().cloned());
        return Ok(Joined::One(
            HV::new(K::List(items), span, lines.0).with_lines(lines),
        ));
    }
    match (&left.kind, &right.kind) {
        (K::List(_) | K::Obj(_), K::Str { quoted: false, .. }) => Ok(Joined::One(left)),
        _ if left.is_unmergeable() || right.is_unmergeable() => Ok(Joined::Two(left, right)),
        _ => match (left.transform_to_string(), right.transform_to_string()) {
            (Some(a), Some(b)) => Ok(Joined::One(
                HV::new(
                    K::Str {
                        s: a + &b,
                        quoted: true,
                    },
                    span,
                    lines.0,
                )
                .with_lines(lines),
            )),
            _ => Err(Fail::Config {
                message: format!(
                    "{}: Cannot concatenate object or list with a non-object-or-list, {} and {} \
                     are not compatible",
                    origin(left.lines),
                    left.ruby_to_s(),
                    right.ruby_to_s()
                ),
                span,
            }),
        },
    }
}

/// Builds values from the syntax tree (Ruby's `ConfigParser::ParseContext`).
pub(super) struct Builder<'a> {
    pub text: &'a str,
    line: usize,
    array_count: usize,
    path_stack: Vec<Vec<String>>,
    next_ref: u32,
    pub issues: Vec<LoadIssue>,
}

impl<'a> Builder<'a> {
    pub fn new(text: &'a str) -> Builder<'a> {
        Builder {
            text,
            line: 1,
            array_count: 0,
            path_stack: Vec::new(),
            next_ref: 0,
            issues: Vec::new(),
        }
    }

    fn ref_id(&mut self) -> u32 {
        self.next_ref += 1;
        self.next_ref
    }

    fn error(&self, message: &str, span: Span) -> Fail {
        Fail::Config {
            message: format!("String: {}: {message}", self.line),
            span,
        }
    }

    /// `ConfigParser#parse` plus `Parseable.force_parsed_to_object`.
    pub fn build_root(&mut self, children: &[RootChild]) -> Result<HV, Fail> {
        let mut result: Option<HV> = None;
        for c in children {
            match c {
                RootChild::Newline => {
                    self.line += 1;
                    if result.is_some() {
                        break;
                    }
                }
                RootChild::Value(v) => result = Some(self.value(v)?),
            }
        }
        match result {
            Some(v) if matches!(v.kind, K::Obj(_)) => Ok(v),
            Some(v) => {
                let kind = match v.kind {
                    K::List(_) => "LIST",
                    _ => "OBJECT",
                };
                Err(Fail::Config {
                    message: format!(
                        "{}:  has type {kind} rather than object at file root",
                        origin(v.lines)
                    ),
                    span: v.span,
                })
            }
            None => Ok(HV::new(K::Obj(Obj::default()), Span::empty(0), 1)),
        }
    }

    fn value(&mut self, v: &parser::Value) -> Result<HV, Fail> {
        match v {
            parser::Value::Simple(t) => self.simple(t),
            parser::Value::Object(o) => self.object(o),
            parser::Value::Array(a) => self.array(a),
            parser::Value::Concat(pieces) => {
                let mut vals = Vec::with_capacity(pieces.len());
                for p in pieces {
                    vals.push(self.value(p)?);
                }
                let mut joined = consolidate(vals)?;
                Ok(match joined.pop() {
                    Some(one) if joined.is_empty() => one,
                    last => {
                        joined.extend(last);
                        let span = v.span();
                        let lines = merge_lines(joined.iter().map(|v| v.lines));
                        HV::new(K::Concat(joined), span, lines.0).with_lines(lines)
                    }
                })
            }
        }
    }

    fn simple(&mut self, t: &Token) -> Result<HV, Fail> {
        let line = t.line.unwrap_or(self.line);
        let kind = match &t.tok {
            Tok::Value(TokValue::Str(s)) => K::Str {
                s: s.clone(),
                quoted: true,
            },
            Tok::Value(TokValue::Num(n, text)) => K::Num(n.clone(), text.clone()),
            Tok::Value(TokValue::Bool(b)) => K::Bool(*b),
            Tok::Value(TokValue::Null) => K::Null,
            Tok::Unquoted(s) => K::Str {
                s: s.clone(),
                quoted: false,
            },
            Tok::Substitution { optional, expr } => {
                let refs: Vec<&Token> = expr.iter().collect();
                let path = parser::parse_path(&refs).map_err(|m| Fail::Config {
                    message: format!("String: {line}: {m}"),
                    span: t.span,
                })?;
                let names: Vec<String> = path.into_iter().map(|p| p.name).collect();
                let render = format!(
                    "${{{}{}}}",
                    if *optional { "?" } else { "" },
                    render_path(&names)
                );
                K::Ref(Subst {
                    path: names,
                    optional: *optional,
                    render,
                    line,
                    id: self.ref_id(),
                })
            }
            _ => {
                return Err(self.error(
                    &format!("Expecting a value but got wrong node type: {t}"),
                    t.span,
                ))
            }
        };
        Ok(HV::new(kind, t.span, line))
    }

    fn full_path(&self) -> Vec<String> {
        self.path_stack.iter().flatten().cloned().collect()
    }

    fn object(&mut self, o: &parser::Object) -> Result<HV, Fail> {
        let origin_line = self.line;
        let mut values: IndexMap<String, Entry> = IndexMap::new();
        for child in &o.children {
            match child {
                ObjChild::Newline => self.line += 1,
                ObjChild::Include(inc) => self.include(inc)?,
                ObjChild::Field(f) => {
                    let names: Vec<String> = f.path.iter().map(|p| p.name.clone()).collect();
                    self.path_stack.push(names);
                    if f.sep == Sep::PlusEquals {
                        if self.array_count > 0 {
                            return Err(self.error(
                                "Due to current limitations of the config parser, += does not \
                                 work nested inside a list. += expands to a ${} substitution and \
                                 the path in ${} cannot currently refer to list elements. You \
                                 might be able to move the += outside of the list and then refer \
                                 to it from inside the list with ${}.",
                                f.key_span,
                            ));
                        }
                        self.array_count += 1;
                    }
                    let mut new_value = self.value(&f.value)?;
                    if f.sep == Sep::PlusEquals {
                        self.array_count -= 1;
                        // `a += v` is `a = ${?a} [v]`.
                        let path = self.full_path();
                        let render = format!("${{?{}}}", render_path(&path));
                        let line = new_value.lines.0;
                        let span = new_value.span;
                        let id = self.ref_id();
                        let reference = HV::new(
                            K::Ref(Subst {
                                path,
                                optional: true,
                                render,
                                line,
                                id,
                            }),
                            f.key_span,
                            line,
                        );
                        let list = HV::new(K::List(vec![new_value]), span, line);
                        let mut joined = consolidate(vec![reference, list])?;
                        new_value = match joined.pop() {
                            Some(one) if joined.is_empty() => one,
                            last => {
                                joined.extend(last);
                                HV::new(K::Concat(joined), span, line)
                            }
                        };
                    }
                    self.path_stack.pop();
                    // A key path always has an element (parse_path fails otherwise).
                    let Some(first) = f.path.first() else {
                        continue;
                    };
                    let mut dups = Vec::new();
                    // Keys with many dots nest as deep as nested braces: bound both.
                    let max = super::resolve::MAX_VALUE_DEPTH;
                    if f.path.len() as u32 + new_value.depth > max {
                        return Err(Fail::TooDeep {
                            span: f.key_span,
                            what: "a key path nested deeper than 512 levels",
                        });
                    }
                    let value = if f.path.len() == 1 {
                        new_value
                    } else {
                        self.under_path(&f.path[1..], new_value)
                    };
                    match values.get_mut(&first.name) {
                        // Set again: merged with (or replacing) the earlier value, which keeps
                        // its position (Ruby's Hash#[]=).
                        Some(slot) => {
                            let existing = std::mem::replace(
                                slot,
                                Entry {
                                    key_span: first.span,
                                    value: HV::new(K::Null, first.span, 0),
                                },
                            );
                            let merged = Self::merge_field(value, existing, first.span, &mut dups);
                            *slot = Entry {
                                key_span: first.span,
                                value: merged,
                            };
                        }
                        None => {
                            values.insert(
                                first.name.clone(),
                                Entry {
                                    key_span: first.span,
                                    value,
                                },
                            );
                        }
                    }
                    for (new, old) in dups {
                        self.issues.push(LoadIssue {
                            kind: LoadIssueKind::DuplicateKey { first: old },
                            span: new,
                            message: format!(
                                "key {} set again: ruby-hocon keeps the last value and drops the \
                                 earlier one",
                                self.text.get(new.range()).unwrap_or("")
                            ),
                        });
                    }
                }
            }
        }
        let obj = Obj {
            fields: values,
            ignores_fallbacks: false,
        };
        Ok(HV::new(K::Obj(obj), o.span, origin_line))
    }

    /// `new.with_fallback(existing)` for a field set again in one object, noting what a newer
    /// value silently replaces.
    fn merge_field(new: HV, existing: Entry, key_span: Span, dups: &mut Vec<(Span, Span)>) -> HV {
        if replaces(&new, &existing.value) {
            dups.push((key_span, existing.key_span));
        }
        let mut d = Some(dups);
        new.with_fallback(existing.value, &mut d)
    }

    /// `create_value_under_path`: `a.b.c = v` is `a { b { c = v } }`.
    fn under_path(&self, rest: &[parser::KeyPart], value: HV) -> HV {
        let mut v = value;
        for part in rest.iter().rev() {
            let span = part.span.cover(v.span);
            let line = v.lines.0;
            let mut fields = IndexMap::with_capacity(1);
            fields.insert(
                part.name.clone(),
                Entry {
                    key_span: part.span,
                    value: v,
                },
            );
            v = HV::new(
                K::Obj(Obj {
                    fields,
                    ignores_fallbacks: false,
                }),
                span,
                line,
            );
        }
        v
    }

    fn include(&mut self, inc: &parser::Include) -> Result<(), Fail> {
        match inc.kind {
            IncludeKind::Heuristic | IncludeKind::File => {
                // Hocon.parse(string) resolves the name against the Puppet server's working
                // directory; a missing file is silently skipped (recorded). We cannot know that
                // directory, so we skip it too and say so.
                self.issues.push(LoadIssue {
                    kind: LoadIssueKind::Unmodelled,
                    span: inc.span,
                    message: format!(
                        "include of {}: ruby-hocon looks for it relative to the Puppet server's \
                         working directory and skips it when missing; hieralint skips it",
                        render_json_string(&inc.name)
                    ),
                });
                Ok(())
            }
            // ruby-hocon's SimpleIncluder lacks these methods (recorded: a NoMethodError, which
            // Puppet reports as is).
            IncludeKind::Url => Err(Fail::Crash {
                message: "undefined method `include_url' for #<Hocon::Impl::SimpleIncluder>".into(),
                span: inc.span,
            }),
            IncludeKind::Classpath => Err(Fail::Crash {
                message: "undefined method `include_resources' for \
                          #<Hocon::Impl::SimpleIncluder>"
                    .into(),
                span: inc.span,
            }),
        }
    }

    fn array(&mut self, a: &parser::Array) -> Result<HV, Fail> {
        self.array_count += 1;
        let origin_line = self.line;
        let mut items = Vec::new();
        for c in &a.children {
            match c {
                ArrChild::Newline => self.line += 1,
                ArrChild::Value(v) => items.push(self.value(v)?),
            }
        }
        self.array_count -= 1;
        Ok(HV::new(K::List(items), a.span, origin_line))
    }
}

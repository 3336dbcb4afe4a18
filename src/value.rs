//! The two value models: the spanned syntax tree the loaders produce ([`Node`]), and the plain
//! Puppet data the engine computes with ([`Value`]).
//!
//! A [`Node`] is what the file says, with every key and value's byte span, scalar style and
//! source text: rules read it. A [`Value`] is what Puppet sees after Psych/JSON/HOCON loading:
//! the engine merges and interpolates it. [`Node::to_value`] converts one into the other with
//! Psych's semantics for anchors and merge keys already applied by the loader.

use std::fmt;
use std::hash::{Hash as StdHash, Hasher};
use std::sync::Arc;

use indexmap::IndexMap;
pub use num_bigint::BigInt;

use crate::span::Span;

/// How a scalar was written. Puppet cares: a plain scalar is type-resolved (YAML 1.1), a quoted
/// or block one is always a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    /// A JSON string, or a HOCON value (quoted or not: HOCON has its own typing).
    Json,
}

impl ScalarStyle {
    pub fn is_quoted(self) -> bool {
        !matches!(self, ScalarStyle::Plain)
    }
}

/// A YAML tag as written (`!ruby/object:Foo`, `!!str`), kept for rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The handle as written (`!`, `!!`, or a named handle), empty for verbatim tags.
    pub handle: String,
    pub suffix: String,
    pub span: Span,
}

impl Tag {
    /// The tag in its resolved long form where known (`!!str` → `tag:yaml.org,2002:str`).
    pub fn full(&self) -> String {
        if self.handle == "!!" {
            format!("tag:yaml.org,2002:{}", self.suffix)
        } else {
            format!("{}{}", self.handle, self.suffix)
        }
    }
}

/// One node of a loaded file, with its span (the whole node: for a mapping, from its first key to
/// the end of its last value).
#[derive(Clone, Debug)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
    /// The tag and anchor name written on the node, boxed together: few nodes have either, and
    /// every node of every loaded file pays for the inline size (a Node was 144 bytes with both
    /// inline, 88 with each boxed, 72 with one box; loaded trees are a third of a check's peak
    /// heap). Read through [`Node::tag`] and [`Node::anchor`].
    pub props: Option<Box<NodeProps>>,
    /// True when this node was produced by expanding an alias (`*name`): its span is the alias
    /// token, and its content is a copy of the anchored node.
    pub from_alias: bool,
}

/// What a node carries besides its content ([`Node::props`]).
#[derive(Clone, Debug, Default)]
pub struct NodeProps {
    pub tag: Option<Tag>,
    /// The anchor name (`&name`) if the node defines one.
    pub anchor: Option<Box<str>>,
}

impl NodeProps {
    /// The box for a node with `tag` and `anchor`, or `None` when it has neither.
    pub fn boxed(tag: Option<Tag>, anchor: Option<String>) -> Option<Box<NodeProps>> {
        (tag.is_some() || anchor.is_some()).then(|| {
            Box::new(NodeProps {
                tag,
                anchor: anchor.map(String::into_boxed_str),
            })
        })
    }
}

#[derive(Clone, Debug)]
pub enum NodeKind {
    Scalar(Scalar),
    Seq(Vec<Node>),
    Map(Mapping),
}

/// A scalar: its resolved value (as Psych/JSON/HOCON gives it), its style and its text. The
/// node's span covers the scalar as written: a quoted scalar's quotes are included (a diagnostic
/// on a key underlines the key with its quotes), a block scalar runs from its `|`/`>` indicator.
#[derive(Clone, Debug)]
pub struct Scalar {
    pub value: Value,
    pub style: ScalarStyle,
    /// For plain scalars, what the YAML 1.1 resolver produced it from (`on` → Bool). `None` for a
    /// plain string or a quoted scalar.
    pub resolved: Option<Resolution>,
    /// The unescaped string content (what a quoted scalar means, or the plain text).
    pub text: Arc<str>,
}

/// Why a plain scalar has a non-string type (or fails): the YAML 1.1 resolution rule that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolution {
    Null,
    Bool,
    Int,
    /// Base 8 (`0755`), base 16, base 2, or with `_`/`,` separators.
    IntRadixOrSeparators,
    /// `1:20` (base 60).
    Sexagesimal,
    Float,
    /// `.inf`, `-.inf`, `.nan`.
    FloatSpecial,
    /// `:sym` → a Ruby Symbol.
    Symbol,
    /// A date or timestamp: Psych builds a Date/Time, which Puppet's safe_load rejects for the
    /// whole file (reference §6.1).
    DateTime,
}

/// A mapping: entries in file order, duplicates kept (the loader reports them; Psych keeps the
/// last value in the first key's position, see [`Mapping::effective`]).
#[derive(Clone, Debug, Default)]
pub struct Mapping {
    pub entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub key: Node,
    pub value: Node,
    /// True when this entry came from a `<<` merge key (not written directly in this mapping).
    pub merged: bool,
}

impl Mapping {
    /// Find the last entry whose key is the string `k` (last wins, as in Psych).
    pub fn get(&self, k: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.key.as_str() == Some(k))
    }

    pub fn get_value(&self, k: &str) -> Option<&Node> {
        self.get(k).map(|e| &e.value)
    }
}

impl Node {
    /// The node's tag (`!!str`, `!ruby/object:...`), if written.
    pub fn tag(&self) -> Option<&Tag> {
        self.props.as_ref().and_then(|p| p.tag.as_ref())
    }

    /// The anchor name (`&name`) if the node defines one.
    pub fn anchor(&self) -> Option<&str> {
        self.props.as_ref().and_then(|p| p.anchor.as_deref())
    }

    pub fn scalar(span: Span, value: Value, style: ScalarStyle, text: &str) -> Node {
        Node {
            span,
            kind: NodeKind::Scalar(Scalar {
                value,
                style,
                resolved: None,
                text: Arc::from(text),
            }),
            props: None,
            from_alias: false,
        }
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The string value if this is a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(Scalar {
                value: Value::String(s),
                ..
            }) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Mapping> {
        match &self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// Puppet's type name for this node's value, as its error messages print it.
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar(s) => s.value.type_name(),
            NodeKind::Seq(_) => "Array",
            NodeKind::Map(_) => "Hash",
        }
    }

    /// Converts to plain data with Psych's semantics: duplicate keys keep the last value at the
    /// position of the first occurrence (Ruby `Hash#[]=`), merge-key entries are already expanded
    /// by the loader and overridden by explicit keys.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            NodeKind::Scalar(s) => s.value.clone(),
            NodeKind::Seq(items) => {
                Value::Array(Arc::new(items.iter().map(Node::to_value).collect()))
            }
            NodeKind::Map(m) => {
                let mut h = Hash::with_capacity_and_hasher(m.entries.len(), Default::default());
                for e in &m.entries {
                    h.insert(e.key.to_value(), e.value.to_value());
                }
                Value::Hash(Arc::new(h))
            }
        }
    }
}

/// Puppet data: what a data file holds after loading and what lookups return.
///
/// Containers are reference-counted so that values found in a file can be handed out and merged
/// without deep copies. Equality and hashing follow Ruby's `eql?` (used by `Array#|`, `uniq` and
/// Hash keys): `1`, `1.0` and `"1"` are three different values.
#[derive(Clone, Debug)]
pub enum Value {
    Undef,
    Bool(bool),
    Integer(i64),
    /// An integer beyond 64 bits (a Ruby Bignum): Psych, Ruby's JSON and ruby-hocon load these
    /// exactly and Puppet returns them from lookups (recorded: fixtures/conformance/yaml/scalars,
    /// json/values-and-file-errors). Never holds a value that fits `i64`: build it with
    /// [`Value::from_bigint`].
    BigInt(Arc<BigInt>),
    Float(f64),
    String(Arc<str>),
    /// A Ruby Symbol (`:sym` in YAML): survives loading, fails Puppet's value validation.
    Symbol(Arc<str>),
    Array(Arc<Vec<Value>>),
    Hash(Arc<Hash>),
    /// Puppet's `Sensitive` wrapper, made by `convert_to: Sensitive` (reference §3.4). It prints
    /// as `Sensitive [value redacted]` everywhere (recorded: fixtures/conformance/lopts/
    /// convert-to) and, like the Ruby object, is equal only to itself.
    Sensitive(Arc<Value>),
}

/// Puppet's Hash: insertion-ordered. Hashed with foldhash's fixed-seed hasher: the keys are
/// the repository's own data, so SipHash's flood resistance buys nothing, and it was a tenth of
/// a many-fact-set check (docs/benchmarks.md).
pub type Hash = IndexMap<Value, Value, foldhash::fast::FixedState>;

/// How Puppet prints a `Sensitive` value (`to_s`), whatever it wraps.
pub const SENSITIVE_TEXT: &str = "Sensitive [value redacted]";

impl Value {
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// An integer of any size: `Integer` when it fits 64 bits, else `BigInt`.
    pub fn from_bigint(b: BigInt) -> Value {
        match i64::try_from(&b) {
            Ok(i) => Value::Integer(i),
            Err(_) => Value::BigInt(Arc::new(b)),
        }
    }

    /// Parses decimal digits with an optional sign (JSON, HOCON and YAML integers) into an
    /// integer of any size; `None` when `digits` is not an integer.
    pub fn parse_integer(digits: &str) -> Option<Value> {
        if let Ok(i) = digits.parse::<i64>() {
            return Some(Value::Integer(i));
        }
        digits.parse::<BigInt>().ok().map(Value::from_bigint)
    }

    pub fn array(v: Vec<Value>) -> Value {
        Value::Array(Arc::new(v))
    }

    pub fn hash(h: Hash) -> Value {
        Value::Hash(Arc::new(h))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_hash(&self) -> Option<&Hash> {
        match self {
            Value::Hash(h) => Some(h),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Whether a string anywhere in the value (hash keys included) satisfies `pred`; a
    /// depth-first walk without recursion.
    pub fn any_string(&self, pred: impl Fn(&str) -> bool) -> bool {
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) if pred(s) => return true,
                Value::Array(a) => stack.extend(a.iter()),
                Value::Hash(h) => {
                    for (k, x) in h.iter() {
                        stack.push(k);
                        stack.push(x);
                    }
                }
                _ => {}
            }
        }
        false
    }

    pub fn is_undef(&self) -> bool {
        matches!(self, Value::Undef)
    }

    /// Puppet's name for the value's type as it appears in type-mismatch messages
    /// (`expects a Hash value, got String`). Containers print as Tuple/Struct in some messages;
    /// callers that need that form use [`Value::puppet_inferred_type`].
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undef => "Undef",
            Value::Bool(_) => "Boolean",
            Value::Integer(_) | Value::BigInt(_) => "Integer",
            Value::Float(_) => "Float",
            Value::String(_) => "String",
            Value::Symbol(_) => "Runtime",
            Value::Array(_) => "Array",
            Value::Hash(_) => "Hash",
            Value::Sensitive(_) => "Sensitive",
        }
    }

    /// The type name Puppet's TypeAsserter prints for a mismatch (it infers Tuple for arrays and
    /// Struct for hashes with string keys; reference §1.2 table).
    pub fn puppet_inferred_type(&self) -> &'static str {
        match self {
            Value::Array(_) => "Tuple",
            Value::Hash(h) if h.keys().all(|k| matches!(k, Value::String(_))) => "Struct",
            Value::Hash(_) => "Hash",
            other => other.type_name(),
        }
    }

    /// Ruby's `to_s`, which interpolation uses to turn a value into text (reference §5.4).
    pub fn to_ruby_s(&self) -> String {
        match self {
            Value::Undef => String::new(),
            Value::String(s) | Value::Symbol(s) => s.to_string(),
            Value::Sensitive(_) => SENSITIVE_TEXT.to_string(),
            other => other.ruby_inspect(),
        }
    }

    /// Ruby's `inspect` (Ruby ≤ 3.3 style: `{"k"=>"v"}`), as Puppet prints values in arrays and
    /// hashes turned into strings and in explain output.
    pub fn ruby_inspect(&self) -> String {
        let mut out = String::new();
        self.write_inspect(&mut out);
        out
    }

    fn write_inspect(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Value::Undef => out.push_str("nil"),
            Value::Bool(b) => write!(out, "{b}").unwrap(),
            Value::Integer(i) => write!(out, "{i}").unwrap(),
            Value::BigInt(i) => write!(out, "{i}").unwrap(),
            Value::Float(f) => out.push_str(&ruby_float_to_s(*f)),
            // Puppet's `Sensitive#inspect` (recorded: fixtures/conformance/lopts/convert-to).
            Value::Sensitive(_) => out.push_str("#<Sensitive [value redacted]>"),
            Value::String(s) => write_ruby_string_inspect(s, out),
            Value::Symbol(s) => write_ruby_symbol_inspect(s, out),
            Value::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_inspect(out);
                }
                out.push(']');
            }
            Value::Hash(h) => {
                out.push('{');
                for (i, (k, v)) in h.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_inspect(out);
                    out.push_str("=>");
                    v.write_inspect(out);
                }
                out.push('}');
            }
        }
    }

    /// Plain JSON, as the oracle's `plain()` renders values: non-string hash keys become their
    /// Ruby inspect, symbols their name.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Undef => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Integer(i) => J::from(*i),
            // Exact digits (serde_json's arbitrary_precision): JSON has no size limit.
            Value::BigInt(i) => serde_json::from_str::<serde_json::Number>(&i.to_string())
                .map(J::Number)
                .unwrap_or_else(|_| J::String(i.to_string())),
            // What `puppet lookup --render-as json` prints for a Sensitive (recorded).
            Value::Sensitive(_) => J::String(SENSITIVE_TEXT.into()),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(J::Number)
                .unwrap_or_else(|| J::String(ruby_float_to_s(*f))),
            Value::String(s) | Value::Symbol(s) => J::String(s.to_string()),
            Value::Array(a) => J::Array(a.iter().map(Value::to_json).collect()),
            Value::Hash(h) => J::Object(
                h.iter()
                    .map(|(k, v)| {
                        let key = match k {
                            Value::String(s) => s.to_string(),
                            other => other.ruby_inspect(),
                        };
                        (key, v.to_json())
                    })
                    .collect(),
            ),
        }
    }

    /// Converts JSON (facts files, JSON data) into a value.
    pub fn from_json(j: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match j {
            J::Null => Value::Undef,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Integer(i),
                None => {
                    let text = n.to_string();
                    if text.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                        Value::parse_integer(&text).unwrap_or(Value::Float(f64::NAN))
                    } else {
                        Value::Float(n.as_f64().unwrap_or(f64::NAN))
                    }
                }
            },
            J::String(s) => Value::string(s.as_str()),
            J::Array(a) => Value::array(a.iter().map(Value::from_json).collect()),
            J::Object(o) => Value::hash(
                o.iter()
                    .map(|(k, v)| (Value::string(k.as_str()), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// Ruby's `Float#to_s`: `1000.0`, `1.0e+20`, `Infinity`, `NaN`.
pub fn ruby_float_to_s(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let abs = f.abs();
    // Ruby prints fixed notation only for 1e-4 <= |f| < 1e15 (recorded: `1e15.to_s` is
    // "1.0e+15", `123456789012345.0.to_s` is "123456789012345.0", `1e-5.to_s` is "1.0e-05").
    if abs != 0.0 && !(1e-4..1e15).contains(&abs) {
        // Ruby: 1.0e+20, 1.5e-05
        let s = format!("{:e}", f);
        let (mant, exp) = s.split_once('e').unwrap();
        let mant = if mant.contains('.') {
            mant.to_string()
        } else {
            format!("{mant}.0")
        };
        let exp: i32 = exp.parse().unwrap();
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs());
    }
    let s = format!("{f}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Ruby's `String#inspect` for a UTF-8 string: named escapes for the usual controls, `\uXXXX` for
/// other non-printable characters, and `#` escaped where it would start an interpolation
/// (`#{`, `#$`, `#@`).
fn write_ruby_string_inspect(s: &str, out: &mut String) {
    use std::fmt::Write;
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '#' if matches!(chars.peek(), Some('{' | '$' | '@')) => out.push_str("\\#"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f || matches!(c, '\u{2028}' | '\u{2029}') => {
                write!(out, "\\u{:04X}", c as u32).unwrap()
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Ruby's `Symbol#inspect`: `:name` when the name is an identifier, an instance/class/global
/// variable name or an operator method name, else `:"..."` with string escapes.
fn write_ruby_symbol_inspect(s: &str, out: &mut String) {
    out.push(':');
    if symbol_is_simple(s) {
        out.push_str(s);
    } else {
        write_ruby_string_inspect(s, out);
    }
}

fn symbol_is_simple(s: &str) -> bool {
    const OPERATORS: &[&str] = &[
        "+", "-", "*", "/", "%", "**", "!", "!=", "!~", "==", "===", "=~", "<", "<=", ">", ">=",
        "<=>", "<<", ">>", "&", "|", "^", "~", "+@", "-@", "[]", "[]=", "`",
    ];
    if OPERATORS.contains(&s) {
        return true;
    }
    let ident_start = |c: char| c == '_' || c.is_ascii_alphabetic() || !c.is_ascii();
    let ident_char = |c: char| ident_start(c) || c.is_ascii_digit();
    let is_ident = |t: &str| {
        let mut cs = t.chars();
        cs.next().is_some_and(ident_start) && cs.all(ident_char)
    };
    if let Some(rest) = s.strip_prefix("@@").or_else(|| s.strip_prefix('@')) {
        return is_ident(rest);
    }
    if let Some(rest) = s.strip_prefix('$') {
        let special = rest.len() == 1 && "~*$?!@/\\;,.=:<>\"&`'+0_".contains(rest)
            || (!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()));
        return special || is_ident(rest);
    }
    let body = s
        .strip_suffix('?')
        .or_else(|| s.strip_suffix('!'))
        .or_else(|| s.strip_suffix('='))
        .unwrap_or(s);
    is_ident(body)
}

impl PartialEq for Value {
    /// Ruby `eql?`: no numeric coercion between Integer and Float.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Undef, Value::Undef) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Integer(a), Value::Integer(b)) => a == b,
            (Value::BigInt(a), Value::BigInt(b)) => a == b,
            // Sensitive does not override `eql?`: an instance equals only itself.
            (Value::Sensitive(a), Value::Sensitive(b)) => Arc::ptr_eq(a, b),
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits() || a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Symbol(a), Value::Symbol(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => Arc::ptr_eq(a, b) || a == b,
            (Value::Hash(a), Value::Hash(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.len() == b.len() && a.iter().all(|(k, v)| b.get(k) == Some(v)))
            }
            _ => false,
        }
    }
}

impl Eq for Value {}

impl StdHash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Value::Undef => {}
            Value::Bool(b) => b.hash(state),
            Value::Integer(i) => i.hash(state),
            Value::BigInt(i) => i.hash(state),
            Value::Sensitive(v) => (Arc::as_ptr(v) as usize).hash(state),
            Value::Float(f) => {
                // -0.0 eql? 0.0 in Ruby, so both must hash alike.
                let f = if *f == 0.0 { 0.0 } else { *f };
                f.to_bits().hash(state)
            }
            Value::String(s) | Value::Symbol(s) => s.hash(state),
            Value::Array(a) => {
                a.len().hash(state);
                for v in a.iter() {
                    v.hash(state);
                }
            }
            // Order-independent, as Ruby's Hash#hash.
            Value::Hash(h) => {
                h.len().hash(state);
                let mut acc: u64 = 0;
                for (k, v) in h.iter() {
                    let mut hs = std::collections::hash_map::DefaultHasher::new();
                    k.hash(&mut hs);
                    v.hash(&mut hs);
                    acc = acc.wrapping_add(hs.finish());
                }
                acc.hash(state);
            }
        }
    }
}

/// A `&str` looked up in a [`Hash`] as the `Value::String` key it spells, without making that
/// key (`Value::string` allocates one): hashed exactly as `Value::String` hashes, equal only to
/// a String (not a Symbol) with the same text. Scope probes and sub-key digs look up a key per
/// segment of every variable a hierarchy reads.
pub struct StrKey<'a>(pub &'a str);

impl StdHash for StrKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        static STRING: std::sync::LazyLock<std::mem::Discriminant<Value>> =
            std::sync::LazyLock::new(|| std::mem::discriminant(&Value::string("")));
        STRING.hash(state);
        self.0.hash(state);
    }
}

impl indexmap::Equivalent<Value> for StrKey<'_> {
    fn equivalent(&self, key: &Value) -> bool {
        matches!(key, Value::String(s) if **s == *self.0)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_ruby_s())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::string(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_keys_find_string_keys_only() {
        let mut h = Hash::default();
        for (i, k) in ["role", "", "é", "networking", "a.b"].iter().enumerate() {
            h.insert(Value::string(*k), Value::Integer(i as i64));
        }
        h.insert(Value::Symbol("sym".into()), Value::Integer(9));
        h.insert(Value::Integer(7), Value::Integer(10));
        for (i, k) in ["role", "", "é", "networking", "a.b"].iter().enumerate() {
            assert_eq!(h.get(&StrKey(k)), Some(&Value::Integer(i as i64)), "{k}");
        }
        // A Symbol key with the same text is another key (Ruby `eql?`), as is an Integer.
        assert_eq!(h.get(&StrKey("sym")), None);
        assert_eq!(h.get(&StrKey("7")), None);
        assert_eq!(h.get(&StrKey("rol")), None);
    }

    #[test]
    fn eql_distinguishes_numeric_types() {
        assert_ne!(Value::Integer(1), Value::Float(1.0));
        assert_ne!(Value::Integer(1), Value::string("1"));
        assert_eq!(Value::Float(0.0), Value::Float(-0.0));
    }

    #[test]
    fn ruby_inspect_matches_ruby_3_1() {
        let mut h = Hash::default();
        h.insert(
            Value::string("k"),
            Value::array(vec![Value::Integer(1), Value::Undef]),
        );
        h.insert(Value::Integer(6), Value::Float(2.5));
        assert_eq!(Value::hash(h).ruby_inspect(), r#"{"k"=>[1, nil], 6=>2.5}"#);
        assert_eq!(ruby_float_to_s(1000.0), "1000.0");
        assert_eq!(ruby_float_to_s(1e20), "1.0e+20");
        assert_eq!(ruby_float_to_s(1.5e-5), "1.5e-05");
        assert_eq!(ruby_float_to_s(f64::INFINITY), "Infinity");
        assert_eq!(ruby_float_to_s(1e15), "1.0e+15");
        assert_eq!(ruby_float_to_s(123456789012345.0), "123456789012345.0");
        assert_eq!(ruby_float_to_s(1e-4), "0.0001");
        assert_eq!(ruby_float_to_s(1e-5), "1.0e-05");
        // Recorded with `ruby -e 'p "\x01\x7f\f\v\b\a\e#\#{a}\#$b\#@c#x\u2028é"'`.
        assert_eq!(
            Value::string("\u{1}\u{7f}\u{c}\u{b}\u{8}\u{7}\u{1b}##{a}#$b#@c#x\u{2028}é")
                .ruby_inspect(),
            r#""\u0001\u007F\f\v\b\a\e#\#{a}\#$b\#@c#x\u2028é""#
        );
    }
}

#[cfg(test)]
mod size {
    /// The tree is most of a loaded file's memory, and its construction most of the loading
    /// time (Vec growth copies entries): keep nodes small.
    #[test]
    fn nodes_stay_small() {
        assert!(std::mem::size_of::<super::Node>() <= 88);
        assert!(std::mem::size_of::<super::Entry>() <= 184);
    }
}

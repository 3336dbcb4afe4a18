//! Puppet's struct assertion of hiera.yaml, ported: the v5, v4 and v3 schema types and the part of
//! Puppet's `TypeMismatchDescriber` those types exercise, so every mismatch is reported with
//! Puppet's exact text and a span.
//!
//! Puppet (`hiera_config.rb` `validate_config`) asserts the whole (defaults-filled) config against
//! a `Struct` type and raises one `TypeAssertionError` listing every mismatch, one per line, each
//! prefixed by `The Lookup Configuration at '<path>' has wrong type,` (reference §1.2). The
//! describer walks the expected type and the value's *inferred* type: strings, numbers, arrays
//! (`Tuple`, or `Array` when empty) and hashes (`Struct` when every key is a non-empty string,
//! else `Hash`). Mismatch order, path wording (`entry 'x'`, `index 0`, `variant 1`,
//! `key of entry 'x'`), the merging of variant mismatches and the `a`/`an` article follow
//! `pops/types/type_mismatch_describer.rb` (Puppet 7.23); every message shape here was recorded
//! (fixtures/hiera-config/corpus.json).
//!
//! One shape is approximated: when the actual value is a hash with a non-string or empty key
//! Puppet prints its full inferred type (`Hash[Variant[Integer[1, 1], Enum['a']], ...]`), which
//! depends on Puppet's type normalisation; we print `Hash` there ([`Mismatch::exact`] is false).

use crate::span::Span;
use crate::value::{Node, NodeKind, Value};

/// The option-name pattern, with Puppet's `(:?` typo (reference §1.2).
pub const OPTION_NAME_PATTERN: &str = r"\A[A-Za-z](:?[0-9A-Za-z_-]*[0-9A-Za-z])?\z";

/// Whether `s` is a valid option name for Puppet's pattern (the `(:?` typo lets a `:` be the
/// second character).
pub fn is_option_name(s: &str) -> bool {
    let b = s.as_bytes();
    let Some((&first, rest)) = b.split_first() else {
        return false;
    };
    if !first.is_ascii_alphabetic() {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    // `(:?[0-9A-Za-z_-]*[0-9A-Za-z])?`: an optional ':' then word chars/dashes ending in alnum.
    let rest = rest.strip_prefix(b":").unwrap_or(rest);
    let Some((&last, middle)) = rest.split_last() else {
        return false;
    };
    last.is_ascii_alphanumeric()
        && middle
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
}

/// The schema types hiera.yaml is asserted against.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `Integer[n, n]`
    IntExact(i64),
    /// `String[1]`
    NeStr,
    /// `String`
    Str,
    /// `Boolean`
    Bool,
    /// `Any`
    Any,
    /// `Pattern[/OPTION_NAME_PATTERN/]`
    OptionName,
    /// `Enum['a', 'b']`
    Enum(&'static [&'static str]),
    /// `Array[T, min, max]` (`max` None: unbounded).
    Array(Box<Ty>, u64, Option<u64>),
    /// `Hash[K, V]` (no size constraint in these schemas).
    Hash(Box<Ty>, Box<Ty>),
    /// `Struct[{...}]`
    Struct(Vec<StructElem>),
    /// `Variant[...]`
    Variant(Vec<Ty>),
    /// The `Data` alias, which Puppet resolves to
    /// `Variant[ScalarData, Undef, Hash[String, Data], Array[Data]]`.
    Data,
    /// The `ScalarData` alias (`Variant[Integer, Float, String, Boolean]`).
    ScalarData,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructElem {
    pub name: String,
    pub required: bool,
    pub ty: Ty,
}

fn req(name: &str, ty: Ty) -> StructElem {
    StructElem {
        name: name.into(),
        required: true,
        ty,
    }
}

fn opt(name: &str, ty: Ty) -> StructElem {
    StructElem {
        name: name.into(),
        required: false,
        ty,
    }
}

fn options_t() -> Ty {
    Ty::Hash(Box::new(Ty::OptionName), Box::new(Ty::Data))
}

fn ne_array(min: u64, max: Option<u64>) -> Ty {
    Ty::Array(Box::new(Ty::NeStr), min, max)
}

/// The v5 hierarchy entry struct (`hiera_config.rb` HieraConfigV5.config_type), in Puppet's
/// element order (which is the order mismatches are reported in).
pub fn v5_entry() -> Ty {
    Ty::Struct(vec![
        req("name", Ty::NeStr),
        opt("options", options_t()),
        opt("data_hash", Ty::NeStr),
        opt("lookup_key", Ty::NeStr),
        opt("hiera3_backend", Ty::NeStr),
        opt("v4_data_hash", Ty::NeStr),
        opt("data_dig", Ty::NeStr),
        opt("path", Ty::NeStr),
        opt("paths", ne_array(1, None)),
        opt("glob", Ty::NeStr),
        opt("globs", ne_array(1, None)),
        opt("uri", Ty::NeStr),
        opt("uris", ne_array(1, None)),
        opt("mapped_paths", ne_array(3, Some(3))),
        opt("datadir", Ty::NeStr),
    ])
}

/// The v5 config struct.
pub fn v5_config() -> Ty {
    let hierarchy = Ty::Array(Box::new(v5_entry()), 0, None);
    Ty::Struct(vec![
        req("version", Ty::IntExact(5)),
        opt(
            "defaults",
            Ty::Struct(vec![
                opt("data_hash", Ty::NeStr),
                opt("lookup_key", Ty::NeStr),
                opt("data_dig", Ty::NeStr),
                opt("datadir", Ty::NeStr),
                opt("options", options_t()),
            ]),
        ),
        opt("hierarchy", hierarchy.clone()),
        opt("plan_hierarchy", hierarchy.clone()),
        opt("default_hierarchy", hierarchy),
    ])
}

/// The v4 config struct.
pub fn v4_config() -> Ty {
    Ty::Struct(vec![
        req("version", Ty::IntExact(4)),
        opt("datadir", Ty::NeStr),
        opt(
            "hierarchy",
            Ty::Array(
                Box::new(Ty::Struct(vec![
                    req("backend", Ty::NeStr),
                    req("name", Ty::NeStr),
                    opt("datadir", Ty::NeStr),
                    opt("path", Ty::NeStr),
                    opt("paths", ne_array(0, None)),
                ])),
                0,
                None,
            ),
        ),
    ])
}

/// The v3 config struct; `backends` are the backend names (each may have a hash of its own).
pub fn v3_config(backends: &[&str]) -> Ty {
    let str_or_array = || Ty::Variant(vec![Ty::NeStr, ne_array(0, None)]);
    let mut elems = vec![
        opt("version", Ty::IntExact(3)),
        opt("backends", str_or_array()),
        opt("logger", Ty::NeStr),
        opt("merge_behavior", Ty::Enum(&["deep", "deeper", "native"])),
        opt(
            "deep_merge_options",
            Ty::Hash(
                Box::new(Ty::NeStr),
                Box::new(Ty::Variant(vec![Ty::Str, Ty::Bool])),
            ),
        ),
        opt("hierarchy", str_or_array()),
    ];
    for b in backends {
        if elems.iter().any(|e| e.name == *b) {
            // A backend named like a config key: Ruby's Hash#merge replaces the element.
            if let Some(e) = elems.iter_mut().find(|e| e.name == *b) {
                e.ty = Ty::Hash(Box::new(Ty::NeStr), Box::new(Ty::Any));
            }
            continue;
        }
        elems.push(opt(b, Ty::Hash(Box::new(Ty::NeStr), Box::new(Ty::Any))));
    }
    Ty::Struct(elems)
}

impl Ty {
    /// Puppet's `to_s` of the type (`to_alias_expanded_s` for the types here).
    pub fn to_puppet(&self) -> String {
        match self {
            Ty::IntExact(n) => format!("Integer[{n}, {n}]"),
            Ty::NeStr => "String[1]".into(),
            Ty::Str => "String".into(),
            Ty::Bool => "Boolean".into(),
            Ty::Any => "Any".into(),
            Ty::OptionName => format!("Pattern[/{OPTION_NAME_PATTERN}/]"),
            Ty::Enum(vals) => format!(
                "Enum[{}]",
                vals.iter()
                    .map(|v| format!("'{v}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Ty::Array(e, min, max) => match (min, max) {
                (0, None) => format!("Array[{}]", e.to_puppet()),
                (m, None) => format!("Array[{}, {m}]", e.to_puppet()),
                (m, Some(x)) => format!("Array[{}, {m}, {x}]", e.to_puppet()),
            },
            Ty::Hash(k, v) => format!("Hash[{}, {}]", k.to_puppet(), v.to_puppet()),
            Ty::Struct(elems) => {
                let parts: Vec<String> = elems
                    .iter()
                    .map(|e| {
                        let k = if e.required {
                            format!("'{}'", e.name)
                        } else {
                            format!("Optional['{}']", e.name)
                        };
                        format!("{k} => {}", e.ty.to_puppet())
                    })
                    .collect();
                format!("Struct[{{{}}}]", parts.join(", "))
            }
            Ty::Variant(ts) => format!(
                "Variant[{}]",
                ts.iter().map(Ty::to_puppet).collect::<Vec<_>>().join(", ")
            ),
            Ty::Data => "Data".into(),
            Ty::ScalarData => "ScalarData".into(),
        }
    }

    /// Puppet's `short_name` (the type's name without parameters).
    fn short_name(&self) -> &'static str {
        match self {
            Ty::IntExact(_) => "Integer",
            Ty::NeStr | Ty::Str => "String",
            Ty::Bool => "Boolean",
            Ty::Any => "Any",
            Ty::OptionName => "Pattern",
            Ty::Enum(_) => "Enum",
            Ty::Array(..) => "Array",
            Ty::Hash(..) => "Hash",
            Ty::Struct(_) => "Struct",
            Ty::Variant(_) => "Variant",
            Ty::Data => "Data",
            Ty::ScalarData => "ScalarData",
        }
    }

    fn is_alias(&self) -> bool {
        matches!(self, Ty::Data | Ty::ScalarData)
    }

    /// `e.class::DEFAULT.assignable?(a)` for the describer's `report_detailed?`.
    fn default_assignable(&self, a: &Actual) -> bool {
        match self {
            Ty::IntExact(_) => matches!(a, Actual::Int(_)),
            Ty::NeStr | Ty::Str => matches!(a, Actual::Str(_)),
            Ty::Bool => matches!(a, Actual::Bool),
            Ty::Any => true,
            Ty::Array(..) => matches!(a, Actual::Tuple | Actual::EmptyArray),
            Ty::Hash(..) => matches!(a, Actual::Struct | Actual::Hash),
            // Only reached for actuals that are neither Struct nor Hash (those take the
            // `specialization` branch), which `Struct[{}]` never accepts.
            Ty::Struct(_) => false,
            Ty::OptionName | Ty::Enum(_) => matches!(a, Actual::Str(_)),
            Ty::Variant(_) | Ty::Data | Ty::ScalarData => false,
        }
    }

    /// `e.class == a.class || specialization(e, a)` (aliases are handled by the caller).
    fn same_class(&self, a: &Actual) -> bool {
        match self {
            Ty::IntExact(_) => matches!(a, Actual::Int(_)),
            Ty::NeStr | Ty::Str => matches!(a, Actual::Str(_)),
            Ty::Bool => matches!(a, Actual::Bool),
            Ty::Array(..) => matches!(a, Actual::EmptyArray),
            Ty::Hash(..) => matches!(a, Actual::Hash),
            // Struct is a specialization of Hash (describer `specialization`).
            Ty::Struct(_) => matches!(a, Actual::Struct | Actual::Hash),
            _ => false,
        }
    }
}

/// The inferred type of a value, at the granularity messages print.
#[derive(Clone, Debug, PartialEq)]
pub enum Actual {
    Undef,
    Bool,
    Int(i64),
    Float,
    Str(String),
    /// A Ruby Symbol: `Runtime[ruby, 'Symbol']`.
    Runtime,
    /// A non-empty array.
    Tuple,
    /// An empty array: `Array[0, 0]`.
    EmptyArray,
    /// A non-empty hash whose keys are all non-empty strings.
    Struct,
    /// Any other hash (empty, or with a non-string or empty key). The bool is "empty".
    Hash,
}

impl Actual {
    fn short_name(&self) -> &'static str {
        match self {
            Actual::Undef => "Undef",
            Actual::Bool => "Boolean",
            Actual::Int(_) => "Integer",
            Actual::Float => "Float",
            Actual::Str(_) => "String",
            Actual::Runtime => "Runtime",
            Actual::Tuple => "Tuple",
            Actual::EmptyArray => "Array",
            Actual::Struct => "Struct",
            Actual::Hash => "Hash",
        }
    }

    /// `to_alias_expanded_s` of the (normalized) inferred type. Exact except for `Hash` (see
    /// the module docs).
    fn detailed(&self) -> String {
        match self {
            Actual::Int(n) => format!("Integer[{n}, {n}]"),
            Actual::EmptyArray => "Array[0, 0]".into(),
            other => other.short_name().into(),
        }
    }
}

/// Puppet's view of a node: the value with Symbol keys turned into strings (`symkeys_to_string`).
pub fn actual_of(node: &Node) -> Actual {
    match &node.kind {
        NodeKind::Scalar(s) => match &s.value {
            Value::Undef => Actual::Undef,
            Value::Bool(_) => Actual::Bool,
            Value::Integer(i) => Actual::Int(*i),
            // Only the sign matters to the schema's range messages.
            Value::BigInt(i) => Actual::Int(if i.sign() == num_bigint::Sign::Minus {
                i64::MIN
            } else {
                i64::MAX
            }),
            Value::Float(_) => Actual::Float,
            Value::String(t) => Actual::Str(t.to_string()),
            Value::Symbol(_) => Actual::Runtime,
            // A scalar node never holds a container value.
            Value::Array(_) => Actual::Tuple,
            Value::Hash(_) => Actual::Hash,
            // Loaders never produce it.
            Value::Sensitive(_) => Actual::Runtime,
        },
        NodeKind::Seq(items) if items.is_empty() => Actual::EmptyArray,
        NodeKind::Seq(_) => Actual::Tuple,
        NodeKind::Map(m) => {
            let entries = effective_entries(node);
            if m.entries.is_empty() || entries.is_empty() {
                Actual::Hash
            } else if entries
                .iter()
                .all(|(k, _, _)| matches!(k, Key::Str(s) if !s.is_empty()))
            {
                Actual::Struct
            } else {
                Actual::Hash
            }
        }
    }
}

/// A mapping key as Puppet sees it after `symkeys_to_string`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Str(String),
    /// Any other key, with its Ruby `to_s`.
    Other(String),
}

impl Key {
    pub fn of(node: &Node) -> Key {
        match &node.kind {
            NodeKind::Scalar(s) => match &s.value {
                Value::String(t) | Value::Symbol(t) => Key::Str(t.to_string()),
                v => Key::Other(v.to_ruby_s()),
            },
            _ => Key::Other(node.to_value().to_ruby_s()),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Key::Str(s) => Some(s),
            Key::Other(_) => None,
        }
    }

    /// Ruby `to_s` of the key.
    pub fn text(&self) -> &str {
        match self {
            Key::Str(s) | Key::Other(s) => s,
        }
    }
}

/// The entries of a mapping as Ruby's Hash holds them: one per distinct key (after Symbol keys
/// become strings), at the position of its first occurrence, with the last value (Psych assigns
/// `hash[key] = value` in order). Each item is (key, key node, value node) where the key node is
/// the first occurrence (its position) and the value is the last one.
pub fn effective_entries(node: &Node) -> Vec<(Key, &Node, &Node)> {
    let Some(m) = node.as_map() else {
        return Vec::new();
    };
    let mut out: Vec<(Key, &Node, &Node)> = Vec::with_capacity(m.entries.len());
    let mut index: std::collections::HashMap<Key, usize> = std::collections::HashMap::new();
    for e in &m.entries {
        let k = Key::of(&e.key);
        match index.get(&k) {
            Some(&i) => out[i].2 = &e.value,
            None => {
                index.insert(k.clone(), out.len());
                out.push((k, &e.key, &e.value));
            }
        }
    }
    out
}

/// Where a mismatch is, as Puppet's path elements.
#[derive(Clone, Debug, PartialEq)]
pub enum PathElem {
    Entry(String),
    EntryKey(String),
    Index(usize),
    Variant(usize),
}

impl PathElem {
    fn text(&self) -> String {
        match self {
            PathElem::Entry(k) => format!("entry '{k}'"),
            PathElem::EntryKey(k) => format!("key of entry '{k}'"),
            PathElem::Index(i) => format!("index {i}"),
            PathElem::Variant(i) => format!("variant {i}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum MismatchKind {
    /// `expects a value for key 'k'`
    MissingKey(String),
    /// `unrecognized key 'k'`
    ExtraneousKey(String),
    /// `expects a/an E value, got A` (E may be several types after a variant merge).
    Type { expected: Vec<Ty>, actual: Actual },
    /// `expects a match for P, got 'x'`
    Pattern { expected: Ty, actual: Actual },
    /// `expects size to be R, got N`
    Size {
        min: u64,
        max: Option<u64>,
        actual: u64,
    },
}

/// One line of Puppet's type assertion error.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub path: Vec<PathElem>,
    pub kind: MismatchKind,
    /// The node the mismatch is about (the value, the key, or the hash missing a key).
    pub span: Span,
    /// True when the span is a key's (unrecognized key, bad option name).
    pub on_key: bool,
    /// Puppet's describer produces no text for it (see the `Struct` vs `Hash` case).
    pub silent: bool,
}

impl Mismatch {
    fn canonical(&self) -> Vec<&PathElem> {
        self.path
            .iter()
            .filter(|p| !matches!(p, PathElem::Variant(_)))
            .collect()
    }

    fn same(&self, o: &Mismatch) -> bool {
        self.canonical() == o.canonical() && self.kind == o.kind
    }

    /// Whether Puppet's text is reproduced exactly (see the module docs).
    pub fn exact(&self) -> bool {
        match &self.kind {
            MismatchKind::Type { expected, actual } => {
                !(matches!(actual, Actual::Hash) && self.detailed(expected, actual))
            }
            _ => true,
        }
    }

    /// `report_detailed?(e, a)`.
    fn detailed(&self, expected: &[Ty], actual: &Actual) -> bool {
        expected
            .iter()
            .any(|e| e.is_alias() || e.same_class(actual) || e.default_assignable(actual))
    }

    /// The text after the subject: ` entry 'hierarchy' index 0 expects ...`.
    pub fn describe(&self) -> String {
        let mut position = String::new();
        for p in &self.path {
            position.push(' ');
            position.push_str(&p.text());
        }
        match &self.kind {
            MismatchKind::MissingKey(k) => format!("{position} expects a value for key '{k}'"),
            MismatchKind::ExtraneousKey(k) => format!("{position} unrecognized key '{k}'"),
            MismatchKind::Size { min, max, actual } => format!(
                "{position} expects size to be {}, got {}",
                range_to_s(*min, *max),
                if *actual == 0 {
                    "0".to_string()
                } else {
                    actual.to_string()
                }
            ),
            MismatchKind::Pattern { expected, actual } => {
                let a = match actual {
                    Actual::Str(s) => format!("'{s}'"),
                    other => other.short_name().to_string(),
                };
                format!(
                    "{position} expects a match for {}, got {a}",
                    expected.to_puppet()
                )
            }
            MismatchKind::Type { expected, actual } => {
                let (es, a): (Vec<String>, String) = if self.detailed(expected, actual) {
                    // detailed_actual_to_s: an alias resolves to a Variant, never the same
                    // class as the actual, and nothing here is assignable after generalizing,
                    // so aliases print the simple name.
                    let a = if expected.iter().all(Ty::is_alias) {
                        actual.short_name().to_string()
                    } else {
                        actual.detailed()
                    };
                    (expected.iter().map(Ty::to_puppet).collect(), a)
                } else {
                    let mut names: Vec<String> = Vec::new();
                    for e in expected {
                        let n = e.short_name().to_string();
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                    (names, actual.short_name().to_string())
                };
                match es.len() {
                    0 => format!("{position} expects a value, got {a}"),
                    1 => format!("{position} expects {} value, got {a}", a_an(&es[0])),
                    2 => format!(
                        "{position} expects a value of type {} or {}, got {a}",
                        es[0], es[1]
                    ),
                    n => format!(
                        "{position} expects a value of type {}, or {}, got {a}",
                        es[..n - 1].join(", "),
                        es[n - 1]
                    ),
                }
            }
        }
    }
}

fn range_to_s(min: u64, max: Option<u64>) -> String {
    match max {
        Some(x) if x == min => {
            if min == 0 {
                "0".into()
            } else {
                min.to_string()
            }
        }
        None if min == 0 => "unlimited".into(),
        Some(x) if min == 0 => format!("at most {x}"),
        None => format!("at least {min}"),
        Some(x) => format!("between {min} and {x}"),
    }
}

/// `LabelProvider#a_an`: `an` before a, e, i, o, u, y (quotes skipped).
pub fn a_an(s: &str) -> String {
    let first = s
        .chars()
        .find(|c| *c != '"' && *c != '\'')
        .map(|c| c.to_ascii_lowercase());
    let article = match first {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'y') => "an",
        _ => "a",
    };
    format!("{article} {s}")
}

/// Depth limit for walking option values (untrusted nesting).
const MAX_DEPTH: usize = 64;

/// `expected.instance?(value)`.
pub fn matches(ty: &Ty, node: &Node) -> bool {
    matches_depth(ty, node, 0)
}

fn matches_depth(ty: &Ty, node: &Node, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let a = actual_of(node);
    match ty {
        Ty::IntExact(n) => a == Actual::Int(*n),
        Ty::NeStr => matches!(&a, Actual::Str(s) if !s.is_empty()),
        Ty::Str => matches!(a, Actual::Str(_)),
        Ty::Bool => matches!(a, Actual::Bool),
        Ty::Any => true,
        Ty::OptionName => matches!(&a, Actual::Str(s) if is_option_name(s)),
        Ty::Enum(vals) => matches!(&a, Actual::Str(s) if vals.contains(&s.as_str())),
        Ty::Array(e, min, max) => match node.as_seq() {
            Some(items) => {
                let n = items.len() as u64;
                n >= *min
                    && max.is_none_or(|x| n <= x)
                    && items.iter().all(|i| matches_depth(e, i, depth + 1))
            }
            None => false,
        },
        Ty::Hash(k, v) => {
            node.as_map().is_some()
                && effective_entries(node)
                    .iter()
                    .all(|(key, _, val)| key_matches(k, key) && matches_depth(v, val, depth + 1))
        }
        Ty::Struct(elems) => {
            if node.as_map().is_none() {
                return false;
            }
            let entries = effective_entries(node);
            elems.iter().all(|e| {
                match entries
                    .iter()
                    .find(|(k, _, _)| k.as_str() == Some(e.name.as_str()))
                {
                    Some((_, _, v)) => matches_depth(&e.ty, v, depth + 1),
                    None => !e.required,
                }
            }) && entries
                .iter()
                .all(|(k, _, _)| elems.iter().any(|e| k.as_str() == Some(e.name.as_str())))
        }
        Ty::Variant(ts) => ts.iter().any(|t| matches_depth(t, node, depth)),
        Ty::ScalarData => matches!(
            a,
            Actual::Int(_) | Actual::Float | Actual::Str(_) | Actual::Bool
        ),
        Ty::Data => match &node.kind {
            NodeKind::Scalar(_) => !matches!(a, Actual::Runtime),
            NodeKind::Seq(items) => items.iter().all(|i| matches_depth(ty, i, depth + 1)),
            NodeKind::Map(_) => effective_entries(node)
                .iter()
                .all(|(k, _, v)| matches!(k, Key::Str(_)) && matches_depth(ty, v, depth + 1)),
        },
    }
}

fn key_matches(ty: &Ty, key: &Key) -> bool {
    match (ty, key) {
        (Ty::Any, _) => true,
        (Ty::Str, Key::Str(_)) => true,
        (Ty::NeStr, Key::Str(s)) => !s.is_empty(),
        (Ty::OptionName, Key::Str(s)) => is_option_name(s),
        _ => false,
    }
}

/// `describe(expected, actual, path)`: the mismatches of `node` against `ty`, in Puppet's order.
pub fn describe(ty: &Ty, node: &Node, path: &[PathElem]) -> Vec<Mismatch> {
    describe_depth(ty, node, path, 0)
}

fn type_mismatch(path: &[PathElem], ty: &Ty, node: &Node) -> Mismatch {
    Mismatch {
        path: path.to_vec(),
        kind: MismatchKind::Type {
            expected: vec![ty.clone()],
            actual: actual_of(node),
        },
        span: node.span,
        on_key: false,
        silent: false,
    }
}

fn with(path: &[PathElem], e: PathElem) -> Vec<PathElem> {
    let mut p = path.to_vec();
    p.push(e);
    p
}

fn describe_depth(ty: &Ty, node: &Node, path: &[PathElem], depth: usize) -> Vec<Mismatch> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    let actual = actual_of(node);
    match ty {
        Ty::Variant(ts) => describe_variant(ty, ts, node, path, depth),
        Ty::Data => {
            // Data normalizes to Variant[ScalarData, Hash[String, Data], Array[Data]] (Undef is
            // folded in as optional): recorded messages name these three variants.
            let ts = [
                Ty::ScalarData,
                Ty::Hash(Box::new(Ty::Str), Box::new(Ty::Data)),
                Ty::Array(Box::new(Ty::Data), 0, None),
            ];
            describe_variant(ty, &ts, node, path, depth)
        }
        Ty::ScalarData => vec![type_mismatch(path, ty, node)],
        Ty::Struct(elems) => match actual {
            Actual::Struct => {
                let entries = effective_entries(node);
                let mut out = Vec::new();
                for e in elems {
                    match entries
                        .iter()
                        .find(|(k, _, _)| k.as_str() == Some(e.name.as_str()))
                    {
                        None if e.required => out.push(Mismatch {
                            path: path.to_vec(),
                            kind: MismatchKind::MissingKey(e.name.clone()),
                            span: node.span,
                            on_key: false,
                            silent: false,
                        }),
                        Some((_, _, v)) if !matches_depth(&e.ty, v, depth + 1) => {
                            out.extend(describe_depth(
                                &e.ty,
                                v,
                                &with(path, PathElem::Entry(e.name.clone())),
                                depth + 1,
                            ));
                        }
                        _ => {}
                    }
                }
                for (k, kn, _) in &entries {
                    if !elems.iter().any(|e| k.as_str() == Some(e.name.as_str())) {
                        out.push(Mismatch {
                            path: path.to_vec(),
                            kind: MismatchKind::ExtraneousKey(k.text().into()),
                            span: kn.span,
                            on_key: true,
                            silent: false,
                        });
                    }
                }
                out
            }
            Actual::Hash => {
                let n = effective_entries(node).len() as u64;
                let required = elems.iter().filter(|e| e.required).count() as u64;
                let total = elems.len() as u64;
                if required == 0 && n <= total {
                    // `PStructType#_assignable?` accepts any Hash type of a fitting size when
                    // every element is optional, so the describer finds nothing although the
                    // value is not an instance: Puppet raises an empty message (recorded:
                    // corpus `top defaults = nonstring_key_hash`).
                    let mut m = type_mismatch(path, ty, node);
                    m.silent = true;
                    vec![m]
                } else if n >= required && n <= total {
                    vec![type_mismatch(path, ty, node)]
                } else {
                    vec![Mismatch {
                        path: path.to_vec(),
                        kind: MismatchKind::Size {
                            min: required,
                            max: Some(total),
                            actual: n,
                        },
                        span: node.span,
                        on_key: false,
                        silent: false,
                    }]
                }
            }
            _ => vec![type_mismatch(path, ty, node)],
        },
        Ty::Hash(kt, vt) => match actual {
            Actual::Struct => {
                let mut out = Vec::new();
                for (k, kn, v) in effective_entries(node) {
                    let name = k.text().to_string();
                    if !key_matches(kt, &k) {
                        let kp = with(path, PathElem::EntryKey(name.clone()));
                        let mut ms = describe_key(kt, &k, kn, &kp);
                        out.append(&mut ms);
                    }
                    if !matches_depth(vt, v, depth + 1) {
                        out.extend(describe_depth(
                            vt,
                            v,
                            &with(path, PathElem::Entry(name)),
                            depth + 1,
                        ));
                    }
                }
                out
            }
            _ => vec![type_mismatch(path, ty, node)],
        },
        Ty::Array(et, min, max) => match node.as_seq() {
            Some(items) => {
                let n = items.len() as u64;
                if n < *min || max.is_some_and(|x| n > x) {
                    return vec![Mismatch {
                        path: path.to_vec(),
                        kind: MismatchKind::Size {
                            min: *min,
                            max: *max,
                            actual: n,
                        },
                        span: node.span,
                        on_key: false,
                        silent: false,
                    }];
                }
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if !matches_depth(et, item, depth + 1) {
                        out.extend(describe_depth(
                            et,
                            item,
                            &with(path, PathElem::Index(i)),
                            depth + 1,
                        ));
                    }
                }
                out
            }
            None => vec![type_mismatch(path, ty, node)],
        },
        Ty::OptionName | Ty::Enum(_) => vec![Mismatch {
            path: path.to_vec(),
            kind: MismatchKind::Pattern {
                expected: ty.clone(),
                actual,
            },
            span: node.span,
            on_key: false,
            silent: false,
        }],
        Ty::IntExact(_) | Ty::NeStr | Ty::Str | Ty::Bool | Ty::Any => {
            vec![type_mismatch(path, ty, node)]
        }
    }
}

/// A key that fails the hash's key type (only option names and `String[1]` keys here).
fn describe_key(kt: &Ty, k: &Key, kn: &Node, path: &[PathElem]) -> Vec<Mismatch> {
    let actual = match k {
        Key::Str(s) => Actual::Str(s.clone()),
        Key::Other(_) => actual_of(kn),
    };
    let kind = match kt {
        Ty::OptionName | Ty::Enum(_) => MismatchKind::Pattern {
            expected: kt.clone(),
            actual,
        },
        _ => MismatchKind::Type {
            expected: vec![kt.clone()],
            actual,
        },
    };
    vec![Mismatch {
        path: path.to_vec(),
        kind,
        span: kn.span,
        on_key: true,
        silent: false,
    }]
}

/// `describe_PVariantType` + `merge_descriptions` (+ the alias collapse for `Data`).
fn describe_variant(
    original: &Ty,
    ts: &[Ty],
    node: &Node,
    path: &[PathElem],
    depth: usize,
) -> Vec<Mismatch> {
    let mut variant_descriptions: Vec<Vec<Mismatch>> = Vec::new();
    for (i, t) in ts.iter().enumerate() {
        let d = describe_depth(t, node, &with(path, PathElem::Variant(i)), depth + 1);
        if d.is_empty() {
            return Vec::new();
        }
        variant_descriptions.push(d);
    }
    let n_variants = variant_descriptions.len();
    let mut descriptions: Vec<Mismatch> = variant_descriptions.into_iter().flatten().collect();
    // Size mismatches first, then type mismatches (PatternMismatch is a TypeMismatch).
    for class in 0..2 {
        let of_class: Vec<&Mismatch> = descriptions
            .iter()
            .filter(|d| match class {
                0 => matches!(d.kind, MismatchKind::Size { .. }),
                _ => matches!(
                    d.kind,
                    MismatchKind::Type { .. } | MismatchKind::Pattern { .. }
                ),
            })
            .collect();
        if of_class.len() == n_variants && !of_class.is_empty() {
            let canon = of_class[0].canonical();
            if of_class.iter().all(|m| m.canonical() == canon) {
                let mut generic = of_class[0].clone();
                for m in &of_class[1..] {
                    generic = merge_mismatch(&generic, m);
                }
                descriptions = vec![generic];
                break;
            }
        }
    }
    let mut uniq: Vec<Mismatch> = Vec::new();
    for d in descriptions {
        if !uniq.iter().any(|u| u.same(&d)) {
            uniq.push(d);
        }
    }
    if uniq.len() == 1 {
        let mut only = uniq
            .pop()
            .unwrap_or_else(|| type_mismatch(path, original, node));
        if only.path.len() > path.len() {
            only.path.remove(path.len());
        }
        if original.is_alias() {
            // All variants failed in this alias: reported as a mismatch on the alias.
            return vec![type_mismatch(path, original, node)];
        }
        return vec![only];
    }
    uniq
}

fn merge_mismatch(a: &Mismatch, b: &Mismatch) -> Mismatch {
    let kind = match (&a.kind, &b.kind) {
        (
            MismatchKind::Type {
                expected: ea,
                actual,
            },
            MismatchKind::Type { expected: eb, .. },
        ) => {
            let mut expected = ea.clone();
            for e in eb {
                if !expected.contains(e) {
                    expected.push(e.clone());
                }
            }
            MismatchKind::Type {
                expected,
                actual: actual.clone(),
            }
        }
        (
            MismatchKind::Size {
                min: m1,
                max: x1,
                actual,
            },
            MismatchKind::Size {
                min: m2, max: x2, ..
            },
        ) => MismatchKind::Size {
            min: (*m1).min(*m2),
            max: match (x1, x2) {
                (Some(a), Some(b)) => Some((*a).max(*b)),
                _ => None,
            },
            actual: *actual,
        },
        (k, _) => k.clone(),
    };
    Mismatch {
        path: a.path.clone(),
        kind,
        span: a.span,
        on_key: a.on_key,
        silent: a.silent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_name_pattern_keeps_the_typo() {
        for ok in ["a", "a:b", "ab", "a-b_c", "Z9", "a:9"] {
            assert!(is_option_name(ok), "{ok}");
        }
        for bad in ["", "_x", "b-", "1a", "a b", "a:", "a::b", "ab:c", "a_"] {
            assert!(!is_option_name(bad), "{bad}");
        }
    }

    #[test]
    fn type_strings_match_puppet() {
        // Recorded: `HieraConfigV4.config_type.to_s` (Puppet 7.23).
        assert_eq!(
            v4_config().to_puppet(),
            "Struct[{'version' => Integer[4, 4], Optional['datadir'] => String[1], \
             Optional['hierarchy'] => Array[Struct[{'backend' => String[1], 'name' => String[1], \
             Optional['datadir'] => String[1], Optional['path'] => String[1], \
             Optional['paths'] => Array[String[1]]}]]}]"
        );
        assert!(v5_entry().to_puppet().starts_with(
            "Struct[{'name' => String[1], Optional['options'] => Hash[Pattern[/\\A[A-Za-z](:?[0-9A-Za-z_-]*[0-9A-Za-z])?\\z/], Data], Optional['data_hash'] => String[1]"
        ));
        assert_eq!(a_an("Integer"), "an Integer");
        assert_eq!(a_an("String[1]"), "a String[1]");
        assert_eq!(range_to_s(1, Some(15)), "between 1 and 15");
        assert_eq!(range_to_s(3, Some(3)), "3");
        assert_eq!(range_to_s(1, None), "at least 1");
    }
}

//! The slice of Puppet's type system the engine's error messages need: type inference
//! (`TypeCalculator#infer`/`#infer_set`), variant normalization, and the mismatch descriptions
//! of the types lookups check values against (`Hash[String, Data]` for hash merges,
//! `Variant[Scalar, Array[Data]]` for unique merges, `Hash` for data files).
//!
//! Puppet prints these in errors such as `The first element of the merge has wrong type,
//! expects a Hash[String, Data] value, got Hash[Integer[1, 1], String]` (recorded:
//! merge/hash-type-errors) and `... expects Puppet::LookupValue, got Hash[Boolean[true],
//! String, 1, 1]` (module/nested-keys). The rules were read from `types/types.rb`,
//! `type_calculator.rb` and `type_mismatch_describer.rb` and checked against Puppet 7.23.

use std::fmt::{self, Write};

use crate::value::{ruby_float_to_s, Value};

/// A Puppet type, as far as inferring data needs.
#[derive(Clone, Debug)]
pub enum PType {
    Undef,
    Boolean(Option<bool>),
    Integer(i64, i64),
    Float(f64, f64),
    /// `String`, remembering the value it was inferred from (printed only inside Optional).
    String(Option<String>),
    Enum(Vec<String>),
    Symbol,
    Numeric,
    ScalarData,
    Data,
    Any,
    /// `Array[T, min, max]` (`None` element type prints as `Array[0, 0]` when empty).
    Array(Option<Box<PType>>, Option<(usize, usize)>),
    Tuple(Vec<PType>),
    /// `Hash[K, V, min, max]`; `None` key/value prints as `Hash[0, 0]`.
    Hash(Option<Box<(PType, PType)>>, Option<(usize, usize)>),
    Struct(Vec<(String, PType)>),
    Variant(Vec<PType>),
    Optional(Box<PType>),
}

impl PartialEq for PType {
    fn eq(&self, o: &PType) -> bool {
        use PType::*;
        match (self, o) {
            (Undef, Undef)
            | (Symbol, Symbol)
            | (Numeric, Numeric)
            | (ScalarData, ScalarData)
            | (Data, Data)
            | (Any, Any) => true,
            (Boolean(a), Boolean(b)) => a == b,
            (Integer(a, b), Integer(c, d)) => a == c && b == d,
            (Float(a, b), Float(c, d)) => a.to_bits() == c.to_bits() && b.to_bits() == d.to_bits(),
            (String(a), String(b)) => a == b,
            (Enum(a), Enum(b)) => a == b,
            (Array(a, s), Array(b, t)) => a == b && s == t,
            (Tuple(a), Tuple(b)) => a == b,
            (Hash(a, s), Hash(b, t)) => a == b && s == t,
            (Struct(a), Struct(b)) => a == b,
            (Variant(a), Variant(b)) => a.len() == b.len() && a.iter().all(|x| b.contains(x)),
            (Optional(a), Optional(b)) => a == b,
            _ => false,
        }
    }
}

/// A String in a type (`Enum['a']`): `TypeFormatter#string_String` uses `puppet_quote`.
fn quote(s: &str) -> String {
    super::convert::puppet_quote(s)
}

fn join(ts: &[PType]) -> String {
    ts.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for PType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PType::*;
        match self {
            Undef => f.write_str("Undef"),
            Boolean(None) => f.write_str("Boolean"),
            Boolean(Some(b)) => write!(f, "Boolean[{b}]"),
            Integer(a, b) => write!(f, "Integer[{a}, {b}]"),
            Float(a, b) => write!(f, "Float[{}, {}]", ruby_float_to_s(*a), ruby_float_to_s(*b)),
            String(_) => f.write_str("String"),
            Enum(vs) => {
                // PEnumType keeps its values unique and sorted.
                let mut sorted: Vec<&std::string::String> = vs.iter().collect();
                sorted.sort();
                sorted.dedup();
                let vs: Vec<std::string::String> = sorted.iter().map(|v| quote(v)).collect();
                write!(f, "Enum[{}]", vs.join(", "))
            }
            Symbol => f.write_str("Runtime[ruby, 'Symbol']"),
            Numeric => f.write_str("Numeric"),
            ScalarData => f.write_str("ScalarData"),
            Data => f.write_str("Data"),
            Any => f.write_str("Any"),
            Array(None, Some((a, b))) => write!(f, "Array[{a}, {b}]"),
            Array(None, None) => f.write_str("Array"),
            Array(Some(t), None) => write!(f, "Array[{t}]"),
            Array(Some(t), Some((a, b))) => write!(f, "Array[{t}, {a}, {b}]"),
            Tuple(ts) => write!(f, "Tuple[{}]", join(ts)),
            Hash(None, Some((a, b))) => write!(f, "Hash[{a}, {b}]"),
            Hash(None, None) => f.write_str("Hash"),
            Hash(Some(kv), None) => write!(f, "Hash[{}, {}]", kv.0, kv.1),
            Hash(Some(kv), Some((a, b))) => write!(f, "Hash[{}, {}, {a}, {b}]", kv.0, kv.1),
            Struct(es) => {
                f.write_str("Struct[{")?;
                for (i, (k, t)) in es.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} => {t}", quote(k))?;
                }
                f.write_str("}]")
            }
            Variant(ts) => write!(f, "Variant[{}]", join(ts)),
            Optional(t) => match &**t {
                String(Some(v)) => write!(f, "Optional[{}]", quote(v)),
                t => write!(f, "Optional[{t}]"),
            },
        }
    }
}

/// `TypeCalculator#infer_set`: the most precise type, tuples and structs included.
pub fn infer_set(v: &Value) -> PType {
    match v {
        Value::Array(a) if a.is_empty() => PType::Array(None, Some((0, 0))),
        Value::Array(a) => PType::Tuple(a.iter().map(infer_set).collect()),
        Value::Hash(h) if h.is_empty() => PType::Hash(None, Some((0, 0))),
        Value::Hash(h) => {
            if h.keys()
                .all(|k| matches!(k, Value::String(s) if !s.is_empty()))
            {
                PType::Struct(
                    h.iter()
                        .map(|(k, v)| (k.as_str().unwrap_or("").to_string(), infer_set(v)))
                        .collect(),
                )
            } else {
                let k = unwrap_single(maybe_variant(h.keys().map(infer_set).collect()));
                let e = unwrap_single(maybe_variant(h.values().map(infer_set).collect()));
                PType::Hash(Some(Box::new((k, e))), Some((h.len(), h.len())))
            }
        }
        other => infer(other),
    }
}

/// `TypeCalculator#infer`: element types reduced with `common_type`.
pub fn infer(v: &Value) -> PType {
    match v {
        Value::Undef => PType::Undef,
        Value::Bool(b) => PType::Boolean(Some(*b)),
        Value::Integer(i) => PType::Integer(*i, *i),
        // PType holds 64-bit bounds; a Bignum is past one of them.
        Value::BigInt(i) => {
            let b = if i.sign() == num_bigint::Sign::Minus {
                i64::MIN
            } else {
                i64::MAX
            };
            PType::Integer(b, b)
        }
        Value::Sensitive(_) => PType::Any,
        Value::Float(f) => PType::Float(*f, *f),
        Value::String(s) => PType::String(Some(s.to_string())),
        Value::Symbol(_) => PType::Symbol,
        Value::Array(a) if a.is_empty() => PType::Array(None, Some((0, 0))),
        Value::Array(a) => PType::Array(
            Some(Box::new(reduce(a.iter().map(infer)))),
            Some((a.len(), a.len())),
        ),
        Value::Hash(h) if h.is_empty() => PType::Hash(None, Some((0, 0))),
        Value::Hash(h) => PType::Hash(
            Some(Box::new((
                reduce(h.keys().map(infer)),
                reduce(h.values().map(infer)),
            ))),
            Some((h.len(), h.len())),
        ),
    }
}

fn reduce(mut it: impl Iterator<Item = PType>) -> PType {
    let Some(first) = it.next() else {
        return PType::Any;
    };
    it.fold(first, |a, b| common_type(&a, &b))
}

fn maybe_variant(ts: Vec<PType>) -> PType {
    let mut out: Vec<PType> = Vec::new();
    for t in ts {
        match t {
            PType::Variant(inner) => {
                for i in inner {
                    if !out.contains(&i) {
                        out.push(i)
                    }
                }
            }
            t => {
                if !out.contains(&t) {
                    out.push(t)
                }
            }
        }
    }
    if out.len() == 1 {
        out.pop().unwrap_or(PType::Any)
    } else {
        PType::Variant(out)
    }
}

fn unwrap_single(t: PType) -> PType {
    match t {
        PType::Variant(mut v) if v.len() == 1 => v.pop().unwrap_or(PType::Any),
        t => t,
    }
}

fn is_scalar_data(t: &PType) -> bool {
    matches!(
        t,
        PType::Boolean(_)
            | PType::Integer(..)
            | PType::Float(..)
            | PType::String(_)
            | PType::Enum(_)
            | PType::Numeric
            | PType::ScalarData
    )
}

fn is_data(t: &PType) -> bool {
    match t {
        PType::Undef | PType::Data => true,
        PType::Array(e, _) => e.as_deref().is_none_or(is_data),
        PType::Tuple(ts) => ts.iter().all(is_data),
        PType::Hash(kv, _) => kv
            .as_deref()
            .is_none_or(|(k, v)| matches!(k, PType::String(_) | PType::Enum(_)) && is_data(v)),
        PType::Struct(es) => es.iter().all(|(_, t)| is_data(t)),
        t => is_scalar_data(t),
    }
}

/// `t2` is assignable to `t1` (for the kinds inference produces).
fn assignable(t1: &PType, t2: &PType) -> bool {
    use PType::*;
    match (t1, t2) {
        (Any, _) => true,
        (Data, t) => is_data(t),
        (ScalarData, t) => is_scalar_data(t),
        (Numeric, Integer(..) | Float(..) | Numeric) => true,
        (Integer(a, b), Integer(c, d)) => a <= c && d <= b,
        (Float(a, b), Float(c, d)) => a <= c && d <= b,
        (Boolean(None), Boolean(_)) => true,
        (Boolean(a), Boolean(b)) => a == b,
        (String(None), String(_) | Enum(_)) => true,
        (String(Some(a)), String(Some(b))) => a == b,
        (Enum(vs), String(Some(v))) => vs.contains(v),
        (Enum(vs), Enum(ws)) => ws.iter().all(|w| vs.contains(w)),
        (Undef, Undef) | (Symbol, Symbol) => true,
        (Array(e, s), Array(f, t)) => {
            let elem_ok = match (e, f) {
                (None, None) => true,
                (Some(e), Some(f)) => assignable(e, f),
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            let size_ok = match (s, t) {
                (None, _) => true,
                (Some((a, b)), Some((c, d))) => a <= c && d <= b,
                (Some(_), None) => false,
            };
            elem_ok && size_ok
        }
        (Hash(kv, s), Hash(lw, t)) => {
            let ok = match (kv, lw) {
                (None, None) => true,
                (Some(kv), Some(lw)) => assignable(&kv.0, &lw.0) && assignable(&kv.1, &lw.1),
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            let size_ok = match (s, t) {
                (None, _) => true,
                (Some((a, b)), Some((c, d))) => a <= c && d <= b,
                (Some(_), None) => false,
            };
            ok && size_ok
        }
        _ => t1 == t2,
    }
}

/// `TypeCalculator#common_type` for inferred types.
fn common_type(t1: &PType, t2: &PType) -> PType {
    use PType::*;
    // `is_pnil?` is true of Undef too: the common type of Undef and T is T (so `[~, a]` infers
    // as `Array[String]`; recorded: lopts/convert-to-named-args `f_undef`).
    match (t1, t2) {
        (Undef, t) | (t, Undef) => return t.clone(),
        _ => {}
    }
    if assignable(t1, t2) {
        return t1.clone();
    }
    if assignable(t2, t1) {
        return t2.clone();
    }
    match (t1, t2) {
        (Array(e, _), Array(f, _)) => {
            let et = match (e, f) {
                (Some(e), Some(f)) => Some(Box::new(common_type(e, f))),
                (Some(e), None) => Some(e.clone()),
                (None, Some(f)) => Some(f.clone()),
                (None, None) => None,
            };
            return Array(et, None);
        }
        (Hash(a, _), Hash(b, _)) => {
            let kv = match (a, b) {
                (Some(a), Some(b)) => {
                    Some(Box::new((common_type(&a.0, &b.0), common_type(&a.1, &b.1))))
                }
                (Some(a), None) => Some(a.clone()),
                (None, Some(b)) => Some(b.clone()),
                (None, None) => None,
            };
            return Hash(kv, None);
        }
        (Integer(a, b), Integer(c, d)) => return Integer(*a.min(c), *b.max(d)),
        (Float(a, b), Float(c, d)) => return Float(a.min(*c), b.max(*d)),
        (String(Some(a)), String(Some(b))) => return Enum(vec![a.clone(), b.clone()]),
        (String(_), String(_)) => return String(None),
        (String(Some(a)), Enum(vs)) | (Enum(vs), String(Some(a))) => {
            let mut vs = vs.clone();
            if !vs.contains(a) {
                vs.push(a.clone())
            }
            return Enum(vs);
        }
        (Enum(a), Enum(b)) => {
            let mut vs = a.clone();
            for v in b {
                if !vs.contains(v) {
                    vs.push(v.clone())
                }
            }
            return Enum(vs);
        }
        _ => {}
    }
    let numeric = |t: &PType| matches!(t, Integer(..) | Float(..) | Numeric);
    if numeric(t1) && numeric(t2) {
        return Numeric;
    }
    if is_scalar_data(t1) && is_scalar_data(t2) {
        return ScalarData;
    }
    if is_data(t1) && is_data(t2) {
        return Data;
    }
    Any
}

/// `PVariantType#normalize` (and recursively of contained types) for inferred types.
pub fn normalize(t: &PType) -> PType {
    use PType::*;
    match t {
        Variant(ts) => {
            let ts: Vec<PType> = ts.iter().map(normalize).collect();
            if ts.len() == 1 {
                return ts.into_iter().next().unwrap_or(Any);
            }
            if ts.iter().any(|t| matches!(t, Undef | Optional(_))) {
                let rest: Vec<PType> = ts
                    .into_iter()
                    .filter(|t| !matches!(t, Undef))
                    .map(|t| match t {
                        Optional(i) => *i,
                        t => t,
                    })
                    .collect();
                return Optional(Box::new(normalize(&maybe_variant(rest))));
            }
            let mut ts = match maybe_variant(ts) {
                Variant(v) => v,
                single => return single,
            };
            // merge_enums: valued strings and enums become one Enum, appended last (only when
            // there are two or more; otherwise the array is left as it is).
            let is_enum =
                |t: &PType| matches!(t, Enum(v) if !v.is_empty()) || matches!(t, String(Some(_)));
            if ts.iter().filter(|t| is_enum(t)).count() > 1 {
                let (enums, mut others): (Vec<PType>, Vec<PType>) =
                    ts.into_iter().partition(is_enum);
                let mut vals: Vec<std::string::String> = Vec::new();
                for e in enums {
                    let vs = match e {
                        String(Some(v)) => vec![v],
                        Enum(vs) => vs,
                        _ => Vec::new(),
                    };
                    for v in vs {
                        if !vals.contains(&v) {
                            vals.push(v)
                        }
                    }
                }
                others.push(Enum(vals));
                ts = others;
            }
            ts = merge_numbers(ts, true);
            ts = merge_numbers(ts, false);
            if ts.len() == 1 {
                ts.pop().unwrap_or(Any)
            } else {
                Variant(ts)
            }
        }
        Hash(Some(kv), s) => Hash(Some(Box::new((normalize(&kv.0), normalize(&kv.1)))), *s),
        Array(Some(e), s) => Array(Some(Box::new(normalize(e))), *s),
        Tuple(ts) => Tuple(ts.iter().map(normalize).collect()),
        Struct(es) => Struct(es.iter().map(|(k, t)| (k.clone(), normalize(t))).collect()),
        Optional(i) => Optional(Box::new(normalize(i))),
        t => t.clone(),
    }
}

fn merge_numbers(ts: Vec<PType>, ints: bool) -> Vec<PType> {
    let is = |t: &PType| {
        if ints {
            matches!(t, PType::Integer(..))
        } else {
            matches!(t, PType::Float(..))
        }
    };
    if ts.iter().filter(|t| is(t)).count() <= 1 {
        // Puppet leaves the array untouched (original order).
        return ts;
    }
    let (mut ranges, others): (Vec<PType>, Vec<PType>) = ts.into_iter().partition(is);
    // merge_ranges: pop the last, fold the rest into it in order, repeat with the unmerged.
    let mut result = Vec::new();
    while let Some(mut x) = ranges.pop() {
        let mut unmerged = Vec::new();
        for y in ranges.drain(..) {
            match merge_range(&x, &y) {
                Some(m) => x = m,
                None => unmerged.push(y),
            }
        }
        result.push(x);
        ranges = unmerged;
    }
    result.extend(others);
    result
}

fn merge_range(a: &PType, b: &PType) -> Option<PType> {
    match (a, b) {
        (PType::Integer(f1, t1), PType::Integer(f2, t2)) => {
            let intersect = f1 <= t2 && f2 <= t1;
            let adjacent = t1.checked_add(1) == Some(*f2) || t2.checked_add(1) == Some(*f1);
            (intersect || adjacent).then(|| PType::Integer(*f1.min(f2), *t1.max(t2)))
        }
        (PType::Float(f1, t1), PType::Float(f2, t2)) => {
            (f1 <= t2 && f2 <= t1).then(|| PType::Float(f1.min(*f2), t1.max(*t2)))
        }
        _ => None,
    }
}

/// The short name the mismatch describer prints after `got` (`Struct`, `Tuple`, `Undef`...).
pub fn short_name(v: &Value) -> &'static str {
    match v {
        Value::Undef => "Undef",
        Value::Bool(_) => "Boolean",
        Value::Integer(_) | Value::BigInt(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Symbol(_) => "Runtime",
        Value::Sensitive(_) => "Sensitive",
        Value::Array(a) if a.is_empty() => "Array",
        Value::Array(_) => "Tuple",
        Value::Hash(h)
            if !h.is_empty()
                && h.keys()
                    .all(|k| matches!(k, Value::String(s) if !s.is_empty())) =>
        {
            "Struct"
        }
        Value::Hash(_) => "Hash",
    }
}

/// `TypeCalculator.infer(v).generalize` as Puppet prints it in `new()`'s "Value of type T
/// cannot be converted" messages (types.rb `generalize` of each type): a scalar by its base
/// name, several String values by their Enum's size range (`String[1, 3]`), collections by
/// their generalized element, key and value types without sizes, an empty Hash as
/// `Hash[0, 0]` (recorded: lopts/convert-to-named-args). Values whose inference this does not
/// follow to the letter (an empty Array, Sensitive, a Symbol, a Bignum anywhere in them) keep
/// [`short_name`].
pub fn generalized_name(v: &Value) -> String {
    fn plain(v: &Value) -> bool {
        match v {
            Value::Undef
            | Value::Bool(_)
            | Value::Integer(_)
            | Value::Float(_)
            | Value::String(_) => true,
            Value::Array(a) => !a.is_empty() && a.iter().all(plain),
            Value::Hash(h) => h.iter().all(|(k, x)| plain(k) && plain(x)),
            _ => false,
        }
    }
    fn generalize(t: &PType) -> Option<String> {
        Some(match t {
            PType::Undef => "Undef".into(),
            PType::Boolean(_) => "Boolean".into(),
            PType::Integer(..) => "Integer".into(),
            PType::Float(..) => "Float".into(),
            PType::String(_) => "String".into(),
            // `PEnumType#generalize`: the String of the values' sizes (in characters).
            PType::Enum(vs) if vs.is_empty() => "String".into(),
            PType::Enum(vs) => {
                let sizes = vs.iter().map(|v| v.chars().count());
                let (lo, hi) = (sizes.clone().min()?, sizes.max()?);
                format!("String[{lo}, {hi}]")
            }
            PType::Numeric | PType::ScalarData | PType::Data => t.to_string(),
            PType::Array(Some(e), _) => format!("Array[{}]", generalize(e)?),
            // `PHashType#generalize` returns EMPTY as it is.
            PType::Hash(None, Some((0, 0))) => "Hash[0, 0]".into(),
            PType::Hash(Some(kv), _) => {
                format!("Hash[{}, {}]", generalize(&kv.0)?, generalize(&kv.1)?)
            }
            _ => return None,
        })
    }
    if !plain(v) {
        return short_name(v).to_string();
    }
    generalize(&infer(v)).unwrap_or_else(|| short_name(v).to_string())
}

/// Is the value Puppet `Data` (scalars, undef, arrays of Data, hashes of String to Data)?
pub fn is_data_value(v: &Value) -> bool {
    match v {
        Value::Symbol(_) | Value::Sensitive(_) => false,
        Value::Array(a) => a.iter().all(is_data_value),
        Value::Hash(h) => h
            .iter()
            .all(|(k, v)| matches!(k, Value::String(_)) && is_data_value(v)),
        _ => true,
    }
}

/// Is the value Puppet `RichData` as lookups validate it (§6.5): hash keys String or Numeric.
pub fn is_rich_data_value(v: &Value) -> bool {
    match v {
        Value::Symbol(_) => false,
        Value::Array(a) => a.iter().all(is_rich_data_value),
        Value::Hash(h) => h.iter().all(|(k, v)| {
            matches!(
                k,
                Value::String(_) | Value::Integer(_) | Value::BigInt(_) | Value::Float(_)
            ) && is_rich_data_value(v)
        }),
        _ => true,
    }
}

/// One line of a mismatch description: the path (`entry 'a' variant 1 index 0`) and the text.
pub(crate) type Mismatch = (String, String);

pub(crate) fn with_path(path: &str, more: &str) -> String {
    if path.is_empty() {
        more.to_string()
    } else {
        format!("{path} {more}")
    }
}

/// Describes why `v` is not `Data`, at `path`.
fn describe_data(v: &Value, path: &str, out: &mut Vec<Mismatch>) {
    if is_data_value(v) {
        return;
    }
    match v {
        Value::Array(a) => {
            out.push((
                with_path(path, "variant 0"),
                "expects a ScalarData value, got Tuple".into(),
            ));
            out.push((
                with_path(path, "variant 1"),
                "expects a Hash value, got Tuple".into(),
            ));
            for (i, e) in a.iter().enumerate() {
                describe_data(e, &with_path(path, &format!("variant 2 index {i}")), out);
            }
        }
        Value::Hash(h) if h.keys().all(|k| matches!(k, Value::String(_))) => {
            let name = short_name(v);
            out.push((
                with_path(path, "variant 0"),
                format!("expects a ScalarData value, got {name}"),
            ));
            for (k, e) in h.iter() {
                let k = k.as_str().unwrap_or("");
                describe_data(e, &with_path(path, &format!("variant 1 entry '{k}'")), out);
            }
            out.push((
                with_path(path, "variant 2"),
                format!("expects an Array value, got {name}"),
            ));
        }
        other => out.push((
            path.to_string(),
            format!("expects a Data value, got {}", short_name(other)),
        )),
    }
}

/// The TypeAsserter message: one line per mismatch, several lines indented after a space.
pub(crate) fn render(subject: &str, ms: Vec<Mismatch>) -> Option<String> {
    let lines: Vec<String> = ms
        .into_iter()
        .map(|(p, t)| format!("{subject} has wrong type, {}", with_path(&p, &t)))
        .collect();
    match lines.len() {
        0 => None,
        1 => lines.into_iter().next(),
        _ => Some(format!(" {}", lines.join("\n  "))),
    }
}

/// The TypeAsserter message for `v` against `Hash[String, Data]`, or `None` if it matches.
pub fn check_hash_string_data(subject: &str, v: &Value) -> Option<String> {
    let Value::Hash(h) = v else {
        return render(
            subject,
            vec![(
                String::new(),
                format!("expects a Hash value, got {}", short_name(v)),
            )],
        );
    };
    if !h.keys().all(|k| matches!(k, Value::String(_))) {
        let actual = match normalize(&infer_set(v)) {
            PType::Hash(kv, _) => PType::Hash(kv, None),
            t => t,
        };
        return render(
            subject,
            vec![(
                String::new(),
                format!("expects a Hash[String, Data] value, got {actual}"),
            )],
        );
    }
    let mut out = Vec::new();
    for (k, e) in h.iter() {
        describe_data(
            e,
            &format!("entry '{}'", k.as_str().unwrap_or("")),
            &mut out,
        );
    }
    render(subject, out)
}

/// The TypeAsserter message for `v` against `Variant[Scalar, Array[Data]]` (unique merges).
pub fn check_scalar_or_array_data(subject: &str, v: &Value) -> Option<String> {
    match v {
        Value::Integer(_) | Value::Float(_) | Value::String(_) | Value::Bool(_) => None,
        Value::Array(a) => {
            if a.iter().all(is_data_value) {
                return None;
            }
            let mut out = vec![(
                "variant 0".to_string(),
                "expects a Scalar value, got Tuple".to_string(),
            )];
            for (i, e) in a.iter().enumerate() {
                describe_data(e, &format!("variant 1 index {i}"), &mut out);
            }
            render(subject, out)
        }
        other => render(
            subject,
            vec![(
                String::new(),
                format!(
                    "expects a value of type Scalar or Array, got {}",
                    short_name(other)
                ),
            )],
        ),
    }
}

/// The TypeAsserter message for `v` against plain `Hash`.
pub fn check_hash(subject: &str, v: &Value) -> Option<String> {
    match v {
        Value::Hash(_) => None,
        other => Some(format!(
            "{subject} has wrong type, expects a Hash value, got {}",
            short_name(other)
        )),
    }
}

/// `TypeCalculator#infer(value).to_s`, as the LookupValue validation prints it.
pub fn infer_string(v: &Value) -> String {
    let mut s = String::new();
    let _ = write!(s, "{}", infer(v));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: Vec<(Value, Value)>) -> Value {
        Value::hash(pairs.into_iter().collect())
    }
    fn s(x: &str) -> Value {
        Value::string(x)
    }
    fn i(x: i64) -> Value {
        Value::Integer(x)
    }

    #[test]
    fn infer_matches_puppet() {
        // Recorded with Puppet 7.23 TypeCalculator#infer.
        assert_eq!(
            infer_string(&Value::Symbol("s".into())),
            "Runtime[ruby, 'Symbol']"
        );
        assert_eq!(
            infer_string(&h(vec![(s("a"), Value::Symbol("s".into()))])),
            "Hash[String, Runtime[ruby, 'Symbol'], 1, 1]"
        );
        assert_eq!(
            infer_string(&Value::array(vec![
                Value::Symbol("a".into()),
                Value::Symbol("b".into())
            ])),
            "Array[Runtime[ruby, 'Symbol'], 2, 2]"
        );
        assert_eq!(
            infer_string(&h(vec![(Value::array(vec![i(1), i(2)]), s("x"))])),
            "Hash[Array[Integer[1, 2], 2, 2], String, 1, 1]"
        );
        assert_eq!(
            infer_string(&h(vec![(Value::Bool(true), s("x"))])),
            "Hash[Boolean[true], String, 1, 1]"
        );
        assert_eq!(
            infer_string(&h(vec![(Value::Undef, s("x"))])),
            "Hash[Undef, String, 1, 1]"
        );
        assert_eq!(
            infer_string(&Value::array(vec![i(1), s("a")])),
            "Array[ScalarData, 2, 2]"
        );
        assert_eq!(
            infer_string(&h(vec![(s("a"), i(1)), (s("b"), s("x"))])),
            "Hash[Enum['a', 'b'], ScalarData, 2, 2]"
        );
        assert_eq!(infer_string(&Value::array(vec![])), "Array[0, 0]");
        assert_eq!(infer_string(&h(vec![])), "Hash[0, 0]");
    }

    #[test]
    fn hash_string_data_messages() {
        let x = "X";
        assert_eq!(
            check_hash_string_data(x, &h(vec![(i(1), s("x"))])).unwrap(),
            "X has wrong type, expects a Hash[String, Data] value, got Hash[Integer[1, 1], String]"
        );
        assert_eq!(
            check_hash_string_data(x, &h(vec![(i(1), s("x")), (i(2), s("y"))])).unwrap(),
            "X has wrong type, expects a Hash[String, Data] value, got Hash[Integer[1, 2], Enum['x', 'y']]"
        );
        assert_eq!(
            check_hash_string_data(x, &h(vec![(i(1), s("x")), (s("b"), i(2))])).unwrap(),
            "X has wrong type, expects a Hash[String, Data] value, got Hash[Variant[Integer[1, 1], String], Variant[String, Integer[2, 2]]]"
        );
        assert_eq!(
            check_hash_string_data(x, &h(vec![(i(1), s("x")), (i(2), s("y")), (i(3), s("x"))]))
                .unwrap(),
            "X has wrong type, expects a Hash[String, Data] value, got Hash[Variant[Integer[2, 3], Integer[1, 1]], Enum['x', 'y']]"
        );
        assert_eq!(
            check_hash_string_data(x, &h(vec![(i(1), s("x")), (i(2), Value::Undef)])).unwrap(),
            "X has wrong type, expects a Hash[String, Data] value, got Hash[Integer[1, 2], Optional['x']]"
        );
        assert_eq!(
            check_hash_string_data(x, &h(vec![(s("b"), h(vec![(i(1), s("x"))]))])).unwrap(),
            "X has wrong type, entry 'b' expects a Data value, got Hash"
        );
        assert_eq!(
            check_hash_string_data(x, &Value::Undef).unwrap(),
            "X has wrong type, expects a Hash value, got Undef"
        );
        assert_eq!(
            check_hash_string_data(x, &Value::array(vec![i(1)])).unwrap(),
            "X has wrong type, expects a Hash value, got Tuple"
        );
        assert_eq!(
            check_hash_string_data(x, &h(vec![(s("a"), Value::array(vec![h(vec![(i(1), i(2))])]))]))
                .unwrap(),
            " X has wrong type, entry 'a' variant 0 expects a ScalarData value, got Tuple\n  X has wrong type, entry 'a' variant 1 expects a Hash value, got Tuple\n  X has wrong type, entry 'a' variant 2 index 0 expects a Data value, got Hash"
        );
        assert_eq!(
            check_hash_string_data(
                x,
                &h(vec![(s("a"), h(vec![(s("b"), h(vec![(i(2), i(3))]))]))])
            )
            .unwrap(),
            " X has wrong type, entry 'a' variant 0 expects a ScalarData value, got Struct\n  X has wrong type, entry 'a' variant 1 entry 'b' expects a Data value, got Hash\n  X has wrong type, entry 'a' variant 2 expects an Array value, got Struct"
        );
        assert!(check_hash_string_data(x, &h(vec![])).is_none());
    }

    #[test]
    fn unique_messages() {
        let x = "X";
        assert_eq!(
            check_scalar_or_array_data(x, &h(vec![(s("a"), i(1))])).unwrap(),
            "X has wrong type, expects a value of type Scalar or Array, got Struct"
        );
        assert_eq!(
            check_scalar_or_array_data(x, &h(vec![])).unwrap(),
            "X has wrong type, expects a value of type Scalar or Array, got Hash"
        );
        assert_eq!(
            check_scalar_or_array_data(x, &Value::Undef).unwrap(),
            "X has wrong type, expects a value of type Scalar or Array, got Undef"
        );
        assert_eq!(
            check_scalar_or_array_data(
                x,
                &Value::array(vec![i(1), h(vec![(i(1), i(2))]), h(vec![(i(2), i(3))])])
            )
            .unwrap(),
            " X has wrong type, variant 0 expects a Scalar value, got Tuple\n  X has wrong type, variant 1 index 1 expects a Data value, got Hash\n  X has wrong type, variant 1 index 2 expects a Data value, got Hash"
        );
        assert!(check_scalar_or_array_data(x, &Value::array(vec![])).is_none());
    }
}

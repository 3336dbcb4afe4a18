//! Merge strategies exact to Puppet's `MergeStrategy` (reference §4): first, unique, hash, deep
//! (with deep_merge 1.1.1's knockout prefix, sorting and hash-array merging), and the legacy
//! reverse_deep and unconstrained_deep.
//!
//! [`MergeStrategy::parse`] reads a `merge` argument (a name or a `{strategy: ...}` hash) with
//! Puppet's errors (§4.6); [`MergeStrategy::merge`] merges a higher-priority value `e1` with a
//! lower-priority `e2`, type-checking both as Puppet does (§4.1). The multi-level driver (layers,
//! hierarchy entries, locations) lives in the engine core and calls [`MergeStrategy::convert_value`],
//! [`MergeStrategy::merge_single`] and [`MergeStrategy::merge`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use indexmap::{IndexMap, IndexSet};

use super::error::{ErrorKind, LookupError};
use super::ruby::{gsub_empty, regex_search, ruby_eq, ruby_regex, ruby_sort_by};
use super::types;
use crate::value::{Hash, Value};

/// The strategies Puppet registers (`merge_strategy.rb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrategyKind {
    First,
    /// The implicit strategy (behaves as `first`; explain shows no merge node for it).
    Default,
    Unique,
    Hash,
    Deep,
    /// Hiera 3's `deep`: deep with the arguments swapped.
    ReverseDeep,
    /// Hiera 3's `deeper`: deep with any options.
    UnconstrainedDeep,
}

impl StrategyKind {
    pub fn key(self) -> &'static str {
        match self {
            StrategyKind::First => "first",
            StrategyKind::Default => "default",
            StrategyKind::Unique => "unique",
            StrategyKind::Hash => "hash",
            StrategyKind::Deep => "deep",
            StrategyKind::ReverseDeep => "reverse_deep",
            StrategyKind::UnconstrainedDeep => "unconstrained_deep",
        }
    }

    pub fn from_key(k: &str) -> Option<StrategyKind> {
        Some(match k {
            "first" => StrategyKind::First,
            "default" => StrategyKind::Default,
            "unique" => StrategyKind::Unique,
            "hash" => StrategyKind::Hash,
            "deep" => StrategyKind::Deep,
            "reverse_deep" => StrategyKind::ReverseDeep,
            "unconstrained_deep" => StrategyKind::UnconstrainedDeep,
            _ => return None,
        })
    }

    fn is_deep(self) -> bool {
        matches!(
            self,
            StrategyKind::Deep | StrategyKind::ReverseDeep | StrategyKind::UnconstrainedDeep
        )
    }
}

/// deep_merge 1.1.1 options (`DeepMerge.deep_merge!`), as Puppet passes them.
#[derive(Clone, Debug, Default)]
struct DeepOptions {
    knockout_prefix: Option<Value>,
    preserve_unmergeables: bool,
    sort_merged_arrays: bool,
    merge_hash_arrays: bool,
    overwrite_arrays: bool,
    unpack_arrays: Option<String>,
    extend_existing_arrays: bool,
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Undef | Value::Bool(false))
}

impl DeepOptions {
    fn from_options(opts: Option<&Hash>) -> DeepOptions {
        let mut d = DeepOptions::default();
        let Some(opts) = opts else { return d };
        for (k, v) in opts {
            let Some(k) = k.as_str() else { continue };
            match k {
                "knockout_prefix" => d.knockout_prefix = truthy(v).then(|| v.clone()),
                "preserve_unmergeables" => d.preserve_unmergeables = truthy(v),
                "sort_merged_arrays" => d.sort_merged_arrays = truthy(v),
                "merge_hash_arrays" => d.merge_hash_arrays = truthy(v),
                "overwrite_arrays" => d.overwrite_arrays = truthy(v),
                "unpack_arrays" => d.unpack_arrays = truthy(v).then(|| v.to_ruby_s()),
                "extend_existing_arrays" => d.extend_existing_arrays = truthy(v),
                _ => {}
            }
        }
        d
    }
}

/// A merge strategy with its options.
#[derive(Clone, Debug)]
pub struct MergeStrategy {
    pub kind: StrategyKind,
    /// The options hash as given (`strategy` included) when it held more than the strategy.
    pub options: Option<Arc<Hash>>,
    deep: DeepOptions,
}

impl Default for MergeStrategy {
    fn default() -> Self {
        MergeStrategy::of(StrategyKind::Default)
    }
}

fn merge_options_error(problems: Vec<String>) -> LookupError {
    let lines: Vec<String> = problems
        .into_iter()
        .map(|p| format!("The merge options has wrong type, {p}"))
        .collect();
    let msg = if lines.len() == 1 {
        lines.into_iter().next().unwrap_or_default()
    } else {
        format!(" {}", lines.join("\n  "))
    };
    LookupError::type_assertion(msg)
}

/// `Optional[T]` entry checks of the deep options struct.
fn check_optional(key: &str, v: &Value, want_bool: bool) -> Option<String> {
    let ok = match v {
        Value::Undef => true,
        Value::Bool(_) => want_bool,
        Value::String(_) => !want_bool,
        _ => false,
    };
    (!ok).then(|| {
        format!(
            "entry '{key}' expects a value of type Undef or {}, got {}",
            if want_bool { "Boolean" } else { "String" },
            types::short_name(v)
        )
    })
}

fn struct_text(kind: StrategyKind) -> String {
    let key = kind.key();
    if kind == StrategyKind::Deep {
        "Struct[{'strategy' => Optional[Pattern[/deep/]], 'knockout_prefix' => Optional[String], 'merge_debug' => Optional[Boolean], 'merge_hash_arrays' => Optional[Boolean], 'sort_merged_arrays' => Optional[Boolean]}]".to_string()
    } else {
        format!("Struct[{{'strategy' => Optional[Pattern[/{key}/]]}}]")
    }
}

fn whole_hash_mismatch(expected: &str, opts: &Hash) -> LookupError {
    let actual = match types::normalize(&types::infer_set(&Value::hash(opts.clone()))) {
        types::PType::Hash(kv, _) => types::PType::Hash(kv, None),
        t => t,
    };
    merge_options_error(vec![format!("expects a {expected} value, got {actual}")])
}

/// Validates options against the strategy's `options_t` (`merge_strategy.rb`).
fn validate_options(kind: StrategyKind, opts: &Hash) -> Result<(), LookupError> {
    match kind {
        StrategyKind::UnconstrainedDeep | StrategyKind::ReverseDeep => {
            // Hash[String[1], Any]
            if opts
                .keys()
                .all(|k| matches!(k, Value::String(s) if !s.is_empty()))
            {
                Ok(())
            } else {
                Err(whole_hash_mismatch("Hash[String[1], Any]", opts))
            }
        }
        _ => {
            if !opts.keys().all(|k| matches!(k, Value::String(_))) {
                return Err(whole_hash_mismatch(&struct_text(kind), opts));
            }
            let allowed: &[&str] = if kind == StrategyKind::Deep {
                &[
                    "strategy",
                    "knockout_prefix",
                    "merge_debug",
                    "merge_hash_arrays",
                    "sort_merged_arrays",
                ]
            } else {
                &["strategy"]
            };
            let mut problems = Vec::new();
            // Struct elements in declaration order, then unrecognized keys in hash order.
            for name in allowed {
                let Some(v) = opts.get(&Value::string(*name)) else {
                    continue;
                };
                let p = match *name {
                    "strategy" => match v {
                        Value::Undef | Value::String(_) => None,
                        other => Some(format!(
                            "entry 'strategy' expects an undef value or a match for Pattern[/{}/], got {}",
                            kind.key(),
                            types::short_name(other)
                        )),
                    },
                    "knockout_prefix" => check_optional(name, v, false),
                    _ => check_optional(name, v, true),
                };
                problems.extend(p);
            }
            for k in opts.keys() {
                let k = k.as_str().unwrap_or("");
                if !allowed.contains(&k) {
                    problems.push(format!("unrecognized key '{k}'"));
                }
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(merge_options_error(problems))
            }
        }
    }
}

impl MergeStrategy {
    /// A strategy without options.
    pub fn of(kind: StrategyKind) -> MergeStrategy {
        MergeStrategy {
            kind,
            options: None,
            deep: DeepOptions::default(),
        }
    }

    /// `MergeStrategy.strategy(merge)`: nil/false → default; a name; or a hash with `strategy`
    /// and options (reference §4.6). Errors: `ArgumentError` for an unknown name or a hash
    /// without `strategy`, `TypeAssertionError` for bad options.
    pub fn parse(merge: &Value) -> Result<MergeStrategy, LookupError> {
        let (name_v, options): (&Value, Option<&Arc<Hash>>) = match merge {
            Value::Undef | Value::Bool(false) => return Ok(MergeStrategy::default()),
            Value::Hash(h) => {
                let s = h.get(&Value::string("strategy"));
                match s {
                    None | Some(Value::Undef) => {
                        return Err(LookupError::argument(
                            "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'",
                        ))
                    }
                    Some(s) => (s, (h.len() > 1).then_some(h)),
                }
            }
            other => (other, None),
        };
        let name = match name_v {
            Value::String(s) | Value::Symbol(s) => s.to_string(),
            other => other.to_ruby_s(),
        };
        let kind = match name_v {
            Value::String(_) | Value::Symbol(_) => StrategyKind::from_key(&name),
            _ => None,
        }
        .ok_or_else(|| LookupError::argument(format!("Unknown merge strategy: '{name}'")))?;
        match options {
            None => Ok(MergeStrategy::of(kind)),
            Some(opts) => {
                validate_options(kind, opts)?;
                Ok(MergeStrategy {
                    kind,
                    options: Some(opts.clone()),
                    deep: DeepOptions::from_options(Some(opts)),
                })
            }
        }
    }

    pub fn key(&self) -> &'static str {
        self.kind.key()
    }

    /// First-found (`first` or the implicit default): stops at the first found value.
    pub fn is_first_found(&self) -> bool {
        matches!(self.kind, StrategyKind::First | StrategyKind::Default)
    }

    /// The options without `strategy`, as explain prints them (`Options: {...}`); `None` when
    /// empty.
    pub fn options_wo_strategy(&self) -> Option<Hash> {
        let opts = self.options.as_ref()?;
        let mut o: Hash = (**opts).clone();
        o.shift_remove(&Value::string("strategy"));
        (!o.is_empty()).then_some(o)
    }

    /// `MergeStrategy#configuration`: the name, or the options hash with the strategy first.
    pub fn configuration(&self) -> Value {
        match &self.options {
            None => Value::string(self.key()),
            Some(o) if o.is_empty() => Value::string(self.key()),
            Some(o) if o.contains_key(&Value::string("strategy")) => Value::Hash(o.clone()),
            Some(o) => {
                let mut h = Hash::default();
                h.insert(Value::string("strategy"), Value::string(self.key()));
                for (k, v) in o.iter() {
                    h.insert(k.clone(), v.clone());
                }
                Value::hash(h)
            }
        }
    }

    /// The value the first found variant becomes before merging (`convert_value`): unique
    /// flattens arrays and wraps anything else in an array.
    pub fn convert_value(&self, v: Value) -> Value {
        match self.kind {
            StrategyKind::Unique => Value::array(unique_conv(&v)),
            _ => v,
        }
    }

    /// The value when only one variant exists (`merge_single`): unique de-duplicates arrays.
    pub fn merge_single(&self, v: Value) -> Value {
        match (&self.kind, &v) {
            (StrategyKind::Unique, Value::Array(a)) => {
                let set: IndexSet<Value> = a.iter().cloned().collect();
                if set.len() == a.len() {
                    v
                } else {
                    Value::array(set.into_iter().collect())
                }
            }
            _ => v,
        }
    }

    /// `MergeStrategy#merge(e1, e2)`: type-checks both (`The first element of the merge`,
    /// `The second element of the merge`), then merges. `e1` has the higher priority.
    pub fn merge(&self, e1: &Value, e2: &Value) -> Result<Value, LookupError> {
        self.merge_plain(e1, e2)
    }

    /// [`MergeStrategy::merge`], also returning what deep_merge did to its source argument:
    /// `DeepMerge.deep_merge!` mutates the source (knockouts are deleted from its arrays), and
    /// Puppet's explain output shows found values *after* that mutation (recorded:
    /// merge/deep-knockout-prefix, the explained `arr`). `Some((was_e1, mutated))` when the
    /// source changed (`was_e1` false for reverse_deep, whose source is `e2`).
    pub fn merge_tracking(
        &self,
        e1: &Value,
        e2: &Value,
    ) -> Result<(Value, Option<(bool, Value)>), LookupError> {
        match self.kind {
            StrategyKind::Deep | StrategyKind::UnconstrainedDeep => {
                let (r, src) = deep_merge_values(e1, e2, &self.deep)?;
                Ok((r, (src != *e1).then_some((true, src))))
            }
            StrategyKind::ReverseDeep => {
                let (r, src) = deep_merge_values(e2, e1, &self.deep)?;
                Ok((r, (src != *e2).then_some((false, src))))
            }
            _ => self.merge_plain(e1, e2).map(|v| (v, None)),
        }
    }

    fn merge_plain(&self, e1: &Value, e2: &Value) -> Result<Value, LookupError> {
        match self.kind {
            StrategyKind::First | StrategyKind::Default => Ok(e1.clone()),
            StrategyKind::Unique => {
                check(types::check_scalar_or_array_data(
                    "The first element of the merge",
                    e1,
                ))?;
                check(types::check_scalar_or_array_data(
                    "The second element of the merge",
                    e2,
                ))?;
                let mut set: IndexSet<Value> = unique_conv(e1).into_iter().collect();
                set.extend(unique_conv(e2));
                Ok(Value::array(set.into_iter().collect()))
            }
            StrategyKind::Hash => {
                check(types::check_hash_string_data(
                    "The first element of the merge",
                    e1,
                ))?;
                check(types::check_hash_string_data(
                    "The second element of the merge",
                    e2,
                ))?;
                let (Value::Hash(h1), Value::Hash(h2)) = (e1, e2) else {
                    return Ok(e1.clone());
                };
                // e2.merge(e1): lower-priority keys first; higher values win in place.
                let mut out: Hash = (**h2).clone();
                for (k, v) in h1.iter() {
                    out.insert(k.clone(), v.clone());
                }
                Ok(Value::hash(out))
            }
            StrategyKind::Deep | StrategyKind::UnconstrainedDeep => {
                deep_merge_values(e1, e2, &self.deep).map(|(r, _)| r)
            }
            StrategyKind::ReverseDeep => deep_merge_values(e2, e1, &self.deep).map(|(r, _)| r),
        }
    }

    /// True for deep-family strategies (deep, reverse_deep, unconstrained_deep).
    pub fn is_deep(&self) -> bool {
        self.kind.is_deep()
    }
}

fn check(problem: Option<String>) -> Result<(), LookupError> {
    match problem {
        None => Ok(()),
        Some(m) => Err(LookupError::type_assertion(m)),
    }
}

/// `e.is_a?(Array) ? e.flatten : [e]`
fn unique_conv(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => {
            let mut out = Vec::with_capacity(a.len());
            let mut stack: Vec<std::slice::Iter<'_, Value>> = vec![a.iter()];
            while let Some(it) = stack.last_mut() {
                match it.next() {
                    Some(Value::Array(inner)) => stack.push(inner.iter()),
                    Some(x) => out.push(x.clone()),
                    None => {
                        stack.pop();
                    }
                }
            }
            out
        }
        other => vec![other.clone()],
    }
}

// ---------------------------------------------------------------------------------------------
// deep_merge 1.1.1, emulated over a mutable object graph.
//
// `DeepMerge.deep_merge!` mutates its arguments and, through `dup`, merges values into shallow
// copies of themselves (a hash key missing in the lower value is merged "with itself", which
// de-duplicates its arrays and applies knockouts). To reproduce every quirk the merge runs over
// reference-counted mutable containers that keep Ruby's object identity.

#[derive(Clone)]
enum R {
    S(Value),
    A(Rc<RefCell<Vec<R>>>),
    H(Rc<RefCell<IndexMap<Value, R>>>),
}

const MAX_DEPTH: usize = 512;

fn too_deep() -> LookupError {
    LookupError::new(
        ErrorKind::Unsupported,
        "deep merge nesting exceeds hieralint's depth limit",
    )
}

impl R {
    fn from_value(v: &Value, depth: usize) -> Result<R, LookupError> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(match v {
            Value::Array(a) => R::A(Rc::new(RefCell::new(
                a.iter()
                    .map(|x| R::from_value(x, depth + 1))
                    .collect::<Result<_, _>>()?,
            ))),
            Value::Hash(h) => {
                let mut m = IndexMap::with_capacity(h.len());
                for (k, x) in h.iter() {
                    m.insert(k.clone(), R::from_value(x, depth + 1)?);
                }
                R::H(Rc::new(RefCell::new(m)))
            }
            other => R::S(other.clone()),
        })
    }

    fn to_value(&self, depth: usize) -> Result<Value, LookupError> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(match self {
            R::S(v) => v.clone(),
            R::A(a) => Value::array(
                a.borrow()
                    .iter()
                    .map(|x| x.to_value(depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            R::H(h) => {
                let mut m = Hash::with_capacity_and_hasher(h.borrow().len(), Default::default());
                for (k, x) in h.borrow().iter() {
                    m.insert(k.clone(), x.to_value(depth + 1)?);
                }
                Value::hash(m)
            }
        })
    }

    fn truthy(&self) -> bool {
        match self {
            R::S(v) => truthy(v),
            _ => true,
        }
    }

    fn is_nil(&self) -> bool {
        matches!(self, R::S(Value::Undef))
    }

    /// Ruby `dup`: a new container holding the same elements.
    fn dup(&self) -> R {
        match self {
            R::A(a) => R::A(Rc::new(RefCell::new(a.borrow().clone()))),
            R::H(h) => R::H(Rc::new(RefCell::new(h.borrow().clone()))),
            s => s.clone(),
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            R::S(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Ruby `eql?` (for `Array#|`).
    fn eql(&self, o: &R) -> bool {
        match (self, o) {
            (R::S(a), R::S(b)) => a == b,
            (R::A(a), R::A(b)) => {
                Rc::ptr_eq(a, b) || {
                    let (a, b) = (a.borrow(), b.borrow());
                    a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.eql(y))
                }
            }
            (R::H(a), R::H(b)) => {
                Rc::ptr_eq(a, b) || {
                    let (a, b) = (a.borrow(), b.borrow());
                    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v.eql(w)))
                }
            }
            _ => false,
        }
    }

    /// Ruby `==` against a plain value (for `Array#delete`/`#index` with a knockout string).
    fn eq_value(&self, v: &Value) -> bool {
        match self {
            R::S(x) => ruby_eq(x, v),
            other => other.to_value(0).is_ok_and(|x| ruby_eq(&x, v)),
        }
    }
}

struct Dm<'a> {
    o: &'a DeepOptions,
    /// The knockout regex `/^prefix/`, compiled on first use.
    ko_re: Option<Arc<onig::Regex>>,
}

impl Dm<'_> {
    fn ko_regex(&mut self) -> Result<Option<Arc<onig::Regex>>, LookupError> {
        let Some(kp) = &self.o.knockout_prefix else {
            return Ok(None);
        };
        if self.ko_re.is_none() {
            let src = knockout_regex_source(&kp.to_ruby_s());
            self.ko_re = Some(ruby_regex(&src)?);
        }
        Ok(self.ko_re.clone())
    }

    fn overwrite_unmergeable(&self) -> bool {
        !self.o.preserve_unmergeables
    }

    fn deep_merge(&mut self, source: R, dest: R, depth: usize) -> Result<R, LookupError> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        if let Some(kp) = &self.o.knockout_prefix {
            if matches!(kp, Value::String(s) if s.is_empty()) {
                return Err(LookupError::new(
                    ErrorKind::DeepMergeInvalidParameter,
                    "knockout_prefix cannot be an empty string in deep_merge!",
                ));
            }
            if !self.overwrite_unmergeable() {
                return Err(LookupError::new(
                    ErrorKind::DeepMergeInvalidParameter,
                    "overwrite_unmergeable must be true if knockout_prefix is specified in deep_merge!",
                ));
            }
        }
        if source.is_nil() {
            return Ok(dest);
        }
        if !dest.truthy() && self.overwrite_unmergeable() {
            return Ok(source);
        }
        match &source {
            R::H(src) => {
                let keys: Vec<Value> = src.borrow().keys().cloned().collect();
                let mut dest = dest;
                for k in keys {
                    let Some(src_value) = src.borrow().get(&k).cloned() else {
                        continue;
                    };
                    match &dest {
                        R::H(d) => {
                            let cur = d.borrow().get(&k).cloned();
                            let merged = match cur {
                                Some(cur) if cur.truthy() => {
                                    self.deep_merge(src_value, cur, depth + 1)?
                                }
                                // Missing or falsy in dest: merged into a dup of itself.
                                _ => {
                                    let dup = src_value.dup();
                                    self.deep_merge(src_value, dup, depth + 1)?
                                }
                            };
                            d.borrow_mut().insert(k, merged);
                        }
                        R::A(d) if self.o.extend_existing_arrays => {
                            d.borrow_mut().push(source.clone());
                        }
                        _ => {
                            if self.overwrite_unmergeable() {
                                dest = self.overwrite_unmergeables(&source, dest)?;
                            }
                        }
                    }
                }
                Ok(dest)
            }
            R::A(src) => {
                if self.o.overwrite_arrays {
                    return Ok(source.clone());
                }
                let mut source = source.clone();
                let mut dest = dest;
                if let Some(sep) = self.o.unpack_arrays.clone() {
                    source = unpack(&source, &sep);
                    if let R::A(_) = dest {
                        dest = unpack(&dest, &sep);
                    }
                }
                let src = match &source {
                    R::A(a) => a.clone(),
                    _ => src.clone(),
                };
                if let Some(kp) = self.o.knockout_prefix.clone() {
                    if src.borrow().iter().any(|e| e.eq_value(&kp)) {
                        dest = clear_or_nil(dest);
                        src.borrow_mut().retain(|e| !e.eq_value(&kp));
                    }
                }
                match dest.clone() {
                    R::A(d) => {
                        if let Some(re) = self.ko_regex()? {
                            knock_out(&src, &d, &re);
                        }
                        let (src_all_h, dest_all_h) = (
                            src.borrow().iter().all(|e| matches!(e, R::H(_))),
                            d.borrow().iter().all(|e| matches!(e, R::H(_))),
                        );
                        let mut merged: Vec<R> =
                            if self.o.merge_hash_arrays && src_all_h && dest_all_h {
                                let dl = d.borrow().len();
                                let mut list = Vec::with_capacity(dl);
                                for i in 0..dl {
                                    let s_i = src
                                        .borrow()
                                        .get(i)
                                        .filter(|x| x.truthy())
                                        .cloned()
                                        .unwrap_or_else(|| {
                                            R::H(Rc::new(RefCell::new(IndexMap::new())))
                                        });
                                    let d_i = d.borrow()[i].clone();
                                    list.push(self.deep_merge(s_i, d_i, depth + 1)?);
                                }
                                let sl = src.borrow().len();
                                if sl > dl {
                                    list.extend(src.borrow()[dl..].iter().cloned());
                                }
                                list
                            } else {
                                // dest | source
                                let mut out: Vec<R> = Vec::new();
                                for e in d.borrow().iter().chain(src.borrow().iter()) {
                                    if !out.iter().any(|x| x.eql(e)) {
                                        out.push(e.clone());
                                    }
                                }
                                out
                            };
                        if self.o.sort_merged_arrays {
                            let mut keyed: Vec<(Value, R)> = merged
                                .drain(..)
                                .map(|r| Ok((r.to_value(0)?, r)))
                                .collect::<Result<_, LookupError>>()?;
                            ruby_sort_by(&mut keyed, |p| &p.0)?;
                            merged = keyed.into_iter().map(|(_, r)| r).collect();
                        }
                        Ok(R::A(Rc::new(RefCell::new(merged))))
                    }
                    other => {
                        if self.overwrite_unmergeable() {
                            self.overwrite_unmergeables(&source, other)
                        } else {
                            Ok(other)
                        }
                    }
                }
            }
            R::S(_) => match &dest {
                R::A(d) if self.o.extend_existing_arrays => {
                    d.borrow_mut().push(source.clone());
                    Ok(dest)
                }
                _ => self.overwrite_unmergeables(&source, dest),
            },
        }
    }

    fn overwrite_unmergeables(&mut self, source: &R, dest: R) -> Result<R, LookupError> {
        if !self.overwrite_unmergeable() {
            return Ok(dest);
        }
        let Some(re) = self.ko_regex()? else {
            return Ok(source.clone());
        };
        match source {
            R::S(Value::String(s)) => {
                let tmp = gsub_empty(&re, s);
                if tmp == **s {
                    Ok(R::S(Value::string(tmp)))
                } else {
                    Ok(R::S(Value::string("")))
                }
            }
            R::A(a) => {
                // `source.delete_if {...}` returns the same (mutated) array, so `src_tmp ==
                // source` always holds and dest becomes the knocked-out source.
                let mut v = a.borrow_mut();
                v.retain(|e| !e.as_str().is_some_and(|s| regex_search(&re, s)));
                drop(v);
                Ok(source.clone())
            }
            // `src_tmp == source` is Float#== for a Float: false for NaN, so dest becomes ""
            // (recorded: merge/deep-knockout-nan). Arrays and hashes compare by identity
            // first, so a NaN inside them does not matter here.
            R::S(Value::Float(f)) if f.is_nan() => Ok(R::S(Value::string(""))),
            other => Ok(other.clone()),
        }
    }
}

/// The source of `%r{^#{knockout_prefix}}`. Onigmo accepts a quantifier right after `^` (it
/// repeats the anchor) where Oniguruma refuses it; the equivalent regex is built instead:
/// `^*X`/`^?X`/`^{0,n}X` match like an unanchored `X`, `^+X`/`^{n,m}X` (n ≥ 1) like `^X`
/// (recorded: merge/deep-knockout-regex-prefix, `*` and `+` knock out nothing).
fn knockout_regex_source(prefix: &str) -> String {
    let rest = prefix;
    let lazy = |r: &str| {
        r.strip_prefix('?')
            .or_else(|| r.strip_prefix('+'))
            .unwrap_or(r)
            .to_string()
    };
    if let Some(r) = rest.strip_prefix('*') {
        return format!("(?:){}", lazy(r));
    }
    if let Some(r) = rest.strip_prefix('?') {
        return format!("(?:){}", lazy(r));
    }
    if let Some(r) = rest.strip_prefix('+') {
        return format!("^{}", lazy(r));
    }
    if let Some(r) = rest.strip_prefix('{') {
        if let Some(close) = r.find('}') {
            let inner = &r[..close];
            let min = inner.split(',').next().unwrap_or("");
            if !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit() || c == ',') {
                let tail = lazy(&r[close + 1..]);
                return if min.is_empty() || min.parse::<u64>().unwrap_or(0) == 0 {
                    format!("(?:){tail}")
                } else {
                    format!("^{tail}")
                };
            }
        }
    }
    format!("^{prefix}")
}

/// `clear_or_nil`: containers and strings are emptied in place; anything else becomes nil.
fn clear_or_nil(r: R) -> R {
    match r {
        R::A(a) => {
            a.borrow_mut().clear();
            R::A(a)
        }
        R::H(h) => {
            h.borrow_mut().clear();
            R::H(h)
        }
        R::S(Value::String(_)) => R::S(Value::string("")),
        R::S(_) => R::S(Value::Undef),
    }
}

/// `source.delete_if { |ko| item = ko.gsub(/^P/, ''); if item != ko then dest.delete(item);
/// dest.delete(ko); true }`, with Ruby's in-place algorithm (`reject_bang_i`) so that a source
/// that *is* the dest (a value merged with itself) behaves as in Ruby.
fn knock_out(src: &Rc<RefCell<Vec<R>>>, dest: &Rc<RefCell<Vec<R>>>, re: &onig::Regex) {
    let mut i1 = 0;
    let mut i2 = 0;
    loop {
        let v = {
            let s = src.borrow();
            if i1 >= s.len() {
                break;
            }
            s[i1].clone()
        };
        let remove = match v.as_str() {
            Some(ko) => {
                let item = gsub_empty(re, ko);
                if item != ko {
                    let (item_v, ko_v) = (Value::string(item), Value::string(ko));
                    dest.borrow_mut().retain(|e| !(e.eq_value(&item_v)));
                    dest.borrow_mut().retain(|e| !(e.eq_value(&ko_v)));
                    true
                } else {
                    false
                }
            }
            // `item != ko` holds for NaN (Float#==), so a NaN is knocked out of the source,
            // and `dest.delete(NaN)` removes dest's NaNs (rb_equal tests identity first, and
            // Ruby's NaNs are one object; recorded: merge/deep-knockout-nan).
            None if matches!(&v, R::S(Value::Float(f)) if f.is_nan()) => {
                dest.borrow_mut()
                    .retain(|e| !matches!(e, R::S(Value::Float(g)) if g.is_nan()));
                true
            }
            None => false,
        };
        if !remove {
            let mut s = src.borrow_mut();
            if i1 != i2 {
                // rb_ary_store: past the end it pads with nil.
                while s.len() <= i2 {
                    s.push(R::S(Value::Undef));
                }
                s[i2] = v;
            }
            i2 += 1;
        }
        i1 += 1;
    }
    // select_bang_ensure: close the gap left by removed elements.
    let mut s = src.borrow_mut();
    let len = s.len();
    if i2 < len && i2 < i1 {
        let tail: Vec<R> = if i1 < len {
            s[i1..].to_vec()
        } else {
            Vec::new()
        };
        s.truncate(i2);
        s.extend(tail);
    }
}

/// `unpack_arrays`: `array.join(sep).split(sep)`.
fn unpack(r: &R, sep: &str) -> R {
    let Ok(v) = r.to_value(0) else {
        return r.clone();
    };
    let joined = match &v {
        Value::Array(a) => a
            .iter()
            .map(|x| x.to_ruby_s())
            .collect::<Vec<_>>()
            .join(sep),
        other => other.to_ruby_s(),
    };
    let mut parts: Vec<R> = if sep.is_empty() {
        joined
            .chars()
            .map(|c| R::S(Value::string(c.to_string())))
            .collect()
    } else {
        joined.split(sep).map(|p| R::S(Value::string(p))).collect()
    };
    while parts.last().and_then(|p| p.as_str()) == Some("") {
        parts.pop();
    }
    R::A(Rc::new(RefCell::new(parts)))
}

/// `DeepMerge.deep_merge!(source, deep_clone(dest), options)` with `preserve_unmergeables:
/// false` unless the options say otherwise. Returns the result and the source as the merge
/// left it.
fn deep_merge_values(
    source: &Value,
    dest: &Value,
    o: &DeepOptions,
) -> Result<(Value, Value), LookupError> {
    let s = R::from_value(source, 0)?;
    let d = R::from_value(dest, 0)?;
    let mut dm = Dm { o, ko_re: None };
    let r = dm.deep_merge(s.clone(), d, 0)?.to_value(0)?;
    Ok((r, s.to_value(0)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::string(x)
    }
    fn i(x: i64) -> Value {
        Value::Integer(x)
    }
    fn a(v: Vec<Value>) -> Value {
        Value::array(v)
    }
    fn h(pairs: Vec<(&str, Value)>) -> Value {
        Value::hash(pairs.into_iter().map(|(k, v)| (s(k), v)).collect())
    }
    fn strat(j: &str) -> MergeStrategy {
        MergeStrategy::parse(&Value::from_json(&serde_json::from_str(j).unwrap())).unwrap()
    }
    fn err(j: &str) -> LookupError {
        MergeStrategy::parse(&Value::from_json(&serde_json::from_str(j).unwrap())).unwrap_err()
    }

    #[test]
    fn parse_errors_are_puppets() {
        // Recorded: merge/invalid-strategy, and Puppet 7.23's MergeStrategy.strategy.
        let e = err(r#""Deep""#);
        assert_eq!(e.message, "Unknown merge strategy: 'Deep'");
        assert_eq!(e.kind, ErrorKind::Argument);
        assert_eq!(err(r#""""#).message, "Unknown merge strategy: ''");
        assert_eq!(
            err(r#"{"strategy":5}"#).message,
            "Unknown merge strategy: '5'"
        );
        assert_eq!(
            err(r#"{"strategy":[1,"a"]}"#).message,
            "Unknown merge strategy: '[1, \"a\"]'"
        );
        assert_eq!(err("true").message, "Unknown merge strategy: 'true'");
        assert_eq!(
            err(r#"{"knockout_prefix":"--"}"#).message,
            "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'"
        );
        let e = err(r#"{"strategy":"hash","knockout_prefix":"x"}"#);
        assert_eq!(
            e.message,
            "The merge options has wrong type, unrecognized key 'knockout_prefix'"
        );
        assert_eq!(e.kind, ErrorKind::TypeAssertion);
        assert_eq!(
            err(r#"{"strategy":"hash","a":1,"b":2}"#).message,
            " The merge options has wrong type, unrecognized key 'a'\n  The merge options has wrong type, unrecognized key 'b'"
        );
        assert_eq!(
            err(r#"{"strategy":"deep","knockout_prefix":5,"foo":1}"#).message,
            " The merge options has wrong type, entry 'knockout_prefix' expects a value of type Undef or String, got Integer\n  The merge options has wrong type, unrecognized key 'foo'"
        );
        assert_eq!(
            err(r#"{"strategy":"deep","sort_merged_arrays":"x","merge_debug":"y"}"#).message,
            " The merge options has wrong type, entry 'merge_debug' expects a value of type Undef or Boolean, got String\n  The merge options has wrong type, entry 'sort_merged_arrays' expects a value of type Undef or Boolean, got String"
        );
        assert_eq!(
            err(r#"{"strategy":"unconstrained_deep","":1}"#).message,
            "The merge options has wrong type, expects a Hash[String[1], Any] value, got Hash[Enum['', 'strategy'], Variant[String, Integer[1, 1]]]"
        );
        assert_eq!(
            err(r#"{"strategy":"default","x":1}"#).message,
            "The merge options has wrong type, unrecognized key 'x'"
        );
    }

    #[test]
    fn parse_accepts_internal_names_and_options() {
        assert_eq!(strat("null").kind, StrategyKind::Default);
        assert_eq!(strat("false").kind, StrategyKind::Default);
        assert_eq!(strat(r#""reverse_deep""#).kind, StrategyKind::ReverseDeep);
        let u = strat(r#"{"strategy":"unconstrained_deep","x":1}"#);
        assert_eq!(u.kind, StrategyKind::UnconstrainedDeep);
        let d = strat(r#"{"strategy":"deep"}"#);
        assert!(d.options.is_none());
        let d = strat(r#"{"strategy":"deep","knockout_prefix":null}"#);
        assert!(d.options.is_some());
        let d = strat(r#"{"strategy":"deep","knockout_prefix":"--","sort_merged_arrays":true}"#);
        assert_eq!(
            Value::hash(d.options_wo_strategy().unwrap()).ruby_inspect(),
            r#"{"knockout_prefix"=>"--", "sort_merged_arrays"=>true}"#
        );
    }

    #[test]
    fn unique_rules() {
        // §4.3 [verified]
        let u = MergeStrategy::of(StrategyKind::Unique);
        let m = |x: Value, y: Value| {
            let x = u.convert_value(x);
            u.merge(&x, &y).unwrap()
        };
        assert_eq!(
            m(a(vec![s("a"), s("b")]), a(vec![s("b"), s("c")])),
            a(vec![s("a"), s("b"), s("c")])
        );
        assert_eq!(m(s("x"), a(vec![s("y"), s("x")])), a(vec![s("x"), s("y")]));
        assert_eq!(
            m(
                a(vec![a(vec![i(1), i(2)]), i(3)]),
                a(vec![i(4), a(vec![i(1)])])
            ),
            a(vec![i(1), i(2), i(3), i(4)])
        );
        // 1, 1.0 and "1" are different (eql?)
        assert_eq!(
            m(a(vec![i(1)]), a(vec![Value::Float(1.0), s("1")])),
            a(vec![i(1), Value::Float(1.0), s("1")])
        );
        // Asymmetry: a hash or nil at the highest level is wrapped...
        assert_eq!(
            m(h(vec![("h", i(1))]), a(vec![s("a")])),
            a(vec![h(vec![("h", i(1))]), s("a")])
        );
        assert_eq!(
            m(Value::Undef, a(vec![s("a")])),
            a(vec![Value::Undef, s("a")])
        );
        // ...but fails at a lower one.
        let x = u.convert_value(a(vec![s("a")]));
        assert_eq!(
            u.merge(&x, &h(vec![("h", i(1))])).unwrap_err().message,
            "The second element of the merge has wrong type, expects a value of type Scalar or Array, got Struct"
        );
        assert_eq!(
            u.merge(&x, &Value::Undef).unwrap_err().message,
            "The second element of the merge has wrong type, expects a value of type Scalar or Array, got Undef"
        );
        assert_eq!(u.merge_single(a(vec![s("a"), s("a")])), a(vec![s("a")]));
        assert_eq!(u.merge_single(s("x")), s("x"));
    }

    #[test]
    fn hash_rules() {
        // §4.4 [verified]; recorded: merge/hash-type-errors
        let hs = MergeStrategy::of(StrategyKind::Hash);
        let r = hs
            .merge(
                &h(vec![("a", Value::Undef), ("b", i(1))]),
                &h(vec![("a", i(2)), ("c", i(3))]),
            )
            .unwrap();
        assert_eq!(r.ruby_inspect(), r#"{"a"=>nil, "c"=>3, "b"=>1}"#);
        let r = hs
            .merge(
                &h(vec![("z", i(1)), ("a", i(1))]),
                &h(vec![("m", i(2)), ("z", i(2))]),
            )
            .unwrap();
        assert_eq!(r.ruby_inspect(), r#"{"m"=>2, "z"=>1, "a"=>1}"#);
        assert_eq!(
            hs.merge(&s("top"), &h(vec![])).unwrap_err().message,
            "The first element of the merge has wrong type, expects a Hash value, got String"
        );
        assert_eq!(
            hs.merge(&h(vec![]), &Value::Undef).unwrap_err().message,
            "The second element of the merge has wrong type, expects a Hash value, got Undef"
        );
    }

    fn deep(opts: &str) -> MergeStrategy {
        strat(opts)
    }

    fn j(x: &str) -> Value {
        Value::from_json(&serde_json::from_str(x).unwrap())
    }

    #[test]
    fn deep_rules() {
        // §4.5 table [verified]; recorded: merge/deep-rules
        let d = deep(r#""deep""#);
        let m = |x: &str, y: &str| d.merge(&j(x), &j(y)).unwrap().ruby_inspect();
        assert_eq!(m(r#"{"a":null}"#, r#"{"a":1}"#), r#"{"a"=>1}"#);
        assert_eq!(m("[1,2]", "[2,3]"), "[2, 3, 1]");
        assert_eq!(m(r#"{"a":{"k":1}}"#, r#"{"a":[1]}"#), r#"{"a"=>{"k"=>1}}"#);
        assert_eq!(m(r#"{"a":[1]}"#, r#"{"a":{"k":1}}"#), r#"{"a"=>[1]}"#);
        assert_eq!(m(r#"{"a":false}"#, r#"{"a":true}"#), r#"{"a"=>false}"#);
        assert_eq!(m(r#"{"a":""}"#, r#"{"a":"x"}"#), r#"{"a"=>""}"#);
        assert_eq!(
            m(r#"{"z":1,"new":1}"#, r#"{"m":2,"z":2}"#),
            r#"{"m"=>2, "z"=>1, "new"=>1}"#
        );
        assert_eq!(m(r#""node""#, r#""role""#), r#""node""#);
        assert_eq!(m("null", r#"{"a":1}"#), r#"{"a"=>1}"#);
        // Falsy dest values are replaced by the source merged with itself.
        assert_eq!(
            m(r#"{"a":{"x":1},"b":[1]}"#, r#"{"a":false,"b":null}"#),
            r#"{"a"=>{"x"=>1}, "b"=>[1]}"#
        );
        // A new key's array is merged with a copy of itself: duplicates go.
        assert_eq!(m(r#"{"a":[1,1,2]}"#, r#"{}"#), r#"{"a"=>[1, 2]}"#);
    }

    #[test]
    fn deep_knockout() {
        // Recorded: merge/deep-knockout-prefix
        let d = deep(r#"{"strategy":"deep","knockout_prefix":"--"}"#);
        let m = |x: &str, y: &str| d.merge(&j(x), &j(y)).unwrap().ruby_inspect();
        // knockouts remove lower elements; hash keys are never knocked out.
        assert_eq!(m(r#"["a","--z"]"#, r#"["z","b"]"#), r#"["b", "a"]"#);
        assert_eq!(m(r#"["--"]"#, r#"["z","b"]"#), "[]");
        assert_eq!(m(r#"{"a":"--x"}"#, r#"{"a":"y"}"#), r#"{"a"=>""}"#);
        assert_eq!(m(r#"{"a":"--x"}"#, r#"{}"#), r#"{"a"=>""}"#);
        assert_eq!(m(r#"{"--e":1}"#, r#"{"e":2}"#), r#"{"e"=>2, "--e"=>1}"#);
        // The knockout element itself is dropped even when nothing matches.
        assert_eq!(m(r#"["--q","x"]"#, r#"["y"]"#), r#"["y", "x"]"#);
        let e = deep(r#"{"strategy":"deep","knockout_prefix":""}"#)
            .merge(&j("[1]"), &j("[2]"))
            .unwrap_err();
        assert_eq!(
            e.message,
            "knockout_prefix cannot be an empty string in deep_merge!"
        );
        // Values merged with themselves (Ruby aliasing through `dup`); recorded with Puppet 7.23.
        assert_eq!(m(r#"{"a":["--b","c","c"]}"#, "{}"), r#"{"a"=>["c"]}"#);
        assert_eq!(
            m(r#"{"a":["--c","c","--c","d"]}"#, "{}"),
            r#"{"a"=>["d", "c"]}"#
        );
        assert_eq!(m(r#"{"a":["--","x"]}"#, "{}"), r#"{"a"=>["x"]}"#);
        assert_eq!(
            m(r#"{"a":["--","x"]}"#, r#"{"a":"str"}"#),
            r#"{"a"=>["x"]}"#
        );
        assert_eq!(
            m(r#"{"a":["--x","x"]}"#, r#"{"a":{"k":1}}"#),
            r#"{"a"=>["x"]}"#
        );
        assert_eq!(
            m(r#"{"a":{"b":["--c","c","d"]}}"#, r#"{"a":[1]}"#),
            r#"{"a"=>{"b"=>["--c", "c", "d"]}}"#
        );
        assert_eq!(
            m(r#"{"a":{"b":["--c","c","d"],"e":["f","f"]}}"#, r#"{"a":5}"#),
            r#"{"a"=>{"b"=>["--c", "c", "d"], "e"=>["f"]}}"#
        );
        let ds = deep(r#"{"strategy":"deep","knockout_prefix":"--","sort_merged_arrays":true}"#);
        assert_eq!(
            ds.merge(&j(r#"{"a":["z","--c","c","d"]}"#), &j("{}"))
                .unwrap()
                .ruby_inspect(),
            r#"{"a"=>["c", "d", "z"]}"#
        );
        assert_eq!(e.kind, ErrorKind::DeepMergeInvalidParameter);
        // The prefix is an unescaped regex: `/^(/` does not compile.
        let e = deep(r#"{"strategy":"deep","knockout_prefix":"("}"#)
            .merge(&j(r#"["a"]"#), &j(r#"["b"]"#))
            .unwrap_err();
        assert_eq!(e.message, "end pattern with unmatched parenthesis: /^(/");
        assert_eq!(e.kind, ErrorKind::Regexp);
        // `x.` matches `xy...`
        let d = deep(r#"{"strategy":"deep","knockout_prefix":"x."}"#);
        assert_eq!(
            d.merge(&j(r#"["xya"]"#), &j(r#"["a","b"]"#))
                .unwrap()
                .ruby_inspect(),
            r#"["b"]"#
        );
    }

    #[test]
    fn deep_sort_and_hash_arrays() {
        // Recorded: merge/deep-sort-merged-arrays, merge/deep-merge-hash-arrays
        let d = deep(r#"{"strategy":"deep","sort_merged_arrays":true}"#);
        assert_eq!(
            d.merge(&j(r#"["b","a","f"]"#), &j(r#"["c","e","d"]"#))
                .unwrap()
                .ruby_inspect(),
            r#"["a", "b", "c", "d", "e", "f"]"#
        );
        let e = d.merge(&j(r#"["b",1]"#), &j(r#"["a",2]"#)).unwrap_err();
        assert_eq!(e.message, "comparison of String with 2 failed");
        let d = deep(r#"{"strategy":"deep","merge_hash_arrays":true}"#);
        assert_eq!(
            d.merge(&j(r#"[{"a":1},{"b":2},{"c":3}]"#), &j(r#"[{"a":0,"x":1}]"#))
                .unwrap()
                .ruby_inspect(),
            r#"[{"a"=>1, "x"=>1}, {"b"=>2}, {"c"=>3}]"#
        );
        // Mixed arrays fall back to `dest | source`.
        assert_eq!(
            d.merge(&j(r#"[{"a":1},2]"#), &j(r#"[{"a":0}]"#))
                .unwrap()
                .ruby_inspect(),
            r#"[{"a"=>0}, {"a"=>1}, 2]"#
        );
    }

    #[test]
    fn reverse_deep_swaps() {
        let d = deep(r#""reverse_deep""#);
        assert_eq!(
            d.merge(&j(r#"{"a":[1]}"#), &j(r#"{"a":[2]}"#))
                .unwrap()
                .ruby_inspect(),
            r#"{"a"=>[1, 2]}"#
        );
        assert_eq!(
            d.merge(&j(r#"{"a":1}"#), &j(r#"{"b":2}"#))
                .unwrap()
                .ruby_inspect(),
            r#"{"a"=>1, "b"=>2}"#
        );
    }
}

//! H406 `merge-type-mismatch`: a merging lookup that fails for some fact sets because the
//! values its levels give cannot be merged (a unique merge meeting a hash or nil at a lower
//! level, a hash merge meeting a string, `sort_merged_arrays` over mixed types).
//!
//! The engine decides. A static pre-filter keeps only the keys some lookup_options entry gives
//! a merging strategy (only those can fail on types); each such key is looked up once for the
//! groups of nodes whose data cannot answer differently ([`EnvAnalysis::lookup_shared`]: with
//! one group per node file, most keys come from files every group reads), and in their own
//! sessions for the others. Only a key that fails with a merge error is looked up again with an
//! explanation, which names the merge strategy and the value each location gave (in priority
//! order, paired with the outcome's provenance for spans); replaying Puppet's pairwise merge
//! over those values finds the pair it fails on. Environments whose lookup_options set no
//! merging strategy are skipped without asking the engine anything.
//!
//! [`EnvAnalysis::lookup_shared`]: crate::analysis::EnvAnalysis::lookup_shared

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::{EnvAnalysis, Group};
use crate::diag::Diagnostic;
use crate::engine::explain::{Event, Explainer, NodeKind};
use crate::engine::merge::{MergeStrategy, StrategyKind};
use crate::engine::ruby::{regex_search, ruby_regex, Prefiltered, PrefixIndex};
use crate::engine::LookupRequest;
use crate::project::Project;
use crate::rules::{lopts, Rule, RuleMeta, Sink};
use crate::span::{SourceFile, Span};
use crate::value::{Hash, Value};

crate::declare_rule!(pub static META = {
    code: "H406",
    name: "merge-type-mismatch",
    category: Correctness,
    summary: "a merge that fails for some fact sets: a unique merge meeting a hash or nil, a hash merge meeting a string",
});

pub struct MergeTypeMismatch;

impl Rule for MergeTypeMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_lookup_options(&self) -> bool {
        true
    }

    fn needs_analysis(&self) -> bool {
        true
    }

    /// Among the longest project phases: the merging keys' lookups per group.
    fn project_cost(&self) -> u8 {
        1
    }

    fn needs_shared_lookups(&self) -> bool {
        true
    }

    fn prepare(&self, project: &Project) {
        if project.files.iter().any(sets_merge) {
            prepared(project);
        }
    }

    fn check_project(&self, project: &Project, sink: &mut Sink) {
        if !project.files.iter().any(sets_merge) {
            return;
        }
        let analysis = project.analysis();
        for env in &analysis.envs {
            let in_env =
                |f: &&crate::project::LoadedFile| f.env_root.as_deref() == Some(&*env.root);
            if !project.files.iter().filter(in_env).any(sets_merge) {
                continue;
            }
            check_env(project, env, &prepared(project), sink);
        }
    }
}

/// The project's [`Prepared`] file summaries, computed once.
fn prepared(project: &Project) -> Arc<Prepared> {
    project.rule_memo(META.name, || Prepared::of(project))
}

/// The lookup_options keys of a file whose entry asks for a merge other than first-found.
fn merging_keys(f: &crate::project::LoadedFile) -> Vec<&str> {
    lopts::entries(f)
        .into_iter()
        .filter(|e| {
            let Some(m) = e.value.as_map() else {
                return false;
            };
            let Some(merge) = lopts::effective_entries(m)
                .into_iter()
                .find(|o| o.key.as_str() == Some("merge"))
            else {
                return false;
            };
            MergeStrategy::parse(&merge.value.to_value()).is_ok_and(|s| !s.is_first_found())
        })
        .filter_map(|e| e.key.as_str())
        .collect()
}

/// Whether a file's lookup_options give some key a merge other than first-found (the only
/// lookups that can fail on types).
fn sets_merge(f: &crate::project::LoadedFile) -> bool {
    !merging_keys(f).is_empty()
}

/// The static pre-filter: the keys some lookup_options entry of the environment (or of one of
/// its modules) gives a merging strategy, literally or by pattern. A superset of the keys whose
/// effective merge is not first-found (which entry wins is the engine's business), so no
/// failing key is missed and most keys are never looked up here.
struct Candidates {
    literal: crate::engine::vfs::FastSet<String>,
    patterns: Vec<Prefiltered>,
    /// The patterns by literal prefix.
    index: PrefixIndex,
}

impl Candidates {
    fn of(project: &Project, root: &Path) -> Candidates {
        let mut c = Candidates {
            literal: Default::default(),
            patterns: Vec::new(),
            index: PrefixIndex::new([]),
        };
        for f in project
            .files
            .iter()
            .filter(|f| f.env_root.as_deref() == Some(root))
        {
            for k in merging_keys(f) {
                if k.starts_with('^') {
                    // A pattern Ruby refuses breaks every lookup instead (H403).
                    if let Ok(re) = ruby_regex(k) {
                        c.patterns.push(Prefiltered::new(k, re));
                    }
                } else {
                    c.literal.insert(k.to_string());
                }
            }
        }
        c.index = PrefixIndex::new(c.patterns.iter().map(Prefiltered::prefix));
        c
    }

    fn contains(&self, key: &str, one_line: bool) -> bool {
        self.literal.contains(key)
            || self
                .index
                .candidates(key, one_line)
                .into_iter()
                .any(|i| self.patterns[i as usize].search_line(key, one_line))
    }
}

/// What the strategies lookup_options may give a key require of its values for no merge of
/// them to fail: the value types of `unique` (`Variant[Scalar, Array[Data]]`) and `hash`
/// (`Hash[String, Data]`), checked by `MergeStrategy#merge` (reference §4.3-§4.4); deep merges
/// accept any value and fail only when sorting (`sort_merged_arrays`, §4.5).
#[derive(Clone, Copy, Default)]
struct Need {
    unique: bool,
    hash: bool,
    /// A deep merge with `sort_merged_arrays: true`: every array the merge meets is sorted
    /// (`dest.sort!` after each array merge; an array under a key only one level gives is
    /// sorted too when the hashes merge), which fails on elements Ruby cannot compare
    /// (recorded: conformance/merge/deep-sort-merged-arrays, `mixed`, `newkey`, `newmixed`).
    sort: bool,
    /// Some merge of the key may fail whatever its values are (or the entry is not understood).
    always: bool,
}

impl Need {
    fn of_merge(merge: &Value) -> Need {
        let mut need = Need::default();
        if crate::engine::data::has_interpolation(merge) {
            need.always = true;
            return need;
        }
        match MergeStrategy::parse(merge) {
            Ok(s) => match s.kind {
                StrategyKind::Unique => need.unique = true,
                StrategyKind::Hash => need.hash = true,
                StrategyKind::Deep
                | StrategyKind::ReverseDeep
                | StrategyKind::UnconstrainedDeep => {
                    // The options passed their type check (`sort_merged_arrays` is a Boolean
                    // or nil): only `true` sorts.
                    need.sort = merge.as_hash().is_some_and(|h| {
                        h.get(&Value::string("sort_merged_arrays")) == Some(&Value::Bool(true))
                    });
                }
                StrategyKind::First | StrategyKind::Default => {}
            },
            Err(_) => need.always = true,
        }
        need
    }

    fn add(&mut self, other: Need) {
        self.unique |= other.unique;
        self.hash |= other.hash;
        self.sort |= other.sort;
        self.always |= other.always;
    }

    /// Whether `v`, as a file gives it, passes every check a merge of the key makes. A value
    /// with an `alias` token (which gives the aliased value, of any type) or an eyaml `ENC[`
    /// (decrypted at lookup) is not judged here. Other tokens leave a String a String: Puppet
    /// substitutes their results with `to_s` (reference §5.3; recorded from Puppet in
    /// fixtures/conformance/interp/methods: `"%{lookup('arr')}"` gives a String, `alias` the
    /// Array), and values are interpolated before they are merged.
    ///
    /// The model `Need::safe_node` is tested against (the rule judges trees).
    #[cfg(test)]
    fn safe(&self, v: &Value) -> bool {
        !self.always
            // What may be an `alias` token, or an eyaml block (keys included).
            && !v.any_string(may_alias_or_encrypt)
            && (!self.unique || crate::engine::types::check_scalar_or_array_data("x", v).is_none())
            && (!self.hash || crate::engine::types::check_hash_string_data("x", v).is_none())
            && (!self.sort || arrays_of_strings(v))
    }

    /// `Need::safe` (the test model) of the value `n` loads as (`n.to_value()`), judged on the
    /// tree itself: converting every candidate key's value to decide this was a tenth of the
    /// rule's file summaries at 15k files (a Value built, hashed and freed per entry). The same answer,
    /// except that every entry of a mapping is judged where the value keeps the last of a
    /// duplicated key: such a value may be called unsafe when it is not, and is then looked
    /// up (slower, never another finding). Test `node_judgement_agrees_with_the_value_one`.
    fn safe_node(&self, n: &crate::value::Node) -> bool {
        !self.always
            && !node_any_string(n, may_alias_or_encrypt)
            && (!self.unique || node_scalar_or_array_data(n))
            && (!self.hash || node_hash_string_data(n))
            && (!self.sort || node_arrays_of_strings(n))
    }
}

/// [`Value::any_string`] of a node's value (keys included), over every entry.
fn node_any_string(n: &crate::value::Node, pred: impl Fn(&str) -> bool + Copy) -> bool {
    use crate::value::NodeKind;
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        match &n.kind {
            NodeKind::Scalar(s) => {
                if s.value.any_string(pred) {
                    return true;
                }
            }
            NodeKind::Seq(items) => stack.extend(items.iter()),
            NodeKind::Map(m) => {
                for e in &m.entries {
                    stack.push(&e.key);
                    stack.push(&e.value);
                }
            }
        }
    }
    false
}

/// [`crate::engine::types::is_data_value`] of a node's value, every entry judged.
fn node_is_data(n: &crate::value::Node) -> bool {
    use crate::value::NodeKind;
    match &n.kind {
        NodeKind::Scalar(s) => crate::engine::types::is_data_value(&s.value),
        NodeKind::Seq(items) => items.iter().all(node_is_data),
        NodeKind::Map(m) => m.entries.iter().all(|e| {
            matches!(&e.key.kind, NodeKind::Scalar(k) if matches!(k.value, Value::String(_)))
                && node_is_data(&e.value)
        }),
    }
}

/// No message from [`crate::engine::types::check_scalar_or_array_data`] for a node's value
/// (`Variant[Scalar, Array[Data]]`, the unique merge's check).
fn node_scalar_or_array_data(n: &crate::value::Node) -> bool {
    use crate::value::NodeKind;
    match &n.kind {
        NodeKind::Scalar(s) => {
            crate::engine::types::check_scalar_or_array_data("x", &s.value).is_none()
        }
        NodeKind::Seq(items) => items.iter().all(node_is_data),
        NodeKind::Map(_) => false,
    }
}

/// No message from [`crate::engine::types::check_hash_string_data`] for a node's value
/// (`Hash[String, Data]`, the hash merge's check).
fn node_hash_string_data(n: &crate::value::Node) -> bool {
    use crate::value::NodeKind;
    match &n.kind {
        NodeKind::Scalar(s) => {
            crate::engine::types::check_hash_string_data("x", &s.value).is_none()
        }
        NodeKind::Seq(_) => false,
        NodeKind::Map(_) => node_is_data(n),
    }
}

/// [`arrays_of_strings`] of a node's value, every entry judged.
fn node_arrays_of_strings(n: &crate::value::Node) -> bool {
    use crate::value::NodeKind;
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        match &n.kind {
            NodeKind::Scalar(s) => {
                if !arrays_of_strings(&s.value) {
                    return false;
                }
            }
            NodeKind::Seq(items) => {
                if !items.iter().all(
                    |x| matches!(&x.kind, NodeKind::Scalar(s) if matches!(s.value, Value::String(_))),
                ) {
                    return false;
                }
            }
            NodeKind::Map(m) => stack.extend(m.entries.iter().map(|e| &e.value)),
        }
    }
    true
}

/// Whether `s` may hold an `alias` token (`%{` and `alias`) or an eyaml block (`ENC[`). Most
/// strings hold neither `%` nor `E`: one scan for those two bytes settles them (three substring
/// searches, each building its searcher, were a sixth of this rule's file summaries).
fn may_alias_or_encrypt(s: &str) -> bool {
    let b = s.as_bytes();
    if memchr::memchr2(b'%', b'E', b).is_none() {
        return false;
    }
    (s.contains("%{") && s.contains("alias")) || s.contains("ENC[")
}

/// Whether every array in `v` (at any depth) holds only Strings: such arrays stay sortable
/// however a merge unites them (Strings compare with Strings), where numbers meeting Strings,
/// Hashes or nil do not (`comparison of String with 2 failed`). Numbers alone would sort too,
/// but a number array at one level and a String array at another merge into one that fails,
/// so they are not judged safe. Interpolation leaves a String a String (`alias` is excluded
/// by the caller).
fn arrays_of_strings(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) if !a.iter().all(|x| matches!(x, Value::String(_))) => return false,
            Value::Hash(h) => stack.extend(h.iter().map(|(_, x)| x)),
            _ => {}
        }
    }
    true
}

/// Every merge strategy the environment's lookup_options give, by literal key and by pattern,
/// from every entry (YAML merge keys and duplicates included: which entry wins is the engine's
/// business, so all of them count).
struct Strategies {
    literal: crate::engine::vfs::FastMap<String, Need>,
    patterns: Vec<(Prefiltered, Need)>,
    /// The patterns by literal prefix.
    index: PrefixIndex,
    /// False when some lookup_options key is interpolated (keys are interpolated like values,
    /// reference §3.1): which key such an entry names is known only at lookup time, so no value
    /// is judged safe.
    sound: bool,
}

impl Strategies {
    fn of(project: &Project, root: &Path) -> Strategies {
        let mut s = Strategies {
            literal: Default::default(),
            patterns: Vec::new(),
            index: PrefixIndex::new([]),
            sound: true,
        };
        for f in project
            .files
            .iter()
            .filter(|f| f.env_root.as_deref() == Some(root))
        {
            // Most files have no lookup_options: known from the parse (`Document::
            // lookup_options_at`), not from a walk of every root key of every file long after
            // (270,000 cache misses at 15k files, docs/benchmarks.md session 32).
            if !lopts::any_lookup_options(&f.doc) {
                continue;
            }
            let Some(root) = f.doc.root.as_ref().and_then(|r| r.as_map()) else {
                continue;
            };
            for top in root
                .entries
                .iter()
                .filter(|e| e.key.as_str() == Some(lopts::LOOKUP_OPTIONS))
            {
                let Some(m) = top.value.as_map() else {
                    continue;
                };
                for e in &m.entries {
                    let Some(k) = e.key.as_str() else { continue };
                    if k.contains("%{") {
                        s.sound = false;
                    }
                    let mut need = Need::default();
                    for merge in e
                        .value
                        .as_map()
                        .into_iter()
                        .flat_map(|o| o.entries.iter())
                        .filter(|o| o.key.as_str() == Some("merge"))
                    {
                        need.add(Need::of_merge(&merge.value.to_value()));
                    }
                    if k.starts_with('^') {
                        // A pattern Ruby refuses breaks every lookup instead (H403).
                        if let Ok(re) = ruby_regex(k) {
                            s.patterns.push((Prefiltered::new(k, re), need));
                        }
                    } else {
                        s.literal.entry(k.to_string()).or_default().add(need);
                    }
                }
            }
        }
        s.index = PrefixIndex::new(s.patterns.iter().map(|(p, _)| p.prefix()));
        s
    }

    /// What the strategies that may apply to root key `key` require.
    fn need(&self, key: &str, one_line: bool) -> Need {
        let mut need = self.literal.get(key).copied().unwrap_or_default();
        for i in self.index.candidates(key, one_line) {
            let (p, n) = &self.patterns[i as usize];
            if p.search_line(key, one_line) {
                need.add(*n);
            }
        }
        need
    }
}

/// Whether a lookup error is a merge failure on the values' types (reference §4.3-§4.5).
fn is_merge_error(message: &str) -> bool {
    let m = message.trim_start();
    m.starts_with("The first element of the merge has wrong type")
        || m.starts_with("The second element of the merge has wrong type")
        || (m.starts_with("comparison of ") && m.ends_with(" failed"))
}

/// A value a location gave, with where it is written.
struct Found {
    value: Value,
    file: Arc<SourceFile>,
    key_span: Span,
    value_span: Span,
}

impl Found {
    /// The value, or the key for a value with no text (`k:`).
    fn span(&self) -> Span {
        if self.value_span.is_empty() {
            self.key_span
        } else {
            self.value_span
        }
    }
}

/// What a failing merge is about.
struct Attribution {
    strategy: MergeStrategy,
    bad: Found,
    other: Option<Found>,
}

/// The lookup request for a root key (quoted when it holds dots or quotes, as
/// `Group::outcomes` does).
fn request(key: &str) -> String {
    if key.contains('.') || key.contains('\'') || key.contains('"') {
        format!("\"{key}\"")
    } else {
        key.to_string()
    }
}

/// The values the explained lookup found for the key itself, in lookup order, and its merge.
fn explained(ex: &Explainer) -> Option<(MergeStrategy, Vec<(String, Value)>)> {
    let top = ex
        .nodes
        .iter()
        .position(|n| matches!(n.kind, NodeKind::Top { meta: false, .. }))?;
    let mut merge: Option<MergeStrategy> = None;
    let mut found = Vec::new();
    // Depth-first, in order, skipping interpolations (their sub-lookups find other keys).
    let mut stack = vec![top];
    while let Some(id) = stack.pop() {
        let n = &ex.nodes[id];
        match &n.kind {
            NodeKind::Interpolate { .. } => continue,
            NodeKind::Top { meta: true, .. } => continue,
            NodeKind::Merge { strategy, options } if merge.is_none() => {
                let mut h = Hash::default();
                h.insert(Value::string("strategy"), Value::string(*strategy));
                for (k, v) in options.iter().flatten() {
                    h.insert(k.clone(), v.clone());
                }
                merge = MergeStrategy::parse(&Value::hash(h)).ok();
            }
            NodeKind::Location { location, .. } if n.event == Some(Event::Found) => {
                found.push((location.clone(), n.value.clone().unwrap_or(Value::Undef)));
            }
            _ => {}
        }
        stack.extend(n.branches.iter().rev());
    }
    Some((merge?, found))
}

/// Runs the key's lookup again with an explanation and finds the pair of values Puppet's merge
/// fails on.
fn attribute(env: &EnvAnalysis, g: &Group, key: &str) -> Option<Attribution> {
    let session = env
        .engine
        .session(env.nodes[*g.nodes.first()?].scope.clone());
    let o = session.lookup(&LookupRequest::new(&request(key)).explain(true));
    let (strategy, values) = explained(o.explain.as_ref()?)?;
    if strategy.is_first_found() {
        return None;
    }
    // Pair each explained value with its provenance (same order); the paths must agree.
    if values.len() != o.provenance.len() {
        return None;
    }
    let mut found = Vec::with_capacity(values.len());
    for ((loc, value), p) in values.into_iter().zip(o.provenance.iter()) {
        if Path::new(&loc) != p.file.path.as_path() {
            return None;
        }
        found.push(Found {
            value,
            file: p.file.clone(),
            key_span: p.key_span,
            value_span: p.value_span,
        });
    }
    if found.len() < 2 {
        return None;
    }
    // Puppet's reduction: memo = convert(first), then merge(memo, next) (reference §4.1).
    let mut memo = strategy.convert_value(found[0].value.clone());
    let mut failed: Option<(usize, usize)> = None;
    for i in 1..found.len() {
        match strategy.merge(&memo, &found[i].value) {
            Ok(r) => memo = r,
            Err(e) => {
                let m = e.message.trim_start();
                failed = Some(if m.starts_with("The first element") {
                    (i - 1, i)
                } else if m.starts_with("comparison of ") && unsortable(&found[i - 1].value) {
                    // sort_merged_arrays: the value whose own arrays cannot be sorted is the
                    // culprit; when neither is, the lower one that joins the mix.
                    (i - 1, i)
                } else {
                    (i, i - 1)
                });
                break;
            }
        }
    }
    // Nested merges (layers, then levels, then locations) can fail where the flat replay does
    // not; then the first value the strategy's type rejects is the culprit.
    let (bad, other) = failed.or_else(|| {
        let check = |v: &Value| match strategy.kind {
            StrategyKind::Unique => crate::engine::types::check_scalar_or_array_data("x", v),
            StrategyKind::Hash => crate::engine::types::check_hash_string_data("x", v),
            _ => None,
        };
        (1..found.len())
            .find(|&i| check(&found[i].value).is_some())
            .map(|i| (i, i - 1))
    })?;
    let mut found: Vec<Option<Found>> = found.into_iter().map(Some).collect();
    Some(Attribution {
        strategy,
        bad: found[bad].take()?,
        other: found[other].take(),
    })
}

/// Whether `v` holds an array Ruby's `sort` refuses (elements it cannot compare), at any depth.
fn unsortable(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => {
                let mut copy: Vec<Value> = a.to_vec();
                if crate::engine::ruby::ruby_sort(&mut copy).is_err() {
                    return true;
                }
                stack.extend(a.iter());
            }
            Value::Hash(h) => stack.extend(h.values()),
            _ => {}
        }
    }
    false
}

/// The lookup_options entry that gives `key` its merge, among the files of the group's
/// hierarchy: a literal key first, else the first pattern that matches (reference §3.3).
fn options_entry(project: &Project, g: &Group, key: &str) -> Option<(Arc<SourceFile>, Span)> {
    let mut files = Vec::new();
    for level in &g.hierarchy.levels {
        for loc in level.locations.iter().flatten() {
            if loc.exists && !loc.is_uri {
                if let Some(f) = project.file(loc.path()) {
                    files.push(f);
                }
            }
        }
    }
    let entries: Vec<_> = files
        .iter()
        .flat_map(|f| lopts::entries(f).into_iter().map(move |e| (*f, e)))
        .filter(|(_, e)| e.value.as_map().is_some_and(|m| m.get("merge").is_some()))
        .collect();
    if let Some((f, e)) = entries.iter().find(|(_, e)| e.key.as_str() == Some(key)) {
        return Some((f.source.clone(), e.key.span));
    }
    entries
        .iter()
        .find(|(_, e)| {
            e.key.as_str().is_some_and(|k| {
                k.starts_with('^') && ruby_regex(k).is_ok_and(|re| regex_search(&re, key))
            })
        })
        .map(|(f, e)| (f.source.clone(), e.key.span))
}

/// A finding, gathered over the groups it holds for.
struct Finding {
    key: String,
    a: Attribution,
    message: String,
    from: Option<(Arc<SourceFile>, Span)>,
    groups: Vec<usize>,
}

/// Per data file of each environment (by root): its candidate root keys (in file order,
/// duplicates kept) and whether the value could take part in a failing merge. Computed once per
/// file, not once per group that reads it (a common file is read by every group), and before
/// the analysis is ready ([`Rule::prepare`]): done in `check_project`, this pass was a serial
/// third of the rule, the last project rule to finish on a 1.5k-file repository.
struct Prepared {
    /// Keyed by PathKey: hashing a `Path` walks its components, and every location of every
    /// level of the groups looked up here is probed.
    envs: BTreeMap<PathBuf, FileKeys>,
}

/// Per data file: its candidate root keys and whether each value is safe.
type FileKeys = crate::engine::vfs::SourceTable<Vec<(Arc<str>, bool)>>;

/// The candidate keys of one file (whether each value is safe), as [`FileKeys`] holds them.
type KeyList<'p> = &'p [(Arc<str>, bool)];

impl Prepared {
    fn of(project: &Project) -> Prepared {
        // The environments the analysis makes, by the same roots.
        let envs = crate::analysis::environment_roots(project)
            .into_iter()
            .map(|root| {
                let files = Prepared::env(project, &root);
                (root, files)
            })
            .collect();
        Prepared { envs }
    }

    fn env(project: &Project, root: &Path) -> FileKeys {
        let candidates = Candidates::of(project, root);
        let strategies = Strategies::of(project, root);
        // The files in parallel, each thread with its own memo of the keys it judged (a key
        // in files of both threads is judged twice): serial, this preparation ran for 40 ms
        // at 15k files after the analysis it runs beside had finished, one core idle.
        let files: Vec<&crate::project::LoadedFile> = project
            .files
            .iter()
            .filter(|f| f.env_root.as_deref() == Some(root))
            .collect();
        let lists: Vec<Vec<(Arc<str>, bool)>> = files
            .par_iter()
            .map_init(
                crate::engine::vfs::FastMap::<u64, Option<Need>>::default,
                |is_candidate, f| {
                    let mut keys = Vec::new();
                    let Some(map) = f.doc.root.as_ref().and_then(|r| r.as_map()) else {
                        return keys;
                    };
                    // The keys by their hashes, found at parse time (`Document::root_key_hashes`,
                    // one per entry, in order): a key judged before is passed over without
                    // reading its entry or its text, out of the cache in a large repository
                    // (that read was 250,000 cache misses at 15k files). The engine files keys
                    // by the same 64-bit hashes (`LevelIndex`).
                    let hashes = crate::engine::data::root_key_hashes(&f.doc);
                    for (&h, e) in hashes.iter().zip(&map.entries) {
                        let need = match is_candidate.get(&h) {
                            Some(need) => *need,
                            None => {
                                let need = root_string_key(e).and_then(|k| {
                                    // Whether the key is one line, found once for every
                                    // pattern.
                                    let one_line = crate::engine::ruby::one_line(k);
                                    candidates
                                        .contains(k, one_line)
                                        .then(|| strategies.need(k, one_line))
                                });
                                is_candidate.insert(h, need);
                                need
                            }
                        };
                        let Some(need) = need else { continue };
                        let Some(k) = root_string_key(e) else {
                            continue;
                        };
                        let safe = strategies.sound && need.safe_node(&e.value);
                        // The document's own key (a reference count), not a copy.
                        keys.push((k.clone(), safe));
                    }
                    keys
                },
            )
            .collect();
        let mut infos = FileKeys::with_capacity(files.len());
        for (f, keys) in files.into_iter().zip(lists) {
            infos.insert(f.source.clone(), keys);
        }
        infos
    }
}

/// A root entry's key as a lookup names it (what `e.key.to_value()` gives for a scalar string
/// or symbol key), unless it is `lookup_options`, which no lookup merges.
fn root_string_key(e: &crate::value::Entry) -> Option<&Arc<str>> {
    match &e.key.kind {
        crate::value::NodeKind::Scalar(crate::value::Scalar {
            value: Value::String(k) | Value::Symbol(k),
            ..
        }) if &**k != lopts::LOOKUP_OPTIONS => Some(k),
        _ => None,
    }
}

/// The candidate keys of the files a level's existing locations read, appended to `out` (a
/// file two levels read is listed twice: both give a value to merge).
fn level_lists<'p>(
    infos: &'p FileKeys,
    level: &crate::engine::ResolvedLevel,
    out: &mut Vec<KeyList<'p>>,
) {
    for loc in level.locations.iter().flatten() {
        if loc.exists && !loc.is_uri {
            if let Some((_, list)) = infos.get(loc.path()) {
                out.push(list);
            }
        }
    }
}

/// [`level_lists`] of every level of a shared block of module levels.
fn block_key_lists<'p>(
    infos: &'p FileKeys,
    block: &crate::engine::SharedLevels,
) -> Vec<KeyList<'p>> {
    let mut out = Vec::new();
    for level in block.levels() {
        level_lists(infos, level, &mut out);
    }
    out
}

fn check_env(project: &Project, env: &EnvAnalysis, prepared: &Prepared, sink: &mut Sink) {
    let Some(infos) = prepared.envs.get(&*env.root) else {
        return;
    };
    // A key is looked up only when a merge of it can fail: Puppet merges only when two
    // locations give a value (one value is returned as it is, `MergeStrategy#lookup`;
    // `attribute` needs two), and a merge of values that all pass the type check of every
    // strategy lookup_options may give the key (`Need`) cannot fail. A location the project
    // did not load could hold anything: a group reading one looks up every candidate key its
    // data defines.
    let index = env.read_index();
    // Whether each group reads a location the project did not load: each list of files
    // (a level's, a shared block's) judged once, not once per hierarchy holding it.
    let unknown: Vec<bool> =
        index.groups_reading_any(|id| !infos.contains(&index.paths()[id as usize]));
    // Per candidate key: the files defining it (by read-index id, found once per file: a path
    // hashed per key and file was a third of this function), and whether every value it has
    // is safe. A file no group reads has no id, and no group to look the key up for.
    let mut keys: BTreeMap<&str, (Vec<u32>, bool)> = BTreeMap::new();
    for (f, list) in infos.iter() {
        let id = index.id(&f.path);
        for (k, safe) in list {
            let (k, safe): (&str, bool) = (k, *safe);
            let e = keys.entry(k).or_insert((Vec::new(), true));
            e.0.extend(id);
            e.1 &= safe;
        }
    }
    let mut found: BTreeMap<(PathBuf, u32, u32, String), Finding> = BTreeMap::new();
    let mut add = |key: &str, outcome: &crate::engine::LookupOutcome, gs: &[usize]| {
        let Some(err) = outcome.error() else { return };
        if !is_merge_error(&err.message) {
            return;
        }
        let Some(&first) = gs.first() else { return };
        // A failing lookup_options assembly fails every key with the same message; the
        // explanation then holds no search for the key, and H405 reports the cause.
        let Some(a) = attribute(env, &env.groups[first], key) else {
            return;
        };
        let id = (
            a.bad.file.path.clone(),
            a.bad.span().start,
            a.bad.span().end,
            err.message.clone(),
        );
        match found.get_mut(&id) {
            Some(f) => {
                // The finding reads as the first group (in group order) that has it.
                if first < f.groups[0] {
                    f.key = key.to_string();
                    f.a = a;
                    f.from = options_entry(project, &env.groups[first], key);
                }
                f.groups.extend_from_slice(gs);
                f.groups.sort_unstable();
            }
            None => {
                let from = options_entry(project, &env.groups[first], key);
                found.insert(
                    id,
                    Finding {
                        key: key.to_string(),
                        a,
                        message: err.message.clone(),
                        from,
                        groups: gs.to_vec(),
                    },
                );
            }
        }
    };
    let reference = env.reference_session();
    let mut own: Vec<Vec<&str>> = vec![Vec::new(); env.groups.len()];
    let mut mark = vec![false; env.groups.len()];
    // A safe key is looked up only by groups reading a location the project did not load:
    // without such a group, no group's test below can pass for it, and walking the readers
    // of its files (every group, for common data) was most of this rule's time.
    let any_unknown = unknown.contains(&true);
    for (key, (files, safe)) in keys {
        if safe && !any_unknown {
            continue;
        }
        // The groups whose data define the key (and could fail to merge it).
        let mut groups: Vec<usize> = Vec::new();
        for id in files {
            for &g in index.groups_reading_id(id) {
                if !mark[g] && !env.groups[g].nodes.is_empty() && (!safe || unknown[g]) {
                    mark[g] = true;
                    groups.push(g);
                }
            }
        }
        for &g in &groups {
            mark[g] = false;
        }
        if groups.is_empty() {
            continue;
        }
        groups.sort_unstable();
        // One evaluation for the groups whose data cannot answer differently, then the rest
        // on their own (`EnvAnalysis::lookup_shared`).
        let req = LookupRequest::new(&request(key));
        let shared = env.lookup_shared(&reference, &groups, &req);
        for &g in &shared.others {
            own[g].push(key);
        }
        add(key, &shared.outcome, &shared.sharing);
    }
    // The candidate keys of the files of a shared block of module levels, found once per
    // block, not once per group (each group evaluating on its own hashed the paths of its 600
    // locations at 15k files). By the block's address (a `usize`: the map is read from the
    // session threads).
    let mut block_lists: crate::engine::vfs::FastMap<usize, Vec<KeyList>> = Default::default();
    for (g, keys) in own.iter().enumerate() {
        if keys.is_empty() || unknown[g] {
            continue;
        }
        if let Some(b) = env.groups[g].hierarchy.levels.parts().1 {
            block_lists
                .entry(Arc::as_ptr(b) as usize)
                .or_insert_with(|| block_key_lists(infos, b));
        }
    }
    // The candidate keys of each file some group reads, by read-index id: a group's own
    // levels are read by id below (a path hashed per location of each group's hundred
    // own-level files was most of this rule's per-group work at 15k files).
    let id_lists: Vec<Option<KeyList>> = if own.iter().any(|k| !k.is_empty()) {
        index
            .paths()
            .iter()
            .map(|p| infos.get(p).map(|(_, keys)| keys.as_slice()))
            .collect()
    } else {
        Vec::new()
    };
    // The groups that may answer differently look their keys up in a session each (in
    // parallel), when a merge can fail in their own data: two locations give the key a value,
    // one of them not safe (or a location the project did not load).
    let failing = env.in_own_sessions(Some(&reference), own, |g, session, keys| {
        let mut per_key: crate::engine::vfs::FastMap<&str, (u32, bool)> = Default::default();
        if !unknown[g] {
            let wanted: crate::engine::vfs::FastSet<&str> = keys.iter().copied().collect();
            let (own_levels, block) = env.groups[g].hierarchy.levels.parts();
            let lists: Vec<KeyList> = index
                .own_level_ids(g, own_levels.len())
                .filter_map(|id| id_lists[id as usize])
                .collect();
            // Found above for every group that gets here; made again rather than trusted.
            let made;
            let block: &[KeyList] = match block {
                None => &[],
                Some(b) => match block_lists.get(&(Arc::as_ptr(b) as usize)) {
                    Some(l) => l,
                    None => {
                        made = block_key_lists(infos, b);
                        &made
                    }
                },
            };
            for list in lists.iter().chain(block) {
                for (k, safe) in list.iter() {
                    let (k, safe): (&str, bool) = (k, *safe);
                    if wanted.contains(k) {
                        let e = per_key.entry(k).or_insert((0, true));
                        e.0 += 1;
                        e.1 &= safe;
                    }
                }
            }
        }
        let keys: Vec<&str> = keys
            .into_iter()
            .filter(|k| {
                unknown[g]
                    || per_key
                        .get(k)
                        .is_some_and(|&(count, safe)| count >= 2 && !safe)
            })
            .collect();
        keys.into_iter()
            .map(|key| {
                let outcome = env.lookup_own(session, &LookupRequest::new(&request(key)));
                (key, outcome)
            })
            .filter(|(_, o)| o.error().is_some_and(|e| is_merge_error(&e.message)))
            .collect::<Vec<_>>()
    });
    for (g, outcomes) in failing {
        for (key, outcome) in outcomes {
            add(key, &outcome, &[g]);
        }
    }

    for f in found.into_values() {
        sink.report(diagnostic(env, f));
    }
}

/// `a Hash`, `an Array`, `nil`.
fn a_type(v: &Value) -> String {
    match v {
        Value::Undef => "nil".to_string(),
        Value::Integer(_) => "an Integer".to_string(),
        Value::Array(_) => "an Array".to_string(),
        other => format!("a {}", other.type_name()),
    }
}

fn diagnostic(env: &EnvAnalysis, f: Finding) -> Diagnostic {
    let Finding {
        key,
        a,
        message,
        from,
        groups,
    } = f;
    let strategy = a.strategy.key();
    let comparison = message.trim_start().starts_with("comparison of ");
    let (msg, label, help) = if comparison {
        (
            format!("the deep merge of `{key}` cannot sort its merged arrays"),
            "holds values that cannot be compared with the other level's".to_string(),
            "help: `sort_merged_arrays` needs arrays of one comparable type (all Strings or all \
             numbers): make the elements agree, or drop the option"
                .to_string(),
        )
    } else {
        match a.strategy.kind {
            StrategyKind::Unique => (
                format!(
                    "the unique merge of `{key}` meets {} here",
                    a_type(&a.bad.value)
                ),
                format!("{} cannot be merged into an array", a_type(&a.bad.value)),
                "help: give `{key}` an array (or a single scalar) at every level"
                    .replace("{key}", &key),
            ),
            _ => (
                format!(
                    "the {strategy} merge of `{key}` meets {} here",
                    a_type(&a.bad.value)
                ),
                if a.bad.value.as_hash().is_some() {
                    "a hash with keys or values the merge refuses".to_string()
                } else {
                    "not a hash".to_string()
                },
                "help: give `{key}` a hash at every level".replace("{key}", &key),
            ),
        }
    };
    let mut d = Diagnostic::new(&META, &a.bad.file, a.bad.span(), msg).primary_message(label);
    if let Some(o) = &a.other {
        d = d.label(&o.file, o.span(), "merged with this");
    }
    if let Some((file, span)) = &from {
        d = d.label(
            file,
            *span,
            format!("lookup_options give `{key}` the {strategy} merge"),
        );
    }
    let recorded = if comparison {
        "fixtures/conformance/merge/deep-sort-merged-arrays"
    } else if a.strategy.kind == StrategyKind::Unique {
        "fixtures/conformance/merge/unique-asymmetry"
    } else {
        "fixtures/conformance/merge/hash-type-errors"
    };
    d.note(format!(
        "the lookup of `{key}` fails {}: `{}` (reference §4.1-§4.5; recorded: {recorded})",
        env.describe(&groups),
        message.trim_start()
    ))
    .note(help)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(pairs: &[(&str, Value)]) -> Value {
        let mut h = Hash::default();
        for (k, v) in pairs {
            h.insert(Value::string(*k), v.clone());
        }
        Value::hash(h)
    }

    #[test]
    fn strategies_and_what_they_need() {
        let unique = Need::of_merge(&Value::string("unique"));
        assert!(unique.unique && !unique.hash && !unique.always);
        let h = Need::of_merge(&Value::string("hash"));
        assert!(h.hash && !h.unique);
        let deep = Need::of_merge(&Value::string("deep"));
        assert!(!deep.unique && !deep.hash && !deep.always);
        let sorted = Need::of_merge(&hash(&[
            ("strategy", Value::string("deep")),
            ("sort_merged_arrays", Value::Bool(true)),
        ]));
        assert!(
            sorted.sort && !sorted.always,
            "sorting fails only on what it sorts"
        );
        let unsorted = Need::of_merge(&hash(&[
            ("strategy", Value::string("deep")),
            ("sort_merged_arrays", Value::Bool(false)),
        ]));
        assert!(!unsorted.sort && !unsorted.always);
        assert!(Need::of_merge(&Value::string("nonsense")).always);
        assert!(Need::of_merge(&Value::string("%{facts.m}")).always);
        let first = Need::of_merge(&Value::string("first"));
        assert!(!first.unique && !first.hash && !first.always);
    }

    /// `Need::safe_node` gives `Need::safe`'s answer for the value each node loads as, over
    /// values of every kind a data file holds (and says "unsafe" where a duplicated key hides
    /// an entry the value does not keep).
    #[test]
    fn node_judgement_agrees_with_the_value_one() {
        let yaml = r#"
s: plain
i: 3
f: 1.5
b: yes
n: ~
sym: :sym
big: 123456789012345678901234567890
strs: [b, a]
ints: [2, 1]
mixed: [a, 1, ~, {k: v}]
nested: [[a], [b]]
arr_sym:
  - a
  - :sym
h: {k: v, n: 1}
h_strs: {k: [a, b], m: {x: [c]}}
h_ints: {k: [1, a]}
h_intkey: {1: a}
h_symval:
  k: :sym
h_nil: {k: ~}
h_deep: {a: {b: {c: [x, y]}}}
alias: "%{alias('x')}"
alias_in: {k: ["%{alias('x')}"]}
enc: ENC[PKCS7,abc]
enc_key: {"ENC[PKCS7,abc]": v}
interp: "%{facts.x}"
pct: "100%"
anchor: &a {k: [a, b]}
ref: *a
merged: {<<: *a, m: [c]}
dup: {k: [a], k: {x: 1}}
dup2: {k: "%{alias('y')}", k: 1}
empty_h: {}
empty_a: []
"#;
        let doc = crate::loader::yaml::load(&SourceFile::new("t.yaml", yaml));
        assert!(
            doc.issues
                .iter()
                .all(|i| matches!(i.kind, crate::loader::LoadIssueKind::DuplicateKey { .. })),
            "{:?}",
            doc.issues
        );
        let root = doc.root.as_ref().and_then(|r| r.as_map()).unwrap();
        let strategies = [
            Value::string("unique"),
            Value::string("hash"),
            Value::string("deep"),
            Value::string("first"),
            hash(&[
                ("strategy", Value::string("deep")),
                ("sort_merged_arrays", Value::Bool(true)),
            ]),
        ];
        let mut needs: Vec<Need> = strategies.iter().map(Need::of_merge).collect();
        let mut all = Need::default();
        for n in &needs {
            all.add(*n);
        }
        needs.push(all);
        let mut judged_safe = 0;
        for e in &root.entries {
            let name = e.key.to_value().to_ruby_s();
            let dup = name.starts_with("dup");
            for need in &needs {
                let by_value = need.safe(&e.value.to_value());
                let by_node = need.safe_node(&e.value);
                if dup {
                    assert!(!by_node || by_value, "{name}: safe on the tree only");
                } else {
                    assert_eq!(by_node, by_value, "{name}");
                }
                judged_safe += usize::from(by_node);
            }
        }
        // The cases are not all one way.
        assert!(judged_safe > 20, "{judged_safe}");
        let dup = root
            .entries
            .iter()
            .find(|e| e.key.to_value() == Value::string("dup2"));
        let merge_hash = Need::of_merge(&Value::string("hash"));
        assert!(merge_hash.safe(&dup.unwrap().value.to_value()));
        assert!(
            !merge_hash.safe_node(&dup.unwrap().value),
            "the hidden entry is judged too"
        );
    }

    #[test]
    fn values_judged_safe_only_when_no_merge_of_them_can_fail() {
        let arr = Value::array(vec![Value::string("a"), Value::Integer(1)]);
        let map = hash(&[("k", Value::string("v"))]);
        let unique = Need::of_merge(&Value::string("unique"));
        assert!(unique.safe(&arr));
        assert!(unique.safe(&Value::string("x")));
        assert!(!unique.safe(&map), "a hash fails a unique merge");
        assert!(!unique.safe(&Value::Undef), "nil fails a unique merge");
        let mut both = Need::of_merge(&Value::string("hash"));
        assert!(both.safe(&map));
        assert!(!both.safe(&arr), "an array fails a hash merge");
        both.add(unique);
        assert!(
            !both.safe(&map) && !both.safe(&arr),
            "either strategy may win"
        );
        // Interpolated and encrypted values are looked up, whatever their text.
        let deep = Need::of_merge(&Value::string("deep"));
        assert!(deep.safe(&map));
        assert!(!deep.safe(&hash(&[("k", Value::string("%{alias('x')}"))])));
        assert!(!deep.safe(&Value::string("ENC[PKCS7,abc]")));
        // A sorting deep merge: arrays of Strings only, at any depth.
        let sorted = Need::of_merge(&hash(&[
            ("strategy", Value::string("deep")),
            ("sort_merged_arrays", Value::Bool(true)),
        ]));
        let strs = Value::array(vec![Value::string("b"), Value::string("a")]);
        let ints = Value::array(vec![Value::Integer(2), Value::Integer(1)]);
        assert!(sorted.safe(&strs));
        assert!(sorted.safe(&hash(&[("k", strs.clone()), ("n", Value::Integer(1))])));
        assert!(sorted.safe(&map), "no array, nothing sorted");
        assert!(!sorted.safe(&arr), "mixed elements");
        assert!(!sorted.safe(&ints), "may meet Strings at another level");
        assert!(!sorted.safe(&hash(&[("k", ints)])));
        assert!(
            !sorted.safe(&Value::array(vec![map.clone()])),
            "Hashes do not compare"
        );
    }
}

//! Semantic analysis: one lookup engine per environment of the project, the nodes (fact sets)
//! it runs against, and those nodes grouped by what their hierarchies read.
//!
//! Rules that make runtime claims (a lookup fails, a key is never found, a file is never read)
//! ask the engine, never re-implement it. Nodes come from `--facts`; without fact sets they are
//! *implied by the data*: every data file whose path a hierarchy level's template matches
//! yields a node whose variables are bound from that match (`nodes/%{trusted.certname}.yaml`
//! and `data/nodes/web01.yaml` give a node with `trusted.certname = web01`), plus one node that
//! binds nothing (only constant paths such as `common.yaml`). Nodes whose resolved hierarchies
//! read the same files share one [`Group`], so the cost grows with distinct hierarchies, not
//! with nodes.

use crate::engine::vfs::path_hash;
use crate::engine::vfs::FastMap as HashMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::engine::{
    Engine, EngineOptions, EnvironmentSpec, FsVfs, LookupOutcome, LookupRequest, PuppetVersion,
    Scope, Strict, Trusted, Vfs,
};
use crate::facts::FactSet;
use crate::loader::{Document, Format};
use crate::project::{FileRole, Layer, Project};
use crate::span::SourceFile;
use crate::value::{Hash, Value};

/// A node the engine runs for.
#[derive(Debug)]
pub struct NodeCtx {
    /// The certname of a fact set, or `implied by <file>`.
    pub name: String,
    pub scope: Arc<Scope>,
    /// True when the node was made up from the data (no `--facts`).
    pub implied: bool,
}

/// Nodes whose hierarchies read the same files.
pub struct Group {
    /// Indices into [`EnvAnalysis::nodes`]; the first is the representative.
    pub nodes: Vec<usize>,
    /// The representative's resolved hierarchy.
    pub hierarchy: Arc<crate::engine::ResolvedHierarchy>,
    /// Its fingerprint.
    fingerprint: u64,
    /// The lookup of every key defined in the files this group reads, computed on first use
    /// and shared by every rule.
    outcomes: OnceLock<BTreeMap<String, LookupOutcome>>,
}

/// One environment of the project.
pub struct EnvAnalysis {
    pub root: PathBuf,
    pub engine: Engine,
    pub nodes: Vec<NodeCtx>,
    pub groups: Vec<Group>,
    /// True when `nodes` come from `--facts`.
    pub real_facts: bool,
    /// Which groups read which files, built on first use and shared by the rules.
    read_index: OnceLock<ReadIndex>,
    /// How the groups' hierarchies differ from the first group's, built on first use.
    deltas: OnceLock<Deltas>,
    /// Node names ranked, built on first use ([`EnvAnalysis::describe_nodes`]).
    names: OnceLock<NameRanks>,
}

/// The distinct node names of an environment in order, and each node's name's rank there.
struct NameRanks {
    /// By rank: a node with that name.
    holder: Vec<usize>,
    /// By node: its name's rank.
    rank: Vec<u32>,
}

/// The whole project's analysis.
pub struct Analysis {
    pub envs: Vec<EnvAnalysis>,
}

impl Analysis {
    /// Builds what the rules share and would otherwise build on first use, each environment in
    /// parallel: the read index, and with `shared_lookups` the groups' differences from the
    /// reference ([`EnvAnalysis::lookup_shared`]). Built lazily inside a rule, the first rule to
    /// ask held the other threads waiting on the `OnceLock` (a third of a 1.5k-file run without
    /// facts had one thread working), and the parallel work inside that `OnceLock` could pick
    /// up another rule's job that waits for the same `OnceLock`.
    pub fn prepare(&self, shared_lookups: bool) {
        self.envs.par_iter().for_each(|env| {
            // Side by side: each stands on the groups alone (neither asks for the other), and
            // the read index is built mostly serially (a core was idle for 2 ms of a 1.5k-file
            // run) where the deltas are mostly parallel.
            rayon::join(
                || {
                    env.read_index();
                    crate::timing::mark("  read index");
                },
                || {
                    if shared_lookups {
                        env.deltas();
                        crate::timing::mark("  deltas");
                    }
                },
            );
        });
    }
}

/// The project's files by path: their text, the document the scanner parsed and, for a
/// hiera.yaml, its parse (made once for the rules and the engine).
type ProjectFiles =
    crate::engine::vfs::SourceTable<(Arc<Document>, Option<Arc<crate::config::SharedParse>>)>;

/// The engine reads the project's files (the same `SourceFile`s the diagnostics point into,
/// including unsaved buffers) and falls back to the disk for anything else. The project's
/// parsed documents are handed to the engine too, so that no data file is parsed twice.
struct ProjectVfs {
    files: Arc<ProjectFiles>,
    disk: FsVfs,
}

/// The document the scanner parsed for `path`, when a level reads it in that format: the
/// scanner parsed the file in the format its extension names; a level reading it in another
/// (`yaml_data` over a `.json` file) parses it again.
fn scanned_as(path: &Path, doc: &Arc<Document>, format: Format) -> Option<Arc<Document>> {
    let scanned = Format::from_extension(path).unwrap_or(Format::Yaml);
    (scanned == format).then(|| doc.clone())
}

impl Vfs for ProjectVfs {
    fn read(&self, path: &Path) -> Option<Arc<SourceFile>> {
        match self.files.get(path) {
            Some((f, _)) => Some(f.clone()),
            None => self.disk.read(path),
        }
    }

    fn document(
        &self,
        path: &Path,
        source: &Arc<SourceFile>,
        format: Format,
    ) -> Option<Arc<Document>> {
        let (f, (doc, _)) = self.files.get(path)?;
        Arc::ptr_eq(f, source)
            .then(|| scanned_as(path, doc, format))
            .flatten()
    }

    fn read_document(
        &self,
        path: &Path,
        format: Format,
    ) -> Option<(Arc<SourceFile>, Option<Arc<Document>>)> {
        match self.files.get(path) {
            // As `read` then `document`, from one lookup.
            Some((f, (doc, _))) => Some((f.clone(), scanned_as(path, doc, format))),
            None => self.disk.read(path).map(|s| (s, None)),
        }
    }

    fn shared_config(
        &self,
        path: &Path,
        source: &Arc<SourceFile>,
    ) -> Option<Arc<crate::config::SharedParse>> {
        let (f, (_, parse)) = self.files.get(path)?;
        // The engine reads a hiera.yaml as YAML whatever its name: the scanner's document is
        // that one only when the name says YAML too (as for data files, `scanned_as`).
        let parse = parse.as_ref()?;
        (Arc::ptr_eq(f, source)
            && Format::from_extension(path).unwrap_or(Format::Yaml) == Format::Yaml)
            .then(|| parse.clone())
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.contains(path) || self.disk.exists(path)
    }

    /// A project file's id is its text's address, as `read` hands that text out.
    fn exists_with_id(&self, path: &Path) -> (bool, Option<usize>) {
        match self.files.get(path) {
            Some((f, _)) => (true, Some(Arc::as_ptr(f) as usize)),
            None => (self.disk.exists(path), None),
        }
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.disk.is_dir(path)
    }

    fn read_dir(&self, path: &Path) -> Option<Vec<(String, bool)>> {
        self.disk.read_dir(path)
    }

    fn is_symlink(&self, path: &Path) -> bool {
        self.disk.is_symlink(path)
    }

    fn set_read_budget(&self, bytes: u64) {
        self.disk.set_read_budget(bytes)
    }

    fn refused(&self, path: &Path) -> bool {
        self.disk.refused(path)
    }

    fn generation(&self) -> u64 {
        self.disk.generation()
    }
}

impl Group {
    /// A lookup session for the group's representative node (the engine's result cache is
    /// shared by every session of the group's hierarchy).
    pub fn session<'e>(&self, env: &'e EnvAnalysis) -> crate::engine::Session<'e> {
        env.engine.session_with_hierarchy(
            env.nodes[self.nodes[0]].scope.clone(),
            self.hierarchy.clone(),
            self.fingerprint,
        )
    }

    /// The lookup (with each key's own lookup_options) of every key defined in the data this
    /// group's hierarchy reads, in key order.
    pub fn outcomes(&self, env: &EnvAnalysis) -> &BTreeMap<String, LookupOutcome> {
        self.outcomes.get_or_init(|| {
            let session = self.session(env);
            let mut keys: Vec<String> = session.all_keys().into_iter().map(|d| d.key).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .filter(|k| k != "lookup_options")
                .map(|k| {
                    // Quoted so that a key with dots is looked up as the literal root key.
                    let request = if k.contains('.') || k.contains('\'') || k.contains('"') {
                        format!("\"{k}\"")
                    } else {
                        k.clone()
                    };
                    let outcome = session.lookup(&LookupRequest::new(&request));
                    (k, outcome)
                })
                .collect()
        })
    }
}

/// A set of groups (indices below a bound) as bits: membership in one step, members read back
/// in ascending order.
pub struct GroupSet {
    bits: Vec<u64>,
}

impl GroupSet {
    /// The set of `groups` (any order, repeats allowed), every one below `n`.
    pub fn of(n: usize, groups: impl IntoIterator<Item = usize>) -> GroupSet {
        let mut set = GroupSet {
            bits: vec![0u64; n.div_ceil(64)],
        };
        for g in groups {
            set.insert(g);
        }
        set
    }

    /// Adds `g`; true when it was not in the set.
    pub fn insert(&mut self, g: usize) -> bool {
        let (w, b) = (g / 64, 1u64 << (g % 64));
        let new = self.bits[w] & b == 0;
        self.bits[w] |= b;
        new
    }

    pub fn contains(&self, g: usize) -> bool {
        self.bits
            .get(g / 64)
            .is_some_and(|w| w & (1u64 << (g % 64)) != 0)
    }

    /// The members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let b = word.trailing_zeros() as usize;
                    word &= word - 1;
                    w * 64 + b
                })
            })
        })
    }
}

/// The union of ascending lists of distinct groups below `n`, ascending. Group lists from
/// several files or keys were concatenated, then sorted and deduplicated: at 1.5k files those
/// sorts were three quarters of interpolated-key-not-found (common data is read by every
/// group), and at 15k 70M instructions of interpolation-loop. One list, or a list of all `n`
/// groups, is the union; otherwise the groups are marked in a [`GroupSet`] and read back.
pub fn union_ascending(lists: &[&[usize]], n: usize) -> Vec<usize> {
    match lists {
        [] => return Vec::new(),
        [one] => return one.to_vec(),
        _ => {}
    }
    if let Some(all) = lists.iter().find(|l| l.len() == n) {
        return all.to_vec();
    }
    let mut set = GroupSet::of(n, std::iter::empty());
    let mut count = 0;
    for l in lists {
        for &g in *l {
            count += usize::from(set.insert(g));
        }
    }
    let mut out = Vec::with_capacity(count);
    out.extend(set.iter());
    out
}

/// A lookup evaluated once for many groups ([`EnvAnalysis::lookup_shared`]).
pub struct SharedLookup {
    /// The outcome in the reference group.
    pub outcome: LookupOutcome,
    /// The groups asked about that get exactly `outcome`, ascending.
    pub sharing: Vec<usize>,
    /// The groups asked about whose data or scope may answer differently: look the request
    /// up in their own sessions. Ascending.
    pub others: Vec<usize>,
}

impl EnvAnalysis {
    /// A session of the reference group for [`EnvAnalysis::lookup_shared`] (one per thread:
    /// sessions keep what Puppet keeps per compile, such as the assembled lookup_options).
    pub fn reference_session(&self) -> crate::engine::Session<'_> {
        self.groups[REFERENCE].session(self)
    }

    /// Looks `req` up once, in the first group (the reference; `reference` is a session of
    /// it, [`EnvAnalysis::reference_session`]), and tells which of `groups` get the same
    /// outcome without a lookup of their own.
    ///
    /// A group shares the reference's outcome when its hierarchy has the reference's data
    /// signature (`Session::data_signature`) for the keys the lookup read (and
    /// `lookup_options`), and its scope answers the lookup's scope reads alike: the invariant
    /// the engine's cross-hierarchy cache rests on. The signature is compared without being
    /// computed per group: `Deltas` knows, once per environment, where each group's hierarchy
    /// differs from the reference's and which root keys the differing files define, so a
    /// lookup costs one evaluation plus a pass over `groups` (data-implied checks have one
    /// group per node file, and most keys are defined only in files every group reads).
    ///
    /// The outcome is the reference session's: its result is what any of the sharing groups
    /// would get; its warnings are those of this lookup in that session (Puppet logs a layer's
    /// warnings at its first use in a compile). tests/engine_shared.rs checks every sharing
    /// group against a fresh engine of its own.
    pub fn lookup_shared(
        &self,
        reference: &crate::engine::Session<'_>,
        groups: &[usize],
        req: &LookupRequest,
    ) -> SharedLookup {
        let (outcome, deps) = reference.lookup_with_deps(req);
        // Marked in a bit set, not sorted and searched: at 15k files each of a hundred
        // shared lookups asked about 13,800 groups, and sorting and searching were 1.5% of
        // the check.
        let affected = GroupSet::of(
            self.groups.len(),
            self.deltas().affected(
                deps.keys.iter().map(|(k, _)| &**k),
                deps.keys.iter().filter_map(|(_, m)| m.as_deref()),
            ),
        );
        let mut sharing = Vec::with_capacity(groups.len());
        let mut others = Vec::new();
        let no_scope = deps.reads_no_scope();
        for &g in groups {
            // A group's lookups are made for its first node (`Group::session`).
            let same = g == REFERENCE
                || (!affected.contains(g)
                    && (no_scope
                        || deps.answers_alike(&self.nodes[self.groups[g].nodes[0]].scope)));
            if same {
                sharing.push(g);
            } else {
                others.push(g);
            }
        }
        SharedLookup {
            outcome,
            sharing,
            others,
        }
    }

    /// Runs `f` in parallel for each group with work in `own` (indexed by group: what
    /// [`EnvAnalysis::lookup_shared`] left to it), with a session of the group: one session
    /// per group, so that what a session assembles once (lookup_options, file data) serves
    /// all of the group's lookups. Results in group order.
    ///
    /// A group whose data cannot give other lookup_options than the reference's (the test
    /// [`EnvAnalysis::lookup_shared`] makes for a lookup: the same data signature for
    /// `lookup_options` and the keys their assembly looked up, a scope answering its reads
    /// alike) starts its session with what `reference` (a session of the reference group, when
    /// the caller has one at hand) assembled instead of assembling
    /// lookup_options again (a third of the data-implied check at 15k files). Only assemblies
    /// that logged nothing and did not fail are handed on (`Session::assembled_options`).
    pub fn in_own_sessions<K: Send, T: Send>(
        &self,
        reference: Option<&crate::engine::Session<'_>>,
        own: Vec<Vec<K>>,
        f: impl Fn(usize, &crate::engine::Session<'_>, Vec<K>) -> T + Sync + Send,
    ) -> Vec<(usize, T)> {
        let sessions = self.own_sessions(reference);
        own.into_par_iter()
            .enumerate()
            .filter(|(_, work)| !work.is_empty())
            .map(|(g, work)| (g, f(g, &sessions.session(self, g), work)))
            .collect()
    }

    /// What [`EnvAnalysis::in_own_sessions`] starts each group's session with, for a caller
    /// that makes the sessions itself ([`OwnSessions::session`]).
    pub fn own_sessions(&self, reference: Option<&crate::engine::Session<'_>>) -> OwnSessions {
        let assembled = reference.and_then(|r| r.assembled_options());
        let differs = GroupSet::of(
            self.groups.len(),
            match &assembled {
                Some(a) => self.deltas().affected(a.keys(), a.modules()),
                None => Vec::new(),
            },
        );
        OwnSessions { assembled, differs }
    }

    /// Looks `req` up in `session`, a session of one of the groups [`EnvAnalysis::lookup_shared`]
    /// left to answer on their own. With data-implied nodes such a group differs from the
    /// others by its own node file, which answers the lookup: no other group can share the
    /// outcome, so the engine's shared caches are neither probed nor filled (each probe costs a
    /// data signature; at 15k files that was 8% of the run and 0.6 GiB). With fact sets, groups
    /// differ by role, site and OS files that many of them read alike, and the shared caches
    /// pay.
    pub fn lookup_own(
        &self,
        session: &crate::engine::Session<'_>,
        req: &LookupRequest,
    ) -> LookupOutcome {
        if self.real_facts {
            session.lookup(req)
        } else {
            session.lookup_unshared(req)
        }
    }

    fn deltas(&self) -> &Deltas {
        self.deltas
            .get_or_init(|| Deltas::new(&self.engine, &self.groups))
    }

    /// Which groups read which files ([`ReadIndex`]), built once for every rule.
    pub fn read_index(&self) -> &ReadIndex {
        self.read_index.get_or_init(|| ReadIndex::new(&self.groups))
    }

    /// The names of the nodes of some groups, for messages: `web01, web02 and 3 more`.
    pub fn describe(&self, groups: &[usize]) -> String {
        let nodes: Vec<usize> = groups
            .iter()
            .flat_map(|&g| self.groups[g].nodes.iter().copied())
            .collect();
        self.describe_nodes(&nodes)
    }

    /// The names of some nodes (indices into [`EnvAnalysis::nodes`]), for messages, as
    /// [`EnvAnalysis::describe`] gives them for groups.
    pub fn describe_nodes(&self, nodes: &[usize]) -> String {
        // Count nodes, not names: fact sets may share a certname (facterdb's all say
        // `foo.example.com`); a name is listed once.
        let (n, shown, distinct) = if nodes.len() <= DESCRIBE_BY_SORT {
            let mut ids: Vec<usize> = nodes.to_vec();
            ids.sort_unstable();
            ids.dedup();
            let (shown, distinct) =
                smallest_distinct(ids.iter().map(|&i| self.nodes[i].name.as_str()), 3);
            (ids.len(), shown, distinct)
        } else {
            self.describe_by_rank(nodes, 3)
        };
        let total = self.nodes.len();
        let list = if distinct > 3 {
            format!("{} and {} more", shown.join(", "), distinct - 3)
        } else {
            shown.join(", ")
        };
        let what = if self.real_facts {
            "fact set"
        } else {
            "data-implied node"
        };
        if n == total {
            format!("for every {what} ({list})")
        } else {
            format!("for {n} of {total} {what}s ({list})")
        }
    }
}

/// Node lists up to this long are described by sorting them; longer ones by the ranks of the
/// environment's names ([`EnvAnalysis::describe_by_rank`]).
const DESCRIBE_BY_SORT: usize = 64;

impl EnvAnalysis {
    fn name_ranks(&self) -> &NameRanks {
        self.names.get_or_init(|| {
            let mut order: Vec<usize> = (0..self.nodes.len()).collect();
            order.sort_by(|&a, &b| self.nodes[a].name.cmp(&self.nodes[b].name));
            let mut holder: Vec<usize> = Vec::new();
            let mut rank = vec![0u32; self.nodes.len()];
            for i in order {
                if holder
                    .last()
                    .is_none_or(|&h| self.nodes[h].name != self.nodes[i].name)
                {
                    holder.push(i);
                }
                rank[i] = (holder.len() - 1) as u32;
            }
            NameRanks { holder, rank }
        })
    }

    /// How many distinct nodes `nodes` holds, the `k` smallest of their distinct names in
    /// order, and how many distinct names: what sorting and deduplicating gives, by marking
    /// nodes and name ranks instead. A loop seeded in common data is confirmed in every group
    /// of a 15k-file repository: each of its diagnostics named 13,800 nodes, and hashing their
    /// names for the count was 2% of the check (session 15).
    fn describe_by_rank(&self, nodes: &[usize], k: usize) -> (usize, Vec<&str>, usize) {
        let names = self.name_ranks();
        let mut node_seen = vec![false; self.nodes.len()];
        let mut rank_seen = vec![false; names.holder.len()];
        let (mut n, mut distinct) = (0, 0);
        for &i in nodes {
            if std::mem::replace(&mut node_seen[i], true) {
                continue;
            }
            n += 1;
            if !std::mem::replace(&mut rank_seen[names.rank[i] as usize], true) {
                distinct += 1;
            }
        }
        let shown = rank_seen
            .iter()
            .enumerate()
            .filter(|(_, &seen)| seen)
            .take(k)
            .map(|(r, _)| self.nodes[names.holder[r]].name.as_str())
            .collect();
        (n, shown, distinct)
    }
}

/// The `k` smallest distinct names, in order, and how many distinct names there are: what
/// sorting and deduplicating them gives, without sorting them all (a diagnostic may name
/// thousands of nodes: sorting them was 4% of interpolation-loop on a 15k-file repository).
fn smallest_distinct<'a>(names: impl Iterator<Item = &'a str>, k: usize) -> (Vec<&'a str>, usize) {
    let mut distinct: crate::engine::vfs::FastSet<&str> = Default::default();
    let mut shown: Vec<&str> = Vec::with_capacity(k + 1);
    for name in names {
        if !distinct.insert(name) {
            continue;
        }
        if shown.len() < k || shown.last().is_some_and(|l| name < *l) {
            let at = shown.partition_point(|s| *s < name);
            shown.insert(at, name);
            shown.truncate(k);
        }
    }
    (shown, distinct.len())
}

/// The environments of a project: every distinct `env_root` of its files.
pub(crate) fn environment_roots(project: &Project) -> Vec<PathBuf> {
    // Files come grouped by environment: a root equal (by its bytes) to the one before it is
    // passed over, and only the few left are copied, sorted and deduplicated (sorting a root
    // per file compared them component by component: 1.3M instructions at 1.5k files).
    let mut roots: Vec<&Path> = Vec::new();
    for r in project.files.iter().filter_map(|f| f.env_root.as_deref()) {
        if roots.last().is_none_or(|l| l.as_os_str() != r.as_os_str()) {
            roots.push(r);
        }
    }
    roots.sort();
    roots.dedup();
    roots.into_iter().map(Path::to_path_buf).collect()
}

/// The top scope of a fact set.
fn scope_of(fs: &FactSet, env_name: &str) -> Scope {
    let empty = Hash::default();
    let facts = fs.facts.as_hash().unwrap_or(&empty);
    let trusted = Trusted::from_value(&fs.trusted);
    let server = fs.server_facts.as_ref().and_then(|v| v.as_hash());
    Scope::for_node(facts, &trusted, server, env_name)
}

/// Sets `path` (`facts.os.family`, `trusted.certname`, `::site`, `site`) to `value` in the
/// facts/trusted hashes of an implied node.
fn bind(facts: &mut Hash, trusted: &mut Trusted, expr: &str, value: &str) {
    let expr = expr.trim().trim_start_matches("::");
    let mut parts: Vec<&str> = expr.split('.').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || p.contains(['\'', '"', '(', ' ']))
    {
        return;
    }
    match parts[0] {
        "trusted" => {
            if parts.get(1) == Some(&"certname") && parts.len() == 2 {
                trusted.certname = Some(value.to_string());
            } else if parts.get(1) == Some(&"extensions") && parts.len() == 3 {
                trusted
                    .extensions
                    .insert(Value::string(parts[2]), Value::string(value));
            }
            return;
        }
        "facts" => {
            parts.remove(0);
        }
        "server_facts" => return,
        _ => {}
    }
    if parts.is_empty() {
        return;
    }
    set_path(facts, &parts, value);
}

fn set_path(h: &mut Hash, parts: &[&str], value: &str) {
    let key = Value::string(parts[0]);
    if parts.len() == 1 {
        h.insert(key, Value::string(value));
        return;
    }
    let mut inner = match h.get(&key) {
        Some(Value::Hash(existing)) => (**existing).clone(),
        _ => Hash::default(),
    };
    set_path(&mut inner, &parts[1..], value);
    h.insert(key, Value::hash(inner));
}

/// A hierarchy path template as a matcher: literal text and `%{...}` holes, each matching one
/// or more characters other than `/`.
struct Template {
    pieces: Vec<Piece>,
}

enum Piece {
    Lit(String),
    Hole(String),
}

impl Template {
    fn parse(t: &str) -> Option<Template> {
        let mut pieces = Vec::new();
        let mut rest = t;
        while let Some(start) = rest.find("%{") {
            if start > 0 {
                pieces.push(Piece::Lit(rest[..start].to_string()));
            }
            let after = &rest[start + 2..];
            let end = after.find('}')?;
            pieces.push(Piece::Hole(after[..end].to_string()));
            rest = &after[end + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Lit(rest.to_string()));
        }
        Some(Template { pieces })
    }

    fn has_holes(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Hole(_)))
    }

    /// Matches `s` and returns the hole bindings. A hole takes the longest text (up to a `/`)
    /// that lets the rest match; a binding is allocated only once the rest has matched, and an
    /// end the next literal cannot follow is skipped (the hole loop allocated two strings per
    /// candidate end: 2.5% of a 1.5k-file check).
    fn matches(&self, s: &str) -> Option<Vec<(String, String)>> {
        /// Pushes the bindings in reverse order.
        fn go(pieces: &[Piece], s: &str, out: &mut Vec<(String, String)>) -> bool {
            match pieces.first() {
                None => s.is_empty(),
                Some(Piece::Lit(l)) => s
                    .strip_prefix(l.as_str())
                    .is_some_and(|r| go(&pieces[1..], r, out)),
                Some(Piece::Hole(name)) => {
                    let limit = s.find('/').unwrap_or(s.len());
                    let next_lit = match pieces.get(1) {
                        Some(Piece::Lit(l)) => Some(l.as_str()),
                        _ => None,
                    };
                    if let Some(l) = next_lit.filter(|l| !l.is_empty()) {
                        // Only the ends where the next literal starts, found from the right
                        // (overlapping ones too). A match of a UTF-8 literal in UTF-8 text
                        // starts on a character boundary.
                        let b = s.as_bytes();
                        let mut hay = &b[..(limit + l.len()).min(b.len())];
                        while let Some(end) = memchr::memmem::rfind(hay, l.as_bytes()) {
                            if end == 0 {
                                break;
                            }
                            if go(&pieces[1..], &s[end..], out) {
                                out.push((name.clone(), s[..end].to_string()));
                                return true;
                            }
                            hay = &b[..end + l.len() - 1];
                        }
                        return false;
                    }
                    for end in (1..=limit).rev() {
                        if !s.is_char_boundary(end) {
                            continue;
                        }
                        if next_lit.is_some_and(|l| !s[end..].starts_with(l)) {
                            continue;
                        }
                        if go(&pieces[1..], &s[end..], out) {
                            out.push((name.clone(), s[..end].to_string()));
                            return true;
                        }
                    }
                    false
                }
            }
        }
        let mut out = Vec::new();
        go(&self.pieces, s, &mut out).then(|| {
            out.reverse();
            out
        })
    }

    /// The matcher as it was first written (bindings pushed and popped at every candidate
    /// end), kept to check [`Template::matches`] against.
    #[cfg(test)]
    fn matches_reference(&self, s: &str) -> Option<Vec<(String, String)>> {
        fn go(pieces: &[Piece], s: &str, out: &mut Vec<(String, String)>) -> bool {
            match pieces.first() {
                None => s.is_empty(),
                Some(Piece::Lit(l)) => s
                    .strip_prefix(l.as_str())
                    .is_some_and(|r| go(&pieces[1..], r, out)),
                Some(Piece::Hole(name)) => {
                    let limit = s.find('/').unwrap_or(s.len());
                    for end in (1..=limit).rev() {
                        if !s.is_char_boundary(end) {
                            continue;
                        }
                        out.push((name.clone(), s[..end].to_string()));
                        if go(&pieces[1..], &s[end..], out) {
                            return true;
                        }
                        out.pop();
                    }
                    false
                }
            }
        }
        let mut out = Vec::new();
        go(&self.pieces, s, &mut out).then_some(out)
    }
}

/// Nodes implied by the data of one environment: one per data file that an interpolated
/// level's template matches, plus one that binds nothing.
fn implied_nodes(project: &Project, root: &Path, env_name: &str) -> Vec<NodeCtx> {
    let mut nodes = vec![NodeCtx {
        name: "implied: no variables".to_string(),
        scope: Arc::new(Scope::for_node(
            &Hash::default(),
            &Trusted::default(),
            None,
            env_name,
        )),
        implied: true,
    }];
    let Some(cfg_file) = project.files.iter().find(|f| {
        f.role == FileRole::HieraConfig
            && f.layer == Layer::Environment
            && f.env_root.as_deref() == Some(root)
    }) else {
        return nodes;
    };
    let Some(cfg) = &cfg_file.hiera_config().0 else {
        return nodes;
    };
    let data_files: Vec<&Path> = project
        .files
        .iter()
        .filter(|f| {
            f.role == FileRole::Data
                && f.layer == Layer::Environment
                && f.env_root.as_deref() == Some(root)
        })
        .map(|f| f.source.path.as_path())
        .collect();
    // Which files each template matches, in parallel (templates x files path matches were a
    // serial 5 ms of a 1.5k-file run); then, in hierarchy and file order, one node per file
    // (the first template that matches it binds it).
    let mut matched: Vec<(&Path, Vec<(String, String)>)> = Vec::new();
    // By position in `data_files` (each path once): hashing the paths was 0.5% of the run.
    let mut seen = vec![false; data_files.len()];
    // Each file's path relative to a datadir, made once per datadir (most hierarchies have
    // one) rather than once per template: stripping and checking UTF-8 per template and file
    // was 3% of the analysis at 15k files.
    let mut relative: Vec<(PathBuf, Vec<Option<&str>>)> = Vec::new();
    for entry in &cfg.hierarchy {
        let datadir = root.join(entry.effective_datadir(&cfg.defaults));
        let rels = match relative.iter().position(|(d, _)| *d == datadir) {
            Some(i) => i,
            None => {
                let rels = data_files
                    .par_iter()
                    .map(|path| crate::paths::strip_prefix(path, &datadir)?.to_str())
                    .collect();
                relative.push((datadir, rels));
                relative.len() - 1
            }
        };
        let rels = &relative[rels].1;
        for raw in entry.raw_strings(&cfg.defaults) {
            let Some(t) = Template::parse(&raw.value) else {
                continue;
            };
            if !t.has_holes() {
                continue;
            }
            let hits: Vec<(usize, Vec<(String, String)>)> = rels
                .par_iter()
                .enumerate()
                .filter_map(|(i, rel)| Some((i, t.matches((*rel)?)?)))
                .collect();
            for (i, bindings) in hits {
                if !std::mem::replace(&mut seen[i], true) {
                    matched.push((data_files[i], bindings));
                }
            }
        }
    }
    // Files that bind the same variables alike (`nodes/X.yaml` and `secrets/nodes/X.eyaml`)
    // imply nodes of one scope: made once and shared, so that the analysis resolves their
    // hierarchy once (508 such pairs at 15k files).
    let mut first_with: HashMap<&[(String, String)], usize> = HashMap::default();
    let same_as: Vec<Option<usize>> = matched
        .iter()
        .enumerate()
        .map(|(i, (_, b))| match first_with.entry(b.as_slice()) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
                None
            }
        })
        .collect();
    let scope_of = |bindings: &[(String, String)]| {
        let mut facts = Hash::default();
        let mut trusted = Trusted::default();
        for (expr, value) in bindings {
            bind(&mut facts, &mut trusted, expr, value);
        }
        Arc::new(Scope::for_node(&facts, &trusted, None, env_name))
    };
    let scopes: Vec<Option<Arc<Scope>>> = matched
        .par_iter()
        .zip(same_as.par_iter())
        .map(|((_, bindings), same)| same.is_none().then(|| scope_of(bindings)))
        .collect();
    nodes.par_extend(matched.par_iter().zip(same_as.par_iter()).enumerate().map(
        |(i, ((path, bindings), same))| {
            // The bytes strip (`paths::strip_prefix`): std's walks both paths' components,
            // 1,900 instructions per node at 15k files, 4% of the analysis.
            let rel = crate::paths::strip_prefix(path, root).unwrap_or(path);
            let rel_display = rel.to_string_lossy();
            // The first file binding alike made the scope (`same_as` points back only).
            let scope = scopes[same.unwrap_or(i)]
                .clone()
                .unwrap_or_else(|| scope_of(bindings));
            NodeCtx {
                name: format!("implied by {rel_display}"),
                scope,
                implied: true,
            }
        },
    ));
    nodes
}

/// The project's files by path, for the engine's file system ([`ProjectVfs`]).
fn project_files(project: &Project) -> ProjectFiles {
    let mut t = ProjectFiles::with_capacity(project.files.len());
    for f in &project.files {
        t.insert(
            f.source.clone(),
            (f.doc.clone(), f.shared_config().cloned()),
        );
    }
    t
}

/// Builds the analysis of every environment of the project.
pub fn analyze(project: &Project, fact_sets: &[FactSet], puppet: PuppetVersion) -> Analysis {
    let files = Arc::new(project_files(project));
    let envs = environment_roots(project)
        .into_iter()
        .map(|root| {
            let env_name = root
                .file_name()
                .and_then(|n| n.to_str())
                .filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or("production")
                .to_string();
            let real_facts = !fact_sets.is_empty();
            // Data-implied nodes bind only what file names reveal: other variables are
            // undefined there by construction, so they must not fail lookups (strict off).
            let mut opts = EngineOptions::for_puppet(puppet);
            if !real_facts {
                opts.strict = Strict::Off;
            }
            let vfs = Arc::new(ProjectVfs {
                files: files.clone(),
                disk: FsVfs::new().with_max_file_bytes(project.limits.max_file_bytes),
            });
            let engine = Engine::new(EnvironmentSpec::standalone(&root, &env_name), opts, vfs)
                .with_limits(project.limits);
            let nodes: Vec<NodeCtx> = if real_facts {
                fact_sets
                    .iter()
                    .filter(|fs| {
                        fs.environment
                            .as_deref()
                            .is_none_or(|e| e == env_name || e == "production")
                    })
                    .map(|fs| NodeCtx {
                        name: fs.name.clone(),
                        scope: Arc::new(scope_of(fs, &env_name)),
                        implied: false,
                    })
                    .collect()
            } else {
                implied_nodes(project, &root, &env_name)
            };
            crate::timing::mark("  nodes");
            // The reference's hierarchy resolved once beforehand, so that its resolution below
            // finds every module layer cached and takes them as the block every later
            // hierarchy shares (`Levels::same_block_as`): a first resolution holds the module
            // levels as its own, and `Deltas` compares each group with the reference level by
            // level up to its block (at 15k files: 508 levels for each of 13,800 groups
            // instead of 8).
            if let Some(n) = nodes.get(REFERENCE) {
                engine.session(n.scope.clone()).fresh_hierarchy();
            }
            // One resolution per scope: nodes that share one (data-implied nodes of files
            // binding alike) have the same hierarchy, so they take the first one's fingerprint
            // and join its group.
            let mut first_with: HashMap<*const Scope, usize> = HashMap::default();
            let same_as: Vec<Option<usize>> = nodes
                .iter()
                .enumerate()
                .map(|(i, n)| match first_with.entry(Arc::as_ptr(&n.scope)) {
                    std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(i);
                        None
                    }
                })
                .collect();
            let fingerprints: Vec<Option<(u64, crate::engine::ResolvedHierarchy)>> = nodes
                .par_iter()
                .zip(&same_as)
                .map(|(n, same)| {
                    same.is_none().then(|| {
                        let h = engine.session(n.scope.clone()).fresh_hierarchy();
                        (h.fingerprint(), h)
                    })
                })
                .collect();
            crate::timing::mark("  hierarchies");
            let fps: Vec<Option<u64>> = fingerprints
                .iter()
                .map(|f| f.as_ref().map(|(fp, _)| *fp))
                .collect();
            let mut groups: Vec<Group> = Vec::new();
            let mut by_fp: HashMap<u64, usize> = HashMap::default();
            let resolve = |i: usize| {
                let h = engine.session(nodes[i].scope.clone()).fresh_hierarchy();
                (h.fingerprint(), h)
            };
            for (i, resolved) in fingerprints.into_iter().enumerate() {
                // A node sharing a scope takes the fingerprint of the first node of that scope
                // (resolved above: `same_as` points back only).
                let (fp, h) = match (resolved, same_as[i].and_then(|first| fps[first])) {
                    (Some((fp, h)), _) => (fp, Some(h)),
                    (None, Some(fp)) => (fp, None),
                    (None, None) => {
                        let (fp, h) = resolve(i);
                        (fp, Some(h))
                    }
                };
                match by_fp.get(&fp) {
                    Some(&g) => groups[g].nodes.push(i),
                    None => {
                        // The first node with this fingerprint resolved it (a node sharing a
                        // scope comes after the node that resolved it, whose group it joins).
                        let h = h.unwrap_or_else(|| resolve(i).1);
                        by_fp.insert(fp, groups.len());
                        groups.push(Group {
                            nodes: vec![i],
                            hierarchy: Arc::new(h),
                            fingerprint: fp,
                            outcomes: OnceLock::new(),
                        });
                    }
                }
            }
            crate::timing::mark("  groups");
            EnvAnalysis {
                root,
                engine,
                nodes,
                groups,
                real_facts,
                read_index: OnceLock::new(),
                deltas: OnceLock::new(),
                names: OnceLock::new(),
            }
        })
        .collect();
    Analysis { envs }
}

/// How sessions of groups that look up on their own start ([`EnvAnalysis::own_sessions`]): with
/// the reference's assembled lookup_options where the group's data cannot give others.
pub struct OwnSessions {
    assembled: Option<crate::engine::AssembledOptions>,
    /// The groups whose data may give other lookup_options.
    differs: GroupSet,
}

impl OwnSessions {
    /// A session of group `g` of `env`, for lookups it makes on its own.
    pub fn session<'e>(&self, env: &'e EnvAnalysis, g: usize) -> crate::engine::Session<'e> {
        let session = env.groups[g].session(env);
        if let Some(a) = &self.assembled {
            if !self.differs.contains(g)
                && a.answers_alike(&env.nodes[env.groups[g].nodes[0]].scope)
            {
                session.adopt_options(a);
            }
        }
        session
    }
}

/// A group's differing slots (level position, location index), the root keys its locations
/// there define, and the modules whose levels differ (their [`module_hash`]).
type GroupDelta = (Vec<(u32, u32)>, Vec<u64>, Vec<u64>);

/// The hash [`Deltas`] files a root key under (fixed-seed: the same key, the same hash), the
/// one the engine's level indexes and the parse-time root key hashes use.
use crate::engine::data::key_hash;

/// How many maps [`Deltas`] files root keys in (a power of two), and which one a key's hash
/// goes to: its top bits, so that a sorted list of hashes holds each shard's in one run.
const KEY_SHARDS: usize = 16;

fn key_shard(k: u64) -> usize {
    (k >> (64 - KEY_SHARDS.trailing_zeros())) as usize
}

/// The hash [`Deltas`] files a module under (fixed-seed, as [`key_hash`]).
fn module_hash(m: &str) -> u64 {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::default().hash_one(m)
}

/// The group whose session evaluates shared lookups: the first (the node that binds nothing
/// when the nodes are implied by the data; the first fact set otherwise).
const REFERENCE: usize = 0;

/// Where each group's hierarchy differs from the reference group's (the first: the node that
/// binds nothing when the nodes are implied by the data), for [`EnvAnalysis::lookup_shared`].
///
/// A lookup's data signature (`Session::data_signature`) hashes, level by level, the level's
/// settings and the locations that count for the keys it read: those that always count
/// (`quiet_location`: unparsable or non-Hash files, module data, custom backends) and those
/// defining one of the keys or `lookup_options`. Levels are shared between hierarchies (the
/// engine's level cache hands out one `Arc` per resolution), so two hierarchies with the same
/// number of levels differ only at levels that are not the same `Arc`; there, a location equal
/// in both (same path, same existence) contributes the same. What is left are the differing
/// locations: a group can share a lookup of keys `K` with the reference unless one of its
/// differing locations, or one of the reference's, always counts or defines a key of `K`.
/// A module's levels are the exception: Puppet routes only the keys of a module's namespace
/// to its data, and assembles its lookup_options only for them (reference §2.3-2.5, §3.2),
/// so a group whose differing locations are a module's shares every lookup that did not
/// consult that module (the signature leaves out the levels of modules not consulted alike).
/// Anything this does not model (another number of levels, other level settings, other
/// layer errors or warnings, a level with no location list on one side only) makes the group
/// evaluate every lookup itself.
struct Deltas {
    /// Groups that never share.
    never: Vec<usize>,
    /// By root key (its [`key_hash`]): the groups one of whose differing locations defines it.
    /// Hashes, not keys: made in parallel per group, so that the serial merge of every
    /// group's keys (a millisecond of a 1.5k-file check) neither hashes nor counts references
    /// to key strings. Two keys of one hash only make groups evaluate on their own that
    /// could have shared: never a different answer.
    /// Kept in [`KEY_SHARDS`] maps by the hash's top bits ([`key_shard`]), filled side by side:
    /// filing every group's keys in one map was a serial 12 ms of a 15k-file check (13,400
    /// groups) while the other core waited.
    by_key: Vec<crate::engine::vfs::FastMap<u64, Vec<usize>>>,
    /// By root key: the slots (level position, location index; `u32::MAX` for a whole level)
    /// where the reference's differing location defines it.
    ref_by_key: crate::engine::vfs::FastMap<u64, Vec<(u32, u32)>>,
    /// The slots where the reference's differing location always counts.
    ref_always: Vec<(u32, u32)>,
    /// The groups differing from the reference at each slot.
    by_slot: crate::engine::vfs::FastMap<(u32, u32), Vec<usize>>,
    /// By module (its [`module_hash`]): the groups with a level of that module differing
    /// from the reference's (a lookup consulting the module does not share with them).
    by_module: crate::engine::vfs::FastMap<u64, Vec<usize>>,
}

impl Deltas {
    fn new(engine: &Engine, groups: &[Group]) -> Deltas {
        use crate::engine::ResolvedLevel;
        let mut d = Deltas {
            never: Vec::new(),
            by_key: (0..KEY_SHARDS).map(|_| Default::default()).collect(),
            ref_by_key: Default::default(),
            ref_always: Vec::new(),
            by_slot: Default::default(),
            by_module: Default::default(),
        };
        let Some(reference) = groups.get(REFERENCE) else {
            return d;
        };
        let rh = &reference.hierarchy;
        let same_errors = |h: &crate::engine::ResolvedHierarchy| {
            h.errors.len() == rh.errors.len()
                && h.errors
                    .iter()
                    .zip(&rh.errors)
                    .all(|((p, e), (rp, re))| p == rp && e.message == re.message)
        };
        // Keys of the locations of a level at index `i` (all of them for `None`), and whether
        // one of those locations always counts.
        let keys_at = |lv: &ResolvedLevel, i: Option<u32>| lv.key_hashes_at(engine, i);
        // Each group's differing slots and the keys its locations there define, or `None`
        // when it never shares: in parallel (serial, this was 6% of a 1.5k-file run without
        // facts), then merged in group order.
        let per_group: Vec<Option<GroupDelta>> = groups
            .par_iter()
            .enumerate()
            .map(|(g, group)| {
                if g == REFERENCE {
                    return Some((Vec::new(), Vec::new(), Vec::new()));
                }
                let h = &group.hierarchy;
                if h.levels.len() != rh.levels.len() || h.warnings != rh.warnings || !same_errors(h)
                {
                    return None;
                }
                let mut slots: Vec<(u32, u32)> = Vec::new();
                let mut keys: Vec<u64> = Vec::new();
                let mut modules: Vec<u64> = Vec::new();
                // Levels of the same shared block at the same places are the same: passed over
                // as a whole (every one would be below).
                let compare = if h.levels.same_block_as(&rh.levels) {
                    h.levels.parts().0.len()
                } else {
                    h.levels.len()
                };
                for (p, (gl, rl)) in h.levels.iter().zip(&rh.levels).enumerate().take(compare) {
                    if Arc::ptr_eq(gl, rl) {
                        continue;
                    }
                    if !gl.same_settings(rl) {
                        return None;
                    }
                    let p = p as u32;
                    let (gls, rls) = match (&gl.locations, &rl.locations) {
                        (None, None) => continue,
                        (Some(a), Some(b)) => (a, b),
                        _ => return None,
                    };
                    // A module's level differing (same settings, other locations): only the
                    // lookups that consult the module see it (`same_settings` compared the
                    // layer, so both levels are the module's).
                    if let crate::engine::Place::Module(m) = &gl.layer {
                        if gls != rls {
                            modules.push(module_hash(m));
                        }
                        continue;
                    }
                    let differing: Vec<Option<u32>> = if gls.len() == rls.len() {
                        (0..gls.len() as u32)
                            .filter(|&i| gls[i as usize] != rls[i as usize])
                            .map(Some)
                            .collect()
                    } else {
                        vec![None]
                    };
                    for i in differing {
                        let (k, always) = keys_at(gl, i);
                        if always {
                            return None;
                        }
                        keys.extend(k);
                        slots.push((p, i.unwrap_or(u32::MAX)));
                    }
                }
                modules.sort_unstable();
                modules.dedup();
                // Sorted, so that each shard of `by_key` finds its keys in one run; a key
                // listed twice (two differing locations define it) is filed once.
                keys.sort_unstable();
                keys.dedup();
                Some((slots, keys, modules))
            })
            .collect();
        crate::timing::mark("  group deltas");
        // The reference's differing slots already seen (their keys are listed once). Only
        // the slots of groups that share are listed, so that every slot `affected` reads has
        // its groups in `by_slot` (a slot listed for a group that then turned out never to
        // share had none).
        let mut ref_seen: crate::engine::vfs::FastSet<(u32, u32)> = Default::default();
        // The sharing groups with their keys, for `by_key` below.
        let mut sharing: Vec<(usize, Vec<u64>)> = Vec::with_capacity(per_group.len());
        for (g, found) in per_group.into_iter().enumerate() {
            if g == REFERENCE {
                continue;
            }
            let Some((slots, keys, modules)) = found else {
                d.never.push(g);
                continue;
            };
            for m in modules {
                d.by_module.entry(m).or_default().push(g);
            }
            for &slot in &slots {
                if ref_seen.insert(slot) {
                    let rl = &rh.levels[slot.0 as usize];
                    let i = (slot.1 != u32::MAX).then_some(slot.1);
                    let (rk, always) = keys_at(rl, i);
                    // A reference location that always counts makes every group that
                    // differs there evaluate on its own: listed under every key.
                    if always {
                        d.ref_always.push(slot);
                    }
                    for k in rk {
                        d.ref_by_key.entry(k).or_default().push(slot);
                    }
                }
            }
            for s in slots {
                d.by_slot.entry(s).or_default().push(g);
            }
            sharing.push((g, keys));
        }
        // Each shard files its run of every sharing group's keys, in group order (so each
        // key's groups are listed in order, as one serial pass listed them).
        d.by_key
            .par_iter_mut()
            .enumerate()
            .for_each(|(shard, map)| {
                for (g, keys) in &sharing {
                    let from = keys.partition_point(|&k| key_shard(k) < shard);
                    let to = keys.partition_point(|&k| key_shard(k) <= shard);
                    for &k in &keys[from..to] {
                        map.entry(k).or_default().push(*g);
                    }
                }
            });
        d
    }

    /// The groups that may not share a lookup that read `keys` (and `lookup_options`) and
    /// consulted the data of `modules` with the reference; unsorted, possibly repeated.
    fn affected<'k>(
        &self,
        keys: impl Iterator<Item = &'k str>,
        modules: impl Iterator<Item = &'k str>,
    ) -> Vec<usize> {
        let mut out = self.never.clone();
        for s in &self.ref_always {
            out.extend_from_slice(&self.by_slot[s]);
        }
        let mut add = |k: &Value| {
            let k = key_hash(k);
            if let Some(gs) = self.by_key[key_shard(k)].get(&k) {
                out.extend_from_slice(gs);
            }
            for s in self.ref_by_key.get(&k).into_iter().flatten() {
                out.extend_from_slice(&self.by_slot[s]);
            }
        };
        add(&Value::string("lookup_options"));
        for k in keys {
            add(&Value::string(k));
        }
        for m in modules {
            if let Some(gs) = self.by_module.get(&module_hash(m)) {
                out.extend_from_slice(gs);
            }
        }
        out
    }
}

/// Which groups of an environment read which files (the existing data files of a group's
/// levels, in lookup order: global, environment, then the modules' levels; each once), and its
/// inverse, so that "the groups reading this file" and "does group g read this file" cost a
/// hash lookup instead of a scan of every group's list (which made the interpolation rules
/// quadratic in files on repositories with one group per node file).
pub struct ReadIndex {
    /// Every file some group reads, by id.
    paths: Vec<PathBuf>,
    /// The files each group reads (in lookup order, each once), as segments of [`lists`]
    /// (its own levels' lists, then its shared block's) less the repeats ([`GroupReads`]).
    reads: Vec<GroupReads>,
    /// The file ids of each level and of each shared block of module levels (in order), held
    /// once however many groups read them: a group's own levels include the glob and common
    /// levels every group shares (a hundred files at 15k; copied into each of 13,900 groups'
    /// lists they were 5.8 MB), and a block lists 500 module files (28 MiB when copied).
    lists: Vec<Vec<u32>>,
    /// The groups reading each file (by id), in ascending order; `None` for every group.
    by_id: Vec<Option<Vec<usize>>>,
    /// Every group, in order (what a file every group reads answers).
    all: Vec<usize>,
    /// Each file's id by its path, the path read from `paths` (hashed as a `PathKey` is: from
    /// its bytes, not component by component): a map keyed by a copy of every path held them
    /// all twice (2.5 MiB at 15k files, made for every check).
    ids: hashbrown::HashTable<u32>,
}

/// The files one group reads: the lists at `segs` (indices into [`ReadIndex::lists`]) in
/// order, without the entries at `skip` (ascending (segment position, offset) pairs: a file
/// an earlier entry of the group already gave; nearly always none).
struct GroupReads {
    segs: Vec<u32>,
    skip: Vec<(u32, u32)>,
}

impl GroupReads {
    /// The group's file ids in order, given the index's lists.
    fn ids<'a>(&'a self, lists: &'a [Vec<u32>]) -> impl Iterator<Item = u32> + 'a {
        self.segs.iter().enumerate().flat_map(move |(p, &l)| {
            lists[l as usize]
                .iter()
                .enumerate()
                .filter(move |&(o, _)| {
                    self.skip.is_empty() || self.skip.binary_search(&(p as u32, o as u32)).is_err()
                })
                .map(|(_, &id)| id)
        })
    }
}

impl ReadIndex {
    /// Built from the groups' resolved hierarchies. A level shared by many groups (common
    /// data, globs, every module's levels: the engine shares resolved levels between sessions)
    /// is turned into file ids once, and a group holds the lists of its levels and of its
    /// shared block by index, so the cost is one pass over each group's levels without hashing
    /// or copying a path per group and file.
    pub fn new(groups: &[Group]) -> ReadIndex {
        // Ids in order of first appearance: every level's existing file locations, level by
        // level, group by group. A level at the same position as in the previous group is the
        // same `Arc` most of the time (every module's levels, common data): it has been seen,
        // and a pointer comparison spares the hash lookup (there are groups x ~750 levels on
        // the 15k corpus).
        // Keyed by the path's bytes (its text, or its exact bytes when it is not UTF-8: two
        // such paths may have the same lossy text).
        let mut ids: crate::engine::vfs::FastMap<&[u8], u32> = Default::default();
        let mut paths: Vec<PathBuf> = Vec::new();
        let mut lists: Vec<Vec<u32>> = Vec::new();
        let mut by_level: crate::engine::vfs::FastMap<usize, u32> = Default::default();
        let empty = crate::engine::Levels::default();
        let mut prev: &crate::engine::Levels = &empty;
        for group in groups {
            let levels = &group.hierarchy.levels;
            // The same shared block of module levels at the same place as in the previous
            // group: every one of its levels would be passed over below (hundreds per group at
            // 15k files).
            let visit = if levels.same_block_as(prev) {
                levels.parts().0.len()
            } else {
                levels.len()
            };
            for (p, level) in levels.iter().enumerate().take(visit) {
                if prev.get(p).is_some_and(|q| Arc::ptr_eq(q, level)) {
                    continue;
                }
                by_level
                    .entry(Arc::as_ptr(level) as usize)
                    .or_insert_with(|| {
                        lists.push(
                            level
                                .locations
                                .iter()
                                .flatten()
                                .filter(|loc| loc.exists && !loc.is_uri)
                                .map(|loc| {
                                    let path = loc.path();
                                    *ids.entry(path.as_os_str().as_encoded_bytes())
                                        .or_insert_with(|| {
                                            paths.push(path.to_path_buf());
                                            (paths.len() - 1) as u32
                                        })
                                })
                                .collect(),
                        );
                        (lists.len() - 1) as u32
                    });
            }
            prev = levels;
        }
        let list_of =
            |level: &Arc<crate::engine::ResolvedLevel>| by_level[&(Arc::as_ptr(level) as usize)];
        // A shared block's ids once, in order, each at its first place (a later repeat would
        // be passed over in every group as well): one list for every group holding the block.
        let mut block_of: crate::engine::vfs::FastMap<usize, u32> = Default::default();
        let mut seen = vec![false; paths.len()];
        for group in groups {
            let Some(block) = group.hierarchy.levels.parts().1 else {
                continue;
            };
            block_of
                .entry(Arc::as_ptr(block) as usize)
                .or_insert_with(|| {
                    let mut list = Vec::new();
                    for level in block.levels() {
                        for &id in &lists[list_of(level) as usize] {
                            if !seen[id as usize] {
                                seen[id as usize] = true;
                                list.push(id);
                            }
                        }
                    }
                    for &id in &list {
                        seen[id as usize] = false;
                    }
                    lists.push(list);
                    (lists.len() - 1) as u32
                });
        }
        let n = paths.len();
        // Each group's segments, and the entries that repeat an earlier file of the group, in
        // parallel (marked by id: a glob may match up to `max_glob_results` files, and a linear
        // search for duplicates once hung the check on a glob interpolated to `/**/*.yaml`,
        // found by fuzzing `check_env`).
        let reads: Vec<GroupReads> = groups
            .par_iter()
            .enumerate()
            .map_init(
                || vec![usize::MAX; n],
                |mark, (g, group)| {
                    let (own_levels, block) = group.hierarchy.levels.parts();
                    let mut segs: Vec<u32> = own_levels.iter().map(list_of).collect();
                    if let Some(b) = block {
                        segs.push(block_of[&(Arc::as_ptr(b) as usize)]);
                    }
                    let mut skip = Vec::new();
                    for (p, &l) in segs.iter().enumerate() {
                        for (o, &id) in lists[l as usize].iter().enumerate() {
                            if mark[id as usize] == g {
                                skip.push((p as u32, o as u32));
                            } else {
                                mark[id as usize] = g;
                            }
                        }
                    }
                    segs.shrink_to_fit();
                    GroupReads { segs, skip }
                },
            )
            .collect();
        // The inverse, sized up front; a file every group reads (every module's data, common
        // data: most of the pairs) is not listed, `all` stands for it. A list's files count
        // once per group holding it.
        let mut holders = vec![0usize; lists.len()];
        let mut counts = vec![0usize; n];
        for r in &reads {
            for &l in &r.segs {
                holders[l as usize] += 1;
            }
        }
        for (l, list) in lists.iter().enumerate() {
            for &id in list {
                counts[id as usize] += holders[l];
            }
        }
        for r in &reads {
            for &(p, o) in &r.skip {
                counts[lists[r.segs[p as usize] as usize][o as usize] as usize] -= 1;
            }
        }
        let mut by_id: Vec<Option<Vec<usize>>> = counts
            .iter()
            .map(|&c| (c < groups.len()).then(|| Vec::with_capacity(c)))
            .collect();
        // Only lists holding a file some group does not read need a pass over their groups:
        // most files (every module's data, common data, globs) are read by every group.
        let listed: Vec<bool> = lists
            .iter()
            .map(|list| list.iter().any(|&id| by_id[id as usize].is_some()))
            .collect();
        for (g, r) in reads.iter().enumerate() {
            for (p, &l) in r.segs.iter().enumerate() {
                if !listed[l as usize] {
                    continue;
                }
                for (o, &id) in lists[l as usize].iter().enumerate() {
                    if !r.skip.is_empty() && r.skip.binary_search(&(p as u32, o as u32)).is_ok() {
                        continue;
                    }
                    if let Some(v) = &mut by_id[id as usize] {
                        v.push(g);
                    }
                }
            }
        }
        // As a map collected from (path, id) pairs: a path equal to an earlier one (as paths
        // compare) takes its place.
        let mut ids: hashbrown::HashTable<u32> = hashbrown::HashTable::with_capacity(paths.len());
        for (i, p) in paths.iter().enumerate() {
            let h = path_hash(p);
            match ids.find_mut(h, |&j| paths[j as usize] == *p) {
                Some(id) => *id = i as u32,
                None => {
                    ids.insert_unique(h, i as u32, |&j| path_hash(&paths[j as usize]));
                }
            }
        }
        ReadIndex {
            paths,
            reads,
            lists,
            by_id,
            all: (0..groups.len()).collect(),
            ids,
        }
    }

    /// The files group `g` reads, in lookup order.
    pub fn files(&self, g: usize) -> impl Iterator<Item = &Path> {
        self.file_ids(g).map(|id| self.paths[id as usize].as_path())
    }

    /// The ids of the files group `g` reads, in lookup order.
    pub fn file_ids(&self, g: usize) -> impl Iterator<Item = u32> + '_ {
        self.reads[g].ids(&self.lists)
    }

    /// For each group, the ids of the files it reads for which `keep` holds, in lookup order:
    /// [`ReadIndex::file_ids`] filtered, with each shared list's files tested once, not once
    /// per group holding it (at 15k files each of 13,400 groups walked its 600 files to keep
    /// the few with interpolation-loop edges). `None` for a group `want` leaves out.
    pub fn file_ids_where(
        &self,
        want: impl Fn(usize) -> bool + Sync,
        keep: impl Fn(u32) -> bool + Sync,
    ) -> Vec<Option<Vec<u32>>> {
        // Each list's kept entries, with their offsets (a group's repeats are by offset).
        let kept: Vec<Vec<(u32, u32)>> = self
            .lists
            .iter()
            .map(|l| {
                l.iter()
                    .enumerate()
                    .filter(|&(_, &id)| keep(id))
                    .map(|(o, &id)| (o as u32, id))
                    .collect()
            })
            .collect();
        self.reads
            .par_iter()
            .enumerate()
            .map(|(g, r)| {
                want(g).then(|| {
                    let mut out = Vec::new();
                    for (p, &l) in r.segs.iter().enumerate() {
                        for &(o, id) in &kept[l as usize] {
                            if r.skip.is_empty() || r.skip.binary_search(&(p as u32, o)).is_err() {
                                out.push(id);
                            }
                        }
                    }
                    out
                })
            })
            .collect()
    }

    /// Every file some group reads, by id ([`ReadIndex::id`] is the inverse).
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// For each group, whether it reads a file for which `hit` holds (given by id): each
    /// list of files tested once, not once per group holding it (at 15k files, a hash lookup
    /// per level of each of 13,900 groups was 21M instructions of merge-type-mismatch).
    pub fn groups_reading_any(&self, hit: impl Fn(u32) -> bool) -> Vec<bool> {
        let list_hit: Vec<bool> = self
            .lists
            .iter()
            .map(|l| l.iter().any(|&id| hit(id)))
            .collect();
        // A group's repeats (`skip`) are files it reads anyway: they do not change `any`.
        self.reads
            .iter()
            .map(|r| r.segs.iter().any(|&l| list_hit[l as usize]))
            .collect()
    }

    /// The ids of the files the first `own` levels of group `g`'s hierarchy read (its
    /// levels before a shared block), level by level and in order, a file read by two levels
    /// listed twice (Puppet reads it twice: two values of its keys to merge).
    pub fn own_level_ids(&self, g: usize, own: usize) -> impl Iterator<Item = u32> + '_ {
        self.reads[g].segs[..own.min(self.reads[g].segs.len())]
            .iter()
            .flat_map(|&l| self.lists[l as usize].iter().copied())
    }

    /// The id of a file some group reads.
    pub fn id(&self, path: &Path) -> Option<u32> {
        self.ids
            .find(path_hash(path), |&j| self.paths[j as usize] == *path)
            .copied()
    }

    /// The groups whose hierarchies read `path`, ascending.
    pub fn groups_reading(&self, path: &Path) -> &[usize] {
        self.id(path).map_or(&[], |id| {
            self.by_id[id as usize]
                .as_deref()
                .unwrap_or(self.all.as_slice())
        })
    }

    /// [`ReadIndex::groups_reading`] the file with id `id` ([`ReadIndex::id`]).
    pub fn groups_reading_id(&self, id: u32) -> &[usize] {
        self.by_id
            .get(id as usize)
            .map_or(&[], |l| l.as_deref().unwrap_or(self.all.as_slice()))
    }

    /// Whether group `g` reads `path`.
    pub fn reads(&self, g: usize, path: &Path) -> bool {
        self.groups_reading(path).binary_search(&g).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_shards_hold_runs_of_sorted_hashes() {
        // `Deltas::new` takes each shard's keys as one run of a group's sorted hashes: the
        // shard must never decrease as the hash grows, and every shard must be reachable.
        let mut hashes: Vec<u64> = (0..4096u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .chain([0, u64::MAX, 1 << 63, (1 << 60) - 1, 1 << 60])
            .collect();
        hashes.sort_unstable();
        let shards: Vec<usize> = hashes.iter().map(|&h| key_shard(h)).collect();
        assert!(shards.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(key_shard(0), 0);
        assert_eq!(key_shard(u64::MAX), KEY_SHARDS - 1);
        assert_eq!(key_shard((1 << 60) - 1), 0);
        assert_eq!(key_shard(1 << 60), 1);
        let mut seen = shards.clone();
        seen.dedup();
        assert_eq!(seen, (0..KEY_SHARDS).collect::<Vec<_>>());
    }

    #[test]
    fn union_ascending_is_the_sorted_deduplicated_concatenation() {
        let lists: [&[usize]; 6] = [
            &[],
            &[0, 3, 64, 65],
            &[3, 4, 127, 128],
            &[1],
            &[129],
            &[0, 1],
        ];
        let n = 130;
        for take in 0..=lists.len() {
            for skip in 0..lists.len() {
                let ls: Vec<&[usize]> = lists.iter().skip(skip).take(take).copied().collect();
                let mut want: Vec<usize> = ls.iter().flat_map(|l| l.iter().copied()).collect();
                want.sort_unstable();
                want.dedup();
                assert_eq!(super::union_ascending(&ls, n), want, "{ls:?}");
            }
        }
        let all: Vec<usize> = (0..5).collect();
        assert_eq!(super::union_ascending(&[&[1, 2], &all], 5), all);
    }

    #[test]
    fn group_set_holds_what_was_inserted() {
        let members = [0usize, 5, 63, 64, 65, 127, 128, 199];
        let set = super::GroupSet::of(200, members.iter().copied().chain([5, 64]));
        assert_eq!(set.iter().collect::<Vec<_>>(), members);
        for g in 0..210 {
            assert_eq!(set.contains(g), members.contains(&g), "{g}");
        }
        assert_eq!(super::GroupSet::of(0, []).iter().count(), 0);
    }

    /// A hierarchy of a node level (`nodes/<certname>.yaml`) and common data.
    const NODE_AND_COMMON: &str = "version: 5\nhierarchy:\n  - name: n\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: c\n    path: common.yaml\n";

    /// An environment at `root` of YAML files (`hiera.yaml` as its config, the rest data), as
    /// the scanner would load them.
    fn env_project(root: &Path, files: &[(&str, &str)]) -> Project {
        use crate::loader::{self, Format};
        use crate::project::LoadedFile;
        Project::new(
            files
                .iter()
                .map(|&(rel, body)| {
                    let path = root.join(rel);
                    let source = Arc::new(SourceFile::from_bytes(&path, body.as_bytes()));
                    let doc = loader::load(Format::Yaml, &source);
                    let role = if rel == "hiera.yaml" {
                        FileRole::HieraConfig
                    } else {
                        FileRole::Data
                    };
                    LoadedFile::new(
                        source,
                        doc,
                        role,
                        Layer::Environment,
                        Some(std::sync::Arc::from(root)),
                    )
                })
                .collect(),
        )
    }

    /// The engine resolves hierarchies from the project's own parse of hiera.yaml (made once
    /// for the rules and the engine), and the analysis's file system offers it only for the
    /// same text (the layer is checked by `layer::create`: see its test).
    #[test]
    fn the_engine_reads_the_projects_parse_of_hiera_yaml() {
        let root = PathBuf::from("/nonexistent-hieralint-shared-config/env");
        let project = env_project(
            &root,
            &[
                ("hiera.yaml", NODE_AND_COMMON),
                ("data/common.yaml", "c: 1\n"),
                ("data/nodes/a.yaml", "a: 1\n"),
            ],
        );
        let cfg = project.files[0]
            .shared_config()
            .expect("hiera.yaml shares its parse");
        assert!(!cfg.is_parsed());
        let analysis = analyze(&project, &[], PuppetVersion::V8);
        // No rule ran: the engine made the parse, in the project's cell.
        assert!(cfg.is_parsed());
        assert_eq!(analysis.envs[0].groups.len(), 2);
        let vfs = ProjectVfs {
            files: Arc::new(project_files(&project)),
            disk: FsVfs::new(),
        };
        let path = root.join("hiera.yaml");
        let source = project.files[0].source.clone();
        assert!(vfs.shared_config(&path, &source).is_some());
        let other = Arc::new(SourceFile::from_bytes(&path, source.text.as_bytes()));
        assert!(vfs.shared_config(&path, &other).is_none());
        assert!(vfs
            .shared_config(&root.join("data/common.yaml"), &source)
            .is_none());
    }

    /// The read index answers which groups read a file: all of them for common data (kept as
    /// one shared list, not one per file), the one group for a node file, none for a file no
    /// hierarchy reads; and each group's files in hierarchy order.
    #[test]
    fn the_read_index_lists_who_reads_what() {
        let root = PathBuf::from("/nonexistent-hieralint-read-index/env");
        let project = env_project(
            &root,
            &[
                ("hiera.yaml", NODE_AND_COMMON),
                ("data/common.yaml", "c: 1\n"),
                ("data/nodes/a.yaml", "a: 1\n"),
                ("data/nodes/b.yaml", "b: 1\n"),
                ("data/stray.yaml", "s: 1\n"),
            ],
        );
        let analysis = analyze(&project, &[], PuppetVersion::V8);
        let env = &analysis.envs[0];
        // The node binding nothing, and one implied by each node file.
        assert_eq!(env.groups.len(), 3);
        let ix = env.read_index();
        let p = |rel: &str| root.join("data").join(rel);
        assert_eq!(ix.groups_reading(&p("common.yaml")), &[0, 1, 2]);
        let a: Vec<usize> = (0..3)
            .filter(|&g| ix.reads(g, &p("nodes/a.yaml")))
            .collect();
        assert_eq!(a.len(), 1);
        assert_eq!(ix.groups_reading(&p("nodes/a.yaml")), a.as_slice());
        assert!(ix.groups_reading(&p("stray.yaml")).is_empty());
        assert_eq!(
            ix.files(a[0]).collect::<Vec<_>>(),
            vec![p("nodes/a.yaml").as_path(), p("common.yaml").as_path()]
        );
        assert_eq!(
            ix.files(0).collect::<Vec<_>>(),
            vec![p("common.yaml").as_path()]
        );
    }

    /// A file a group's hierarchy reads twice (two locations of one level, or two levels) is
    /// listed once, at its first place, by every view of the index (each group holds its
    /// levels' shared lists and the places that repeat an earlier file).
    #[test]
    fn the_read_index_lists_a_file_read_twice_once() {
        let root = PathBuf::from("/nonexistent-hieralint-read-index-twice/env");
        let project = env_project(
            &root,
            &[
                (
                    "hiera.yaml",
                    "version: 5\nhierarchy:\n  - name: n\n    paths: [\"nodes/%{trusted.certname}.yaml\", common.yaml, \"nodes/%{trusted.certname}.yaml\"]\n  - name: c\n    path: common.yaml\n  - name: o\n    path: other.yaml\n",
                ),
                ("data/common.yaml", "c: 1\n"),
                ("data/other.yaml", "o: 1\n"),
                ("data/nodes/a.yaml", "a: 1\n"),
                ("data/nodes/b.yaml", "b: 1\n"),
            ],
        );
        let analysis = analyze(&project, &[], PuppetVersion::V8);
        let env = &analysis.envs[0];
        assert_eq!(env.groups.len(), 3);
        let ix = env.read_index();
        let p = |rel: &str| root.join("data").join(rel);
        let a = ix.groups_reading(&p("nodes/a.yaml"));
        assert_eq!(a.len(), 1);
        let a = a[0];
        assert_eq!(
            ix.files(a).collect::<Vec<_>>(),
            vec![
                p("nodes/a.yaml").as_path(),
                p("common.yaml").as_path(),
                p("other.yaml").as_path()
            ]
        );
        assert_eq!(
            ix.files(0).collect::<Vec<_>>(),
            vec![p("common.yaml").as_path(), p("other.yaml").as_path()]
        );
        assert_eq!(ix.groups_reading(&p("common.yaml")), &[0, 1, 2]);
        // Filtered views agree with the whole lists.
        let node_ids: Vec<u32> = ["nodes/a.yaml", "nodes/b.yaml"]
            .iter()
            .filter_map(|r| ix.id(&p(r)))
            .collect();
        let kept = ix.file_ids_where(|g| g != 0, |id| node_ids.contains(&id));
        for (g, k) in kept.iter().enumerate() {
            let want = (g != 0).then(|| {
                ix.file_ids(g)
                    .filter(|id| node_ids.contains(id))
                    .collect::<Vec<_>>()
            });
            assert_eq!(k, &want, "{g}");
        }
        assert_eq!(
            kept[a].as_deref(),
            Some(&[ix.id(&p("nodes/a.yaml")).unwrap()][..])
        );
        // Level by level, repeats kept: the node file twice in level `n`, common data in `n`
        // and `c`.
        let own = env.groups[a].hierarchy.levels.parts().0.len();
        let paths: Vec<&Path> = ix
            .own_level_ids(a, own)
            .map(|id| ix.paths()[id as usize].as_path())
            .collect();
        let (na, c, o) = (p("nodes/a.yaml"), p("common.yaml"), p("other.yaml"));
        assert_eq!(paths, vec![&*na, &*c, &*na, &*c, &*o]);
        // Whether each group reads a file: as testing its files one by one.
        for target in [&na, &c, &o, &p("nodes/b.yaml")] {
            let id = ix.id(target).unwrap();
            let any = ix.groups_reading_any(|i| i == id);
            let want: Vec<bool> = (0..env.groups.len())
                .map(|g| ix.file_ids(g).any(|i| i == id))
                .collect();
            assert_eq!(any, want, "{}", target.display());
        }
        assert!(ix.groups_reading_any(|_| false).iter().all(|&b| !b));
    }

    /// Long node lists are described by name ranks: the same counts and names as sorting.
    #[test]
    fn describe_by_rank_answers_as_sorting() {
        use crate::loader::{self, Format};
        use crate::project::LoadedFile;
        let root = PathBuf::from("/nonexistent-hieralint-describe/env");
        let source = Arc::new(SourceFile::from_bytes(
            root.join("hiera.yaml"),
            b"version: 5\nhierarchy:\n  - name: c\n    path: common.yaml\n",
        ));
        let doc = loader::load(Format::Yaml, &source);
        let project = Project::new(vec![LoadedFile::new(
            source,
            doc,
            FileRole::HieraConfig,
            Layer::Environment,
            Some(std::sync::Arc::from(root.as_path())),
        )]);
        // Fact sets with repeated names (facterdb's all say `foo.example.com`).
        let names = ["m", "b", "z", "b", "a", "q", "a", "c", "y", "b", "zz", "a0"];
        let sets: Vec<FactSet> = (0..150)
            .map(|i| FactSet {
                name: format!("{}{}", names[i % names.len()], i % 7),
                source: PathBuf::new(),
                facts: Value::hash(Hash::default()),
                trusted: Value::Undef,
                server_facts: None,
                environment: None,
            })
            .collect();
        let analysis = analyze(&project, &sets, PuppetVersion::V8);
        let env = &analysis.envs[0];
        assert_eq!(env.nodes.len(), 150);
        for (len, step) in [(65, 1), (100, 3), (150, 1), (300, 7), (70, 11)] {
            let nodes: Vec<usize> = (0..len).map(|i| (i * step) % 150).collect();
            let mut ids = nodes.clone();
            ids.sort_unstable();
            ids.dedup();
            for k in [0, 1, 3, 200] {
                let (shown, distinct) =
                    smallest_distinct(ids.iter().map(|&i| env.nodes[i].name.as_str()), k);
                assert_eq!(
                    env.describe_by_rank(&nodes, k),
                    (ids.len(), shown, distinct),
                    "len {len} step {step} k {k}"
                );
            }
        }
    }

    #[test]
    fn smallest_distinct_is_the_head_of_the_sorted_names() {
        let pool = ["m", "b", "z", "b", "a", "q", "a", "c", "y", "b"];
        for n in 0..=pool.len() {
            for start in 0..pool.len() {
                let names: Vec<&str> = pool.iter().cycle().skip(start).take(n).copied().collect();
                let mut sorted = names.clone();
                sorted.sort_unstable();
                sorted.dedup();
                for k in [0, 1, 3, 20] {
                    let (shown, count) = smallest_distinct(names.iter().copied(), k);
                    assert_eq!(count, sorted.len(), "{names:?}");
                    let want: Vec<&str> = sorted.iter().take(k).copied().collect();
                    assert_eq!(shown, want, "{names:?} k={k}");
                }
            }
        }
    }

    #[test]
    fn templates_bind_holes() {
        let t = Template::parse("nodes/%{trusted.certname}.yaml").unwrap();
        assert_eq!(
            t.matches("nodes/web01.example.com.yaml"),
            Some(vec![(
                "trusted.certname".into(),
                "web01.example.com".into()
            )])
        );
        assert_eq!(t.matches("nodes/a/b.yaml"), None);
        let t = Template::parse("os/%{facts.os.family}/%{facts.os.release.major}.yaml").unwrap();
        assert_eq!(t.matches("os/Debian/12.yaml").unwrap().len(), 2);
        assert!(!Template::parse("common.yaml").unwrap().has_holes());
    }

    /// The allocation-free matcher binds what the first one bound, on templates with holes
    /// side by side, holes between literals that repeat, and multi-byte text.
    #[test]
    fn template_matches_as_the_reference_does() {
        let templates = [
            "nodes/%{trusted.certname}.yaml",
            "os/%{facts.os.family}/%{facts.os.release.major}.yaml",
            "%{a}%{b}.yaml",
            "%{a}-%{b}-%{c}.yaml",
            "x/%{a}.%{b}.yaml",
            "%{a}",
            "pre%{a}",
            "%{a}.y.%{b}.y",
            "a/%{x}/b/%{y}",
            "%{a}aa%{b}.yaml",
            "%{a}ßß",
            "%{a}/%{b}",
        ];
        let paths = [
            "nodes/web01.example.com.yaml",
            "nodes/a/b.yaml",
            "nodes/.yaml",
            "os/Debian/12.yaml",
            "os/Debian/.yaml",
            "ab.yaml",
            "a.yaml",
            "a-b-c.yaml",
            "a-b-c-d.yaml",
            "--.yaml",
            "a--b-c.yaml",
            "x/a.b.c.yaml",
            "x/.b.yaml",
            "ü-é-ñ.yaml",
            "über.yaml",
            "preß",
            "pre",
            "q.y.r.y.s.y",
            "a/1/b/2",
            "a/1/b/",
            "a//b/2",
            "",
            "nodes/x.yaml.yaml",
            "xaaay.yaml",
            "aaaa.yaml",
            "aaaaa.yaml",
            "ßßß",
            "xßßß",
            "ßß",
            "aa/b",
        ];
        for t in templates {
            let t = Template::parse(t).unwrap();
            for p in paths {
                assert_eq!(t.matches(p), t.matches_reference(p), "{p}");
            }
        }
    }

    #[test]
    fn binding_builds_nested_facts() {
        let mut facts = Hash::default();
        let mut trusted = Trusted::default();
        bind(&mut facts, &mut trusted, "facts.os.family", "Debian");
        bind(&mut facts, &mut trusted, "::site", "ams");
        bind(&mut facts, &mut trusted, "trusted.certname", "web01");
        assert_eq!(
            Value::hash(facts).ruby_inspect(),
            r#"{"os"=>{"family"=>"Debian"}, "site"=>"ams"}"#
        );
        assert_eq!(trusted.certname.as_deref(), Some("web01"));
    }
}

//! The lookup engine, exact to Puppet: layers, hierarchies, backends, lookup_options, merges,
//! interpolation, dotted keys and explain.
//!
//! ```no_run
//! use std::sync::Arc;
//! use hieralint::engine::{Engine, EngineOptions, EnvironmentSpec, LookupRequest, Scope};
//! let engine = Engine::on_disk(
//!     EnvironmentSpec::in_codedir("/etc/puppetlabs/code".as_ref(), "production"),
//!     EngineOptions::default(),
//! );
//! let session = engine.session(Arc::new(Scope::default()));
//! let outcome = session.lookup(&LookupRequest::new("ntp::servers").explain(true));
//! ```
//!
//! An [`Engine`] is built once per environment and shared between threads: it caches parsed
//! files, hiera.yaml configurations, and lookup outcomes (keyed by the resolved hierarchy's
//! fingerprint and the scope expressions each lookup read, so fact sets that see the same data
//! share answers). A [`Session`] is what Puppet keeps per compile: one node's [`Scope`], its
//! lookup_options and resolved hierarchies; use one per fact set (sessions are not `Send`).
//!
//! The code is a port of Puppet's `pops/lookup` classes, method by method ([`lookup`] has the
//! adapter, providers and interpolation; [`merge`] the strategies and deep_merge; [`layer`] the
//! configuration's creation errors; [`data`] and [`eyaml`] the backends; [`explain`] the
//! explanation). Where Puppet's behaviour depends on Ruby (sorting, regexes, `==`), [`ruby`]
//! reproduces it. Every rule is checked against the cases recorded from Puppet 7.23 in
//! `fixtures/conformance` (tests/conformance.rs).

pub mod assert_type;
pub mod cli;
pub mod convert;
pub mod data;
pub mod env;
pub mod error;
pub mod explain;
pub mod eyaml;
pub mod format;
pub mod layer;
mod levels;
pub(crate) mod lookup;
pub mod merge;
pub mod pkcs7;
pub mod ruby;
pub mod scope;
pub mod types;
pub mod vfs;

use crate::engine::vfs::FastMap as HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use env::{Environment, EnvironmentSpec};
pub use error::{ErrorKind, LookupError};
pub use explain::Explainer;
pub use layer::Place;
pub use lookup::{AssembledOptions, KeyDefinition, LevelLocation, Provenance, ResolvedLevel};
pub use merge::{MergeStrategy, StrategyKind};
pub use scope::{Scope, Trusted};
pub use vfs::{FsVfs, Vfs};

use crate::limits::Limits;
use crate::value::Value;
use data::FileCache;
use layer::LayerConfig;

/// Which Puppet to model where 7 and 8 differ (reference §11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PuppetVersion {
    V7,
    V8,
}

/// `Puppet[:strict]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strict {
    Off,
    Warning,
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    pub puppet: PuppetVersion,
    pub strict: Strict,
}

impl EngineOptions {
    /// Puppet's defaults for a version: strict=warning on 7, strict=error on 8.
    pub fn for_puppet(puppet: PuppetVersion) -> EngineOptions {
        EngineOptions {
            puppet,
            strict: match puppet {
                PuppetVersion::V7 => Strict::Warning,
                PuppetVersion::V8 => Strict::Error,
            },
        }
    }
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions::for_puppet(PuppetVersion::V7)
    }
}

/// What a lookup gives.
#[derive(Clone, Debug)]
pub enum LookupResult {
    Found(Value),
    NotFound,
    Error(LookupError),
}

/// A lookup's answer with everything around it.
#[derive(Clone, Debug)]
pub struct LookupOutcome {
    pub result: LookupResult,
    /// The key that was found (the first of several keys that has a value). Shared, as the
    /// provenance is: a session hands out clones of the outcomes it keeps, and copying both
    /// was a fifth of a lookup answered from a warm engine (`examples/lookup_rate.rs`).
    pub key: Option<Arc<str>>,
    /// True when the value is the caller's default.
    pub defaulted: bool,
    pub explain: Option<Explainer>,
    /// The warnings Puppet would log during this lookup, in order (deduplicated).
    pub warnings: Vec<String>,
    /// Where found root keys came from (key and value spans), in lookup order.
    pub provenance: Arc<[Provenance]>,
}

impl LookupOutcome {
    pub fn value(&self) -> Option<&Value> {
        match &self.result {
            LookupResult::Found(v) => Some(v),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<&LookupError> {
        match &self.result {
            LookupResult::Error(e) => Some(e),
            _ => None,
        }
    }

    /// `puppet lookup --explain` text: the tree, then the error text for a failure.
    pub fn explain_text(&self) -> Option<String> {
        self.explain.as_ref().map(|e| e.explain())
    }
}

/// A module on the modulepath.
#[derive(Clone, Debug)]
pub struct ModuleInfo {
    pub name: String,
    pub dir: PathBuf,
    pub has_hiera_yaml: bool,
    /// `metadata.json`'s `data_provider`, if set.
    pub data_provider: Option<Value>,
}

/// The modules on the modulepath: name and directory.
type ModuleList = Arc<Vec<(String, PathBuf)>>;

type ConfigResult = Result<(Arc<LayerConfig>, Vec<String>), LookupError>;

/// The engine for one environment. `Sync`: share it between threads.
pub struct Engine {
    pub(crate) env: Environment,
    pub(crate) opts: EngineOptions,
    pub(crate) vfs: Arc<dyn Vfs>,
    pub(crate) files: FileCache,
    /// Created configurations by hiera.yaml path (hashed from its bytes: every hierarchy
    /// resolution asks for its layers' configurations), then place, with the id of the source
    /// they were created from.
    configs: Mutex<vfs::PathMap<Vec<(Place, MadeConfig)>>>,
    modules: Mutex<HashMap<String, Option<Arc<ModuleInfo>>>>,
    functions: Mutex<HashMap<String, bool>>,
    /// Interpolation and glob bounds ([`Engine::with_limits`]).
    pub(crate) limits: Limits,
    /// Outcomes shared by sessions: by hierarchy fingerprint and request, each with the scope
    /// variables (and what reading them gave) the lookup depended on.
    results: std::sync::RwLock<vfs::FastMap<(u64, u64), Vec<CachedOutcome>>>,
    /// Hierarchy levels resolved by any session, with the scope reads they depend on.
    pub(crate) levels: levels::LevelCache,
    /// Module layers resolved by fresh hierarchy resolutions, with their scope reads.
    pub(crate) layers: levels::LayerCache,
    /// The modules on the modulepath ([`Environment::modules`]), listed once.
    module_list: std::sync::RwLock<Option<ModuleList>>,
    /// Outcomes shared across hierarchies: by request, then by the keys the lookup read and
    /// the signature of the data defining them ([`Session::data_signature`]).
    by_data: std::sync::RwLock<vfs::FastMap<u64, Vec<DataVariants>>>,
    /// The file system's [`Vfs::generation`] the two caches above were filled in.
    generation: std::sync::atomic::AtomicU64,
    /// The environment's hiera.yaml as every session's environment provider finds it: its
    /// path, and its configuration when it exists ([`Engine::env_layer_config`]).
    env_layer: std::sync::RwLock<Option<EnvLayerConfig>>,
}

/// The environment layer's hiera.yaml: its path, and when it exists the configuration created
/// from it with its warnings.
#[derive(Clone)]
pub(crate) struct EnvLayerConfig {
    pub path: PathBuf,
    pub made: Option<ConfigResult>,
}

/// A configuration as created, with the id of the hiera.yaml source it was created from.
type MadeConfig = (usize, ConfigResult);

/// The keys a lookup looked up (its own and those of nested lookups): each root key with the
/// module whose data it consults.
type KeysRead = Vec<(Arc<str>, Option<String>)>;

/// What a lookup's outcome depends on ([`Session::lookup_with_deps`]).
#[derive(Clone, Debug)]
pub struct Deps {
    /// The root keys it looked up (its own and nested lookups'), each with the module whose
    /// data it consults; `lookup_options` is consulted by every lookup and not listed.
    pub keys: KeysRead,
    reads: Vec<(Arc<str>, lookup::Probe)>,
}

impl Deps {
    /// Whether `scope` answers every scope read the lookup made as the lookup's scope did.
    pub fn answers_alike(&self, scope: &Scope) -> bool {
        answers_alike(&self.reads, scope)
    }

    /// Whether the lookup read no scope variable.
    pub fn reads_no_scope(&self) -> bool {
        self.reads.is_empty()
    }
}

/// Whether `scope` answers each of `reads` (expression, what it gave) alike.
pub(crate) fn answers_alike(reads: &[(Arc<str>, lookup::Probe)], scope: &Scope) -> bool {
    reads
        .iter()
        .all(|(expr, got)| lookup::probe(scope, expr) == *got)
}

/// Outcomes of one request whose lookups read the same keys, by data signature.
struct DataVariants {
    keys: Arc<KeysRead>,
    by_signature: vfs::FastMap<u64, levels::ByReads<CachedOutcome>>,
    count: usize,
}

/// Bounds on the cross-hierarchy cache, per request: distinct key lists, and outcomes per list
/// (a key defined in every node's own file has one outcome per node).
const MAX_KEY_LISTS: usize = 8;
const MAX_DATA_VARIANTS: usize = 1 << 14;

/// A lookup outcome and the scope reads it depends on.
struct CachedOutcome {
    request: ResultKey,
    reads: Vec<(Arc<str>, lookup::Probe)>,
    outcome: LookupOutcome,
}

/// Bound on cached outcomes per request (distinct dependency sets).
const MAX_VARIANTS: usize = 64;

impl Engine {
    pub fn new(spec: EnvironmentSpec, opts: EngineOptions, vfs: Arc<dyn Vfs>) -> Engine {
        // The default read budget until `with_limits` sets another (`hieralint lookup` keeps it).
        vfs.set_read_budget(Limits::default().max_read_bytes);
        let env = Environment::load(spec, &*vfs);
        Engine {
            env,
            opts,
            vfs,
            files: FileCache::default(),
            configs: Mutex::new(Default::default()),
            modules: Mutex::new(HashMap::default()),
            functions: Mutex::new(HashMap::default()),
            limits: Limits::default(),
            results: std::sync::RwLock::new(Default::default()),
            levels: levels::LevelCache::default(),
            layers: levels::LayerCache::default(),
            module_list: std::sync::RwLock::new(None),
            by_data: std::sync::RwLock::new(Default::default()),
            generation: std::sync::atomic::AtomicU64::new(0),
            env_layer: std::sync::RwLock::new(None),
        }
    }

    /// The engine with other bounds on interpolation (string growth, nesting, number of
    /// sub-lookups) and globs (results, visited entries, brace alternatives); the defaults are
    /// [`Limits::default`] (docs/limits.md).
    pub fn with_limits(mut self, limits: Limits) -> Engine {
        self.vfs.set_read_budget(limits.max_read_bytes);
        self.limits = limits;
        self
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// An engine reading the real file system.
    pub fn on_disk(spec: EnvironmentSpec, opts: EngineOptions) -> Engine {
        Engine::new(spec, opts, Arc::new(FsVfs::new()))
    }

    pub fn environment(&self) -> &Environment {
        &self.env
    }

    pub fn options(&self) -> EngineOptions {
        self.opts
    }

    pub fn vfs(&self) -> &Arc<dyn Vfs> {
        &self.vfs
    }

    /// Forgets parsed files and configurations (after files changed).
    pub fn invalidate(&self) {
        self.files.clear();
        if let Ok(mut c) = self.configs.lock() {
            c.clear();
        }
        if let Ok(mut m) = self.modules.lock() {
            m.clear();
        }
        if let Ok(mut f) = self.functions.lock() {
            f.clear();
        }
        if let Ok(mut r) = self.results.write() {
            r.clear();
        }
        self.forget_resolutions();
        if let Ok(mut r) = self.by_data.write() {
            r.clear();
        }
    }

    /// Forgets what depends on which files and directories exist: resolved levels and layers,
    /// and the module list.
    fn forget_resolutions(&self) {
        self.levels.clear();
        self.layers.clear();
        if let Ok(mut e) = self.env_layer.write() {
            *e = None;
        }
        if let Ok(mut l) = self.module_list.write() {
            *l = None;
        }
    }

    /// Whether the environment's hiera.yaml exists, and the configuration created from it
    /// (`create_config` for the environment place), made once per file system generation:
    /// every session's environment provider asks for both, and finding them again (the path
    /// joined, then hashed three times: existence, read, the configurations' map behind its
    /// lock) was 2,000 instructions per data-implied node at 15k files. The same answers
    /// (the file system is the same, and `create_config` gives its cached result for an
    /// unchanged source); the caller logs the warnings, as for a configuration created anew.
    pub(crate) fn env_layer_config(&self) -> EnvLayerConfig {
        if let Some(e) = self.env_layer.read().ok().and_then(|e| e.clone()) {
            return e;
        }
        let path = self.env.dir().join("hiera.yaml");
        let made = self
            .vfs
            .exists(&path)
            .then(|| self.create_config(&path, &Place::Environment));
        let e = EnvLayerConfig { path, made };
        if let Ok(mut slot) = self.env_layer.write() {
            *slot = Some(e.clone());
        }
        e
    }

    /// The modules on the modulepath, by name, in Puppet's order.
    pub(crate) fn module_list(&self) -> ModuleList {
        if let Some(l) = self.module_list.read().ok().and_then(|l| l.clone()) {
            return l;
        }
        let l = Arc::new(self.env.modules(&*self.vfs));
        if let Ok(mut slot) = self.module_list.write() {
            *slot = Some(l.clone());
        }
        l
    }

    /// Drops the resolved levels and the outcomes shared across hierarchies when the file
    /// system changed under the engine (an editor overlay): they hold what files existed and
    /// what they defined. (Outcomes shared by fingerprint stay: the fingerprint covers the
    /// identity of every file read.)
    fn sync_generation(&self) {
        use std::sync::atomic::Ordering;
        let now = self.vfs.generation();
        if self.generation.load(Ordering::SeqCst) != now {
            self.forget_resolutions();
            if let Ok(mut r) = self.by_data.write() {
                r.clear();
            }
            self.generation.store(now, Ordering::SeqCst);
        }
    }

    /// A session for one node (what Puppet keeps per compile).
    pub fn session(&self, scope: Arc<Scope>) -> Session<'_> {
        self.sync_generation();
        Session {
            engine: self,
            scope,
            state: lookup::State::default(),
            results: std::cell::RefCell::new(Default::default()),
            fingerprint: std::cell::OnceCell::new(),
            hierarchy: std::cell::OnceCell::new(),
            signatures: Default::default(),
            warned_once: Default::default(),
        }
    }

    /// [`Engine::session`] for a scope whose resolved hierarchy and its fingerprint are already
    /// known (the analysis keeps each group's): lookups neither resolve it again to find their
    /// place in the shared caches nor to compute their data signature.
    pub fn session_with_hierarchy(
        &self,
        scope: Arc<Scope>,
        hierarchy: Arc<ResolvedHierarchy>,
        fingerprint: u64,
    ) -> Session<'_> {
        debug_assert_eq!(fingerprint, hierarchy.fingerprint());
        let s = self.session(scope);
        let _ = s.fingerprint.set(fingerprint);
        let _ = s.hierarchy.set(hierarchy);
        s
    }

    /// One lookup in a fresh session.
    pub fn lookup(
        &self,
        scope: &Scope,
        key: &str,
        merge: Option<&Value>,
        explain: bool,
    ) -> LookupOutcome {
        self.session(Arc::new(scope.clone())).lookup(
            &LookupRequest::new(key)
                .merge(merge.cloned())
                .explain(explain),
        )
    }

    pub(crate) fn module_dir(&self, name: &str) -> Option<PathBuf> {
        self.module_info(name).map(|m| m.dir.clone())
    }

    /// A module by name (`environment.module(name)`), with what its data provider needs.
    pub fn module_info(&self, name: &str) -> Option<Arc<ModuleInfo>> {
        if let Some(m) = self.modules.lock().ok().and_then(|m| m.get(name).cloned()) {
            return m;
        }
        let info = self.env.module_dir(name, &*self.vfs).and_then(|dir| {
            let file = self.vfs.read(&dir.join("metadata.json"));
            let strict_error =
                self.opts.strict == Strict::Error || self.opts.puppet == PuppetVersion::V8;
            if metadata_problem(
                file.as_deref().map(crate::span::SourceFile::text),
                strict_error,
            )
            .is_some()
            {
                return None;
            }
            let metadata = file
                .as_ref()
                .and_then(|f| serde_json::from_str::<serde_json::Value>(f.text()).ok());
            let data_provider = metadata
                .as_ref()
                .and_then(|j| j.get("data_provider").map(Value::from_json));
            Some(Arc::new(ModuleInfo {
                name: name.to_string(),
                has_hiera_yaml: self.vfs.exists(&dir.join("hiera.yaml")),
                dir,
                data_provider,
            }))
        });
        if let Ok(mut m) = self.modules.lock() {
            m.insert(name.to_string(), info.clone());
        }
        info
    }

    /// `HieraConfig.create` for a layer's hiera.yaml, cached.
    pub(crate) fn create_config(&self, path: &Path, place: &Place) -> ConfigResult {
        let source = self.vfs.read(path);
        let id = source.as_ref().map_or(0, |f| Arc::as_ptr(f) as usize);
        let cached = self.configs.lock().ok().and_then(|c| {
            c.get(&vfs::PathRef(path))?
                .iter()
                .find(|(p, _)| p == place)
                .map(|(_, made)| made.clone())
        });
        if let Some((cid, c)) = cached {
            if cid == id {
                return c;
            }
        }
        let shared = source
            .as_ref()
            .and_then(|f| self.vfs.shared_config(path, f));
        let created = layer::create(path, place, source, shared.as_deref());
        let r = created.config.map(|c| (c, created.warnings.clone()));
        if let Ok(mut c) = self.configs.lock() {
            let by_place = c.entry(vfs::PathKey(path.to_path_buf())).or_default();
            match by_place.iter_mut().find(|(p, _)| p == place) {
                Some((_, made)) => *made = (id, r.clone()),
                None => by_place.push((place.clone(), (id, r.clone()))),
            }
        }
        r
    }

    /// Whether a function named `name` exists in the environment (as a Ruby function in a
    /// module's or the environment's `lib/puppet/functions`, or a Puppet-language function).
    pub(crate) fn function_exists(&self, name: &str) -> bool {
        if let Some(b) = self
            .functions
            .lock()
            .ok()
            .and_then(|f| f.get(name).copied())
        {
            return b;
        }
        let found = self.find_function(name);
        if let Ok(mut f) = self.functions.lock() {
            f.insert(name.to_string(), found);
        }
        found
    }

    fn find_function(&self, name: &str) -> bool {
        let parts: Vec<&str> = name.split("::").collect();
        let rb_rel: PathBuf = parts.iter().collect::<PathBuf>().with_extension("rb");
        match parts.as_slice() {
            [single] => {
                let rel = PathBuf::from(format!("{single}.rb"));
                if self
                    .vfs
                    .exists(&self.env.dir().join("lib/puppet/functions").join(&rel))
                {
                    return true;
                }
                self.module_list().iter().any(|(_, dir)| {
                    self.vfs
                        .exists(&dir.join("lib/puppet/functions").join(&rel))
                })
            }
            [ns, rest @ ..] => {
                let pp_rel: PathBuf = rest.iter().collect::<PathBuf>().with_extension("pp");
                let base = if *ns == "environment" {
                    Some(self.env.dir().to_path_buf())
                } else {
                    self.module_dir(ns)
                };
                match base {
                    None => false,
                    Some(b) => {
                        self.vfs.exists(&b.join("functions").join(&pp_rel))
                            || self
                                .vfs
                                .exists(&b.join("lib/puppet/functions").join(&rb_rel))
                    }
                }
            }
            [] => false,
        }
    }
}

/// One call of `Lookup.lookup` (what `puppet lookup` and the `lookup()` function pass).
#[derive(Clone, Debug, Default)]
pub struct LookupRequest {
    /// The keys; the first one found wins.
    pub keys: Vec<String>,
    /// The `merge` argument: a strategy name or a `{strategy => ..., ...}` hash.
    pub merge: Option<Value>,
    /// The default value (returned, marked `defaulted`, when nothing is found).
    pub default: Option<Value>,
    pub explain: bool,
}

impl LookupRequest {
    pub fn new(key: &str) -> LookupRequest {
        LookupRequest {
            keys: vec![key.to_string()],
            ..Default::default()
        }
    }

    pub fn merge(mut self, merge: Option<Value>) -> LookupRequest {
        self.merge = merge;
        self
    }

    pub fn default_value(mut self, default: Option<Value>) -> LookupRequest {
        self.default = default;
        self
    }

    pub fn explain(mut self, explain: bool) -> LookupRequest {
        self.explain = explain;
        self
    }
}

/// Lookups for one node.
pub struct Session<'e> {
    engine: &'e Engine,
    scope: Arc<Scope>,
    state: lookup::State,
    /// Outcomes of lookups made without explain: a session's scope and files do not change,
    /// so the same request gives the same answer (without the warnings: `Session::lookup`).
    results: std::cell::RefCell<vfs::FastMap<u64, Vec<(ResultKey, LookupOutcome)>>>,
    /// The resolved hierarchy's fingerprint (computed on the first lookup).
    fingerprint: std::cell::OnceCell<u64>,
    /// The hierarchy resolved in a state of its own (for fingerprints and data signatures).
    hierarchy: std::cell::OnceCell<Arc<ResolvedHierarchy>>,
    /// Data signatures computed, by the keys they cover: a cache miss asks for the signature of
    /// the cached key lists and then of its own keys, mostly the same list.
    /// (By the address of the cached list, kept alive here so that the address is not reused.)
    signatures: std::cell::RefCell<vfs::FastMap<usize, (Arc<KeysRead>, u64)>>,
    /// The variables [`Session::lookup`] has warned undefined ([`warn_once`]).
    warned_once: std::cell::RefCell<std::collections::HashSet<String>>,
}

/// How many distinct warnings Puppet's `warn_once` logs in a process: it stops at 100
/// (`Puppet::Util::Logging#warn_once`, `$unique_warnings.length < 100`).
const WARN_ONCE_LIMIT: usize = 100;

/// Puppet's `warn_once` for undefined variables: `Scope#variable_not_found` logs
/// `Undefined variable '<name>'; <reason>` through `Puppet.warn_once(:undefined_variables,
/// "Variable: <name>", ...)`, which logs each key once per process (`$unique_warnings` is a
/// global that only the test helpers clear), and nothing once it holds 100 keys. So a compile
/// that looks up `k` and `j`, both interpolating `%{nope}`, logs the warning at `k` only
/// (recorded with the batch oracle: fixtures/one-compile/undefined-variable-once). The
/// session's outcomes are cached and shared with every warning they logged when evaluated;
/// this filter, applied to what the session hands out, makes its warnings depend on the
/// session's own history as Puppet's do, whichever cache answered. (The limit counts only
/// undefined variables here: Puppet's deprecation warnings share it, and no recorded case
/// reaches it.)
fn warn_once(warned: &mut std::collections::HashSet<String>, warnings: &mut Vec<String>) {
    warnings.retain(|w| {
        let Some(name) = lookup::undefined_variable_named(w) else {
            return true;
        };
        if warned.contains(name) || warned.len() >= WARN_ONCE_LIMIT {
            return false;
        }
        warned.insert(name.to_string());
        true
    });
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct ResultKey {
    keys: Vec<String>,
    merge: Option<Value>,
    default: Option<Value>,
}

impl ResultKey {
    fn of(req: &LookupRequest) -> ResultKey {
        ResultKey {
            keys: req.keys.clone(),
            merge: req.merge.clone(),
            default: req.default.clone(),
        }
    }

    fn matches(&self, req: &LookupRequest) -> bool {
        self.keys == req.keys && self.merge == req.merge && self.default == req.default
    }
}

/// A hash of a request (keys, merge, default), without copying it.
fn request_hash(req: &LookupRequest) -> u64 {
    use std::hash::{Hash as _, Hasher};
    let mut h = vfs::Fnv::default();
    req.keys.hash(&mut h);
    req.merge.hash(&mut h);
    req.default.hash(&mut h);
    h.finish()
}

/// The hierarchies of every layer resolved for one scope.
#[derive(Clone, Debug)]
pub struct ResolvedHierarchy {
    /// Which levels belong to which layer, built on first use.
    layers: std::sync::OnceLock<Arc<LayerLevels>>,
    pub levels: Levels,
    /// Layers Puppet cannot use (configuration errors), with the error a lookup would raise.
    pub errors: Vec<(Place, LookupError)>,
    /// Warnings Puppet logs while building them.
    pub warnings: Vec<String>,
    /// Whether some of `warnings` are a module layer's (true when not known).
    module_warnings: bool,
    /// Identity of the text of every file read (data files and hiera.yaml), so that a changed
    /// file (or editor overlay) changes the fingerprint: those the levels before the module
    /// levels read, their hiera.yaml files (in order of first appearance), and the module
    /// levels' digest.
    sources: u64,
    configs: Vec<usize>,
    /// Where the module levels start in `levels` (they come last).
    module_start: usize,
    /// The module levels' content and file digests, and the hash of their hiera.yaml files
    /// not named before them (in order of first appearance).
    module_levels: u64,
    module_sources: u64,
    module_configs: u64,
}

/// A hierarchy's levels in lookup order: its own (the global and environment layers', and
/// module layers resolved for it), then, when its module layers were found cached together
/// ([`levels::ModuleBlock`]), every module layer's levels as one block shared with the other
/// hierarchies that found it. A data-implied node of a 15k-file repository otherwise took a
/// reference to each of 500 module levels, and those reference counts, shared between
/// threads, were most of resolving its hierarchy.
#[derive(Clone, Debug, Default)]
pub struct Levels {
    own: Vec<Arc<ResolvedLevel>>,
    block: Option<Arc<SharedLevels>>,
}

/// Module levels shared by the hierarchies that found the same module block, with what they
/// add to a hierarchy's fingerprint, computed once ([`ModuleDigest`]).
#[derive(Debug)]
pub struct SharedLevels {
    levels: Box<[Arc<ResolvedLevel>]>,
    digest: std::sync::OnceLock<ModuleDigest>,
    /// Each module's levels in the block, indices from the block's start
    /// ([`SharedLevels::ranges`]).
    ranges: std::sync::OnceLock<ModuleRanges>,
}

impl SharedLevels {
    pub(crate) fn new(levels: Box<[Arc<ResolvedLevel>]>) -> SharedLevels {
        SharedLevels {
            levels,
            digest: std::sync::OnceLock::new(),
            ranges: std::sync::OnceLock::new(),
        }
    }

    /// Each module's levels in the block, found once for every hierarchy holding it.
    fn ranges(&self) -> &ModuleRanges {
        self.ranges.get_or_init(|| {
            let mut out = ModuleRanges::default();
            for (i, lv) in self.levels.iter().enumerate() {
                if let Place::Module(m) = &lv.layer {
                    add_module_level(&mut out, m, i);
                }
            }
            out
        })
    }

    pub fn levels(&self) -> &[Arc<ResolvedLevel>] {
        &self.levels
    }

    fn digest(&self, eng: &Engine) -> &ModuleDigest {
        self.digest
            .get_or_init(|| ModuleDigest::of(eng, &self.levels))
    }
}

/// What a hierarchy's module levels add to its fingerprint: a hash of their content hashes,
/// a hash of the identities of the files they read, and their hiera.yaml files in order of
/// first appearance (with the hash of that list). The same for the same levels whether they
/// are a shared block or the hierarchy's own: each data-implied node of a 15k-file repository
/// walked all 500 module levels for its fingerprint and kept 600 file identities.
#[derive(Debug, Clone)]
struct ModuleDigest {
    levels: u64,
    sources: u64,
    configs: Vec<usize>,
    /// `configs` sorted: whether a hierarchy's own hiera.yaml files (one or two) are among
    /// them is two binary searches, not a scan of every module's (250 per data-implied node
    /// at 15k files).
    sorted_configs: Vec<usize>,
    configs_hash: u64,
}

fn fixed_hasher() -> foldhash::fast::FoldHasher<'static> {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::default().build_hasher()
}

fn hash_ids(ids: &[usize]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = fixed_hasher();
    h.write_usize(ids.len());
    for &i in ids {
        h.write_usize(i);
    }
    h.finish()
}

impl ModuleDigest {
    fn of(eng: &Engine, levels: &[Arc<ResolvedLevel>]) -> ModuleDigest {
        use std::hash::Hasher as _;
        let (mut hl, mut hs) = (fixed_hasher(), fixed_hasher());
        let mut configs = Vec::new();
        let mut seen: vfs::FastSet<usize> = Default::default();
        for l in levels {
            hl.write_u64(l.content_hash());
            for &id in l.source_ids(eng) {
                hs.write_usize(id);
            }
            if let Some(c) = l.config_id(eng) {
                if seen.insert(c) {
                    configs.push(c);
                }
            }
        }
        let configs_hash = hash_ids(&configs);
        let mut sorted_configs = configs.clone();
        sorted_configs.sort_unstable();
        ModuleDigest {
            levels: hl.finish(),
            sources: hs.finish(),
            configs,
            sorted_configs,
            configs_hash,
        }
    }
}

impl Levels {
    pub(crate) fn new(own: Vec<Arc<ResolvedLevel>>, block: Option<Arc<SharedLevels>>) -> Levels {
        Levels { own, block }
    }

    fn block_levels(&self) -> &[Arc<ResolvedLevel>] {
        self.block.as_deref().map_or(&[], |b| &b.levels)
    }

    pub fn len(&self) -> usize {
        self.own.len() + self.block_levels().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> LevelsIter<'_> {
        self.own.iter().chain(self.block_levels().iter())
    }

    /// The hierarchy's own levels, then its shared block of module levels (if any): for
    /// work that can be done once per block instead of once per hierarchy holding it.
    pub fn parts(&self) -> (&[Arc<ResolvedLevel>], Option<&Arc<SharedLevels>>) {
        (&self.own, self.block.as_ref())
    }

    /// Whether `other` holds the same shared block at the same places: then every level from
    /// the block on is the same `Arc` in both, and a level-by-level comparison can stop at the
    /// end of the own levels.
    pub fn same_block_as(&self, other: &Levels) -> bool {
        self.own.len() == other.own.len()
            && matches!((&self.block, &other.block), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
    }

    /// Whether the module levels are a block shared with other hierarchies.
    pub fn shares_block(&self) -> bool {
        self.block.is_some()
    }

    pub fn get(&self, i: usize) -> Option<&Arc<ResolvedLevel>> {
        match self.own.get(i) {
            Some(l) => Some(l),
            None => self.block_levels().get(i - self.own.len()),
        }
    }
}

/// The levels of a [`Levels`] in order.
pub type LevelsIter<'a> = std::iter::Chain<
    std::slice::Iter<'a, Arc<ResolvedLevel>>,
    std::slice::Iter<'a, Arc<ResolvedLevel>>,
>;

impl From<Vec<Arc<ResolvedLevel>>> for Levels {
    fn from(own: Vec<Arc<ResolvedLevel>>) -> Levels {
        Levels { own, block: None }
    }
}

impl std::ops::Index<usize> for Levels {
    type Output = Arc<ResolvedLevel>;
    fn index(&self, i: usize) -> &Arc<ResolvedLevel> {
        match self.get(i) {
            Some(l) => l,
            None => panic!("level {i} of {}", self.len()),
        }
    }
}

impl<'a> IntoIterator for &'a Levels {
    type Item = &'a Arc<ResolvedLevel>;
    type IntoIter = LevelsIter<'a>;
    fn into_iter(self) -> LevelsIter<'a> {
        self.iter()
    }
}

/// The levels of a [`ResolvedHierarchy`] by layer: the global and environment levels (indices,
/// in order), and each module's (a contiguous range: layers are resolved one after the other).
#[derive(Debug, Default)]
struct LayerLevels {
    shared: Vec<usize>,
    /// The modules of the hierarchy's own levels.
    modules: ModuleRanges,
    /// The hierarchy's shared block of module levels, and where it starts: its modules'
    /// ranges are the block's, found once for every hierarchy holding it (each data-implied
    /// node of a 15k-file repository mapped its 500 module levels for interpolated-key-not-found).
    block: Option<(Arc<SharedLevels>, usize)>,
}

/// Module levels by a hash of the module's name (no name is copied: a hierarchy is built per
/// node, with hundreds of modules); two names with one hash share a widened range, and the
/// callers check each level's layer.
type ModuleRanges = vfs::FastMap<u64, std::ops::Range<usize>>;

fn add_module_level(out: &mut ModuleRanges, m: &str, i: usize) {
    let r = out.entry(module_key(m)).or_insert(i..i);
    // Contiguous by construction; were it not, the range would only widen, and the callers
    // check each level's layer.
    r.end = i + 1;
}

impl LayerLevels {
    /// The levels of module `m` (by `module_key`): a range of the hierarchy's indices.
    fn module(&self, key: u64) -> Option<std::ops::Range<usize>> {
        if let Some(r) = self.modules.get(&key) {
            return Some(r.clone());
        }
        let (block, start) = self.block.as_ref()?;
        let r = block.ranges().get(&key)?;
        Some(r.start + start..r.end + start)
    }
}

fn module_key(name: &str) -> u64 {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::default().hash_one(name)
}

impl ResolvedHierarchy {
    fn layers(&self) -> &LayerLevels {
        self.layers.get_or_init(|| {
            let mut out = LayerLevels::default();
            let (own, block) = self.levels.parts();
            for (i, lv) in own.iter().enumerate() {
                match &lv.layer {
                    Place::Module(m) => add_module_level(&mut out.modules, m, i),
                    _ => out.shared.push(i),
                }
            }
            // A block holds module levels only (`resolved_levels_fresh`).
            out.block = block.map(|b| (b.clone(), own.len()));
            Arc::new(out)
        })
    }

    /// A fingerprint of what the hierarchy reads: two scopes with the same fingerprint see the
    /// same files (useful to deduplicate fact sets).
    pub fn fingerprint(&self) -> u64 {
        use std::hash::BuildHasher as _;
        use std::hash::{Hash as _, Hasher};
        // A fixed-seed hasher: fingerprints only group and key in-process caches.
        let mut h = foldhash::fast::FixedState::default().build_hasher();
        // The module levels count through their digest, the same whether they are the
        // hierarchy's own or a shared block (`ModuleDigest`).
        for l in self.levels.iter().take(self.module_start) {
            h.write_u64(l.content_hash());
        }
        h.write_u64(self.module_levels);
        for (p, e) in &self.errors {
            p.hash(&mut h);
            e.message.hash(&mut h);
        }
        h.write_u64(self.sources);
        self.configs.hash(&mut h);
        h.write_u64(self.module_sources);
        h.write_u64(self.module_configs);
        h.finish()
    }
}

impl Session<'_> {
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Every layer's hierarchy resolved against this session's scope: each level's locations
    /// and whether they exist (what `--explain` would list as `Path "..."`).
    pub fn resolved_hierarchy(&self) -> ResolvedHierarchy {
        self.resolve_with(&self.state, false)
    }

    /// The lookup_options this session assembled so far, to hand to another session
    /// ([`Session::adopt_options`]), without the entries whose assembly warned or failed;
    /// `None` when the global and environment part did.
    pub fn assembled_options(&self) -> Option<lookup::AssembledOptions> {
        self.state.assembled_options()
    }

    /// Takes another session's assembled lookup_options, before this session's first lookup.
    /// The caller answers for it: this session's hierarchy must give the same data for
    /// `lookup_options` and for the keys the assembly looked up (the data signature a shared
    /// lookup compares), and its scope must answer the assembly's reads alike
    /// ([`lookup::AssembledOptions::answers_alike`]). Its lookups then depend on those reads
    /// and keys as if it had assembled them itself.
    pub fn adopt_options(&self, a: &lookup::AssembledOptions) {
        self.state.adopt_options(a);
    }

    /// The hierarchy resolved in a state of its own, thrown away after: what
    /// [`Session::resolved_hierarchy`] gives for a new session, with module layers from the
    /// engine's layer cache (the analysis resolves one hierarchy per node to group them).
    pub fn fresh_hierarchy(&self) -> ResolvedHierarchy {
        self.resolve_with(&lookup::State::default(), true)
    }

    fn resolve_with(&self, state: &lookup::State, fresh: bool) -> ResolvedHierarchy {
        let cx = lookup::Cx::new(self.engine, state, &self.scope, false);
        let (levels, errors) = if fresh {
            cx.resolved_levels_fresh()
        } else {
            let (levels, errors) = cx.resolved_levels();
            (Levels::from(levels), errors)
        };
        // The module levels come last: a shared block, or the hierarchy's own from the first
        // module level on.
        let module_start = if levels.shares_block() {
            levels.own.len()
        } else {
            levels
                .own
                .iter()
                .position(|l| matches!(l.layer, Place::Module(_)))
                .unwrap_or(levels.own.len())
        };
        // The files the levels before the module levels read, hashed, not listed: each level
        // keeps its own list (shared by the hierarchies that share the level), and a list per
        // hierarchy held a glob level's hundred files again for each of 13,900 data-implied
        // nodes at 15k files (11 MB).
        let own = &levels.own[..module_start];
        let mut sources = fixed_hasher();
        {
            use std::hash::Hasher as _;
            sources.write_usize(own.iter().map(|l| l.source_ids(self.engine).len()).sum());
            for l in own {
                for &id in l.source_ids(self.engine) {
                    sources.write_usize(id);
                }
            }
        }
        // A hierarchy names few hiera.yaml files before its modules' (the global and the
        // environment's): a list searched, not a set.
        let mut configs: Vec<usize> = Vec::with_capacity(2);
        for l in own {
            if let Some(c) = l.config_id(self.engine) {
                if !configs.contains(&c) {
                    configs.push(c);
                }
            }
        }
        let own_digest;
        let digest = match &levels.block {
            Some(b) => b.digest(self.engine),
            None => {
                own_digest = ModuleDigest::of(self.engine, &levels.own[module_start..]);
                &own_digest
            }
        };
        // The module hiera.yaml files named before the module levels (none, in practice) are
        // not named again.
        let module_configs = if configs
            .iter()
            .any(|c| digest.sorted_configs.binary_search(c).is_ok())
        {
            let rest: Vec<usize> = digest
                .configs
                .iter()
                .copied()
                .filter(|c| !configs.contains(c))
                .collect();
            hash_ids(&rest)
        } else {
            digest.configs_hash
        };
        let (module_levels, module_sources) = (digest.levels, digest.sources);
        ResolvedHierarchy {
            layers: Default::default(),
            levels,
            errors,
            module_warnings: !fresh || cx.module_warned.get(),
            warnings: cx.warnings.into_inner(),
            sources: {
                use std::hash::Hasher as _;
                sources.finish()
            },
            configs,
            module_start,
            module_levels,
            module_sources,
            module_configs,
        }
    }

    /// For each of `keys`, the layers whose existing data files (those [`Session::all_keys`]
    /// reads) define it as a root key, once per defining file, in lookup order.
    pub fn defining_layers(&self, keys: &[&str]) -> Vec<Vec<Place>> {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, false);
        cx.defining_layers(keys)
    }

    /// For each of `keys` (root keys), whether a data file of `hierarchy` (resolved for this
    /// session's scope) defines it in a layer a lookup of it consults: the global and
    /// environment layers, or the module its namespace names.
    ///
    /// The global and environment levels are read for every key, a module's levels only for
    /// the keys of its namespace (found by the hierarchy's layer ranges: walking every level
    /// of every module per key was 2.4% of a 15k-file run without facts).
    pub fn visibly_defined_in(&self, hierarchy: &ResolvedHierarchy, keys: &[&str]) -> Vec<bool> {
        let layers = hierarchy.layers();
        keys.iter()
            .map(|k| {
                let want = Value::string(*k);
                let defines =
                    |i: usize| hierarchy.levels[i].defined(self.engine).contains_key(&want);
                if layers.shared.iter().any(|&i| defines(i)) {
                    return true;
                }
                let Some((ns, _)) = k.split_once("::") else {
                    return false;
                };
                layers.module(module_key(ns)).is_some_and(|mut r| {
                    r.any(|i| {
                        matches!(&hierarchy.levels[i].layer, Place::Module(m) if m == ns)
                            && defines(i)
                    })
                })
            })
            .collect()
    }
    /// The root keys defined in every existing data file the hierarchies reach, with spans.
    pub fn all_keys(&self) -> Vec<KeyDefinition> {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, false);
        cx.key_definitions()
    }

    /// The `lookup_options` entry a lookup of `key` uses (the key's own entry, else the first
    /// pattern that matches its root key), from the global, environment and module layers merged
    /// as Puppet merges them; `None` when no entry applies (the merge is then `first`).
    pub fn lookup_options_for(&self, key: &str) -> Result<Option<Value>, LookupError> {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, false);
        let key = lookup::LookupKey::parse(key)?;
        cx.lookup_lookup_options(&key)
    }

    /// Interpolates `text` as Puppet interpolates a data value (`allow_methods`: true) or a
    /// hiera.yaml setting (false): what a `%{...}` token gives for this session's scope, and the
    /// warnings Puppet would log.
    pub fn interpolate(
        &self,
        text: &str,
        allow_methods: bool,
    ) -> (Result<Value, LookupError>, Vec<String>) {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, false);
        let r = cx.interpolate(&Value::string(text), allow_methods);
        (r, cx.warnings.into_inner())
    }

    /// `Lookup.lookup(keys, nil, default, has_default, merge, invocation)`, with the warnings
    /// Puppet logs for it in a compile that made this session's earlier lookups ([`warn_once`]).
    pub fn lookup(&self, req: &LookupRequest) -> LookupOutcome {
        let mut o = self.lookup_cached(req);
        if !o.warnings.is_empty() {
            warn_once(&mut self.warned_once.borrow_mut(), &mut o.warnings);
        }
        o
    }

    /// [`Session::lookup`] before [`warn_once`]: each outcome with the warnings its evaluation
    /// logged.
    fn lookup_cached(&self, req: &LookupRequest) -> LookupOutcome {
        if req.explain {
            return self.lookup_unshared(req);
        }
        let h = request_hash(req);
        // A request this session has answered before: the same answer, and no warning, as
        // Puppet logs none when a compile looks the same key up again (everything it logs in
        // a lookup is logged once per compile: files by path, layers, `warn_once` for
        // undefined variables; recorded with the batch oracle, tests/engine_shared.rs,
        // a_module_file_read_by_an_environment_glob_warns_once_per_compile).
        if let Some(v) = self.results.borrow().get(&h) {
            if let Some((_, o)) = v.iter().find(|(k, _)| k.matches(req)) {
                let mut o = o.clone();
                o.warnings.clear();
                return o;
            }
        }
        // Resolved in a state of its own, so that the session's first use of each layer (and
        // the warnings Puppet logs then) happens when a lookup reaches it, as in Puppet.
        let fp = *self
            .fingerprint
            .get_or_init(|| self.hierarchy().fingerprint());
        // Puppet logs some warnings once per compile, when a lookup first creates a layer's
        // provider and configuration and resolves its levels (a deprecated
        // `environment_data_provider`, an undefined variable in a path: the hierarchy's
        // warnings) and when it first reads a data file (one that is not a Hash), which the
        // first assembly of lookup_options does for every file of its layers. An outcome
        // carries the warnings its own lookup logged, so it depends on the session's history
        // where there are any, which the shared caches do not know. Outcomes are shared in two
        // pools, each between sessions whose history cannot matter (tests/engine_shared.rs,
        // first_lookup_warnings_follow_the_session_not_the_cache and the tests after it):
        // - quiet: every assembly of lookup_options so far was quiet, and the hierarchy has no
        //   warnings or (none of them a module layer's) the session has created its global
        //   and environment layers. Another session with the same data assembles as quietly,
        //   whenever it does;
        // - settled: the global and environment part of lookup_options warned, and the session
        //   has done all of that part's once-per-compile work ([`lookup::State::settled`]: its
        //   first lookup did), no module's part having warned. A session's first lookup, which
        //   logs those warnings, is never in it: each session logs them at its own.
        // A session in neither keeps its outcomes to itself (and probing would cost a data
        // signature per cached list for nothing: no other session offers one it could take).
        let pool = {
            let hier = self.hierarchy();
            if self.state.options_quiet() {
                (hier.warnings.is_empty() || (!hier.module_warnings && self.state.layers_created()))
                    .then_some(Pool::Quiet)
            } else {
                (!hier.module_warnings && self.state.settled()).then_some(Pool::Settled)
            }
        };
        let Some(pool) = pool else {
            return self.keep_own(h, req, self.lookup_unshared(req));
        };
        let shared_key = (fp ^ pool.tag(), h);
        // An answer from the pools is kept in the session's own cache when it carries
        // warnings, so that asking again gives it without them (above); one without warnings
        // comes the same from the pools again.
        let keep = |o: LookupOutcome| match o.warnings.is_empty() {
            true => o,
            false => self.keep_own(h, req, o),
        };
        if let Some(o) = self.shared_hit(&shared_key, req) {
            return keep(o);
        }
        if let Some(o) = self.data_hit(h, req, pool) {
            return keep(o);
        }
        let rk = ResultKey::of(req);
        let (o, Deps { keys, reads }) = self.lookup_with_deps(req);
        // An assembly of lookup_options that warned in this lookup makes it depend on the
        // session's history: kept for this session only.
        let still = match pool {
            Pool::Quiet => self.state.options_quiet(),
            Pool::Settled => self.state.settled(),
        };
        if !still {
            return self.keep_own(h, req, o);
        }
        // The data signature of the keys read. A list of the same keys is usually kept already
        // (another session asked this request and read the same keys), and `data_hit` has just
        // computed this session's signature for it (`signature_of` keeps it): taken from there
        // instead of computed again, which was a second signature per lookup missing the
        // caches (11% of lookup_rate's shared pass over the 35 fact sets).
        let kept = self.engine.by_data.read().ok().and_then(|m| {
            m.get(&h)?
                .iter()
                .find(|l| *l.keys == keys)
                .map(|l| l.keys.clone())
        });
        let signature = pool.tag()
            ^ match &kept {
                Some(list) => self.signature_of(list),
                None => self.data_signature(&keys),
            };
        if let Ok(mut m) = self.engine.by_data.write() {
            let lists = m.entry(h).or_default();
            let slot = match lists.iter().position(|l| *l.keys == keys) {
                Some(i) => Some(i),
                None if lists.len() < MAX_KEY_LISTS => {
                    lists.push(DataVariants {
                        keys: Arc::new(keys),
                        by_signature: Default::default(),
                        count: 0,
                    });
                    Some(lists.len() - 1)
                }
                None => None,
            };
            if let Some(l) = slot.map(|i| &mut lists[i]) {
                if l.count < MAX_DATA_VARIANTS
                    && l.by_signature.entry(signature).or_default().insert(
                        levels::ReadKey::of(&reads),
                        CachedOutcome {
                            request: rk.clone(),
                            reads: reads.clone(),
                            outcome: o.clone(),
                        },
                        |_, _| false,
                    )
                {
                    l.count += 1;
                }
            }
        }
        if let Ok(mut m) = self.engine.results.write() {
            let v = m.entry(shared_key).or_default();
            if v.len() < MAX_VARIANTS {
                v.push(CachedOutcome {
                    request: rk.clone(),
                    reads,
                    outcome: o.clone(),
                });
            }
        }
        self.results
            .borrow_mut()
            .entry(h)
            .or_default()
            .push((rk, o.clone()));
        o
    }

    /// Keeps `o`, this session's outcome of `req` (whose hash is `h`), for this session only.
    fn keep_own(&self, h: u64, req: &LookupRequest, o: LookupOutcome) -> LookupOutcome {
        self.results
            .borrow_mut()
            .entry(h)
            .or_default()
            .push((ResultKey::of(req), o.clone()));
        o
    }

    /// An outcome another session computed with the same hierarchy and the same values for
    /// every scope variable the lookup read.
    fn shared_hit(&self, key: &(u64, u64), req: &LookupRequest) -> Option<LookupOutcome> {
        let m = self.engine.results.read().ok()?;
        let variants = m.get(key)?;
        variants
            .iter()
            .find(|c| c.request.matches(req) && answers_alike(&c.reads, &self.scope))
            .map(|c| c.outcome.clone())
    }

    /// A lookup (evaluated anew, not from a cache) with what its outcome depends on: the keys
    /// it read and the scope reads it made ([`Deps`]). Another session whose hierarchy has the
    /// same data signature (`Session::data_signature`) for those keys, and whose scope answers
    /// those reads alike, gets the same outcome; the analysis uses this to evaluate a lookup
    /// once for every node that cannot answer it differently.
    pub fn lookup_with_deps(&self, req: &LookupRequest) -> (LookupOutcome, Deps) {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, req.explain);
        let o = self.run(&cx, req);
        let mut reads = cx.reads.take();
        // Reads made and keys looked up when this session assembled lookup_options, which
        // every later lookup depends on.
        reads.extend(self.state.lopts_reads.borrow().iter().cloned());
        let mut keys = cx.keys.take();
        keys.extend(self.state.lopts_keys.borrow().iter().cloned());
        keys.sort();
        keys.dedup();
        (o, Deps { keys, reads })
    }

    /// The hierarchy resolved for this session's scope, in a state of its own (so that the
    /// session's first use of each layer, and the warnings Puppet logs then, still happens
    /// when a lookup reaches it, as in Puppet).
    fn hierarchy(&self) -> &Arc<ResolvedHierarchy> {
        self.hierarchy
            .get_or_init(|| Arc::new(self.fresh_hierarchy()))
    }

    /// What a lookup that read `keys` can depend on in this session's data: the data files
    /// that define one of those keys (or `lookup_options`), in lookup order, with the levels
    /// that read them; every other file of the layers consulted that a lookup cannot skip
    /// silently (a module's data, a file that does not parse or is not a Hash, a custom
    /// backend; [`lookup::quiet_location`]); the errors of those layers and the warnings of
    /// the hierarchy's resolution. Two sessions with the same signature for a lookup's keys,
    /// and the same answers to the scope reads it made, get the same outcome for it: the
    /// files left out answer "not found" to every key the lookup reads, whoever reads them.
    fn data_signature(&self, keys: &[(Arc<str>, Option<String>)]) -> u64 {
        use std::hash::{BuildHasher as _, Hash as _, Hasher};
        let h = self.hierarchy();
        let mut modules: Vec<&str> = keys.iter().filter_map(|(_, m)| m.as_deref()).collect();
        modules.sort_unstable();
        modules.dedup();
        let consulted = |p: &Place| match p {
            Place::Module(m) => modules.binary_search(&m.as_str()).is_ok(),
            _ => true,
        };
        // The keys by the hash a level's index files them by (`LevelIndex`).
        let mut wanted: Vec<u64> = Vec::with_capacity(keys.len() + 1);
        wanted.extend(
            keys.iter()
                .map(|(k, _)| data::key_hash(&Value::String(Arc::clone(k)))),
        );
        wanted.push(lookup::lookup_options_hash());
        let mut hs = foldhash::fast::FixedState::default().build_hasher();
        // The global and environment levels, then those of the modules the keys route to (a
        // modulepath can hold hundreds of modules: their levels are found by name, not tested
        // one by one).
        let layers = h.layers();
        let consulted_levels = layers.shared.iter().copied().chain(
            modules
                .iter()
                .filter_map(|m| Some((*m, layers.module(module_key(m))?)))
                .flat_map(|(m, r)| {
                    r.filter(move |&i| matches!(&h.levels[i].layer, Place::Module(x) if x == m))
                }),
        );
        // The locations of one level that count, reused from level to level.
        let mut picks: Vec<(u32, u64)> = Vec::with_capacity(8);
        for lv in consulted_levels.map(|i| &h.levels[i]) {
            if lv.locations.is_none() {
                lv.hash_settings(&mut hs);
                continue;
            }
            let index = lv.index(self.engine);
            picks.clear();
            picks.extend_from_slice(&index.always);
            for k in &wanted {
                if let Some(v) = index.by_key.get(k) {
                    picks.extend_from_slice(v);
                }
            }
            if picks.is_empty() {
                continue;
            }
            picks.sort_unstable();
            picks.dedup();
            hs.write_u64(index.settings);
            for &(_, counted) in &picks {
                hs.write_u64(counted);
            }
        }
        for (p, e) in &h.errors {
            if consulted(p) {
                p.hash(&mut hs);
                e.message.hash(&mut hs);
            }
        }
        h.warnings.hash(&mut hs);
        hs.finish()
    }

    /// [`Session::data_signature`], computed once per key list in this session.
    fn signature_of(&self, keys: &Arc<KeysRead>) -> u64 {
        let id = Arc::as_ptr(keys) as usize;
        if let Some((_, s)) = self.signatures.borrow().get(&id) {
            return *s;
        }
        let s = self.data_signature(keys);
        self.signatures.borrow_mut().insert(id, (keys.clone(), s));
        s
    }

    /// An outcome computed in a session whose data and scope answer the same for everything
    /// the lookup read ([`Session::data_signature`]).
    fn data_hit(&self, h: u64, req: &LookupRequest, pool: Pool) -> Option<LookupOutcome> {
        let m = self.engine.by_data.read().ok()?;
        for list in m.get(&h)? {
            let signature = pool.tag() ^ self.signature_of(&list.keys);
            let Some(variants) = list.by_signature.get(&signature) else {
                continue;
            };
            if let Some(c) = variants.find(&self.scope, |c| &c.reads, |c| c.request.matches(req)) {
                return Some(c.outcome.clone());
            }
        }
        None
    }

    /// A lookup evaluated in this session without the caches shared between sessions (neither
    /// read nor filled): explained lookups, and a lookup no other session can share because
    /// this session's own data answers it (the analysis knows which,
    /// `EnvAnalysis::lookup_shared`), for which probing those caches only costs a data
    /// signature per cached variant.
    pub fn lookup_unshared(&self, req: &LookupRequest) -> LookupOutcome {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, req.explain);
        self.run(&cx, req)
    }

    fn run(&self, cx: &lookup::Cx<'_>, req: &LookupRequest) -> LookupOutcome {
        let mut found: Result<Option<(String, Value)>, LookupError> = Ok(None);
        for key in &req.keys {
            match cx.adapter_lookup(key, req.merge.as_ref()) {
                Ok(Some(v)) => {
                    found = Ok(Some((key.clone(), v)));
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    found = Err(e);
                    break;
                }
            }
        }
        let (result, key, defaulted) = match found {
            Ok(Some((k, v))) => (LookupResult::Found(v), Some(Arc::from(k)), false),
            Ok(None) => match &req.default {
                Some(d) => (LookupResult::Found(d.clone()), None, true),
                None => (LookupResult::NotFound, None, false),
            },
            Err(e) => {
                // `puppet lookup` appends the error text to the explanation.
                let msg = e.message.clone();
                if let Some(ex) = cx.ex.borrow_mut().as_mut() {
                    ex.reset_to(0);
                    if e.kind.is_lookup_error() {
                        ex.accept_text(msg);
                    }
                }
                (LookupResult::Error(e), None, false)
            }
        };
        LookupOutcome {
            result,
            key,
            defaulted,
            explain: cx.ex.take(),
            warnings: cx.warnings.take(),
            provenance: cx.provenance.take().into(),
        }
    }
}

/// Which outcomes a session may take from, and offer to, other sessions (`Session::lookup`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pool {
    Quiet,
    Settled,
}

impl Pool {
    /// What the pool mixes into the keys it files outcomes by, so that the two never meet.
    fn tag(self) -> u64 {
        match self {
            Pool::Quiet => 0,
            Pool::Settled => 0x5e77_1ed0_9b1f_3c2d,
        }
    }
}

/// Why Puppet does not load a module, from its `metadata.json` ([`metadata_problem`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetadataProblem {
    /// The file does not parse as JSON: `read_metadata` raises FaultyMetadata only when strict
    /// is `error` (Puppet 8's default); Puppet 7 logs it and loads the module.
    Unparsable,
    /// These attributes are absent or null, in Puppet's order (`source`, `author`, `version`,
    /// `license`, `dependencies`): `No <attr> module metadata provided for <module>` names the
    /// first.
    Missing(Vec<&'static str>),
    /// `dependencies` is there but not an Array.
    DependenciesNotArray,
}

/// The attributes `Puppet::Module#load_metadata` requires of a non-empty metadata object.
pub const METADATA_REQUIRED: [&str; 5] = ["source", "author", "version", "license", "dependencies"];

/// Why `Puppet::Module#load_metadata` refuses a module's `metadata.json` (`text`; `None`: no
/// file, which is fine), so that the environment logs the error and leaves the module out: its
/// Hiera data is never read (recorded: fixtures/conformance/module/metadata-completeness).
/// An empty object, or one whose `source`, `author`, `version`, `license` and `dependencies`
/// are all there and not null, `dependencies` an Array, loads. Anything else that parses (an
/// array, a number) is read as Ruby reads it: an empty one is fine, and the rest is not
/// modelled (loaded).
pub fn metadata_problem(text: Option<&str>, strict_error: bool) -> Option<MetadataProblem> {
    let m = match serde_json::from_str::<serde_json::Value>(text?) {
        Ok(m) => m,
        Err(_) => return strict_error.then_some(MetadataProblem::Unparsable),
    };
    let o = m.as_object().filter(|o| !o.is_empty())?;
    let missing: Vec<&'static str> = METADATA_REQUIRED
        .iter()
        .copied()
        .filter(|k| o.get(*k).is_none_or(serde_json::Value::is_null))
        .collect();
    if !missing.is_empty() {
        return Some(MetadataProblem::Missing(missing));
    }
    (!o["dependencies"].is_array()).then_some(MetadataProblem::DependenciesNotArray)
}

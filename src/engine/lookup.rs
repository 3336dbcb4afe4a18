//! The lookup itself: a port of Puppet's `LookupAdapter`, data providers, interpolation and
//! sub-lookups (`pops/lookup/*.rb`), method by method, so that values, key order, errors and the
//! explain tree come out as Puppet's (reference §2–§7).
//!
//! A [`Session`] holds what Puppet keeps per compile (lookup_options, the layers' providers and
//! their data hashes); a [`Cx`] holds what one lookup invocation carries (the recursion guard's
//! name stack, the explainer, warnings). Ruby's `throw :no_such_key` is `Ok(None)`.

use crate::engine::vfs::FastMap as HashMap;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use indexmap::IndexMap;

use super::data::{self, is_encrypted};
use super::error::{ErrorKind, LookupError};
use super::explain::{Explainer, NodeKind};
use super::layer::{EntrySpec, LayerConfig, LocSpec, Place, PreVar, Template};
use super::merge::{MergeStrategy, StrategyKind};
use super::ruby::ruby_regex;
use super::scope::{Scope, VarLookup};
use super::types;
use super::vfs::{pathname_join, ruby_glob, GlobLimit};
use super::{convert, Engine, PuppetVersion, Strict};
use crate::config::FunctionKind;
use crate::interp::{self, split_key, Method, Segment, TokenKind};
use crate::loader::Format;
use crate::span::{SourceFile, Span};
use crate::value::{Hash, Value};

pub(crate) type R<T> = Result<T, LookupError>;

pub(crate) const LOOKUP_OPTIONS: &str = "lookup_options";
/// Stack left below which [`Cx::interpolate`] continues on a new segment, and that segment's
/// size. Nested interpolations (lookups of lookups) are long Rust call chains (about 23 KiB per
/// level in a debug build): growing the stack keeps `max_lookup_depth` a bound on work rather
/// than on the caller's stack. Puppet has no limit (Ruby fails with `stack level too deep` much
/// later); real data nests a few levels.
const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// [`super::data::key_hash`] of `lookup_options`, made once: every lookup_options assembly
/// and every data signature look it up.
pub(crate) fn lookup_options_hash() -> u64 {
    static HASH: std::sync::LazyLock<u64> =
        std::sync::LazyLock::new(|| super::data::key_hash(&Value::string(LOOKUP_OPTIONS)));
    *HASH
}

/// A parsed lookup key (`LookupKey`): root key, module name, dotted segments.
#[derive(Clone, Debug)]
pub(crate) struct LookupKey {
    pub key: Arc<str>,
    pub root: String,
    /// The root key as a hash key (built once per lookup, not once per file).
    pub root_v: Value,
    /// [`super::data::key_hash`] of `root_v`: how a level's index files its root keys.
    pub root_hash: u64,
    pub module_name: Option<String>,
    pub segments: Vec<Segment>,
}

impl LookupKey {
    pub fn parse(key: &str) -> R<LookupKey> {
        let mut segs = split_key(key)
            .map_err(|_| LookupError::lookup(format!("Syntax error in key: '{key}'")))?;
        let root = match segs.remove(0) {
            Segment::Str(s) => s,
            Segment::Int(i) => {
                // `root_key.index('::')` on an Integer.
                return Err(no_method(
                    "index",
                    &Value::Integer(i),
                    "    qual_index = root_key.index(DOUBLE_COLON)",
                ));
            }
        };
        // module_name = root_key[0..qual_index-1]: a leading `::` (index 0) gives the whole key.
        let module_name = root.find("::").map(|i| {
            if i == 0 {
                root.clone()
            } else {
                root[..i].to_string()
            }
        });
        let root_v = Value::string(root.as_str());
        Ok(LookupKey {
            key: Arc::from(key),
            root_hash: super::data::key_hash(&root_v),
            root_v,
            root,
            module_name,
            segments: segs,
        })
    }

    fn lookup_options() -> LookupKey {
        LookupKey {
            key: Arc::from(LOOKUP_OPTIONS),
            root: LOOKUP_OPTIONS.into(),
            root_v: Value::string(LOOKUP_OPTIONS),
            root_hash: lookup_options_hash(),
            module_name: None,
            segments: Vec::new(),
        }
    }
}

/// Ruby's `NoMethodError` message with Ruby 3.1's error_highlight snippet (recorded verbatim in
/// the conformance suite): `undefined method '<m>' for <inspect>:<Class>`, a blank line, the
/// source line and carets under `.<m>`.
pub(crate) fn no_method(method: &str, recv: &Value, line: &str) -> LookupError {
    let recv_s = format!("{}:{}", recv.ruby_inspect(), super::ruby::class_name(recv));
    let mut msg = format!("undefined method `{method}' for {recv_s}");
    let needle = format!(".{method}");
    if let Some(col) = line.find(&needle) {
        msg.push_str("\n\n");
        msg.push_str(line);
        msg.push('\n');
        msg.push_str(&" ".repeat(col));
        msg.push_str(&"^".repeat(needle.chars().count()));
    }
    LookupError::new(ErrorKind::NoMethod, msg)
}

/// A location's data hash and the file it came from.
type DataHash = (Value, Option<Arc<data::DataFile>>);

/// What an entry's function is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Func {
    YamlData,
    JsonData,
    HoconData,
    Eyaml,
    /// A function that exists but that hieralint cannot run.
    Custom,
    /// A function that does not exist: Puppet fails when the level is first used.
    Missing,
    /// A function `mod::f` of a module that is not on the modulepath: Puppet has no loader
    /// for the module and crashes with a NoMethodError when the level is first used (recorded:
    /// fixtures/real/wikimedia+operations-puppet, `wmflib::expand_path` without `wmflib`).
    NoModule,
}

/// A hierarchy level with its locations resolved (`FunctionProvider`).
pub(crate) struct EntryProvider {
    name: Arc<str>,
    kind: FunctionKind,
    function_name: Arc<str>,
    func: Func,
    /// Shared with the level's other resolutions when nothing in it interpolates.
    options: Arc<Hash>,
    /// The level as `--explain` and the rules see it (shared by every session resolving it alike).
    level: Arc<ResolvedLevel>,
    config: Arc<LayerConfig>,
    module: Option<String>,
    /// `ctx.data_hash` per location (data_hash functions), successes only, with the file read.
    data_hashes: RefCell<HashMap<usize, DataHash>>,
    /// `[Some(0), Some(1), ...]`, or `[None]` without locations: the merge variants.
    slots: Vec<Option<usize>>,
    /// Per location and key, lookup_key results (as hiera-eyaml's `context.cache`), with the
    /// scope reads and keys their interpolation made, which a lookup served from the cache
    /// depends on too.
    key_cache: RefCell<HashMap<(usize, String), (Value, ReadDeps)>>,
    /// eyaml's raw file hash per location.
    raw_cache: RefCell<HashMap<usize, Value>>,
}

/// What resolving a level against a scope gives (shared between sessions by the engine's
/// level cache; each session wraps it in an [`EntryProvider`] with its own data caches).
#[derive(Clone)]
pub(crate) struct ResolvedEntry {
    kind: FunctionKind,
    func: Func,
    options: Arc<Hash>,
    /// Holds the function's name and the resolved locations too (`level.function`,
    /// `level.locations`).
    level: Arc<ResolvedLevel>,
}

impl EntryProvider {
    fn explain_name(&self) -> String {
        if self.kind == FunctionKind::V4DataHash {
            format!("Deprecated API function \"{}\"", self.function_name)
        } else {
            format!("Hierarchy entry \"{}\"", self.name)
        }
    }

    fn full_name(&self) -> String {
        let tag = match self.kind {
            FunctionKind::DataHash => "data_hash",
            FunctionKind::LookupKey => "lookup_key",
            FunctionKind::DataDig => "data_dig",
            FunctionKind::Hiera3Backend => "hiera3_backend",
            FunctionKind::V4DataHash => {
                return format!("deprecated API function '{}'", self.function_name)
            }
        };
        format!("{tag} function '{}'", self.function_name)
    }

    /// `FunctionProvider#options(location)`.
    fn options_for(&self, loc: Option<&LevelLocation>) -> Hash {
        let mut o = (*self.options).clone();
        if let Some(l) = loc {
            let k = if l.is_uri { "uri" } else { "path" };
            o.insert(Value::string(k), Value::string(l.location.as_str()));
        }
        o
    }

    /// The level's resolved locations; `None` when it has no location key (the function is
    /// called once without one).
    fn locations(&self) -> Option<&[LevelLocation]> {
        self.level.locations.as_deref()
    }
}

/// A layer's resolved levels: the hierarchy and the module default_hierarchy.
type Levels = (Rc<Vec<Rc<EntryProvider>>>, Rc<Vec<Rc<EntryProvider>>>);

/// A layer's provider (`ConfiguredDataProvider`).
pub(crate) struct LayerProvider {
    place: Place,
    config: RefCell<Option<Arc<LayerConfig>>>,
    /// For a provider created without a configuration (global, or `data_provider: hiera`), the
    /// hiera.yaml path Puppet reads lazily.
    config_file: Option<PathBuf>,
    providers: RefCell<Option<Levels>>,
}

impl LayerProvider {
    fn module_name(&self) -> Option<&str> {
        match &self.place {
            Place::Module(m) => Some(m),
            _ => None,
        }
    }
}

/// What an interpolation makes: the text built from the string, or (a whole-string `alias`)
/// the value itself.
enum Interpolated {
    Text(String),
    Whole(Value),
}

/// lookup_options split into literal keys and compiled patterns (`compile_patterns`).
pub(crate) struct CompiledOpts {
    literal: Option<IndexMap<String, Value>>,
    /// Each behind the literal start its source shows (`^profile::`): every lookup tries every
    /// pattern that no literal key answers, and a `starts_with` settles most of them.
    patterns: Option<Vec<(super::ruby::Prefiltered, Value)>>,
}

/// The lookup_options a session assembled (every layer's, per module consulted), with what
/// they depend on: handed to another session whose data and scope give the same (the analysis
/// checks that, as for a shared lookup), it spares that session the assembly.
#[derive(Clone)]
pub struct AssembledOptions {
    compiled: Vec<(Option<String>, Option<Arc<CompiledOpts>>)>,
    global: Option<Option<Value>>,
    env: Option<Option<Value>>,
    module_defaults: Vec<(String, Option<Arc<CompiledOpts>>)>,
    reads: Vec<(Arc<str>, Probe)>,
    keys: Vec<(Arc<str>, Option<String>)>,
}

impl AssembledOptions {
    /// The keys the assembly looked up through interpolation (besides `lookup_options`).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(k, _)| &**k)
    }

    /// The modules whose data the assembly consulted or whose lookup_options it holds (an
    /// adopting session takes them for lookups of those modules' keys).
    pub fn modules(&self) -> impl Iterator<Item = &str> {
        self.compiled
            .iter()
            .filter_map(|(m, _)| m.as_deref())
            .chain(self.module_defaults.iter().map(|(m, _)| m.as_str()))
            .chain(self.keys.iter().filter_map(|(_, m)| m.as_deref()))
    }

    /// Whether `scope` answers the assembly's scope reads alike.
    pub fn answers_alike(&self, scope: &Scope) -> bool {
        super::answers_alike(&self.reads, scope)
    }
}

impl State {
    /// What this state assembled, without the entries whose assembly logged a warning (an
    /// adopting session assembles those itself, and logs them); `None` when the
    /// global and environment part failed or warned, or nothing quiet was assembled.
    pub(crate) fn assembled_options(&self) -> Option<AssembledOptions> {
        let warned = self.lopts_warned.borrow();
        let compiled: Vec<_> = self
            .lookup_options
            .borrow()
            .iter()
            .filter(|(k, _)| !warned.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if self.lopts_eventful.get() || compiled.is_empty() {
            return None;
        }
        let defaults_warned = self.lopts_defaults_warned.borrow();
        Some(AssembledOptions {
            compiled,
            global: self.global_lookup_options.borrow().clone(),
            env: self.env_lookup_options.borrow().clone(),
            module_defaults: self
                .module_default_lookup_options
                .borrow()
                .iter()
                .filter(|(k, _)| !defaults_warned.contains(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            reads: self.lopts_reads.borrow().clone(),
            keys: self.lopts_keys.borrow().clone(),
        })
    }

    /// Whether this state has created the global and environment layers' providers,
    /// configurations and levels (what Puppet logs the hierarchy's warnings for, once per
    /// compile, at the first lookup reaching each): no later lookup logs those again.
    pub(crate) fn layers_created(&self) -> bool {
        let created =
            |p: &Rc<LayerProvider>| p.config.borrow().is_some() && p.providers.borrow().is_some();
        let global = self.global.borrow().as_ref().is_some_and(created);
        let env = match &*self.env.borrow() {
            Some(Some(p)) => created(p),
            Some(None) => true,
            None => false,
        };
        global && env
    }

    /// Whether every assembly of lookup_options this state made logged nothing and did not
    /// fail: another session with the same data and answers assembles as quietly, whenever it
    /// does, so an outcome computed here carries no warning of an assembly that session makes;
    /// and no value an eyaml level keeps logged a warning when first read.
    pub(crate) fn options_quiet(&self) -> bool {
        !self.key_cache_warned.get()
            && !self.lopts_eventful.get()
            && self.lopts_warned.borrow().is_empty()
            && self.lopts_defaults_warned.borrow().is_empty()
    }

    /// Whether this state has done all of the once-per-compile work of its global and
    /// environment layers (created their providers, configurations and levels, and assembled
    /// their lookup_options, which reads every data file of theirs), and no assembly of a
    /// module's part of lookup_options or of a module's default_hierarchy warned or failed.
    /// A lookup made in such a state logs none of the global and environment layers'
    /// once-per-compile warnings (a file that is not a Hash, a deprecated
    /// `environment_data_provider`), whichever lookups came before: two such sessions with
    /// the same data and answers give the same outcome (`Session::lookup`, the settled pool).
    pub(crate) fn settled(&self) -> bool {
        !self.key_cache_warned.get()
            && self.layers_created()
            && self.env_lookup_options.borrow().is_some()
            && !self.module_lopts_warned.get()
            && self.lopts_defaults_warned.borrow().is_empty()
    }

    /// Takes `a` as this (new) state's assembled lookup_options, with their dependencies.
    pub(crate) fn adopt_options(&self, a: &AssembledOptions) {
        self.lookup_options
            .borrow_mut()
            .extend(a.compiled.iter().cloned());
        *self.global_lookup_options.borrow_mut() = a.global.clone();
        *self.env_lookup_options.borrow_mut() = a.env.clone();
        self.module_default_lookup_options
            .borrow_mut()
            .extend(a.module_defaults.iter().cloned());
        self.lopts_reads
            .borrow_mut()
            .extend(a.reads.iter().cloned());
        self.lopts_keys.borrow_mut().extend(a.keys.iter().cloned());
    }
}

/// What Puppet keeps per compile.
#[derive(Default)]
pub(crate) struct State {
    lookup_options: RefCell<HashMap<Option<String>, Option<Arc<CompiledOpts>>>>,
    global_lookup_options: RefCell<Option<Option<Value>>>,
    env_lookup_options: RefCell<Option<Option<Value>>>,
    module_default_lookup_options: RefCell<HashMap<String, Option<Arc<CompiledOpts>>>>,
    global: RefCell<Option<Rc<LayerProvider>>>,
    /// Scope reads made, and keys looked up, while assembling lookup_options: the session
    /// keeps what it assembled, so every later lookup depends on them (`Session::lookup_with_deps`
    /// adds them to each lookup's [`super::Deps`]).
    pub lopts_reads: RefCell<Vec<(Arc<str>, Probe)>>,
    pub lopts_keys: RefCell<Vec<(Arc<str>, Option<String>)>>,
    /// Whether the global and environment part of lookup_options failed (which leaves parts
    /// cached that Puppet does not retry) or logged a warning: nothing assembled is then
    /// handed to another session ([`AssembledOptions`]).
    pub lopts_eventful: std::cell::Cell<bool>,
    /// The entries (by module) whose assembly logged a warning or failed: not handed on.
    lopts_warned: RefCell<crate::engine::vfs::FastSet<Option<String>>>,
    /// The modules whose default_hierarchy lookup_options logged a warning.
    lopts_defaults_warned: RefCell<crate::engine::vfs::FastSet<String>>,
    /// The YAML data files whose first read this compile logged a warning
    /// ([`Cx::first_read_warnings`]).
    files_warned: RefCell<crate::engine::vfs::FastSet<PathBuf>>,
    /// Whether a value an eyaml level keeps for later lookups logged a warning when it was
    /// first read: those lookups log nothing, so the session's outcomes depend on its history
    /// and are kept to itself ([`State::options_quiet`], [`State::settled`]).
    pub key_cache_warned: std::cell::Cell<bool>,
    /// Whether looking a module's part of lookup_options up logged a warning, or an assembly
    /// of a module's entry failed ([`State::settled`]).
    module_lopts_warned: std::cell::Cell<bool>,
    env: RefCell<Option<Option<Rc<LayerProvider>>>>,
    modules: RefCell<HashMap<String, Option<Rc<LayerProvider>>>>,
}

/// The scope reads a layer's levels made, and whether all of them could be cached.
type LayerReads = (Vec<(Arc<str>, Probe)>, bool);

/// Scope reads (with what they gave) and keys looked up (root, module) by some work.
type ReadDeps = (Vec<(Arc<str>, Probe)>, Vec<(Arc<str>, Option<String>)>);

/// Where a found value came from.
#[derive(Clone, Debug)]
pub struct Provenance {
    pub file: Arc<SourceFile>,
    /// The root key as written.
    pub key_span: Span,
    /// Its value.
    pub value_span: Span,
}

/// The invocation-level state Puppet keeps in `Invocation` (`top_key`, `module_name`).
#[derive(Clone, Debug)]
struct Inv {
    top_key: String,
    module_name: Option<String>,
}

/// One lookup's context.
pub(crate) struct Cx<'a> {
    pub eng: &'a Engine,
    pub st: &'a State,
    pub scope: &'a Scope,
    pub ex: RefCell<Option<Explainer>>,
    stack: RefCell<Vec<Arc<str>>>,
    invs: RefCell<Vec<Inv>>,
    pub warnings: RefCell<Vec<String>>,
    pub provenance: RefCell<Vec<Provenance>>,
    /// `scope.with_local_scope(var => value)` while expanding mapped_paths.
    local: RefCell<Option<(String, Value)>>,
    /// True while interpolating hiera.yaml locations (Puppet 8 turns undefined variables into
    /// warnings there).
    in_location: RefCell<bool>,
    /// Interpolations in progress, nested (bounded by [`Limits::max_lookup_depth`]: each level is
    /// a Rust call chain).
    ///
    /// [`Limits::max_lookup_depth`]: crate::limits::Limits::max_lookup_depth
    nesting: RefCell<usize>,
    /// Lookups and variable reads made through interpolation so far in this lookup (bounded by
    /// [`Limits::max_sub_lookups`]: a chain of keys each interpolating the next twice costs
    /// 2^n of them; Puppet would spin for ever too).
    ///
    /// [`Limits::max_sub_lookups`]: crate::limits::Limits::max_sub_lookups
    sub_lookups: std::cell::Cell<usize>,
    /// Every scope variable read by this lookup (outside hierarchy resolution, which the
    /// hierarchy fingerprint covers), for the engine's cross-session result cache.
    pub reads: RefCell<Vec<(Arc<str>, Probe)>>,
    track_reads: std::cell::Cell<bool>,
    /// What this context's scope gave for each expression the level cache probed: a
    /// hierarchy's levels read the same few (`trusted.certname` for three node-file levels).
    probed: RefCell<super::levels::ProbeMemo>,
    /// Every key this lookup looked up (its own and those of nested lookups), as the root
    /// key and the module whose data it consults, for the engine's cross-hierarchy cache.
    pub keys: RefCell<Vec<(Arc<str>, Option<String>)>>,
    /// While [`Cx::resolved_levels_fresh`] resolves a layer: the scope reads its levels made
    /// (cached or not), and whether every level's resolution could be cached.
    layer_reads: RefCell<Option<LayerReads>>,
    /// Whether [`Cx::resolved_levels_fresh`] logged a warning of a module layer (creating its
    /// provider or resolving its levels): Puppet logs those at a compile's first lookup of
    /// the module, which a session cannot tell from its global and environment layers.
    pub module_warned: std::cell::Cell<bool>,
}

#[derive(Clone, Copy, PartialEq)]
enum LayerId {
    Global,
    Env,
    Module,
}

impl<'a> Cx<'a> {
    pub fn new(eng: &'a Engine, st: &'a State, scope: &'a Scope, explain: bool) -> Cx<'a> {
        Cx {
            eng,
            st,
            scope,
            ex: RefCell::new(explain.then(Explainer::new)),
            stack: RefCell::new(Vec::new()),
            invs: RefCell::new(Vec::new()),
            warnings: RefCell::new(Vec::new()),
            provenance: RefCell::new(Vec::new()),
            local: RefCell::new(None),
            in_location: RefCell::new(false),
            nesting: RefCell::new(0),
            sub_lookups: std::cell::Cell::new(0),
            reads: RefCell::new(Vec::new()),
            track_reads: std::cell::Cell::new(true),
            probed: RefCell::default(),
            keys: RefCell::new(Vec::new()),
            layer_reads: RefCell::new(None),
            module_warned: std::cell::Cell::new(false),
        }
    }

    fn explaining(&self) -> bool {
        self.ex.borrow().is_some()
    }

    /// Runs `f` and tells which scope reads and key lookups it made (they stay recorded in
    /// this lookup too): for work a session keeps and hands to later lookups, which depend on
    /// the same reads and keys (`Cx::replay_deps`).
    fn tracking_deps<T>(&self, f: impl FnOnce() -> T) -> (T, ReadDeps) {
        let (reads, keys) = (self.reads.borrow().len(), self.keys.borrow().len());
        let r = f();
        let deps = (
            self.reads.borrow()[reads..].to_vec(),
            self.keys.borrow()[keys..].to_vec(),
        );
        (r, deps)
    }

    /// Logs the warnings an assembly of lookup_options captured; true when there were any,
    /// or it failed. A failed entry is not cached (the session assembles it again, and fails
    /// again, at its next lookup), so only a failure of the global and environment part,
    /// which leaves parts cached that Puppet does not retry, keeps a whole assembly home
    /// (`env_lookup_options`).
    fn note_assembly(&self, warnings: &[String], failed: bool) -> bool {
        for w in warnings {
            self.warn(w.clone());
        }
        failed || !warnings.is_empty()
    }

    /// Records, for a lookup served from a session's cache, the reads and keys the cached
    /// work made when it was computed.
    fn replay_deps(&self, (reads, keys): &ReadDeps) {
        if self.track_reads.get() {
            self.reads.borrow_mut().extend(reads.iter().cloned());
        }
        self.keys.borrow_mut().extend(keys.iter().cloned());
    }

    /// `Invocation#with`: pushes an explain node around `f`.
    fn with<T>(&self, kind: impl FnOnce() -> NodeKind, f: impl FnOnce() -> T) -> T {
        let saved = match self.ex.borrow_mut().as_mut() {
            Some(e) => {
                let cur = e.current();
                e.push(kind());
                Some(cur)
            }
            None => None,
        };
        let r = f();
        if let Some(cur) = saved {
            if let Some(e) = self.ex.borrow_mut().as_mut() {
                e.reset_to(cur);
            }
        }
        r
    }

    fn ex_do(&self, f: impl FnOnce(&mut Explainer)) {
        if let Some(e) = self.ex.borrow_mut().as_mut() {
            f(e)
        }
    }

    fn report_found(&self, key: &str, v: &Value) {
        self.ex_do(|e| e.accept_found(key, v));
    }

    fn report_not_found(&self, key: &str) {
        self.ex_do(|e| e.accept_not_found(key));
    }

    fn report_text(&self, t: impl FnOnce() -> String) {
        if self.explaining() {
            let t = t();
            self.ex_do(|e| e.accept_text(t));
        }
    }

    fn warn(&self, msg: String) {
        let mut w = self.warnings.borrow_mut();
        if !w.contains(&msg) {
            w.push(msg);
        }
    }

    fn strict(&self) -> Strict {
        self.eng.opts.strict
    }

    fn top_key(&self) -> String {
        self.invs
            .borrow()
            .last()
            .map(|i| i.top_key.clone())
            .unwrap_or_default()
    }

    fn inv_module(&self) -> Option<String> {
        self.invs
            .borrow()
            .last()
            .and_then(|i| i.module_name.clone())
    }

    /// `Invocation#lookup(key, module_name) { ... }`.
    fn with_invocation<T>(&self, key: &str, module: Option<String>, f: impl FnOnce() -> T) -> T {
        self.invs.borrow_mut().push(Inv {
            top_key: key.to_string(),
            module_name: module,
        });
        let r = f();
        self.invs.borrow_mut().pop();
        r
    }

    /// `Invocation#check`: the recursion guard.
    fn check<T>(&self, name: &Arc<str>, f: impl FnOnce() -> R<T>) -> R<T> {
        {
            let stack = self.stack.borrow();
            if stack.iter().any(|n| n == name) {
                let names: Vec<&str> = stack.iter().map(|n| &**n).collect();
                return Err(LookupError::new(
                    ErrorKind::RecursiveLookup,
                    format!("Recursive lookup detected in [{}]", names.join(", ")),
                ));
            }
        }
        self.stack.borrow_mut().push(name.clone());
        let r = f();
        self.stack.borrow_mut().pop();
        r.map_err(LookupError::through_check)
    }

    /// `MergeStrategy#lookup(variants)`.
    fn merge_lookup<T>(
        &self,
        ms: &MergeStrategy,
        variants: &[T],
        mut f: impl FnMut(&T) -> R<Option<Value>>,
    ) -> R<Option<Value>> {
        if ms.is_first_found() {
            for v in variants {
                if let Some(x) = f(v)? {
                    return Ok(Some(x));
                }
            }
            return Ok(None);
        }
        match variants.len() {
            0 => Ok(None),
            1 => Ok(f(&variants[0])?.map(|v| ms.merge_single(v))),
            _ => self.with(
                || NodeKind::Merge {
                    strategy: ms.key(),
                    options: ms.options_wo_strategy(),
                },
                || {
                    let start = self.ex.borrow().as_ref().map(|e| e.len()).unwrap_or(0);
                    let mut memo: Option<Value> = None;
                    for v in variants {
                        if let Some(x) = f(v)? {
                            memo = Some(match memo {
                                None => ms.convert_value(x),
                                Some(m) if !self.explaining() => ms.merge(&m, &x)?,
                                Some(m) => {
                                    let (r, mutated) = ms.merge_tracking(&m, &x)?;
                                    if let Some((was_e1, new)) = mutated {
                                        let old = if was_e1 { &m } else { &x };
                                        self.ex_do(|e| e.replace_object(start, old, &new));
                                    }
                                    r
                                }
                            });
                        }
                    }
                    if let Some(r) = &memo {
                        self.ex_do(|e| e.accept_result(r));
                    }
                    Ok(memo)
                },
            ),
        }
    }

    // -----------------------------------------------------------------------------------------
    // LookupAdapter

    /// `Lookup.search_and_merge` → `LookupAdapter#lookup`.
    pub fn adapter_lookup(&self, key_str: &str, merge: Option<&Value>) -> R<Option<Value>> {
        if key_str == LOOKUP_OPTIONS || key_str.starts_with("lookup_options.") {
            self.with(
                || NodeKind::InvalidKey {
                    key: LOOKUP_OPTIONS.into(),
                },
                || {},
            );
            return Ok(None);
        }
        let key = LookupKey::parse(key_str)?;
        self.keys
            .borrow_mut()
            .push((Arc::from(key.root.as_str()), key.module_name.clone()));
        self.with_invocation(key_str, key.module_name.clone(), || {
            let lopts = self.lookup_lookup_options(&key)?;
            let merge: Option<Value> = match merge {
                Some(m) => Some(m.clone()),
                None => {
                    let m = option_entry_get(lopts.as_ref(), "merge")?;
                    if m.is_some() {
                        self.ex_do(|e| e.accept_merge_source(LOOKUP_OPTIONS));
                    }
                    m
                }
            };
            let result = self.with(
                || NodeKind::Top {
                    key: key_str.to_string(),
                    meta: false,
                },
                || -> R<Option<Value>> {
                    if let Some(v) = self.do_lookup(&key, merge.as_ref())? {
                        return Ok(Some(v));
                    }
                    match self.lookup_default_in_module(&key)? {
                        None => Ok(None),
                        Some(v) => self.dig(&key, v),
                    }
                },
            )?;
            self.convert_result(key_str, lopts.as_ref(), result)
        })
    }

    fn convert_result(
        &self,
        key: &str,
        lopts: Option<&Value>,
        result: Option<Value>,
    ) -> R<Option<Value>> {
        let Some(result) = result else {
            return Ok(None);
        };
        let Some(convert_to) = option_entry_get(lopts, "convert_to")? else {
            return Ok(Some(result));
        };
        let args: Vec<Value> = match &convert_to {
            Value::Array(a) => a.to_vec(),
            other => vec![other.clone()],
        };
        let converted = convert::convert_to(key, &args, &result)?;
        self.report_text(|| {
            format!(
                "Applying convert_to lookup_option with arguments {}",
                convert::args_string(&args)
            )
        });
        Ok(Some(converted))
    }

    fn do_lookup(&self, key: &LookupKey, merge: Option<&Value>) -> R<Option<Value>> {
        let ms = MergeStrategy::parse(merge.unwrap_or(&Value::Undef))?;
        let v = self.merge_lookup(
            &ms,
            &[LayerId::Global, LayerId::Env, LayerId::Module],
            |l| match l {
                LayerId::Global => self.lookup_global(key, &ms),
                LayerId::Env => self.lookup_in_environment(key, &ms),
                LayerId::Module => self.lookup_in_module(key, &ms),
            },
        )?;
        match v {
            None => Ok(None),
            Some(v) => self.dig(key, v),
        }
    }

    fn dig(&self, key: &LookupKey, value: Value) -> R<Option<Value>> {
        if key.segments.is_empty() {
            return Ok(Some(value));
        }
        self.sub_lookup(&key.key, &key.segments, value)
    }

    /// `SubLookup#sub_lookup`.
    fn sub_lookup(&self, key: &str, segments: &[Segment], value: Value) -> R<Option<Value>> {
        self.with(
            || NodeKind::SubLookup {
                segments: segments.to_vec(),
            },
            || {
                let mut value = value;
                for seg in segments {
                    let r = self.with(
                        || NodeKind::Segment,
                        || -> R<Option<Value>> {
                            let seg_s = seg.to_string();
                            if value.is_undef() {
                                self.report_not_found(&seg_s);
                                return Ok(None);
                            }
                            let next = match (seg, &value) {
                                (Segment::Int(i), Value::Array(a)) => {
                                    if *i < 0 || (*i as usize) >= a.len() {
                                        self.report_not_found(&seg_s);
                                        return Ok(None);
                                    }
                                    a[*i as usize].clone()
                                }
                                (_, Value::Hash(h)) => {
                                    let found = match seg {
                                        Segment::Int(i) => h.get(&Value::Integer(*i)),
                                        Segment::Str(s) => h.get(&crate::value::StrKey(s)),
                                    };
                                    match found {
                                        Some(v) => v.clone(),
                                        None => {
                                            self.report_not_found(&seg_s);
                                            return Ok(None);
                                        }
                                    }
                                }
                                (_, v @ (Value::Integer(_) | Value::Symbol(_))) => {
                                    // Integer#[] exists, so Puppet goes on to `include?`.
                                    return Err(no_method(
                                        "include?",
                                        v,
                                        "            unless value.include?(segment)",
                                    ));
                                }
                                (_, v) => {
                                    return Err(LookupError::lookup(format!(
                                        "Data Provider type mismatch: Got {} when a hash-like object was expected to access value using '{}' from key '{}'",
                                        super::ruby::class_name(v),
                                        seg_s,
                                        key
                                    )));
                                }
                            };
                            self.report_found(&seg_s, &next);
                            Ok(Some(next))
                        },
                    )?;
                    match r {
                        Some(v) => value = v,
                        None => return Ok(None),
                    }
                }
                Ok(Some(value))
            },
        )
    }

    // -----------------------------------------------------------------------------------------
    // Layers

    fn global_provider(&self) -> Rc<LayerProvider> {
        if let Some(p) = self.st.global.borrow().as_ref() {
            return p.clone();
        }
        let p = Rc::new(LayerProvider {
            place: Place::Global,
            config: RefCell::new(None),
            config_file: self.eng.env.spec.global_hiera_config.clone(),
            providers: RefCell::new(None),
        });
        *self.st.global.borrow_mut() = Some(p.clone());
        p
    }

    fn lookup_global(&self, key: &LookupKey, ms: &MergeStrategy) -> R<Option<Value>> {
        let p = self.global_provider();
        self.key_lookup(&p, key, ms).map_err(|e| {
            if e.kind.is_lookup_error() && !e.issue_code {
                let mut w = LookupError::new(
                    ErrorKind::PuppetError,
                    format!("Lookup of key '{}' failed: {}", self.top_key(), e.message),
                );
                w.path = e.path;
                w.source = e.source;
                w
            } else {
                e
            }
        })
    }

    fn lookup_in_environment(&self, key: &LookupKey, ms: &MergeStrategy) -> R<Option<Value>> {
        match self.env_provider()? {
            None => Ok(None),
            Some(p) => self.key_lookup(&p, key, ms),
        }
    }

    fn lookup_in_module(&self, key: &LookupKey, ms: &MergeStrategy) -> R<Option<Value>> {
        let Some(module) = self.inv_module() else {
            return Ok(None);
        };
        match self.module_provider(&module)? {
            Some(p) => self.key_lookup(&p, key, ms),
            None => {
                if self.eng.module_dir(&module).is_none() {
                    self.ex_do(|e| e.accept_module_not_found(&module));
                } else {
                    self.ex_do(|e| e.accept_module_provider_not_found(&module));
                }
                Ok(None)
            }
        }
    }

    /// The configuration of a provider, created on first use.
    fn layer_config(&self, p: &LayerProvider) -> R<Arc<LayerConfig>> {
        if let Some(c) = p.config.borrow().as_ref() {
            return Ok(c.clone());
        }
        let created = match &p.config_file {
            Some(path) => self.eng.create_config(path, &p.place),
            None => Ok((Arc::new(empty_config()), Vec::new())),
        };
        let (cfg, warnings) = created?;
        for w in warnings {
            self.warn(w);
        }
        if p.place == Place::Global && cfg.version == 4 {
            return Err(cfg.fail(
                "hiera.yaml version 4 cannot be used in the global layer",
                None,
            ));
        }
        *p.config.borrow_mut() = Some(cfg.clone());
        Ok(cfg)
    }

    /// `DataProvider#key_lookup`.
    fn key_lookup(
        &self,
        p: &LayerProvider,
        key: &LookupKey,
        ms: &MergeStrategy,
    ) -> R<Option<Value>> {
        self.check(&key.key, || self.unchecked_layer_lookup(p, key, ms))
    }

    fn provider_node(&self, p: &LayerProvider, cfg: Option<&LayerConfig>) -> NodeKind {
        NodeKind::DataProvider {
            name: p.place.provider_name(cfg.map(|c| c.version)),
            config_path: cfg
                .and_then(|c| c.config_path.as_ref())
                .map(|x| x.to_string_lossy().into_owned()),
            module: p.module_name().map(str::to_string),
            configured: true,
        }
    }

    fn set_node_config(&self, p: &LayerProvider, cfg: &LayerConfig) {
        if !self.explaining() {
            return;
        }
        let kind = self.provider_node(p, Some(cfg));
        self.ex_do(|e| {
            let cur = e.current();
            e.node_mut(cur).kind = kind;
        });
    }

    fn unchecked_layer_lookup(
        &self,
        p: &LayerProvider,
        key: &LookupKey,
        ms: &MergeStrategy,
    ) -> R<Option<Value>> {
        let known = p.config.borrow().clone();
        self.with(
            || self.provider_node(p, known.as_deref()),
            || {
                let cfg = self.layer_config(p)?;
                self.set_node_config(p, &cfg);
                let (dps, _) = self.data_providers(p, &cfg)?;
                if dps.is_empty() {
                    self.report_not_found(&key.key);
                    return Ok(None);
                }
                self.merge_lookup(ms, &dps, |dp| self.entry_lookup(dp, key, ms))
            },
        )
    }

    fn env_provider(&self) -> R<Option<Rc<LayerProvider>>> {
        if let Some(p) = self.st.env.borrow().as_ref() {
            return Ok(p.clone());
        }
        let p = self.initialize_env_provider()?;
        *self.st.env.borrow_mut() = Some(p.clone());
        Ok(p)
    }

    fn initialize_env_provider(&self) -> R<Option<Rc<LayerProvider>>> {
        let env = &self.eng.env;
        let mut provider_name = env.data_provider.clone();
        // The path, whether it exists and its configuration, found once for every session
        // (`Engine::env_layer_config`).
        let super::EnvLayerConfig {
            path: config_path,
            made,
        } = self.eng.env_layer_config();
        let mut ep: Option<Rc<LayerProvider>> = None;
        let strict_off = self.strict() == Strict::Off;
        if let Some(made) = made {
            let p = LayerProvider {
                place: Place::Environment,
                config: RefCell::new(None),
                config_file: Some(config_path.clone()),
                providers: RefCell::new(None),
            };
            // `layer_config` with the configuration created: its warnings logged, kept as the
            // provider's.
            let (cfg, warnings) = made?;
            for w in warnings {
                self.warn(w);
            }
            *p.config.borrow_mut() = Some(cfg.clone());
            if cfg.version <= 3 {
                self.v3_not_global(&cfg, "environment")?;
            } else {
                if cfg.version >= 5 {
                    if let Some(pn) = &provider_name {
                        if !strict_off {
                            self.warn(format!(
                                "Defining environment_data_provider='{pn}' in environment.conf is deprecated"
                            ));
                            if pn != "hiera" {
                                self.warn(format!(
                                    "The environment_data_provider='{pn}' setting is ignored since '{}' version >= 5",
                                    config_path.display()
                                ));
                            }
                        }
                    }
                    provider_name = None;
                }
                ep = Some(Rc::new(p));
            }
        }
        let Some(pn) = provider_name else {
            return Ok(ep);
        };
        if !strict_off {
            let mut msg = format!(
                "Defining environment_data_provider='{pn}' in environment.conf is deprecated."
            );
            if ep.is_none() {
                msg.push_str(" A 'hiera.yaml' file should be used instead");
            }
            self.warn(msg);
        }
        match pn.as_str() {
            "none" => Ok(None),
            "hiera" => Ok(ep.or_else(|| {
                Some(Rc::new(LayerProvider {
                    place: Place::Environment,
                    config: RefCell::new(None),
                    config_file: Some(config_path),
                    providers: RefCell::new(None),
                }))
            })),
            "function" => {
                self.legacy_function_warning("environment::data");
                Ok(Some(Rc::new(LayerProvider {
                    place: Place::Environment,
                    config: RefCell::new(Some(Arc::new(LayerConfig::v4_function(
                        env.dir(),
                        "environment::data",
                    )))),
                    config_file: None,
                    providers: RefCell::new(None),
                })))
            }
            other => Err(LookupError::new(
                ErrorKind::PuppetError,
                format!(
                    "Environment '{}', cannot find environment_data_provider '{other}'",
                    env.name()
                ),
            )),
        }
    }

    fn legacy_function_warning(&self, name: &str) {
        if self.strict() != Strict::Off {
            self.warn(format!(
                "Using of legacy data provider function '{name}'. Please convert to a 'data_hash' function"
            ));
        }
    }

    /// `assert_config_version` of the environment and module providers for a v3 hiera.yaml.
    fn v3_not_global(&self, cfg: &LayerConfig, where_: &str) -> R<()> {
        if self.strict() == Strict::Error {
            let what = if where_ == "environment" {
                "an environment"
            } else {
                "a module"
            };
            return Err(cfg.fail(
                &format!("hiera.yaml version 3 cannot be used in {what}"),
                None,
            ));
        }
        let msg = if where_ == "environment" {
            "hiera.yaml version 3 found at the environment root was ignored"
        } else {
            "hiera.yaml version 3 found at module root was ignored"
        };
        self.warn(msg.to_string());
        Ok(())
    }

    fn module_provider(&self, module: &str) -> R<Option<Rc<LayerProvider>>> {
        if let Some(p) = self.st.modules.borrow().get(module) {
            return Ok(p.clone());
        }
        let p = self.initialize_module_provider(module)?;
        self.st
            .modules
            .borrow_mut()
            .insert(module.to_string(), p.clone());
        Ok(p)
    }

    fn initialize_module_provider(&self, module: &str) -> R<Option<Rc<LayerProvider>>> {
        let Some(info) = self.eng.module_info(module) else {
            return Ok(None);
        };
        let mut provider_name = info.data_provider.clone();
        let strict_off = self.strict() == Strict::Off;
        let mut mp: Option<Rc<LayerProvider>> = None;
        if info.has_hiera_yaml {
            let p = LayerProvider {
                place: Place::Module(module.to_string()),
                config: RefCell::new(None),
                config_file: Some(info.dir.join("hiera.yaml")),
                providers: RefCell::new(None),
            };
            let cfg = self.layer_config(&p)?;
            if cfg.version <= 3 {
                self.v3_not_global(&cfg, "module")?;
            } else {
                if cfg.version >= 5 {
                    if let Some(pn) = &provider_name {
                        if !strict_off {
                            self.warn(format!(
                                "Defining \"data_provider\": \"{}\" in metadata.json is deprecated. It is ignored since a 'hiera.yaml' with version >= 5 is present",
                                pn.to_ruby_s()
                            ));
                        }
                    }
                    provider_name = None;
                }
                mp = Some(Rc::new(p));
            }
        }
        let Some(pn) = provider_name else {
            return Ok(mp);
        };
        let pn_s = pn.to_ruby_s();
        if !strict_off {
            let mut msg =
                format!("Defining \"data_provider\": \"{pn_s}\" in metadata.json is deprecated.");
            if mp.is_none() {
                msg.push_str(" A 'hiera.yaml' file should be used instead");
            }
            self.warn(msg);
        }
        match pn.as_str() {
            Some("none") => Ok(None),
            Some("hiera") => Ok(mp.or_else(|| {
                Some(Rc::new(LayerProvider {
                    place: Place::Module(module.to_string()),
                    config: RefCell::new(None),
                    config_file: Some(info.dir.join("hiera.yaml")),
                    providers: RefCell::new(None),
                }))
            })),
            Some("function") => {
                let fname = format!("{module}::data");
                self.legacy_function_warning(&fname);
                Ok(Some(Rc::new(LayerProvider {
                    place: Place::Module(module.to_string()),
                    config: RefCell::new(Some(Arc::new(LayerConfig::v4_function(
                        &info.dir, &fname,
                    )))),
                    config_file: None,
                    providers: RefCell::new(None),
                })))
            }
            _ => {
                // Puppet applies `%` to the exception instead of the message (recorded:
                // module/providers-without-hiera-yaml `metabogus`).
                Err(LookupError::new(
                    ErrorKind::NoMethod,
                    "undefined method `%' for #<Puppet::Error: Environment '%{env}', cannot find module_data_provider '%{provider}'>\n\n        raise Puppet::Error.new(_(\"Environment '%{env}', cannot find module_data_provider '%{provider}'\")) % { env: environment.name, provider: provider_name }\n                                                                                                           ^",
                ))
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Hierarchy resolution (`HieraConfigV5#create_configured_data_providers`)

    fn data_providers(&self, p: &LayerProvider, cfg: &Arc<LayerConfig>) -> R<Levels> {
        if let Some(d) = p.providers.borrow().as_ref() {
            return Ok(d.clone());
        }
        let d = self.in_fresh_invocation(|| self.create_providers(p, cfg))?;
        *p.providers.borrow_mut() = Some(d.clone());
        Ok(d)
    }

    /// The levels [`Cx::data_providers`] would create for a layer (appended to `out`), with
    /// the same warnings and errors, without creating the providers themselves: resolving a
    /// hierarchy (once per node, to group nodes) needs only the levels, which the engine's
    /// level cache shares, and not the per-session providers and their caches.
    fn levels_of(
        &self,
        p: &LayerProvider,
        cfg: &Arc<LayerConfig>,
        out: &mut Vec<Arc<ResolvedLevel>>,
    ) -> R<()> {
        if let Some((regular, default)) = p.providers.borrow().as_ref() {
            out.extend(
                regular
                    .iter()
                    .chain(default.iter())
                    .map(|dp| dp.level.clone()),
            );
            return Ok(());
        }
        let start = out.len();
        let r = self.in_fresh_invocation(|| {
            self.entry_levels(p, cfg, &cfg.entries, out)?;
            match &cfg.default_entries {
                Some(d) if matches!(p.place, Place::Module(_)) => self.entry_levels(p, cfg, d, out),
                _ => Ok(()),
            }
        });
        if let Err(e) = r {
            out.truncate(start);
            return Err(self.undefined_variable_in_config(cfg, e));
        }
        Ok(())
    }

    /// `create_entry_list`'s levels.
    fn entry_levels(
        &self,
        p: &LayerProvider,
        cfg: &Arc<LayerConfig>,
        entries: &[EntrySpec],
        out: &mut Vec<Arc<ResolvedLevel>>,
    ) -> R<()> {
        for i in 0..entries.len() {
            let level = self.resolved_entry_then(&p.place, cfg, entries, i, |r| match r {
                Ok(r) => Ok(r.as_ref().map(|r| r.level.clone())),
                Err(e) => Err(e.clone()),
            });
            match level {
                Ok(Some(level)) => out.push(level),
                Ok(None) => {}
                Err(e) => return Err(self.config_issue(cfg, e)),
            }
        }
        Ok(())
    }

    /// Runs `f` as Puppet creates a layer's data providers: in a fresh invocation (no
    /// explainer, an empty name stack), its scope reads not tracked (levels record their own).
    fn in_fresh_invocation<T>(&self, f: impl FnOnce() -> T) -> T {
        let saved_ex = self.ex.borrow_mut().take();
        let saved_stack = std::mem::take(&mut *self.stack.borrow_mut());
        let tracking = self.track_reads.replace(false);
        let r = f();
        self.track_reads.set(tracking);
        *self.ex.borrow_mut() = saved_ex;
        *self.stack.borrow_mut() = saved_stack;
        r
    }

    fn create_providers(&self, p: &LayerProvider, cfg: &Arc<LayerConfig>) -> R<Levels> {
        let regular = self.create_entry_list(p, cfg, &cfg.entries);
        let regular = match regular {
            Ok(r) => r,
            Err(e) => return Err(self.undefined_variable_in_config(cfg, e)),
        };
        let default = match &cfg.default_entries {
            Some(d) if matches!(p.place, Place::Module(_)) => {
                match self.create_entry_list(p, cfg, d) {
                    Ok(r) => r,
                    Err(e) => return Err(self.undefined_variable_in_config(cfg, e)),
                }
            }
            _ => Vec::new(),
        };
        Ok((Rc::new(regular), Rc::new(default)))
    }

    /// The `rescue` of `configured_data_providers`: an undefined variable becomes
    /// `Undefined variable '<v>' (file: <hiera.yaml>, line: <n>)`.
    fn undefined_variable_in_config(&self, cfg: &LayerConfig, e: LookupError) -> LookupError {
        if e.kind.is_lookup_error() || e.kind.is_puppet_error() {
            // Only StandardErrors that are not Puppet errors reach the message test; Puppet
            // errors are StandardErrors too, so they are tested as well.
        }
        if let Some(rest) = e.message.strip_prefix("Undefined variable '") {
            if let Some(end) = rest.find('\'') {
                let var = &rest[..end];
                let line = cfg.file.as_ref().and_then(|f| {
                    crate::config::lines::find_line_matching(
                        f.text(),
                        &format!("%\\{{['\"]?{}['\"]?}}", var),
                        1,
                    )
                });
                let mut err = cfg.fail(&format!("Undefined variable '{var}'"), line);
                err.source = e.source;
                return err;
            }
        }
        e
    }

    /// Interpolation failures raised while a HieraConfig interpolates its own strings go
    /// through `HieraConfig#fail` (the config's `fail` overrides Interpolation's), which adds
    /// the file (recorded: locations/method-in-path).
    fn config_issue(&self, cfg: &LayerConfig, e: LookupError) -> LookupError {
        if e.issue_code && e.kind == ErrorKind::Lookup && e.path.is_none() {
            let mut f = cfg.fail(&e.message, None);
            f.source = e.source;
            return f;
        }
        e
    }

    fn create_entry_list(
        &self,
        p: &LayerProvider,
        cfg: &Arc<LayerConfig>,
        entries: &[EntrySpec],
    ) -> R<Vec<Rc<EntryProvider>>> {
        self.create_entry_list_inner(p, cfg, entries)
            .map_err(|e| self.config_issue(cfg, e))
    }

    fn create_entry_list_inner(
        &self,
        p: &LayerProvider,
        cfg: &Arc<LayerConfig>,
        entries: &[EntrySpec],
    ) -> R<Vec<Rc<EntryProvider>>> {
        let mut out = Vec::new();
        for i in 0..entries.len() {
            let Some(r) = self.resolved_entry(&p.place, cfg, entries, i)? else {
                continue;
            };
            let slots = match &r.level.locations {
                None => vec![None],
                Some(l) => (0..l.len()).map(Some).collect(),
            };
            out.push(Rc::new(EntryProvider {
                slots,
                name: entries[i].name.clone(),
                kind: r.kind,
                function_name: r.level.function.clone(),
                func: r.func,
                options: r.options,
                level: r.level,
                config: cfg.clone(),
                module: p.module_name().map(str::to_string),
                data_hashes: RefCell::new(HashMap::default()),
                key_cache: RefCell::new(HashMap::default()),
                raw_cache: RefCell::new(HashMap::default()),
            }));
        }
        Ok(out)
    }

    /// One level resolved against the scope (`None`: an empty level of a default hierarchy,
    /// which Puppet drops), through the engine's [`LevelCache`](super::levels::LevelCache):
    /// a level another session resolved with the same answers to the same scope reads is
    /// reused, with its warnings logged again and its interpolations counted again.
    fn resolved_entry(
        &self,
        place: &Place,
        cfg: &Arc<LayerConfig>,
        entries: &[EntrySpec],
        i: usize,
    ) -> R<Option<ResolvedEntry>> {
        self.resolved_entry_then(place, cfg, entries, i, Clone::clone)
    }

    /// [`Cx::resolved_entry`], handing the resolution to `f` (which may take only what it
    /// needs from a cached one instead of copying it).
    fn resolved_entry_then<T>(
        &self,
        place: &Place,
        cfg: &Arc<LayerConfig>,
        entries: &[EntrySpec],
        i: usize,
        f: impl FnOnce(&R<Option<ResolvedEntry>>) -> T,
    ) -> T {
        // A resolution only differs with the caller's state when a limit stops it: its
        // interpolations (methods are refused in hiera.yaml, so none nests another) add one
        // level to the caller's nesting and count against the lookup's `max_sub_lookups`. A
        // cached resolution is used only where resolving again would not reach either limit,
        // and resolutions stopped by a limit are not cached; a mapped path's local variable
        // (never set here in practice) is not a scope read, so it is not cached either.
        let cacheable = *self.nesting.borrow() < self.eng.limits.max_lookup_depth
            && self.local.borrow().is_none();
        let id = (Arc::as_ptr(cfg) as usize, entries.as_ptr() as usize, i);
        // Whether this resolution is offered to the cache (not when the level keeps no more).
        let mut offer = cacheable;
        let f = if cacheable {
            let mut prober = |e: &Arc<str>| self.probed.borrow_mut().probe(self.scope, e);
            let found = self.eng.levels.with_found(
                id,
                &mut prober,
                |h| self.sub_lookups.get() + h.sub_lookups <= self.eng.limits.max_sub_lookups,
                f,
                |hit, f| {
                    if let Some((reads, _)) = self.layer_reads.borrow_mut().as_mut() {
                        reads.extend(hit.reads.iter().cloned());
                    }
                    for w in &hit.warnings {
                        self.warn(w.clone());
                    }
                    self.sub_lookups
                        .set(self.sub_lookups.get() + hit.sub_lookups);
                    f(&hit.result)
                },
            );
            match found {
                Ok(out) => return out,
                Err((f, full)) => {
                    offer = !full;
                    f
                }
            }
        } else {
            f
        };
        let saved_reads = self.reads.replace(Vec::new());
        let saved_tracking = self.track_reads.replace(true);
        let saved_warnings = self.warnings.replace(Vec::new());
        let before = self.sub_lookups.get();
        let is_default = !std::ptr::eq(entries.as_ptr(), cfg.entries.as_ptr());
        let result = self.resolve_entry(place, cfg, &entries[i], is_default);
        let reads = self.reads.replace(saved_reads);
        self.track_reads.set(saved_tracking);
        let warnings = self.warnings.replace(saved_warnings);
        for w in &warnings {
            self.warn(w.clone());
        }
        let is_limit = matches!(&result, Err(e) if e.kind == ErrorKind::Unsupported);
        if let Some((layer_reads, layer_cacheable)) = self.layer_reads.borrow_mut().as_mut() {
            layer_reads.extend(reads.iter().cloned());
            *layer_cacheable &= cacheable && !is_limit;
        }
        let out = f(&result);
        if offer && !is_limit {
            // Kept for the run (a resolution per data-implied node and node-file level): a
            // vector grown by pushes holds room for four reads where one was made, 3.4 MB of
            // a 5k-file check's peak heap.
            let mut reads = reads;
            reads.shrink_to_fit();
            self.eng.levels.insert(
                id,
                cfg,
                super::levels::CachedLevel {
                    reads,
                    warnings,
                    sub_lookups: self.sub_lookups.get() - before,
                    result,
                },
            );
        }
        out
    }

    fn resolve_entry(
        &self,
        place: &Place,
        cfg: &Arc<LayerConfig>,
        e: &EntrySpec,
        is_default: bool,
    ) -> R<Option<ResolvedEntry>> {
        if let Some(err) = &e.creation_error {
            return Err(err.clone());
        }
        let Some((kind, fname)) = e.function.as_ref().map(|(k, f)| (*k, f)) else {
            return Err(cfg.fail(
                &format!(
                    "One of data_hash, lookup_key, data_dig, or hiera3_backend must be defined in hierarchy '{}'",
                    e.name
                ),
                None,
            ));
        };
        // `e` is an entry of `cfg` (its root never changes), so the join is made once. The
        // joined path is kept exact (an environment directory whose name is not UTF-8 names
        // its files); only a datadir that interpolates goes through its text.
        let (joined, template) = e.joined_datadir.get_or_init(|| {
            let joined = pathname_join(&cfg.root, &e.datadir);
            let text = joined.to_string_lossy();
            let template = crate::interp::has_interpolation(&text).then(|| text.into_owned());
            (joined, template)
        });
        let datadir = match template {
            None => joined.clone(),
            Some(t) => match self.interpolate_config_str(t, false)? {
                Value::String(s) => PathBuf::from(&*s),
                other => PathBuf::from(other.to_ruby_s()),
            },
        };
        // The text ids of the existing locations when finding them gave them all
        // (`Vfs::exists_with_id`): the level's `source_ids`, without looking each path up again.
        let mut known_ids = None;
        let locations = match &e.locations {
            LocSpec::None => None,
            LocSpec::Paths(ps) => Some(self.resolve_paths(
                &datadir,
                ps,
                cfg,
                e.extension.as_deref(),
                &mut known_ids,
            )?),
            LocSpec::Globs(gs, spans) => {
                Some(self.expand_globs(&datadir, gs, spans, cfg.file.as_ref())?)
            }
            LocSpec::Uris(us) => Some(self.expand_uris(us)?),
            LocSpec::Mapped(m) => Some(self.expand_mapped_paths(&datadir, m)?),
        };
        if cfg.is_default() && locations.as_ref().is_some_and(|l| l.is_empty()) {
            return Ok(None);
        }
        // Options without `%{...}` (eyaml's key paths) are the same hash at every resolution of
        // the level: interpolated, copied and hashed once per entry, then shared.
        let (options, options_hash) = match &e.options {
            None => {
                // Most levels have no options: the empty hash's, computed once per thread. One
                // for the process had both threads count references on one cache line, at
                // every level resolved afresh (three per data-implied node at 15k files).
                thread_local! {
                    static NO_OPTIONS: (Arc<Hash>, u64) = {
                        let o = Arc::new(Hash::default());
                        let h = options_hash(&o);
                        (o, h)
                    };
                }
                NO_OPTIONS.with(Clone::clone)
            }
            Some(o) => {
                let fixed = e.static_options.get_or_init(|| {
                    (!super::data::has_interpolation(o)).then(|| {
                        let h = match o {
                            Value::Hash(h) => h.clone(),
                            _ => Arc::new(Hash::default()),
                        };
                        let hash = options_hash(&h);
                        (h, hash)
                    })
                });
                match fixed {
                    Some(f) => f.clone(),
                    None => {
                        let h = match self.interpolate(o, false)? {
                            Value::Hash(h) => h,
                            _ => Arc::new(Hash::default()),
                        };
                        let hash = options_hash(&h);
                        (h, hash)
                    }
                }
            }
        };
        let func = self.eng.function_kind(fname, kind);
        let level = Arc::new(ResolvedLevel {
            settings: e.settings(place, cfg, is_default, kind, fname),
            index: std::sync::OnceLock::new(),
            source_ids: known_ids.map_or_else(std::sync::OnceLock::new, std::sync::OnceLock::from),
            defined: std::sync::OnceLock::new(),
            content_hash: std::sync::OnceLock::new(),
            no_options: options.is_empty(),
            options_hash,
            locations,
        });
        Ok(Some(ResolvedEntry {
            kind,
            func,
            options,
            level,
        }))
    }

    /// Interpolation of a hiera.yaml string (methods forbidden).
    fn interpolate_config_str(&self, s: &str, location: bool) -> R<Value> {
        let prev = std::mem::replace(&mut *self.in_location.borrow_mut(), location);
        let r = self.interpolate(&Value::string(s), false);
        *self.in_location.borrow_mut() = prev;
        r
    }

    fn interpolated_location_string(&self, s: &str) -> R<String> {
        Ok(match self.interpolate_config_str(s, true)? {
            Value::String(s) => s.to_string(),
            other => other.to_ruby_s(),
        })
    }

    /// [`Cx::interpolated_location_string`] of a location whose tokens were found when its
    /// hiera.yaml was read: the same interpolation (nesting, explain nodes, reads, counts,
    /// errors) without finding the tokens and splitting the keys again.
    fn interpolated_location(&self, t: &Template) -> R<String> {
        if !t.interpolates {
            return Ok(t.text.clone());
        }
        let prev = std::mem::replace(&mut *self.in_location.borrow_mut(), true);
        let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.nested_interpolation(&t.text, || {
                self.interpolate_tokens_text(&t.text, &t.tokens, &t.vars, false)
            })
        });
        *self.in_location.borrow_mut() = prev;
        // The text as built (no String value made and copied back out of it).
        Ok(match r? {
            Interpolated::Text(s) => s,
            Interpolated::Whole(v) => v.to_ruby_s(),
        })
    }

    fn resolve_paths(
        &self,
        datadir: &std::path::Path,
        paths: &[Template],
        cfg: &LayerConfig,
        ext: Option<&str>,
        known_ids: &mut Option<Box<[usize]>>,
    ) -> R<Vec<LevelLocation>> {
        let mut out = Vec::with_capacity(paths.len());
        // The ids of the existing locations, in order (`ResolvedLevel::source_ids`), while
        // each is known.
        let mut ids: Option<Vec<usize>> = Some(Vec::new());
        for declared in paths {
            let mut path = self.interpolated_location(declared)?;
            if let Some(ext) = ext {
                if !path.ends_with(ext) {
                    path.push_str(ext);
                }
            }
            let full = pathname_join(datadir, &path);
            let (exists, id) = self.eng.vfs.exists_with_id(&full);
            if cfg.is_default() && !exists {
                continue;
            }
            if exists {
                match (id, ids.as_mut()) {
                    (Some(id), Some(ids)) => ids.push(id),
                    _ => ids = None,
                }
            }
            out.push(LevelLocation::file(declared.shared.clone(), full, exists));
        }
        *known_ids = ids.map(Vec::into_boxed_slice);
        Ok(out)
    }

    /// The files `globs` match. A glob stopped at a limit fails the level, its error placed at
    /// the glob in `file` (the hiera.yaml; `spans` are the globs' there) for `check` to report.
    fn expand_globs(
        &self,
        datadir: &std::path::Path,
        globs: &[Template],
        spans: &[Span],
        file: Option<&Arc<crate::span::SourceFile>>,
    ) -> R<Vec<LevelLocation>> {
        let mut out = Vec::new();
        for (i, g) in globs.iter().enumerate() {
            let pattern = pathname_join(datadir, &self.interpolated_location(g)?);
            let pattern_s = pattern.to_string_lossy().into_owned();
            let matches = ruby_glob(&*self.eng.vfs, &pattern_s, &self.eng.limits).map_err(
                |GlobLimit(what)| {
                    let e = self.limit_error(what);
                    match (file, spans.get(i)) {
                        (Some(f), Some(&span)) => e.with_source(f, span),
                        _ => e,
                    }
                },
            )?;
            for m in matches {
                if self.eng.vfs.is_dir(&m) {
                    continue;
                }
                out.push(LevelLocation::file(Arc::from(pattern_s.as_str()), m, true));
            }
        }
        Ok(out)
    }

    fn expand_uris(&self, uris: &[String]) -> R<Vec<LevelLocation>> {
        let mut out = Vec::new();
        for u in uris {
            let s = self.interpolated_location_string(u)?;
            if !uri_ok(&s) {
                return Err(LookupError::new(
                    ErrorKind::InvalidUri,
                    format!(
                        "bad URI(is not URI?): {}",
                        Value::string(s.as_str()).ruby_inspect()
                    ),
                ));
            }
            out.push(LevelLocation {
                original: Arc::from(u.as_str()),
                location: s,
                is_uri: true,
                exists: true,
                raw: None,
            });
        }
        Ok(out)
    }

    fn expand_mapped_paths(
        &self,
        datadir: &std::path::Path,
        m: &[String; 3],
    ) -> R<Vec<LevelLocation>> {
        let prev = std::mem::replace(&mut *self.in_location.borrow_mut(), true);
        let vars = self.scope_lookup(&m[0], "mapped_path[0]");
        *self.in_location.borrow_mut() = prev;
        let vars = vars?;
        let vars: Vec<Value> = match vars {
            None => return Ok(Vec::new()),
            Some(Value::String(s)) if s.is_empty() => return Ok(Vec::new()),
            Some(Value::String(s)) => vec![Value::String(s)],
            Some(Value::Array(a)) => a.to_vec(),
            Some(Value::Hash(h)) => h
                .iter()
                .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
                .collect(),
            Some(other) => {
                return Err(no_method(
                    "empty?",
                    &other,
                    "      return EMPTY_ARRAY if mapped_vars.nil? || mapped_vars.empty?",
                ))
            }
        };
        let mut out = Vec::new();
        for var in vars {
            let prev = self.local.borrow_mut().replace((m[1].clone(), var));
            let r = self.interpolated_location_string(&m[2]);
            *self.local.borrow_mut() = prev;
            let path = pathname_join(datadir, &r?);
            let exists = self.eng.vfs.exists(&path);
            out.push(LevelLocation::file(Arc::from(m[2].as_str()), path, exists));
        }
        Ok(out)
    }

    // -----------------------------------------------------------------------------------------
    // Function providers

    fn entry_lookup(
        &self,
        dp: &Rc<EntryProvider>,
        key: &LookupKey,
        ms: &MergeStrategy,
    ) -> R<Option<Value>> {
        let locs = &dp.slots;
        // A level none of whose files can have an effect on this lookup is passed over without
        // reading them: every location is missing or a quiet file (a built-in reader's Hash in
        // the global or environment layer, `quiet_location`) that does not define the root key,
        // so each would give "not found" and nothing else; a merge of nothing is nothing. Only
        // the explanation shows the difference (each location's "not found"), so an explained
        // lookup visits them all. A glob over a hundred team files costs one probe of the
        // level's index (shared by every session that resolves the level alike) instead of a
        // hundred.
        if !self.explaining() && dp.locations().is_some() {
            let ix = dp.level.index(self.eng);
            if ix.always.is_empty() && !ix.by_key.contains_key(&key.root_hash) {
                return Ok(None);
            }
        }
        self.with(
            || NodeKind::DataProvider {
                name: dp.explain_name(),
                config_path: None,
                module: None,
                configured: false,
            },
            || {
                self.merge_lookup(ms, locs, |li| {
                    let loc = li.and_then(|i| dp.locations().map(|l| &l[i]));
                    match loc {
                        None => self.function_lookup(dp, None, key),
                        Some(l) => self.with(
                            || NodeKind::Location {
                                uri: l.is_uri,
                                location: l.location.clone(),
                                original: l.original.to_string(),
                            },
                            || {
                                if !l.exists {
                                    self.ex_do(|e| e.accept_location_not_found());
                                    return Ok(None);
                                }
                                self.function_lookup(dp, *li, key)
                            },
                        ),
                    }
                })
            },
        )
    }

    /// Loads the function: a missing one fails the lookup (`load_function`), a custom one
    /// (which hieralint cannot run) gives no data and an explain note.
    fn function_ready(&self, dp: &EntryProvider) -> R<bool> {
        match dp.func {
            Func::Missing => {
                let tag = dp.kind.key();
                Err(dp.config.fail(
                    &format!(
                        "Unable to find '{tag}' function named '{}'",
                        dp.function_name
                    ),
                    None,
                ))
            }
            Func::NoModule => Err(no_method(
                "load_typed",
                &Value::Undef,
                "    te = loader.load_typed(typed_name)",
            )),
            Func::Custom => {
                self.report_text(|| {
                    format!(
                        "hieralint cannot call the custom {} function '{}': no data",
                        dp.kind.key(),
                        dp.function_name
                    )
                });
                Ok(false)
            }
            _ => Ok(true),
        }
    }

    fn function_lookup(
        &self,
        dp: &Rc<EntryProvider>,
        li: Option<usize>,
        key: &LookupKey,
    ) -> R<Option<Value>> {
        let root = key.root.as_str();
        let found = match dp.kind {
            FunctionKind::DataHash | FunctionKind::V4DataHash => self.data_value(dp, li, key)?,
            FunctionKind::LookupKey => self.lookup_key_value(dp, li, root)?,
            // No built-in data_dig or hiera3 backend exists: these are custom functions,
            // which give no data (and an explain note).
            FunctionKind::DataDig | FunctionKind::Hiera3Backend => {
                self.function_ready(dp)?;
                None
            }
        };
        if let Some(v) = &found {
            self.report_found(root, v);
        }
        Ok(found)
    }

    fn location_of<'b>(
        &self,
        dp: &'b EntryProvider,
        li: Option<usize>,
    ) -> Option<&'b LevelLocation> {
        li.and_then(|i| dp.locations().map(|l| &l[i]))
    }

    /// `DataHashFunctionProvider#data_value`.
    fn data_value(
        &self,
        dp: &Rc<EntryProvider>,
        li: Option<usize>,
        key: &LookupKey,
    ) -> R<Option<Value>> {
        let root = key.root.as_str();
        let Some((hash, file)) = self.data_hash(dp, li)? else {
            return Ok(None);
        };
        let Value::Hash(h) = &hash else {
            return Ok(None);
        };
        let Some(value) = h.get(&key.root_v) else {
            self.report_not_found(root);
            return Ok(None);
        };
        self.record_provenance(file.as_deref(), &key.root_v);
        // Values without `%{` that are valid data (decided once per file) go out as they are.
        if file
            .as_ref()
            .is_some_and(|f| f.plain_keys().contains(&key.root_v))
        {
            return Ok(Some(value.clone()));
        }
        let loc = self.location_of(dp, li);
        self.validate_data_value(value, || {
            let msg = format!(
                "Value for key '{root}', in hash returned from {}",
                dp.full_name()
            );
            match loc {
                None => msg,
                Some(l) => format!("{msg}, when using location '{}',", l.location),
            }
        })?;
        Ok(Some(self.interpolate(value, true)?))
    }

    /// Records where a value of the requested key was found (not values found by the
    /// lookup_options assembly or by lookups made while interpolating).
    fn record_provenance(&self, file: Option<&data::DataFile>, root: &Value) {
        if self.invs.borrow().len() != 1 {
            return;
        }
        let Some(f) = file else {
            return;
        };
        if let Some((k, v)) = f.entries().get(root) {
            self.provenance.borrow_mut().push(Provenance {
                file: f.source.clone(),
                key_span: *k,
                value_span: *v,
            });
        }
    }

    fn validate_data_value(&self, value: &Value, subject: impl FnOnce() -> String) -> R<()> {
        if types::is_rich_data_value(value) {
            return Ok(());
        }
        Err(LookupError::type_assertion(format!(
            "{} has wrong type, expects Puppet::LookupValue, got {}",
            subject(),
            types::infer_string(value)
        )))
    }

    /// `DataHashFunctionProvider#data_hash`: the function's hash for a location, validated
    /// (and filtered for module layers), cached per session.
    #[allow(clippy::type_complexity)]
    fn data_hash(
        &self,
        dp: &Rc<EntryProvider>,
        li: Option<usize>,
    ) -> R<Option<(Value, Option<Arc<data::DataFile>>)>> {
        let slot = li.unwrap_or(usize::MAX);
        if let Some(h) = dp.data_hashes.borrow().get(&slot) {
            return Ok(Some(h.clone()));
        }
        if !self.function_ready(dp)? {
            return Ok(None);
        }
        let loc = self.location_of(dp, li);
        let (raw, file) = self.call_data_hash(dp, loc)?;
        let subject = || {
            let msg = format!("Value returned from {}", dp.full_name());
            match loc {
                None => msg,
                Some(l) => format!("{msg}, when using location '{}',", l.location),
            }
        };
        if let Some(m) = types::check_hash(&subject(), &raw) {
            return Err(LookupError::type_assertion(m));
        }
        let hash = match &dp.module {
            Some(m) => self.filter_module_keys(m, &raw, &subject())?,
            None => raw,
        };
        dp.data_hashes
            .borrow_mut()
            .insert(slot, (hash.clone(), file.clone()));
        Ok(Some((hash, file)))
    }

    /// `ModuleDataProvider#validate_data_hash` (§2.4).
    fn filter_module_keys(&self, module: &str, hash: &Value, subject: &str) -> R<Value> {
        let Value::Hash(h) = hash else {
            return Ok(hash.clone());
        };
        let prefix = format!("{module}::");
        let mut removed = Vec::new();
        for k in h.keys() {
            let Value::String(s) = k else {
                return Err(no_method(
                    "start_with?",
                    k,
                    "      next memo if k == LOOKUP_OPTIONS || k.start_with?(module_prefix)",
                ));
            };
            if &**s == LOOKUP_OPTIONS || s.starts_with(&prefix) {
                continue;
            }
            let msg = format!("{subject} must use keys qualified with the name of the module");
            match self.eng.opts.puppet {
                // 7.x: the warning has no key and, by a bug, the key is kept.
                PuppetVersion::V7 => self.warn(format!("Module '{module}': {msg}")),
                PuppetVersion::V8 => {
                    self.warn(format!("Module '{module}': {msg}; got {s}"));
                    removed.push(k.clone());
                }
            }
        }
        if removed.is_empty() {
            return Ok(hash.clone());
        }
        let mut h2 = (**h).clone();
        for k in removed {
            h2.shift_remove(&k);
        }
        Ok(Value::hash(h2))
    }

    /// Logs what reading the YAML file at `path` logged (a document that is not a Hash), the
    /// first time this compile reads it: Puppet's `yaml_data` and hiera-eyaml read through
    /// `cached_file_data`, which keeps each file's result by path for the environment, so a
    /// second level or layer naming the same file (an environment glob that reaches a
    /// module's data, then that module's own layer) logs nothing. Recorded with Puppet's own
    /// batch oracle, one compile: tests/engine_shared.rs,
    /// a_module_file_read_by_an_environment_glob_warns_once_per_compile. A read that
    /// fails is not kept (Puppet raises out of the cached block): its next read fails again.
    /// Only files that warned are remembered: a Hash logs nothing however often it is read.
    fn first_read_warnings(&self, path: &Path, ok: bool, warnings: Vec<String>) {
        if warnings.is_empty()
            || (ok && !self.st.files_warned.borrow_mut().insert(path.to_path_buf()))
        {
            return;
        }
        for m in warnings {
            self.warn(m);
        }
    }

    fn builtin_options_ok(&self, dp: &EntryProvider, loc: Option<&LevelLocation>) -> R<PathBuf> {
        let opts = dp.options_for(loc);
        let path = match (loc, opts.len()) {
            (Some(l), 1) if !l.is_uri => Some(l.path().to_path_buf()),
            _ => None,
        };
        path.ok_or_else(|| {
            LookupError::argument(format!(
                "'{}' one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this data_hash function",
                dp.function_name
            ))
        })
    }

    fn call_data_hash(
        &self,
        dp: &EntryProvider,
        loc: Option<&LevelLocation>,
    ) -> R<(Value, Option<Arc<data::DataFile>>)> {
        let format = match dp.func {
            Func::YamlData => Format::Yaml,
            Func::JsonData => Format::Json,
            Func::HoconData => Format::Hocon,
            _ => return Ok((Value::hash(Hash::default()), None)),
        };
        let path = self.builtin_options_ok(dp, loc)?;
        let Some(file) = self.eng.files.load(&*self.eng.vfs, &path, format) else {
            return Err(self.read_failure(&path));
        };
        let v = match format {
            Format::Yaml => {
                let mut w = Vec::new();
                let r = data::yaml_hash(&file, &path, self.strict() == Strict::Error, &mut w);
                self.first_read_warnings(&path, r.is_ok(), w);
                r?
            }
            _ => {
                if let Some(e) = file.unable_to_parse(&path) {
                    return Err(e);
                }
                file.loaded().clone().unwrap_or(Value::Undef)
            }
        };
        Ok((v, Some(file)))
    }

    /// `LookupKeyFunctionProvider#lookup_key`.
    fn lookup_key_value(
        &self,
        dp: &Rc<EntryProvider>,
        li: Option<usize>,
        key: &str,
    ) -> R<Option<Value>> {
        if !self.function_ready(dp)? {
            return Ok(None);
        }
        let slot = li.unwrap_or(usize::MAX);
        let loc = self.location_of(dp, li);
        if let Some((v, deps)) = dp.key_cache.borrow().get(&(slot, key.to_string())) {
            self.replay_deps(deps);
            // Where the value is, as when it was first read (an earlier lookup that dug into
            // the key or interpolated it left it here): found by the shared_sessions fuzz
            // target; tests/engine_shared.rs, eyaml_values_from_the_key_cache_keep_their_provenance.
            if let Some(f) = loc
                .filter(|l| !l.is_uri)
                .and_then(|l| self.eng.files.load(&*self.eng.vfs, l.path(), Format::Yaml))
            {
                self.record_provenance(Some(&f), &Value::string(key));
            }
            return Ok(Some(v.clone()));
        }
        let ((v, deps), logged) = self.capturing_warnings(|| {
            self.tracking_deps(|| match dp.func {
                Func::Eyaml => self.eyaml_lookup_key(dp, slot, loc, key),
                _ => Ok(None),
            })
        });
        // hiera-eyaml caches the value it decrypted and interpolated (`context.cache`), so
        // what interpolating it logged (an undefined variable under Puppet 7) is logged once
        // per compile: the session's later lookups of the key depend on its history
        // (`State::key_cache_warned`; found by the shared_sessions fuzz target, tests/
        // engine_shared.rs, eyaml_warnings_logged_once_keep_the_session_home).
        if !logged.is_empty() && v.as_ref().is_ok_and(Option::is_some) {
            self.st.key_cache_warned.set(true);
        }
        for w in logged {
            self.warn(w);
        }
        let v = v?;
        let Some(v) = v else {
            self.report_not_found(key);
            return Ok(None);
        };
        self.validate_data_value(&v, || {
            let msg = format!("Value for key '{key}', returned from {}", dp.full_name());
            match loc {
                None => msg,
                Some(l) => format!("{msg}, when using location '{}',", l.location),
            }
        })?;
        dp.key_cache
            .borrow_mut()
            .insert((slot, key.to_string()), (v.clone(), deps));
        Ok(Some(v))
    }

    /// `eyaml_lookup_key` (hiera-eyaml 3.3): the YAML file's value for the key, every string
    /// decrypted (when encrypted) and interpolated, hash keys interpolated.
    fn eyaml_lookup_key(
        &self,
        dp: &EntryProvider,
        slot: usize,
        loc: Option<&LevelLocation>,
        key: &str,
    ) -> R<Option<Value>> {
        let opts = dp.options_for(loc);
        let path = match (loc, opts.get(&Value::string("path"))) {
            (Some(l), Some(_)) if !l.is_uri => l.path().to_path_buf(),
            _ => {
                return Err(LookupError::argument(
                    "'eyaml_lookup_key': one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this lookup_key function",
                ))
            }
        };
        let cached = dp.raw_cache.borrow().get(&slot).cloned();
        let raw = match cached {
            Some(r) => r,
            None => {
                let Some(file) = self.eng.files.load(&*self.eng.vfs, &path, Format::Yaml) else {
                    return Err(self.read_failure(&path));
                };
                let mut w = Vec::new();
                let r = data::yaml_hash(&file, &path, self.strict() == Strict::Error, &mut w);
                self.first_read_warnings(&path, r.is_ok(), w);
                let r = r?;
                dp.raw_cache.borrow_mut().insert(slot, r.clone());
                r
            }
        };
        let Some(v) = raw
            .as_hash()
            .and_then(|h| h.get(&Value::string(key)))
            .cloned()
        else {
            return Ok(None);
        };
        if let Some(f) = self.eng.files.load(&*self.eng.vfs, &path, Format::Yaml) {
            self.record_provenance(Some(&f), &Value::string(key));
        }
        self.eyaml_decrypt_value(&v, &opts, key, &path, 0).map(Some)
    }

    fn eyaml_decrypt_value(
        &self,
        v: &Value,
        opts: &Hash,
        key: &str,
        path: &std::path::Path,
        depth: usize,
    ) -> R<Value> {
        if depth > 512 {
            return Err(LookupError::new(
                ErrorKind::Unsupported,
                "value nesting too deep",
            ));
        }
        match v {
            Value::String(s) => {
                let data: Value = if is_encrypted(s) {
                    super::eyaml::decrypt(s, opts, key, path)?
                } else {
                    v.clone()
                };
                self.interpolate(&data, true)
            }
            Value::Hash(h) => {
                let mut out = Hash::with_capacity_and_hasher(h.len(), Default::default());
                for (k, x) in h.iter() {
                    let k = self.interpolate(k, true)?;
                    out.insert(k, self.eyaml_decrypt_value(x, opts, key, path, depth + 1)?);
                }
                Ok(Value::hash(out))
            }
            Value::Array(a) => Ok(Value::array(
                a.iter()
                    .map(|x| self.eyaml_decrypt_value(x, opts, key, path, depth + 1))
                    .collect::<R<Vec<_>>>()?,
            )),
            other => Ok(other.clone()),
        }
    }

    // -----------------------------------------------------------------------------------------
    // lookup_options

    pub(crate) fn lookup_lookup_options(&self, key: &LookupKey) -> R<Option<Value>> {
        let module = key.module_name.clone();
        let cached = self.st.lookup_options.borrow().get(&module).cloned();
        let opts = match cached {
            Some(o) => o,
            None => {
                // Remembered whether it succeeds or not: a failed assembly leaves the global
                // and environment parts cached (Puppet does not retry them).
                let ((o, (reads, keys)), warnings) = self.capturing_warnings(|| {
                    self.tracking_deps(|| self.retrieve_lookup_options(module.as_deref()))
                });
                self.st.lopts_reads.borrow_mut().extend(reads);
                self.st.lopts_keys.borrow_mut().extend(keys);
                // A failed assembly of a module's entry (`State::settled`; what its module part
                // logs is noted where it is looked up, `retrieve_lookup_options`).
                if module.is_some() && o.is_err() {
                    self.st.module_lopts_warned.set(true);
                }
                if self.note_assembly(&warnings, o.is_err()) {
                    self.st.lopts_warned.borrow_mut().insert(module.clone());
                }
                let o = o?;
                self.st
                    .lookup_options
                    .borrow_mut()
                    .insert(module, o.clone());
                o
            }
        };
        Ok(extract_for_key(&key.root, opts.as_deref()))
    }

    fn retrieve_lookup_options(&self, module: Option<&str>) -> R<Option<Arc<CompiledOpts>>> {
        let hash = MergeStrategy::of(StrategyKind::Hash);
        let inv_module = self.inv_module();
        self.with_invocation(LOOKUP_OPTIONS, inv_module.clone(), || {
            self.with(
                || NodeKind::Top {
                    key: LOOKUP_OPTIONS.into(),
                    meta: true,
                },
                || {
                    let mut opts = self.env_lookup_options(&hash)?;
                    if let Some(m) = module {
                        if !self.st.lookup_options.borrow().contains_key(&None) {
                            let c = compile_patterns(opts.as_ref())?;
                            self.st.lookup_options.borrow_mut().insert(None, c);
                        }
                        let lo = LookupKey::lookup_options();
                        // What the module's part logs, told apart from the global and
                        // environment part's by where it is logged (`State::settled`;
                        // tests/engine_shared.rs, sessions_share_once_their_first_lookup_has_warned).
                        let (found, logged) =
                            self.capturing_warnings(|| self.lookup_in_module(&lo, &hash));
                        if found.is_err() || !logged.is_empty() {
                            self.st.module_lopts_warned.set(true);
                        }
                        for w in logged {
                            self.warn(w);
                        }
                        if let Some(found) = found? {
                            let module_opts = validate_lookup_options(Some(found), Some(m))?;
                            opts = match (opts, module_opts) {
                                (None, mo) => mo,
                                (Some(o), Some(mo)) => {
                                    let names = [
                                        "Global and Environment".to_string(),
                                        format!(
                                            "Module {}",
                                            inv_module.clone().unwrap_or_default()
                                        ),
                                    ];
                                    self.merge_lookup(&hash, &names, |n| {
                                        let v = if n == "Global and Environment" {
                                            o.clone()
                                        } else {
                                            mo.clone()
                                        };
                                        self.with(
                                            || NodeKind::Scope { name: n.clone() },
                                            || {
                                                self.report_found(LOOKUP_OPTIONS, &v);
                                                Ok(Some(v.clone()))
                                            },
                                        )
                                    })?
                                }
                                // `opts = if opts.nil? ... elsif module_opts ... end` gives nil.
                                (Some(_), None) => None,
                            };
                        }
                    }
                    compile_patterns(opts.as_ref())
                },
            )
        })
    }

    fn global_lookup_options(&self, hash: &MergeStrategy) -> R<Option<Value>> {
        if let Some(g) = self.st.global_lookup_options.borrow().as_ref() {
            return Ok(g.clone());
        }
        // Puppet defines the variable (as nil) before looking, so a failure is not retried.
        *self.st.global_lookup_options.borrow_mut() = Some(None);
        let lo = LookupKey::lookup_options();
        let found = self.lookup_global(&lo, hash)?;
        let v = validate_lookup_options(found, None)?;
        *self.st.global_lookup_options.borrow_mut() = Some(v.clone());
        Ok(v)
    }

    fn env_lookup_options(&self, hash: &MergeStrategy) -> R<Option<Value>> {
        if let Some(e) = self.st.env_lookup_options.borrow().as_ref() {
            return Ok(e.clone());
        }
        let (merged, warnings) = self.capturing_warnings(|| -> R<Option<Value>> {
            let global = self.global_lookup_options(hash)?;
            let lo = LookupKey::lookup_options();
            let env_only = validate_lookup_options(self.lookup_in_environment(&lo, hash)?, None)?;
            Ok(match (global, env_only) {
                (None, e) => e,
                (g, None) => g,
                (Some(g), Some(e)) => Some(hash.merge(&g, &e)?),
            })
        });
        // Every module's entry includes this part: its warnings keep all of them home.
        if self.note_assembly(&warnings, merged.is_err()) {
            self.st.lopts_eventful.set(true);
        }
        let merged = merged?;
        *self.st.env_lookup_options.borrow_mut() = Some(merged.clone());
        Ok(merged)
    }

    fn lookup_default_in_module(&self, key: &LookupKey) -> R<Option<Value>> {
        let Some(module) = self.inv_module() else {
            return Ok(None);
        };
        let Some(p) = self.module_provider(&module)? else {
            return Ok(None);
        };
        let cfg = self.layer_config(&p)?;
        if cfg.default_entries.is_none() {
            return Ok(None);
        }
        self.with(
            || NodeKind::Scope {
                name: format!("Searching default_hierarchy of module \"{module}\""),
            },
            || {
                let cached = self
                    .st
                    .module_default_lookup_options
                    .borrow()
                    .get(&module)
                    .cloned();
                let options = match cached {
                    Some(o) => o,
                    None => {
                        let ((o, (reads, keys)), warnings) = self.capturing_warnings(|| {
                            self.tracking_deps(|| {
                                self.with_invocation(LOOKUP_OPTIONS, Some(module.clone()), || {
                                    self.with(
                                        || NodeKind::Scope {
                                            name: "Searching for \"lookup_options\"".into(),
                                        },
                                        || -> R<Option<Arc<CompiledOpts>>> {
                                            let lo = LookupKey::lookup_options();
                                            let hash = Value::string("hash");
                                            match self.key_lookup_in_default(
                                                &p,
                                                &cfg,
                                                &lo,
                                                Some(&hash),
                                            )? {
                                                None => Ok(None),
                                                Some(v) => compile_patterns(
                                                    validate_lookup_options(
                                                        Some(v),
                                                        Some(&module),
                                                    )?
                                                    .as_ref(),
                                                ),
                                            }
                                        },
                                    )
                                })
                            })
                        });
                        self.st.lopts_reads.borrow_mut().extend(reads);
                        self.st.lopts_keys.borrow_mut().extend(keys);
                        if self.note_assembly(&warnings, o.is_err()) {
                            self.st
                                .lopts_defaults_warned
                                .borrow_mut()
                                .insert(module.clone());
                        }
                        let o = o?;
                        self.st
                            .module_default_lookup_options
                            .borrow_mut()
                            .insert(module.clone(), o.clone());
                        o
                    }
                };
                let lopts = extract_for_key(&key.root, options.as_deref());
                let merge = option_entry_get(lopts.as_ref(), "merge")?;
                self.with(
                    || NodeKind::Scope {
                        name: format!("Searching for \"{}\"", key.key),
                    },
                    || self.key_lookup_in_default(&p, &cfg, key, merge.as_ref()),
                )
            },
        )
    }

    fn key_lookup_in_default(
        &self,
        p: &LayerProvider,
        cfg: &Arc<LayerConfig>,
        key: &LookupKey,
        merge: Option<&Value>,
    ) -> R<Option<Value>> {
        let (_, dps) = self.data_providers(p, cfg)?;
        if dps.is_empty() {
            self.report_not_found(&key.key);
            return Ok(None);
        }
        let ms = MergeStrategy::parse(merge.unwrap_or(&Value::Undef))?;
        self.check(&key.key, || {
            self.with(
                || self.provider_node(p, Some(cfg)),
                || self.merge_lookup(&ms, &dps, |dp| self.entry_lookup(dp, key, &ms)),
            )
        })
    }

    // -----------------------------------------------------------------------------------------
    // Interpolation

    /// `Interpolation#interpolate`.
    ///
    /// Every nested lookup through interpolation, and every level of a nested value, passes
    /// through here: the stack is grown on the heap when less than [`STACK_RED_ZONE`] is left,
    /// so a chain of `max_lookup_depth` lookups (about 23 KiB of stack each in a debug build)
    /// cannot overflow a 2 MiB rayon worker (tests/hostile.rs `lookup_chain_length`).
    pub fn interpolate(&self, value: &Value, allow_methods: bool) -> R<Value> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.interpolate_here(value, allow_methods)
        })
    }

    fn interpolate_here(&self, value: &Value, allow_methods: bool) -> R<Value> {
        match value {
            Value::String(s) => {
                if !crate::interp::has_interpolation(s) {
                    Ok(value.clone())
                } else {
                    self.interpolate_string(s, allow_methods)
                }
            }
            Value::Array(a) => {
                if !needs_interpolation(value) {
                    return Ok(value.clone());
                }
                Ok(Value::array(
                    a.iter()
                        .map(|v| self.interpolate(v, allow_methods))
                        .collect::<R<Vec<_>>>()?,
                ))
            }
            Value::Hash(h) => {
                if !needs_interpolation(value) {
                    return Ok(value.clone());
                }
                let mut out = Hash::with_capacity_and_hasher(h.len(), Default::default());
                for (k, v) in h.iter() {
                    let k = self.interpolate(k, allow_methods)?;
                    let v = self.interpolate(v, allow_methods)?;
                    out.insert(k, v);
                }
                Ok(Value::hash(out))
            }
            other => Ok(other.clone()),
        }
    }

    fn issue(&self, msg: impl Into<String>) -> LookupError {
        let mut e = LookupError::lookup(msg);
        e.issue_code = true;
        e
    }

    /// Why a data file a level names gave nothing: the read budget was spent (a limit error),
    /// or what Ruby's read raises.
    fn read_failure(&self, path: &std::path::Path) -> LookupError {
        if self.eng.vfs.refused(path) {
            return self.limit_error(format!(
                "`{}` was not read: the files the engine read from disk reached {} bytes \
                 (limit `max_read_bytes`)",
                path.display(),
                self.eng.limits.max_read_bytes
            ));
        }
        data::read_failure(path, self.eng.vfs.is_dir(path))
    }

    /// A hieralint limit was hit: the lookup stops with an error that names it (never a silent
    /// truncation; docs/limits.md).
    fn limit_error(&self, what: String) -> LookupError {
        let mut e = LookupError::new(
            ErrorKind::Unsupported,
            format!("{what}; hieralint stops this lookup (docs/limits.md)"),
        );
        e.limit = Some(what);
        e
    }

    /// Counts one lookup or variable read made through interpolation.
    fn count_sub_lookup(&self) -> R<()> {
        let n = self.sub_lookups.get() + 1;
        self.sub_lookups.set(n);
        let max = self.eng.limits.max_sub_lookups;
        if n > max {
            return Err(self.limit_error(format!(
                "interpolation made more than {max} lookups (limit `max_sub_lookups`)"
            )));
        }
        Ok(())
    }

    fn interpolate_string(&self, subject: &str, allow_methods: bool) -> R<Value> {
        self.nested_interpolation(subject, || {
            let toks = interp::tokens(subject);
            self.interpolate_tokens(subject, &toks, &[], allow_methods)
        })
    }

    /// One interpolation of `subject` (`f` does it), counted against the nesting bound and
    /// shown as an explain node.
    fn nested_interpolation<T>(&self, subject: &str, f: impl FnOnce() -> R<T>) -> R<T> {
        {
            let mut n = self.nesting.borrow_mut();
            *n += 1;
            let max = self.eng.limits.max_lookup_depth;
            if *n > max {
                *n -= 1;
                return Err(self.limit_error(format!(
                    "interpolation nesting exceeds {max} levels (limit `max_lookup_depth`)"
                )));
            }
        }
        let r = self.with(
            || NodeKind::Interpolate {
                expression: subject.to_string(),
            },
            f,
        );
        *self.nesting.borrow_mut() -= 1;
        r
    }

    /// Interpolates `subject`, whose tokens are `toks`; `vars` may hold, per token, the split
    /// key of a variable ([`Template`]), else the key is split here.
    fn interpolate_tokens(
        &self,
        subject: &str,
        toks: &[interp::Token],
        vars: &[Option<PreVar>],
        allow_methods: bool,
    ) -> R<Value> {
        Ok(
            match self.interpolate_tokens_text(subject, toks, vars, allow_methods)? {
                Interpolated::Text(s) => Value::string(s),
                Interpolated::Whole(v) => v,
            },
        )
    }

    /// [`Cx::interpolate_tokens`], the built text left a `String`.
    fn interpolate_tokens_text(
        &self,
        subject: &str,
        toks: &[interp::Token],
        vars: &[Option<PreVar>],
        allow_methods: bool,
    ) -> R<Interpolated> {
        // Room for what the tokens give too (a certname or a fact in a path: a few dozen
        // bytes): growing past the subject's length reallocated most interpolated paths.
        let mut out = String::with_capacity(subject.len() + 32);
        let mut last = 0;
        for (i, t) in toks.iter().enumerate() {
            out.push_str(&subject[last..t.range.start]);
            last = t.range.end;
            let value: Option<Value> = match &t.kind {
                TokenKind::Empty => None,
                TokenKind::Method { .. } | TokenKind::UnknownMethod { .. } => {
                    if !allow_methods {
                        return Err(self.issue(
                            "Interpolation using method syntax is not allowed in this context",
                        ));
                    }
                    let (method, arg) = match &t.kind {
                        TokenKind::Method { method, arg, .. } => (Some(*method), arg.as_str()),
                        TokenKind::UnknownMethod { arg, .. } => (None, arg.as_str()),
                        _ => (None, ""),
                    };
                    let is_alias = method == Some(Method::Alias);
                    if is_alias && subject != &subject[t.range.clone()] {
                        return Err(self.issue(
                            "'alias' interpolation is only permitted if the expression is equal to the entire string",
                        ));
                    }
                    let Some(method) = method else {
                        let name = match &t.kind {
                            TokenKind::UnknownMethod { name, .. } => name.clone(),
                            _ => String::new(),
                        };
                        return Err(self.issue(format!("Unknown interpolation method '{name}'")));
                    };
                    self.count_sub_lookup()?;
                    let v = match method {
                        Method::Lookup | Method::Hiera | Method::Alias => {
                            Some(self.interpolation_lookup(arg)?)
                        }
                        Method::Scope => self.scope_lookup(arg, subject)?,
                        Method::Literal => Some(Value::string(arg)),
                    };
                    if is_alias {
                        return Ok(Interpolated::Whole(v.unwrap_or(Value::Undef)));
                    }
                    let name = if method == Method::Scope {
                        format!("scope:{arg}")
                    } else {
                        arg.to_string()
                    };
                    self.check(&Arc::from(name), || match &v {
                        None => Ok(None),
                        Some(v) => Ok(Some(self.interpolate(v, allow_methods)?)),
                    })?
                }
                TokenKind::Variable => {
                    self.count_sub_lookup()?;
                    let (v, guard) = match vars.get(i).and_then(Option::as_ref) {
                        Some(pre) => {
                            if let Some(v) = self.track_scope_read(&t.expr, Some(&pre.key)) {
                                // A string with nothing to interpolate: what the lookup and
                                // `interpolate` below would give (the recursion check kept).
                                self.check(&pre.guard, || Ok(()))?;
                                out.push_str(&v);
                                self.check_interpolated_len(out.len())?;
                                continue;
                            }
                            let v = self.scope_lookup_segments(&t.expr, &pre.segments, subject)?;
                            (v, pre.guard.clone())
                        }
                        None => (
                            self.scope_lookup(&t.expr, subject)?,
                            Arc::from(format!("scope:{}", t.expr)),
                        ),
                    };
                    self.check(&guard, || match &v {
                        None => Ok(None),
                        Some(v) => Ok(Some(self.interpolate(v, allow_methods)?)),
                    })?
                }
            };
            match value {
                // `to_s` of a String is itself: appended without a copy of its own.
                Some(Value::String(s) | Value::Symbol(s)) => out.push_str(&s),
                Some(v) => out.push_str(&v.to_ruby_s()),
                None => {}
            }
            self.check_interpolated_len(out.len())?;
        }
        out.push_str(&subject[last..]);
        self.check_interpolated_len(out.len())?;
        Ok(Interpolated::Text(out))
    }

    /// Bounds the string one interpolation builds ([`Limits::max_interpolated_bytes`]).
    ///
    /// [`Limits::max_interpolated_bytes`]: crate::limits::Limits::max_interpolated_bytes
    fn check_interpolated_len(&self, len: usize) -> R<()> {
        let max = self.eng.limits.max_interpolated_bytes;
        if len > max {
            return Err(self.limit_error(format!(
                "interpolation produced a string longer than {max} bytes (limit \
                 `max_interpolated_bytes`)"
            )));
        }
        Ok(())
    }

    /// `%{lookup('k')}`/`hiera`/`alias`: a full lookup, default `''`.
    fn interpolation_lookup(&self, key: &str) -> R<Value> {
        // `sub_invocation.lookup(key)` parses the key before the lookup does.
        let lk = LookupKey::parse(key)?;
        let r = self.with_invocation(key, lk.module_name.clone(), || {
            self.adapter_lookup(key, None)
        })?;
        Ok(r.unwrap_or_else(|| Value::string("")))
    }

    /// The `scope` interpolation method (`%{var}`, `%{scope('var')}`, mapped_paths).
    fn scope_lookup(&self, key: &str, subject: &str) -> R<Option<Value>> {
        self.track_scope_read(key, None);
        let segments = split_key(key)
            .map_err(|_| LookupError::lookup(format!("Syntax error in string: {subject}")))?;
        self.scope_lookup_segments(key, &segments, subject)
    }

    /// Records the read of scope variable `key` (`arc`: the key as an `Arc`, when made), and
    /// gives the string the read settles when that is the whole answer: the value is a string
    /// with no `%{` of its own and no explanation is being written. The scope lookup
    /// (`scope_lookup_segments`) and its `interpolate` would give that string again: the probe
    /// digs as they do (the level cache keys resolutions by these answers), and a string
    /// without `%{` interpolates to itself. At 15k files without facts each data-implied node
    /// interpolates three certname locations; this spares each about a thousand instructions.
    fn track_scope_read(&self, key: &str, arc: Option<&Arc<str>>) -> Option<Arc<str>> {
        if !self.track_reads.get() || self.local.borrow().is_some() {
            return None;
        }
        // Through the memo: the same answer as `probe(self.scope, key)` (the scope is this
        // context's, and no local variable is set).
        let (memo_key, p) = self.probed.borrow_mut().probe_arc(self.scope, key);
        let settled = match &p {
            Probe::Value(Some(Value::String(s)))
                if !crate::interp::has_interpolation(s) && !self.explaining() =>
            {
                Some(s.clone())
            }
            _ => None,
        };
        self.reads
            .borrow_mut()
            .push((arc.cloned().unwrap_or(memo_key), p));
        settled
    }

    /// [`Cx::scope_lookup`] after the read is recorded, with `key` split into `segments`.
    fn scope_lookup_segments(
        &self,
        key: &str,
        segments: &[Segment],
        subject: &str,
    ) -> R<Option<Value>> {
        // `split_key` gives at least one segment or an error.
        let Some((root, segments)) = segments.split_first() else {
            return Err(LookupError::lookup(format!(
                "Syntax error in string: {subject}"
            )));
        };
        let value = self.with(
            || NodeKind::Scope {
                name: "Global Scope".into(),
            },
            || -> R<Option<Value>> {
                let name = match root {
                    Segment::Str(s) => s.clone(),
                    Segment::Int(i) => {
                        return Err(LookupError::new(
                            ErrorKind::PuppetError,
                            format!("Scope variable name {i} is a Integer, not a string"),
                        ))
                    }
                };
                let v = self.scope_var(&name)?;
                if let Some(v) = &v {
                    self.report_found(&name, v);
                }
                Ok(v)
            },
        )?;
        match value {
            Some(v) if !v.is_undef() && !segments.is_empty() => self.sub_lookup(key, segments, v),
            Some(Value::Undef) => Ok(None),
            other => Ok(other),
        }
    }

    /// `scope[name]` with Puppet's undefined-variable handling (§5.6). `Some(Undef)` for a
    /// variable that exists with no value.
    fn scope_var(&self, name: &str) -> R<Option<Value>> {
        // The local variable (a mapped_paths element) is not found by a qualified name. Tested
        // in that order: `str::contains` sets up a substring searcher for each call, which
        // was 9M instructions at 15k files for locations that have no local variable.
        if let Some((k, v)) = self.local.borrow().as_ref() {
            if k == name && !name.contains("::") {
                return Ok(Some(v.clone()));
            }
        }
        match self.scope.lookup(name) {
            VarLookup::Found(v) => Ok(Some(v)),
            VarLookup::BuiltIn => {
                if name.bytes().all(|b| b.is_ascii_digit()) {
                    Ok(None)
                } else {
                    Ok(Some(Value::Undef))
                }
            }
            VarLookup::Undefined { name, reason } => {
                // Written only when said: with strict off (data-implied nodes, where most
                // variables are undefined) formatting it was a third of a variable's lookup.
                let msg = || undefined_variable_message(&name, &reason);
                match self.strict() {
                    Strict::Off => Ok(None),
                    Strict::Warning => {
                        self.warn(msg());
                        Ok(None)
                    }
                    Strict::Error => {
                        if *self.in_location.borrow() && self.eng.opts.puppet == PuppetVersion::V8 {
                            // 8.x: avoid_hiera_interpolation_errors (PUP-11751).
                            self.warn(format!(
                                "Interpolation failed with '{name}', but compilation continuing; {reason}"
                            ));
                            return Ok(None);
                        }
                        Err(LookupError::argument(msg()))
                    }
                }
            }
        }
    }
}

/// What `Scope#variable_not_found` says of an undefined variable: the warning Puppet 7 logs
/// (through `warn_once`) and the ArgumentError strict mode raises.
fn undefined_variable_message(name: &str, reason: &str) -> String {
    format!("Undefined variable '{name}'; {reason}")
}

/// The variable an [`undefined_variable_message`] names (`None` for any other text).
pub(crate) fn undefined_variable_named(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Undefined variable '")?;
    rest.find("'; ").map(|end| &rest[..end])
}

/// An empty configuration (the global layer with no hiera.yaml anywhere).
fn empty_config() -> LayerConfig {
    LayerConfig {
        version: 5,
        config_path: None,
        root: PathBuf::new(),
        file: None,
        entries: Vec::new(),
        default_entries: None,
        v3_merge_behavior: None,
    }
}

fn needs_interpolation(v: &Value) -> bool {
    match v {
        Value::String(s) => crate::interp::has_interpolation(s),
        Value::Array(a) => a.iter().any(needs_interpolation),
        Value::Hash(h) => h
            .iter()
            .any(|(k, v)| needs_interpolation(k) || needs_interpolation(v)),
        _ => false,
    }
}

/// Ruby's `URI()` (RFC 3986 parser): rejects characters outside the URI grammar.
fn uri_ok(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c))
}

/// `lookup_options[name]` on a key's options entry, with Ruby's `[]` on whatever it is:
/// a Hash gives the entry, a String a substring match (`'unmerged'['merge']` is `merge`),
/// an Array or Integer a TypeError, other scalars a NoMethodError (recorded: lopts/entry-shapes).
pub(crate) fn option_entry_get(entry: Option<&Value>, name: &str) -> R<Option<Value>> {
    match entry {
        None => Ok(None),
        Some(Value::Hash(h)) => Ok(h
            .get(&Value::string(name))
            .filter(|v| !v.is_undef())
            .cloned()),
        Some(Value::String(s)) => Ok(s.contains(name).then(|| Value::string(name))),
        Some(Value::Array(_)) | Some(Value::Integer(_)) => Err(LookupError::new(
            ErrorKind::Type,
            "no implicit conversion of String into Integer",
        )),
        Some(Value::Symbol(s)) => Ok(s.contains(name).then(|| Value::string(name))),
        Some(Value::Undef) => Ok(None),
        Some(other) => Err(no_method(
            "[]",
            other,
            "          merge = lookup_options[MERGE]",
        )),
    }
}

/// `validate_lookup_options` (§2.5).
fn validate_lookup_options(options: Option<Value>, module: Option<&str>) -> R<Option<Value>> {
    let Some(options) = options else {
        return Ok(None);
    };
    if options.is_undef() {
        return Ok(None);
    }
    let Value::Hash(h) = &options else {
        return Err(LookupError::lookup(
            "value of lookup_options must be a hash",
        ));
    };
    let Some(m) = module else {
        return Ok(Some(options.clone()));
    };
    for k in h.keys() {
        let Value::String(k) = k else {
            return Err(no_method(
                "start_with?",
                k,
                "      if key.start_with?(LOOKUP_OPTIONS_PATTERN_START)",
            ));
        };
        if let Some(e) = module_lookup_options_key_error(m, k) {
            return Err(e);
        }
    }
    Ok(Some(options.clone()))
}

/// The error `validate_lookup_options` raises for one key of module `m`'s lookup_options, if
/// any (§2.5): a literal key must start with `m::`; a pattern (`^...`) must have `m::` as the
/// very text after its `^` (`key[1..pfx.length] == pfx`), so `^(m)::x` and `^m\:\:x` fail.
pub(crate) fn module_lookup_options_key_error(m: &str, k: &str) -> Option<LookupError> {
    let pfx = format!("{m}::");
    if k.starts_with('^') {
        // key[1..pfx.length] == pfx
        let ok = k.get(1..).is_some_and(|rest| {
            let taken: String = rest.chars().take(pfx.chars().count()).collect();
            taken == pfx
        });
        (!ok).then(|| {
            LookupError::lookup(format!(
                "all lookup_options patterns must match a key starting with module name '{m}'"
            ))
        })
    } else if !k.starts_with(&pfx) {
        Some(LookupError::lookup(format!(
            "all lookup_options keys must start with module name '{m}'"
        )))
    } else {
        None
    }
}

/// `compile_patterns`: literal keys and `^`-patterns (Ruby regexes).
fn compile_patterns(options: Option<&Value>) -> R<Option<Arc<CompiledOpts>>> {
    let Some(Value::Hash(h)) = options else {
        return Ok(None);
    };
    let mut literal = IndexMap::new();
    let mut patterns = Vec::new();
    for (k, v) in h.iter() {
        let Value::String(k) = k else {
            return Err(no_method(
                "start_with?",
                k,
                "      if key.start_with?(LOOKUP_OPTIONS_PATTERN_START)",
            ));
        };
        if k.starts_with('^') {
            patterns.push((super::ruby::Prefiltered::new(k, ruby_regex(k)?), v.clone()));
        } else {
            literal.insert(k.to_string(), v.clone());
        }
    }
    Ok(Some(Arc::new(CompiledOpts {
        literal: (!literal.is_empty()).then_some(literal),
        patterns: (!patterns.is_empty()).then_some(patterns),
    })))
}

/// `extract_lookup_options_for_key`: a literal entry (not nil) wins, else the first matching
/// pattern in order (§3.3).
fn extract_for_key(root: &str, opts: Option<&CompiledOpts>) -> Option<Value> {
    let opts = opts?;
    if let Some(l) = &opts.literal {
        if let Some(v) = l.get(root) {
            if !v.is_undef() {
                return Some(v.clone());
            }
        }
    }
    if let Some(ps) = &opts.patterns {
        let one_line = super::ruby::one_line(root);
        for (re, v) in ps {
            if re.search_line(root, one_line) {
                return Some(v.clone());
            }
        }
    }
    None
}

/// Whether a value from a lookup is a found Undef that stops first-found (it is).
pub(crate) fn _is_value(_: &Value) -> bool {
    true
}

impl Engine {
    /// What calling function `name` of `kind` does: a built-in backend, a custom function
    /// (exists, cannot be run), or a missing one.
    fn function_kind(&self, name: &str, kind: FunctionKind) -> Func {
        match (kind, name) {
            (FunctionKind::DataHash, "yaml_data") => Func::YamlData,
            (FunctionKind::DataHash, "json_data") => Func::JsonData,
            (FunctionKind::DataHash, "hocon_data") => Func::HoconData,
            (FunctionKind::LookupKey, "eyaml_lookup_key") => Func::Eyaml,
            // Hiera 3 backends come from the hiera gem, which hieralint cannot run.
            (FunctionKind::Hiera3Backend, _) => Func::Custom,
            _ => {
                // `load_function`: a qualified name is loaded by its module's private loader,
                // which is nil for a module the environment does not have.
                let module = name.split_once("::").map(|(ns, _)| ns);
                if module.is_some_and(|ns| ns != "environment" && self.module_dir(ns).is_none()) {
                    Func::NoModule
                } else if self.function_exists(name) {
                    Func::Custom
                } else {
                    Func::Missing
                }
            }
        }
    }
}

/// What every resolution of one hierarchy entry shares: the layer, hiera.yaml, name and
/// function do not depend on the scope, so they are made once per entry
/// ([`EntrySpec::settings`]) and each [`ResolvedLevel`] points at them (read through `Deref`:
/// `level.name`). A check without facts resolves the node levels of each of 13,400
/// data-implied nodes at 15k files; holding these fields per level made a level 256 bytes,
/// and cloning their four `Arc`s per resolution wrote to reference counts both threads share.
#[derive(Debug)]
pub struct LevelSettings {
    pub layer: Place,
    /// The layer's hiera.yaml (`None` for Puppet's built-in configurations).
    pub config_path: Option<Arc<std::path::Path>>,
    /// The level's name (`Hierarchy entry "<name>"`).
    pub name: Arc<str>,
    /// True for a module's `default_hierarchy` level.
    pub default_hierarchy: bool,
    pub function_kind: FunctionKind,
    pub function: Arc<str>,
    /// The text id of `config_path` (its hiera.yaml): the analysis asks it of every level of
    /// every node's hierarchy. The settings belong to one engine's layer configuration, made
    /// again when that hiera.yaml's text changes, so the id is fixed for their lifetime.
    config_id: std::sync::OnceLock<Option<usize>>,
}

impl LevelSettings {
    pub(crate) fn new(
        layer: Place,
        config_path: Option<Arc<std::path::Path>>,
        name: Arc<str>,
        default_hierarchy: bool,
        function_kind: FunctionKind,
        function: Arc<str>,
    ) -> LevelSettings {
        LevelSettings {
            layer,
            config_path,
            name,
            default_hierarchy,
            function_kind,
            function,
            config_id: std::sync::OnceLock::new(),
        }
    }

    /// The text id of the hiera.yaml this level comes from ([`super::vfs::text_id`]).
    pub(crate) fn config_id(&self, eng: &Engine) -> Option<usize> {
        *self.config_id.get_or_init(|| {
            self.config_path
                .as_deref()
                .map(|c| super::vfs::text_id(&*eng.vfs, c))
        })
    }
}

/// One hierarchy level as resolved for a scope: its entry's [`LevelSettings`] and what the
/// scope made of it.
#[derive(Debug)]
pub struct ResolvedLevel {
    settings: Arc<LevelSettings>,
    /// Resolved locations; `None` when the level has no location key.
    pub locations: Option<Vec<LevelLocation>>,
    /// True when the level has no `options`.
    pub(crate) no_options: bool,
    /// A hash of its interpolated `options`.
    pub(crate) options_hash: u64,
    /// Which of its locations define which root keys ([`LevelIndex`]), built on first use.
    pub(crate) index: std::sync::OnceLock<Arc<LevelIndex>>,
    /// The identity of the text of each existing file location, for hierarchy fingerprints.
    pub(crate) source_ids: std::sync::OnceLock<Box<[usize]>>,
    /// For a built-in data level: how many of its files define each root key (boxed: most
    /// levels never build it, and the map's table is 32 bytes).
    pub(crate) defined: std::sync::OnceLock<Box<super::vfs::FastMap<Value, u32>>>,
    /// [`ResolvedLevel::content_hash`], kept: every node's hierarchy fingerprint hashes every
    /// level, and the level is shared by the nodes that resolve it alike.
    content_hash: std::sync::OnceLock<u64>,
}

impl std::ops::Deref for ResolvedLevel {
    type Target = LevelSettings;
    fn deref(&self) -> &LevelSettings {
        &self.settings
    }
}

/// The locations of a level as a lookup's data signature sees them: those that always count
/// (see [`quiet_location`]) and the others by the root keys they define (by
/// [`super::data::key_hash`]: a collision can only add a file to a signature, making it
/// stricter, or keep a level from being passed over, never change an answer), each with its
/// index among the level's locations and the hash of what the signature counts of it (the
/// location, whether it is a URI, and the identity of the text read), and the hash of the
/// level's settings ([`ResolvedLevel::hash_settings`]): a signature hashes these numbers, not
/// the paths and settings again for every lookup.
#[derive(Debug, Default)]
pub(crate) struct LevelIndex {
    pub always: Vec<(u32, u64)>,
    pub by_key: super::vfs::FastMap<u64, Vec<(u32, u64)>>,
    pub settings: u64,
}

impl ResolvedLevel {
    /// A hash of what a hierarchy fingerprint counts of the level: its settings (layer, name,
    /// function and options: [`ResolvedLevel::hash_settings`]) and resolved locations (with
    /// their existence). The options count: two nodes whose levels read the same files with
    /// other options (hiera-eyaml key paths that interpolate a fact) are not the same
    /// hierarchy, and an outcome shared by fingerprint would decrypt one node's values with
    /// the other's keys (tests/engine_shared.rs). Computed once per level: hashing every
    /// location string of every level for each node was 2% of a 1.5k-file run without facts.
    pub(crate) fn content_hash(&self) -> u64 {
        *self.content_hash.get_or_init(|| {
            use std::hash::BuildHasher as _;
            use std::hash::{Hash as _, Hasher};
            let mut h = foldhash::fast::FixedState::default().build_hasher();
            self.hash_settings(&mut h);
            self.locations.hash(&mut h);
            h.finish()
        })
    }

    /// The level's settings as a lookup's data signature counts them (`Session::data_signature`):
    /// layer, name, function and options.
    pub(crate) fn hash_settings(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash as _;
        self.layer.hash(h);
        self.name.hash(h);
        self.function_kind.hash(h);
        self.function.hash(h);
        self.default_hierarchy.hash(h);
        self.options_hash.hash(h);
    }

    /// Whether two levels have the settings [`ResolvedLevel::hash_settings`] counts alike.
    pub(crate) fn same_settings(&self, other: &ResolvedLevel) -> bool {
        self.layer == other.layer
            && self.name == other.name
            && self.function_kind == other.function_kind
            && self.function == other.function
            && self.default_hierarchy == other.default_hierarchy
            && self.options_hash == other.options_hash
    }

    /// How many of the level's existing files define each root key, as
    /// [`Cx::defining_layers`] counts them (built-in data functions; root maps only), built
    /// once per level.
    pub(crate) fn defined(&self, eng: &Engine) -> &super::vfs::FastMap<Value, u32> {
        self.defined.get_or_init(|| {
            let mut out = Box::<super::vfs::FastMap<Value, u32>>::default();
            let Some(format) = data_format(&self.function) else {
                return out;
            };
            for loc in self.locations.iter().flatten() {
                if loc.is_uri || !loc.exists {
                    continue;
                }
                let Some(f) = eng.files.load(&*eng.vfs, loc.path(), format) else {
                    continue;
                };
                if f.doc.root.as_ref().and_then(|r| r.as_map()).is_none() {
                    continue;
                }
                // Room for every key at once: grown by inserts, the map rehashed its keys
                // several times (a seventh of interpolated-key-not-found at 1.5k files).
                out.reserve(f.entries().len());
                for k in f.entries().keys() {
                    *out.entry(k.clone()).or_insert(0) += 1;
                }
            }
            out
        })
    }

    /// The identity of the text of each existing file location, read once per level (a level
    /// is shared by every session that resolves it alike).
    pub(crate) fn source_ids(&self, eng: &Engine) -> &[usize] {
        self.source_ids.get_or_init(|| {
            self.locations
                .iter()
                .flatten()
                .filter(|l| l.exists && !l.is_uri)
                .map(|l| super::vfs::text_id(&*eng.vfs, l.path()))
                .collect()
        })
    }

    /// The root keys the locations of this level define (only location `at`, or all of them)
    /// and whether one of those locations always counts in a data signature, as
    /// [`ResolvedLevel::index`] gives them, without building the index when it is not built
    /// yet: comparing hierarchies (`analysis::Deltas`) asks this of every node level of a
    /// check without facts, and most are never asked for a signature. A key one file writes
    /// twice may be listed twice (`Deltas` files the keys into maps). The keys come as their
    /// [`super::data::key_hash`], which is all `Deltas` files them by: a node file's come from
    /// its document's hashes, found at parse time, without reading its tree again.
    pub(crate) fn key_hashes_at(&self, eng: &Engine, at: Option<u32>) -> (Vec<u64>, bool) {
        let hit = |j: u32| at.is_none_or(|at| at == j);
        if let Some(ix) = self.index.get() {
            let always = ix.always.iter().any(|&(j, _)| hit(j));
            let keys = ix
                .by_key
                .iter()
                .filter(|(_, v)| v.iter().any(|&(j, _)| hit(j)))
                .map(|(&k, _)| k)
                .collect();
            return (keys, always);
        }
        let mut always = false;
        let mut files = Vec::new();
        for (i, loc) in self.locations.iter().flatten().enumerate() {
            if !hit(i as u32) {
                continue;
            }
            match self.in_signature(eng, loc) {
                Some(InSignature::Always(_)) => always = true,
                Some(InSignature::ByKeys(_, f)) => files.push(f),
                None => {}
            }
        }
        let keys: Vec<u64> = match files.as_slice() {
            [] => Vec::new(),
            [f] => f.root_key_hashes().into_owned(),
            _ => {
                // A key several locations define is listed once, as in the index.
                let mut seen: super::vfs::FastSet<u64> = Default::default();
                let mut keys = Vec::new();
                for f in &files {
                    for &k in f.root_key_hashes().iter() {
                        if seen.insert(k) {
                            keys.push(k);
                        }
                    }
                }
                keys
            }
        };
        (keys, always)
    }

    /// How location `loc` of this level enters a data signature: always (a URI, or what
    /// [`quiet_location`] says), by its file's root keys, or not at all (a missing file).
    fn in_signature(&self, eng: &Engine, loc: &LevelLocation) -> Option<InSignature> {
        if loc.is_uri {
            return Some(InSignature::Always(0));
        }
        loc.exists.then(|| quiet_location(eng, self, loc.path()))
    }

    pub(crate) fn index(&self, eng: &Engine) -> &LevelIndex {
        self.index.get_or_init(|| {
            use std::hash::{BuildHasher as _, Hash as _, Hasher as _};
            let hasher = || foldhash::fast::FixedState::default().build_hasher();
            let mut settings = hasher();
            self.hash_settings(&mut settings);
            let mut ix = LevelIndex {
                settings: settings.finish(),
                ..LevelIndex::default()
            };
            let counted = |loc: &LevelLocation, id: usize| {
                let mut h = hasher();
                loc.location.hash(&mut h);
                loc.is_uri.hash(&mut h);
                id.hash(&mut h);
                h.finish()
            };
            for (i, loc) in self.locations.iter().flatten().enumerate() {
                let i = i as u32;
                match self.in_signature(eng, loc) {
                    None => {}
                    Some(InSignature::Always(id)) => ix.always.push((i, counted(loc, id))),
                    Some(InSignature::ByKeys(id, f)) => {
                        let keys = f.root_key_hashes();
                        let entry = (i, counted(loc, id));
                        // Sized up front: most levels have one location (a node file), and
                        // growing the map rehashed it several times per node (4% of a 15k
                        // run without facts).
                        ix.by_key.reserve(keys.len());
                        for &k in keys.iter() {
                            // A key the file writes twice is listed once.
                            let v = ix.by_key.entry(k).or_default();
                            if v.last() != Some(&entry) {
                                v.push(entry);
                            }
                        }
                    }
                }
            }
            Arc::new(ix)
        })
    }
}

/// A resolved location of a level.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LevelLocation {
    /// The declared (uninterpolated) path, or the expanded glob pattern.
    pub original: Arc<str>,
    /// The absolute path, or the URI for `uri`/`uris` (a path that is not UTF-8 shown with
    /// U+FFFD: [`LevelLocation::path`] is the one to read).
    pub location: String,
    pub is_uri: bool,
    pub exists: bool,
    /// The exact path when it is not UTF-8 (`location` is then its lossy text).
    pub(crate) raw: Option<Box<std::path::Path>>,
}

impl LevelLocation {
    /// A file location (`ResolvedLocation` with a path): the path's text kept as is, with the
    /// exact path beside it only when it is not UTF-8. A level's locations are stored once,
    /// here (they were also kept as `PathBuf`s for the sessions: 54,000 paths at 15k files).
    fn file(original: Arc<str>, path: PathBuf, exists: bool) -> LevelLocation {
        let (location, raw) = match path.into_os_string().into_string() {
            Ok(s) => (s, None),
            Err(os) => {
                let raw = PathBuf::from(os);
                (
                    raw.to_string_lossy().into_owned(),
                    Some(raw.into_boxed_path()),
                )
            }
        };
        LevelLocation {
            original,
            location,
            is_uri: false,
            exists,
            raw,
        }
    }

    /// The file this location names (for a URI, its text as a path).
    pub fn path(&self) -> &std::path::Path {
        match &self.raw {
            Some(p) => p,
            None => std::path::Path::new(&self.location),
        }
    }
}

/// A key defined in a data file the hierarchy reaches.
#[derive(Clone, Debug)]
pub struct KeyDefinition {
    pub key: String,
    pub layer: Place,
    pub level: String,
    pub file: Arc<SourceFile>,
    pub key_span: Span,
    pub value_span: Span,
}

impl Cx<'_> {
    /// Every layer's provider that exists for this session: global, environment, and the
    /// modules on the modulepath, with the error Puppet would raise for a layer that fails.
    pub fn layer_providers(&self) -> Vec<(Place, R<Option<Rc<LayerProvider>>>)> {
        let mut out = vec![(Place::Global, Ok(Some(self.global_provider())))];
        out.push((Place::Environment, self.env_provider()));
        for (name, _) in self.eng.module_list().iter() {
            out.push((Place::Module(name.clone()), self.module_provider(name)));
        }
        out
    }

    /// [`Cx::resolved_levels`] in a fresh state that is thrown away after (a node's hierarchy
    /// resolved to group nodes or fingerprint a session), with module layers taken from the
    /// engine's layer cache ([`super::levels::LayerCache`]) when the scope answers their reads
    /// alike. The same levels, errors, warnings (in the same order: every layer's provider
    /// first, then every layer's levels, as `layer_providers` and this loop make them) and
    /// interpolation count as resolving each layer again.
    pub fn resolved_levels_fresh(&self) -> (super::Levels, Vec<(Place, LookupError)>) {
        enum Layer {
            Hit(Arc<super::levels::CachedLayer>),
            Miss(Place, R<Option<Rc<LayerProvider>>>, Vec<String>),
            /// Every module layer, from the cached block: taken whole when the interpolation
            /// budget holds it, else layer by layer as `Hit`s.
            Block(Arc<super::levels::ModuleBlock>),
        }
        let modules = self.eng.module_list();
        // The global and environment layers and, most of the time, one cached block: room for
        // every module is made only when they are taken one by one (a `Layer` is 144 bytes:
        // sized for every module up front, each data-implied node's resolution allocated
        // 36 KB for three of them at 15k files, half a gigabyte in all; DHAT).
        let mut layers = Vec::with_capacity(3);
        layers.push(Layer::Miss(
            Place::Global,
            Ok(Some(self.global_provider())),
            Vec::new(),
        ));
        layers.push(Layer::Miss(
            Place::Environment,
            self.env_provider(),
            Vec::new(),
        ));
        // Every module layer at once when a block of them is cached for a scope that reads
        // alike; else module by module, and a block kept when each was cached.
        let mut block = self
            .eng
            .layers
            .block(self.scope)
            .filter(|b| b.layers.len() == modules.len());
        if let Some(b) = &block {
            self.warn_module(&b.provider_warnings);
            layers.push(Layer::Block(b.clone()));
        } else {
            layers.reserve(modules.len());
            let mut hits: Vec<Arc<super::levels::CachedLayer>> = Vec::new();
            self.eng.layers.with(self.scope, |cached| {
                for (name, _) in modules.iter() {
                    if let Some(c) = cached(name) {
                        self.warn_module(&c.provider_warnings);
                        hits.push(c.clone());
                        layers.push(Layer::Hit(c));
                        continue;
                    }
                    let (p, warnings) = self.capturing_warnings(|| self.module_provider(name));
                    self.warn_module(&warnings);
                    layers.push(Layer::Miss(Place::Module(name.clone()), p, warnings));
                }
            });
            if !modules.is_empty() && hits.len() == modules.len() {
                self.eng.layers.insert_block(hits);
                // This hierarchy takes the block too (the one kept for this scope: another
                // thread may have kept its own first), as every later one will: the same
                // levels, and the same block as theirs, so that comparing hierarchies level by
                // level (the analysis's deltas) stops at the module levels. Taken as `Hit`s,
                // the second data-implied node (the first after the reference, whose
                // resolution made the cache) held 500 module levels of its own at 15k files,
                // and every hierarchy was compared with it level by level.
                if let Some(b) = self
                    .eng
                    .layers
                    .block(self.scope)
                    .filter(|b| b.layers.len() == modules.len())
                {
                    layers.truncate(2);
                    layers.push(Layer::Block(b.clone()));
                    block = Some(b);
                }
            }
        }
        // Sized up front: a hierarchy holds every module layer's levels (hundreds), and
        // growing the vector one layer at a time reallocated it several times per node.
        // The block's levels are shared as one piece when every one of its layers is taken as
        // cached: decided at its first layer (module layers come last), where the budget for
        // interpolations either holds them all or makes the layers be resolved one by one.
        let mut sharing: Option<bool> = None;
        let cap = layers
            .iter()
            .map(|l| match l {
                Layer::Hit(c) => c.levels.len(),
                Layer::Block(_) => 0,
                // The global and environment layers: most hierarchies hold a few levels, up
                // to about eight (growing past the estimate reallocated every node's list).
                Layer::Miss(..) => 8,
            })
            .sum();
        let mut levels = Vec::with_capacity(cap);
        let mut errors = Vec::new();
        let mut layers: std::collections::VecDeque<Layer> = layers.into();
        while let Some(layer) = layers.pop_front() {
            let (place, p, provider_warnings) = match layer {
                Layer::Block(b) => {
                    let fits =
                        self.sub_lookups.get() + b.sub_lookups <= self.eng.limits.max_sub_lookups;
                    sharing = Some(fits);
                    if fits {
                        // Each layer fits too (the block's count is their sum): what taking
                        // them one by one as `Hit`s does, without touching each (250 modules
                        // for each of 12,000 nodes at 15k files).
                        self.warn_module(&b.level_warnings);
                        for (module, e) in &b.errors {
                            errors.push((Place::Module(module.clone()), e.clone()));
                        }
                        self.sub_lookups.set(self.sub_lookups.get() + b.sub_lookups);
                    } else {
                        levels.reserve(b.levels.levels.len());
                        for c in b.layers.iter().rev() {
                            layers.push_front(Layer::Hit(c.clone()));
                        }
                    }
                    continue;
                }
                Layer::Hit(c)
                    if self.sub_lookups.get() + c.sub_lookups
                        <= self.eng.limits.max_sub_lookups =>
                {
                    self.warn_module(&c.level_warnings);
                    self.sub_lookups.set(self.sub_lookups.get() + c.sub_lookups);
                    if sharing != Some(true) {
                        levels.extend(c.levels.iter().cloned());
                    }
                    if let Some(e) = &c.error {
                        errors.push((Place::Module(c.module.clone()), e.clone()));
                    }
                    continue;
                }
                // Over the interpolation budget: resolved again (its provider's warnings
                // were logged already).
                Layer::Hit(c) => {
                    let name = c.module.clone();
                    let (p, w) = self.capturing_warnings(|| self.module_provider(&name));
                    (Place::Module(name), p, w)
                }
                Layer::Miss(place, p, w) => (place, p, w),
            };
            let start = levels.len();
            let sub_before = self.sub_lookups.get();
            // Only a module layer is cached whole (`LayerCache`): the reads of the global and
            // environment layers' levels are not collected.
            let collecting = self
                .layer_reads
                .replace(matches!(place, Place::Module(_)).then(|| (Vec::new(), true)));
            let (error, level_warnings) =
                self.capturing_warnings(|| self.layer_levels(&p, &mut levels));
            let (mut reads, cacheable) = self.layer_reads.replace(collecting).unwrap_or_default();
            if matches!(place, Place::Module(_)) {
                self.warn_module(&level_warnings);
            } else {
                for w in &level_warnings {
                    self.warn(w.clone());
                }
            }
            if let Some(e) = &error {
                errors.push((place.clone(), e.clone()));
            }
            if let (Place::Module(name), true) = (&place, cacheable) {
                // The same expression read twice gives the same answer: probed once.
                let mut seen = crate::engine::vfs::FastSet::default();
                reads.retain(|(e, _)| seen.insert(e.clone()));
                self.eng.layers.insert(
                    name,
                    super::levels::CachedLayer {
                        module: name.clone(),
                        reads,
                        provider_warnings,
                        level_warnings,
                        sub_lookups: self.sub_lookups.get() - sub_before,
                        levels: levels[start..].to_vec(),
                        error,
                    },
                );
            }
        }
        let shared = match (sharing, block) {
            (Some(true), Some(b)) => Some(b.levels.clone()),
            _ => None,
        };
        (super::Levels::new(levels, shared), errors)
    }

    /// Logs warnings of a module layer (creating its provider, resolving its levels), and
    /// notes that there were some ([`Cx::module_warned`]).
    fn warn_module(&self, warnings: &[String]) {
        if !warnings.is_empty() {
            self.module_warned.set(true);
        }
        for w in warnings {
            self.warn(w.clone());
        }
    }

    /// Runs `f` with the warnings it logs kept apart (and deduplicated among themselves, as
    /// `warn` does): the caller logs them.
    fn capturing_warnings<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<String>) {
        let saved = self.warnings.replace(Vec::new());
        let r = f();
        let captured = self.warnings.replace(saved);
        (r, captured)
    }

    /// The hierarchy of every layer resolved against the scope.
    pub fn resolved_levels(&self) -> (Vec<Arc<ResolvedLevel>>, Vec<(Place, LookupError)>) {
        let mut levels = Vec::new();
        let mut errors = Vec::new();
        for (place, p) in self.layer_providers() {
            if let Some(e) = self.layer_levels(&p, &mut levels) {
                errors.push((place, e));
            }
        }
        (levels, errors)
    }

    /// One layer's levels (appended to `levels`) from its provider, or the error that makes
    /// Puppet unable to use the layer.
    fn layer_levels(
        &self,
        p: &R<Option<Rc<LayerProvider>>>,
        levels: &mut Vec<Arc<ResolvedLevel>>,
    ) -> Option<LookupError> {
        match p {
            Ok(Some(p)) => match self.layer_config(p) {
                Ok(cfg) => self.levels_of(p, &cfg, levels).err(),
                Err(e) => Some(e),
            },
            Ok(None) => None,
            Err(e) => Some(e.clone()),
        }
    }

    /// For each of `keys`, the layers of the files (as [`Cx::key_definitions`] lists them) that
    /// define it as a root key, in lookup order: a targeted form of `key_definitions` that
    /// allocates nothing per defined key.
    pub fn defining_layers(&self, keys: &[&str]) -> Vec<Vec<Place>> {
        let (levels, _) = self.resolved_levels();
        let wanted: Vec<Value> = keys.iter().map(|k| Value::string(*k)).collect();
        let mut out = vec![Vec::new(); keys.len()];
        for lv in levels {
            // The level's layer once per file of the level that defines the key.
            let defined = lv.defined(self.eng);
            for (i, k) in wanted.iter().enumerate() {
                for _ in 0..defined.get(k).copied().unwrap_or(0) {
                    out[i].push(lv.layer.clone());
                }
            }
        }
        out
    }

    /// The root keys of every existing data file the hierarchy reaches (built-in backends).
    pub fn key_definitions(&self) -> Vec<KeyDefinition> {
        let (levels, _) = self.resolved_levels();
        let mut out = Vec::new();
        for lv in levels {
            let Some(format) = data_format(&lv.function) else {
                continue;
            };
            for loc in lv.locations.iter().flatten() {
                if loc.is_uri || !loc.exists {
                    continue;
                }
                let Some(f) = self.eng.files.load(&*self.eng.vfs, loc.path(), format) else {
                    continue;
                };
                let Some(m) = f.doc.root.as_ref().and_then(|r| r.as_map()) else {
                    continue;
                };
                for e in &m.entries {
                    let key = match e.key.to_value() {
                        Value::String(s) | Value::Symbol(s) => s.to_string(),
                        _ => continue,
                    };
                    out.push(KeyDefinition {
                        key,
                        layer: lv.layer.clone(),
                        level: lv.name.to_string(),
                        file: f.source.clone(),
                        key_span: e.key.span,
                        value_span: e.value.span,
                    });
                }
            }
        }
        out
    }
}

/// How a location of `level` (an existing file, not a URI) enters a lookup's data signature:
/// [`InSignature::ByKeys`] with its data when it can be left out of the signature of a lookup
/// whose keys it does not define, because reading it then has no effect at all on that lookup;
/// [`InSignature::Always`] when it always counts.
///
/// Left out: the built-in readers (`yaml_data`, `json_data`, `hocon_data` without options,
/// which Puppet rejects, and `eyaml_lookup_key`, which decrypts only a value it finds) of the
/// global and environment layers, when the file reads as a Hash. Always counted: a module's
/// data (its keys outside the module's namespace make Puppet warn, §2.4), a file that does not
/// parse or is not a Hash (Puppet fails or warns whatever the key), any other backend.
pub(crate) fn quiet_location(
    eng: &Engine,
    level: &ResolvedLevel,
    path: &std::path::Path,
) -> InSignature {
    let format = match (level.function_kind, &*level.function) {
        _ if matches!(level.layer, Place::Module(_)) => None,
        (FunctionKind::DataHash, "yaml_data") if level.no_options => Some(Format::Yaml),
        (FunctionKind::DataHash, "json_data") if level.no_options => Some(Format::Json),
        (FunctionKind::DataHash, "hocon_data") if level.no_options => Some(Format::Hocon),
        (FunctionKind::LookupKey, "eyaml_lookup_key") => Some(Format::Yaml),
        _ => None,
    };
    let Some(format) = format else {
        return InSignature::Always(super::vfs::text_id(&*eng.vfs, path));
    };
    let Some(f) = eng.files.load(&*eng.vfs, path, format) else {
        return InSignature::Always(0);
    };
    let id = Arc::as_ptr(&f.source) as usize;
    if f.is_hash() {
        InSignature::ByKeys(id, f)
    } else {
        InSignature::Always(id)
    }
}

/// How a location enters a lookup's data signature ([`quiet_location`]), with the identity of
/// the text read (0 when none).
pub(crate) enum InSignature {
    /// Only for a lookup of one of the root keys of this data (a file whose
    /// [`DataFile::root_keys`] are some).
    ByKeys(usize, Arc<super::data::DataFile>),
    /// Always.
    Always(usize),
}

/// The format a built-in data function reads its files in.
fn data_format(function: &str) -> Option<Format> {
    match function {
        "yaml_data" | "eyaml_lookup_key" => Some(Format::Yaml),
        "json_data" => Some(Format::Json),
        "hocon_data" => Some(Format::Hocon),
        _ => None,
    }
}

/// The hash a resolved level's options are compared by (`ResolvedLevel::options_hash`).
fn options_hash(options: &Arc<Hash>) -> u64 {
    use std::hash::{Hash as _, Hasher};
    let mut h = super::vfs::Fnv::default();
    Value::Hash(options.clone()).hash(&mut h);
    h.finish()
}

/// [`probe`] for the plain expressions hierarchies use (`facts.os.family`, `::role`,
/// `trusted.certname`): identifiers joined by dots, which `split_key` splits into the same
/// string segments (no quotes, spaces or digit-only segments), without allocating them.
/// `None` for anything else.
fn probe_plain(scope: &Scope, expr: &str) -> Option<Probe> {
    let ident = crate::interp::is_ident;
    // Split at the dots by bytes: `str::split('.')` runs a char searcher (memchr set up per
    // segment), a sixth of a probe on these short expressions.
    let mut parts = DotSplit(Some(expr));
    let root = parts.next()?;
    // Most roots hold no `:` (`facts`, `trusted`): no substring searcher for them (building
    // one per `::` search was 1% of a run without facts).
    if root.contains(':') {
        let bare = root.trim_start_matches("::");
        if bare.len() + 2 < root.len() || !bare.split("::").all(ident) {
            return None;
        }
    } else if !ident(root) {
        return None;
    }
    if !parts.clone().all(ident) {
        return None;
    }
    let mut v = match scope.lookup(root) {
        VarLookup::Found(v) => v,
        other => return Some(Probe::Root(other)),
    };
    for seg in parts {
        v = match &v {
            Value::Undef => return Some(Probe::Value(None)),
            Value::Hash(h) => match h.get(&crate::value::StrKey(seg)) {
                Some(x) => x.clone(),
                None => return Some(Probe::Value(None)),
            },
            _ => return Some(Probe::Error),
        };
    }
    Some(Probe::Value(Some(v)))
}

/// `s.split('.')` for short strings: the parts between the dots, by a byte loop.
#[derive(Clone)]
struct DotSplit<'a>(Option<&'a str>);

impl<'a> Iterator for DotSplit<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.0?;
        match s.bytes().position(|b| b == b'.') {
            // A `.` is one byte and never inside a character: both sides are whole strings.
            Some(i) => {
                self.0 = Some(&s[i + 1..]);
                Some(&s[..i])
            }
            None => {
                self.0 = None;
                Some(s)
            }
        }
    }
}

/// What a scope expression (`facts.os.family`, `::role`) reads from a scope, evaluated without
/// side effects: the engine's result cache replays it against another scope to know whether a
/// cached outcome applies.
#[derive(Clone, Debug, PartialEq)]
pub enum Probe {
    /// The root variable is undefined (Puppet warns or fails), or a built-in.
    Root(VarLookup),
    /// The value the expression reaches (`None`: a missing sub-key).
    Value(Option<Value>),
    /// Digging failed (type mismatch, syntax error).
    Error,
}

pub(crate) fn probe(scope: &Scope, expr: &str) -> Probe {
    match probe_plain(scope, expr) {
        Some(p) => p,
        None => probe_split(scope, expr),
    }
}

/// [`probe`] through `split_key` (any expression).
fn probe_split(scope: &Scope, expr: &str) -> Probe {
    let Ok(mut segments) = split_key(expr) else {
        return Probe::Error;
    };
    let Segment::Str(root) = segments.remove(0) else {
        return Probe::Error;
    };
    let mut v = match scope.lookup(&root) {
        VarLookup::Found(v) => v,
        other => return Probe::Root(other),
    };
    for seg in &segments {
        v = match (seg, &v) {
            (_, Value::Undef) => return Probe::Value(None),
            (Segment::Int(i), Value::Array(a)) => {
                match usize::try_from(*i).ok().and_then(|i| a.get(i)) {
                    Some(x) => x.clone(),
                    None => return Probe::Value(None),
                }
            }
            (Segment::Int(i), Value::Hash(h)) => match h.get(&Value::Integer(*i)) {
                Some(x) => x.clone(),
                None => return Probe::Value(None),
            },
            (Segment::Str(k), Value::Hash(h)) => match h.get(&crate::value::StrKey(k)) {
                Some(x) => x.clone(),
                None => return Probe::Value(None),
            },
            _ => return Probe::Error,
        };
    }
    Probe::Value(Some(v))
}

#[cfg(test)]
mod location_tests {
    use super::*;

    /// A location whose path is not UTF-8 is shown with U+FFFD and read by its exact bytes;
    /// a UTF-8 one keeps no second copy.
    #[cfg(unix)]
    #[test]
    fn a_location_keeps_the_exact_path_only_when_it_is_not_utf8() {
        use std::os::unix::ffi::OsStrExt as _;
        let exact = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/d/caf\xe9.yaml"));
        let l = LevelLocation::file(Arc::from("x"), exact.to_path_buf(), true);
        assert_eq!(l.location, "/d/caf\u{FFFD}.yaml");
        assert_eq!(l.path(), exact);
        let plain = LevelLocation::file(Arc::from("x"), PathBuf::from("/d/cafe.yaml"), false);
        assert!(plain.raw.is_none());
        assert_eq!(plain.path(), std::path::Path::new("/d/cafe.yaml"));
        assert!(!plain.exists && !plain.is_uri);
    }

    /// A level's index reads a file whose path is not UTF-8 (here the environment's directory
    /// name) by its exact path: its keys are indexed, not counted as an unreadable file that
    /// enters every data signature (it once opened the lossy text, which names no file).
    #[cfg(unix)]
    #[test]
    fn the_level_index_reads_a_file_whose_path_is_not_utf8() {
        use std::os::unix::ffi::OsStrExt as _;
        let base = std::env::temp_dir().join(format!("hieralint-nonutf8-{}", std::process::id()));
        let root = base.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::write(
            root.join("hiera.yaml"),
            "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
        )
        .unwrap();
        std::fs::write(root.join("data/common.yaml"), "k: 1\n").unwrap();
        let engine = Engine::on_disk(
            super::super::EnvironmentSpec::standalone(&root, "production"),
            super::super::EngineOptions::default(),
        );
        let h = engine
            .session(Arc::new(crate::engine::Scope::default()))
            .fresh_hierarchy();
        let level = h
            .levels
            .iter()
            .find(|l| &*l.name == "common")
            .expect("the common level")
            .clone();
        let loc = &level.locations.as_ref().expect("a path level")[0];
        assert!(loc.exists && loc.raw.is_some(), "{loc:?}");
        let ix = level.index(&engine);
        assert!(ix.always.is_empty(), "{ix:?}");
        assert!(
            ix.by_key
                .contains_key(&super::super::data::key_hash(&Value::string("k"))),
            "{ix:?}"
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}

#[cfg(test)]
mod probe_tests {
    use super::*;
    use crate::value::Hash;

    #[test]
    fn dot_split_splits_as_str_split() {
        for s in [
            "",
            ".",
            "a",
            "a.b",
            "facts.os.family",
            ".a",
            "a.",
            "a..b",
            "é.ü",
            "::role",
        ] {
            let want: Vec<&str> = s.split('.').collect();
            let got: Vec<&str> = DotSplit(Some(s)).collect();
            assert_eq!(got, want, "{s:?}");
        }
    }

    /// The allocation-free path answers as `split_key` does, or leaves the expression to it.
    #[test]
    fn plain_probes_answer_as_split_probes() {
        let mut os = Hash::default();
        os.insert(Value::string("family"), Value::string("Debian"));
        os.insert(
            Value::string("list"),
            Value::Array(vec![Value::Integer(1)].into()),
        );
        let mut facts = Hash::default();
        facts.insert(Value::string("os"), Value::hash(os));
        facts.insert(Value::string("role"), Value::string("web"));
        facts.insert(Value::string("n"), Value::Integer(3));
        let trusted = crate::engine::Trusted {
            certname: Some("web01".into()),
            ..Default::default()
        };
        let scope = Scope::for_node(&facts, &trusted, None, "production");
        let mut plain = 0;
        for expr in [
            "facts.os.family",
            "facts.os.missing",
            "facts.os.family.deeper",
            "facts.os.list.0",
            "facts.os.list.x",
            "facts.n.x",
            "::role",
            "role",
            "::::role",
            "trusted.certname",
            "missing.x",
            "class::var",
            "::class::var",
            "environment",
            "facts.'os'.family",
            "facts. os",
            "facts..os",
            "facts.os.",
            "1",
            "",
            "facts.0",
            // Settled early (missing, not a hash, undefined root), not plain later.
            "facts.os.missing.'q'",
            "facts.n.x.'q'",
            "missing.'q'",
            "missing.x y",
            "facts.os.family.0",
            "facts.os.missing.x.y",
        ] {
            let slow = probe_split(&scope, expr);
            if let Some(fast) = probe_plain(&scope, expr) {
                plain += 1;
                assert_eq!(fast, slow, "{expr:?}");
            }
            assert_eq!(probe(&scope, expr), slow, "{expr:?}");
        }
        assert!(plain >= 10, "{plain}");
    }
}

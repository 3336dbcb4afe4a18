//! The lookup engine, exact to Puppet: layers, hierarchies, backends, lookup_options, merges,
//! interpolation, dotted keys and explain.
//!
//! ```no_run
//! use std::sync::Arc;
//! use hieralint::engine::{Engine, EngineOptions, EnvironmentSpec, Scope};
//! let engine = Engine::on_disk(
//!     EnvironmentSpec::in_codedir("/etc/puppetlabs/code".as_ref(), "production"),
//!     EngineOptions::default(),
//! );
//! let scope = Scope::default();
//! let outcome = engine.lookup(&scope, "ntp::servers", None, false);
//! ```
//!
//! An [`Engine`] is built once per environment and shared (it caches parsed files and
//! hiera.yaml configurations). A [`Session`] is what Puppet keeps per compile: one node's scope,
//! the lookup_options and the resolved hierarchies; use one per fact set.

pub mod cli;
pub mod convert;
pub mod data;
pub mod env;
pub mod error;
pub mod explain;
pub mod eyaml;
pub mod layer;
pub(crate) mod lookup;
pub mod merge;
pub mod ruby;
pub mod scope;
pub mod types;
pub mod vfs;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use env::{Environment, EnvironmentSpec};
pub use error::{ErrorKind, LookupError};
pub use explain::Explainer;
pub use layer::Place;
pub use lookup::Provenance;
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
    /// The key that was found (the first of several keys that has a value).
    pub key: Option<String>,
    /// True when the value is the caller's default.
    pub defaulted: bool,
    pub explain: Option<Explainer>,
    /// The warnings Puppet would log during this lookup, in order (deduplicated).
    pub warnings: Vec<String>,
    /// Where found root keys came from (key and value spans), in lookup order.
    pub provenance: Vec<Provenance>,
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

type ConfigResult = Result<(Arc<LayerConfig>, Vec<String>), LookupError>;

/// The engine for one environment. `Sync`: share it between threads.
pub struct Engine {
    pub(crate) env: Environment,
    pub(crate) opts: EngineOptions,
    pub(crate) vfs: Arc<dyn Vfs>,
    pub(crate) files: FileCache,
    configs: Mutex<HashMap<(PathBuf, Place), ConfigResult>>,
    modules: Mutex<HashMap<String, Option<Arc<ModuleInfo>>>>,
    functions: Mutex<HashMap<String, bool>>,
    /// Interpolation and glob bounds ([`Engine::with_limits`]).
    pub(crate) limits: Limits,
}

impl Engine {
    pub fn new(spec: EnvironmentSpec, opts: EngineOptions, vfs: Arc<dyn Vfs>) -> Engine {
        let env = Environment::load(spec, &*vfs);
        Engine {
            env,
            opts,
            vfs,
            files: FileCache::default(),
            configs: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            limits: Limits::default(),
        }
    }

    /// The engine with other bounds on interpolation (string growth, nesting, number of
    /// sub-lookups) and globs (results, visited entries, brace alternatives); the defaults are
    /// [`Limits::default`] (docs/limits.md).
    pub fn with_limits(mut self, limits: Limits) -> Engine {
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
    }

    /// A session for one node (what Puppet keeps per compile).
    pub fn session(&self, scope: Arc<Scope>) -> Session<'_> {
        Session {
            engine: self,
            scope,
            state: lookup::State::default(),
        }
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
        let info = self.env.module_dir(name, &*self.vfs).map(|dir| {
            let data_provider = self
                .vfs
                .read(&dir.join("metadata.json"))
                .and_then(|f| serde_json::from_str::<serde_json::Value>(f.text()).ok())
                .and_then(|j| j.get("data_provider").map(Value::from_json));
            Arc::new(ModuleInfo {
                name: name.to_string(),
                has_hiera_yaml: self.vfs.exists(&dir.join("hiera.yaml")),
                dir,
                data_provider,
            })
        });
        if let Ok(mut m) = self.modules.lock() {
            m.insert(name.to_string(), info.clone());
        }
        info
    }

    /// `HieraConfig.create` for a layer's hiera.yaml, cached.
    pub(crate) fn create_config(&self, path: &Path, place: &Place) -> ConfigResult {
        let key = (path.to_path_buf(), place.clone());
        if let Some(c) = self.configs.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return c;
        }
        let source = self.vfs.read(path);
        let created = layer::create(path, place, source);
        let r = created.config.map(|c| (c, created.warnings.clone()));
        if let Ok(mut c) = self.configs.lock() {
            c.insert(key, r.clone());
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
                self.env.modules(&*self.vfs).iter().any(|(_, dir)| {
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
}

impl Session<'_> {
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// `Lookup.lookup(keys, nil, default, has_default, merge, invocation)`.
    pub fn lookup(&self, req: &LookupRequest) -> LookupOutcome {
        let cx = lookup::Cx::new(self.engine, &self.state, &self.scope, req.explain);
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
            Ok(Some((k, v))) => (LookupResult::Found(v), Some(k), false),
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
            explain: cx.ex.into_inner(),
            warnings: cx.warnings.into_inner(),
            provenance: cx.provenance.into_inner(),
        }
    }
}

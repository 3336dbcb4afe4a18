//! The project being checked: its files, loaded once, and what each file is for.
//!
//! The scanner discovers environments and modules and loads every hiera.yaml and data file into
//! a [`Project`]; rules and the engine read it. Files are shared (`Arc`) so diagnostics can point
//! into any of them.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use std::sync::OnceLock;

use crate::config::{self, SharedParse};
use crate::loader::Document;
use crate::span::SourceFile;
use crate::value::Node;

/// Which Hiera layer a file belongs to (reference §2).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    Global,
    Environment,
    /// A module, by name (the directory name on the modulepath).
    Module(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRole {
    HieraConfig,
    Data,
    /// Files the user named that are neither (checked for syntax only).
    Loose,
}

/// A file of the project, loaded.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    pub source: Arc<SourceFile>,
    /// What [`crate::loader::load`] gives for the source in the format its extension names
    /// (`Format::from_extension`, YAML otherwise). Shared: the lookup engine reuses it rather
    /// than parsing the file again (`analysis::ProjectVfs`).
    pub doc: Arc<Document>,
    pub role: FileRole,
    pub layer: Layer,
    /// The environment directory this file belongs to (absent for loose files).
    /// One allocation shared by the files the scan plans for an environment and those the
    /// language server adds to it (a file named outside a planned environment holds its own):
    /// the rules compare it for every file, and a path of each file's own was a cache miss
    /// each time at 15k files.
    pub env_root: Option<Arc<Path>>,
    /// The hiera.yaml model, parsed on first use (hiera.yaml files only), shared with the
    /// lookup engine (`analysis::ProjectVfs`). Behind a pointer: the model is 800 bytes, and
    /// every loaded file (data files by the thousand) carried that room inline.
    config: Option<Arc<SharedParse>>,
}

impl LoadedFile {
    pub fn new(
        source: Arc<SourceFile>,
        doc: Document,
        role: FileRole,
        layer: Layer,
        env_root: Option<Arc<Path>>,
    ) -> LoadedFile {
        let doc = Arc::new(doc);
        let config = (role == FileRole::HieraConfig)
            .then(|| Arc::new(SharedParse::new(source.clone(), doc.clone(), layer.clone())));
        LoadedFile {
            source,
            doc,
            role,
            layer,
            env_root,
            config,
        }
    }

    /// The parsed hiera.yaml model and Puppet's validation errors (empty for other files).
    pub fn hiera_config(&self) -> &config::Parsed {
        static NONE: config::Parsed = (None, Vec::new());
        self.config.as_deref().map_or(&NONE, SharedParse::get)
    }

    /// The parse [`LoadedFile::hiera_config`] gives, to share (hiera.yaml files only).
    pub fn shared_config(&self) -> Option<&Arc<SharedParse>> {
        self.config.as_ref()
    }

    pub fn module_name(&self) -> Option<&str> {
        match &self.layer {
            Layer::Module(m) => Some(m),
            _ => None,
        }
    }
}

/// Everything one run checks.
#[derive(Default)]
pub struct Project {
    pub files: Vec<LoadedFile>,
    /// The fact sets given with `--facts` (empty: nodes are implied by the data).
    pub fact_sets: Vec<crate::facts::FactSet>,
    /// The Puppet version modelled where 7 and 8 differ.
    pub puppet: Option<crate::engine::PuppetVersion>,
    /// Rule options from `.hieralint.yaml` (`rules: {<rule>: {level: .., <option>: ..}}`), by
    /// rule code; only options the rule's page documents get here. Read them with
    /// [`Project::rule_option`].
    pub rule_options: BTreeMap<&'static str, Vec<(String, Node)>>,
    /// Bounds for the engine the analysis builds (docs/limits.md).
    pub limits: crate::limits::Limits,
    analysis: OnceLock<crate::analysis::Analysis>,
    fact_names: OnceLock<Option<std::collections::BTreeSet<String>>>,
    reach: std::sync::Mutex<crate::rules::reach::ReachCache>,
    /// The hiera.yaml files among `files`, by path ([`Project::hiera_config_file`]).
    hiera_configs: OnceLock<crate::engine::vfs::PathMap<usize>>,
    /// What rules computed once for the whole project, by rule name ([`Project::rule_memo`]).
    rule_memos: std::sync::Mutex<BTreeMap<&'static str, Arc<RuleMemo>>>,
}

/// One rule's memo: its value, computed once.
type RuleMemo = OnceLock<Arc<dyn std::any::Any + Send + Sync>>;

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project")
            .field("files", &self.files.len())
            .field("fact_sets", &self.fact_sets.len())
            .finish()
    }
}

impl Project {
    pub fn new(files: Vec<LoadedFile>) -> Project {
        Project {
            files,
            ..Project::default()
        }
    }

    /// A copy of the project (files, fact sets, settings) without its analysis, for a check
    /// that runs on another thread while this one keeps changing (the language server).
    pub fn snapshot(&self) -> Project {
        Project {
            files: self.files.clone(),
            fact_sets: self.fact_sets.clone(),
            puppet: self.puppet,
            rule_options: self.rule_options.clone(),
            limits: self.limits,
            analysis: OnceLock::new(),
            fact_names: OnceLock::new(),
            reach: Default::default(),
            hiera_configs: OnceLock::new(),
            rule_memos: Default::default(),
        }
    }

    pub fn puppet(&self) -> crate::engine::PuppetVersion {
        self.puppet.unwrap_or(crate::engine::PuppetVersion::V8)
    }

    /// The engine-backed analysis, built on first use (only rules that need it pay for it).
    pub fn analysis(&self) -> &crate::analysis::Analysis {
        self.analysis
            .get_or_init(|| crate::analysis::analyze(self, &self.fact_sets, self.puppet()))
    }

    /// The analysis, when a rule has built it.
    pub fn built_analysis(&self) -> Option<&crate::analysis::Analysis> {
        self.analysis.get()
    }

    /// Puts `file` in the project in place of the file with the same path (or adds it, keeping
    /// the files sorted by path), and forgets the analysis built from the old content. The
    /// language server re-checks an edited buffer this way without reloading anything else.
    pub fn set_file(&mut self, file: LoadedFile) {
        match self
            .files
            .iter()
            .position(|f| f.source.path == file.source.path)
        {
            Some(i) => self.files[i] = file,
            None => {
                let at = self
                    .files
                    .partition_point(|f| f.source.path < file.source.path);
                self.files.insert(at, file);
            }
        }
        self.invalidate_analysis();
    }

    /// Removes the file at `path` (and forgets the analysis); returns it if it was there.
    pub fn remove_file(&mut self, path: &std::path::Path) -> Option<LoadedFile> {
        let i = self.files.iter().position(|f| f.source.path == path)?;
        self.invalidate_analysis();
        Some(self.files.remove(i))
    }

    /// Forgets the engine-backed analysis (after files or fact sets changed).
    pub fn invalidate_analysis(&mut self) {
        self.analysis = OnceLock::new();
        self.fact_names = OnceLock::new();
        self.reach = Default::default();
        self.hiera_configs = OnceLock::new();
        self.rule_memos = Default::default();
    }

    /// What rule `rule` computes once from the project's files (`init`), computed on first
    /// use: by the rule's [`crate::rules::Rule::prepare`] while the analysis is built, or by
    /// the rule itself when nothing prepared it (the language server). `init` must not run
    /// parallel work that could wait on this memo from another rayon thread (see
    /// [`crate::rules::Rule::prepare`]). Forgotten with the analysis.
    pub fn rule_memo<T: std::any::Any + Send + Sync>(
        &self,
        rule: &'static str,
        init: impl Fn() -> T,
    ) -> Arc<T> {
        let cell = {
            let mut memos = self
                .rule_memos
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            memos.entry(rule).or_default().clone()
        };
        let value = cell
            .get_or_init(|| Arc::new(init()) as Arc<dyn std::any::Any + Send + Sync>)
            .clone();
        // One type per rule name; another type is computed afresh rather than trusted.
        value.downcast::<T>().unwrap_or_else(|_| Arc::new(init()))
    }

    /// What `rules::reach` keeps of each layer (forgotten with the analysis).
    pub(crate) fn reach_cache(&self) -> &std::sync::Mutex<crate::rules::reach::ReachCache> {
        &self.reach
    }

    /// The top-level fact names of every fact set, computed once (`None` without fact sets).
    /// Rules ask for them per file; collecting them from 1,000 fact sets per file was most of a
    /// `--facts` run.
    pub fn fact_names(&self) -> Option<&std::collections::BTreeSet<String>> {
        self.fact_names
            .get_or_init(|| {
                if self.fact_sets.is_empty() {
                    return None;
                }
                let mut out = std::collections::BTreeSet::new();
                for fs in &self.fact_sets {
                    if let Some(h) = fs.facts.as_hash() {
                        out.extend(h.keys().filter_map(|k| k.as_str().map(str::to_string)));
                    }
                }
                Some(out)
            })
            .as_ref()
    }

    /// The loaded file at `path`, if the project has it.
    pub fn file(&self, path: &std::path::Path) -> Option<&LoadedFile> {
        self.files.iter().find(|f| f.source.path == path)
    }

    /// The hiera.yaml file (role [`FileRole::HieraConfig`]) at `path`, if the project has it,
    /// through an index built on first use: each layer's plan looked for its hiera.yaml by
    /// scanning every file, 500 scans of 15,000 files in a 15k-file repository (1.7% of its
    /// check). Every change to `files` goes through [`Project::set_file`],
    /// [`Project::remove_file`] or is followed by [`Project::invalidate_analysis`], which
    /// forget the index; a hit is checked against `files` all the same (a stale index then
    /// costs the scan, not a wrong file).
    pub fn hiera_config_file(&self, path: &std::path::Path) -> Option<&LoadedFile> {
        let index = self.hiera_configs.get_or_init(|| {
            let mut m = crate::engine::vfs::PathMap::default();
            for (i, f) in self.files.iter().enumerate() {
                if f.role == FileRole::HieraConfig {
                    m.entry(crate::engine::vfs::PathKey(f.source.path.clone()))
                        .or_insert(i);
                }
            }
            m
        });
        let scan = || {
            self.files
                .iter()
                .find(|f| f.role == FileRole::HieraConfig && f.source.path == path)
        };
        match index.get(&crate::engine::vfs::PathRef(path)) {
            Some(&i) => match self.files.get(i) {
                Some(f) if f.role == FileRole::HieraConfig && f.source.path == path => Some(f),
                _ => scan(),
            },
            None => None,
        }
    }

    /// An option of a rule from the configuration file, with its span in that file.
    pub fn rule_option(&self, code: &str, option: &str) -> Option<&Node> {
        self.rule_options
            .get(code)?
            .iter()
            .find(|(k, _)| k == option)
            .map(|(_, v)| v)
    }
}

/// Whether a string of a file whose text is `text` (key or value) can contain `needle`: a YAML or JSON text
/// can only give one that it writes, or that an escape (`"\x25{"`, `"\u0025{"`) or a
/// `!!binary` value decodes to (line folding inserts a space or a line break, never
/// nothing). A binary tag need not say `binary`: `%TAG !b! tag:yaml.org,2002:bin` then
/// `!b!ary`, or `!!bin%61ry`, decode as Psych decodes `!!binary` (recorded:
/// conformance/yaml/binary-tags), so any tag (every YAML tag is written with `!`) counts.
/// HOCON concatenates values (`"%""{x}"`), so its files always may. One pass over the text
/// spares the walk over the tree (`rules::interp_sites`, at parse time).
pub fn text_may_contain(text: &str, format: crate::loader::Format, needle: &str) -> bool {
    let text = text.as_bytes();
    // A vectorized search for the whole needle (a search for its first byte stopped at
    // every `E` of a text looking for `ENC[`), then one pass for both escape and tag.
    let written = || memchr::memmem::find(text, needle.as_bytes()).is_some();
    match format {
        crate::loader::Format::Hocon => true,
        crate::loader::Format::Json => written() || memchr::memchr(b'\\', text).is_some(),
        _ => written() || memchr::memchr2(b'\\', b'!', text).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn rule_memos_are_computed_once_per_rule_and_forgotten_with_the_analysis() {
        let mut p = Project::new(Vec::new());
        let runs = AtomicUsize::new(0);
        let compute = |v: u32| {
            runs.fetch_add(1, Ordering::SeqCst);
            v
        };
        assert_eq!(*p.rule_memo("a", || compute(1)), 1);
        // Computed once: a second call takes the first value.
        assert_eq!(*p.rule_memo("a", || compute(2)), 1);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Another rule has its own.
        assert_eq!(*p.rule_memo("b", || compute(3)), 3);
        // Another type under the same name is computed afresh, not mistaken for the first.
        assert_eq!(*p.rule_memo("a", || String::from("x")), "x");
        p.invalidate_analysis();
        assert_eq!(*p.rule_memo("a", || compute(4)), 4);
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }
}

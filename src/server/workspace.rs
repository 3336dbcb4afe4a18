//! The language server's state: the open buffers, and for each environment they belong to the
//! loaded [`Project`] (with unsaved buffers in place of their files), its fact sets and the
//! diagnostics the client was last sent.
//!
//! An edit re-parses only the edited buffer and puts it in the project
//! ([`Project::set_file`]). A check then has two parts, as `check::diagnose` has:
//! * the project phases (`check_project`: rules that look across files, and the lookup engine,
//!   which reads the project's files, so they see the unsaved text) run as a [`ProjectJob`] on
//!   a snapshot of the project ([`Workspace::project_jobs`]), on another thread in the server;
//!   their findings come back with [`Workspace::project_done`];
//! * [`Workspace::check_files`] runs the per-file phases for the files whose text changed (the
//!   others' findings are kept), adds the latest project-phase findings, then suppressions,
//!   levels and per-file-ignores ([`run::settle`]), and returns the files whose diagnostics
//!   changed, to publish.
//!
//! [`Workspace::check`] does both on the calling thread. Nothing else is read from disk again
//! until the disk changes ([`Workspace::files_changed`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, FileChangeType, Location, NumberOrString,
    Range, TextDocumentContentChangeEvent, Uri,
};

use crate::check;
use crate::diag::{self, Diagnostic, Label, Severity};
use crate::engine::PuppetVersion;
use crate::facts::{self, FactsError};
use crate::loader::{self, Format};
use crate::project::{FileRole, Layer, LoadedFile, Project};
use crate::rules::{Rule, RuleMeta};
use crate::run;
use crate::scan::{self, ScanError};
use crate::span::SourceFile;

use super::settings::{EnvSettings, InitOptions, CONFIG_FILE};
use super::text::{self, Coords, Encoding};
use super::uri;

/// How the workspace is set up.
pub struct WorkspaceOptions {
    /// The rules to run (the registry; tests add their own).
    pub rules: Vec<&'static dyn Rule>,
    /// The client's `initializationOptions`.
    pub init: InitOptions,
    pub encoding: Encoding,
    /// The workspace folders (where a `data/` directory alone marks an environment).
    pub roots: Vec<PathBuf>,
}

/// An open buffer.
pub(crate) struct Doc {
    /// The URI exactly as the client sent it (used again when publishing for this file).
    pub uri: Uri,
    pub text: String,
    pub version: i32,
    /// The key of the environment the file was loaded into.
    pub env: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EnvKind {
    /// A control repository or environment directory.
    Environment,
    /// A module on its own (not under an environment).
    Module,
    /// A file in neither: checked alone, as `hieralint check <file>` does.
    Loose,
}

/// One environment (or module, or loose file) held in memory.
pub(crate) struct Env {
    /// The environment or module directory; for a loose file, the file.
    pub root: PathBuf,
    pub kind: EnvKind,
    pub project: Project,
    scan_errors: Vec<ScanError>,
    fact_errors: Vec<FactsError>,
    pub settings: EnvSettings,
    /// Every rule the run knows, the codes enabled, and the rules that run.
    known: Vec<&'static RuleMeta>,
    enabled: BTreeSet<&'static str>,
    to_run: Vec<&'static dyn Rule>,
    /// The per-file phases' findings by file, with the text they were computed on: a check
    /// runs them again only for files whose text changed (see [`Env::diagnostics`]).
    file_results: HashMap<PathBuf, (Arc<SourceFile>, Vec<Diagnostic>)>,
    /// Changed at every change of the project (texts, files, fact sets): a number from
    /// [`next_generation`], so that numbers never repeat, even across reloads.
    generation: u64,
    /// The generation the environment was loaded at: runs older than that belong to an
    /// environment loaded before (a reload) and are ignored.
    born: u64,
    /// How long the last project-phase run took.
    last_run: Option<Duration>,
    /// The project phases' findings, and the generation they were computed on.
    project_results: Option<(u64, Vec<Diagnostic>)>,
    /// The generation a project-phase run under way is computing.
    project_running: Option<u64>,
    /// The published diagnostics are out of date.
    dirty: bool,
    /// What the client was last sent, by file: the diagnostics of the last check.
    pub published: HashMap<PathBuf, Vec<Diagnostic>>,
}

/// Diagnostics to send for one file.
#[derive(Clone, Debug)]
pub struct Publication {
    pub uri: Uri,
    /// The buffer's version for an open file.
    pub version: Option<i32>,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
}

/// A run of the project phases (`check_project`: the cross-file rules) on a snapshot of one
/// environment's project, which can run on another thread while edits go on.
pub struct ProjectJob {
    key: PathBuf,
    generation: u64,
    project: Project,
    rules: Vec<&'static dyn Rule>,
    expected: Option<Duration>,
}

/// What a [`ProjectJob`] found (`None`: a rule panicked).
pub struct ProjectDone {
    key: PathBuf,
    generation: u64,
    diagnostics: Option<Vec<Diagnostic>>,
    took: Duration,
}

static GENERATIONS: AtomicU64 = AtomicU64::new(1);

/// A generation number never handed out before.
fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed)
}

impl ProjectJob {
    /// Runs the project phases (a panicking rule gives no findings, as the per-file phases'
    /// `catch_unwind` in the server does).
    pub fn run(self) -> ProjectDone {
        let start = Instant::now();
        let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check::run_project_rules(&self.project, &self.rules)
        }));
        ProjectDone {
            key: self.key,
            generation: self.generation,
            diagnostics: found.ok(),
            took: start.elapsed(),
        }
    }

    /// How long the environment's previous run took (`None`: this is the first).
    pub fn expected(&self) -> Option<Duration> {
        self.expected
    }
}

/// The server's state.
pub struct Workspace {
    rules: Vec<&'static dyn Rule>,
    init: InitOptions,
    roots: Vec<PathBuf>,
    pub(crate) enc: Encoding,
    pub(crate) docs: HashMap<PathBuf, Doc>,
    pub(crate) envs: BTreeMap<PathBuf, Env>,
    /// Clearing publications for environments dropped since the last check.
    pending: Vec<Publication>,
}

/// Reads a buffer or file text into a loaded file with the given role.
fn load_text(
    path: &Path,
    bytes: &[u8],
    role: FileRole,
    layer: Layer,
    env_root: Option<Arc<Path>>,
) -> LoadedFile {
    let source = Arc::new(SourceFile::from_bytes(path, bytes));
    let format = Format::from_extension(path).unwrap_or(Format::Yaml);
    let doc = loader::load(format, &source);
    LoadedFile::new(source, doc, role, layer, env_root)
}

/// Whether `dir` is a module: it has metadata.json, or it sits in a modulepath directory of
/// the environment above it.
fn is_module_dir(dir: &Path) -> bool {
    if scan::looks_like_module(dir) {
        return true;
    }
    let (Some(parent), Some(env)) = (dir.parent(), dir.parent().and_then(Path::parent)) else {
        return false;
    };
    scan::looks_like_environment(env) && scan::module_dirs(env).iter().any(|m| m == parent)
}

/// Where a file belongs: the nearest enclosing environment (skipping the modules on its
/// modulepath), else the nearest module, else nowhere.
///
/// A directory with a hiera.yaml or an environment.conf is an environment wherever it is; one
/// that only has a `data/` directory (the scanner's weaker sign) counts only inside a workspace
/// folder, so that opening a file under a home directory with a `data/` in it does not load
/// that whole directory.
fn discover(path: &Path, roots: &[PathBuf]) -> (PathBuf, EnvKind) {
    let mut module = None;
    for dir in path.ancestors().skip(1) {
        if is_module_dir(dir) {
            module.get_or_insert_with(|| dir.to_path_buf());
            continue;
        }
        let strong = dir.join("hiera.yaml").is_file() || dir.join("environment.conf").is_file();
        let weak = || roots.iter().any(|r| dir.starts_with(r)) && scan::looks_like_environment(dir);
        if strong || weak() {
            return (dir.to_path_buf(), EnvKind::Environment);
        }
    }
    match module {
        Some(m) => (m, EnvKind::Module),
        None => (path.to_path_buf(), EnvKind::Loose),
    }
}

fn puppet_version(v: u8) -> PuppetVersion {
    if v == 7 {
        PuppetVersion::V7
    } else {
        PuppetVersion::V8
    }
}

impl Env {
    /// Loads an environment (or module, or loose file) as `hieralint check` would: its
    /// configuration, the rules it enables, the files it does not exclude, the rules' options
    /// and its fact sets.
    fn load(root: PathBuf, kind: EnvKind, init: &InitOptions, rules: &[&'static dyn Rule]) -> Env {
        let settings_dir = match kind {
            EnvKind::Loose => root.parent().unwrap_or(&root).to_path_buf(),
            _ => root.clone(),
        };
        let mut run_opts = run::RunOptions::new(vec![root.clone()]);
        run_opts.registry = rules.to_vec();
        let known = run_opts.known();
        let settings = EnvSettings::resolve(init, &settings_dir, &known);
        run_opts.settings = settings.settings.clone();
        let enabled = run::enabled_codes(&run_opts, &known);
        let to_run = rules
            .iter()
            .copied()
            .filter(|r| enabled.contains(r.meta().code))
            .collect();
        let exclude: Option<scan::PathFilter> = if settings.settings.exclude.is_empty() {
            None
        } else {
            let s = Arc::new(settings.settings.clone());
            Some(Arc::new(move |p: &Path| s.is_excluded(p)))
        };
        let scanned = scan::load_project_with(
            std::slice::from_ref(&root),
            &scan::ScanOptions {
                exclude,
                limits: settings.settings.limits,
                ..Default::default()
            },
        );
        let mut project = scanned.project;
        project.limits = settings.settings.limits;
        let scan_errors = scanned.errors;
        for (code, rc) in &settings.settings.rules {
            if !rc.options.is_empty() {
                project.rule_options.insert(code, rc.options.clone());
            }
        }
        let fact_errors = match kind {
            EnvKind::Loose => Vec::new(),
            _ => {
                let (sets, errors) = facts::load_fact_sets(&settings.facts);
                project.fact_sets = sets;
                errors
            }
        };
        project.puppet = Some(puppet_version(settings.puppet));
        let born = next_generation();
        Env {
            root,
            kind,
            project,
            scan_errors,
            fact_errors,
            settings,
            known,
            enabled,
            to_run,
            file_results: HashMap::new(),
            generation: born,
            born,
            last_run: None,
            project_results: None,
            project_running: None,
            dirty: true,
            published: HashMap::new(),
        }
    }

    /// Reads the fact sets again (after their files changed).
    fn reload_facts(&mut self) {
        if self.kind == EnvKind::Loose {
            return;
        }
        let (sets, errors) = facts::load_fact_sets(&self.settings.facts);
        self.project.fact_sets = sets;
        self.fact_errors = errors;
        self.project.invalidate_analysis();
        self.file_results.clear();
        self.touched();
    }

    /// The project changed: check again, and run the project phases again.
    fn touched(&mut self) {
        self.dirty = true;
        self.generation = next_generation();
    }

    /// Whether the configuration leaves `path` out of the run (`exclude`).
    fn excludes(&self, path: &Path) -> bool {
        !self.settings.settings.exclude.is_empty() && self.settings.settings.is_excluded(path)
    }

    /// The role and layer a file that is not (yet) in the project would have: a hiera.yaml of
    /// the environment or of one of its modules, or a data file under one of their datadirs.
    fn classify(&self, path: &Path) -> Option<(FileRole, Layer)> {
        if self.kind == EnvKind::Loose {
            return None;
        }
        let mut layers: Vec<(PathBuf, Layer)> = Vec::new();
        match self.kind {
            EnvKind::Module => {
                layers.push((
                    self.root.clone(),
                    Layer::Module(scan::module_name_of(&self.root)),
                ));
            }
            _ => {
                layers.push((self.root.clone(), Layer::Environment));
                for mdir in scan::module_dirs(&self.root) {
                    if let Ok(rel) = path.strip_prefix(&mdir) {
                        if let Some(name) = rel.components().next() {
                            let name = name.as_os_str().to_string_lossy().to_string();
                            layers.push((mdir.join(&name), Layer::Module(name)));
                        }
                    }
                }
            }
        }
        for (dir, layer) in layers.into_iter().rev() {
            if path.parent() == Some(dir.as_path())
                && path.file_name().is_some_and(|n| n == "hiera.yaml")
            {
                return Some((FileRole::HieraConfig, layer));
            }
            if scan::is_data_extension(path)
                && scan::datadirs_of(&dir).iter().any(|d| path.starts_with(d))
            {
                return Some((FileRole::Data, layer));
            }
        }
        None
    }

    /// Puts a text in the project for `path` (an open buffer, or the disk content); returns
    /// false when the file is not part of this project.
    fn put(&mut self, path: &Path, bytes: &[u8]) -> bool {
        if self.excludes(path) {
            return false;
        }
        let existing = self
            .project
            .file(path)
            .map(|f| (f.role.clone(), f.layer.clone(), f.env_root.clone()));
        let added = existing.is_none();
        let (role, layer, env_root) = match existing {
            Some(x) => x,
            None => match self.classify(path) {
                Some((role, layer)) => {
                    // The environment's shared path (`LoadedFile::env_root`), when a file
                    // already holds it.
                    let root = self
                        .project
                        .files
                        .iter()
                        .find_map(|f| f.env_root.as_ref().filter(|r| ***r == *self.root))
                        .cloned()
                        .unwrap_or_else(|| Arc::from(self.root.as_path()));
                    (role, layer, Some(root))
                }
                None => return false,
            },
        };
        if role == FileRole::HieraConfig || added {
            // Per-file phases may read the configuration, and a hiera.yaml's may look at which
            // files exist: check every file again.
            self.file_results.clear();
        }
        self.project
            .set_file(load_text(path, bytes, role, layer, env_root));
        self.touched();
        true
    }

    /// Puts the disk content back for `path` (after its buffer closed or the disk changed), or
    /// drops the file when it is gone.
    fn revert_to_disk(&mut self, path: &Path) {
        match std::fs::read(path) {
            Ok(bytes) if bytes.len() as u64 <= scan::MAX_FILE_BYTES => {
                self.put(path, &bytes);
            }
            _ => self.remove(path),
        }
    }

    fn remove(&mut self, path: &Path) {
        if self.project.remove_file(path).is_some() {
            // (see `put`)
            self.file_results.clear();
            self.touched();
        }
    }

    /// What `hieralint check` reports for this project, before suppressions and levels:
    /// [`check::diagnose`], except that the per-file phases run only for the files whose text
    /// changed since the last call, and that the project phases' findings are those of the last
    /// project-phase run (see [`Workspace::project_jobs`]), without the ones that point into a
    /// file whose text changed since (their spans would be wrong). The `Rule` contract makes
    /// the per-file cache exact: a per-file phase reads its file and project-wide settings
    /// (cross-file findings belong to `check_project`); the cache is dropped when a hiera.yaml,
    /// the fact sets or the configuration change, or when a file comes or goes. Once the
    /// latest project-phase run has ended, the result equals `check::diagnose` (tested).
    fn diagnostics(&mut self) -> Vec<Diagnostic> {
        let Env {
            project,
            file_results,
            to_run,
            project_results,
            ..
        } = self;
        let stale: Vec<&LoadedFile> = project
            .files
            .iter()
            .filter(|f| {
                !file_results
                    .get(&f.source.path)
                    .is_some_and(|(s, _)| Arc::ptr_eq(s, &f.source))
            })
            .collect();
        let fresh: Vec<(PathBuf, Arc<SourceFile>, Vec<Diagnostic>)> = stale
            .par_iter()
            .map(|f| {
                (
                    f.source.path.clone(),
                    f.source.clone(),
                    check::run_file_rules(project, f, to_run),
                )
            })
            .collect();
        for (path, source, found) in fresh {
            file_results.insert(path, (source, found));
        }
        if file_results.len() > project.files.len() {
            let present: BTreeSet<&Path> = project
                .files
                .iter()
                .map(|f| f.source.path.as_path())
                .collect();
            file_results.retain(|p, _| present.contains(p.as_path()));
        }
        let mut found: Vec<Diagnostic> = project
            .files
            .iter()
            .filter_map(|f| file_results.get(&f.source.path))
            .flat_map(|(_, d)| d.iter().cloned())
            .collect();
        if let Some((_, project_found)) = project_results {
            let current: HashMap<&Path, &Arc<SourceFile>> = project
                .files
                .iter()
                .map(|f| (f.source.path.as_path(), &f.source))
                .collect();
            let up_to_date = |l: &Label| {
                current
                    .get(l.file.path.as_path())
                    .is_none_or(|f| Arc::ptr_eq(f, &l.file))
            };
            found.extend(
                project_found
                    .iter()
                    .filter(|d| up_to_date(&d.primary) && d.secondary.iter().all(up_to_date))
                    .cloned(),
            );
        }
        found.extend(check::own_diagnostics(&self.scan_errors, &self.fact_errors));
        diag::sort_and_dedup(&mut found);
        found
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.project.file(path).is_some()
    }
}

/// Whether two diagnostics lists would be shown the same (same files and texts, spans and
/// words): then the client need not be sent them again.
fn same_diagnostics(a: &[Diagnostic], b: &[Diagnostic]) -> bool {
    fn same_file(a: &Arc<SourceFile>, b: &Arc<SourceFile>) -> bool {
        Arc::ptr_eq(a, b) || (a.path == b.path && a.text == b.text)
    }
    fn same_label(a: &Label, b: &Label) -> bool {
        same_file(&a.file, &b.file) && a.span == b.span && a.message == b.message
    }
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.rule.code == y.rule.code
                && x.severity == y.severity
                && x.message == y.message
                && same_label(&x.primary, &y.primary)
                && x.secondary.len() == y.secondary.len()
                && x.secondary
                    .iter()
                    .zip(&y.secondary)
                    .all(|(l, m)| same_label(l, m))
                && x.notes == y.notes
                && x.fix == y.fix
        })
}

impl Workspace {
    pub fn new(opts: WorkspaceOptions) -> Workspace {
        Workspace {
            rules: opts.rules,
            init: opts.init,
            roots: opts.roots,
            enc: opts.encoding,
            docs: HashMap::new(),
            envs: BTreeMap::new(),
            pending: Vec::new(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.enc
    }

    /// The URI to use for a file: the client's own for an open buffer.
    pub(crate) fn uri_for(&self, path: &Path) -> Uri {
        match self.docs.get(path) {
            Some(d) => d.uri.clone(),
            None => uri::from_path(path),
        }
    }

    /// Span ↔ position conversion for a file of a project (accounting for a byte order mark
    /// the client's buffer keeps).
    pub(crate) fn coords<'a>(&self, file: &'a SourceFile) -> Coords<'a> {
        let bom = file.had_bom
            && self
                .docs
                .get(&file.path)
                .is_some_and(|d| d.text.starts_with('\u{feff}'));
        Coords::new(file, self.enc, bom)
    }

    /// The environment holding an open buffer, and the buffer's loaded file.
    pub(crate) fn file_of(&self, path: &Path) -> Option<(&Env, &LoadedFile)> {
        let doc = self.docs.get(path)?;
        let env = self.envs.get(&doc.env)?;
        Some((env, env.project.file(path)?))
    }

    /// The environment key for a file, loading the environment when needed.
    fn env_for(&mut self, path: &Path) -> PathBuf {
        if let Some((key, _)) = self.envs.iter().find(|(_, e)| e.contains(path)) {
            return key.clone();
        }
        let (root, kind) = discover(path, &self.roots);
        if kind != EnvKind::Loose {
            let env = self
                .envs
                .entry(root.clone())
                .or_insert_with(|| Env::load(root.clone(), kind, &self.init, &self.rules));
            if env.contains(path) || env.classify(path).is_some() {
                return root;
            }
        }
        // Checked alone, as `hieralint check <file>` does.
        let key = path.to_path_buf();
        self.envs
            .entry(key.clone())
            .or_insert_with(|| Env::load(key.clone(), EnvKind::Loose, &self.init, &self.rules));
        key
    }

    /// `textDocument/didOpen`.
    pub fn open(&mut self, path: &Path, uri: Uri, text: String, version: i32) {
        let key = self.env_for(path);
        if let Some(env) = self.envs.get_mut(&key) {
            if !env.put(path, text.as_bytes()) && env.kind == EnvKind::Loose && !env.excludes(path)
            {
                // A loose file that does not exist on disk yet: check the buffer alone.
                let role = if path.file_name().is_some_and(|n| n == "hiera.yaml") {
                    FileRole::HieraConfig
                } else {
                    FileRole::Loose
                };
                env.project.set_file(load_text(
                    path,
                    text.as_bytes(),
                    role,
                    Layer::Environment,
                    None,
                ));
                env.scan_errors.retain(|e| e.path != path);
                env.touched();
            }
        }
        self.docs.insert(
            path.to_path_buf(),
            Doc {
                uri,
                text,
                version,
                env: key,
            },
        );
    }

    /// `textDocument/didChange`: applies the changes to the buffer and re-parses it.
    pub fn change(
        &mut self,
        path: &Path,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) {
        let enc = self.enc;
        let Some(doc) = self.docs.get_mut(path) else {
            return;
        };
        for c in changes {
            text::apply_change(&mut doc.text, c.range, &c.text, enc);
        }
        doc.version = version;
        if let Some(env) = self.envs.get_mut(&doc.env) {
            env.put(path, doc.text.as_bytes());
        }
    }

    /// `textDocument/didClose`: the disk content replaces the buffer; an environment with no
    /// open buffer left is dropped (and its diagnostics cleared).
    pub fn close(&mut self, path: &Path) {
        let Some(doc) = self.docs.remove(path) else {
            return;
        };
        let still_open = self.docs.values().any(|d| d.env == doc.env);
        if still_open {
            if let Some(env) = self.envs.get_mut(&doc.env) {
                env.revert_to_disk(path);
            }
            return;
        }
        if let Some(env) = self.envs.remove(&doc.env) {
            let mut paths: Vec<&PathBuf> = env.published.keys().collect();
            paths.sort();
            for p in paths {
                self.pending.push(Publication {
                    uri: if p == path {
                        doc.uri.clone()
                    } else {
                        self.uri_for(p)
                    },
                    version: None,
                    diagnostics: Vec::new(),
                });
            }
        }
    }

    /// Files changed on disk (`workspace/didChangeWatchedFiles`, or a save): configuration and
    /// fact sets are read again, hiera.yaml/environment.conf/metadata.json changes reload the
    /// environment, data files are re-read unless they are open (the buffer wins).
    pub fn files_changed(&mut self, changes: &[(PathBuf, FileChangeType)]) {
        let mut seen = BTreeSet::new();
        let mut reload: BTreeSet<PathBuf> = BTreeSet::new();
        let mut facts: BTreeSet<PathBuf> = BTreeSet::new();
        for (path, kind) in changes {
            if !seen.insert((path.clone(), format!("{kind:?}"))) {
                continue;
            }
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            for (key, env) in self.envs.iter_mut() {
                if env.kind == EnvKind::Loose {
                    let config_dir = path.parent().unwrap_or(path);
                    if name == CONFIG_FILE && env.root.starts_with(config_dir) {
                        reload.insert(key.clone());
                    } else if key == path && !self.docs.contains_key(path) {
                        env.revert_to_disk(path);
                    }
                    continue;
                }
                // The configuration decides the rules, exclusions and fact sets: load again.
                let config_dir = path.parent().unwrap_or(path);
                if name == CONFIG_FILE && env.root.starts_with(config_dir) {
                    reload.insert(key.clone());
                    continue;
                }
                if env.settings.facts.iter().any(|f| path.starts_with(f)) {
                    facts.insert(key.clone());
                }
                if !path.starts_with(&env.root) {
                    continue;
                }
                if matches!(name, "hiera.yaml" | "environment.conf" | "metadata.json") {
                    reload.insert(key.clone());
                    continue;
                }
                if self.docs.contains_key(path) || !scan::is_data_extension(path) {
                    continue;
                }
                if *kind == FileChangeType::DELETED {
                    env.remove(path);
                } else {
                    env.revert_to_disk(path);
                }
            }
        }
        for key in &reload {
            self.reload_env(key);
        }
        for key in facts.difference(&reload) {
            if let Some(env) = self.envs.get_mut(key) {
                env.reload_facts();
            }
        }
    }

    /// Loads an environment again from disk, keeping the open buffers and what the client was
    /// sent.
    fn reload_env(&mut self, key: &Path) {
        let Some(old) = self.envs.remove(key) else {
            return;
        };
        let mut env = Env::load(old.root.clone(), old.kind, &self.init, &self.rules);
        env.published = old.published;
        for (path, doc) in &self.docs {
            if doc.env == key {
                env.put(path, doc.text.as_bytes());
            }
        }
        self.envs.insert(key.to_path_buf(), env);
    }

    /// The fact set paths of every loaded environment (to watch them).
    pub fn fact_paths(&self) -> BTreeSet<PathBuf> {
        self.envs
            .values()
            .flat_map(|e| e.settings.facts.iter().cloned())
            .collect()
    }

    /// Whether an edit (or a project-phase result) is waiting for [`Workspace::check_files`].
    pub fn is_dirty(&self) -> bool {
        !self.pending.is_empty() || self.envs.values().any(|e| e.dirty)
    }

    /// Whether an environment's project phases are out of date and not running.
    pub fn needs_project_run(&self) -> bool {
        self.envs.values().any(|e| {
            e.project_running.is_none()
                && e.project_results.as_ref().map(|(g, _)| *g) != Some(e.generation)
        })
    }

    /// The project-phase runs to start: one per environment whose project changed since its
    /// last run, unless one is under way (it will be followed by another when it ends). Each
    /// job holds a snapshot of the project, so it can run on another thread while edits go on.
    pub fn project_jobs(&mut self) -> Vec<ProjectJob> {
        let mut jobs = Vec::new();
        for (key, env) in self.envs.iter_mut() {
            let current = env.project_results.as_ref().map(|(g, _)| *g) == Some(env.generation);
            if current || env.project_running.is_some() {
                continue;
            }
            env.project_running = Some(env.generation);
            jobs.push(ProjectJob {
                key: key.clone(),
                generation: env.generation,
                project: env.project.snapshot(),
                rules: env.to_run.clone(),
                expected: env.last_run,
            });
        }
        jobs
    }

    /// Takes the findings of a finished project-phase run; the next [`Workspace::check_files`]
    /// publishes them.
    pub fn project_done(&mut self, done: ProjectDone) {
        let Some(env) = self.envs.get_mut(&done.key) else {
            return;
        };
        if done.generation < env.born {
            // A run for the environment before it was loaded again.
            return;
        }
        if env.project_running == Some(done.generation) {
            env.project_running = None;
        }
        env.last_run = Some(done.took);
        let newer = env
            .project_results
            .as_ref()
            .is_none_or(|(g, _)| *g < done.generation);
        match done.diagnostics {
            Some(found) if newer => {
                env.project_results = Some((done.generation, found));
                env.dirty = true;
            }
            // A run that failed is not tried again for the same text.
            None if newer => env.project_results = Some((done.generation, Vec::new())),
            _ => {}
        }
    }

    /// Checks everything synchronously (the project phases on this thread) and returns what to
    /// publish.
    pub fn check(&mut self) -> Vec<Publication> {
        for job in self.project_jobs() {
            let done = job.run();
            self.project_done(done);
        }
        self.check_files()
    }

    /// Runs the per-file phases of every environment that changed, with the latest project
    /// phases' findings, and returns what to publish: every file whose diagnostics changed
    /// (including files that no longer have any).
    pub fn check_files(&mut self) -> Vec<Publication> {
        let mut out = std::mem::take(&mut self.pending);
        let keys: Vec<PathBuf> = self
            .envs
            .iter()
            .filter(|(_, e)| e.dirty)
            .map(|(k, _)| k.clone())
            .collect();
        for key in keys {
            let Some(env) = self.envs.get_mut(&key) else {
                continue;
            };
            env.dirty = false;
            // The `hieralint check` pipeline: the rules, then suppressions, levels and
            // per-file-ignores, then what is wrong in the configuration file.
            let found = env.diagnostics();
            let (mut found, _) = run::settle(
                &env.project,
                found,
                &env.settings.settings,
                &env.known,
                &env.enabled,
            );
            found.extend(env.settings.config_diagnostics.iter().cloned());
            diag::sort_and_dedup(&mut found);
            let mut by_path: HashMap<PathBuf, Vec<Diagnostic>> = HashMap::new();
            for d in found {
                by_path
                    .entry(d.primary.file.path.clone())
                    .or_default()
                    .push(d);
            }
            let old = std::mem::take(&mut env.published);
            let mut changed: Vec<PathBuf> = by_path
                .iter()
                .filter(|(p, list)| !old.get(*p).is_some_and(|o| same_diagnostics(o, list)))
                .map(|(p, _)| p.clone())
                .collect();
            changed.extend(old.keys().filter(|p| !by_path.contains_key(*p)).cloned());
            changed.sort();
            env.published = by_path;
            let env = &self.envs[&key];
            for path in changed {
                let list = env.published.get(&path).map(Vec::as_slice).unwrap_or(&[]);
                out.push(Publication {
                    uri: self.uri_for(&path),
                    version: self.docs.get(&path).map(|d| d.version),
                    diagnostics: self.to_lsp_all(list),
                });
            }
        }
        out
    }

    fn to_lsp_all(&self, list: &[Diagnostic]) -> Vec<lsp_types::Diagnostic> {
        let Some(first) = list.first() else {
            return Vec::new();
        };
        let coords = self.coords(&first.primary.file);
        list.iter().map(|d| self.to_lsp(d, &coords)).collect()
    }

    /// An LSP diagnostic for one of ours; `coords` are those of its primary file.
    pub(crate) fn to_lsp(&self, d: &Diagnostic, coords: &Coords<'_>) -> lsp_types::Diagnostic {
        let mut message = d.message.clone();
        if !d.primary.message.is_empty() && d.primary.message != d.message {
            message.push('\n');
            message.push_str(&d.primary.message);
        }
        for n in &d.notes {
            message.push_str("\nnote: ");
            message.push_str(n);
        }
        let related: Vec<DiagnosticRelatedInformation> = d
            .secondary
            .iter()
            .map(|l| DiagnosticRelatedInformation {
                location: Location::new(
                    self.uri_for(&l.file.path),
                    self.coords(&l.file).range(l.span),
                ),
                message: if l.message.is_empty() {
                    "related".to_string()
                } else {
                    l.message.clone()
                },
            })
            .collect();
        lsp_types::Diagnostic {
            range: coords.range(d.primary.span),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Info => DiagnosticSeverity::INFORMATION,
            }),
            code: Some(NumberOrString::String(d.rule.code.to_string())),
            code_description: d
                .rule
                .url()
                .parse::<Uri>()
                .ok()
                .map(|href| lsp_types::CodeDescription { href }),
            source: Some("hieralint".to_string()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: None,
        }
    }

    /// The diagnostics last published for a file, with the environment they belong to.
    pub(crate) fn published_for(&self, path: &Path) -> Option<(&Env, &[Diagnostic])> {
        self.envs
            .values()
            .find_map(|e| e.published.get(path).map(|l| (e, l.as_slice())))
    }

    /// The range of a span of a file in the client's coordinates.
    pub(crate) fn range_of(&self, file: &SourceFile, span: crate::span::Span) -> Range {
        self.coords(file).range(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_skips_modules_of_an_environment() {
        let root = std::env::temp_dir().join(format!("hieralint-discover-{}", std::process::id()));
        let env = root.join("env");
        std::fs::create_dir_all(env.join("data")).unwrap();
        std::fs::create_dir_all(env.join("modules/ntp/data")).unwrap();
        std::fs::create_dir_all(root.join("lone/data")).unwrap();
        std::fs::write(env.join("hiera.yaml"), "version: 5\n").unwrap();
        std::fs::write(env.join("modules/ntp/hiera.yaml"), "version: 5\n").unwrap();
        std::fs::write(root.join("lone/metadata.json"), "{}").unwrap();
        assert_eq!(
            discover(&env.join("modules/ntp/data/common.yaml"), &[]),
            (env.clone(), EnvKind::Environment)
        );
        assert_eq!(
            discover(&env.join("data/common.yaml"), &[]),
            (env.clone(), EnvKind::Environment)
        );
        assert_eq!(
            discover(&root.join("lone/data/x.yaml"), &[]),
            (root.join("lone"), EnvKind::Module)
        );
        // a bare data/ directory is an environment only inside a workspace folder
        std::fs::create_dir_all(root.join("bare/data")).unwrap();
        let bare = root.join("bare/data/common.yaml");
        assert_eq!(discover(&bare, &[]), (bare.clone(), EnvKind::Loose));
        assert_eq!(
            discover(&bare, std::slice::from_ref(&root)),
            (root.join("bare"), EnvKind::Environment)
        );
        let loose = Path::new("/nonexistent-hieralint/x.yaml");
        assert_eq!(discover(loose, &[]), (loose.to_path_buf(), EnvKind::Loose));
        let _ = std::fs::remove_dir_all(&root);
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    /// What was published, as comparable tuples.
    fn published(ws: &Workspace) -> Vec<(PathBuf, u32, u32, &'static str, String)> {
        let mut v: Vec<_> = ws
            .envs
            .values()
            .flat_map(|e| e.published.values().flatten())
            .map(|d| {
                (
                    d.primary.file.path.clone(),
                    d.primary.span.start,
                    d.primary.span.end,
                    d.rule.code,
                    d.message.clone(),
                )
            })
            .collect();
        v.sort();
        v
    }

    /// The same, from scratch: `check::diagnose` over the whole project, then `run::settle`.
    fn full(ws: &Workspace) -> Vec<(PathBuf, u32, u32, &'static str, String)> {
        let mut v = Vec::new();
        for env in ws.envs.values() {
            let found = check::diagnose(
                &env.project,
                &env.scan_errors,
                &env.fact_errors,
                &env.to_run,
            );
            let (found, _) = run::settle(
                &env.project,
                found,
                &env.settings.settings,
                &env.known,
                &env.enabled,
            );
            v.extend(found.into_iter().map(|d| {
                (
                    d.primary.file.path.clone(),
                    d.primary.span.start,
                    d.primary.span.end,
                    d.rule.code,
                    d.message,
                )
            }));
        }
        v.sort();
        v
    }

    /// A copy of fixtures/lsp/env in a scratch directory (named after `tag`) and a workspace
    /// rooted there.
    fn lsp_fixture_workspace(tag: &str) -> (PathBuf, Workspace) {
        let root = std::env::temp_dir()
            .join(format!("hieralint-{tag}-{}", std::process::id()))
            .join("production");
        let _ = std::fs::remove_dir_all(&root);
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lsp/env"),
            &root,
        );
        let ws = Workspace::new(WorkspaceOptions {
            rules: crate::rules::registry().to_vec(),
            init: InitOptions::default(),
            encoding: Encoding::Utf16,
            roots: vec![root.clone()],
        });
        (root, ws)
    }

    /// The server's path for a large environment: the per-file findings are published while
    /// the project phases still run on a snapshot; their findings come with the next check;
    /// findings of a run that point into text edited since are held back; a run for an
    /// environment that was loaded again since is ignored.
    #[test]
    fn project_phases_found_later_are_published_then() {
        let (root, mut ws) = lsp_fixture_workspace("deferred");
        let common = root.join("data/common.yaml");
        let text = std::fs::read_to_string(&common).unwrap();
        ws.open(&common, uri::from_path(&common), text, 1);
        ws.check();
        let codes = |ws: &Workspace| -> Vec<(&'static str, u32)> {
            let mut v: Vec<_> = published(ws).into_iter().map(|d| (d.3, d.1)).collect();
            v.sort();
            v
        };
        assert_eq!(codes(&ws), vec![]);
        // line 14 (0-based 14: after the last line): a lookup of a key no file defines (H204,
        // a project phase) and a duplicate key (H002, a per-file phase).
        let add = TextDocumentContentChangeEvent {
            range: Some(Range::new(
                lsp_types::Position::new(14, 0),
                lsp_types::Position::new(14, 0),
            )),
            range_length: None,
            text: "profile::x: \"%{lookup('nope')}\"\nntp::servers: []\n".into(),
        };
        ws.change(&common, 2, vec![add]);
        let jobs = ws.project_jobs();
        assert_eq!(jobs.len(), 1);
        assert!(ws.project_jobs().is_empty(), "one run at a time");
        let pubs = ws.check_files();
        assert_eq!(pubs.len(), 1);
        assert_eq!(pubs[0].version, Some(2));
        let file_codes: Vec<String> = pubs[0]
            .diagnostics
            .iter()
            .map(|d| format!("{:?}", d.code))
            .collect();
        assert!(
            file_codes.iter().all(|c| !c.contains("H204")),
            "{file_codes:?}"
        );
        assert!(
            file_codes.iter().any(|c| c.contains("H002")),
            "{file_codes:?}"
        );
        // The run ends: its H204 goes out (line 14, 0-based, of the text it was run on).
        let done: Vec<ProjectDone> = jobs.into_iter().map(ProjectJob::run).collect();
        for d in done {
            ws.project_done(d);
        }
        assert!(ws.is_dirty());
        let pubs = ws.check_files();
        assert_eq!(pubs.len(), 1);
        let h204 = pubs[0]
            .diagnostics
            .iter()
            .find(|d| format!("{:?}", d.code).contains("H204"))
            .expect("the project phase's finding");
        assert_eq!(
            (h204.range.start.line, h204.range.start.character),
            (14, 13)
        );
        assert_eq!(published(&ws), full(&ws));
        // Another edit before the next run ends: the old run's H204 points into text that
        // changed, so it is held back rather than shown at a stale position.
        let jobs = {
            let fix = TextDocumentContentChangeEvent {
                range: Some(Range::new(
                    lsp_types::Position::new(14, 23),
                    lsp_types::Position::new(14, 27),
                )),
                range_length: None,
                text: "profile::base::domain".into(),
            };
            ws.change(&common, 3, vec![fix]);
            ws.project_jobs()
        };
        let pubs = ws.check_files();
        assert!(pubs[0]
            .diagnostics
            .iter()
            .all(|d| !format!("{:?}", d.code).contains("H204")));
        // The environment is loaded again (hiera.yaml changed on disk) while that run is
        // under way: its result belongs to the old environment and is dropped.
        ws.files_changed(&[(root.join("hiera.yaml"), FileChangeType::CHANGED)]);
        for d in jobs.into_iter().map(ProjectJob::run) {
            ws.project_done(d);
        }
        let key = ws.docs[&common].env.clone();
        assert!(ws.envs[&key].project_results.is_none());
        ws.check();
        assert_eq!(published(&ws), full(&ws));
        assert!(codes(&ws).iter().all(|(c, _)| *c != "H204"));
        let _ = std::fs::remove_dir_all(root.parent().unwrap());
    }

    /// A data file opened in the editor that the environment did not hold takes the
    /// environment's shared path (`LoadedFile::env_root`), not a copy of its own.
    #[test]
    fn a_file_added_in_the_editor_shares_the_environment_root() {
        let (root, mut ws) = lsp_fixture_workspace("shared-root");
        let added = root.join("data/added.yaml");
        ws.open(&added, uri::from_path(&added), "a: 1\n".into(), 1);
        let key = ws.docs[&added].env.clone();
        let files = &ws.envs[&key].project.files;
        let root_of = |f: &LoadedFile| f.env_root.clone().expect("an environment's file");
        let new = files
            .iter()
            .find(|f| f.source.path == added)
            .expect("added");
        let old = files
            .iter()
            .find(|f| f.source.path != added)
            .expect("loaded");
        assert!(Arc::ptr_eq(&root_of(new), &root_of(old)));
        let _ = std::fs::remove_dir_all(root.parent().unwrap());
    }

    #[test]
    fn incremental_checks_equal_full_checks() {
        let (root, mut ws) = lsp_fixture_workspace("incremental");
        let common = root.join("data/common.yaml");
        let hiera = root.join("hiera.yaml");
        for p in [&common, &hiera] {
            let text = std::fs::read_to_string(p).unwrap();
            ws.open(p, uri::from_path(p), text, 1);
        }
        ws.check();
        assert_eq!(published(&ws), full(&ws));
        let edit = |line: u32, col: u32, end: u32, text: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(
                lsp_types::Position::new(line, col),
                lsp_types::Position::new(line, end),
            )),
            range_length: None,
            text: text.into(),
        };
        let steps: Vec<(&PathBuf, TextDocumentContentChangeEvent)> = vec![
            (&common, edit(14, 0, 0, "flag: on\nwhen: 2024-01-01\n")),
            (&common, edit(14, 0, 0, "dup: 1\ndup: 2\n")),
            (&hiera, edit(7, 17, 17, "%{lookup('x')}")),
            (&common, edit(14, 0, 6, "")),
            (&hiera, edit(7, 17, 31, "")),
            (&common, edit(0, 0, 3, "- a list")),
        ];
        for (i, (path, change)) in steps.into_iter().enumerate() {
            ws.change(path, 2 + i as i32, vec![change]);
            ws.check();
            assert_eq!(published(&ws), full(&ws), "after step {i}");
        }
        assert!(!published(&ws).is_empty());
        let _ = std::fs::remove_dir_all(root.parent().unwrap());
    }
}

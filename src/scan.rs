//! Discovery and loading: from the paths a user gives to a loaded [`Project`].
//!
//! A path is one of: an environment (a control repo: `hiera.yaml`, `data/`, `environment.conf`,
//! `modules/`), a directory of environments (r10k layout: `environments/<name>/` or a directory
//! whose children are environments), a module (`metadata.json` next to `hiera.yaml`/`data/`), or
//! loose files. Files are read and parsed in parallel; the result is sorted by path so that the
//! output is the same whatever the thread count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::loader::{self, Format};
use crate::paths;
use crate::project::{FileRole, Layer, LoadedFile, Project};
use crate::span::SourceFile;

/// A problem met while discovering or reading files (not a finding about the data).
#[derive(Clone, Debug)]
pub struct ScanError {
    pub path: PathBuf,
    pub message: String,
}

/// What a given path turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Environment,
    Module,
    LooseFile,
}

/// A file to load and the role it plays.
#[derive(Clone, Debug)]
struct Planned {
    path: PathBuf,
    role: FileRole,
    layer: Layer,
    env_root: Option<PathBuf>,
}

/// Directory names never descended into unless asked: VCS metadata and vendored test fixtures.
const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    ".bundle",
    "vendor",
    "spec",
    "fixtures",
];

pub fn is_data_extension(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json" | "eyaml" | "conf")
    )
}

pub fn looks_like_environment(dir: &Path) -> bool {
    dir.join("hiera.yaml").is_file()
        || dir.join("environment.conf").is_file()
        || (dir.join("data").is_dir() && !dir.join("metadata.json").is_file())
        || dir.join("hieradata").is_dir()
}

/// A module has `metadata.json`; a control repo that also has one (example42's psick does) is
/// an environment when it has `environment.conf`, which modules never have.
pub fn looks_like_module(dir: &Path) -> bool {
    dir.join("metadata.json").is_file() && !dir.join("environment.conf").is_file()
}

/// Reads the `datadir`s a hiera.yaml names (literally, up to the first interpolation), so the
/// scanner knows which directories hold data. Falls back to `data` (Puppet's default, §1.3).
pub fn datadirs_of(root: &Path) -> Vec<PathBuf> {
    datadirs_with(root, &BTreeMap::new())
}

/// [`datadirs_of`], reading hiera.yaml from `overlay` when it is there (`--stdin-filename`).
fn datadirs_with(root: &Path, overlay: &BTreeMap<PathBuf, Arc<str>>) -> Vec<PathBuf> {
    let mut dirs = BTreeSet::new();
    let cfg = root.join("hiera.yaml");
    let text = if overlay.is_empty() {
        None
    } else {
        overlay.get(&paths::identity(&cfg)).cloned()
    };
    let bytes = match text {
        Some(t) => Ok(t.as_bytes().to_vec()),
        None => std::fs::read(&cfg),
    };
    if let Ok(bytes) = bytes {
        let file = SourceFile::from_bytes(&cfg, &bytes);
        let doc = loader::yaml::load(&file);
        if let Some(map) = doc.root.as_ref().and_then(|r| r.as_map()) {
            let mut push = |n: Option<&crate::value::Node>| {
                if let Some(s) = n.and_then(|n| n.as_str()) {
                    let literal = s.split("%{").next().unwrap_or("");
                    // keep the directory part before any interpolation
                    let literal = if s.contains("%{") {
                        literal.rsplit_once('/').map(|(a, _)| a).unwrap_or("")
                    } else {
                        literal
                    };
                    if !literal.is_empty() {
                        dirs.insert(root.join(literal));
                    }
                }
            };
            // v5 defaults.datadir and per-level datadir; v4 top-level datadir; v3 :yaml: :datadir:
            push(
                map.get_value("defaults")
                    .and_then(|d| d.as_map())
                    .and_then(|d| d.get_value("datadir")),
            );
            push(map.get_value("datadir"));
            for key in ["hierarchy", "default_hierarchy", "plan_hierarchy"] {
                if let Some(levels) = map.get_value(key).and_then(|h| h.as_seq()) {
                    for l in levels {
                        push(l.as_map().and_then(|m| m.get_value("datadir")));
                    }
                }
            }
        }
    }
    dirs.insert(root.join("data"));
    if root.join("hieradata").is_dir() {
        dirs.insert(root.join("hieradata"));
    }
    dirs.into_iter().filter(|d| d.is_dir()).collect()
}

/// The modulepath directories of an environment: `environment.conf`'s `modulepath` entries that
/// are relative to the environment, else `modules` and `site-modules`/`site` when present.
pub fn module_dirs(env: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(conf) = std::fs::read_to_string(env.join("environment.conf")) {
        for line in conf.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("modulepath") {
                if let Some(v) = rest.trim_start().strip_prefix('=') {
                    for part in v.trim().trim_matches('"').split(':') {
                        let part = part.trim();
                        if part.is_empty() || part.starts_with('$') || part.starts_with('/') {
                            continue;
                        }
                        out.push(env.join(part));
                    }
                }
            }
        }
    }
    if out.is_empty() {
        for d in ["modules", "site-modules", "site"] {
            out.push(env.join(d));
        }
    }
    out.into_iter().filter(|d| d.is_dir()).collect()
}

fn walk_data(dir: &Path, loose: bool, errors: &mut Vec<ScanError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && e.file_name()
                        .to_str()
                        .is_some_and(|n| n.starts_with('.') || (loose && SKIP_DIRS.contains(&n))))
        })
    {
        match entry {
            Ok(e) if e.file_type().is_file() && is_data_extension(e.path()) => {
                files.push(e.into_path())
            }
            Ok(_) => {}
            Err(err) => errors.push(ScanError {
                path: err
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| dir.to_path_buf()),
                message: if err.loop_ancestor().is_some() {
                    "symbolic link loop".to_string()
                } else {
                    format!(
                        "cannot read: {}",
                        err.io_error()
                            .map(|e| e.to_string())
                            .unwrap_or_else(|| err.to_string())
                    )
                },
            }),
        }
    }
    files
}

fn plan_layer(
    root: &Path,
    layer: Layer,
    env_root: &Path,
    plan: &mut Vec<Planned>,
    errors: &mut Vec<ScanError>,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
) {
    let cfg = root.join("hiera.yaml");
    if cfg.is_file() {
        plan.push(Planned {
            path: cfg,
            role: FileRole::HieraConfig,
            layer: layer.clone(),
            env_root: Some(env_root.to_path_buf()),
        });
    }
    for dir in datadirs_with(root, overlay) {
        for path in walk_data(&dir, false, errors) {
            plan.push(Planned {
                path,
                role: FileRole::Data,
                layer: layer.clone(),
                env_root: Some(env_root.to_path_buf()),
            });
        }
    }
}

fn plan_environment(
    env: &Path,
    plan: &mut Vec<Planned>,
    errors: &mut Vec<ScanError>,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
) {
    plan_layer(env, Layer::Environment, env, plan, errors, overlay);
    for mdir in module_dirs(env) {
        let Ok(rd) = std::fs::read_dir(&mdir) else {
            errors.push(ScanError {
                path: mdir.clone(),
                message: "cannot read module directory".into(),
            });
            continue;
        };
        let mut mods: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        mods.sort();
        for m in mods {
            let Some(name) = m.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
                continue;
            };
            plan_layer(&m, Layer::Module(name), env, plan, errors, overlay);
        }
    }
}

/// Works out what each path is and which files to load.
fn plan(paths: &[PathBuf], errors: &mut Vec<ScanError>) -> Vec<Planned> {
    plan_with(paths, errors, &BTreeMap::new())
}

fn plan_with(
    paths: &[PathBuf],
    errors: &mut Vec<ScanError>,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
) -> Vec<Planned> {
    let mut plan = Vec::new();
    for p in paths {
        if p.is_file() || (!overlay.is_empty() && overlay.contains_key(&paths::identity(p))) {
            let role = if p.file_name().is_some_and(|n| n == "hiera.yaml") {
                FileRole::HieraConfig
            } else {
                FileRole::Loose
            };
            plan.push(Planned {
                path: p.clone(),
                role,
                layer: Layer::Environment,
                env_root: None,
            });
        } else if p.is_dir() {
            if looks_like_module(p) {
                let name = module_name_of(p);
                plan_layer(p, Layer::Module(name), p, &mut plan, errors, overlay);
            } else if looks_like_environment(p) {
                plan_environment(p, &mut plan, errors, overlay);
            } else {
                // an environments directory (r10k), or a directory holding `environments/`
                let envs_dir = if p.join("environments").is_dir() {
                    p.join("environments")
                } else {
                    p.clone()
                };
                let mut found = false;
                if let Ok(rd) = std::fs::read_dir(&envs_dir) {
                    let mut children: Vec<PathBuf> = rd
                        .filter_map(|e| e.ok())
                        .map(|e| e.path())
                        .filter(|c| c.is_dir())
                        .collect();
                    children.sort();
                    for c in children {
                        if looks_like_environment(&c) {
                            found = true;
                            plan_environment(&c, &mut plan, errors, overlay);
                        }
                    }
                }
                if !found {
                    // loose data files
                    for path in walk_data(p, true, errors) {
                        plan.push(Planned {
                            path,
                            role: FileRole::Loose,
                            layer: Layer::Environment,
                            env_root: None,
                        });
                    }
                }
            }
        } else {
            errors.push(ScanError {
                path: p.clone(),
                message: "no such file or directory".into(),
            });
        }
    }
    // One entry per path, first role wins (a file given twice is checked once). The sort is
    // stable, so equal paths stay in plan order and dedup keeps the first: the same result as
    // a seen-set before sorting, at half the path comparisons (which are component-wise and
    // were 9% of a 1.5k-file run, docs/benchmarks.md).
    plan.sort_by(|a, b| a.path.cmp(&b.path));
    plan.dedup_by(|later, first| later.path == first.path);
    plan
}

/// The module's name: metadata.json's `name` after the last `-`/`/` (`puppetlabs-ntp` → `ntp`),
/// else the directory name.
pub fn module_name_of(dir: &Path) -> String {
    if let Ok(text) = std::fs::read_to_string(dir.join("metadata.json")) {
        if let Ok(j) = serde_json::from_str::<serde_json::Value>(&text) {
            if let Some(n) = j.get("name").and_then(|n| n.as_str()) {
                if let Some(short) = n.rsplit(['-', '/']).next() {
                    if !short.is_empty() {
                        return short.to_string();
                    }
                }
            }
        }
    }
    dir.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string()
}

/// Largest file read; bigger files get a diagnostic instead (hostile-input limit).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

fn load_one(p: &Planned, overlay: &BTreeMap<PathBuf, Arc<str>>) -> Result<LoadedFile, ScanError> {
    if !overlay.is_empty() {
        if let Some(text) = overlay.get(&paths::identity(&p.path)) {
            let source = Arc::new(SourceFile::from_bytes(&p.path, text.as_bytes()));
            return Ok(loaded(p, source));
        }
    }
    let meta = std::fs::metadata(&p.path).map_err(|e| ScanError {
        path: p.path.clone(),
        message: format!("cannot read: {e}"),
    })?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(ScanError {
            path: p.path.clone(),
            message: format!(
                "file is larger than the {} MiB limit",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        });
    }
    let bytes = std::fs::read(&p.path).map_err(|e| ScanError {
        path: p.path.clone(),
        message: format!("cannot read: {e}"),
    })?;
    let source = Arc::new(SourceFile::from_bytes(&p.path, &bytes));
    Ok(loaded(p, source))
}

fn loaded(p: &Planned, source: Arc<SourceFile>) -> LoadedFile {
    let format = Format::from_extension(&p.path).unwrap_or(Format::Yaml);
    let doc = loader::load(format, &source);
    LoadedFile::new(
        source,
        doc,
        p.role.clone(),
        p.layer.clone(),
        p.env_root.clone(),
    )
}

/// Discovers and loads everything under `paths`, in parallel.
pub fn load_project(paths: &[PathBuf]) -> (Project, Vec<ScanError>) {
    let mut errors = Vec::new();
    let planned = plan(paths, &mut errors);
    let files = load_planned(&planned, &BTreeMap::new(), &mut errors);
    (Project::new(files), errors)
}

fn load_planned(
    planned: &[Planned],
    overlay: &BTreeMap<PathBuf, Arc<str>>,
    errors: &mut Vec<ScanError>,
) -> Vec<LoadedFile> {
    crate::progress::phase("loading", planned.len());
    let results: Vec<Result<LoadedFile, ScanError>> = planned
        .par_iter()
        .map(|p| {
            let r = load_one(p, overlay);
            crate::progress::inc();
            r
        })
        .collect();
    let mut files = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(f) => files.push(f),
            Err(e) => errors.push(e),
        }
    }
    errors.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    files
}

/// A predicate on paths (the configuration's `exclude`).
pub type PathFilter = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// How [`load_project_with`] loads.
#[derive(Clone, Default)]
pub struct ScanOptions {
    /// Texts that replace files on disk (`--stdin-filename`), keyed by [`paths::identity`].
    /// The file need not exist.
    pub overlay: BTreeMap<PathBuf, Arc<str>>,
    /// Files to leave out of the run (configuration `exclude`), even when named.
    pub exclude: Option<PathFilter>,
    /// Load the environment (or module) around each file argument, so that cross-file rules see
    /// the file in context, and make the file arguments the reporting scope (pre-commit passes
    /// only the changed files).
    pub file_context: bool,
}

impl std::fmt::Debug for ScanOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanOptions")
            .field("overlay", &self.overlay.keys().collect::<Vec<_>>())
            .field("exclude", &self.exclude.is_some())
            .field("file_context", &self.file_context)
            .finish()
    }
}

/// What [`load_project_with`] found.
#[derive(Debug, Default)]
pub struct Scan {
    pub project: Project,
    pub errors: Vec<ScanError>,
    /// With `file_context`, the files named on the command line ([`paths::identity`] form):
    /// only diagnostics whose primary file is one of them are reported. `None`: everything.
    pub scope: Option<BTreeSet<PathBuf>>,
}

/// Where the context of a file argument is: the nearest ancestor directory holding `hiera.yaml`
/// or `environment.conf` (an environment) or `metadata.json` (a module), not looking above the
/// repository (a directory holding `.git`). A module that sits on the modulepath of an
/// environment above it is loaded with that environment, so module rules see their environment.
fn context_root(file: &Path) -> Option<PathBuf> {
    let abs = paths::absolute(file);
    let mut module: Option<&Path> = None;
    for dir in abs.ancestors().skip(1) {
        if looks_like_module(dir) {
            module.get_or_insert(dir);
        } else if dir.join("hiera.yaml").is_file() || dir.join("environment.conf").is_file() {
            return match module {
                None => Some(dir.to_path_buf()),
                Some(m) => {
                    let on_modulepath = module_dirs(dir)
                        .iter()
                        .any(|md| m.parent() == Some(paths::normalize(md).as_path()));
                    Some(if on_modulepath { dir } else { m }.to_path_buf())
                }
            };
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    module.map(Path::to_path_buf)
}

/// The role of a file argument that walking its environment did not find: a `hiera.yaml`, a
/// data file of the environment or of one of its modules that exists only in the overlay (an
/// unsaved editor buffer), or else a loose file.
fn role_of_unlisted(
    file: &Path,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
) -> (FileRole, Layer, Option<PathBuf>) {
    let loose = (FileRole::Loose, Layer::Environment, None);
    if file.file_name().is_some_and(|n| n == "hiera.yaml") {
        return (FileRole::HieraConfig, Layer::Environment, None);
    }
    let Some(root) = context_root(file) else {
        return loose;
    };
    let abs = paths::absolute(file);
    let under = |dirs: Vec<PathBuf>| dirs.iter().any(|d| abs.starts_with(paths::normalize(d)));
    let env_root = Some(display_dir(&root));
    if looks_like_module(&root) {
        if under(datadirs_with(&root, overlay)) {
            return (
                FileRole::Data,
                Layer::Module(module_name_of(&root)),
                env_root,
            );
        }
        return loose;
    }
    if under(datadirs_with(&root, overlay)) {
        return (FileRole::Data, Layer::Environment, env_root);
    }
    for mdir in module_dirs(&root) {
        let Ok(rd) = std::fs::read_dir(&mdir) else {
            continue;
        };
        for m in rd.filter_map(|e| e.ok()).map(|e| e.path()) {
            if abs.starts_with(paths::normalize(&m)) && under(datadirs_with(&m, overlay)) {
                let name = m
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("")
                    .to_string();
                return (FileRole::Data, Layer::Module(name), env_root);
            }
        }
    }
    loose
}

/// A directory as it should be displayed: relative to the current directory when it is inside
/// it or above it (`..`), else absolute.
fn display_dir(abs: &Path) -> PathBuf {
    let cwd = paths::absolute(Path::new("."));
    if let Ok(rel) = abs.strip_prefix(&cwd) {
        return if rel.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            rel.to_path_buf()
        };
    }
    if let Ok(up) = cwd.strip_prefix(abs) {
        let mut p = PathBuf::new();
        for _ in up.components() {
            p.push("..");
        }
        return p;
    }
    abs.to_path_buf()
}

/// Discovers and loads everything under `paths` with overlays, exclusions and file context.
pub fn load_project_with(paths_in: &[PathBuf], opts: &ScanOptions) -> Scan {
    let mut errors = Vec::new();
    let overlay = &opts.overlay;
    let is_file_arg = |p: &Path| {
        p.is_file() || (!overlay.is_empty() && overlay.contains_key(&paths::identity(p)))
    };
    let file_args: Vec<&PathBuf> = if opts.file_context {
        paths_in.iter().filter(|p| is_file_arg(p)).collect()
    } else {
        Vec::new()
    };
    let mut targets: Vec<PathBuf> = Vec::new();
    let mut roots = BTreeSet::new();
    for p in paths_in {
        if file_args.contains(&p) {
            if let Some(root) = context_root(p) {
                if roots.insert(root.clone()) {
                    targets.push(display_dir(&root));
                }
                continue;
            }
        }
        targets.push(p.clone());
    }
    let mut planned = plan_with(&targets, &mut errors, overlay);
    let mut scope = None;
    if opts.file_context && !file_args.is_empty() {
        // the file arguments are the scope; spell them as given, and check the ones the
        // environment does not load as Hiera files (outside any datadir) as loose files
        let mut ids: BTreeMap<PathBuf, usize> = BTreeMap::new();
        for (i, pl) in planned.iter().enumerate() {
            ids.insert(paths::identity(&pl.path), i);
        }
        let mut set = BTreeSet::new();
        for f in &file_args {
            let id = paths::identity(f);
            match ids.get(&id) {
                Some(&i) => planned[i].path = (*f).clone(),
                None => {
                    let (role, layer, env_root) = role_of_unlisted(f, overlay);
                    ids.insert(id.clone(), planned.len());
                    planned.push(Planned {
                        path: (*f).clone(),
                        role,
                        layer,
                        env_root,
                    });
                }
            }
            set.insert(id);
        }
        // directories named beside files are in scope too
        for p in paths_in {
            if !file_args.contains(&p) && p.is_dir() {
                let dir = paths::identity(p);
                for id in ids.keys() {
                    if id.starts_with(&dir) {
                        set.insert(id.clone());
                    }
                }
            }
        }
        planned.sort_by(|a, b| a.path.cmp(&b.path));
        scope = Some(set);
    }
    if let Some(ex) = &opts.exclude {
        planned.retain(|p| !ex(&p.path));
        errors.retain(|e| !ex(&e.path));
    }
    let files = load_planned(&planned, overlay, &mut errors);
    Scan {
        project: Project::new(files),
        errors,
        scope,
    }
}

/// Re-reads one file of a loaded project from disk (it changed: the editor case), keeping the
/// role, layer and environment the scan gave it. The caller puts the result in its place.
pub fn reload_file(file: &LoadedFile) -> Result<LoadedFile, ScanError> {
    load_one(
        &Planned {
            path: file.source.path.clone(),
            role: file.role.clone(),
            layer: file.layer.clone(),
            env_root: file.env_root.clone(),
        },
        &BTreeMap::new(),
    )
}

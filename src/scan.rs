//! Discovery and loading: from the paths a user gives to a loaded [`Project`].
//!
//! A path is one of: an environment (a control repo: `hiera.yaml`, `data/`, `environment.conf`,
//! `modules/`), a directory of environments (r10k layout: `environments/<name>/` or a directory
//! whose children are environments), a module (`metadata.json` next to `hiera.yaml`/`data/`), or
//! loose files. Files are read and parsed in parallel; the result is sorted by path so that the
//! output is the same whatever the thread count.

use crate::engine::vfs::{PathKey, PathRef};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::limits::Limits;
use crate::loader::{self, Format};
use crate::paths;
use crate::project::{FileRole, Layer, LoadedFile, Project};
use crate::span::{SourceFile, Span};

/// A problem met while discovering or reading files (not a finding about the data).
#[derive(Clone, Debug)]
pub struct ScanError {
    pub path: PathBuf,
    pub message: String,
    /// Where in a file the problem was declared, when it was (a hiera.yaml `datadir` that leads
    /// outside the environment).
    pub source: Option<(Arc<SourceFile>, Span)>,
}

impl ScanError {
    pub fn new(path: impl Into<PathBuf>, message: impl Into<String>) -> ScanError {
        ScanError {
            path: path.into(),
            message: message.into(),
            source: None,
        }
    }
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
    env_root: Option<Arc<Path>>,
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
/// Directories outside `root` (an absolute datadir, `..`, a symbolic link leading out) are left
/// out: hieralint checks the tree it is given, never `/` (the scanner reports them).
pub fn datadirs_of(root: &Path) -> Vec<PathBuf> {
    let allowed = canonical_roots(&[root]);
    datadirs_with(root, &BTreeMap::new())
        .into_iter()
        .filter(|d| outside(d, &allowed).is_none())
        .collect()
}

/// [`datadirs_of`] without the containment check, reading hiera.yaml from `overlay` when it is
/// there (`--stdin-filename`).
fn datadirs_with(root: &Path, overlay: &BTreeMap<PathBuf, Arc<str>>) -> Vec<PathBuf> {
    datadir_decls(root, overlay, &Limits::default())
        .1
        .into_iter()
        .map(|d| d.dir)
        .collect()
}

/// A data directory and the span of the `datadir` value that names it (none for the defaults).
struct DataDir {
    dir: PathBuf,
    decl: Option<Span>,
}

/// The existing data directories of a layer root, with the hiera.yaml they were read from.
fn datadir_decls(
    root: &Path,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
    limits: &Limits,
) -> (Option<Arc<SourceFile>>, Vec<DataDir>) {
    let mut dirs: BTreeMap<PathBuf, Option<Span>> = BTreeMap::new();
    let cfg = root.join("hiera.yaml");
    let mut source = None;
    let text = if overlay.is_empty() {
        None
    } else {
        overlay.get(&paths::identity(&cfg)).cloned()
    };
    let bytes = match text {
        Some(t) => Some(t.as_bytes().to_vec()),
        // An oversized hiera.yaml is reported when it is loaded; it names no datadir here.
        None => std::fs::metadata(&cfg)
            .is_ok_and(|m| m.len() <= limits.max_file_bytes)
            .then(|| std::fs::read(&cfg).ok())
            .flatten(),
    };
    if let Some(bytes) = bytes {
        let file = Arc::new(SourceFile::from_bytes(&cfg, &bytes));
        let doc = loader::yaml::load_with(&file, limits);
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
                        let span = n.map(|n| n.span);
                        dirs.entry(root.join(literal)).or_insert(span);
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
        source = Some(file);
    }
    dirs.entry(root.join("data")).or_insert(None);
    if root.join("hieradata").is_dir() {
        dirs.entry(root.join("hieradata")).or_insert(None);
    }
    let dirs = dirs
        .into_iter()
        .filter(|(d, _)| d.is_dir())
        .map(|(dir, decl)| DataDir { dir, decl })
        .collect();
    (source, dirs)
}

/// The directories a walk may enter, resolved (symbolic links followed).
fn canonical_roots(roots: &[&Path]) -> Vec<PathBuf> {
    roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect()
}

/// Where `path` really is, when that is outside every allowed root (`None`: inside one, or it
/// cannot be resolved, in which case reading it reports the problem).
fn outside(path: &Path, allowed: &[PathBuf]) -> Option<PathBuf> {
    let real = std::fs::canonicalize(path).ok()?;
    (!allowed.iter().any(|r| real.starts_with(r))).then_some(real)
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

/// The data files under `dir`. Symbolic links are followed only while they stay inside one of
/// the `allowed` (canonical) roots: a link to `/` or to another repository is reported, not
/// walked. Loops are reported by walkdir.
fn walk_data(
    dir: &Path,
    loose: bool,
    allowed: &[PathBuf],
    errors: &mut Vec<ScanError>,
    on_file: &dyn Fn(&Path),
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut refused = Vec::new();
    let first = errors.len();
    // Directory order is the file system's; the lists are sorted once at the end into the order
    // a sorted depth-first walk gives (walkdir's `sort_by_file_name` parsed both paths' last
    // components at every comparison: 3% of loading the 1.5k corpus).
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| {
            if e.depth() > 0
                && e.file_type().is_dir()
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with('.') || (loose && SKIP_DIRS.contains(&n)))
            {
                return false;
            }
            if e.path_is_symlink() {
                if let Some(real) = outside(e.path(), allowed) {
                    refused.push(ScanError::new(
                        e.path(),
                        format!(
                            "symbolic link to `{}`, outside the directory being checked: not \
                             followed",
                            real.display()
                        ),
                    ));
                    return false;
                }
            }
            true
        })
    {
        match entry {
            // In a loose directory a hidden file is tooling, not Hiera data: `.hieralint.yaml`
            // itself (whose documented `H404: off` is a YAML 1.1 Boolean), and
            // `.pre-commit-config.yaml`, `.gitlab-ci.yml`, `.yamllint`, PDK's `.sync.yml` and
            // `.fixtures.yml`, as hidden directories already are. A datadir is Hiera's own, so
            // every data file in it is read (a hierarchy may name a hidden file); a hidden file
            // given by name is checked.
            Ok(e)
                if e.file_type().is_file()
                    && is_data_extension(e.path())
                    && !(loose && e.file_name().to_str().is_some_and(|n| n.starts_with('.'))) =>
            {
                on_file(e.path());
                files.push(e.into_path())
            }
            Ok(_) => {}
            Err(err) => errors.push(ScanError::new(
                err.path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| dir.to_path_buf()),
                if err.loop_ancestor().is_some() {
                    "symbolic link loop".to_string()
                } else {
                    format!(
                        "cannot read: {}",
                        err.io_error()
                            .map(|e| e.to_string())
                            .unwrap_or_else(|| err.to_string())
                    )
                },
            )),
        }
    }
    // Walk errors, then refused links, each in sorted walk order.
    errors[first..].sort_by_cached_key(|e| walk_order_key(&e.path));
    refused.sort_by_cached_key(|e| walk_order_key(&e.path));
    errors.append(&mut refused);
    files.sort_by_cached_key(|p| walk_order_key(p));
    files
}

/// A key whose byte order is a sorted depth-first walk's order for paths under one directory:
/// the path's bytes with each `/` lowered below every other byte, so `a/b` sorts before `a-b`
/// as the component `a` sorts before `a-b` (the paths share the walked directory's spelling
/// and continue in clean components, so this is `Path`'s component order).
fn walk_order_key(p: &Path) -> Vec<u8> {
    p.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|&c| {
            if c.is_ascii() && std::path::is_separator(c as char) {
                0
            } else {
                c
            }
        })
        .collect()
}

/// What planning reads besides the paths: unsaved buffers, the limits, and who is told of each
/// data file the walk finds (the scan parses it at once).
struct PlanCx<'a> {
    overlay: &'a BTreeMap<PathBuf, Arc<str>>,
    limits: &'a Limits,
    on_file: &'a dyn Fn(&Path),
}

fn plan_layer(
    root: &Path,
    layer: Layer,
    env_root: &Arc<Path>,
    plan: &mut Vec<Planned>,
    errors: &mut Vec<ScanError>,
    cx: &PlanCx,
) {
    let cfg = root.join("hiera.yaml");
    if cfg.is_file() {
        plan.push(Planned {
            path: cfg,
            role: FileRole::HieraConfig,
            layer: layer.clone(),
            env_root: Some(env_root.clone()),
        });
    }
    // Data is read only inside the layer's root or the environment (a module's data may sit in
    // the environment only through a link): a datadir elsewhere — absolute, `..`, `/` — is
    // reported at its declaration and not walked.
    let allowed = canonical_roots(&[root, env_root]);
    let (config, dirs) = datadir_decls(root, cx.overlay, cx.limits);
    for DataDir { dir, decl } in dirs {
        if let Some(real) = outside(&dir, &allowed) {
            let mut e = ScanError::new(
                root.join("hiera.yaml"),
                format!(
                    "datadir `{}` is outside the directory being checked (it is `{}`): hieralint \
                     does not read it",
                    dir.display(),
                    real.display()
                ),
            );
            if decl.is_none() {
                e.path = dir.clone();
            }
            e.source = decl.zip(config.clone()).map(|(span, file)| (file, span));
            errors.push(e);
            continue;
        }
        for path in walk_data(&dir, false, &allowed, errors, cx.on_file) {
            plan.push(Planned {
                path,
                role: FileRole::Data,
                layer: layer.clone(),
                env_root: Some(env_root.clone()),
            });
        }
    }
}

fn plan_environment(env: &Path, plan: &mut Vec<Planned>, errors: &mut Vec<ScanError>, cx: &PlanCx) {
    // One path for every file of the environment (`LoadedFile::env_root`).
    let env_root: Arc<Path> = Arc::from(env);
    plan_layer(env, Layer::Environment, &env_root, plan, errors, cx);
    for mdir in module_dirs(env) {
        let Ok(rd) = std::fs::read_dir(&mdir) else {
            errors.push(ScanError::new(&mdir, "cannot read module directory"));
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
                // Puppet cannot name such a module either; say it is not checked.
                errors.push(ScanError::new(
                    &m,
                    "module directory name is not valid UTF-8: not checked",
                ));
                continue;
            };
            plan_layer(&m, Layer::Module(name), &env_root, plan, errors, cx);
        }
    }
}

/// Works out what each path is and which files to load.
fn plan(paths: &[PathBuf], errors: &mut Vec<ScanError>, limits: &Limits) -> Vec<Planned> {
    let cx = PlanCx {
        overlay: &BTreeMap::new(),
        limits,
        on_file: &|_| {},
    };
    plan_with(paths, errors, &cx)
}

fn plan_with(paths: &[PathBuf], errors: &mut Vec<ScanError>, cx: &PlanCx) -> Vec<Planned> {
    let PlanCx {
        overlay, limits, ..
    } = *cx;
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
                plan_layer(
                    p,
                    Layer::Module(name),
                    &Arc::from(p.as_path()),
                    &mut plan,
                    errors,
                    cx,
                );
            } else if looks_like_environment(p) {
                plan_environment(p, &mut plan, errors, cx);
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
                            plan_environment(&c, &mut plan, errors, cx);
                        }
                    }
                }
                if !found {
                    // loose data files
                    let allowed = canonical_roots(&[p]);
                    for path in walk_data(p, true, &allowed, errors, cx.on_file) {
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
            errors.push(ScanError::new(p, "no such file or directory"));
        }
    }
    // One entry per path, first role wins (a file given twice is checked once). The sort is
    // stable, so equal paths stay in plan order and dedup keeps the first: the same result as
    // a seen-set before sorting, at half the path comparisons (which are component-wise and
    // were 9% of a 1.5k-file run, docs/benchmarks.md).
    plan.sort_by(|a, b| a.path.cmp(&b.path));
    plan.dedup_by(|later, first| later.path == first.path);
    if plan.len() > limits.max_files {
        let first_left_out = plan[limits.max_files].path.clone();
        errors.push(ScanError::new(
            first_left_out,
            format!(
                "more than {} files to check (limit `max_files`): this file and the {} after it \
                 were not loaded",
                limits.max_files,
                plan.len() - limits.max_files - 1
            ),
        ));
        plan.truncate(limits.max_files);
    }
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

/// Largest file read by default; bigger files get a diagnostic instead (hostile-input limit,
/// [`Limits::max_file_bytes`]).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

fn size_limit_message(limit: u64) -> String {
    if limit >= 1024 * 1024 && limit.is_multiple_of(1024 * 1024) {
        format!(
            "file is larger than the {} MiB limit",
            limit / (1024 * 1024)
        )
    } else {
        format!("file is larger than the {limit} byte limit")
    }
}

/// Reads and loads one planned file. A file that vanished since planning, cannot be read, or is
/// over the size limit is a [`ScanError`] (the run goes on). The read itself is bounded, so a
/// file growing between `metadata` and `read` cannot exceed the limit either.
fn load_one(
    p: &Planned,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
    limits: &Limits,
) -> Result<LoadedFile, ScanError> {
    parse_one(&p.path, overlay, limits).map(|parsed| with_place(p, parsed))
}

/// A file read and parsed, before the scan says what it is.
type Parsed = (Arc<SourceFile>, loader::Document);

/// Files parsed while the walk went on, by path.
// Keyed by `PathKey` (hashed from the path's bytes; `Path` hashes component by component).
type EarlyParses = crate::engine::vfs::PathMap<Result<Parsed, ScanError>>;

/// The file at `path` read (from `overlay` when it holds it) and parsed by its extension: what
/// loading a file does whatever its role, so it can start as soon as the walk finds it.
fn parse_one(
    path: &Path,
    overlay: &BTreeMap<PathBuf, Arc<str>>,
    limits: &Limits,
) -> Result<Parsed, ScanError> {
    if !overlay.is_empty() {
        if let Some(text) = overlay.get(&paths::identity(path)) {
            let source = Arc::new(SourceFile::from_bytes(path, text.as_bytes()));
            return Ok(parsed(source, limits));
        }
    }
    // A FIFO or device blocks on read (a `/dev/console` reached through a glob hung the
    // check_env fuzz target): not read, reported. The open itself cannot block.
    let bytes = paths::read_regular(path, limits.max_file_bytes).map_err(|u| match u {
        paths::Unread::Io(e) => ScanError::new(path, format!("cannot read: {e}")),
        paths::Unread::NotRegular => ScanError::new(path, "cannot read: not a regular file"),
        paths::Unread::TooLarge => ScanError::new(path, size_limit_message(limits.max_file_bytes)),
    })?;
    let source = Arc::new(SourceFile::from_bytes(path, &bytes));
    Ok(parsed(source, limits))
}

fn parsed(source: Arc<SourceFile>, limits: &Limits) -> Parsed {
    let format = Format::from_extension(&source.path).unwrap_or(Format::Yaml);
    let doc = loader::load_with(format, &source, limits);
    (source, doc)
}

fn with_place(p: &Planned, (source, doc): Parsed) -> LoadedFile {
    LoadedFile::new(
        source,
        doc,
        p.role.clone(),
        p.layer.clone(),
        p.env_root.clone(),
    )
}

/// What the rules will read of every tree, found right after the file is parsed, while its
/// tree is in the cache ([`ScanOptions::scalar_flags`], [`ScanOptions::lookup_options`]).
#[derive(Clone, Copy, Debug, Default)]
struct AtParse {
    scalar_flags: bool,
    lookup_options: bool,
    root_key_hashes: bool,
    interpolations: bool,
}

impl AtParse {
    fn of(opts: &ScanOptions) -> AtParse {
        AtParse {
            scalar_flags: opts.scalar_flags,
            lookup_options: opts.lookup_options,
            root_key_hashes: opts.root_key_hashes,
            interpolations: opts.interpolations,
        }
    }

    fn run(self, doc: &crate::loader::Document, text: &str) {
        if self.interpolations {
            crate::rules::interp_sites::interpolated_strings(doc, text);
        }
        if self.scalar_flags {
            crate::rules::tree::flags(doc);
        }
        if self.lookup_options {
            crate::rules::lopts::lookup_options_index(doc);
        }
        if self.root_key_hashes {
            crate::engine::data::root_key_hashes(doc);
        }
    }
}

/// Discovers and loads everything under `paths`, in parallel.
pub fn load_project(paths: &[PathBuf]) -> (Project, Vec<ScanError>) {
    load_project_limited(paths, &Limits::default())
}

/// [`load_project`] within `limits` (file size and count, YAML nesting and aliases, HOCON
/// substitutions).
pub fn load_project_limited(paths: &[PathBuf], limits: &Limits) -> (Project, Vec<ScanError>) {
    let mut errors = Vec::new();
    let planned = plan(paths, &mut errors, limits);
    let files = load_planned(
        &planned,
        &BTreeMap::new(),
        limits,
        &mut errors,
        Default::default(),
        AtParse::default(),
    );
    (Project::new(files), errors)
}

fn load_planned(
    planned: &[Planned],
    overlay: &BTreeMap<PathBuf, Arc<str>>,
    limits: &Limits,
    errors: &mut Vec<ScanError>,
    mut early: EarlyParses,
    at_parse: AtParse,
) -> Vec<LoadedFile> {
    crate::progress::phase("loading", planned.len());
    // What the walk's parses already hold, taken out in plan order (a file the plan lists
    // twice is parsed again the second time).
    let ready: Vec<Option<Result<Parsed, ScanError>>> = planned
        .iter()
        .map(|p| early.remove(&PathRef(&p.path)))
        .collect();
    let results: Vec<Result<LoadedFile, ScanError>> = planned
        .par_iter()
        .zip(ready)
        .map(|(p, ready)| {
            let r = match ready {
                Some(r) => r.map(|parsed| with_place(p, parsed)),
                None => {
                    load_one(p, overlay, limits).inspect(|f| at_parse.run(&f.doc, f.source.text()))
                }
            };
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
    crate::timing::mark("load");
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
    /// Bounds on file size and count and on what loaders expand (docs/limits.md).
    pub limits: Limits,
    /// Load the environment (or module) around each file argument, so that cross-file rules see
    /// the file in context, and make the file arguments the reporting scope (pre-commit passes
    /// only the changed files).
    pub file_context: bool,
    /// Find each file's [`crate::loader::ScalarFlags`] right after parsing it, while its tree
    /// is in the cache (set when a rule that reads them runs; otherwise they are found when
    /// first asked).
    pub scalar_flags: bool,
    /// Find where each file's `lookup_options` entry is right after parsing it
    /// ([`crate::loader::Document::lookup_options_at`]), for the same reason (set when a rule
    /// that reads lookup_options runs).
    pub lookup_options: bool,
    /// Hash each file's root keys right after parsing it
    /// ([`crate::loader::Document::root_key_hashes`]), for the same reason (set when a rule
    /// that compares hierarchies by their files' keys runs: `Rule::needs_shared_lookups`).
    pub root_key_hashes: bool,
    /// Find each data file's interpolated strings right after parsing it
    /// ([`crate::loader::Document::interp_sites`]), for the same reason (set when a rule that
    /// reads interpolations runs: `Rule::reads_interpolations`).
    pub interpolations: bool,
}

impl std::fmt::Debug for ScanOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanOptions")
            .field("overlay", &self.overlay.keys().collect::<Vec<_>>())
            .field("exclude", &self.exclude.is_some())
            .field("file_context", &self.file_context)
            .field("scalar_flags", &self.scalar_flags)
            .field("lookup_options", &self.lookup_options)
            .field("root_key_hashes", &self.root_key_hashes)
            .field("interpolations", &self.interpolations)
            .field("limits", &self.limits)
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
    /// With `file_context`, file arguments the scan reached under another spelling (the
    /// argument `data/common.yaml` for the file loaded as `./data/common.yaml` with its
    /// environment `.`): the loaded path and the argument. The project keeps the loaded
    /// spelling, which the engine's hierarchy paths (the environment's spelling joined with
    /// the level's path) name; reports show the argument's (`diag::respell`). Renaming the
    /// loaded file instead hid every finding that goes through those paths (interpolation
    /// loops, lookups of missing keys, unreachable files) when pre-commit passed
    /// `data/common.yaml`.
    pub respell: BTreeMap<PathBuf, PathBuf>,
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
    // Files are parsed as the walk finds them: with the walk on one thread, the others parse
    // instead of waiting for the whole plan (the walk was an eighth of a check of wikimedia's
    // hieradata). Parsing does not depend on what the plan makes of a file (role, layer), only
    // on its path; the plan's files are matched to these parses by path after the walk.
    let early: std::sync::Mutex<EarlyParses> = Default::default();
    let mut planned = {
        let limits = &opts.limits;
        let at_parse = AtParse::of(opts);
        let exclude = opts.exclude.as_ref();
        let early = &early;
        rayon::scope(|s| {
            let started: std::cell::RefCell<crate::engine::vfs::FastSet<PathKey>> =
                Default::default();
            // Files go to the pool in batches: a job per file woke the other threads for
            // every file, which cost a small repository (a pre-commit hook's) a millisecond.
            // What is left in the last batch loads with the rest of the plan.
            const BATCH: usize = 16;
            let batch: std::cell::RefCell<Vec<PathBuf>> = Default::default();
            let found = |path: &Path| {
                let mut started = started.borrow_mut();
                // No more than the scan loads (`max_files` bounds memory), once per path, and
                // not what the settings exclude.
                if started.len() >= limits.max_files
                    || exclude.is_some_and(|ex| ex(path))
                    || !started.insert(PathKey(path.to_path_buf()))
                {
                    return;
                }
                let mut b = batch.borrow_mut();
                b.push(path.to_path_buf());
                if b.len() < BATCH {
                    return;
                }
                let paths = std::mem::take(&mut *b);
                s.spawn(move |_| {
                    let parsed: Vec<_> = paths
                        .into_iter()
                        .map(|path| {
                            let r = parse_one(&path, overlay, limits);
                            if let Ok((source, doc)) = &r {
                                at_parse.run(doc, source.text());
                            }
                            (PathKey(path), r)
                        })
                        .collect();
                    if let Ok(mut m) = early.lock() {
                        m.extend(parsed);
                    }
                });
            };
            let cx = PlanCx {
                overlay,
                limits,
                on_file: &found,
            };
            plan_with(&targets, &mut errors, &cx)
        })
    };
    let early = early.into_inner().unwrap_or_default();
    crate::timing::mark("walk and plan");
    let mut scope = None;
    let mut respell = BTreeMap::new();
    if opts.file_context && !file_args.is_empty() {
        // the file arguments are the scope, shown as given (`respell`); the ones the
        // environment does not load as Hiera files (outside any datadir) are checked as loose
        // files
        let mut ids: BTreeMap<PathBuf, usize> = BTreeMap::new();
        for (i, pl) in planned.iter().enumerate() {
            ids.insert(paths::identity(&pl.path), i);
        }
        let mut set = BTreeSet::new();
        for f in &file_args {
            let id = paths::identity(f);
            match ids.get(&id) {
                Some(&i) => {
                    if planned[i].path != **f {
                        respell.insert(planned[i].path.clone(), (*f).clone());
                    }
                }
                None => {
                    let (role, layer, env_root) = role_of_unlisted(f, overlay);
                    ids.insert(id.clone(), planned.len());
                    planned.push(Planned {
                        path: (*f).clone(),
                        role,
                        layer,
                        env_root: env_root.map(Arc::from),
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
    let files = load_planned(
        &planned,
        overlay,
        &opts.limits,
        &mut errors,
        early,
        AtParse::of(opts),
    );
    Scan {
        project: Project::new(files),
        errors,
        scope,
        respell,
    }
}

/// Re-reads one file of a loaded project from disk (it changed: the editor case), keeping the
/// role, layer and environment the scan gave it. The caller puts the result in its place.
pub fn reload_file(file: &LoadedFile, limits: &Limits) -> Result<LoadedFile, ScanError> {
    load_one(
        &Planned {
            path: file.source.path.clone(),
            role: file.role.clone(),
            layer: file.layer.clone(),
            env_root: file.env_root.clone(),
        },
        &BTreeMap::new(),
        limits,
    )
}

#[cfg(test)]
mod tests {

    /// The walk's sort key orders paths under one directory as `Path` does (component-wise),
    /// which is the order walkdir's sorted walk gave.
    #[test]
    fn walk_order_key_sorts_as_paths_do() {
        let names = [
            "a",
            "a-b",
            "a/b",
            "a/b/c.yaml",
            "a/b-c.yaml",
            "a.yaml",
            "a b/x",
            "A/x",
            "a/b.yaml",
            "ä/x",
            "a0",
            "a/\u{e9}.yaml",
            "b",
            "a-/x",
            "a/a",
            "ab/c",
            "a./x",
            "a/b/c/d/e.yaml",
        ];
        for base in ["data", "./data", "/tmp/x/data", "d//e"] {
            let mut by_path: Vec<PathBuf> = names.iter().map(|n| Path::new(base).join(n)).collect();
            let mut by_key = by_path.clone();
            by_path.sort();
            by_key.sort_by_cached_key(|p| walk_order_key(p));
            assert_eq!(by_path, by_key, "under {base}");
        }
    }
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hieralint-scan-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("data")).unwrap();
        d
    }

    /// Links back to the root, from deep inside a subdirectory or at the top, are loops; links
    /// to a sibling are followed, and the loops under them reported where they are reached.
    #[cfg(unix)]
    #[test]
    fn a_loose_directory_leaves_hidden_files_out_but_a_datadir_reads_them() {
        let dir = temp_dir("hidden-files");
        let loose = dir.join("loose");
        std::fs::create_dir_all(&loose).unwrap();
        std::fs::write(loose.join(".hieralint.yaml"), "rules:\n  H404: off\n").unwrap();
        std::fs::write(loose.join(".gitlab-ci.yml"), "x: on\n").unwrap();
        std::fs::write(loose.join("common.yaml"), "a: 1\n").unwrap();
        let mut errors = Vec::new();
        let planned: Vec<PathBuf> = plan(
            std::slice::from_ref(&loose),
            &mut errors,
            &Limits::default(),
        )
        .into_iter()
        .map(|p| p.path)
        .collect();
        assert_eq!(planned, vec![loose.join("common.yaml")]);
        // Named on the command line, a hidden file is checked.
        let named = plan(
            &[loose.join(".gitlab-ci.yml")],
            &mut errors,
            &Limits::default(),
        );
        assert_eq!(named.len(), 1);
        // In a datadir every data file is Hiera's (a hierarchy may name a hidden one).
        let env = dir.join("env");
        std::fs::create_dir_all(env.join("data")).unwrap();
        std::fs::write(env.join("hiera.yaml"), "version: 5\n").unwrap();
        std::fs::write(env.join("data/.hidden.yaml"), "a: 1\n").unwrap();
        let planned: Vec<PathBuf> =
            plan(std::slice::from_ref(&env), &mut errors, &Limits::default())
                .into_iter()
                .map(|p| p.path)
                .collect();
        assert!(
            planned.contains(&env.join("data/.hidden.yaml")),
            "{planned:?}"
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn the_walk_reports_loops_through_the_root() {
        use std::os::unix::fs::symlink;
        let dir = temp_dir("walk-loops");
        let root = dir.join("data");
        std::fs::create_dir_all(root.join("a/deep")).unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("a/x.yaml"), "x: 1\n").unwrap();
        std::fs::write(root.join("b/y.yaml"), "y: 1\n").unwrap();
        std::fs::write(root.join("top.yaml"), "t: 1\n").unwrap();
        symlink(&root, root.join("a/deep/up")).unwrap();
        symlink(root.join("a"), root.join("b/toa")).unwrap();
        symlink(root.join("a"), root.join("c")).unwrap();
        symlink(&root, root.join("self")).unwrap();
        let allowed = canonical_roots(&[root.as_path()]);
        let mut errors = Vec::new();
        let files = walk_data(&root, true, &allowed, &mut errors, &|_| {});
        let rel = |p: &Path| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!(
            files.iter().map(|f| rel(f)).collect::<Vec<_>>(),
            vec![
                "a/x.yaml",
                "b/toa/x.yaml",
                "b/y.yaml",
                "c/x.yaml",
                "top.yaml"
            ]
        );
        let mut loops: Vec<String> = errors
            .iter()
            .map(|e| {
                assert_eq!(e.message, "symbolic link loop", "{}", rel(&e.path));
                rel(&e.path)
            })
            .collect();
        loops.sort();
        assert_eq!(
            loops,
            vec!["a/deep/up", "b/toa/deep/up", "c/deep/up", "self"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file planned and then deleted before it is loaded (another process, a `git checkout`
    /// during the run) is a ScanError naming it; the other planned files load.
    #[test]
    fn load_one_of_a_vanished_file() {
        let dir = temp_dir("vanish");
        std::fs::write(dir.join("hiera.yaml"), "version: 5\n").unwrap();
        std::fs::write(dir.join("data/a.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.join("data/b.yaml"), "b: [\n").unwrap();
        let mut errors = Vec::new();
        let planned = plan(std::slice::from_ref(&dir), &mut errors, &Limits::default());
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(planned.len(), 3);
        std::fs::remove_file(dir.join("data/a.yaml")).unwrap();
        let results: Vec<_> = planned
            .iter()
            .map(|p| load_one(p, &BTreeMap::new(), &Limits::default()))
            .collect();
        // The plan is sorted by path: data/a.yaml, data/b.yaml, hiera.yaml.
        let gone = results[0].as_ref().expect_err("a.yaml vanished");
        assert_eq!(gone.path, dir.join("data/a.yaml"));
        assert!(
            gone.message.starts_with("cannot read: No such file"),
            "{}",
            gone.message
        );
        let b = results[1].as_ref().expect("b.yaml still loads");
        assert_eq!(b.doc.issues.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every file of an environment, its modules' included, holds the same `env_root`
    /// allocation: the rules pick an environment's files by comparing it, and one shared path
    /// stays in the cache where a copy per file did not (docs/benchmarks.md, session 33).
    #[test]
    fn the_files_of_an_environment_share_one_env_root() {
        let dir = temp_dir("shared-root");
        let m = dir.join("modules/m");
        std::fs::create_dir_all(m.join("data")).unwrap();
        let hiera = "version: 5\nhierarchy:\n  - name: c\n    path: common.yaml\n";
        for layer in [&dir, &m] {
            std::fs::write(layer.join("hiera.yaml"), hiera).unwrap();
        }
        std::fs::write(dir.join("data/common.yaml"), "a: 1\n").unwrap();
        std::fs::write(m.join("data/common.yaml"), "m::a: 1\n").unwrap();
        let (project, errors) = load_project(std::slice::from_ref(&dir));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(project.files.len(), 4);
        let roots: Vec<&Arc<Path>> = project
            .files
            .iter()
            .map(|f| f.env_root.as_ref().expect("an environment's file"))
            .collect();
        assert!(roots.iter().all(|r| Arc::ptr_eq(r, roots[0])));
        assert!(project.files.iter().any(|f| f.module_name() == Some("m")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file that grows past the limit between `metadata` and `read` is still refused: the
    /// read is bounded too.
    #[test]
    fn size_limit_holds_for_the_read() {
        let dir = temp_dir("size");
        std::fs::write(dir.join("data/a.yaml"), "a: 1\n").unwrap();
        let p = Planned {
            path: dir.join("data/a.yaml"),
            role: FileRole::Data,
            layer: Layer::Environment,
            env_root: Some(Arc::from(dir.as_path())),
        };
        let limits = Limits {
            max_file_bytes: 4,
            ..Limits::default()
        };
        let e = load_one(&p, &BTreeMap::new(), &limits).expect_err("over the limit");
        assert_eq!(e.message, "file is larger than the 4 byte limit");
        assert!(load_one(&p, &BTreeMap::new(), &Limits::default()).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A FIFO where a data file was planned (a race with the walk, or a file argument) is
    /// refused, not read: opening it does not wait for a writer (`O_NONBLOCK`), and its type
    /// comes from the open descriptor. Without the non-blocking open this test hangs.
    #[cfg(unix)]
    #[test]
    fn load_one_refuses_a_fifo_without_blocking() {
        let dir = temp_dir("fifo");
        let path = dir.join("data/pipe.yaml");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let p = Planned {
            path: path.clone(),
            role: FileRole::Data,
            layer: Layer::Environment,
            env_root: Some(Arc::from(dir.as_path())),
        };
        let e = load_one(&p, &BTreeMap::new(), &Limits::default()).expect_err("a FIFO");
        assert_eq!(e.message, "cannot read: not a regular file");
        assert_eq!(e.path, path);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `datadirs_of` leaves out a datadir outside the root (here `..`), keeps one inside.
    #[test]
    fn datadirs_outside_are_left_out() {
        let dir = temp_dir("datadirs");
        std::fs::create_dir_all(dir.join("env/inner")).unwrap();
        std::fs::write(
            dir.join("env/hiera.yaml"),
            "version: 5\nhierarchy:\n  - name: a\n    datadir: ..\n    path: x.yaml\n  - name: b\n    datadir: inner\n    path: y.yaml\n",
        )
        .unwrap();
        let dirs = datadirs_of(&dir.join("env"));
        assert_eq!(dirs, vec![dir.join("env/inner")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Discovery and loading: from the paths a user gives to a loaded [`Project`].
//!
//! A path is one of: an environment (a control repo: `hiera.yaml`, `data/`, `environment.conf`,
//! `modules/`), a directory of environments (r10k layout: `environments/<name>/` or a directory
//! whose children are environments), a module (`metadata.json` next to `hiera.yaml`/`data/`), or
//! loose files. Files are read and parsed in parallel; the result is sorted by path so that the
//! output is the same whatever the thread count.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::limits::Limits;
use crate::loader::{self, Format};
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

fn looks_like_environment(dir: &Path) -> bool {
    dir.join("hiera.yaml").is_file()
        || dir.join("environment.conf").is_file()
        || (dir.join("data").is_dir() && !dir.join("metadata.json").is_file())
        || dir.join("hieradata").is_dir()
}

fn looks_like_module(dir: &Path) -> bool {
    dir.join("metadata.json").is_file()
}

/// Reads the `datadir`s a hiera.yaml names (literally, up to the first interpolation), so the
/// scanner knows which directories hold data. Falls back to `data` (Puppet's default, §1.3).
/// Directories outside `root` (an absolute datadir, `..`, a symbolic link leading out) are left
/// out: hieralint checks the tree it is given, never `/` (the scanner reports them).
pub fn datadirs_of(root: &Path) -> Vec<PathBuf> {
    let allowed = canonical_roots(&[root]);
    datadir_decls(root, &Limits::default())
        .1
        .into_iter()
        .filter(|d| outside(&d.dir, &allowed).is_none())
        .map(|d| d.dir)
        .collect()
}

/// A data directory and the span of the `datadir` value that names it (none for the defaults).
struct DataDir {
    dir: PathBuf,
    decl: Option<Span>,
}

/// The existing data directories of a layer root, with the hiera.yaml they were read from.
fn datadir_decls(root: &Path, limits: &Limits) -> (Option<Arc<SourceFile>>, Vec<DataDir>) {
    let mut dirs: std::collections::BTreeMap<PathBuf, Option<Span>> = Default::default();
    let cfg = root.join("hiera.yaml");
    let mut source = None;
    // An oversized hiera.yaml is reported when it is loaded; it names no datadir here.
    let small = std::fs::metadata(&cfg).is_ok_and(|m| m.len() <= limits.max_file_bytes);
    if let Some(bytes) = small.then(|| std::fs::read(&cfg).ok()).flatten() {
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
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut refused = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
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
            Ok(e) if e.file_type().is_file() && is_data_extension(e.path()) => {
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
    errors.append(&mut refused);
    files
}

fn plan_layer(
    root: &Path,
    layer: Layer,
    env_root: &Path,
    plan: &mut Vec<Planned>,
    errors: &mut Vec<ScanError>,
    limits: &Limits,
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
    // Data is read only inside the layer's root or the environment (a module's data may sit in
    // the environment only through a link): a datadir elsewhere — absolute, `..`, `/` — is
    // reported at its declaration and not walked.
    let allowed = canonical_roots(&[root, env_root]);
    let (config, dirs) = datadir_decls(root, limits);
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
        for path in walk_data(&dir, false, &allowed, errors) {
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
    limits: &Limits,
) {
    plan_layer(env, Layer::Environment, env, plan, errors, limits);
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
            plan_layer(&m, Layer::Module(name), env, plan, errors, limits);
        }
    }
}

/// Works out what each path is and which files to load.
fn plan(paths: &[PathBuf], errors: &mut Vec<ScanError>, limits: &Limits) -> Vec<Planned> {
    let mut plan = Vec::new();
    for p in paths {
        if p.is_file() {
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
                plan_layer(p, Layer::Module(name), p, &mut plan, errors, limits);
            } else if looks_like_environment(p) {
                plan_environment(p, &mut plan, errors, limits);
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
                            plan_environment(&c, &mut plan, errors, limits);
                        }
                    }
                }
                if !found {
                    // loose data files
                    let allowed = canonical_roots(&[p]);
                    for path in walk_data(p, true, &allowed, errors) {
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
    // one entry per path, first role wins (a file given twice is checked once)
    let mut seen = BTreeSet::new();
    plan.retain(|p| seen.insert(p.path.clone()));
    plan.sort_by(|a, b| a.path.cmp(&b.path));
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
    if limit >= 1024 * 1024 && limit % (1024 * 1024) == 0 {
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
fn load_one(p: &Planned, limits: &Limits) -> Result<LoadedFile, ScanError> {
    use std::io::Read;
    let cannot_read = |e: std::io::Error| ScanError::new(&p.path, format!("cannot read: {e}"));
    let meta = std::fs::metadata(&p.path).map_err(cannot_read)?;
    if meta.len() > limits.max_file_bytes {
        return Err(ScanError::new(
            &p.path,
            size_limit_message(limits.max_file_bytes),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&p.path)
        .and_then(|f| {
            f.take(limits.max_file_bytes.saturating_add(1))
                .read_to_end(&mut bytes)
        })
        .map_err(cannot_read)?;
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(ScanError::new(
            &p.path,
            size_limit_message(limits.max_file_bytes),
        ));
    }
    let source = Arc::new(SourceFile::from_bytes(&p.path, &bytes));
    let format = Format::from_extension(&p.path).unwrap_or(Format::Yaml);
    let doc = loader::load_with(format, &source, limits);
    Ok(LoadedFile {
        source,
        doc,
        role: p.role.clone(),
        layer: p.layer.clone(),
        env_root: p.env_root.clone(),
    })
}

/// Discovers and loads everything under `paths`, in parallel.
pub fn load_project(paths: &[PathBuf]) -> (Project, Vec<ScanError>) {
    load_project_limited(paths, &Limits::default())
}

/// [`load_project`] within `limits` (file size and count, YAML nesting and aliases).
pub fn load_project_limited(paths: &[PathBuf], limits: &Limits) -> (Project, Vec<ScanError>) {
    let mut errors = Vec::new();
    let planned = plan(paths, &mut errors, limits);
    let results: Vec<Result<LoadedFile, ScanError>> =
        planned.par_iter().map(|p| load_one(p, limits)).collect();
    let mut files = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(f) => files.push(f),
            Err(e) => errors.push(e),
        }
    }
    errors.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    (Project { files }, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hieralint-scan-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("data")).unwrap();
        d
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
            .map(|p| load_one(p, &Limits::default()))
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
            env_root: Some(dir.clone()),
        };
        let limits = Limits {
            max_file_bytes: 4,
            ..Limits::default()
        };
        let e = load_one(&p, &limits).expect_err("over the limit");
        assert_eq!(e.message, "file is larger than the 4 byte limit");
        assert!(load_one(&p, &Limits::default()).is_ok());
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

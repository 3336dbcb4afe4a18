//! Which hierarchy levels can read a data file, for any values of the facts: the static
//! reachability H103 reports on and H402 uses to know which function reads a file.
//!
//! A level reads a file when its `path`/`paths` template, `glob`/`globs` pattern (Ruby glob
//! semantics: `vfs::fnmatch`, `vfs::brace_expand`, `**`) or `mapped_paths` template, joined to
//! the level's datadir, matches the file's path relative to the layer's root. Each `%{...}`
//! hole matches one or more characters other than `/`. Levels served by custom functions
//! (any `lookup_key`, `data_dig` or `data_hash` other than the built-ins) read files hieralint
//! cannot know: a file under such a level's datadir is never called unreachable.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{FunctionKind, HieraConfig, HierarchyEntry, Locations};
use crate::engine::vfs::{brace_expand_limited, fnmatch, PathKey, PathMap, PathRef};
use crate::project::{FileRole, Layer, LoadedFile, Project};
use crate::span::{SourceFile, Span};

/// What reads a data file.
#[derive(Clone, Debug)]
pub enum Reach {
    /// The functions of the levels that can read it (`yaml_data`, `eyaml_lookup_key`...).
    Read(Vec<String>),
    /// hieralint cannot tell: the layer's hiera.yaml does not load or breaks the layer (H101
    /// says why), or the file is not under an environment or module.
    Unknown,
    /// Something hieralint cannot see may read it: a custom backend's level covers the file's
    /// directory, or it lies in `hieradata/` of an environment without hiera.yaml (read by the
    /// global hiera.yaml, Hiera 3 style) or with another data provider.
    OtherReader,
    /// No level can read it.
    Unreachable(Unreachable),
}

impl Reach {
    /// True when some level reading the file is a `data_hash` function (whose results the
    /// module layer filters by namespace, reference §2.4), or when that cannot be known.
    pub fn read_by_data_hash(&self) -> bool {
        match self {
            Reach::Read(fs) => fs
                .iter()
                .any(|f| matches!(f.as_str(), "yaml_data" | "json_data" | "hocon_data")),
            Reach::Unknown | Reach::OtherReader => true,
            Reach::Unreachable(_) => false,
        }
    }
}

/// Why nothing reads a file, and what might have been meant.
#[derive(Clone, Debug)]
pub struct Unreachable {
    pub why: Why,
    /// The layer's configuration file, when there is one.
    pub config: Option<Arc<SourceFile>>,
    /// The layer's readable levels.
    pub levels: Vec<LevelDesc>,
    /// The most likely intended path, if a small change would make a level read the file.
    pub near: Option<NearMiss>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// An environment without hiera.yaml (and without `environment_data_provider = hiera`):
    /// Puppet builds no environment layer (reference §2.2).
    NoEnvironmentHieraYaml,
    /// A module without hiera.yaml and without `"data_provider": "hiera"` in metadata.json: no
    /// module layer (§2.2); `provider` is metadata.json's `data_provider` if set.
    NoModuleHieraYaml { provider: Option<String> },
    /// The layer's levels (from hiera.yaml, or Puppet's default when `default_config`) match
    /// none of the file's possible paths.
    NoLevel { default_config: bool },
}

/// One location of a level that built-in functions read.
#[derive(Clone, Debug)]
pub struct LevelDesc {
    pub name: String,
    /// The location as written (`nodes/%{trusted.certname}.yaml`), after the v4 extension.
    pub location: String,
    /// The datadir as written (relative to the layer's root, or absolute).
    pub datadir: String,
    /// Where the location is written in hiera.yaml (absent for Puppet's defaults).
    pub span: Option<Span>,
    /// The location's patterns relative to the layer's root (one per `{a,b}` alternative),
    /// segment by segment, in `fnmatch` syntax.
    patterns: Vec<Vec<Seg>>,
}

/// A change that would make a level read the file.
#[derive(Clone, Debug)]
pub struct NearMiss {
    /// The path (relative to the layer's root) the level would read.
    pub path: String,
    /// Index into [`Unreachable::levels`].
    pub level: usize,
    pub kind: NearKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NearKind {
    /// Another extension (`.yml` for `.yaml`).
    Extension,
    /// A directory or file name a small edit away from the level's literal one.
    Name { written: String, wanted: String },
}

#[derive(Clone, Debug, PartialEq)]
enum Seg {
    /// A pattern for one path component (`fnmatch` syntax).
    One(String),
    /// `**`: zero or more directories.
    Any,
}

/// Placeholder for a `%{...}` hole while patterns are rewritten.
const HOLE: char = '\u{E000}';

fn replace_holes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("%{") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find('}') {
            Some(end) => {
                out.push(HOLE);
                rest = &rest[start + 2 + end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A literal path (holes aside) as an `fnmatch` pattern.
fn escape_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            HOLE => out.push_str("?*"),
            '*' | '?' | '[' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Splits a path pattern into segments, folding `.` and `..` as `Pathname#+` does.
fn split(pattern: &str, glob: bool) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::new();
    for part in pattern.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            "**" if glob => out.push(Seg::Any),
            p => out.push(Seg::One(p.to_string())),
        }
    }
    // A trailing `**` is a plain `*` in Ruby's glob.
    if glob && out.last() == Some(&Seg::Any) {
        out.pop();
        out.push(Seg::One("*".into()));
    }
    out
}

fn is_absolute(s: &str) -> bool {
    s.starts_with('/')
}

/// The patterns of one location (several for globs with `{a,b}` alternatives); `None` when brace
/// expansion would produce more than `max_alternatives` ([`Limits::max_glob_alternatives`]:
/// thirty `{a,b}` groups are a billion patterns, fixtures/hostile/glob-bomb).
///
/// [`Limits::max_glob_alternatives`]: crate::limits::Limits::max_glob_alternatives
fn location_patterns(
    datadir: &str,
    location: &str,
    glob: bool,
    max_alternatives: usize,
) -> Option<Vec<(bool, Vec<Seg>)>> {
    let joined = if is_absolute(location) {
        location.to_string()
    } else {
        format!("{datadir}/{location}")
    };
    let holes = replace_holes(&joined);
    let absolute = is_absolute(&holes);
    if glob {
        Some(
            brace_expand_limited(&holes, max_alternatives)?
                .into_iter()
                .map(|alt| (absolute, split(&alt.replace(HOLE, "?*"), true)))
                .collect(),
        )
    } else {
        Some(vec![(absolute, split(&escape_literal(&holes), false))])
    }
}

/// Whether `segs` matches the path components `path`.
fn matches(segs: &[Seg], path: &[&str]) -> bool {
    // Without `**`, segment by segment (no search state to allocate: most levels' patterns).
    if !segs.iter().any(|s| matches!(s, Seg::Any)) {
        return segs.len() == path.len()
            && segs.iter().zip(path).all(|(s, p)| match s {
                Seg::One(pat) => fnmatch(pat, p),
                Seg::Any => false,
            });
    }
    // Iterative over the pattern; `**` backtracks over how many components it takes. The
    // number of states is bounded by segments × components.
    let mut stack = vec![(0usize, 0usize)];
    let mut seen = crate::engine::vfs::FastSet::default();
    while let Some((si, pi)) = stack.pop() {
        if !seen.insert((si, pi)) {
            continue;
        }
        match segs.get(si) {
            None => {
                if pi == path.len() {
                    return true;
                }
            }
            Some(Seg::Any) => {
                stack.push((si + 1, pi));
                if pi < path.len() && !path[pi].starts_with('.') {
                    stack.push((si, pi + 1));
                }
            }
            Some(Seg::One(p)) => {
                if pi < path.len() && fnmatch(p, path[pi]) {
                    stack.push((si + 1, pi + 1));
                }
            }
        }
    }
    false
}

/// True when `segs`' leading segments match a prefix of `path` (the file lies under it).
fn matches_prefix(segs: &[Seg], path: &[&str]) -> bool {
    (0..=path.len()).any(|n| matches(segs, &path[..n]))
}

/// The built-in functions whose files hieralint can place.
fn is_builtin(kind: FunctionKind, name: &str) -> bool {
    matches!(
        (kind, name),
        (
            FunctionKind::DataHash | FunctionKind::V4DataHash,
            "yaml_data" | "json_data" | "hocon_data"
        ) | (FunctionKind::LookupKey, "eyaml_lookup_key")
    )
}

/// A level prepared for matching.
struct Level<'c> {
    entry: &'c HierarchyEntry,
    function: Option<(FunctionKind, String)>,
    datadir: String,
}

fn levels(cfg: &HieraConfig) -> Vec<Level<'_>> {
    let mut entries: Vec<&HierarchyEntry> = cfg.hierarchy.iter().collect();
    entries.extend(cfg.default_hierarchy_entries());
    if let Some((_, plan)) = &cfg.plan_hierarchy {
        entries.extend(plan);
    }
    entries
        .into_iter()
        .map(|e| Level {
            entry: e,
            function: e
                .effective_function(&cfg.defaults)
                .map(|f| (f.kind, f.name.value.clone())),
            datadir: e.effective_datadir(&cfg.defaults).to_string(),
        })
        .collect()
}

/// The location strings of a level that name files, with their spans and whether they are
/// globs; `uri`/`uris` name no files.
fn locations(entry: &HierarchyEntry) -> Vec<(String, Span, bool)> {
    let ext = entry.extension;
    match &entry.locations {
        Locations::None | Locations::Uris(_) => Vec::new(),
        Locations::Paths(f) => f
            .items
            .iter()
            .map(|s| {
                let mut p = s.value.clone();
                // v4: the backend's extension is appended to paths that lack it.
                if let Some(ext) = ext {
                    if !p.ends_with(ext) {
                        p.push_str(ext);
                    }
                }
                (p, s.span, false)
            })
            .collect(),
        Locations::Globs(f) => f
            .items
            .iter()
            .map(|s| (s.value.clone(), s.span, true))
            .collect(),
        Locations::MappedPaths { template, .. } => {
            vec![(template.value.clone(), template.span, false)]
        }
    }
}

/// `environment_data_provider` from environment.conf (reference §2.2).
fn environment_data_provider(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("environment.conf")).ok()?;
    text.lines().find_map(|l| {
        let l = l.trim();
        let rest = l.strip_prefix("environment_data_provider")?;
        let v = rest.trim_start().strip_prefix('=')?;
        Some(v.trim().trim_matches('"').to_string())
    })
}

/// `data_provider` from a module's metadata.json.
fn module_data_provider(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("metadata.json")).ok()?;
    let j: serde_json::Value = serde_json::from_str(&text).ok()?;
    j.get("data_provider")?.as_str().map(str::to_string)
}

/// The directory of the layer a data file belongs to: the environment, or the module's
/// directory on the modulepath (a module checked on its own is its own root).
pub fn layer_root(file: &LoadedFile) -> Option<PathBuf> {
    let env_root = file.env_root.as_deref()?;
    match &file.layer {
        Layer::Module(_) => {
            module_root(file, env_root, &crate::scan::module_dirs(env_root)).map(Path::to_path_buf)
        }
        _ => Some(env_root.to_path_buf()),
    }
}

/// The directory of the module a module data file belongs to, given the environment's module
/// directories.
fn module_root<'a>(file: &'a LoadedFile, env_root: &'a Path, dirs: &[PathBuf]) -> Option<&'a Path> {
    let Layer::Module(m) = &file.layer else {
        return Some(env_root);
    };
    for a in file.source.path.ancestors().skip(1) {
        if a == env_root {
            break;
        }
        if a.file_name().and_then(|n| n.to_str()) == Some(m.as_str())
            && a.parent().is_some_and(|p| dirs.iter().any(|d| d == p))
        {
            return Some(a);
        }
    }
    Some(env_root)
}

/// The path components of `path` relative to `root` (or absolute ones for absolute patterns).
fn components(path: &Path) -> Vec<&str> {
    // Split at the separators when the bytes are what the components spell (the usual case:
    // `Path::components` was a fifth of placing a file); `.`/`..` only lead such a path.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        if crate::paths::spells_components(path.as_os_str().as_bytes()) {
            if let Some(s) = path.to_str() {
                return s
                    .split('/')
                    .filter(|c| !matches!(*c, "" | "." | ".."))
                    .collect();
            }
        }
    }
    path.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect()
}

/// Levenshtein distance over characters, bounded by the lengths involved (short names).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The literal text of a segment pattern, if it has no wildcard or hole.
fn literal(seg: &Seg) -> Option<String> {
    let Seg::One(p) = seg else { return None };
    let mut out = String::new();
    let mut it = p.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => out.push(it.next()?),
            '*' | '?' | '[' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// Which levels of a layer read `file`.
pub fn reach(project: &Project, file: &LoadedFile) -> Reach {
    if file.role != FileRole::Data {
        return Reach::Unknown;
    }
    let Some(root) = cached_layer_root(project, file) else {
        return Reach::Unknown;
    };
    let plan = layer_plan(project, root, &file.layer);
    let levels = match &*plan {
        LayerPlan::Unknown => return Reach::Unknown,
        LayerPlan::NoLayer { provider } => {
            let why = match &file.layer {
                Layer::Module(_) => Why::NoModuleHieraYaml {
                    provider: provider.clone(),
                },
                _ => {
                    // Hiera 3 era layouts keep environment data in `hieradata/` for the
                    // global hiera.yaml to read: nothing hieralint can see.
                    let rel = crate::paths::strip_prefix(&file.source.path, root);
                    if rel.is_some_and(|r| r.starts_with("hieradata")) || provider.is_some() {
                        return Reach::OtherReader;
                    }
                    Why::NoEnvironmentHieraYaml
                }
            };
            return Reach::Unreachable(Unreachable {
                why,
                config: None,
                levels: Vec::new(),
                near: None,
            });
        }
        LayerPlan::Levels(l) => l,
    };
    let Some(rel) = crate::paths::strip_prefix(&file.source.path, root) else {
        return Reach::Unknown;
    };
    let rel_refs = components(rel);
    let abs_path = levels
        .any_absolute
        .then(|| crate::paths::absolute(&file.source.path));
    let abs_refs = abs_path.as_deref().map(components).unwrap_or_default();
    let pick = |absolute: bool| if absolute { &abs_refs } else { &rel_refs };

    let mut readers: Vec<String> = Vec::new();
    for step in &levels.steps {
        match step {
            // A custom backend: whatever lies under its datadir may be its data.
            Step::Custom { absolute, segs } => {
                if matches_prefix(segs, pick(*absolute)) {
                    return Reach::OtherReader;
                }
            }
            // Too many to tell which files the glob reads (its lookups stop at the same limit
            // with an error): claim nothing about this file.
            Step::TooMany => return Reach::Unknown,
            Step::Location { name, alternatives } => {
                for (absolute, segs) in alternatives {
                    if matches(segs, pick(*absolute)) {
                        readers.push(name.clone());
                    }
                }
            }
        }
    }
    if !readers.is_empty() {
        readers.dedup();
        return Reach::Read(readers);
    }
    let near = near_miss(&levels.descs, &rel_refs);
    Reach::Unreachable(Unreachable {
        why: Why::NoLevel {
            default_config: levels.config.is_none(),
        },
        config: levels.config.clone(),
        levels: levels.descs.clone(),
        near,
    })
}

/// What [`reach`] knows of a layer whatever the file: built once per layer and kept in the
/// project ([`ReachCache`]). unreachable-data-file asks `reach` of every data file (and
/// key-outside-module-namespace of every module data file), and building this
/// each time (finding the layer's hiera.yaml among the project's files, reading
/// environment.conf or metadata.json, expanding every level's patterns) was a tenth of a
/// 1.5k-file check without facts.
#[derive(Debug)]
pub(crate) enum LayerPlan {
    /// The layer's hiera.yaml does not load or breaks the layer (H101 says why).
    Unknown,
    /// No hiera.yaml and no `hiera` data provider: Puppet builds no layer.
    NoLayer {
        provider: Option<String>,
    },
    Levels(LevelsPlan),
}

#[derive(Debug)]
pub(crate) struct LevelsPlan {
    /// The layer's hiera.yaml (`None`: Puppet's default hierarchy).
    config: Option<Arc<SourceFile>>,
    /// What decides, in hierarchy order.
    steps: Vec<Step>,
    /// The readable locations, for the message of an unreachable file.
    descs: Vec<LevelDesc>,
    /// Whether some pattern is absolute (the file's absolute path is then needed).
    any_absolute: bool,
}

#[derive(Debug)]
enum Step {
    /// A level served by a custom function, by its datadir.
    Custom { absolute: bool, segs: Vec<Seg> },
    /// A glob with more `{a,b}` alternatives than the limit.
    TooMany,
    /// A location of a built-in function's level: its patterns (one per alternative).
    Location {
        name: String,
        alternatives: Vec<(bool, Vec<Seg>)>,
    },
}

/// The project's [`LayerPlan`]s by layer, and the module directories of each environment (what
/// [`layer_root`] reads from environment.conf). Forgotten with the analysis
/// ([`Project::invalidate_analysis`]).
#[derive(Debug, Default)]
pub(crate) struct ReachCache {
    // Keyed by `PathKey`, whose hash reads the path's bytes (`Path`'s own hashes component
    // by component): every data file asks for its layer's plan.
    // By layer, then by root, looked up without copying the root (`PathRef`).
    plans: crate::engine::vfs::FastMap<Layer, PathMap<Arc<LayerPlan>>>,
    module_dirs: PathMap<Arc<Vec<PathBuf>>>,
}

fn layer_plan(project: &Project, root: &Path, layer: &Layer) -> Arc<LayerPlan> {
    cached(
        project,
        |c| c.plans.get(layer)?.get(&PathRef(root)).cloned(),
        |c, v| {
            c.plans
                .entry(layer.clone())
                .or_default()
                .insert(PathKey(root.to_path_buf()), v);
        },
        || build_plan(project, root, layer),
    )
}

/// What `get` finds in the cache, or made by `make` (outside the lock) and handed to `put`
/// the first time.
fn cached<V>(
    project: &Project,
    get: impl Fn(&ReachCache) -> Option<Arc<V>>,
    put: impl FnOnce(&mut ReachCache, Arc<V>),
    make: impl FnOnce() -> V,
) -> Arc<V> {
    if let Some(v) = project.reach_cache().lock().ok().and_then(|c| get(&c)) {
        return v;
    }
    let v = Arc::new(make());
    if let Ok(mut c) = project.reach_cache().lock() {
        put(&mut c, v.clone());
    }
    v
}

fn build_plan(project: &Project, root: &Path, layer: &Layer) -> LayerPlan {
    let cfg_path = root.join("hiera.yaml");
    let cfg_file = project.hiera_config_file(&cfg_path);
    let default_cfg;
    let (cfg, config): (&HieraConfig, Option<Arc<SourceFile>>) = match cfg_file {
        Some(f) => {
            let (cfg, errors) = f.hiera_config();
            let Some(cfg) = cfg else {
                return LayerPlan::Unknown;
            };
            if errors.iter().any(|e| e.breaks_layer()) || !cfg.is_used() {
                return LayerPlan::Unknown;
            }
            (cfg, Some(f.source.clone()))
        }
        None => {
            let provider = match layer {
                Layer::Module(_) => module_data_provider(root),
                _ => environment_data_provider(root),
            };
            if provider.as_deref() != Some("hiera") {
                return LayerPlan::NoLayer { provider };
            }
            default_cfg = HieraConfig::default_v5(layer.clone());
            (&default_cfg, None)
        }
    };
    let mut steps = Vec::new();
    let mut descs: Vec<LevelDesc> = Vec::new();
    let mut any_absolute = false;
    for level in levels(cfg) {
        let Some((kind, name)) = &level.function else {
            continue;
        };
        if !is_builtin(*kind, name) {
            let dd = replace_holes(&level.datadir);
            let absolute = is_absolute(&dd);
            any_absolute |= absolute;
            steps.push(Step::Custom {
                absolute,
                segs: split(&escape_literal(&dd), false),
            });
            continue;
        }
        for (location, span, glob) in locations(level.entry) {
            let max = project.limits.max_glob_alternatives;
            let Some(alternatives) = location_patterns(&level.datadir, &location, glob, max) else {
                steps.push(Step::TooMany);
                break;
            };
            let patterns = alternatives
                .iter()
                .filter(|(absolute, _)| !absolute)
                .map(|(_, segs)| segs.clone())
                .collect();
            any_absolute |= alternatives.iter().any(|(absolute, _)| *absolute);
            steps.push(Step::Location {
                name: name.clone(),
                alternatives,
            });
            descs.push(LevelDesc {
                name: level.entry.name.value.clone(),
                location,
                datadir: level.datadir.clone(),
                span: (config.is_some() && !span.is_empty()).then_some(span),
                patterns,
            });
        }
    }
    LayerPlan::Levels(LevelsPlan {
        config,
        steps,
        descs,
        any_absolute,
    })
}

/// [`layer_root`] with each environment's module directories read once per project.
fn cached_layer_root<'a>(project: &Project, file: &'a LoadedFile) -> Option<&'a Path> {
    let env_root = file.env_root.as_deref()?;
    if !matches!(file.layer, Layer::Module(_)) {
        return Some(env_root);
    }
    let dirs = cached(
        project,
        |c| c.module_dirs.get(&PathRef(env_root)).cloned(),
        |c, v| {
            c.module_dirs.insert(PathKey(env_root.to_path_buf()), v);
        },
        || crate::scan::module_dirs(env_root),
    );
    module_root(file, env_root, &dirs)
}

/// A small change to `path` that a level would read: another data extension, or one literal
/// name (directory or file) within edit distance 2 of the level's.
fn near_miss(levels: &[LevelDesc], path: &[&str]) -> Option<NearMiss> {
    let last = path.last()?;
    let (stem, ext) = last.rsplit_once('.')?;
    for alt in ["yaml", "yml", "json", "eyaml", "conf"] {
        if alt == ext {
            continue;
        }
        let name = format!("{stem}.{alt}");
        let mut candidate: Vec<&str> = path[..path.len() - 1].to_vec();
        candidate.push(&name);
        if let Some(i) = levels
            .iter()
            .position(|l| l.patterns.iter().any(|p| matches(p, &candidate)))
        {
            return Some(NearMiss {
                path: candidate.join("/"),
                level: i,
                kind: NearKind::Extension,
            });
        }
    }
    for (i, segs) in levels
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.patterns.iter().map(move |p| (i, p)))
    {
        if segs.len() != path.len() || segs.contains(&Seg::Any) {
            continue;
        }
        let wrong: Vec<usize> = (0..path.len())
            .filter(|&k| match &segs[k] {
                Seg::One(p) => !fnmatch(p, path[k]),
                Seg::Any => true,
            })
            .collect();
        let [k] = wrong.as_slice() else { continue };
        let Some(wanted) = literal(&segs[*k]) else {
            continue;
        };
        if edit_distance(&wanted, path[*k]) <= 2 {
            let mut candidate: Vec<&str> = path.to_vec();
            candidate[*k] = &wanted;
            return Some(NearMiss {
                path: candidate.join("/"),
                level: i,
                kind: NearKind::Name {
                    written: path[*k].to_string(),
                    wanted,
                },
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_the_normal_components() {
        for p in [
            "data/nodes/web01.yaml",
            "/r/data/a.yaml",
            "./data/a.yaml",
            "../x/a.yaml",
            "data//a.yaml",
            "data/./a.yaml",
            "data/../a.yaml",
            "data/.hidden/a.yaml",
            "data/",
            "",
            "é/ü.yaml",
        ] {
            let want: Vec<&str> = Path::new(p)
                .components()
                .filter_map(|c| match c {
                    std::path::Component::Normal(s) => s.to_str(),
                    _ => None,
                })
                .collect();
            assert_eq!(components(Path::new(p)), want, "{p:?}");
        }
    }

    fn segs(datadir: &str, loc: &str, glob: bool) -> Vec<Vec<Seg>> {
        location_patterns(datadir, loc, glob, usize::MAX)
            .unwrap()
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    fn hit(datadir: &str, loc: &str, glob: bool, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        segs(datadir, loc, glob).iter().any(|s| matches(s, &parts))
    }

    /// A YAML file of the environment at `root`, loaded from `body`.
    fn env_file(root: &Path, path: PathBuf, body: &str, role: FileRole) -> LoadedFile {
        let source = Arc::new(SourceFile::from_bytes(&path, body.as_bytes()));
        let doc = crate::loader::load(crate::loader::Format::Yaml, &source);
        LoadedFile::new(source, doc, role, Layer::Environment, Some(Arc::from(root)))
    }

    /// The per-layer plans are kept in the project and forgotten when a file changes: the
    /// language server edits hiera.yaml in place ([`Project::set_file`]), and a plan kept from
    /// the old text would still call the file unreachable.
    #[test]
    fn layer_plans_follow_an_edited_hiera_yaml() {
        let root = PathBuf::from("/nonexistent-hieralint-reach/env");
        let text = |path: PathBuf, body: &str, role: FileRole| env_file(&root, path, body, role);
        let cfg = |path: &str| {
            text(
                root.join("hiera.yaml"),
                &format!("version: 5\nhierarchy:\n  - name: one\n    path: {path}\n"),
                FileRole::HieraConfig,
            )
        };
        let data = text(root.join("data/x.yaml"), "x: 1\n", FileRole::Data);
        let mut project = Project::new(vec![cfg("common.yaml"), data]);
        let x = |p: &Project| reach(p, p.file(&root.join("data/x.yaml")).unwrap());
        assert!(matches!(x(&project), Reach::Unreachable(_)));
        // Asked again: the kept plan gives the same answer.
        assert!(matches!(x(&project), Reach::Unreachable(_)));
        project.set_file(cfg("x.yaml"));
        match x(&project) {
            Reach::Read(fs) => assert_eq!(fs, vec!["yaml_data".to_string()]),
            other => panic!("{other:?}"),
        }
    }

    /// `Project::hiera_config_file`, which layer plans find their hiera.yaml with: by path,
    /// only hiera.yaml files, forgotten when a file is removed, and right even when `files`
    /// changed behind its index.
    #[test]
    fn hiera_config_files_are_found_by_path() {
        let root = PathBuf::from("/nonexistent-hieralint-reach/env");
        let file = |path: PathBuf, role: FileRole| env_file(&root, path, "version: 5\n", role);
        let cfg_path = root.join("hiera.yaml");
        let data_path = root.join("data/x.yaml");
        let mut project = Project::new(vec![
            file(data_path.clone(), FileRole::Data),
            file(cfg_path.clone(), FileRole::HieraConfig),
        ]);
        let found =
            |p: &Project, path: &Path| p.hiera_config_file(path).map(|f| f.source.path.clone());
        assert_eq!(found(&project, &cfg_path), Some(cfg_path.clone()));
        assert_eq!(found(&project, &data_path), None);
        project.files.reverse();
        assert_eq!(found(&project, &cfg_path), Some(cfg_path.clone()));
        project.remove_file(&cfg_path);
        assert_eq!(found(&project, &cfg_path), None);
        project.set_file(file(cfg_path.clone(), FileRole::HieraConfig));
        assert_eq!(found(&project, &cfg_path), Some(cfg_path));
    }

    #[test]
    fn brace_bombs_stop_at_the_alternatives_limit() {
        let bomb = format!("{}.yaml", "{a,b}".repeat(30));
        assert!(location_patterns("data", &bomb, true, 10_000).is_none());
        // The same text in a path (not a glob) is one literal pattern.
        assert_eq!(
            location_patterns("data", &bomb, false, 10_000).map(|p| p.len()),
            Some(1)
        );
        let ten = format!("{}.yaml", "{a,b}".repeat(10));
        assert_eq!(
            location_patterns("data", &ten, true, 10_000).map(|p| p.len()),
            Some(1024)
        );
    }

    #[test]
    fn path_templates_match_with_holes() {
        assert!(hit(
            "data",
            "nodes/%{trusted.certname}.yaml",
            false,
            "data/nodes/web01.example.com.yaml"
        ));
        assert!(!hit(
            "data",
            "nodes/%{trusted.certname}.yaml",
            false,
            "data/nodes/db01.example.com.yml"
        ));
        assert!(!hit(
            "data",
            "nodes/%{trusted.certname}.yaml",
            false,
            "data/nodes/a/b.yaml"
        ));
        assert!(!hit(
            "data",
            "nodes/%{trusted.certname}.yaml",
            false,
            "data/nodes/.yaml"
        ));
        assert!(hit(
            "data",
            "os/%{facts.os.family}/%{facts.os.release.major}.yaml",
            false,
            "data/os/Debian/12.yaml"
        ));
        assert!(hit(
            "data/%{::environment}",
            "common.yaml",
            false,
            "data/production/common.yaml"
        ));
        // Paths are literal: glob characters match themselves only.
        assert!(hit("data", "a*.yaml", false, "data/a*.yaml"));
        assert!(!hit("data", "a*.yaml", false, "data/ab.yaml"));
        assert!(hit("data", "./x/../common.yaml", false, "data/common.yaml"));
    }

    #[test]
    fn globs_match_as_ruby() {
        assert!(hit("data", "roles/*.yaml", true, "data/roles/web.yaml"));
        assert!(!hit(
            "data",
            "roles/*.yaml",
            true,
            "data/roles/.hidden.yaml"
        ));
        assert!(hit("data", "**/*.yaml", true, "data/a/b/c.yaml"));
        assert!(hit("data", "**/*.yaml", true, "data/c.yaml"));
        assert!(hit(
            "data",
            "{a,b}/%{facts.role}.yaml",
            true,
            "data/b/web.yaml"
        ));
        assert!(hit(
            "data",
            "br/{%{facts.role},%{facts.site}}.yaml",
            true,
            "data/br/ams.yaml"
        ));
        assert!(!hit("data", "roles/?.yaml", true, "data/roles/web.yaml"));
    }

    #[test]
    fn near_misses() {
        let levels: Vec<LevelDesc> = [
            "nodes/%{trusted.certname}.yaml",
            "roles/%{facts.role}.yaml",
            "common.yaml",
        ]
        .iter()
        .map(|l| LevelDesc {
            name: (*l).into(),
            location: (*l).into(),
            datadir: "data".into(),
            span: None,
            patterns: segs("data", l, false),
        })
        .collect();
        let n = near_miss(&levels, &["data", "nodes", "db01.example.com.yml"]).unwrap();
        assert_eq!(
            (n.path.as_str(), n.level, &n.kind),
            ("data/nodes/db01.example.com.yaml", 0, &NearKind::Extension)
        );
        let n = near_miss(&levels, &["data", "rolse", "web.yaml"]).unwrap();
        assert_eq!(n.path, "data/roles/web.yaml");
        assert_eq!(
            n.kind,
            NearKind::Name {
                written: "rolse".into(),
                wanted: "roles".into()
            }
        );
        let n = near_miss(&levels, &["data", "comon.yaml"]).unwrap();
        assert_eq!(n.path, "data/common.yaml");
        assert!(near_miss(&levels, &["data", "misc", "x.yaml"]).is_none());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}

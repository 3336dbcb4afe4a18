//! hieralint's own configuration file, `.hieralint.yaml` (house style §3.7; every key is
//! documented in docs/configuration.md).
//!
//! The file is looked up in the target directory, then its parents (or given with `--config`),
//! and read with hieralint's YAML loader so that every error is an H903 `invalid-config`
//! diagnostic with a span in the file. An entry in error is ignored; the rest applies.
//! Precedence: command-line flags > `--config` > the file found > built-in defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::{Diagnostic, Severity};
use crate::limits::Limits;
use crate::loader::{self, Document, LoadIssueKind};
use crate::render::OutputFormat;
use crate::rules::{self, RuleMeta};
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind, Value};

/// The configuration file's name.
pub const FILE_NAME: &str = ".hieralint.yaml";

/// `extends`: the starting level of every rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preset {
    /// Every rule on, at its category's severity.
    #[default]
    Recommended,
    /// Every rule on; rules that warn by default are errors.
    Strict,
    /// Every rule off; only the rules listed under `rules` run.
    None,
}

/// A rule's level in `rules:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    Info,
    Warn,
    Error,
}

impl Level {
    fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "off" => Level::Off,
            "info" => Level::Info,
            "warn" => Level::Warn,
            "error" => Level::Error,
            _ => return None,
        })
    }

    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Info => Some(Severity::Info),
            Level::Warn => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// `--fail-on` / `fail-on`: the lowest severity that makes the exit status 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    #[default]
    Error,
    Warning,
    Never,
}

impl FailOn {
    fn parse(s: &str) -> Option<FailOn> {
        Some(match s {
            "error" => FailOn::Error,
            "warning" => FailOn::Warning,
            "never" => FailOn::Never,
            _ => return None,
        })
    }

    /// Whether a diagnostic of this severity fails the run.
    pub fn fails(self, s: Severity) -> bool {
        match self {
            FailOn::Error => s == Severity::Error,
            FailOn::Warning => s >= Severity::Warning,
            FailOn::Never => false,
        }
    }
}

/// A path glob of the configuration, relative to the configuration file's directory.
///
/// A glob containing `/` is anchored there (`data/nodes/*.json`); one without is matched against
/// every file and directory name at any depth (`*.json`, `vendor`), as in `.gitignore`. `*` does
/// not cross `/`, `**` does, and a glob naming a directory covers everything below it.
#[derive(Clone, Debug)]
pub struct Glob {
    pub text: String,
    patterns: Vec<glob::Pattern>,
}

const GLOB_OPTIONS: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

impl Glob {
    pub fn new(text: &str) -> Result<Glob, glob::PatternError> {
        let t = text.trim_start_matches("./").trim_end_matches('/');
        let anchored = t.contains('/');
        let t = t.trim_start_matches('/');
        let forms = if anchored {
            vec![t.to_string(), format!("{t}/**")]
        } else {
            vec![format!("**/{t}"), format!("**/{t}/**")]
        };
        let patterns = forms
            .iter()
            .map(|f| glob::Pattern::new(f))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Glob {
            text: text.to_string(),
            patterns,
        })
    }

    /// Whether the `/`-separated path relative to the configuration directory matches.
    pub fn matches_relative(&self, rel: &str) -> bool {
        self.patterns
            .iter()
            .any(|p| p.matches_with(rel, GLOB_OPTIONS))
    }
}

/// One `per-file-ignores` entry.
#[derive(Clone, Debug)]
pub struct FileIgnore {
    pub glob: Glob,
    /// The rules it silences; `None` for `all`.
    pub rules: Option<Vec<&'static RuleMeta>>,
}

/// A rule's entry under `rules:`.
#[derive(Clone, Debug)]
pub struct RuleConfig {
    pub level: Option<Level>,
    /// The options beside `level` (rules read and validate their values).
    pub options: Vec<(String, Node)>,
}

/// The configuration in force.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The file read, if any.
    pub file: Option<Arc<SourceFile>>,
    /// The directory globs and paths are relative to: the file's directory (identity form, see
    /// [`crate::paths::identity`]).
    pub base_dir: PathBuf,
    pub extends: Preset,
    /// By rule code.
    pub rules: BTreeMap<&'static str, RuleConfig>,
    pub per_file_ignores: Vec<FileIgnore>,
    pub exclude: Vec<Glob>,
    /// Fact set files or directories (absolute).
    pub facts: Vec<PathBuf>,
    /// The Puppet major version the data is for (7 or 8).
    pub puppet: Option<u8>,
    pub format: Option<OutputFormat>,
    pub fail_on: Option<FailOn>,
    /// `limits:`: the bounds on hostile input (docs/limits.md); the defaults where not set.
    pub limits: Limits,
}

impl Settings {
    /// A rule's level: its `rules:` entry, else what `extends` gives. `invalid-config` is
    /// always an error.
    pub fn level(&self, m: &RuleMeta) -> Level {
        if m.code == rules::invalid_config::META.code {
            return Level::Error;
        }
        if let Some(l) = self.rules.get(m.code).and_then(|r| r.level) {
            return l;
        }
        let default = match m.category.default_severity() {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warn,
            Severity::Info => Level::Info,
        };
        match self.extends {
            Preset::Recommended => default,
            Preset::Strict if default == Level::Warn => Level::Error,
            Preset::Strict => default,
            Preset::None => Level::Off,
        }
    }

    /// The severity a diagnostic is reported at: the rule's configured level when `rules:` sets
    /// one, else what the rule reported, raised from warning to error under `extends: strict`.
    pub fn severity_for(&self, m: &RuleMeta, reported: Severity) -> Severity {
        if m.code == rules::invalid_config::META.code {
            return Severity::Error;
        }
        if let Some(s) = self
            .rules
            .get(m.code)
            .and_then(|r| r.level)
            .and_then(Level::severity)
        {
            return s;
        }
        if self.extends == Preset::Strict && reported == Severity::Warning {
            Severity::Error
        } else {
            reported
        }
    }

    /// The path relative to the configuration directory (`/`-separated), when inside it.
    fn relative(&self, path: &Path) -> Option<String> {
        crate::paths::relative_to(path, &self.base_dir)
    }

    /// Whether `exclude` removes this file from the run.
    pub fn is_excluded(&self, path: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        self.relative(path)
            .is_some_and(|rel| self.exclude.iter().any(|g| g.matches_relative(&rel)))
    }

    /// Whether `per-file-ignores` silences this rule in this file.
    /// Every rule but `invalid-config` can be ignored this way (like `off`, it is
    /// configuration, not an inline suppression).
    pub fn is_ignored_for_file(&self, path: &Path, m: &RuleMeta) -> bool {
        if self.per_file_ignores.is_empty() || m.code == rules::invalid_config::META.code {
            return false;
        }
        let Some(rel) = self.relative(path) else {
            return false;
        };
        self.per_file_ignores.iter().any(|fi| {
            fi.glob.matches_relative(&rel)
                && fi
                    .rules
                    .as_ref()
                    .is_none_or(|rs| rs.iter().any(|r| r.code == m.code))
        })
    }
}

/// Looks for [`FILE_NAME`] in `start` (a directory, or a file's directory) and its parents.
pub fn find(start: &Path) -> Option<PathBuf> {
    let abs = crate::paths::absolute(start);
    let dir = if abs.is_file() {
        abs.parent()?.to_path_buf()
    } else {
        abs
    };
    for d in dir.ancestors() {
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return Some(display_path(&candidate));
        }
    }
    None
}

/// A path as shown in diagnostics: relative to the current directory when inside it.
fn display_path(p: &Path) -> PathBuf {
    let cwd = crate::paths::absolute(Path::new("."));
    match p.strip_prefix(&cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => p.to_path_buf(),
    }
}

/// Reads and validates a configuration file. An unreadable file is an `Err` (exit status 2);
/// everything else is an H903 diagnostic.
pub fn load(
    path: &Path,
    known: &[&'static RuleMeta],
) -> Result<(Settings, Vec<Diagnostic>), String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the configuration `{}`: {e}", path.display()))?;
    let file = Arc::new(SourceFile::from_bytes(path, &bytes));
    let doc = loader::yaml::load(&file);
    let base = crate::paths::identity(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(parse(file, &doc, base, known))
}

/// The top-level keys, in documentation order.
const KEYS: &[&str] = &[
    "extends",
    "rules",
    "per-file-ignores",
    "exclude",
    "facts",
    "puppet",
    "format",
    "fail-on",
    "limits",
];

/// The keys of `limits:`, each the kebab-case name of a [`Limits`] field (docs/limits.md).
const LIMIT_KEYS: &[&str] = &[
    "max-file-bytes",
    "max-files",
    "yaml-max-depth",
    "max-expanded-nodes",
    "max-interpolated-bytes",
    "max-lookup-depth",
    "max-sub-lookups",
    "max-glob-results",
    "max-glob-visits",
    "max-glob-alternatives",
    "max-read-bytes",
];

/// Sets one `limits:` entry; false when the key is unknown.
fn set_limit(l: &mut Limits, key: &str, n: u64) -> bool {
    let as_usize = usize::try_from(n).unwrap_or(usize::MAX);
    match key {
        "max-file-bytes" => l.max_file_bytes = n,
        "max-files" => l.max_files = as_usize,
        "yaml-max-depth" => l.yaml_max_depth = as_usize,
        "max-expanded-nodes" => l.max_expanded_nodes = as_usize,
        "max-interpolated-bytes" => l.max_interpolated_bytes = as_usize,
        "max-lookup-depth" => l.max_lookup_depth = as_usize,
        "max-sub-lookups" => l.max_sub_lookups = as_usize,
        "max-glob-results" => l.max_glob_results = as_usize,
        "max-glob-visits" => l.max_glob_visits = as_usize,
        "max-glob-alternatives" => l.max_glob_alternatives = as_usize,
        "max-read-bytes" => l.max_read_bytes = n,
        _ => return false,
    }
    true
}

struct Cx<'a> {
    file: Arc<SourceFile>,
    known: &'a [&'static RuleMeta],
    diags: Vec<Diagnostic>,
}

impl Cx<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::new(
            &rules::invalid_config::META,
            &self.file,
            span,
            message,
        ));
        self.diags.last_mut().expect("just pushed")
    }

    /// The text of a scalar (plain scalars by their source text, so `off` is `off` and not the
    /// YAML 1.1 boolean it resolves to).
    fn scalar<'n>(&mut self, n: &'n Node, what: &str) -> Option<&'n str> {
        match &n.kind {
            NodeKind::Scalar(s) => Some(&s.text),
            _ => {
                self.error(
                    n.span,
                    format!("{what} must be a string, not a {}", kind_name(n)),
                );
                None
            }
        }
    }

    fn rule(&mut self, n: &Node, what: &str) -> Option<&'static RuleMeta> {
        let name = self.scalar(n, what)?;
        match crate::suppress::resolve(self.known, name) {
            Some(m) => Some(m),
            None => {
                let name = name.to_string();
                let suggestion = crate::suppress::suggest(self.known, &name);
                let d = self.error(n.span, format!("unknown rule `{name}`"));
                if let Some(s) = suggestion {
                    d.notes.push(format!("did you mean `{s}`?"));
                } else {
                    d.notes
                        .push("`hieralint rules` lists every rule".to_string());
                }
                None
            }
        }
    }

    fn glob(&mut self, n: &Node) -> Option<Glob> {
        let text = self.scalar(n, "a glob")?.to_string();
        match Glob::new(&text) {
            Ok(g) => Some(g),
            Err(e) => {
                self.error(n.span, format!("invalid glob `{text}`: {}", e.msg));
                None
            }
        }
    }

    fn strings<'n>(&mut self, n: &'n Node, what: &str) -> Vec<&'n Node> {
        match &n.kind {
            NodeKind::Seq(items) => items.iter().collect(),
            NodeKind::Scalar(_) => vec![n],
            NodeKind::Map(_) => {
                self.error(
                    n.span,
                    format!("{what} must be a string or a list of strings, not a mapping"),
                );
                Vec::new()
            }
        }
    }
}

fn kind_name(n: &Node) -> &'static str {
    match &n.kind {
        NodeKind::Scalar(_) => "scalar",
        NodeKind::Seq(_) => "list",
        NodeKind::Map(_) => "mapping",
    }
}

fn key_text(n: &Node) -> String {
    match &n.kind {
        NodeKind::Scalar(s) => s.text.to_string(),
        _ => format!("<{}>", kind_name(n)),
    }
}

/// The option names a rule documents in its page's `## Options` section (items written
/// `` - `name` ``): the page is the single source of truth for options.
pub fn documented_options(m: &RuleMeta) -> Vec<&'static str> {
    let doc = m.doc;
    let Some(at) = doc.find("\n## Options") else {
        return Vec::new();
    };
    let section = &doc[at + 1..];
    let section = match section[3..].find("\n## ") {
        Some(end) => &section[..end + 3],
        None => section,
    };
    section
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Validates a loaded configuration document.
pub fn parse(
    file: Arc<SourceFile>,
    doc: &Document,
    base_dir: PathBuf,
    known: &[&'static RuleMeta],
) -> (Settings, Vec<Diagnostic>) {
    let mut cx = Cx {
        file: file.clone(),
        known,
        diags: Vec::new(),
    };
    let mut s = Settings {
        file: Some(file.clone()),
        base_dir,
        ..Settings::default()
    };
    for issue in &doc.issues {
        match &issue.kind {
            LoadIssueKind::DuplicateKey { first } => {
                let key = file.slice(*first).to_string();
                let d = cx.error(issue.span, format!("duplicate key `{key}`"));
                d.secondary.push(
                    crate::diag::Label::new(&file, *first).with_message("first defined here"),
                );
            }
            LoadIssueKind::Syntax | LoadIssueKind::Encoding | LoadIssueKind::Limit => {
                cx.error(issue.span, issue.message.clone());
            }
            // Date/Time, tags and extra documents do not matter for hieralint's own reading.
            _ => {}
        }
    }
    // a file that does not parse is not applied at all: what was read before the error is
    // partial, and validating it would report errors that are not there
    if doc.issues.iter().any(|i| i.kind == LoadIssueKind::Syntax) {
        return (s, cx.diags);
    }
    let Some(root) = &doc.root else {
        return (s, cx.diags);
    };
    let Some(map) = root.as_map() else {
        if !matches!(&root.kind, NodeKind::Scalar(sc) if matches!(sc.value, Value::Undef)) {
            cx.error(
                root.span,
                format!(
                    "the configuration must be a mapping of keys, not a {}",
                    kind_name(root)
                ),
            );
        }
        return (s, cx.diags);
    };
    for e in &map.entries {
        if e.merged {
            continue;
        }
        let key = key_text(&e.key);
        let v = &e.value;
        match key.as_str() {
            "extends" => {
                if let Some(t) = cx.scalar(v, "`extends`") {
                    match t {
                        "recommended" => s.extends = Preset::Recommended,
                        "strict" => s.extends = Preset::Strict,
                        "none" => s.extends = Preset::None,
                        other => {
                            let other = other.to_string();
                            cx.error(
                                v.span,
                                format!(
                                    "unknown preset `{other}` (expected recommended, strict or none)"
                                ),
                            );
                        }
                    }
                }
            }
            "rules" => parse_rules(&mut cx, v, &mut s),
            "per-file-ignores" => {
                let Some(m) = v.as_map() else {
                    cx.error(
                        v.span,
                        format!(
                            "`per-file-ignores` must be a mapping of globs to rule lists, not a {}",
                            kind_name(v)
                        ),
                    );
                    continue;
                };
                for pe in &m.entries {
                    let Some(glob) = cx.glob(&pe.key) else {
                        continue;
                    };
                    let is_all = |n: &Node| n.as_scalar().is_some_and(|sc| &*sc.text == "all");
                    let items = cx.strings(&pe.value, "the rules of a `per-file-ignores` entry");
                    let rules = if items.iter().any(|it| is_all(it)) {
                        None
                    } else if items.is_empty() {
                        cx.error(pe.value.span, "an empty rule list ignores nothing")
                            .notes
                            .push("write `all` to ignore every rule".to_string());
                        continue;
                    } else {
                        let mut list = Vec::new();
                        for it in items {
                            let Some(r) = cx.rule(it, "a rule") else {
                                continue;
                            };
                            if r.code == rules::invalid_config::META.code {
                                cx.error(it.span, "`invalid-config` cannot be ignored");
                                continue;
                            }
                            list.push(r);
                        }
                        if list.is_empty() {
                            continue;
                        }
                        Some(list)
                    };
                    s.per_file_ignores.push(FileIgnore { glob, rules });
                }
            }
            "exclude" => {
                for it in cx.strings(v, "`exclude`") {
                    if let Some(g) = cx.glob(it) {
                        s.exclude.push(g);
                    }
                }
            }
            "facts" => {
                for it in cx.strings(v, "`facts`") {
                    let Some(t) = cx.scalar(it, "a facts path") else {
                        continue;
                    };
                    let p = s.base_dir.join(t);
                    if !p.exists() {
                        let t = t.to_string();
                        cx.error(it.span, format!("facts path `{t}` does not exist"))
                            .notes
                            .push(format!(
                                "paths are relative to the configuration file's directory ({})",
                                s.base_dir.display()
                            ));
                        continue;
                    }
                    s.facts.push(p);
                }
            }
            "puppet" => match cx.scalar(v, "`puppet`") {
                Some("7") => s.puppet = Some(7),
                Some("8") => s.puppet = Some(8),
                Some(other) => {
                    let other = other.to_string();
                    cx.error(
                        v.span,
                        format!("unsupported Puppet version `{other}` (expected 7 or 8)"),
                    );
                }
                None => {}
            },
            "format" => {
                if let Some(t) = cx.scalar(v, "`format`") {
                    match OutputFormat::from_name(t) {
                        Some(f) => s.format = Some(f),
                        None => {
                            let t = t.to_string();
                            let names: Vec<&str> =
                                OutputFormat::all().iter().map(|f| f.name()).collect();
                            cx.error(
                                v.span,
                                format!(
                                    "unknown format `{t}` (expected one of {})",
                                    names.join(", ")
                                ),
                            );
                        }
                    }
                }
            }
            "fail-on" => {
                if let Some(t) = cx.scalar(v, "`fail-on`") {
                    match FailOn::parse(t) {
                        Some(f) => s.fail_on = Some(f),
                        None => {
                            let t = t.to_string();
                            cx.error(
                                v.span,
                                format!("unknown `fail-on` value `{t}` (expected error, warning or never)"),
                            );
                        }
                    }
                }
            }
            "limits" => parse_limits(&mut cx, v, &mut s.limits),
            other => {
                let suggestion = KEYS
                    .iter()
                    .map(|k| (strsim::jaro_winkler(other, k), *k))
                    .filter(|(sc, _)| *sc > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, k)| k);
                let other = other.to_string();
                let d = cx.error(e.key.span, format!("unknown key `{other}`"));
                match suggestion {
                    Some(k) => d.notes.push(format!("did you mean `{k}`?")),
                    None => d.notes.push(format!("known keys: {}", KEYS.join(", "))),
                }
            }
        }
    }
    (s, cx.diags)
}

fn parse_rules(cx: &mut Cx, v: &Node, s: &mut Settings) {
    let Some(m) = v.as_map() else {
        cx.error(
            v.span,
            format!(
                "`rules` must be a mapping of rule names to levels, not a {}",
                kind_name(v)
            ),
        );
        return;
    };
    for e in &m.entries {
        let Some(meta) = cx.rule(&e.key, "a rule name") else {
            continue;
        };
        let mut rc = RuleConfig {
            level: None,
            options: Vec::new(),
        };
        let level_of = |cx: &mut Cx, n: &Node| -> Option<Level> {
            let t = cx.scalar(n, "a rule level")?;
            match Level::parse(t) {
                Some(l) => Some(l),
                None => {
                    let t = t.to_string();
                    cx.error(
                        n.span,
                        format!("unknown level `{t}` (expected off, info, warn or error)"),
                    );
                    None
                }
            }
        };
        match &e.value.kind {
            NodeKind::Scalar(_) => rc.level = level_of(cx, &e.value),
            NodeKind::Map(opts) => {
                let documented = documented_options(meta);
                for oe in &opts.entries {
                    let k = key_text(&oe.key);
                    if k == "level" {
                        rc.level = level_of(cx, &oe.value);
                    } else if documented.contains(&k.as_str()) {
                        rc.options.push((k, oe.value.clone()));
                    } else {
                        let d = cx.error(
                            oe.key.span,
                            format!("rule `{}` has no option `{k}`", meta.name),
                        );
                        if documented.is_empty() {
                            d.notes
                                .push(format!("`{}` takes no options, only `level`", meta.name));
                        } else {
                            d.notes
                                .push(format!("its options: {}", documented.join(", ")));
                        }
                    }
                }
            }
            NodeKind::Seq(_) => {
                cx.error(
                    e.value.span,
                    "a rule's setting must be a level (off, info, warn, error) or a mapping with `level` and options",
                );
                continue;
            }
        }
        if meta.code == rules::invalid_config::META.code {
            cx.error(e.key.span, "`invalid-config` cannot be configured");
            continue;
        }
        s.rules.insert(meta.code, rc);
    }
}

/// `limits:`: a mapping of [`LIMIT_KEYS`] to positive integers (`_` separators allowed, as
/// YAML 1.1 reads `1_000_000`). A wrong entry is an error and leaves that bound at its default.
fn parse_limits(cx: &mut Cx, v: &Node, l: &mut Limits) {
    let Some(m) = v.as_map() else {
        cx.error(
            v.span,
            format!(
                "`limits` must be a mapping of limit names to numbers, not a {}",
                kind_name(v)
            ),
        );
        return;
    };
    for e in &m.entries {
        if e.merged {
            continue;
        }
        let k = key_text(&e.key);
        if !set_limit(&mut Limits::default(), &k, 1) {
            let suggestion = LIMIT_KEYS
                .iter()
                .map(|c| (strsim::jaro_winkler(&k, c), *c))
                .filter(|(sc, _)| *sc > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, c)| c);
            let d = cx.error(e.key.span, format!("unknown limit `{k}`"));
            match suggestion {
                Some(c) => d.notes.push(format!("did you mean `{c}`?")),
                None => d
                    .notes
                    .push(format!("known limits: {}", LIMIT_KEYS.join(", "))),
            }
            continue;
        }
        let (n, shown) = match &e.value.kind {
            NodeKind::Scalar(sc) if sc.text.starts_with('_') => (None, format!("`{}`", sc.text)),
            NodeKind::Scalar(sc) => (
                sc.text
                    .replace('_', "")
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0),
                format!("`{}`", sc.text),
            ),
            _ => (None, format!("a {}", kind_name(&e.value))),
        };
        match n {
            Some(n) => {
                set_limit(l, &k, n);
            }
            None => {
                cx.error(
                    e.value.span,
                    format!("limit `{k}` must be a positive whole number, not {shown}"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_anchor_on_slash() {
        let g = Glob::new("data/nodes/*.json").unwrap();
        assert!(g.matches_relative("data/nodes/a.json"));
        assert!(!g.matches_relative("data/nodes/x/a.json"));
        assert!(!g.matches_relative("env/data/nodes/a.json"));
        let g = Glob::new("*.json").unwrap();
        assert!(g.matches_relative("a.json"));
        assert!(g.matches_relative("data/nodes/a.json"));
        let g = Glob::new("vendor").unwrap();
        assert!(g.matches_relative("vendor/a.yaml"));
        assert!(g.matches_relative("x/vendor/b/a.yaml"));
        assert!(!g.matches_relative("vendors/a.yaml"));
        let g = Glob::new("spec/fixtures/**").unwrap();
        assert!(g.matches_relative("spec/fixtures/a/b.yaml"));
        let g = Glob::new("./data/").unwrap();
        assert!(g.matches_relative("data/common.yaml"));
        assert!(Glob::new("a/[").is_err());
    }

    #[test]
    fn fail_on_thresholds() {
        assert!(FailOn::Error.fails(Severity::Error));
        assert!(!FailOn::Error.fails(Severity::Warning));
        assert!(FailOn::Warning.fails(Severity::Warning));
        assert!(!FailOn::Warning.fails(Severity::Info));
        assert!(!FailOn::Never.fails(Severity::Error));
    }

    #[test]
    fn options_come_from_the_rule_page() {
        static M: RuleMeta = RuleMeta {
            code: "H999",
            name: "x",
            category: rules::Category::Style,
            summary: "",
            doc: "# x\n## Options\n- `allow` (default: `[]`): keys\n- `max-depth`: n\n\n## References\n- `nope`\n",
            suppressible: true,
        };
        assert_eq!(documented_options(&M), vec!["allow", "max-depth"]);
        assert!(documented_options(&rules::unreadable_file::META).is_empty());
    }

    #[test]
    fn presets_set_levels() {
        let mut s = Settings::default();
        let h903 = &rules::invalid_config::META;
        let h901 = &rules::unused_suppression::META;
        let h008 = &rules::unreadable_file::META;
        assert_eq!(s.level(h901), Level::Warn);
        s.extends = Preset::Strict;
        assert_eq!(s.level(h901), Level::Error);
        s.extends = Preset::None;
        assert_eq!(s.level(h008), Level::Off);
        assert_eq!(s.level(h903), Level::Error);
        s.rules.insert(
            h901.code,
            RuleConfig {
                level: Some(Level::Info),
                options: vec![],
            },
        );
        assert_eq!(s.level(h901), Level::Info);
    }

    fn parse_text(text: &str) -> (Settings, Vec<Diagnostic>) {
        let file = Arc::new(SourceFile::new(FILE_NAME, text));
        let doc = loader::yaml::load(&file);
        let known: Vec<&'static RuleMeta> = rules::registry().iter().map(|r| r.meta()).collect();
        parse(file, &doc, PathBuf::from("/x"), &known)
    }

    #[test]
    fn every_limit_key_sets_its_own_field() {
        let mut seen = Vec::new();
        for k in LIMIT_KEYS {
            let mut l = Limits::default();
            assert!(set_limit(&mut l, k, 7), "{k}");
            assert_ne!(l, Limits::default(), "{k} changed nothing");
            assert!(!seen.contains(&l), "{k} sets the same field as another key");
            seen.push(l);
        }
        assert!(!set_limit(&mut Limits::default(), "max-nope", 7));
    }

    #[test]
    fn limits_are_configured() {
        let (s, d) = parse_text(
            "limits:\n  max-file-bytes: 1_048_576\n  max-lookup-depth: 50\n  yaml-max-depth: 100\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.limits.max_file_bytes, 1 << 20);
        assert_eq!(s.limits.max_lookup_depth, 50);
        assert_eq!(s.limits.yaml_max_depth, 100);
        assert_eq!(s.limits.max_sub_lookups, Limits::default().max_sub_lookups);
    }

    #[test]
    fn wrong_limits_are_errors_at_their_spans() {
        let text = "limits:\n  max-glob-result: 5\n  max-files: 0\n  max-sub-lookups: many\n  max-glob-visits: [1]\n";
        let (s, d) = parse_text(text);
        let got: Vec<(String, String)> = d
            .iter()
            .map(|d| {
                (
                    d.message.clone(),
                    d.primary.file.slice(d.primary.span).to_string(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "unknown limit `max-glob-result`".to_string(),
                    "max-glob-result".to_string()
                ),
                (
                    "limit `max-files` must be a positive whole number, not `0`".to_string(),
                    "0".to_string()
                ),
                (
                    "limit `max-sub-lookups` must be a positive whole number, not `many`"
                        .to_string(),
                    "many".to_string()
                ),
                (
                    "limit `max-glob-visits` must be a positive whole number, not a list"
                        .to_string(),
                    "[1]".to_string()
                ),
            ]
        );
        assert_eq!(
            d[0].notes,
            vec!["did you mean `max-glob-results`?".to_string()]
        );
        assert_eq!(s.limits, Limits::default());
        let (_, d) = parse_text("limits: 5\n");
        assert_eq!(
            d[0].message,
            "`limits` must be a mapping of limit names to numbers, not a scalar"
        );
    }
}

//! One `hieralint check` run, end to end: which rules run (configuration, `--select`,
//! `--ignore`), loading (file context, `exclude`, the `--stdin-filename` buffer), the rules,
//! inline suppressions, severity overrides, `per-file-ignores`, the reporting scope and the
//! baseline; and `--fix`/`--diff` on top of it.
//!
//! Order matters and is fixed: inline suppressions see every finding (so a directive is "used"
//! even when the finding would also be silenced by configuration), then levels, then
//! `per-file-ignores`, then the scope (only the files named, for pre-commit and editors), then
//! the baseline, which is computed on exactly what would otherwise be reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::baseline::Baseline;
use crate::check;
use crate::diag::{self, Diagnostic};
use crate::fix::{self, FileFix};
use crate::paths;
use crate::project::Project;
use crate::render::Summary;
use crate::rules::{self, Rule, RuleMeta};
use crate::scan::{self, ScanOptions};
use crate::settings::{Level, Settings};
use crate::suppress::{self, Suppressed, SuppressedBy};

/// Everything a run needs, resolved from the command line and the configuration.
#[derive(Clone)]
pub struct RunOptions {
    pub paths: Vec<PathBuf>,
    pub settings: Settings,
    /// H903 diagnostics from reading the configuration.
    pub config_diagnostics: Vec<Diagnostic>,
    /// `--select`: when not empty, only these rules run.
    pub select: Vec<&'static RuleMeta>,
    /// `--ignore`: these rules do not run.
    pub ignore: Vec<&'static RuleMeta>,
    pub baseline: Option<Arc<Baseline>>,
    /// `--stdin-filename`: the path and the buffer read from standard input.
    pub stdin: Option<(PathBuf, Arc<str>)>,
    /// Texts that replace files on disk (the stdin buffer, and fixes not yet written), keyed by
    /// [`paths::identity`].
    pub overlay: BTreeMap<PathBuf, Arc<str>>,
    /// The rules that can run (the registry; tests add their own).
    pub registry: Vec<&'static dyn Rule>,
    /// Report paths are relative to this (the repository root).
    pub root: PathBuf,
    /// Fact sets (`--facts`, else the configuration's `facts`).
    pub facts: Vec<PathBuf>,
    /// The Puppet major version (`--puppet`, else the configuration's `puppet`); 0 means the
    /// default, 8.
    pub puppet: u8,
}

impl RunOptions {
    pub fn new(paths: Vec<PathBuf>) -> RunOptions {
        RunOptions {
            paths,
            settings: Settings::default(),
            config_diagnostics: Vec::new(),
            select: Vec::new(),
            ignore: Vec::new(),
            baseline: None,
            stdin: None,
            overlay: BTreeMap::new(),
            registry: rules::registry().to_vec(),
            root: paths::repo_root(),
            facts: Vec::new(),
            puppet: 0,
        }
    }

    /// Every rule this run knows: the registry's and hieralint's own diagnostics.
    pub fn known(&self) -> Vec<&'static RuleMeta> {
        known_rules(&self.registry)
    }
}

/// The metadata of `registry` plus hieralint's internal diagnostics, in code order.
pub fn known_rules(registry: &[&'static dyn Rule]) -> Vec<&'static RuleMeta> {
    let mut v: Vec<&'static RuleMeta> = registry.iter().map(|r| r.meta()).collect();
    for m in rules::all_meta() {
        if !v.iter().any(|k| k.code == m.code) {
            v.push(m);
        }
    }
    v.sort_by_key(|m| m.code);
    v
}

/// Resolves `--select`/`--ignore` values (names or codes, comma-separated or repeated).
pub fn resolve_rules(
    values: &[String],
    known: &[&'static RuleMeta],
    flag: &str,
) -> Result<Vec<&'static RuleMeta>, String> {
    let mut out = Vec::new();
    for v in values.iter().flat_map(|v| v.split(',')) {
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        match suppress::resolve(known, v) {
            Some(m) => out.push(m),
            None => {
                let hint = suppress::suggest(known, v)
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "{flag}: unknown rule `{v}`{hint}; `hieralint rules` lists them"
                ));
            }
        }
    }
    Ok(out)
}

/// The outcome of a run.
pub struct RunResult {
    pub project: Project,
    /// What to report, in the contract order.
    pub diagnostics: Vec<Diagnostic>,
    /// What inline directives and the baseline silenced (in scope only).
    pub suppressed: Vec<Suppressed>,
    pub summary: Summary,
    /// The files in the reporting scope (display paths, sorted).
    pub files: Vec<PathBuf>,
    /// The configuration had errors (H903): exit status 2.
    pub config_error: bool,
    /// Diagnostics in scope before the baseline was applied (what `--write-baseline` records).
    pub before_baseline: Vec<Diagnostic>,
}

/// The codes of the rules that run.
pub fn enabled_codes(opts: &RunOptions, known: &[&'static RuleMeta]) -> BTreeSet<&'static str> {
    known
        .iter()
        .filter(|m| {
            if m.code == rules::invalid_config::META.code {
                return true;
            }
            let on = if opts.select.is_empty() {
                opts.settings.level(m) != Level::Off
            } else {
                opts.select.iter().any(|s| s.code == m.code)
            };
            on && !opts.ignore.iter().any(|i| i.code == m.code)
        })
        .map(|m| m.code)
        .collect()
}

/// What becomes of the findings of the rules over a project: the findings of rules that are
/// off are dropped, inline suppressions apply (they see every finding, so a directive is "used"
/// even when configuration would also silence the finding), then the configured levels, then
/// `per-file-ignores`. Returns what is reported and what inline directives silenced. [`run`]
/// and the language server share it.
pub fn settle(
    project: &Project,
    mut found: Vec<Diagnostic>,
    settings: &Settings,
    known: &[&'static RuleMeta],
    enabled: &BTreeSet<&'static str>,
) -> (Vec<Diagnostic>, Vec<Suppressed>) {
    found.retain(|d| enabled.contains(d.rule.code));
    let outcome = suppress::apply(
        project,
        found,
        &suppress::Context {
            known,
            enabled,
            // a blanket directive may be for any rule that can be suppressed: it can only be
            // called unused when all of them ran
            check_blanket: known
                .iter()
                .filter(|m| m.suppressible)
                .all(|m| enabled.contains(m.code)),
        },
    );
    let mut all = outcome.kept;
    all.extend(
        outcome
            .directive_diagnostics
            .into_iter()
            .filter(|d| enabled.contains(d.rule.code)),
    );
    for d in &mut all {
        d.severity = settings.severity_for(d.rule, d.severity);
    }
    let mut inline_suppressed = outcome.suppressed;
    for s in &mut inline_suppressed {
        s.diagnostic.severity = settings.severity_for(s.diagnostic.rule, s.diagnostic.severity);
    }
    all.retain(|d| !settings.is_ignored_for_file(&d.primary.file.path, d.rule));
    (all, inline_suppressed)
}

/// Runs the checks once.
pub fn run(opts: &RunOptions) -> RunResult {
    let known = opts.known();
    let enabled = enabled_codes(opts, &known);

    let mut paths_in = opts.paths.clone();
    let mut overlay = opts.overlay.clone();
    let mut stdin_id = None;
    if let Some((p, text)) = &opts.stdin {
        let id = paths::identity(p);
        overlay.entry(id.clone()).or_insert_with(|| text.clone());
        if !paths_in.iter().any(|q| paths::identity(q) == id) {
            paths_in.push(p.clone());
        }
        stdin_id = Some(id);
    }
    let exclude: Option<scan::PathFilter> = if opts.settings.exclude.is_empty() {
        None
    } else {
        let s = Arc::new(opts.settings.clone());
        Some(Arc::new(move |p: &Path| s.is_excluded(p)))
    };
    let scan_opts = ScanOptions {
        overlay,
        exclude,
        file_context: true,
        limits: opts.settings.limits,
        scalar_flags: opts
            .registry
            .iter()
            .any(|r| r.reads_scalar_flags() && enabled.contains(r.meta().code)),
        lookup_options: opts
            .registry
            .iter()
            .any(|r| r.reads_lookup_options() && enabled.contains(r.meta().code)),
        root_key_hashes: opts
            .registry
            .iter()
            .any(|r| r.needs_shared_lookups() && enabled.contains(r.meta().code)),
        interpolations: opts
            .registry
            .iter()
            .any(|r| r.reads_interpolations() && enabled.contains(r.meta().code)),
    };
    let mut scanned = scan::load_project_with(&paths_in, &scan_opts);
    for (code, rc) in &opts.settings.rules {
        if !rc.options.is_empty() {
            scanned
                .project
                .rule_options
                .insert(code, rc.options.clone());
        }
    }
    let mut project = scanned.project;

    let to_run: Vec<&'static dyn Rule> = opts
        .registry
        .iter()
        .copied()
        .filter(|r| enabled.contains(r.meta().code))
        .collect();
    let check_opts = check::CheckOptions {
        facts: opts.facts.clone(),
        puppet: opts.puppet,
        limits: opts.settings.limits,
        ..check::CheckOptions::default()
    };
    let found = check::check_loaded(&mut project, &scanned.errors, &to_run, &check_opts);
    let (mut all, mut inline_suppressed) =
        settle(&project, found, &opts.settings, &known, &enabled);
    // File arguments shown as they were typed (`Scan::respell`); sorted again below.
    diag::respell(all.iter_mut(), &scanned.respell);
    diag::respell(
        inline_suppressed.iter_mut().map(|s| &mut s.diagnostic),
        &scanned.respell,
    );

    // the reporting scope: the stdin file, or the file arguments
    let scope: Option<BTreeSet<PathBuf>> = match &stdin_id {
        Some(id) => Some(BTreeSet::from([id.clone()])),
        None => scanned.scope,
    };
    let mut id_cache: BTreeMap<PathBuf, bool> = BTreeMap::new();
    let mut in_scope = |p: &Path| -> bool {
        match &scope {
            None => true,
            Some(set) => *id_cache
                .entry(p.to_path_buf())
                .or_insert_with(|| set.contains(&paths::identity(p))),
        }
    };
    all.retain(|d| in_scope(&d.primary.file.path));
    let mut suppressed: Vec<Suppressed> = inline_suppressed
        .into_iter()
        .filter(|s| in_scope(&s.diagnostic.primary.file.path))
        .collect();
    let files: Vec<PathBuf> = if scope.is_none() {
        // Every file: copied in parallel (15k paths took 2 ms on one thread at the end of a
        // run).
        use rayon::prelude::*;
        project
            .files
            .par_iter()
            .map(|f| f.source.path.clone())
            .collect()
    } else {
        project
            .files
            .iter()
            .map(|f| f.source.path.clone())
            .filter(|p| in_scope(p))
            .collect()
    };

    let config_error = !opts.config_diagnostics.is_empty();
    all.extend(opts.config_diagnostics.iter().cloned());
    diag::sort_and_dedup(&mut all);
    let before_baseline = all.clone();

    if let Some(b) = &opts.baseline {
        let hits = b.matches(&all, &opts.root);
        let mut kept = Vec::with_capacity(all.len());
        for (d, hit) in all.into_iter().zip(hits) {
            if hit {
                suppressed.push(Suppressed {
                    diagnostic: d,
                    by: SuppressedBy::Baseline,
                });
            } else {
                kept.push(d);
            }
        }
        all = kept;
    }
    suppressed.sort_by(|a, b| a.diagnostic.sort_key().cmp(&b.diagnostic.sort_key()));

    let mut summary = Summary {
        files_checked: files.len(),
        fact_sets: project.fact_sets.len(),
        suppressed: suppressed.len(),
        ..Summary::default()
    };
    summary.count(&all);
    RunResult {
        project,
        diagnostics: all,
        suppressed,
        summary,
        files,
        config_error,
        before_baseline,
    }
}

/// What `--fix`/`--diff` did.
pub struct FixOutcome {
    /// The run after the last round of fixes.
    pub result: RunResult,
    /// Each changed file: its display path, original text and fixed text.
    pub changed: Vec<FileFix>,
    /// Fixes applied over all rounds.
    pub applied: usize,
    /// Fixes refused because they would change the data Puppet reads.
    pub refused: Vec<fix::Refused>,
}

/// Most rounds of fix-then-recheck (a round can only apply non-overlapping fixes; later rounds
/// pick up the rest and fixes that the first round made possible).
pub const MAX_FIX_ROUNDS: usize = 10;

/// Runs, applies every fix, re-checks, and repeats until no fix applies. Fixed texts are kept in
/// the overlay, so nothing is written here: the caller writes ([`fix::write_back`]) or diffs
/// the returned files.
pub fn run_with_fixes(opts: &RunOptions) -> FixOutcome {
    let mut opts = opts.clone();
    let mut originals: BTreeMap<PathBuf, Arc<crate::span::SourceFile>> = BTreeMap::new();
    let mut applied = 0;
    let mut refused: Vec<fix::Refused> = Vec::new();
    let mut result = run(&opts);
    for _ in 0..MAX_FIX_ROUNDS {
        let (plan, no) = fix::plan_checked(&result.diagnostics);
        // a refused fix comes back every round: record it once
        for r in no {
            let key = |r: &fix::Refused| {
                (
                    r.file.path.clone(),
                    r.file.line_col(r.fix.span.start as usize),
                    r.fix.title.clone(),
                )
            };
            if !refused.iter().any(|x| key(x) == key(&r)) {
                refused.push(r);
            }
        }
        if plan.is_empty() {
            break;
        }
        for ff in plan {
            applied += ff.applied;
            let id = paths::identity(&ff.file.path);
            originals
                .entry(id.clone())
                .or_insert_with(|| ff.file.clone());
            opts.overlay.insert(id, Arc::from(ff.fixed.as_str()));
        }
        result = run(&opts);
    }
    let changed = originals
        .into_iter()
        .filter_map(|(id, file)| {
            let fixed = opts.overlay.get(&id)?.to_string();
            (fixed != file.text()).then_some(FileFix {
                file,
                fixed,
                applied: 0,
                skipped: 0,
            })
        })
        .collect();
    FixOutcome {
        result,
        changed,
        applied,
        refused,
    }
}

//! The `check` pipeline: load the project, run every enabled rule's phases (files in parallel,
//! then project-wide), and return the diagnostics in the contract order.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diag::{self, Diagnostic, Label};
use crate::limits::Limits;
use crate::project::{FileRole, LoadedFile, Project};
use crate::render::Summary;
use crate::rules::{self, Rule, Sink};
use crate::scan::{self, ScanError};
use crate::span::{SourceFile, Span};

/// What to check and how.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub paths: Vec<PathBuf>,
    /// Rules to run, by name; empty means all.
    pub only: Vec<&'static str>,
    /// Fact set files or directories (`--facts`).
    pub facts: Vec<PathBuf>,
    /// The Puppet major version modelled where 7 and 8 differ (reference §11); 0 means the
    /// default, 8.
    pub puppet: u8,
    /// Bounds on file size and count, nesting, aliases, interpolation and globs (docs/limits.md).
    pub limits: Limits,
}

pub struct CheckResult {
    pub project: Project,
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
}

fn scan_error_diagnostic(e: &ScanError) -> Diagnostic {
    let (file, span) = match &e.source {
        Some((file, span)) => (file.clone(), *span),
        None => (
            std::sync::Arc::new(SourceFile::new(e.path.clone(), "")),
            Span::empty(0),
        ),
    };
    Diagnostic {
        rule: &rules::unreadable_file::META,
        severity: rules::unreadable_file::META.category.default_severity(),
        message: e.message.clone(),
        primary: Label::new(&file, span),
        secondary: Vec::new(),
        notes: Vec::new(),
        fix: None,
    }
}

/// The per-file phases of `enabled` for one file: `check_hiera_config` for a hiera.yaml,
/// `check_data_file` for the others.
pub fn run_file_rules(
    project: &Project,
    file: &LoadedFile,
    enabled: &[&'static dyn Rule],
) -> Vec<Diagnostic> {
    run_file_rules_with(project, file, enabled, None)
}

/// [`run_file_rules`], with the file's interpolated strings already found (`sites`, from the
/// run's [`crate::rules::SharedSites`]).
fn run_file_rules_with<'a>(
    project: &Project,
    file: &'a LoadedFile,
    enabled: &[&'static dyn Rule],
    sites: Option<&'a [crate::rules::interp_sites::Site<'a>]>,
) -> Vec<Diagnostic> {
    let memo = crate::rules::FileMemo::with_sites(file, sites);
    let mut sink = Sink::for_file(&memo);
    for rule in enabled {
        crate::timing::rule(rule.meta().name, || match file.role {
            FileRole::HieraConfig => rule.check_hiera_config(project, file, &mut sink),
            FileRole::Data | FileRole::Loose => rule.check_data_file(project, file, &mut sink),
        });
    }
    sink.diagnostics
}

/// Builds the analysis `enabled` needs before the project rules run in parallel (see
/// `Rule::needs_analysis`); a no-op once built.
fn prepare_analysis(project: &Project, enabled: &[&'static dyn Rule]) {
    if enabled.iter().any(|r| r.needs_analysis()) {
        project
            .analysis()
            .prepare(enabled.iter().any(|r| r.needs_shared_lookups()));
        crate::timing::mark("analysis");
    }
}

/// The project phase (`check_project`) of `enabled`, in parallel.
pub fn run_project_rules(project: &Project, enabled: &[&'static dyn Rule]) -> Vec<Diagnostic> {
    run_project_rules_with(project, enabled, None)
}

/// [`run_project_rules`] with the files' interpolated strings found before the rules ran.
fn run_project_rules_with<'a>(
    project: &'a Project,
    enabled: &[&'static dyn Rule],
    sites: Option<&'a crate::rules::SharedSites<'a>>,
) -> Vec<Diagnostic> {
    prepare_analysis(project, enabled);
    // Longest first (`Rule::project_cost`), taken from one shared list by a worker per thread:
    // each worker that comes free takes the longest rule left (the greedy longest-processing-
    // time schedule). A task per rule let this thread take the newest (shortest) tasks and the
    // others the oldest, so at 15k files one thread ran merge-type-mismatch and then
    // interpolated-key-not-found (44 ms) while the other, done with interpolation-loop after
    // 31 ms, found nothing left to take: 49.6 ms for the phase against 44 ms now
    // (docs/benchmarks.md, session 28). A rule's own parallel work is still stolen by workers
    // that found the list empty. Each rule's findings go to its own slot, taken in `enabled`
    // order: the same output whatever thread ran what.
    let mut order: Vec<usize> = (0..enabled.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(enabled[i].project_cost()));
    let slots: Vec<std::sync::Mutex<Vec<Diagnostic>>> =
        enabled.iter().map(|_| Default::default()).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, order.len().max(1));
    rayon::scope(|s| {
        for _ in 0..workers {
            let (order, slots, next) = (&order, &slots, &next);
            s.spawn(move |_| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                let rule = enabled[i];
                let mut sink = Sink::for_project(sites);
                crate::timing::rule(rule.meta().name, || rule.check_project(project, &mut sink));
                crate::progress::inc();
                if let Ok(mut d) = slots[i].lock() {
                    *d = sink.diagnostics;
                }
            });
        }
    });
    crate::timing::mark("project rules");
    slots
        .into_iter()
        .flat_map(|m| m.into_inner().unwrap_or_default())
        .collect()
}

/// The hierarchy levels the analysis could not resolve because hieralint stopped at one of its
/// bounds (a glob matching or visiting too much, docs/limits.md): H008 at the glob, once per
/// place. Every lookup through such a layer fails in the engine, and the rules that look keys up
/// pass over failed lookups, so without this the limit would hide their findings silently.
fn limit_diagnostics(project: &Project) -> Vec<Diagnostic> {
    let Some(analysis) = project.built_analysis() else {
        return Vec::new();
    };
    let mut seen: std::collections::BTreeSet<(PathBuf, u32, u32, String)> = Default::default();
    let mut out = Vec::new();
    for env in &analysis.envs {
        for group in &env.groups {
            for (_, e) in &group.hierarchy.errors {
                let (Some(what), Some((file, span))) = (&e.limit, &e.source) else {
                    continue;
                };
                if !seen.insert((file.path.clone(), span.start, span.end, what.clone())) {
                    continue;
                }
                out.push(rules::unreadable_file::limit_hit(
                    file,
                    *span,
                    format!("{what}: the files of this level were not read"),
                    "every lookup through this hierarchy fails in hieralint (narrow the glob, or \
                     raise the limit), so the rules that look keys up do not check them",
                ));
            }
        }
    }
    out
}

/// Runs the rules over a loaded project.
pub fn run_rules(project: &Project, enabled: &[&'static dyn Rule]) -> Vec<Diagnostic> {
    crate::progress::phase("checking", project.files.len() + enabled.len());
    // The per-file phase and the analysis the project phase stands on (nodes, hierarchies,
    // groups, read index, deltas) are independent, so they run side by side: much of the
    // analysis is serial (the data-implied nodes, the grouping, the read index), and the
    // per-file rules and the project rules' preparations (`Rule::prepare`: what they need of
    // the files, not of the analysis) keep the other core busy meanwhile. No file rule or
    // preparation touches the analysis (it is built inside a `OnceLock`: a rule waiting on it
    // from a thread that is building it would deadlock).
    //
    // Each file's sites are made in its file rules' task (`SiteSlots`), from the interpolated
    // strings the scan found while parsing it (`Document::interp_sites`).
    let slots = enabled
        .iter()
        .any(|r| r.reads_interpolations())
        .then(|| crate::rules::SiteSlots::new(project));
    let (per_file, ((), ())) = rayon::join(
        || {
            project
                .files
                .par_iter()
                .enumerate()
                .map(|(i, file)| {
                    let d = run_file_rules_with(
                        project,
                        file,
                        enabled,
                        slots.as_ref().and_then(|s| s.get(i)),
                    );
                    crate::progress::inc();
                    d
                })
                .collect::<Vec<Vec<Diagnostic>>>()
        },
        || {
            rayon::join(
                || prepare_analysis(project, enabled),
                || enabled.iter().for_each(|r| r.prepare(project)),
            )
        },
    );
    let mut all: Vec<Diagnostic> = per_file.into_iter().flatten().collect();
    let sites = slots.map(crate::rules::SiteSlots::finish);
    crate::timing::mark("file rules");
    all.extend(run_project_rules_with(project, enabled, sites.as_ref()));
    all.extend(limit_diagnostics(project));
    let ((), ()) = rayon::join(
        || diag::sort_and_dedup(&mut all),
        || {
            if let Some(s) = sites {
                s.free()
            }
        },
    );
    all
}

/// Runs `enabled` over a loaded project and adds the scanner's errors (H008), sorted: the core
/// that [`check`] and the `hieralint check` pipeline ([`crate::run`]) share. `opts` carries the
/// engine settings (facts, Puppet version); its `paths` and `only` are not used here.
pub fn check_loaded(
    project: &mut Project,
    scan_errors: &[ScanError],
    enabled: &[&'static dyn Rule],
    opts: &CheckOptions,
) -> Vec<Diagnostic> {
    let (fact_sets, fact_errors) = crate::facts::load_fact_sets(&opts.facts);
    project.fact_sets = fact_sets;
    project.limits = opts.limits;
    project.puppet = Some(match opts.puppet {
        7 => crate::engine::PuppetVersion::V7,
        _ => crate::engine::PuppetVersion::V8,
    });
    diagnose(project, scan_errors, &fact_errors, enabled)
}

/// [`check_loaded`] for a project whose fact sets are already loaded (the language server keeps
/// them between edits): the rules' findings, the scanner's errors (H008) and the fact set
/// files that hold no usable facts (H905), sorted.
pub fn diagnose(
    project: &Project,
    scan_errors: &[ScanError],
    fact_errors: &[crate::facts::FactsError],
    enabled: &[&'static dyn Rule],
) -> Vec<Diagnostic> {
    let mut diagnostics = run_rules(project, enabled);
    diagnostics.extend(own_diagnostics(scan_errors, fact_errors));
    diag::sort_and_dedup(&mut diagnostics);
    diagnostics
}

/// hieralint's own findings beside the rules': files the scanner could not read (H008) and fact
/// set files that hold no usable facts (H905).
pub fn own_diagnostics(
    scan_errors: &[ScanError],
    fact_errors: &[crate::facts::FactsError],
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = scan_errors.iter().map(scan_error_diagnostic).collect();
    out.extend(fact_errors.iter().map(|e| {
        let file = std::sync::Arc::new(SourceFile::from_bytes(
            e.path.clone(),
            &std::fs::read(&e.path).unwrap_or_default(),
        ));
        Diagnostic::new(
            &rules::invalid_fact_set::META,
            &file,
            e.span.unwrap_or_default(),
            e.message.clone(),
        )
    }));
    out
}

pub fn check(opts: &CheckOptions) -> CheckResult {
    let (mut project, scan_errors) = scan::load_project_limited(&opts.paths, &opts.limits);
    let enabled: Vec<&'static dyn Rule> = rules::registry()
        .iter()
        .copied()
        .filter(|r| opts.only.is_empty() || opts.only.contains(&r.meta().name))
        .collect();
    let diagnostics = check_loaded(&mut project, &scan_errors, &enabled, opts);
    let mut summary = Summary {
        files_checked: project.files.len(),
        fact_sets: project.fact_sets.len(),
        ..Summary::default()
    };
    summary.count(&diagnostics);
    CheckResult {
        project,
        diagnostics,
        summary,
    }
}

/// The editor case: `path`, a file of an already loaded `project` (from [`check`] or
/// [`scan::load_project`]; `path` as the project names it, `LoadedFile::source.path`), changed
/// on disk. Re-reads it in place, runs the rules' per-file phase over it and the project-wide
/// phase over the whole project, and returns those diagnostics in the contract order (the other
/// files' per-file diagnostics cannot have changed and are not recomputed). `None` when `path`
/// is not a file of the project: a new file needs a new scan.
pub fn recheck_file(
    project: &mut Project,
    path: &Path,
    opts: &CheckOptions,
) -> Option<Vec<Diagnostic>> {
    let i = project.files.iter().position(|f| f.source.path == path)?;
    let enabled: Vec<&'static dyn Rule> = rules::registry()
        .iter()
        .copied()
        .filter(|r| opts.only.is_empty() || opts.only.contains(&r.meta().name))
        .collect();
    let mut diagnostics = Vec::new();
    let limits = project.limits;
    match scan::reload_file(&project.files[i], &limits) {
        Ok(fresh) => {
            project.files[i] = fresh;
            diagnostics.extend(run_file_rules(project, &project.files[i], &enabled));
        }
        // gone or unreadable now: report it, and check the project without it
        Err(e) => {
            project.files.remove(i);
            diagnostics.push(scan_error_diagnostic(&e));
        }
    }
    // The analysis (and what rules kept of the files) was built from the old text: the
    // project-wide rules would judge the file as it was (tests/recheck.rs
    // `project_rules_see_the_reloaded_file`).
    project.invalidate_analysis();
    diagnostics.extend(run_project_rules(project, &enabled));
    diag::sort_and_dedup(&mut diagnostics);
    Some(diagnostics)
}

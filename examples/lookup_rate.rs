//! Lookups per second over the real-repo pairs of fixtures/real (every key each repository
//! defines, on the 35 real fact sets with its custom facts), the figure tools/realrepos/rate.sh
//! sets against Puppet's own in-process rate (lookup-batch.rb) on the same pairs.
//!
//! Three figures, each the median of `RUNS` (default 5) passes over all pairs:
//! - cold: a fresh engine and session per (repository, fact set), as lookup-batch.rb starts one
//!   Puppet (one node, one compiler) per fact set: data files are read and parsed inside the
//!   timed loop;
//! - shared: as `hieralint check` runs, one engine per repository (files read once) and a
//!   session per fact set;
//! - warm: the same lookups again in a new session on engines that already hold the files:
//!   the session's own answer cache starts empty, but the engine's caches shared between
//!   sessions (outcomes by hierarchy fingerprint and by data signature, `Session::lookup`) are
//!   full, so nearly every lookup is an answer another session computed, as for an editor or a
//!   re-run in one process;
//! - evaluated: every lookup evaluated anew (`Session::lookup_unshared`: no answer cache of any
//!   kind) in sessions whose hierarchy and lookup_options are already resolved, on engines that
//!   hold the files: the engine's own work per lookup, the like-for-like partner of Puppet
//!   looking the same keys up again in one compile (tools/realrepos/puppet-rate.rb), which
//!   keeps its data files, providers and lookup_options but no answers.
//!
//! usage: cargo run --release --example lookup_rate [-- FIXTURES_REAL_DIR]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, LookupOutcome, LookupRequest, LookupResult,
    PuppetVersion, Scope, Session,
};

#[path = "../tests/common/mod.rs"]
mod common;

/// Looks every key up in `session`; the number found (kept, so the work is not optimised away).
fn run(session: &Session, keys: &[String]) -> usize {
    run_with(session, keys, Session::lookup)
}

/// [`run`] with the lookup to make (`Session::lookup`, or `Session::lookup_unshared`).
fn run_with<'e>(
    session: &Session<'e>,
    keys: &[String],
    lookup: impl Fn(&Session<'e>, &LookupRequest) -> LookupOutcome,
) -> usize {
    keys.iter()
        .filter(|k| {
            let out = lookup(session, &LookupRequest::new(k.as_str()));
            std::hint::black_box(matches!(out.result, LookupResult::Found(_)))
        })
        .count()
}

/// The warm pass, a function of its own so that a profiler can be pointed at it
/// (`valgrind --toggle-collect='*warm_pass*'`).
#[inline(never)]
fn warm_pass(work: &[Pairs], engines: &[Engine]) -> usize {
    let mut answers = 0;
    for (w, e) in work.iter().zip(engines) {
        // A new session: its answer cache starts empty, the engine's file cache is warm.
        let session = e.session(w.scope.clone());
        answers += run(&session, &w.keys);
    }
    answers
}

/// The shared pass, as `hieralint check` works: one engine per repository (files read once), a
/// session per fact set. A function of its own for a profiler, as `warm_pass`.
#[inline(never)]
fn shared_pass(work: &[Pairs], engine_for: &dyn Fn(&Pairs) -> Engine) -> usize {
    let mut answers = 0;
    let mut current: Option<(usize, Engine)> = None;
    for w in work {
        if current.as_ref().is_none_or(|(r, _)| *r != w.repo) {
            current = Some((w.repo, engine_for(w)));
        }
        let Some((_, e)) = &current else { continue };
        let session = e.session(w.scope.clone());
        answers += run(&session, &w.keys);
    }
    answers
}

/// The evaluated pass: every lookup evaluated anew in sessions already set up.
#[inline(never)]
fn evaluated_pass(work: &[Pairs], sessions: &[Session]) -> usize {
    work.iter()
        .zip(sessions)
        .map(|(w, session)| run_with(session, &w.keys, Session::lookup_unshared))
        .sum()
}

/// The timed call of [`evaluated_pass`] (the untimed first pass is not profiled with it:
/// `valgrind --toggle-collect='*timed_evaluated_pass*'`).
#[inline(never)]
fn timed_evaluated_pass(work: &[Pairs], sessions: &[Session]) -> usize {
    evaluated_pass(work, sessions)
}

struct Pairs {
    repo: usize,
    env: PathBuf,
    scope: Arc<Scope>,
    keys: Vec<String>,
}

// The allocator the hieralint binary uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let real = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("fixtures/real"));
    let facts_dir = real.join("../facts/facterdb-4.5");
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let mut work = Vec::new();
    let repos = common::real_repos(&real);
    for (repo_i, repo) in repos.iter().enumerate() {
        let overlay = common::read_json(&repo.join("overlay.json"));
        // Plain lookups only: lookup-batch.rb takes one merge for all its keys.
        let keys: Vec<String> = common::read_jsonl(&repo.join("lookups.jsonl"))
            .into_iter()
            .filter(|j| j.get("merge").is_none())
            .filter_map(|j| j["key"].as_str().map(str::to_string))
            .collect();
        let mut sets: Vec<String> = std::fs::read_dir(&facts_dir)
            .expect("fact sets")
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".json")
                    .map(String::from)
            })
            .collect();
        sets.sort();
        // SETS=N: the first N fact sets only (tools/realrepos/rate.sh passes the same N).
        if let Some(n) = std::env::var("SETS").ok().and_then(|n| n.parse().ok()) {
            sets.truncate(n);
        }
        for set in sets {
            let facts = common::real_facts(&facts_dir, &overlay, &set);
            work.push(Pairs {
                repo: repo_i,
                env: repo.join("env"),
                scope: Arc::new(common::scope_from_json(&facts)),
                keys: keys.clone(),
            });
        }
    }
    let pairs: usize = work.iter().map(|w| w.keys.len()).sum();
    let engine_for = |w: &Pairs| {
        Engine::on_disk(
            EnvironmentSpec {
                name: "production".into(),
                dir: w.env.clone(),
                basemodulepath: Vec::new(),
                global_hiera_config: None,
            },
            EngineOptions::for_puppet(PuppetVersion::V7),
        )
    };
    let mut cold = Vec::new();
    let mut shared = Vec::new();
    let mut warm = Vec::new();
    let mut evaluated = Vec::new();
    let mut answers = 0usize;
    for _ in 0..runs {
        let t = Instant::now();
        let engines: Vec<Engine> = work
            .iter()
            .map(|w| {
                let e = engine_for(w);
                let session = e.session(w.scope.clone());
                answers += run(&session, &w.keys);
                drop(session);
                e
            })
            .collect();
        cold.push(t.elapsed().as_secs_f64());
        // As `hieralint check` works: one engine per repository (files read once), a session
        // per fact set.
        let t = Instant::now();
        answers += shared_pass(&work, &engine_for);
        shared.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        answers += warm_pass(&work, &engines);
        warm.push(t.elapsed().as_secs_f64());
        // Sessions set up by a first pass over the keys outside the timed loop (hierarchy
        // resolved, every module's lookup_options assembled), as Puppet's later passes find
        // its compile.
        let sessions: Vec<Session> = work
            .iter()
            .zip(&engines)
            .map(|(w, e)| e.session(w.scope.clone()))
            .collect();
        answers += evaluated_pass(&work, &sessions);
        let t = Instant::now();
        answers += timed_evaluated_pass(&work, &sessions);
        evaluated.push(t.elapsed().as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let (c, s, w) = (median(&mut cold), median(&mut shared), median(&mut warm));
    let e = median(&mut evaluated);
    println!(
        "{{\"pairs\":{pairs},\"runs\":{runs},\"cold_s\":{c:.6},\"cold_lookups_per_s\":{:.0},\"shared_s\":{s:.6},\"shared_lookups_per_s\":{:.0},\"warm_s\":{w:.6},\"warm_lookups_per_s\":{:.0},\"evaluated_s\":{e:.6},\"evaluated_lookups_per_s\":{:.0},\"found\":{}}}",
        pairs as f64 / c,
        pairs as f64 / s,
        pairs as f64 / w,
        pairs as f64 / e,
        answers / (5 * runs)
    );
}

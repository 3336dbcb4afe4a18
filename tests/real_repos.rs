//! Real public control repos and modules against Puppet 7.23: the Hiera part of each repository
//! (fixtures/real/<repo>/env, pinned in SOURCE, built by tools/realrepos/build.py), every key
//! it defines (lookups.jsonl), looked up on all 35 real Facter fact sets of
//! fixtures/facts/facterdb-4.5 with the repo's custom facts merged in (overlay.json), must give
//! exactly Puppet's recorded answer (expected/<fact set>.jsonl, tools/realrepos/record.py):
//! the value (Ruby inspect: types and hash order), not found, or the error class and message.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hieralint::engine::{Engine, EngineOptions, EnvironmentSpec, LookupRequest, PuppetVersion};
use hieralint::value::Value;

mod common;
#[path = "../fuzz/src/outcome.rs"]
mod outcome;
use outcome::describe;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A repository's recorded answer files, one per fact set, in name order.
fn recorded_sets(repo: &Path) -> Vec<PathBuf> {
    let mut sets: Vec<PathBuf> = std::fs::read_dir(repo.join("expected"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    sets.sort();
    sets
}

#[test]
fn real_repos_agree_with_puppet() {
    let real = root().join("real");
    let repos = common::real_repos(&real);
    assert!(repos.len() >= 5, "at least five real repositories");
    let mut failures = Vec::new();
    let mut total = 0;
    for repo in &repos {
        let env_dir = repo.join("env");
        let env_s = env_dir.display().to_string();
        let engine = Engine::on_disk(
            EnvironmentSpec::standalone(&env_dir, "production"),
            EngineOptions::for_puppet(PuppetVersion::V7),
        );
        let overlay = common::read_json(&repo.join("overlay.json"));
        let lookups = common::read_jsonl(&repo.join("lookups.jsonl"));
        let sets = recorded_sets(repo);
        let mut pairs = 0;
        for exp_file in &sets {
            let set = exp_file.file_stem().unwrap().to_str().unwrap().to_string();
            let facts = common::real_facts(&root().join("facts/facterdb-4.5"), &overlay, &set);
            let scope = Arc::new(common::scope_from_json(&facts));
            let expected = common::read_jsonl(exp_file);
            assert_eq!(expected.len(), lookups.len(), "{}", exp_file.display());
            for (spec, exp) in lookups.iter().zip(&expected) {
                let key = spec["key"].as_str().unwrap_or("");
                let req = LookupRequest::new(key).merge(spec.get("merge").map(Value::from_json));
                let out = engine.session(scope.clone()).lookup(&req);
                let (got, want) = (common::ours(&out, &env_s), common::puppets(exp));
                pairs += 1;
                if got != want {
                    failures.push(format!(
                        "{} on {set}: {spec}\n  puppet:    {want}\n  hieralint: {got}",
                        repo.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
        println!(
            "{:<40} {:>3} lookups x {:>2} fact sets = {pairs} pairs",
            repo.file_name().unwrap().to_string_lossy(),
            lookups.len(),
            sets.len()
        );
        total += pairs;
    }
    println!("total: {total} pairs, {} disagreements", failures.len());
    for f in failures
        .iter()
        .take(if std::env::var("REAL_VERBOSE").is_ok() {
            usize::MAX
        } else {
            40
        })
    {
        println!("{f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} of {total} lookups disagree with Puppet",
        failures.len()
    );
}

/// The engine's caches shared between sessions are invisible on the real repositories too:
/// each fact set looks every key up in one session (its own order: forward for even fact
/// sets, backward for odd ones, so that sessions with other histories meet in the shared
/// pools), through one engine per repository and through a fresh engine per fact set, and
/// every outcome agrees: value or error, warnings in order, provenance. Two of the eight
/// repositories warn once per compile (a hiera.yaml of version 3, undefined variables in
/// paths, data files that are not a Hash), which is what the pools of `Session::lookup` are
/// about; the fuzz target `shared_sessions` does the same on generated environments.
#[test]
fn real_repos_answer_alike_through_a_shared_engine() {
    let real = root().join("real");
    let mut compared = 0;
    let mut warned = 0;
    for repo in common::real_repos(&real) {
        let env_dir = repo.join("env");
        let engine_for = || {
            Engine::on_disk(
                EnvironmentSpec::standalone(&env_dir, "production"),
                EngineOptions::for_puppet(PuppetVersion::V7),
            )
        };
        let shared = engine_for();
        let overlay = common::read_json(&repo.join("overlay.json"));
        let lookups = common::read_jsonl(&repo.join("lookups.jsonl"));
        let sets = recorded_sets(&repo);
        for (i, exp_file) in sets.iter().enumerate() {
            let set = exp_file.file_stem().unwrap().to_str().unwrap().to_string();
            let facts = common::real_facts(&root().join("facts/facterdb-4.5"), &overlay, &set);
            let scope = Arc::new(common::scope_from_json(&facts));
            let mut order: Vec<&serde_json::Value> = lookups.iter().collect();
            if i % 2 == 1 {
                order.reverse();
            }
            let run = |e: &Engine| -> Vec<String> {
                let s = e.session(scope.clone());
                order
                    .iter()
                    .map(|spec| {
                        let key = spec["key"].as_str().unwrap_or("");
                        let req =
                            LookupRequest::new(key).merge(spec.get("merge").map(Value::from_json));
                        describe(&s.lookup(&req))
                    })
                    .collect()
            };
            let want = run(&engine_for());
            let got = run(&shared);
            for ((w, g), spec) in want.iter().zip(&got).zip(&order) {
                assert_eq!(
                    g,
                    w,
                    "{} on {set}: {spec} through a shared engine",
                    repo.file_name().unwrap().to_string_lossy()
                );
                compared += 1;
                if !w.contains("| [] |") {
                    warned += 1;
                }
            }
        }
    }
    println!("{compared} outcomes compared, {warned} with warnings");
    // The repositories do exercise once-per-compile warnings.
    assert!(warned > 0);
}

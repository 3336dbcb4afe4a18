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

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
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
        let mut sets: Vec<PathBuf> = std::fs::read_dir(repo.join("expected"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        sets.sort();
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

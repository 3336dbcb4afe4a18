//! Conformance: every case recorded from real Puppet 7.23 under `fixtures/conformance/` is run
//! through the engine, in Puppet 7 mode (`expected-7.jsonl`) and with strict=error
//! (`expected-strict.jsonl`), and must agree: the value (Ruby `inspect`, so types and hash key
//! order), not found, or the error (Ruby class and message, with the environment path as
//! `<ENV>`); explain texts when recorded.
//!
//! `CONFORMANCE_FILTER=merge/deep` limits the run to matching cases; `CONFORMANCE_VERBOSE=1`
//! prints every disagreement in full.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, LookupRequest, PuppetVersion, Scope, Strict,
};
use hieralint::value::Value;

mod common;

fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/conformance")
}

fn case_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(groups) = std::fs::read_dir(cases_root()) else {
        return out;
    };
    for g in groups.flatten() {
        if !g.path().is_dir() {
            continue;
        }
        if let Ok(cases) = std::fs::read_dir(g.path()) {
            for c in cases.flatten() {
                if c.path().join("lookups.jsonl").is_file() {
                    out.push(c.path());
                }
            }
        }
    }
    out.sort();
    out
}

/// The node the recorder builds (`tools/oracle/record.rb`).
fn scope_for(case: &Path) -> Scope {
    let text = std::fs::read_to_string(case.join("facts.json")).unwrap_or_else(|_| "{}".into());
    let j: serde_json::Value = serde_json::from_str(&text).unwrap_or(serde_json::json!({}));
    common::scope_from_json(&j)
}

/// Recorded behaviour hieralint does not reproduce, each with the reason (case, mode file, line
/// number in lookups.jsonl). The test fails on any other disagreement, and on a listed line that
/// starts agreeing (so the list stays true).
const KNOWN_GAPS: &[(&str, &str, usize, &str)] = &[];

fn known_gap(rel: &str, file: &str, line: usize) -> bool {
    KNOWN_GAPS
        .iter()
        .any(|(c, f, l, _)| *c == rel && *f == file && *l == line)
}

#[derive(Default)]
struct Tally {
    agree: usize,
    disagree: usize,
    known: usize,
}

fn run_mode(
    case: &Path,
    expected_file: &str,
    opts: EngineOptions,
    tally: &mut BTreeMap<String, Tally>,
    failures: &mut Vec<String>,
) {
    let Ok(expected) = std::fs::read_to_string(case.join(expected_file)) else {
        return;
    };
    let lookups = std::fs::read_to_string(case.join("lookups.jsonl")).unwrap_or_default();
    let env_dir = case.join("env");
    let env_s = env_dir.display().to_string();
    let engine = Engine::on_disk(EnvironmentSpec::standalone(&env_dir, "production"), opts);
    let scope = Arc::new(scope_for(case));
    let rel = case
        .strip_prefix(cases_root())
        .unwrap_or(case)
        .display()
        .to_string();
    let group = rel.split('/').next().unwrap_or("").to_string();
    let lines: Vec<&str> = lookups.lines().filter(|l| !l.trim().is_empty()).collect();
    let exp_lines: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    for (i, (l, e)) in lines.iter().zip(exp_lines.iter()).enumerate() {
        let spec: serde_json::Value = serde_json::from_str(l).expect("lookup line");
        let exp: serde_json::Value = serde_json::from_str(e).expect("expected line");
        let key = spec["key"].as_str().unwrap_or("").to_string();
        let mut req = LookupRequest::new(&key)
            .merge(spec.get("merge").map(Value::from_json))
            .explain(spec.get("explain").and_then(|x| x.as_bool()) == Some(true));
        if let Some(d) = spec.get("default") {
            req = req.default_value(Some(Value::from_json(d)));
        }
        let session = engine.session(scope.clone());
        let out = session.lookup(&req);
        let scrub = |s: &str| s.replace(&env_s, "<ENV>");
        let got = common::ours(&out, &env_s);
        let want = common::puppets(&exp);
        let mut ok = got == want;
        let mut detail = String::new();
        if ok {
            if let Some(ex) = exp.get("explain").and_then(|x| x.as_str()) {
                let ours = out.explain_text().map(|t| scrub(&t)).unwrap_or_default();
                if ours != ex {
                    ok = false;
                    detail = format!("explain differs:\n--- puppet\n{ex}\n--- hieralint\n{ours}");
                }
            }
        }
        let t = tally.entry(group.clone()).or_default();
        let gap = known_gap(&rel, expected_file, i + 1);
        if ok && gap {
            t.agree += 1;
            failures.push(format!(
                "{rel} [{expected_file} line {}] now agrees: remove it from KNOWN_GAPS",
                i + 1
            ));
        } else if ok {
            t.agree += 1;
        } else if gap {
            t.known += 1;
        } else {
            t.disagree += 1;
            failures.push(format!(
                "{rel} [{expected_file} line {}] {l}\n  puppet:    {want}\n  hieralint: {got}{}",
                i + 1,
                if detail.is_empty() {
                    String::new()
                } else {
                    format!("\n  {detail}")
                }
            ));
        }
    }
}

#[test]
fn conformance() {
    let filter = std::env::var("CONFORMANCE_FILTER").ok();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in case_dirs() {
        let rel = case
            .strip_prefix(cases_root())
            .unwrap_or(&case)
            .display()
            .to_string();
        if let Some(f) = &filter {
            if !rel.contains(f.as_str()) {
                continue;
            }
        }
        run_mode(
            &case,
            "expected-7.jsonl",
            EngineOptions::for_puppet(PuppetVersion::V7),
            &mut tally,
            &mut failures,
        );
        run_mode(
            &case,
            "expected-strict.jsonl",
            EngineOptions {
                puppet: PuppetVersion::V7,
                strict: Strict::Error,
            },
            &mut tally,
            &mut failures,
        );
    }
    let (mut a, mut d, mut k) = (0, 0, 0);
    println!("conformance summary (agree / disagree / known gaps):");
    for (g, t) in &tally {
        println!("  {g:<10} {:>4} / {:<4} / {}", t.agree, t.disagree, t.known);
        a += t.agree;
        d += t.disagree;
        k += t.known;
    }
    println!("  {:<10} {a:>4} / {d:<4} / {k}", "total");
    let verbose = std::env::var("CONFORMANCE_VERBOSE").is_ok();
    for f in failures.iter().take(if verbose { usize::MAX } else { 40 }) {
        println!("{f}\n");
    }
    assert!(
        failures.is_empty(),
        "{d} disagreements with recorded Puppet behaviour"
    );
}

//! Shared by the tests that replay answers recorded from real Puppet (tests/conformance.rs,
//! tests/real_repos.rs): the node the recorder builds, and the comparable form of an outcome.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use hieralint::engine::{LookupOutcome, LookupResult, Scope, Trusted};
use hieralint::value::{Hash, Value};

/// The node `tools/oracle/record.rb` builds from a facts hash: `trusted` and `server_facts`
/// taken out, the certname from `trusted.certname`, else the `clientcert`, `networking.fqdn`
/// or `fqdn` fact, else `oracle.example.com`.
pub fn scope_from_json(j: &serde_json::Value) -> Scope {
    let raw = Value::from_json(j);
    let raw = raw.as_hash().cloned().unwrap_or_default();
    let trusted_v = raw.get(&Value::string("trusted")).cloned();
    let server = raw
        .get(&Value::string("server_facts"))
        .and_then(|v| v.as_hash())
        .cloned();
    let facts: Hash = raw
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), Some("trusted" | "server_facts")))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let trusted = Trusted::for_facts(trusted_v.as_ref(), &facts, None, "oracle.example.com");
    Scope::for_node(&facts, &trusted, server.as_ref(), "production")
}

/// A JSON file, panicking with its path on failure (test fixtures).
pub fn read_json(p: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A JSON-lines file (blank lines skipped).
pub fn read_jsonl(p: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// The recorded repositories of fixtures/real (those with an `expected/` directory), sorted.
pub fn real_repos(real: &Path) -> Vec<PathBuf> {
    let mut repos: Vec<PathBuf> = std::fs::read_dir(real)
        .unwrap_or_else(|e| panic!("{}: {e}", real.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expected").is_dir())
        .collect();
    repos.sort();
    repos
}

/// Fact set `set` of `facts_dir` with the repository's custom facts (its overlay.json entry)
/// merged in, as tools/realrepos/record.py gave it to Puppet.
pub fn real_facts(facts_dir: &Path, overlay: &serde_json::Value, set: &str) -> serde_json::Value {
    let mut facts = read_json(&facts_dir.join(format!("{set}.json")));
    if let Some(extra) = overlay.get(set) {
        deep_merge(&mut facts, extra);
    }
    facts
}

/// `deep_merge` of tools/realrepos/record.py: hashes merged recursively, anything else replaced
/// (the custom facts of fixtures/real/<repo>/overlay.json onto a fact set).
fn deep_merge(a: &mut serde_json::Value, b: &serde_json::Value) {
    match (a, b) {
        (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
            for (k, v) in y {
                match x.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => deep_merge(slot, v),
                    _ => {
                        x.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (a, b) => *a = b.clone(),
    }
}

/// Our outcome in the comparable form: `value <ruby inspect>`, `not_found`, or
/// `error <Ruby class>: <message>` with the environment directory written `<ENV>`.
pub fn ours(out: &LookupOutcome, env_dir: &str) -> String {
    match &out.result {
        LookupResult::Found(v) => format!("value {}", v.ruby_inspect()),
        LookupResult::NotFound => "not_found".to_string(),
        LookupResult::Error(e) => format!(
            "error {}: {}",
            e.kind.ruby_class(),
            e.message.replace(env_dir, "<ENV>")
        ),
    }
}

/// Puppet's recorded outcome (a line of an expected file) in the same form.
pub fn puppets(exp: &serde_json::Value) -> String {
    if exp.get("not_found").is_some() {
        "not_found".to_string()
    } else if let Some(err) = exp.get("error") {
        format!(
            "error {}: {}",
            exp["error_class"].as_str().unwrap_or(""),
            err.as_str().unwrap_or("")
        )
    } else {
        format!(
            "value {}",
            exp.get("ruby_inspect")
                .and_then(|v| v.as_str())
                .unwrap_or_default()
        )
    }
}

//! Shared by the tests that replay answers recorded from real Puppet (tests/conformance.rs,
//! tests/real_repos.rs): the node the recorder builds, and the comparable form of an outcome.
#![allow(dead_code)]

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
    let mut trusted = trusted_v
        .as_ref()
        .filter(|t| t.as_hash().is_some())
        .map(Trusted::from_value)
        .unwrap_or_default();
    if trusted.certname.is_none() {
        let get = |k: &str| {
            facts
                .get(&Value::string(k))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let fqdn = facts
            .get(&Value::string("networking"))
            .and_then(|n| n.as_hash())
            .and_then(|n| n.get(&Value::string("fqdn")))
            .and_then(|v| v.as_str())
            .map(str::to_string);
        trusted.certname = Some(
            get("clientcert")
                .or(fqdn)
                .or_else(|| get("fqdn"))
                .unwrap_or_else(|| "oracle.example.com".into()),
        );
    }
    Scope::for_node(&facts, &trusted, server.as_ref(), "production")
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

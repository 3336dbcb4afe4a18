//! `--fix` never changes what Puppet looks up: the engine is run on every key of an environment
//! before and after `hieralint check --fix`, and the answers compared (issue #7).
//!
//! Quoting an unquoted interpolation keeps every value identical. Quoting an unquoted date turns
//! a file Puppet refuses (`Tried to load unspecified class: Date`) into one whose value is the
//! date's text, exactly what the author wrote; every other key keeps its value.

mod support;

use std::process::Command;

use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, LookupResult, PuppetVersion, Scope, Trusted,
};
use hieralint::value::Hash;
use support::TempDir;

const HIERA: &str = "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  - name: Common\n    path: common.yaml\n  - name: Dates\n    path: dates.yaml\n";

fn lookups(dir: &std::path::Path, keys: &[&str]) -> Vec<String> {
    let engine = Engine::on_disk(
        EnvironmentSpec::standalone(dir, "production"),
        EngineOptions::for_puppet(PuppetVersion::V7),
    );
    let mut facts = Hash::new();
    facts.insert("role".into(), "web".into());
    let scope = Scope::for_node(&facts, &Trusted::default(), None, "production");
    keys.iter()
        .map(|k| match engine.lookup(&scope, k, None, false).result {
            LookupResult::Found(v) => format!("{k} = {}", v.ruby_inspect()),
            LookupResult::NotFound => format!("{k} not found"),
            LookupResult::Error(e) => {
                format!("{k} error: {}", e.message.lines().next().unwrap_or(""))
            }
        })
        .collect()
}

#[test]
fn fixes_keep_every_looked_up_value() {
    let env = TempDir::new("fix-engine");
    env.write("hiera.yaml", HIERA);
    env.write(
        "data/common.yaml",
        "---\nmotd: Welcome to %{facts.role}\nmail: admin@%{facts.role}.example.com\nplain: text\nlist:\n  - a-%{facts.role}\n",
    );
    env.write(
        "data/dates.yaml",
        "---\nexpires: 2027-03-01\nstamp: 2001-12-14 21:59:43.10 -5\nother: kept\n",
    );
    let keys = ["motd", "mail", "plain", "list", "expires", "stamp", "other"];
    let before = lookups(&env.0, &keys);
    let status = Command::new(env!("CARGO_BIN_EXE_hieralint"))
        .args(["check", "--fix", "-q", "--format", "concise"])
        .arg(&env.0)
        .status()
        .unwrap();
    assert!(status.code().is_some());
    let after = lookups(&env.0, &keys);
    let common = std::fs::read_to_string(env.0.join("data/common.yaml")).unwrap();
    assert!(common.contains("'Welcome to %{facts.role}'"), "{common}");
    // Interpolations: identical answers.
    assert_eq!(before[..4], after[..4]);
    assert_eq!(after[0], r#"motd = "Welcome to web""#);
    // Dates: Puppet refused the whole file before; after the fix every key of it is found, the
    // dates as the text that was written.
    assert!(
        before[4].contains("Tried to load unspecified class: Date"),
        "{}",
        before[4]
    );
    assert_eq!(after[4], r#"expires = "2027-03-01""#);
    assert_eq!(after[5], r#"stamp = "2001-12-14 21:59:43.10 -5""#);
    assert_eq!(after[6], r#"other = "kept""#);
}

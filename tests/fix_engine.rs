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
    let mut facts = Hash::default();
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

fn fix(dir: &std::path::Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_hieralint"))
        .args(["check", "--fix", "-q", "--format", "concise"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.code().is_some());
}

#[test]
fn quoting_interpolations_keeps_every_looked_up_value() {
    let env = TempDir::new("fix-engine-interp");
    env.write("hiera.yaml", HIERA);
    env.write(
        "data/common.yaml",
        "---\nmotd: Welcome to %{facts.role}\nmail: admin@%{facts.role}.example.com\nplain: text\nlist:\n  - a-%{facts.role}\n",
    );
    let keys = ["motd", "mail", "plain", "list"];
    let before = lookups(&env.0, &keys);
    fix(&env.0);
    let common = std::fs::read_to_string(env.0.join("data/common.yaml")).unwrap();
    assert!(common.contains("'Welcome to %{facts.role}'"), "{common}");
    assert!(common.contains("'a-%{facts.role}'"), "{common}");
    assert_eq!(before, lookups(&env.0, &keys));
    assert_eq!(before[0], r#"motd = "Welcome to web""#);
}

#[test]
fn quoting_dates_turns_a_refused_file_into_the_written_text() {
    let env = TempDir::new("fix-engine-dates");
    env.write("hiera.yaml", HIERA);
    env.write("data/common.yaml", "---\nplain: text\n");
    env.write(
        "data/dates.yaml",
        "---\nexpires: 2027-03-01\nstamp: 2001-12-14 21:59:43.10 -5\nother: kept\n",
    );
    let keys = ["plain", "expires", "stamp", "other"];
    let before = lookups(&env.0, &keys);
    // A file Psych refuses breaks every lookup, even of keys found before it: the
    // lookup_options of the whole hierarchy are read first (fixtures/conformance/yaml/).
    assert!(
        before
            .iter()
            .all(|l| l.contains("Tried to load unspecified class: Date")),
        "{before:?}"
    );
    fix(&env.0);
    assert_eq!(
        lookups(&env.0, &keys),
        [
            r#"plain = "text""#,
            r#"expires = "2027-03-01""#,
            r#"stamp = "2001-12-14 21:59:43.10 -5""#,
            r#"other = "kept""#,
        ]
    );
}

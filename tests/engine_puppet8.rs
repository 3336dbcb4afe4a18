//! Puppet 7 and Puppet 8 where they differ (reference §11), on fixtures/engine/puppet8*. The
//! Puppet 7 answers (default strict and strict=error) were recorded with
//! /work/shared/oracle/lookup-batch.rb; the Puppet 8 ones follow Puppet 8's source as the
//! reference cites it (strict=error default, non-fatal hiera.yaml location interpolation,
//! module keys outside the namespace named and removed).

use std::path::{Path, PathBuf};

use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, ErrorKind, LookupOutcome, PuppetVersion, Scope, Strict,
    Trusted,
};
use hieralint::value::{Hash, Value};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/engine")
        .join(name)
}

fn lookup(env: &str, opts: EngineOptions, key: &str) -> LookupOutcome {
    let e = Engine::on_disk(EnvironmentSpec::standalone(&dir(env), "production"), opts);
    let mut facts = Hash::default();
    facts.insert(Value::string("role"), Value::string("web"));
    let t = Trusted {
        certname: Some("web01.example.com".into()),
        ..Default::default()
    };
    e.lookup(
        &Scope::for_node(&facts, &t, None, "production"),
        key,
        None,
        false,
    )
}

fn v7() -> EngineOptions {
    EngineOptions::for_puppet(PuppetVersion::V7)
}

fn v7_strict() -> EngineOptions {
    EngineOptions {
        puppet: PuppetVersion::V7,
        strict: Strict::Error,
    }
}

fn v8() -> EngineOptions {
    EngineOptions::for_puppet(PuppetVersion::V8)
}

#[test]
fn undefined_variables() {
    // Puppet 7 (strict=warning): warnings, empty strings.
    let o = lookup("puppet8", v7(), "plain");
    assert_eq!(o.value(), Some(&Value::string("ok")));
    assert_eq!(
        o.warnings,
        vec!["Undefined variable 'nosuchvar'; ".to_string()]
    );
    let o = lookup("puppet8", v7(), "undefined_in_value");
    assert_eq!(o.value(), Some(&Value::string("x--y")));
    assert!(o
        .warnings
        .contains(&"Undefined variable 'nope'; ".to_string()));

    // Puppet 7 with strict=error: the hiera.yaml path fails every lookup, with file and line.
    let o = lookup("puppet8", v7_strict(), "plain");
    let e = o.error().unwrap();
    assert_eq!(
        e.message,
        format!(
            "Undefined variable 'nosuchvar' (file: {}, line: 7)",
            dir("puppet8").join("hiera.yaml").display()
        )
    );
    assert_eq!(e.kind, ErrorKind::Lookup);

    // Puppet 8: the location interpolation only warns; data interpolation fails.
    let o = lookup("puppet8", v8(), "plain");
    assert_eq!(o.value(), Some(&Value::string("ok")));
    assert_eq!(
        o.warnings,
        vec!["Interpolation failed with 'nosuchvar', but compilation continuing; ".to_string()]
    );
    let e = lookup("puppet8", v8(), "undefined_in_value").result;
    match e {
        hieralint::engine::LookupResult::Error(e) => {
            assert_eq!(e.message, "Undefined variable 'nope'; ");
            assert_eq!(e.kind, ErrorKind::Argument);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn module_keys_outside_the_namespace() {
    let file = dir("puppet8").join("modules/mymod/data/common.yaml");
    let o = lookup("puppet8", v7(), "mymod::k");
    assert_eq!(o.value(), Some(&Value::string("v")));
    assert!(o.warnings.contains(&format!(
        "Module 'mymod': Value returned from data_hash function 'yaml_data', when using location '{}', must use keys qualified with the name of the module",
        file.display()
    )));
    let o = lookup("puppet8", v8(), "mymod::k");
    assert_eq!(o.value(), Some(&Value::string("v")));
    assert!(o.warnings.contains(&format!(
        "Module 'mymod': Value returned from data_hash function 'yaml_data', when using location '{}', must use keys qualified with the name of the module; got unqualified",
        file.display()
    )));
}

#[test]
fn non_hash_data_files() {
    let list = dir("puppet8-list").join("data/list.yaml");
    let msg = format!(
        "{}: file does not contain a valid yaml hash",
        list.display()
    );
    let o = lookup("puppet8-list", v7(), "plain");
    assert_eq!(o.value(), Some(&Value::string("ok")));
    assert_eq!(o.warnings, vec![msg.clone()]);
    for opts in [v7_strict(), v8()] {
        let o = lookup("puppet8-list", opts, "plain");
        assert_eq!(o.error().unwrap().message, msg);
    }
}

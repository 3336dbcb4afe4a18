//! The runtime claims of the syntax rules, checked against what Puppet 7.23 answered for the
//! same files (fixtures/recorded/ and fixtures/conformance/, recorded by tools/oracle/): a rule
//! fires exactly where Puppet fails or silently reads something else, and the values its messages
//! and fixes name are the values Puppet returned.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use hieralint::check::{self, CheckOptions};
use hieralint::diag::Diagnostic;
use hieralint::loader::{psych, yaml};
use hieralint::span::SourceFile;
use serde_json::Value as J;
use support::*;

fn jsonl(path: &str) -> Vec<J> {
    let p = crate_root().join(path);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Recorded answers by key (the first line for each key).
fn answers(case: &str, file: &str) -> BTreeMap<String, J> {
    let mut out = BTreeMap::new();
    for a in jsonl(&format!("{case}/{file}")) {
        let k = a["key"].as_str().unwrap().to_string();
        out.entry(k).or_insert(a);
    }
    out
}

/// The top-level key (as written) whose entry holds a diagnostic's primary label, in `file`.
fn key_of(file: &Path, d: &Diagnostic) -> String {
    let src = SourceFile::from_bytes(file, &std::fs::read(file).unwrap());
    let doc = yaml::load(&src);
    let root = doc.root.unwrap();
    let at = d.primary.span.start;
    root.as_map()
        .unwrap()
        .entries
        .iter()
        .find(|e| e.key.span.start <= at && at <= e.value.span.end)
        .map(|e| src.slice(e.key.span).to_string())
        .unwrap_or_default()
}

#[test]
fn malformed_eyaml_fires_exactly_where_puppet_fails_or_returns_the_ciphertext() {
    let case = "fixtures/recorded/malformed-eyaml/variants";
    let data = crate_root().join(case).join("env/data/secrets.eyaml");
    let diags = check_with_rule(&crate_root().join(case).join("env"), "malformed-eyaml");
    let flagged: BTreeSet<String> = diags.iter().map(|d| key_of(&data, d)).collect();
    let src = SourceFile::from_bytes(&data, &std::fs::read(&data).unwrap());
    let doc = yaml::load(&src);
    let root = doc.root.unwrap();
    let mut checked = 0;
    for (key, answer) in answers(case, "expected-7.jsonl") {
        let written = root.as_map().unwrap().get_value(&key).unwrap().to_value();
        let failed = answer.get("error").is_some();
        let passed_through = answer.get("value").and_then(J::as_str) == written.as_str();
        assert_eq!(
            flagged.contains(&key),
            failed || passed_through,
            "{key}: recorded {answer}"
        );
        checked += 1;
    }
    assert_eq!(checked, 21);
    // The messages name what Puppet did.
    for d in &diags {
        let key = key_of(&data, d);
        let answer = &answers(case, "expected-7.jsonl")[&key];
        let text = format!("{} {}", d.message, d.notes.join(" "));
        match answer.get("error").and_then(J::as_str) {
            Some(e) if e.contains("cannot load such file") => {
                assert!(text.contains("cannot load such file"), "{key}: {text}")
            }
            Some(e) => {
                assert!(e.contains("Could not parse the PKCS7"), "{e}");
                assert!(text.contains("Could not parse the PKCS7"), "{key}: {text}");
            }
            None => assert!(text.contains("ciphertext and all"), "{key}: {text}"),
        }
    }
}

#[test]
fn yaml11_implicit_type_names_the_values_puppet_returns() {
    let case = "fixtures/recorded/yaml11-implicit-type/keys-and-values";
    let env = crate_root().join(case).join("env");
    let data = env.join("data/common.yaml");
    let recorded = answers(case, "expected-7.jsonl");
    let diags: Vec<Diagnostic> = check_with_rule(&env, "yaml11-implicit-type")
        .into_iter()
        .filter(|d| d.primary.file.path.ends_with("env/data/common.yaml"))
        .collect();
    let mut seen = BTreeSet::new();
    for d in &diags {
        let key = key_of(&data, d);
        let written = d.primary.file.slice(d.primary.span).to_string();
        if written == key {
            // a top-level key: Puppet finds it neither by its text nor by the value it becomes
            assert_eq!(recorded[&written]["not_found"], true, "{written}");
            seen.insert(written);
            continue;
        }
        if d.message.starts_with("key ") {
            // a nested key: a Boolean one fails validation, a numeric one is a numeric key
            let answer = &recorded[&key];
            if d.message.contains("Boolean") {
                let e = answer["error"].as_str().unwrap();
                assert!(
                    e.contains("has wrong type, expects Puppet::LookupValue"),
                    "{e}"
                );
            } else {
                assert_eq!(answer["ruby_inspect"], "{493=>\"x\"}");
            }
            seen.insert(key);
            continue;
        }
        let answer = &recorded[&key];
        let inspect = answer["ruby_inspect"]
            .as_str()
            .unwrap_or_else(|| panic!("{key}: {answer}"));
        match &d.fix {
            // a value typed by YAML 1.1: the fix writes the value Puppet returned
            Some(fix) if !fix.replacement.starts_with('\'') => {
                let v = psych::tokenize(&std::sync::Arc::from(fix.replacement.as_str())).value;
                assert_eq!(v.ruby_inspect(), inspect, "{key}");
                assert!(
                    d.message.contains(&format!("`{}`", v.to_ruby_s())),
                    "{}",
                    d.message
                );
            }
            // a number that stays a String: Puppet returned the text
            _ => assert_eq!(inspect, format!("{written:?}"), "{key}"),
        }
        seen.insert(key);
    }
    let want: BTreeSet<String> = [
        "flag",
        "answer",
        "umask",
        "mode",
        "hex",
        "duration",
        "count",
        "thousands",
        "exp",
        "exp_dot",
        "oct12",
        "on",
        "0755",
        "nested_bool_key",
        "nested_int_key",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(seen, want);
    // A non-String top-level key in module data breaks every lookup of the module.
    let e = recorded["mkey::k"]["error"].as_str().unwrap();
    assert!(e.contains("undefined method `start_with?'"), "{e}");
}

#[test]
fn duplicate_key_keeps_the_value_puppet_keeps() {
    let case = "fixtures/recorded/duplicate-key/last-wins";
    let env = crate_root().join(case).join("env");
    let data = env.join("data/common.yaml");
    let recorded = answers(case, "expected-7.jsonl");
    let diags = check_with_rule(&env, "duplicate-key");
    let keys: BTreeSet<String> = diags.iter().map(|d| key_of(&data, d)).collect();
    assert_eq!(
        keys,
        ["dup", "h", "'q'"].iter().map(|s| s.to_string()).collect()
    );
    // the last value, at the first key's position
    assert_eq!(recorded["dup"]["value"], "second");
    assert_eq!(recorded["h"]["ruby_inspect"], "{\"a\"=>3, \"b\"=>2}");
    assert_eq!(recorded["q"]["value"], "quoted");
    let src = SourceFile::from_bytes(&data, &std::fs::read(&data).unwrap());
    let loaded = yaml::load(&src).root.unwrap().to_value();
    assert_eq!(
        loaded.as_hash().unwrap()[&hieralint::value::Value::from("h")].ruby_inspect(),
        "{\"a\"=>3, \"b\"=>2}"
    );
}

#[test]
fn unquoted_interpolation_loads_like_the_quoted_form() {
    let case = "fixtures/recorded/unquoted-interpolation/mid-scalar";
    let env = crate_root().join(case).join("env");
    let data = env.join("data/common.yaml");
    let recorded = answers(case, "expected-7.jsonl");
    let keys: BTreeSet<String> = check_with_rule(&env, "unquoted-interpolation")
        .iter()
        .map(|d| key_of(&data, d))
        .collect();
    assert_eq!(
        keys,
        ["hkeys", "mid"].iter().map(|s| s.to_string()).collect()
    );
    assert_eq!(recorded["mid"]["value"], recorded["quoted"]["value"]);
    assert_eq!(recorded["hkeys"]["ruby_inspect"], "{\"plain_web\"=>\"v\"}");
}

/// Every module of the file-shapes case, with the rules of this area that fire on its data file;
/// checked against the recorded strict-mode answer of its lookup.
#[test]
fn file_shapes_fire_the_rule_for_what_puppet_does() {
    let case = "fixtures/conformance/yaml/file-shapes-and-errors";
    let env = crate_root().join(case).join("env");
    let rules = [
        "yaml-syntax-error",
        "non-hash-data-file",
        "unquoted-date",
        "yaml11-implicit-type",
        "forbidden-yaml-tag",
        "multiple-yaml-documents",
        "ruby-symbol-value",
        "empty-data-file",
    ];
    let mut fired: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for rule in rules {
        for d in check_with_rule(&env, rule) {
            let path = d.primary.file.path.display().to_string();
            if let Some(m) = path
                .split("/modules/")
                .nth(1)
                .and_then(|r| r.split('/').next())
            {
                fired.entry(m.to_string()).or_default().insert(rule);
            }
        }
    }
    let expected: &[(&str, &[&str])] = &[
        ("fbadutf", &["yaml-syntax-error"]),
        ("fbom", &["yaml-syntax-error"]),
        ("fcomment", &["empty-data-file"]),
        ("fdashes", &["empty-data-file"]),
        ("fdate", &["unquoted-date"]),
        ("fempty", &["empty-data-file"]),
        ("ffalsedoc", &["empty-data-file"]),
        ("flist", &["non-hash-data-file"]),
        ("fmultidoc", &["multiple-yaml-documents"]),
        // a key that is an Array: Puppet's value check fails; not a rule of this area
        ("fnestedarr", &[]),
        ("fnestedbool", &["yaml11-implicit-type"]),
        ("fnestednil", &["yaml11-implicit-type"]),
        ("fnumber", &["non-hash-data-file"]),
        ("fomap", &[]),
        ("fquoteddate", &[]),
        ("frubyobj", &["forbidden-yaml-tag"]),
        ("frubysym", &["ruby-symbol-value"]),
        ("fscalar", &["non-hash-data-file"]),
        ("fset", &["forbidden-yaml-tag"]),
        ("fsymval", &["ruby-symbol-value"]),
        ("fsyntax", &["yaml-syntax-error"]),
        ("ftab", &["yaml-syntax-error"]),
        ("ftilde", &["empty-data-file"]),
        ("ftimestamp", &["unquoted-date"]),
        ("funquoted", &["yaml-syntax-error"]),
    ];
    let strict = answers(case, "expected-strict.jsonl");
    for (module, want) in expected {
        let got: Vec<&str> = fired
            .get(*module)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        assert_eq!(&got, want, "{module}");
        let answer = &strict[&format!("{module}::k")];
        let error = answer["error"].as_str().unwrap_or("");
        let fatal = error.starts_with("Unable to parse");
        let fatal_rule = got
            .iter()
            .any(|r| ["yaml-syntax-error", "unquoted-date", "forbidden-yaml-tag"].contains(r));
        assert_eq!(fatal, fatal_rule, "{module}: {answer}");
        let symbol = error.contains("Runtime[ruby, 'Symbol']");
        assert_eq!(symbol, got.contains(&"ruby-symbol-value"), "{module}");
        let non_hash = error.contains("file does not contain a valid yaml hash");
        assert_eq!(non_hash, got.contains(&"non-hash-data-file"), "{module}");
        // empty-data-file: not found, with Puppet's warning, even with strict=error
        let warned_empty = answer["not_found"] == true
            && answer["warnings"].as_array().is_some_and(|w| {
                w.iter().any(|w| {
                    w.as_str()
                        .is_some_and(|w| w.ends_with("file does not contain a valid yaml hash"))
                })
            });
        assert_eq!(
            warned_empty,
            got.contains(&"empty-data-file"),
            "{module}: {answer}"
        );
    }
    assert_eq!(
        fired.len(),
        expected.iter().filter(|(_, w)| !w.is_empty()).count()
    );
}

/// `--puppet 7`: the same file is a warning-and-ignore in Puppet 7 (recorded expected-7.jsonl of
/// conformance/yaml/env-non-hash-file), which the message says.
#[test]
fn non_hash_data_file_follows_the_puppet_version() {
    let case = "fixtures/conformance/yaml/env-non-hash-file";
    let env = crate_root().join(case).join("env");
    std::env::set_current_dir(crate_root()).unwrap();
    let run = |puppet: u8| {
        check::check(&CheckOptions {
            paths: vec![env.strip_prefix(crate_root()).unwrap().to_path_buf()],
            only: vec!["non-hash-data-file"],
            puppet,
            ..CheckOptions::default()
        })
        .diagnostics
    };
    let p7 = run(7);
    let p8 = run(8);
    assert_eq!(p7.len(), 1);
    assert_eq!(p8.len(), 1);
    assert!(p7[0]
        .primary
        .file
        .path
        .ends_with("data/nodes/web01.example.com.yaml"));
    assert!(
        p7[0].message.ends_with("Puppet 7 ignores its data"),
        "{}",
        p7[0].message
    );
    assert!(
        p8[0].message.ends_with("every lookup that reads it fails"),
        "{}",
        p8[0].message
    );
    let seven = answers(case, "expected-7.jsonl");
    let strict = answers(case, "expected-strict.jsonl");
    assert!(seven["k"]["warnings"][0]
        .as_str()
        .unwrap()
        .ends_with("web01.example.com.yaml: file does not contain a valid yaml hash"));
    assert!(strict["k"]["error"]
        .as_str()
        .unwrap()
        .ends_with("web01.example.com.yaml: file does not contain a valid yaml hash"));
}

/// Every fix of every fixture keeps the loaded value (H005, H006) or turns a value Puppet
/// refuses into the string it was written as (H004), and leaves nothing for its rule to report.
#[test]
fn fixes_keep_the_value() {
    let mut applied = 0;
    for rule in [
        "unquoted-date",
        "yaml11-implicit-type",
        "unquoted-interpolation",
    ] {
        for case in rule_cases(rule) {
            if case.is_dir() {
                continue;
            }
            let diags = check_with_rule(&case, rule);
            let mut fixes: Vec<_> = diags.iter().filter_map(|d| d.fix.clone()).collect();
            if fixes.is_empty() {
                continue;
            }
            let text = String::from_utf8(std::fs::read(&case).unwrap()).unwrap();
            fixes.sort_by_key(|f| std::cmp::Reverse(f.span.start));
            let mut fixed = text.clone();
            for f in &fixes {
                fixed.replace_range(f.span.range(), &f.replacement);
            }
            let before = yaml::load(&SourceFile::new("a.yaml", text.as_str()));
            let after = yaml::load(&SourceFile::new("b.yaml", fixed.as_str()));
            assert!(
                after.fatal_issue().is_none(),
                "{}: {:?}",
                case.display(),
                after.issues
            );
            if rule != "unquoted-date" {
                assert_eq!(
                    before.root.unwrap().to_value(),
                    after.root.unwrap().to_value(),
                    "{}",
                    case.display()
                );
            }
            let tmp = TempDir::new("fixed");
            let p = tmp.write("fixed.yaml", &fixed);
            let again = check_with_rule(&p, rule);
            assert!(
                again.iter().all(|d| d.fix.is_none()),
                "{}: {}",
                case.display(),
                hieralint::render::full_plain(&again)
            );
            applied += fixes.len();
        }
    }
    assert!(applied >= 30, "{applied} fixes applied");
}

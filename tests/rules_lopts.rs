//! The runtime claims of the lookup_options, merge and reachability rules (H103, H401-H406),
//! checked against what Puppet 7.23 answered for the same environments (fixtures/conformance/,
//! recorded by tools/oracle/): each rule fires exactly where Puppet fails, ignores data or
//! never reads a file, and nowhere else.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hieralint::check::{self, CheckOptions};
use hieralint::diag::{Diagnostic, Severity};
use hieralint::span::SourceFile;
use serde_json::Value as J;
use support::*;

/// `check` of a conformance case's environment with one rule, against the case's facts when
/// `facts` is set (else the nodes the data implies).
fn run(case: &str, rule: &'static str, facts: bool) -> Vec<Diagnostic> {
    std::env::set_current_dir(crate_root()).unwrap();
    let dir = PathBuf::from("fixtures/conformance").join(case);
    check::check(&CheckOptions {
        paths: vec![dir.join("env")],
        only: vec![rule],
        facts: if facts {
            vec![dir.join("facts.json")]
        } else {
            Vec::new()
        },
        ..CheckOptions::default()
    })
    .diagnostics
}

/// The recorded answer for each key (first line per key without a `merge` argument).
fn answers(case: &str) -> Vec<J> {
    let p = crate_root()
        .join("fixtures/conformance")
        .join(case)
        .join("expected-7.jsonl");
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn answer<'a>(answers: &'a [J], key: &str) -> &'a J {
    answers
        .iter()
        .find(|a| a["key"] == key)
        .unwrap_or_else(|| panic!("no recorded answer for {key}"))
}

/// The text a diagnostic's primary label covers.
fn text(d: &Diagnostic) -> String {
    d.primary.file.slice(d.primary.span).to_string()
}

/// The top-level key (as written) of the entry holding a diagnostic's primary label.
fn top_key(d: &Diagnostic) -> String {
    let src = SourceFile::from_bytes(
        d.primary.file.path.clone(),
        d.primary.file.text().as_bytes(),
    );
    let doc = hieralint::loader::yaml::load(&src);
    let at = d.primary.span.start;
    doc.root
        .as_ref()
        .and_then(|r| r.as_map())
        .and_then(|m| {
            m.entries
                .iter()
                .find(|e| e.key.span.start <= at && at <= e.value.span.end.max(e.key.span.end))
        })
        .map(|e| src.slice(e.key.span).to_string())
        .unwrap_or_default()
}

fn module_of(d: &Diagnostic) -> String {
    let p = d.primary.file.path.display().to_string();
    p.split("/modules/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or("")
        .to_string()
}

#[test]
fn lookup_options_outside_namespace_fires_for_exactly_the_modules_puppet_fails() {
    let case = "module/lookup-options-namespace";
    let diags = run(case, "lookup-options-outside-namespace", false);
    let flagged: BTreeSet<String> = diags.iter().map(module_of).collect();
    let a = answers(case);
    for m in ["badlit", "badpat", "badpat2", "badpat3"] {
        let err = answer(&a, &format!("{m}::k"))["error"].as_str().unwrap();
        assert!(err.contains(&format!("module name '{m}'")), "{m}: {err}");
        assert!(flagged.contains(m), "{m} not flagged");
    }
    for m in ["good", "okpat", "nullopts"] {
        assert!(
            answer(&a, &format!("{m}::{}", if m == "good" { "h" } else { "k" }))
                .get("value")
                .is_some()
        );
        assert!(!flagged.contains(m), "{m} flagged");
    }
    assert_eq!(flagged.len(), 4, "{flagged:?}");
    let texts: BTreeSet<String> = diags.iter().map(text).collect();
    assert_eq!(
        texts,
        [
            "other_key",
            "\"^.*_a\"",
            "\"^(badpat2)::x\"",
            "\"^badpat3\\\\:\\\\:x\""
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    );
}

#[test]
fn key_outside_module_namespace_flags_the_keys_puppet_warns_about() {
    let case = "module/routing-and-namespace";
    let diags = run(case, "key-outside-module-namespace", false);
    let flagged: BTreeSet<String> = diags.iter().map(text).collect();
    assert_eq!(
        flagged,
        ["plain", "other::key", "Mod::upper"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    // Puppet 7 logs one warning per offending key on a lookup of a `mod::` key.
    let a = answers(case);
    let warnings = answer(&a, "mod::only")["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), flagged.len());
    assert!(diags.iter().all(|d| d.severity == Severity::Warning));
    // The keys are never found through the module.
    assert!(
        answer(&a, "plain")["value"] == "env" || answer(&a, "plain").get("not_found").is_some()
    );
    assert_eq!(answer(&a, "Mod::upper")["not_found"], true);

    let case = "module/nonstring-top-level-key";
    let diags = run(case, "key-outside-module-namespace", false);
    assert_eq!(diags.len(), 1, "{}", hieralint::render::full_plain(&diags));
    assert_eq!(
        (module_of(&diags[0]), text(&diags[0])),
        ("numkey".into(), "1".into())
    );
    assert_eq!(diags[0].severity, Severity::Error);
    let a = answers(case);
    let err = answer(&a, "numkey::k")["error"].as_str().unwrap();
    let first = err.lines().next().unwrap();
    assert!(
        diags[0].notes.iter().any(|n| n.contains(first)),
        "{first} not in {:?}",
        diags[0].notes
    );
    assert!(answer(&a, "symkey::k").get("value").is_some());
}

#[test]
fn invalid_lookup_options_regex_quotes_rubys_error() {
    for (case, key) in [
        ("lopts/invalid-regex-pattern", "k"),
        ("lopts/invalid-lookbehind", "k"),
    ] {
        let diags = run(case, "invalid-lookup-options-regex", false);
        assert_eq!(diags.len(), 1, "{case}");
        let a = answers(case);
        let err = answer(&a, key)["error"].as_str().unwrap();
        assert_eq!(answer(&a, key)["error_class"], "RegexpError");
        assert!(
            diags[0]
                .notes
                .iter()
                .any(|n| n.contains(&format!("RegexpError: {err}"))),
            "{case}: {err} not in {:?}",
            diags[0].notes
        );
    }
    // Onigmo-only syntax compiles, as Puppet showed.
    assert!(run("lopts/rule-claims", "invalid-lookup-options-regex", false).is_empty());
    let a = answers("lopts/rule-claims");
    for k in ["a_any", "_plus", "lb_k", "asc_k"] {
        assert_eq!(
            answer(&a, k)["value"],
            serde_json::json!(["role", "common"]),
            "{k}"
        );
    }
    assert_eq!(answer(&a, "p_plus")["value"], serde_json::json!(["role"]));
}

#[test]
fn unanchored_pattern_is_the_literal_puppet_ignores() {
    let diags = run(
        "lopts/rule-claims",
        "unanchored-lookup-options-pattern",
        false,
    );
    let flagged: Vec<String> = diags.iter().map(text).collect();
    assert_eq!(flagged, ["\"x_.*\""]);
    let a = answers("lopts/rule-claims");
    // `x_.*: {merge: unique}` did not make `x_key` a unique merge.
    assert_eq!(answer(&a, "x_key")["value"], serde_json::json!(["role"]));
    assert!(run(
        "lopts/matching-and-priority",
        "unanchored-lookup-options-pattern",
        false
    )
    .iter()
    .map(text)
    .eq(["\"key$\"".to_string()]));
}

#[test]
fn invalid_merge_behavior_errors_where_puppet_fails_and_warns_where_it_ignores() {
    let case = "lopts/entry-shapes";
    let diags = run(case, "invalid-merge-behavior", false);
    let a = answers(case);
    let mut errors = BTreeSet::new();
    let mut warnings = BTreeSet::new();
    for d in &diags {
        // The lookup_options entry the diagnostic is in: its key is the looked-up key.
        let entry = entry_of(d);
        match d.severity {
            Severity::Error => errors.insert(entry),
            _ => warnings.insert(entry),
        };
    }
    let failing: BTreeSet<String> = ["merge_substr", "arr_entry", "bad_name", "bad_opt"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(errors, failing);
    for k in &failing {
        assert!(answer(&a, k).get("error").is_some(), "{k}");
    }
    assert_eq!(
        warnings,
        ["str_entry", "unknown_keys"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    for k in [
        "str_entry",
        "unknown_keys",
        "nil_entry",
        "merge_null",
        "merge_hash_form",
    ] {
        assert!(answer(&a, k).get("value").is_some(), "{k}");
    }

    let diags = run("lopts/rule-claims", "invalid-merge-behavior", false);
    let got: BTreeSet<(String, Severity)> = diags.iter().map(|d| (text(d), d.severity)).collect();
    assert_eq!(
        got,
        [
            ("unique".to_string(), Severity::Warning),
            ("merg".to_string(), Severity::Warning),
            ("1".to_string(), Severity::Error),
        ]
        .into_iter()
        .collect()
    );

    for case in ["lopts/string-lookup-options", "lopts/nonstring-key"] {
        let diags = run(case, "invalid-merge-behavior", false);
        assert_eq!(diags.len(), 1, "{case}");
        assert!(answer(&answers(case), "k").get("error").is_some());
    }

    // A null lookup_options next to another level's: for the recorded node only.
    let case = "lopts/null-and-non-hash";
    let diags = run(case, "invalid-merge-behavior", true);
    assert_eq!(diags.len(), 1);
    assert!(diags[0]
        .primary
        .file
        .path
        .ends_with("data/nodes/web01.example.com.yaml"));
    let err = answer(&answers(case), "other")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(diags[0].notes.iter().any(|n| n.contains(&err)), "{err}");
    assert!(run("lopts/single-null", "invalid-merge-behavior", true).is_empty());
}

/// The lookup_options entry key a diagnostic's primary label is in (or is).
fn entry_of(d: &Diagnostic) -> String {
    let src = &d.primary.file;
    let doc = hieralint::loader::yaml::load(src);
    let root = doc.root.unwrap();
    let lo = root.as_map().unwrap().get_value("lookup_options").unwrap();
    let at = d.primary.span.start;
    lo.as_map()
        .unwrap()
        .entries
        .iter()
        .find(|e| e.key.span.start <= at && at <= e.value.span.end.max(e.key.span.end))
        .map(|e| src.slice(e.key.span).to_string())
        .unwrap_or_default()
}

#[test]
fn merge_type_mismatch_fires_for_the_key_puppet_fails() {
    let case = "lopts/matching-and-priority";
    let diags = run(case, "merge-type-mismatch", true);
    assert_eq!(diags.len(), 1, "{}", hieralint::render::full_plain(&diags));
    let d = &diags[0];
    assert_eq!(top_key(d), "cc");
    assert!(d.primary.file.path.ends_with("data/role/web.yaml"));
    let err = answer(&answers(case), "cc")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(d.notes.iter().any(|n| n.contains(&err)), "{err}");
    // Every other key of the case merges (or is first-found) without error.
    for case in [
        "merge/env-and-module-layers",
        "lopts/entry-shapes",
        "lopts/env-wins-over-module",
    ] {
        let diags = run(case, "merge-type-mismatch", true);
        assert!(
            diags.is_empty(),
            "{case}: {}",
            hieralint::render::full_plain(&diags)
        );
    }
    // A broken lookup_options assembly fails every key with a merge message: not H406's.
    assert!(run("lopts/null-and-non-hash", "merge-type-mismatch", true).is_empty());
}

#[test]
fn unreachable_data_file_names_the_files_puppet_never_reads() {
    let diags = run("config/env-no-hiera-yaml", "unreachable-data-file", false);
    assert_eq!(diags.len(), 1);
    assert!(diags[0].primary.file.path.ends_with("env/data/common.yaml"));
    assert_eq!(answers("config/env-no-hiera-yaml")[0]["not_found"], true);

    let case = "module/providers-without-hiera-yaml";
    let diags = run(case, "unreachable-data-file", false);
    let flagged: BTreeSet<String> = diags.iter().map(module_of).collect();
    assert_eq!(
        flagged,
        ["bare", "metabogus", "metanone"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    let a = answers(case);
    assert_eq!(answer(&a, "bare::only")["not_found"], true);
    assert_eq!(answer(&a, "metanone::k")["not_found"], true);
    for k in ["metahiera::k", "v4mod::k", "v5bare::k"] {
        assert!(answer(&a, k).get("value").is_some(), "{k}");
    }
}

#[test]
fn an_empty_unreachable_file_is_reported_at_offset_zero() {
    let env = TempDir::new("h103-empty");
    env.write(
        "hiera.yaml",
        "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n",
    );
    env.write("data/common.yaml", "k: v\n");
    env.write("data/empty.yml", "");
    let diags = check_with_rule(&env.0, "unreachable-data-file");
    assert_eq!(diags.len(), 1);
    assert!(diags[0].primary.file.path.ends_with("empty.yml"));
    assert_eq!(diags[0].primary.span, hieralint::span::Span::empty(0));
    assert!(Path::new(&diags[0].primary.file.path).exists());
}

//! `.hieralint.yaml`: every key's errors as H903 diagnostics with exact spans in the file, and
//! the effect of each key (levels, presets, per-file-ignores, exclude, discovery, `--config`
//! precedence). Fixtures: fixtures/config/<case>/.

mod integration_support;

use std::path::Path;

use hieralint::diag::Severity;
use hieralint::run;
use hieralint::settings;
use integration_support::*;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_error_is_located_in_the_config_file() {
    let r = run_paths(&["fixtures/config/errors"]);
    assert!(r.config_error);
    let f = "fixtures/config/errors/.hieralint.yaml";
    let got: Vec<String> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.code == "H903")
        .map(|d| format!("{} | {}", at(d), d.message))
        .collect();
    let want = [
        "1:10-1:17 | unknown preset `lenient` (expected recommended, strict or none)",
        "3:3-3:16 | unknown rule `test-bad-valu`",
        "4:19-4:28 | unknown level `sometimes` (expected off, info, warn or error)",
        "5:38-5:41 | rule `unused-suppression` has no option `foo`",
        "6:3-6:17 | `invalid-config` cannot be configured",
        "7:26-7:32 | a rule's setting must be a level (off, info, warn, error) or a mapping with `level` and options",
        "9:3-9:11 | invalid glob `data/[`: invalid range pattern",
        "10:19-10:23 | unknown rule `nope`",
        "10:25-10:39 | `invalid-config` cannot be ignored",
        "11:15-11:17 | an empty rule list ignores nothing",
        "13:3-14:13 | `exclude` must be a string or a list of strings, not a mapping",
        "15:8-15:23 | facts path `./no-such-facts` does not exist",
        "16:9-16:10 | unsupported Puppet version `6` (expected 7 or 8)",
        "17:9-17:12 | unknown format `xml` (expected one of full, concise, json, sarif, github, gitlab, junit, checkstyle)",
        "18:10-18:19 | unknown `fail-on` value `sometimes` (expected error, warning or never)",
        "19:1-19:8 | unknown key `fail_on`",
        "20:1-20:6 | duplicate key `rules`",
    ];
    let want: Vec<String> = want
        .iter()
        .map(|w| {
            let (pos, msg) = w.split_once(" | ").unwrap();
            format!("{f}:{pos} H903 | {msg}")
        })
        .collect();
    assert_eq!(got, want);
    let by_msg = |m: &str| r.diagnostics.iter().find(|d| d.message == m).unwrap();
    assert_eq!(
        by_msg("unknown rule `test-bad-valu`").notes,
        vec!["did you mean `test-bad-value`?"]
    );
    assert_eq!(
        by_msg("unknown key `fail_on`").notes,
        vec!["did you mean `fail-on`?"]
    );
    assert_eq!(
        by_msg("rule `unused-suppression` has no option `foo`").notes,
        vec!["`unused-suppression` takes no options, only `level`"]
    );
    // the duplicate points back at the first `rules`
    let dup = by_msg("duplicate key `rules`");
    assert_eq!(dup.secondary.len(), 1);
    let first = dup.secondary[0]
        .file
        .line_col(dup.secondary[0].span.start as usize);
    assert_eq!((first.line, first.column), (2, 1));
    assert_eq!(dup.secondary[0].message, "first defined here");
    // entries in error are ignored, the rest applies: the data finding keeps its default level
    let data: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.code == "H990")
        .collect();
    assert_eq!(data.len(), 1);
    assert_eq!(data[0].severity, Severity::Warning);
}

#[test]
fn levels_by_name_or_code_and_options() {
    let o = options(&["fixtures/config/levels"]);
    assert!(
        o.config_diagnostics.is_empty(),
        "{:?}",
        all_at(&o.config_diagnostics)
    );
    let opts = &o.settings.rules["H990"].options;
    assert_eq!(opts.len(), 1);
    assert_eq!(opts[0].0, "allow");
    let r = run::run(&o);
    // the project hands rule options to rules, with their spans in the config file
    let allow = r.project.rule_option("H990", "allow").unwrap();
    let lc = o
        .settings
        .file
        .as_ref()
        .unwrap()
        .line_col(allow.span.start as usize);
    assert_eq!((lc.line, lc.column), (3, 41));
    // `H901: off`: the blanket ignore on line 1 is used anyway; `enable` alone is H904 at info
    assert_eq!(
        all_at(&r.diagnostics),
        strs(&["fixtures/config/levels/data/common.yaml:3:1-3:20 H904"])
    );
    assert_eq!(r.diagnostics[0].severity, Severity::Info);
    assert_eq!(r.suppressed.len(), 1);
    assert_eq!(r.suppressed[0].diagnostic.severity, Severity::Error);
}

#[test]
fn per_file_ignores_by_glob_and_all() {
    let r = run_paths(&["fixtures/config/per-file-ignores"]);
    assert!(!r.config_error);
    assert_eq!(
        all_at(&r.diagnostics),
        strs(&["fixtures/config/per-file-ignores/data/common.yaml:1:4-1:7 H990"])
    );
    // silenced by configuration, not counted as suppressed
    assert_eq!(r.summary.suppressed, 0);
    assert_eq!(r.summary.files_checked, 4);
}

#[test]
fn exclude_leaves_files_out_of_the_run() {
    let r = run_paths(&["fixtures/config/exclude"]);
    assert_eq!(
        all_at(&r.diagnostics),
        strs(&[
            "fixtures/config/exclude/data/common.yaml:1:4-1:7 H990",
            "fixtures/config/exclude/data/os/Debian.yaml:1:4-1:7 H990",
        ])
    );
    assert_eq!(r.summary.files_checked, 3);
    // named explicitly, an excluded file is still left out
    let r = run_paths(&["fixtures/config/exclude/data/vendor/x.yaml"]);
    assert!(r.diagnostics.is_empty());
    assert_eq!(r.summary.files_checked, 0);
}

#[test]
fn presets() {
    // none: only the rules listed run (no H902 for `nope`, no H901 for the blanket ignore)
    let r = run_paths(&["fixtures/config/extends-none"]);
    assert_eq!(
        all_at(&r.diagnostics),
        strs(&["fixtures/config/extends-none/data/common.yaml:1:4-1:7 H990"])
    );
    // strict: warnings become errors, unless a level is set
    let r = run_paths(&["fixtures/config/extends-strict"]);
    let sev: Vec<(String, Severity)> = r
        .diagnostics
        .iter()
        .map(|d| (d.rule.code.to_string(), d.severity))
        .collect();
    assert_eq!(
        sev,
        vec![
            ("H990".to_string(), Severity::Error),
            ("H904".to_string(), Severity::Warning)
        ]
    );
}

#[test]
fn discovery_walks_up_and_config_flag_wins() {
    at_root();
    let found = settings::find(Path::new("fixtures/config/nested/env")).unwrap();
    assert_eq!(found, Path::new("fixtures/config/nested/.hieralint.yaml"));
    let found = settings::find(Path::new("fixtures/config/nested/env/data/common.yaml")).unwrap();
    assert_eq!(found, Path::new("fixtures/config/nested/.hieralint.yaml"));
    let r = run_paths(&["fixtures/config/nested/env"]);
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].severity, Severity::Info);

    // --config replaces the file found
    let mut o = options(&["fixtures/config/nested/env"]);
    let (s, d) = settings::load(
        Path::new("fixtures/config/nested/other/explicit.yaml"),
        &o.known(),
    )
    .unwrap();
    assert!(d.is_empty());
    o.settings = s;
    assert!(run::run(&o).diagnostics.is_empty());
}

#[test]
fn facts_and_puppet_resolve_against_the_config_directory() {
    let t = TempDir::new("cfg-facts");
    t.write("facts/web.json", "{}");
    t.write(
        ".hieralint.yaml",
        "facts: [facts, facts/web.json]\npuppet: 7\n",
    );
    let cfg = t.0.join(".hieralint.yaml");
    let (s, d) = settings::load(&cfg, &hieralint::run::known_rules(&[])).unwrap();
    assert!(d.is_empty(), "{:?}", all_at(&d));
    let base = hieralint::paths::identity(&t.0);
    assert_eq!(
        s.facts,
        vec![base.join("facts"), base.join("facts/web.json")]
    );
    assert_eq!(s.puppet, Some(7));
}

#[test]
fn an_empty_or_comment_only_config_is_the_defaults() {
    let t = TempDir::new("cfg-empty");
    for text in ["", "# nothing yet\n", "---\n"] {
        t.write(".hieralint.yaml", text);
        let (s, d) = settings::load(&t.0.join(".hieralint.yaml"), &run::known_rules(&[])).unwrap();
        assert!(d.is_empty());
        assert!(s.rules.is_empty() && s.exclude.is_empty() && s.format.is_none());
    }
    t.write(".hieralint.yaml", "- a\n- b\n");
    let (_, d) = settings::load(&t.0.join(".hieralint.yaml"), &run::known_rules(&[])).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        "the configuration must be a mapping of keys, not a list"
    );
    t.write(".hieralint.yaml", "rules: [\n");
    let (_, d) = settings::load(&t.0.join(".hieralint.yaml"), &run::known_rules(&[])).unwrap();
    assert_eq!(d.len(), 1, "a syntax error is one H903");
    assert_eq!(d[0].rule.code, "H903");
}

/// The "complete example" of docs/configuration.md is a configuration hieralint accepts: it
/// once set an option no rule has (`allow`), which is an error (H903, exit 2).
#[test]
fn the_documented_complete_example_loads_without_errors() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md"),
    )
    .unwrap();
    let after = doc.split("A complete example:").nth(1).unwrap();
    let example = after
        .split("```yaml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    assert!(
        example.contains("key-outside-module-namespace"),
        "{example}"
    );
    let t = TempDir::new("cfg-doc-example");
    // the paths the example names
    t.write("facts/web01.json", "{}");
    t.write(".hieralint.yaml", example);
    let (s, d) = settings::load(&t.0.join(".hieralint.yaml"), &run::known_rules(&[])).unwrap();
    assert!(d.is_empty(), "{:?}", all_at(&d));
    assert_eq!(s.puppet, Some(7));
}

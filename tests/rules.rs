//! Per-rule fixture tests: every case under fixtures/rules/<rule>/ is checked with only that rule
//! enabled. The `# expect: <rule>` markers must match the reported (file, line, rule) set
//! exactly, `ok-*` cases must report nothing, and the rendered output is snapshotted
//! (tests/snapshots/), so a changed span or message shows up in review.

mod support;

use support::*;

fn run_cases(rule: &'static str) {
    let cases = rule_cases(rule);
    assert!(
        cases
            .iter()
            .any(|c| c.file_name().unwrap().to_str().unwrap().starts_with("ok-")),
        "{rule}: needs at least one ok- case"
    );
    assert!(
        cases
            .iter()
            .any(|c| !c.file_name().unwrap().to_str().unwrap().starts_with("ok-")),
        "{rule}: needs at least one failing case"
    );
    for case in cases {
        let name = case.file_name().unwrap().to_str().unwrap().to_string();
        let diags = check_with_rule(&case, rule);
        let expected = expect_markers(&case);
        let got = reported(&diags);
        if name.starts_with("ok-") {
            assert!(
                diags.is_empty(),
                "{rule}/{name}: expected no diagnostic, got:\n{}",
                hieralint::render::full_plain(&diags)
            );
        } else {
            assert!(
                !diags.is_empty(),
                "{rule}/{name}: expected diagnostics, got none"
            );
        }
        let has_markers = !expected.is_empty() || !name.ends_with(".json");
        if has_markers {
            assert_eq!(got, expected, "{rule}/{name}: reported (file, line, rule) differ from the `# expect:` markers\n{}", hieralint::render::full_plain(&diags));
        }
        let rendered = hieralint::render::full_plain(&diags);
        insta::with_settings!({
            snapshot_suffix => format!("{rule}__{name}"),
            omit_expression => true,
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!(rendered);
        });
    }
}

macro_rules! rule_tests {
    ($($f:ident => $name:literal),* $(,)?) => { $(#[test] fn $f() { run_cases($name) })* };
}

rule_tests! {
    yaml_syntax_error => "yaml-syntax-error",
    duplicate_key => "duplicate-key",
    non_hash_data_file => "non-hash-data-file",
    unquoted_date => "unquoted-date",
    yaml11_implicit_type => "yaml11-implicit-type",
    unquoted_interpolation => "unquoted-interpolation",
    malformed_eyaml => "malformed-eyaml",
    forbidden_yaml_tag => "forbidden-yaml-tag",
    multiple_yaml_documents => "multiple-yaml-documents",
    yaml_limit_exceeded => "yaml-limit-exceeded",
    ruby_symbol_value => "ruby-symbol-value",
    empty_data_file => "empty-data-file",
    invalid_hiera_config => "invalid-hiera-config",
    interpolation_method_in_hiera_config => "interpolation-method-in-hiera-config",
    unreachable_data_file => "unreachable-data-file",
    interpolation_syntax_error => "interpolation-syntax-error",
    unknown_interpolation_method => "unknown-interpolation-method",
    alias_not_entire_string => "alias-not-entire-string",
    interpolated_key_not_found => "interpolated-key-not-found",
    interpolation_loop => "interpolation-loop",
    legacy_fact => "legacy-fact",
    undefined_variable => "undefined-variable",
    lookup_options_outside_namespace => "lookup-options-outside-namespace",
    key_outside_module_namespace => "key-outside-module-namespace",
    invalid_lookup_options_regex => "invalid-lookup-options-regex",
    unanchored_lookup_options_pattern => "unanchored-lookup-options-pattern",
    invalid_merge_behavior => "invalid-merge-behavior",
    merge_type_mismatch => "merge-type-mismatch",
    module_not_loaded => "module-not-loaded",
}

/// Puppet 7 logs a metadata.json that does not parse and loads the module; only Puppet 8
/// (strict = error) leaves it out (recorded: fixtures/conformance/module/metadata-completeness
/// `badjson` in both modes).
#[test]
fn module_not_loaded_by_puppet_8_only_when_metadata_does_not_parse() {
    let case = crate_root().join("fixtures/rules/module-not-loaded/bad-json");
    let with = |puppet: u8| {
        hieralint::check::check(&hieralint::check::CheckOptions {
            paths: vec![case.clone()],
            only: vec!["module-not-loaded"],
            puppet,
            ..Default::default()
        })
        .diagnostics
        .len()
    };
    assert_eq!(with(8), 1);
    assert_eq!(with(7), 0);
}

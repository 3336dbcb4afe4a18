//! Inline suppressions end to end (library level, with the test rule H990 `test-bad-value`):
//! every directive form on fixtures/suppress/, the diagnostics about directives (H901 unused,
//! H902 unknown rule, H904 misplaced or malformed) with exact spans, and what is suppressed.

mod integration_support;

use hieralint::render::{self, Report};
use hieralint::run;
use hieralint::suppress::SuppressedBy;
use integration_support::*;

/// Reported (`path:l:c-l:c code`) and suppressed (`line code`) of one fixture file.
fn case(name: &str) -> (Vec<String>, Vec<String>) {
    let r = run_paths(&[&format!("fixtures/suppress/{name}")]);
    let suppressed = r
        .suppressed
        .iter()
        .map(|s| {
            let d = &s.diagnostic;
            let lc = d.primary.file.line_col(d.primary.span.start as usize);
            format!("{} {}", lc.line, d.rule.code)
        })
        .collect();
    assert_eq!(r.summary.suppressed, r.suppressed.len());
    (all_at(&r.diagnostics), suppressed)
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn trailing_ignore_covers_its_line_by_name_or_code() {
    let (reported, suppressed) = case("trailing.yaml");
    let f = "fixtures/suppress/trailing.yaml";
    assert_eq!(
        reported,
        strs(&[
            &format!("{f}:2:4-2:7 H990"),
            // `H990` in brackets on a line without a finding
            &format!("{f}:3:30-3:34 H901"),
            &format!("{f}:4:4-4:7 H990"),
            // names are case-sensitive (codes are not)
            &format!("{f}:4:30-4:44 H902"),
        ])
    );
    assert_eq!(suppressed, strs(&["1 H990", "5 H990"]));
}

#[test]
fn own_line_ignore_covers_the_next_entry_and_its_subtree() {
    let (reported, suppressed) = case("own-line.yaml");
    let f = "fixtures/suppress/own-line.yaml";
    assert_eq!(
        reported,
        strs(&[
            &format!("{f}:6:8-6:11 H990"),
            // a sequence item is an entry too: only the first item is covered
            &format!("{f}:10:5-10:8 H990"),
            // the next entry (`tail: ok`, after a blank line) has nothing to suppress
            &format!("{f}:11:21-11:35 H901"),
            // an own-line directive with nothing after it
            &format!("{f}:14:1-14:20 H904"),
        ])
    );
    assert_eq!(suppressed, strs(&["4 H990", "5 H990", "9 H990"]));
}

#[test]
fn disable_enable_ranges() {
    let (reported, suppressed) = case("ranges.yaml");
    let f = "fixtures/suppress/ranges.yaml";
    assert_eq!(
        reported,
        strs(&[
            &format!("{f}:1:4-1:7 H990"),
            &format!("{f}:6:4-6:7 H990"),
            &format!("{f}:10:4-10:7 H990"),
            &format!("{f}:11:21-11:35 H904"),
            // a range left open runs to the end of the file, where nothing is found
            &format!("{f}:12:22-12:36 H901"),
        ])
    );
    assert_eq!(suppressed, strs(&["3 H990", "4 H990", "4 H990", "8 H990"]));
}

#[test]
fn ignore_file_before_content_covers_the_file() {
    let (reported, suppressed) = case("ignore-file.yaml");
    assert!(reported.is_empty(), "{reported:?}");
    assert_eq!(suppressed, strs(&["3 H990", "5 H990"]));
}

#[test]
fn ignore_file_after_content_is_misplaced() {
    let r = run_paths(&["fixtures/suppress/misplaced-ignore-file.yaml"]);
    let f = "fixtures/suppress/misplaced-ignore-file.yaml";
    assert_eq!(
        all_at(&r.diagnostics),
        strs(&[&format!("{f}:1:4-1:7 H990"), &format!("{f}:2:1-2:41 H904")])
    );
    assert_eq!(
        r.diagnostics[1].message,
        "`ignore-file` must come before the first content of the file"
    );
    assert!(r.suppressed.is_empty());
}

#[test]
fn malformed_and_unknown_directives() {
    let r = run_paths(&["fixtures/suppress/malformed.yaml"]);
    let f = "fixtures/suppress/malformed.yaml";
    assert_eq!(
        all_at(&r.diagnostics),
        strs(&[
            &format!("{f}:1:4-1:7 H990"),
            &format!("{f}:1:29-1:42 H902"),
            &format!("{f}:1:44-1:59 H902"),
            &format!("{f}:2:22-2:28 H904"),
            &format!("{f}:3:28-3:29 H904"),
            &format!("{f}:4:28-4:34 H904"),
        ])
    );
    let m: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(m[1], "unknown rule `test-bad-valu` in suppression");
    assert_eq!(
        r.diagnostics[1].notes,
        vec!["did you mean `test-bad-value`?"]
    );
    assert_eq!(m[2], "`unreadable-file` (H008) cannot be suppressed");
    assert!(m[3].starts_with("unknown suppression action `ignroe`"));
    assert_eq!(m[4], "unclosed `[` in suppression");
    assert_eq!(m[5], "empty rule name in suppression brackets");
}

#[test]
fn files_that_do_not_parse_get_no_unused_reports() {
    let (reported, suppressed) = case("broken-syntax.yaml");
    // The syntax error itself is reported (H001, which no suppression can silence); the
    // suppression comments of a file that does not parse are not judged unused.
    assert_eq!(
        reported,
        strs(&[
            "fixtures/suppress/broken-syntax.yaml:2:5-2:8 H990",
            "fixtures/suppress/broken-syntax.yaml:4:1-4:1 H001",
        ])
    );
    assert!(suppressed.is_empty());
}

#[test]
fn unused_is_only_reported_for_rules_that_ran() {
    // --ignore test-bad-value: the directive on line 2 names a rule that did not run
    let mut o = options(&["fixtures/suppress/show.yaml"]);
    o.ignore = vec![&BAD_META];
    let r = run::run(&o);
    assert!(r.diagnostics.is_empty(), "{:?}", all_at(&r.diagnostics));

    // a blanket directive is reported only when every rule it could silence ran
    let t = TempDir::new("blanket");
    t.write("x.yaml", "a: ok # hieralint: ignore\n");
    let path = t.0.join("x.yaml").display().to_string();
    let r = run::run(&options(&[&path]));
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(
        r.diagnostics[0].message,
        "unused suppression: this `ignore` suppresses nothing"
    );
    let mut o = options(&[&path]);
    o.registry.push(&PLAIN_GOOD);
    o.select = vec![&BAD_META, &hieralint::rules::unused_suppression::META];
    assert!(run::run(&o).diagnostics.is_empty(), "H991 did not run");
    // ignoring a rule that cannot be suppressed does not narrow anything
    let mut o = options(&[&path]);
    o.ignore = vec![&hieralint::rules::unknown_rule_in_suppression::META];
    assert_eq!(run::run(&o).diagnostics.len(), 1);
}

#[test]
fn directive_diagnostics_cannot_be_suppressed() {
    let t = TempDir::new("nosup");
    t.write(
        "x.yaml",
        "# hieralint: ignore-file\na: ok  # hieralint: ignore[nope]\n",
    );
    let path = t.0.join("x.yaml").display().to_string();
    let r = run::run(&options(&[&path]));
    let codes: Vec<&str> = r.diagnostics.iter().map(|d| d.rule.code).collect();
    // the H902 stays, and so the blanket ignore-file is unused
    assert_eq!(codes, vec!["H901", "H902"]);
    assert!(r.suppressed.is_empty());
}

#[test]
fn show_suppressed_marks_them_in_every_format_that_can() {
    let r = run_paths(&["fixtures/suppress/show.yaml"]);
    assert_eq!(r.suppressed.len(), 1);
    match &r.suppressed[0].by {
        SuppressedBy::Inline { reason, action, .. } => {
            assert_eq!(reason.as_deref(), Some("kept"));
            assert_eq!(action.as_str(), "ignore");
        }
        other => panic!("{other:?}"),
    }
    let root = hieralint::paths::repo_root();
    let report = Report {
        diagnostics: &r.diagnostics,
        suppressed: &r.suppressed,
        summary: &r.summary,
        files: &r.files,
        root: &root,
    };
    let mut human = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
    render::write_human(&mut human, &report, false).unwrap();
    let human = String::from_utf8(human.into_inner()).unwrap();
    assert!(
        human.contains("warning[H990/test-bad-value]: suppressed: value `BAD`"),
        "{human}"
    );
    assert!(
        human.contains(
            "suppressed by `# hieralint: ignore[test-bad-value] kept` at fixtures/suppress/show.yaml:1 (kept)"
        ),
        "{human}"
    );
    let mut json = Vec::new();
    render::write_machine(render::OutputFormat::Json, &mut json, &report).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let d = &json["diagnostics"];
    assert_eq!(d.as_array().unwrap().len(), 2);
    assert_eq!(d[0]["code"], "H990");
    assert!(d[0]["suppressed"]
        .as_str()
        .unwrap()
        .starts_with("suppressed by"));
    assert!(d[1].get("suppressed").is_none());
    let sarif = serde_json::to_value(render::sarif::build(&report)).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results[0]["suppressions"][0]["kind"], "inSource");
    assert_eq!(results[0]["suppressions"][0]["justification"], "kept");
    assert!(results[1].get("suppressions").is_none());

    // without --show-suppressed nothing of it shows
    let report = Report {
        suppressed: &[],
        ..report
    };
    let mut human = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
    render::write_human(&mut human, &report, false).unwrap();
    assert!(!String::from_utf8(human.into_inner())
        .unwrap()
        .contains("suppressed"));
}

/// The `yaml,fails`/`yaml,passes` examples of the suppression pages behave as labelled (the
/// rule-page harness only runs registered rules; these are raised by the pipeline).
#[test]
fn suppression_page_examples_behave_as_labelled() {
    use hieralint::rules::{
        misplaced_suppression, unknown_rule_in_suppression, unused_suppression,
    };
    let mut checked = 0;
    for m in [
        &unused_suppression::META,
        &unknown_rule_in_suppression::META,
        &misplaced_suppression::META,
    ] {
        let mut lines = m.doc.lines();
        while let Some(l) = lines.next() {
            let fails = match l.trim() {
                "```yaml,fails" => true,
                "```yaml,passes" => false,
                _ => continue,
            };
            let body: String = lines
                .by_ref()
                .take_while(|l| l.trim() != "```")
                .map(|l| format!("{l}\n"))
                .collect();
            let env = TempDir::new("page");
            env.write("hiera.yaml", HIERA);
            env.write("data/common.yaml", &body);
            let r = run::run(&options(&[&env.0.display().to_string()]));
            let own = r
                .diagnostics
                .iter()
                .filter(|d| d.rule.code == m.code)
                .count();
            assert_eq!(
                own > 0,
                fails,
                "{}: example:\n{body}\n{:?}",
                m.name,
                all_at(&r.diagnostics)
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

//! `--format junit`: JUnit XML through `quick-junit`, for GitLab (`artifacts: reports: junit`),
//! Jenkins and other CI test views.
//!
//! Layout (PDK's `--format=junit` convention): one `<testsuite>` per checked file, named by its
//! repo-relative path; a file without findings has one passing `<testcase name="hieralint">`, and
//! every finding is a `<testcase>` with a `<failure>` whose `type` is the rule code, `message` the
//! diagnostic message, and text the location, severity and notes.
//!
//! The output validates against the Jenkins xunit-plugin `junit-10.xsd` (tests/schemas/). That
//! schema allows no `skipped` attribute on the root `<testsuites>`, which quick-junit always
//! writes; hieralint never skips a test case, so the attribute (always `"0"`) is dropped there.

use std::collections::BTreeMap;
use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report as JUnitReport, TestCase, TestCaseStatus, TestSuite};

use super::Report;
use crate::diag::Diagnostic;
use crate::paths;

fn case(d: &Diagnostic, path: &str) -> TestCase {
    let (start, _) = super::positions(&d.primary);
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status.set_message(d.message.clone());
    status.set_type(d.rule.code);
    let mut text = format!(
        "{path}:{}:{}: {}[{}/{}]: {}",
        start.line,
        start.column,
        d.severity.as_str(),
        d.rule.code,
        d.rule.name,
        d.message
    );
    for n in &d.notes {
        text.push_str("\nnote: ");
        text.push_str(n);
    }
    text.push_str(&format!("\nsee: {}", d.rule.url()));
    status.set_description(text);
    let mut tc = TestCase::new(
        format!(
            "{} {} at {}:{}",
            d.rule.code, d.rule.name, start.line, start.column
        ),
        status,
    );
    tc.set_classname(path.to_string());
    tc
}

/// Builds the JUnit report.
pub fn build(report: &Report) -> JUnitReport {
    let mut by_file: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
    for f in report.files {
        by_file
            .entry(paths::report_path(f, report.root))
            .or_default();
    }
    for d in report.diagnostics {
        by_file
            .entry(paths::report_path(&d.primary.file.path, report.root))
            .or_default()
            .push(d);
    }
    let mut out = JUnitReport::new("hieralint");
    for (path, diags) in by_file {
        let mut suite = TestSuite::new(path.clone());
        if diags.is_empty() {
            let mut tc = TestCase::new("hieralint", TestCaseStatus::success());
            tc.set_classname(path.clone());
            suite.add_test_case(tc);
        }
        for d in diags {
            suite.add_test_case(case(d, &path));
        }
        out.add_test_suite(suite);
    }
    out
}

pub fn write(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let xml = build(report).to_string().map_err(io::Error::other)?;
    // see the module comment: the root's `skipped` is outside junit-10.xsd
    let xml = match xml.find("<testsuites ") {
        Some(at) => {
            let end = xml[at..].find('>').map_or(xml.len(), |e| at + e);
            let head = xml[at..end].replacen(" skipped=\"0\"", "", 1);
            format!("{}{}{}", &xml[..at], head, &xml[end..])
        }
        None => xml,
    };
    out.write_all(xml.as_bytes())
}

//! `--format gitlab`: a GitLab Code Quality report (the Code Climate issue subset GitLab reads),
//! attached with `artifacts: reports: codequality`.
//!
//! Each finding is `{description, check_name, fingerprint, severity, location: {path, lines:
//! {begin, end}}}`. GitLab uses the fingerprint to match findings between the source and target
//! branch of a merge request and hides findings that share one, so it must be unique and must not
//! change when lines move: see [`crate::fingerprint`]. Severity: error → `major`, warning →
//! `minor`, info → `info` (`critical`/`blocker` are left for tools that can tell a crash from a
//! bug).

use std::io::{self, Write};

use serde::Serialize;

use super::Report;
use crate::diag::Severity;
use crate::paths;

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Issue {
    description: String,
    check_name: String,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

pub fn write(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let fps = crate::fingerprint::fingerprints(report.diagnostics, report.root);
    let issues: Vec<Issue> = report
        .diagnostics
        .iter()
        .zip(fps)
        .map(|(d, fingerprint)| {
            let (start, end) = super::positions(&d.primary);
            Issue {
                description: format!("{} ({})", d.message, d.rule.code),
                check_name: d.rule.name.to_string(),
                fingerprint,
                severity: severity(d.severity),
                location: Location {
                    path: paths::report_path(&d.primary.file.path, report.root),
                    lines: Lines {
                        begin: start.line,
                        end: end.line,
                    },
                },
            }
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)
}

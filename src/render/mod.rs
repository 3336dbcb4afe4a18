//! Output formats: `full` and `concise` through codespan-reporting, `json` (the contract other
//! tools parse), and the CI formats, each in its own file: `sarif`, `github`, `gitlab`, `junit`,
//! `checkstyle`. Rendering happens once, on the main thread, over diagnostics already sorted.

pub mod checkstyle;
pub mod github;
pub mod gitlab;
pub mod junit;
pub mod sarif;

use std::io::{self, Write};
use std::sync::Arc;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};
use serde::Serialize;

use crate::diag::{Diagnostic, Label, Severity};
use crate::span::SourceFile;
use crate::suppress::{Suppressed, SuppressedBy};

/// Every output format `--format` (and the config file's `format`) accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Rich text with source snippets (codespan-reporting).
    Full,
    /// One line per diagnostic.
    Concise,
    /// The JSON contract: `{"diagnostics": [...], "summary": {...}}`.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
    /// JUnit XML.
    Junit,
    /// Checkstyle XML (reviewdog, Jenkins Warnings-NG).
    Checkstyle,
}

impl OutputFormat {
    /// The name as written on the command line and in the config file.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Full => "full",
            OutputFormat::Concise => "concise",
            OutputFormat::Json => "json",
            OutputFormat::Sarif => "sarif",
            OutputFormat::Github => "github",
            OutputFormat::Gitlab => "gitlab",
            OutputFormat::Junit => "junit",
            OutputFormat::Checkstyle => "checkstyle",
        }
    }

    pub fn all() -> &'static [OutputFormat] {
        &[
            OutputFormat::Full,
            OutputFormat::Concise,
            OutputFormat::Json,
            OutputFormat::Sarif,
            OutputFormat::Github,
            OutputFormat::Gitlab,
            OutputFormat::Junit,
            OutputFormat::Checkstyle,
        ]
    }

    pub fn from_name(s: &str) -> Option<OutputFormat> {
        OutputFormat::all().iter().copied().find(|f| f.name() == s)
    }

    /// Human formats go to a terminal; the others are reports for machines.
    pub fn is_human(self) -> bool {
        matches!(self, OutputFormat::Full | OutputFormat::Concise)
    }
}

/// Everything a renderer needs: the diagnostics to report (sorted), the suppressed ones to show
/// (empty unless `--show-suppressed`), the summary, the files checked, and the directory that
/// report paths are relative to.
pub struct Report<'a> {
    pub diagnostics: &'a [Diagnostic],
    pub suppressed: &'a [Suppressed],
    pub summary: &'a Summary,
    /// The files in the reporting scope, in path order.
    pub files: &'a [std::path::PathBuf],
    /// The repository root (see [`crate::paths::repo_root`]).
    pub root: &'a std::path::Path,
}

/// Writes a machine-readable report (every format but `full` and `concise`).
pub fn write_machine(format: OutputFormat, out: &mut dyn Write, report: &Report) -> io::Result<()> {
    match format {
        OutputFormat::Json => write_json_report(out, report),
        OutputFormat::Sarif => sarif::write(out, report),
        OutputFormat::Github => github::write(out, report),
        OutputFormat::Gitlab => gitlab::write(out, report),
        OutputFormat::Junit => junit::write(out, report),
        OutputFormat::Checkstyle => checkstyle::write(out, report),
        OutputFormat::Full | OutputFormat::Concise => {
            let mut w = termcolor::NoColor::new(out);
            write_human(&mut w, report, format == OutputFormat::Concise)
        }
    }
}

/// How a suppressed diagnostic is described in human and JSON output.
pub fn suppressed_note(s: &Suppressed) -> String {
    match &s.by {
        SuppressedBy::Inline {
            file, span, reason, ..
        } => {
            let lc = file.line_col(span.start as usize);
            let mut n = format!(
                "suppressed by `{}` at {}:{}",
                file.slice(*span).trim_end(),
                file.path.display(),
                lc.line
            );
            if let Some(r) = reason {
                n.push_str(&format!(" ({r})"));
            }
            n
        }
        SuppressedBy::Baseline => "suppressed by the baseline".to_string(),
    }
}

/// `full`/`concise` output of a report: the diagnostics and, when asked, the suppressed ones
/// marked as such (message prefixed with `suppressed:` and a note saying by what), in order.
pub fn write_human(
    out: &mut dyn termcolor::WriteColor,
    report: &Report,
    concise: bool,
) -> io::Result<()> {
    if report.suppressed.is_empty() {
        return write_codespan(out, report.diagnostics, concise);
    }
    let mut all: Vec<Diagnostic> = report.diagnostics.to_vec();
    for s in report.suppressed {
        let mut d = s.diagnostic.clone();
        d.message = format!("suppressed: {}", d.message);
        d.notes.push(suppressed_note(s));
        all.push(d);
    }
    crate::diag::sort_and_dedup(&mut all);
    write_codespan(out, &all, concise)
}

/// What the run looked at and found, for the summary line and the JSON `summary` object.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub files_checked: usize,
    pub fact_sets: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Diagnostics silenced by inline suppressions or a baseline.
    pub suppressed: usize,
}

impl Summary {
    pub fn count(&mut self, diags: &[Diagnostic]) {
        for d in diags {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
        }
    }
}

/// The files the diagnostics point into, for codespan.
struct FileDb {
    files: Vec<Arc<SourceFile>>,
}

impl FileDb {
    fn new(diags: &[Diagnostic]) -> FileDb {
        let mut files: Vec<Arc<SourceFile>> = Vec::new();
        for d in diags {
            for l in std::iter::once(&d.primary).chain(&d.secondary) {
                if !files.iter().any(|f| Arc::ptr_eq(f, &l.file)) {
                    files.push(l.file.clone());
                }
            }
        }
        FileDb { files }
    }

    fn id(&self, f: &Arc<SourceFile>) -> usize {
        self.files
            .iter()
            .position(|x| Arc::ptr_eq(x, f))
            .unwrap_or(0)
    }
}

impl<'a> Files<'a> for FileDb {
    type FileId = usize;
    type Name = String;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<String, FilesError> {
        let f = self.files.get(id).ok_or(FilesError::FileMissing)?;
        Ok(f.path.display().to_string())
    }

    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(self.files.get(id).ok_or(FilesError::FileMissing)?.text())
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, FilesError> {
        Ok(self
            .files
            .get(id)
            .ok_or(FilesError::FileMissing)?
            .line_index(byte_index))
    }

    fn line_range(
        &'a self,
        id: usize,
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, FilesError> {
        let f = self.files.get(id).ok_or(FilesError::FileMissing)?;
        if line_index >= f.line_count() {
            return Err(FilesError::LineTooLarge {
                given: line_index,
                max: f.line_count().saturating_sub(1),
            });
        }
        Ok(f.line_start(line_index)..f.line_start(line_index + 1))
    }
}

fn to_codespan(db: &FileDb, d: &Diagnostic) -> cs::Diagnostic<usize> {
    let severity = match d.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
        Severity::Info => cs::Severity::Note,
    };
    let clamp = |l: &Label| {
        let len = l.file.text().len();
        let s = (l.span.start as usize).min(len);
        let e = (l.span.end as usize).clamp(s, len);
        s..e
    };
    let mut labels = vec![
        cs::Label::primary(db.id(&d.primary.file), clamp(&d.primary))
            .with_message(d.primary.message.clone()),
    ];
    for l in &d.secondary {
        labels.push(cs::Label::secondary(db.id(&l.file), clamp(l)).with_message(l.message.clone()));
    }
    cs::Diagnostic::new(severity)
        .with_code(format!("{}/{}", d.rule.code, d.rule.name))
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

/// Renders `full` (rich) or `concise` (one line each) output.
pub fn write_codespan(
    out: &mut dyn termcolor::WriteColor,
    diags: &[Diagnostic],
    concise: bool,
) -> io::Result<()> {
    let db = FileDb::new(diags);
    let mut config = term::Config::default();
    if concise {
        config.display_style = term::DisplayStyle::Short;
    }
    let styles = term::Styles::default();
    for d in diags {
        let cd = to_codespan(&db, d);
        let mut w = term::StylesWriter::new(&mut *out, &styles);
        term::emit_to_write_style(&mut w, &config, &db, &cd).map_err(io::Error::other)?;
    }
    Ok(())
}

/// The plain (no colour) `full` rendering, for snapshot tests.
pub fn full_plain(diags: &[Diagnostic]) -> String {
    let mut buf = termcolor::NoColor::new(Vec::new());
    write_codespan(&mut buf, diags, false).expect("writing to memory");
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

/// One position of the JSON contract (1-based; columns in characters).
#[derive(Serialize)]
pub struct JsonLocation {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

impl JsonLocation {
    pub fn of(l: &Label) -> JsonLocation {
        let start = l.file.line_col(l.span.start as usize);
        let end = l.file.line_col(l.span.end as usize);
        JsonLocation {
            file: l.file.path.display().to_string(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
        }
    }
}

#[derive(Serialize)]
struct JsonLabel {
    #[serde(flatten)]
    location: JsonLocation,
    message: String,
}

#[derive(Serialize)]
struct JsonFix {
    title: String,
    replacement: String,
    #[serde(flatten)]
    location: JsonLocation,
}

#[derive(Serialize)]
struct JsonDiagnostic {
    rule: &'static str,
    code: &'static str,
    severity: &'static str,
    message: String,
    #[serde(flatten)]
    location: JsonLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    labels: Vec<JsonLabel>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix>,
    url: String,
    /// Present (with what silenced it) only for suppressed diagnostics shown by
    /// `--show-suppressed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    suppressed: Option<String>,
}

fn json_diag(d: &Diagnostic) -> JsonDiagnostic {
    json_diag_with(d, None)
}

fn json_diag_with(d: &Diagnostic, suppressed: Option<String>) -> JsonDiagnostic {
    JsonDiagnostic {
        rule: d.rule.name,
        code: d.rule.code,
        severity: d.severity.as_str(),
        message: d.message.clone(),
        location: JsonLocation::of(&d.primary),
        labels: d
            .secondary
            .iter()
            .map(|l| JsonLabel {
                location: JsonLocation::of(l),
                message: l.message.clone(),
            })
            .collect(),
        notes: d.notes.clone(),
        fix: d.fix.as_ref().map(|f| JsonFix {
            title: f.title.clone(),
            replacement: f.replacement.clone(),
            location: JsonLocation::of(&Label::new(&d.primary.file, f.span)),
        }),
        url: d.rule.url(),
        suppressed,
    }
}

/// `--format json`: one object `{"diagnostics": [...], "summary": {...}}`.
pub fn write_json(out: &mut dyn Write, diags: &[Diagnostic], summary: &Summary) -> io::Result<()> {
    #[derive(Serialize)]
    struct Report<'a> {
        diagnostics: Vec<JsonDiagnostic>,
        summary: &'a Summary,
    }
    let report = Report {
        diagnostics: diags.iter().map(json_diag).collect(),
        summary,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// `--format json` for a report: like [`write_json`], plus the suppressed diagnostics when
/// `--show-suppressed` asked for them (each with a `suppressed` field saying by what).
pub fn write_json_report(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    #[derive(Serialize)]
    struct Out<'a> {
        diagnostics: Vec<JsonDiagnostic>,
        summary: &'a Summary,
    }
    let mut items: Vec<(&Diagnostic, Option<String>)> =
        report.diagnostics.iter().map(|d| (d, None)).collect();
    for s in report.suppressed {
        items.push((&s.diagnostic, Some(suppressed_note(s))));
    }
    items.sort_by(|a, b| {
        (
            a.0.primary.file.path.as_path(),
            a.0.primary.span.start,
            a.0.rule.code,
        )
            .cmp(&(
                b.0.primary.file.path.as_path(),
                b.0.primary.span.start,
                b.0.rule.code,
            ))
    });
    let report = Out {
        diagnostics: items
            .into_iter()
            .map(|(d, s)| json_diag_with(d, s))
            .collect(),
        summary: report.summary,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// 1-based start and end (exclusive) positions of a label, columns in characters.
pub fn positions(l: &Label) -> (crate::span::LineCol, crate::span::LineCol) {
    (
        l.file.line_col(l.span.start as usize),
        l.file.line_col(l.span.end as usize),
    )
}

/// The closing line of human output.
pub fn summary_line(s: &Summary) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}, {} ({} checked",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.files_checked, "file"),
    );
    if s.fact_sets > 0 {
        line.push_str(&format!(" against {}", plural(s.fact_sets, "fact set")));
    }
    line.push(')');
    if s.infos > 0 {
        line.push_str(&format!(", {}", plural(s.infos, "note")));
    }
    if s.suppressed > 0 {
        line.push_str(&format!(", {} suppressed", s.suppressed));
    }
    line
}

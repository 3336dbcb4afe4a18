//! H001 `yaml-syntax-error`: a data file or hiera.yaml that does not parse.

use crate::diag::Diagnostic;
use crate::loader::{Format, LoadIssue, LoadIssueKind};
use crate::project::{LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};
use crate::span::Span;

crate::declare_rule!(pub static META = {
    code: "H001",
    name: "yaml-syntax-error",
    category: Correctness,
    summary: "YAML, JSON or HOCON that does not parse, or bytes that are not UTF-8",
    suppressible: false,
});

pub struct YamlSyntaxError;

impl Rule for YamlSyntaxError {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        check(file, sink);
    }

    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        check(file, sink);
    }
}

fn check(file: &LoadedFile, sink: &mut Sink) {
    let hiera_config = file.role == crate::project::FileRole::HieraConfig;
    for issue in &file.doc.issues {
        match issue.kind {
            LoadIssueKind::Syntax => sink.report(syntax(file, issue, hiera_config)),
            // libyaml's reader stops at the same byte (a Syntax issue with Psych's wording):
            // report it once.
            LoadIssueKind::Encoding
                if file.doc.issues.iter().any(|i| {
                    i.kind == LoadIssueKind::Syntax && i.span.start == issue.span.start
                }) => {}
            LoadIssueKind::Encoding => sink.report(
                Diagnostic::new(&META, &file.source, issue.span, issue.message.clone())
                    .primary_message("not UTF-8")
                    .note(consequence(hiera_config))
                    .note("Puppet reads data files as UTF-8: save the file as UTF-8"),
            ),
            // Psych raises a Ruby error while building a value (`Float()` rejecting `.e+3`, an
            // `!!omap` element that is not a mapping): Puppet reports it as
            // `Unable to parse <message>` and the whole file is lost, as for a syntax error.
            LoadIssueKind::RubyError => sink.report(
                Diagnostic::new(
                    &META,
                    &file.source,
                    issue.span,
                    format!(
                        "Psych cannot build this value: {}",
                        first_line(&issue.message)
                    ),
                )
                .note(consequence(hiera_config)),
            ),
            _ => {}
        }
    }
}

/// What Puppet does with a file that does not load (recorded: fixtures/conformance/yaml/
/// file-shapes-and-errors `fsyntax`, `ftab`, `funquoted`, `fbadutf`; config cases for hiera.yaml).
fn consequence(hiera_config: bool) -> &'static str {
    if hiera_config {
        "Puppet cannot load this hiera.yaml: every lookup in its layer fails"
    } else {
        "Puppet cannot load this file: every lookup that reads it fails with `Unable to parse`"
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The parser's message without the position the loader appends (the label shows it).
fn parser_message(m: &str) -> &str {
    match m.rfind(" at line ") {
        Some(i) if m[i..].contains(" column ") => &m[..i],
        _ => m,
    }
}

fn syntax(file: &LoadedFile, issue: &LoadIssue, hiera_config: bool) -> Diagnostic {
    let src = &file.source;
    let text = src.text();
    let mut span = tree::at_char(src, issue.span);
    let mut notes = Vec::new();
    if file.doc.format == Format::Yaml {
        // A key written `%{...}` at column 1 is read as a directive (`%YAML`, `%TAG`): Psych stops
        // there (`could not find expected directive name`), while saphyr stops later. Point at it.
        if let Some(at) = directive_like_interpolation(text, issue.span.start as usize) {
            span = Span::new(at, at + 1);
        }
        // A tab in the indentation: Psych stops at the tab, saphyr after it. Point at the tab.
        let line_start = src.line_start(src.line_index(span.start as usize));
        let indent = text
            .get(line_start..(span.start as usize).max(line_start))
            .unwrap_or("");
        if let Some(tab) = indent.find('\t').filter(|_| indent.trim().is_empty()) {
            span = Span::new(line_start + tab, line_start + tab + 1);
        }
        let here = text.get(span.start as usize..).unwrap_or("");
        let before = text
            .get(..span.start as usize)
            .and_then(|t| t.chars().next_back());
        match here.chars().next() {
            // In a flow collection `{` cannot be part of a plain scalar: `[a%{b}]` stops there.
            Some('{') if before == Some('%') => notes.push(
                "inside `[...]` or `{...}`, an unquoted value cannot contain `{`: quote values \
                 that contain `%{...}`, as in `['%{facts.role}']`"
                    .to_string(),
            ),
            Some('%') => notes.push(
                "a plain scalar cannot start with `%`: quote values and keys that contain \
                 `%{...}`, as in `'%{facts.role}'`"
                    .to_string(),
            ),
            Some('@' | '`') => notes.push(
                "`@` and `` ` `` are reserved in YAML and cannot start a plain scalar: quote the \
                 value"
                    .to_string(),
            ),
            Some('\t') => notes
                .push("YAML does not allow tabs for indentation: indent with spaces".to_string()),
            _ => {}
        }
        if crate::loader::yaml::bom_hides_marker(src) {
            notes.push(
                "the file starts with a byte order mark: Psych then no longer sees the `---` \
                 that follows it as the document start; remove the byte order mark"
                    .to_string(),
            );
        }
    }
    let mut d = Diagnostic::new(&META, src, span, parser_message(&issue.message).to_string())
        .note(consequence(hiera_config));
    if src.invalid_utf8_at == Some(span.start as usize) {
        d = d
            .primary_message("not UTF-8")
            .note("Puppet reads data files as UTF-8: save the file as UTF-8");
    }
    for n in notes {
        d = d.note(n);
    }
    d
}

/// The offset of a `%{` at the start of a line before `limit`, when the document has not started
/// with `%YAML`/`%TAG` directives there (those are real directives).
fn directive_like_interpolation(text: &str, limit: usize) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if offset > limit {
            break;
        }
        if line.starts_with("%{") {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

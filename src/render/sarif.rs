//! `--format sarif`: SARIF 2.1.0 through `serde-sarif`, for GitHub code scanning
//! (`github/codeql-action/upload-sarif`) and other SARIF viewers.
//!
//! - `tool.driver.rules` lists every rule (code as `id`, name, summary as `shortDescription`, the
//!   rule page as `fullDescription`/`help`, the page URL as `helpUri`, the category's severity
//!   as `defaultConfiguration.level`); results refer to them by `ruleId` and `ruleIndex`.
//! - Paths are repo-relative URIs with `uriBaseId: %SRCROOT%` (GitHub requires paths relative to
//!   the checkout), and `run.originalUriBaseIds` says where `%SRCROOT%` was on this machine.
//! - Regions are 1-based with columns in Unicode code points (`run.columnKind`), as the JSON
//!   contract counts them.
//! - Secondary labels become `relatedLocations`, fixes `fixes`, the content fingerprint
//!   `partialFingerprints["hieralint/v1"]`, and suppressed findings shown by `--show-suppressed`
//!   carry `suppressions` (`inSource` for directives, `external` for the baseline).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde_sarif::sarif;

use super::Report;
use crate::diag::{Diagnostic, Label, Severity};
use crate::paths;
use crate::rules::{self, RuleMeta};
use crate::suppress::{Suppressed, SuppressedBy};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";

fn level(s: Severity) -> sarif::ResultLevel {
    match s {
        Severity::Error => sarif::ResultLevel::Error,
        Severity::Warning => sarif::ResultLevel::Warning,
        Severity::Info => sarif::ResultLevel::Note,
    }
}

fn level_json(s: Severity) -> serde_json::Value {
    serde_json::to_value(level(s)).unwrap_or(serde_json::Value::Null)
}

/// Percent-encodes everything but RFC 3986 unreserved characters and `/`.
fn uri_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `file:///...` for an absolute path; a trailing `/` when `dir` (SARIF requires it for base ids).
fn file_uri(abs: &Path, dir: bool) -> String {
    let mut s = paths::slashed(abs);
    if !s.starts_with('/') {
        s.insert(0, '/');
    }
    if dir && !s.ends_with('/') {
        s.push('/');
    }
    format!("file://{}", uri_encode(&s))
}

fn artifact(path: &Path, root: &Path) -> sarif::ArtifactLocation {
    match paths::relative_to(path, root) {
        Some(rel) => sarif::ArtifactLocation::builder()
            .uri(uri_encode(&rel))
            .uri_base_id(SRCROOT)
            .build(),
        None => sarif::ArtifactLocation::builder()
            .uri(file_uri(&paths::identity(path), false))
            .build(),
    }
}

fn region(l: &Label) -> sarif::Region {
    let (start, end) = super::positions(l);
    sarif::Region::builder()
        .start_line(start.line as i64)
        .start_column(start.column as i64)
        .end_line(end.line as i64)
        .end_column(end.column as i64)
        .build()
}

fn location(l: &Label, root: &Path, id: Option<i64>) -> sarif::Location {
    let physical = sarif::PhysicalLocation::builder()
        .artifact_location(artifact(&l.file.path, root))
        .region(region(l))
        .build();
    let mut loc = sarif::Location::builder()
        .physical_location(physical)
        .build();
    if !l.message.is_empty() {
        loc.message = Some(sarif::Message::builder().text(l.message.clone()).build());
    }
    loc.id = id;
    loc
}

/// The page without its front matter (`---` ... `---`).
fn page_body(doc: &str) -> &str {
    if let Some(rest) = doc.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---\n") {
            return &rest[end + "\n---\n".len()..];
        }
    }
    doc
}

fn descriptor(m: &RuleMeta) -> sarif::ReportingDescriptor {
    let body = page_body(m.doc).to_string();
    let mut props = sarif::PropertyBag::builder().build();
    props.tags = Some(vec![m.category.as_str().to_string()]);
    sarif::ReportingDescriptor::builder()
        .id(m.code)
        .name(m.name)
        .short_description(
            sarif::MultiformatMessageString::builder()
                .text(m.summary)
                .build(),
        )
        .full_description(
            sarif::MultiformatMessageString::builder()
                .text(body.clone())
                .markdown(body.clone())
                .build(),
        )
        .help(
            sarif::MultiformatMessageString::builder()
                .text(body.clone())
                .markdown(body)
                .build(),
        )
        .help_uri(m.url())
        .default_configuration(
            sarif::ReportingConfiguration::builder()
                .level(level_json(m.category.default_severity()))
                .build(),
        )
        .properties(props)
        .build()
}

fn message_text(d: &Diagnostic) -> String {
    let mut text = d.message.clone();
    for n in &d.notes {
        text.push_str("\nnote: ");
        text.push_str(n);
    }
    text
}

fn fix(d: &Diagnostic, root: &Path) -> Option<Vec<sarif::Fix>> {
    let f = d.fix.as_ref()?;
    let label = Label::new(&d.primary.file, f.span);
    let replacement = sarif::Replacement::builder()
        .deleted_region(region(&label))
        .inserted_content(
            sarif::ArtifactContent::builder()
                .text(f.replacement.clone())
                .build(),
        )
        .build();
    let change = sarif::ArtifactChange::builder()
        .artifact_location(artifact(&d.primary.file.path, root))
        .replacements(vec![replacement])
        .build();
    Some(vec![sarif::Fix::builder()
        .artifact_changes(vec![change])
        .description(sarif::Message::builder().text(f.title.clone()).build())
        .build()])
}

fn suppression(s: &Suppressed, root: &Path) -> sarif::Suppression {
    match &s.by {
        SuppressedBy::Inline {
            file, span, reason, ..
        } => {
            let mut sup = sarif::Suppression::builder()
                .kind(serde_json::json!("inSource"))
                .location(location(&Label::new(file, *span), root, None))
                .build();
            sup.justification = reason.clone();
            sup
        }
        SuppressedBy::Baseline => sarif::Suppression::builder()
            .kind(serde_json::json!("external"))
            .justification("in the baseline")
            .build(),
    }
}

/// Builds the SARIF log of a report.
pub fn build(report: &Report) -> sarif::Sarif {
    let root = report.root;
    // every known rule, plus any rule a diagnostic names that the registry does not (test rules)
    let mut metas: Vec<&'static RuleMeta> = rules::all_meta();
    for d in report
        .diagnostics
        .iter()
        .chain(report.suppressed.iter().map(|s| &s.diagnostic))
    {
        if !metas.iter().any(|m| m.code == d.rule.code) {
            metas.push(d.rule);
        }
    }
    metas.sort_by_key(|m| m.code);
    let index_of = |code: &str| metas.iter().position(|m| m.code == code).map(|i| i as i64);

    let mut items: Vec<(&Diagnostic, Option<&Suppressed>)> =
        report.diagnostics.iter().map(|d| (d, None)).collect();
    items.extend(report.suppressed.iter().map(|s| (&s.diagnostic, Some(s))));
    items.sort_by(|a, b| a.0.sort_key().cmp(&b.0.sort_key()));
    let owned: Vec<Diagnostic> = items.iter().map(|(d, _)| (*d).clone()).collect();
    let fps = crate::fingerprint::fingerprints(&owned, root);

    let results: Vec<sarif::Result> = items
        .iter()
        .zip(fps)
        .map(|((d, sup), fp)| {
            let mut r = sarif::Result::builder()
                .message(sarif::Message::builder().text(message_text(d)).build())
                .rule_id(d.rule.code)
                .level(level(d.severity))
                .locations(vec![location(&d.primary, root, None)])
                .partial_fingerprints(BTreeMap::from([("hieralint/v1".to_string(), fp)]))
                .build();
            r.rule_index = index_of(d.rule.code);
            if !d.secondary.is_empty() {
                r.related_locations = Some(
                    d.secondary
                        .iter()
                        .enumerate()
                        .map(|(i, l)| location(l, root, Some(i as i64 + 1)))
                        .collect(),
                );
            }
            r.fixes = fix(d, root);
            if let Some(s) = sup {
                r.suppressions = Some(vec![suppression(s, root)]);
            }
            r
        })
        .collect();

    let driver = sarif::ToolComponent::builder()
        .name("hieralint")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri("https://github.com/hieralint/hieralint")
        .rules(metas.iter().map(|m| descriptor(m)).collect::<Vec<_>>())
        .build();
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .results(results)
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .original_uri_base_ids(BTreeMap::from([(
            SRCROOT.to_string(),
            sarif::ArtifactLocation::builder()
                .uri(file_uri(root, true))
                .build(),
        )]))
        .build();
    sarif::Sarif::builder()
        .schema(SCHEMA)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build()
}

pub fn write(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &build(report))?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded() {
        assert_eq!(uri_encode("data/a b%.yaml"), "data/a%20b%25.yaml");
        assert_eq!(file_uri(Path::new("/x y/z"), true), "file:///x%20y/z/");
    }

    #[test]
    fn front_matter_is_stripped() {
        assert_eq!(page_body("---\ncode: H1\n---\n# t\n"), "# t\n");
        assert_eq!(page_body("# t\n"), "# t\n");
    }
}

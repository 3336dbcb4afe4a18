//! H010 `multiple-yaml-documents`: a second YAML document in a data file, which Puppet ignores.

use crate::diag::Diagnostic;
use crate::loader::LoadIssueKind;
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H010",
    name: "multiple-yaml-documents",
    category: Correctness,
    summary: "a `---` that starts a second YAML document: Puppet reads only the first",
});

pub struct MultipleYamlDocuments;

impl Rule for MultipleYamlDocuments {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        check(file, sink);
    }

    /// hiera.yaml is read with the same `safe_load`: a second document is ignored there too.
    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        check(file, sink);
    }
}

fn check(file: &LoadedFile, sink: &mut Sink) {
    let src = &file.source;
    for issue in &file.doc.issues {
        if issue.kind != LoadIssueKind::ExtraDocument {
            continue;
        }
        // A `---` followed by nothing but comments and markers holds no data: nothing is lost.
        let rest = src.text().get(issue.span.end as usize..).unwrap_or("");
        if !holds_content(rest) {
            continue;
        }
        let what = if file.role == FileRole::HieraConfig {
            "this hiera.yaml"
        } else {
            "this data file"
        };
        if ends_without_marker(src.text(), issue) {
            // No `---`: the first document ended because this line cannot continue it (it is
            // left of where the data of line 1 began, or follows a complete flow collection).
            let mut d = Diagnostic::new(
                &META,
                src,
                issue.span,
                format!(
                    "the data Puppet reads from {what} ends before this line: it ignores the rest"
                ),
            )
            .primary_message("a second YAML document starts here");
            d = if src.had_bom {
                // libyaml counts the mark as a column (recorded:
                // fixtures/conformance/yaml/bom-shifts-line-one).
                d.note(
                    "the file starts with a byte order mark, which Psych counts as a column: line \
                     1 reads as indented one column more than it looks, so this less indented \
                     line ends the data",
                )
                .note("remove the byte order mark (save the file as UTF-8 without BOM)")
            } else {
                d.note(
                    "YAML ends a document where a line starts left of the data it began with \
                     (or after a complete flow collection), even without `---`; Puppet loads \
                     only the first document, so keys from here on are never found",
                )
                .note("indent the data alike, or move the rest to its own file")
            };
            sink.report(d);
            continue;
        }
        sink.report(
            Diagnostic::new(
                &META,
                src,
                issue.span,
                format!("second YAML document in {what}: Puppet ignores it"),
            )
            .primary_message("the second document starts here")
            .note(
                "Puppet loads only the first document of a file: keys after this `---` are \
                 never found",
            )
            .note("remove the `---` to make it one document, or move the data to its own file"),
        );
    }
}

/// Whether `issue` is where the first document ended without a `---` or `...` marker: libyaml
/// starts a document implicitly there (an empty span), or, when the line cannot start one
/// either, fails with `did not find expected <document start>`, which Psych never sees
/// (`Psych.parse` returns at the end of the first document).
fn ends_without_marker(text: &str, issue: &crate::loader::LoadIssue) -> bool {
    let at = text.get(issue.span.start as usize..).unwrap_or("");
    !(at.starts_with("---") || at.starts_with("..."))
        && (issue.span.is_empty() || issue.message.contains("expected <document start>"))
}

/// Whether YAML text holds anything but blank lines, comments, `---` and `...` markers.
fn holds_content(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim();
        !(t.is_empty() || t.starts_with('#') || t == "---" || t == "...")
    })
}

#[cfg(test)]
mod tests {
    use super::holds_content;

    #[test]
    fn markers_and_comments_hold_nothing() {
        assert!(!holds_content("\n# end\n...\n---\n"));
        assert!(holds_content("\nk: v\n"));
        assert!(holds_content(" x\n"));
    }
}

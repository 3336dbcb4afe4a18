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

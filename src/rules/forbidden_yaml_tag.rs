//! H009 `forbidden-yaml-tag`: a YAML tag that makes Psych's `safe_load` refuse the whole file.

use crate::diag::Diagnostic;
use crate::loader::LoadIssueKind;
use crate::project::{LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H009",
    name: "forbidden-yaml-tag",
    category: Correctness,
    summary: "a Ruby object, `!ruby/regexp`, `!!set`... tag: Puppet refuses to load the whole file",
});

pub struct ForbiddenYamlTag;

impl Rule for ForbiddenYamlTag {
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
    let src = &file.source;
    let scalars = match &file.doc.root {
        Some(root) => tree::scalars(root),
        None => Vec::new(),
    };
    for issue in &file.doc.issues {
        if issue.kind != LoadIssueKind::ForbiddenTag {
            continue;
        }
        // The loader's message is Psych's `Tried to load unspecified class: <Class>`; its span is
        // the tag (for a scalar whose class comes from the tag) or the tagged node.
        let class = issue
            .message
            .strip_prefix("Tried to load unspecified class: ")
            .unwrap_or(&issue.message);
        // A tagged scalar's issue spans its value: point at its tag instead.
        let span = tree::find_at(&scalars, issue.span)
            .and_then(|s| s.node.tag.as_ref())
            .map_or(issue.span, |t| t.span);
        let written = src.slice(span);
        let message = if written.starts_with('!') {
            format!("the tag `{written}` makes Psych build a `{class}`, which Puppet refuses")
        } else {
            format!("this value makes Psych build a `{class}`, which Puppet refuses")
        };
        sink.report(
            Diagnostic::new(&META, src, span, message)
                .note(format!(
                    "Puppet loads data with `safe_load`, which permits no class but Symbol: \
                     every lookup that reads this file fails with `Unable to parse (<path>): \
                     Tried to load unspecified class: {class}`"
                ))
                .note("write the value as plain data (a string, a list or a hash) without the tag"),
        );
    }
}

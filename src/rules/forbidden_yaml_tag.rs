//! H009 `forbidden-yaml-tag`: a YAML tag that makes Psych's `safe_load` refuse the whole file.

use crate::diag::{Diagnostic, Severity};
use crate::loader::LoadIssueKind;
use crate::project::{LoadedFile, Project};
use crate::rules::reach::Reach;
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

    fn check_data_file<'a>(&self, project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        if !has_forbidden_tag(file) {
            return;
        }
        // Only Puppet's YAML readers (yaml_data, eyaml_lookup_key: Psych's safe_load) refuse the
        // tag. When hieralint cannot see what reads the file (a custom backend's datadir, or
        // `hieradata/` read by a global hiera.yaml, as wikimedia/operations-puppet's
        // `regex.yaml` is read by `wmflib::regex_data`, which permits Regexp), the claim is
        // conditional: a warning that says so.
        let certain = !matches!(*sink.reach(project, file), Reach::OtherReader);
        check(file, certain, sink);
    }

    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        if has_forbidden_tag(file) {
            check(file, true, sink);
        }
    }
}

fn has_forbidden_tag(file: &LoadedFile) -> bool {
    file.doc.has_issue(|k| *k == LoadIssueKind::ForbiddenTag)
}

fn check(file: &LoadedFile, certain: bool, sink: &mut Sink) {
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
            .and_then(|s| s.node.tag())
            .map_or(issue.span, |t| t.span);
        let written = src.slice(span);
        let message = if written.starts_with('!') {
            format!("the tag `{written}` makes Psych build a `{class}`, which Puppet refuses")
        } else {
            format!("this value makes Psych build a `{class}`, which Puppet refuses")
        };
        let mut d = Diagnostic::new(&META, src, span, message)
            .note(format!(
                "Puppet loads data with `safe_load`, which permits no class but Symbol: \
                 every lookup that reads this file fails with `Unable to parse (<path>): \
                 Tried to load unspecified class: {class}`"
            ))
            .note("write the value as plain data (a string, a list or a hash) without the tag");
        if !certain {
            d = d.with_severity(Severity::Warning).note(
                "no hiera.yaml hieralint can see says what reads this file: this holds if \
                 Puppet's YAML backend (yaml_data, eyaml_lookup_key) reads it, not if a custom \
                 backend that permits the class does",
            );
        }
        sink.report(d);
    }
}

//! H002 `duplicate-key`: a key written twice in one mapping.

use crate::diag::Diagnostic;
use crate::loader::LoadIssueKind;
use crate::project::{LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};
use crate::value::{Node, Value};

crate::declare_rule!(pub static META = {
    code: "H002",
    name: "duplicate-key",
    category: Correctness,
    summary: "a key repeated in one mapping: Puppet silently keeps the last value",
});

pub struct DuplicateKey;

impl Rule for DuplicateKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        check(file, sink);
    }

    fn check_hiera_config<'a>(
        &self,
        _project: &Project,
        file: &'a LoadedFile,
        sink: &mut Sink<'a>,
    ) {
        check(file, sink);
    }
}

fn check<'a>(file: &'a LoadedFile, sink: &mut Sink<'a>) {
    // The loader found the duplicates; the keys are listed (from the file rules' shared list)
    // only for a file that has one.
    if !file
        .doc
        .has_issue(|k| matches!(k, LoadIssueKind::DuplicateKey { .. }))
    {
        return;
    }
    let src = &file.source;
    let keys: Vec<tree::ScalarAt<'_>> = match &file.doc.root {
        Some(root) => sink
            .scalars(root)
            .iter()
            .filter(|s| s.is_key)
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    for issue in &file.doc.issues {
        let LoadIssueKind::DuplicateKey { first } = issue.kind else {
            continue;
        };
        let written = src.slice(issue.span);
        let first_written = src.slice(first);
        let key_node = tree::find_at(&keys, issue.span).map(|k| k.node);
        let loaded = key_node.map(Node::to_value);
        let name = match &loaded {
            Some(Value::String(s)) => s.to_string(),
            _ => written.to_string(),
        };
        let mut d = Diagnostic::new(&META, src, issue.span, format!("duplicate key `{name}`"))
            .primary_message("duplicated here")
            .label(src, first, "first defined here")
            .note(
                "Psych keeps only the last value, at the first key's position; Puppet never \
                 sees the first one and does not warn",
            );
        if written != first_written {
            let what = match &loaded {
                Some(Value::String(s)) => format!("the String `{s}`"),
                Some(v) => format!("{} `{}`", v.type_name(), v.to_ruby_s()),
                None => format!("`{name}`"),
            };
            d = d.note(format!(
                "`{first_written}` and `{written}` are the same key once loaded: {what}"
            ));
        }
        sink.report(d);
    }
}

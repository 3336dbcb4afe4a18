//! H004 `unquoted-date`: a plain scalar that Psych loads as a Date or Time.

use crate::diag::{Diagnostic, Fix};
use crate::loader::LoadIssueKind;
use crate::project::{LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H004",
    name: "unquoted-date",
    category: Correctness,
    summary: "an unquoted date or timestamp: Psych makes it a Date/Time and Puppet rejects the whole file",
});

pub struct UnquotedDate;

impl Rule for UnquotedDate {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        check(file, sink);
    }

    /// hiera.yaml is read with the same `safe_load`, so a date there fails the configuration.
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
    // Only a file where the loader met a date lists its scalars (from the shared list).
    if !file.doc.has_issue(|k| *k == LoadIssueKind::DateTime) {
        return;
    }
    let src = &file.source;
    let scalars = match &file.doc.root {
        Some(root) => sink.scalars(root).into_owned(),
        None => Vec::new(),
    };
    for issue in &file.doc.issues {
        if issue.kind != LoadIssueKind::DateTime {
            continue;
        }
        // The loader's message is Psych's: `Tried to load unspecified class: Date` (or Time).
        let class = issue
            .message
            .rsplit(": ")
            .next()
            .filter(|c| matches!(*c, "Date" | "Time" | "DateTime"))
            .unwrap_or("Date");
        let at = tree::find_at(&scalars, issue.span);
        let written = src.slice(issue.span);
        let mut d = Diagnostic::new(
            &META,
            src,
            issue.span,
            format!("`{written}` is read as a {class}, which Puppet refuses to load"),
        )
        .note(format!(
            "Puppet fails every lookup that reads this file with `Unable to parse (<path>): \
             Tried to load unspecified class: {class}`"
        ));
        // Quoting keeps the text and makes it a String; a tagged scalar (`!!timestamp`) stays a
        // Date even when quoted, so only a plain, untagged, one-line scalar gets the fix.
        match at.and_then(|a| tree::single_line_plain(src, a)) {
            Some(text) => {
                let quoted = tree::quote(text);
                d = d
                    .note(format!(
                        "quote it to keep it as the string `{text}`: {quoted}"
                    ))
                    .with_fix(Fix {
                        span: issue.span,
                        replacement: quoted,
                        title: "quote the date".into(),
                    });
            }
            None if at.is_some_and(|a| a.node.tag().is_some()) => {
                d = d.note("remove the tag and quote the value to keep it as a string");
            }
            None => {
                d = d.note("quote it to keep it as a string");
            }
        }
        sink.report(d);
    }
}

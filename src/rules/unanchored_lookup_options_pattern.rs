//! H404 `unanchored-lookup-options-pattern`: a lookup_options key written like a regex but
//! without the leading `^` that makes Puppet read it as one.

use crate::diag::Diagnostic;
use crate::project::{LoadedFile, Project};
use crate::rules::{lopts, Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H404",
    name: "unanchored-lookup-options-pattern",
    category: Suspicious,
    summary: "a lookup_options key with regex characters but no leading `^`: Puppet matches it literally",
});

pub struct UnanchoredLookupOptionsPattern;

impl Rule for UnanchoredLookupOptionsPattern {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_lookup_options(&self) -> bool {
        true
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        for e in lopts::entries(file) {
            let Some(key) = lopts::key_text(&e.key) else {
                continue;
            };
            if key.starts_with('^') {
                continue;
            }
            let meta = lopts::regex_metacharacters(key);
            if meta.is_empty() {
                continue;
            }
            let shown: Vec<String> = meta.iter().map(|c| format!("`{c}`")).collect();
            let trimmed = key.trim_start();
            let help = if trimmed.starts_with('^') {
                format!("help: remove what comes before the `^`: `{trimmed}`")
            } else {
                format!("help: if it is meant as a pattern, start it with `^`: `^{key}`")
            };
            sink.report(
                Diagnostic::new(
                    &META,
                    &file.source,
                    e.key.span,
                    format!(
                        "lookup_options key `{key}` looks like a regex but is matched literally"
                    ),
                )
                .primary_message(format!("{} but no leading `^`", shown.join(", ")))
                .note(
                    "Puppet treats a lookup_options key as a pattern only when it starts with \
                     `^`; any other key must equal the looked-up key exactly, and no Puppet key \
                     contains these characters (reference §3.3; recorded: \
                     fixtures/conformance/lopts/matching-and-priority)",
                )
                .note(help),
            );
        }
    }
}

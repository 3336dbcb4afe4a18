//! H403 `invalid-lookup-options-regex`: a lookup_options pattern (a key starting with `^`) that
//! Ruby cannot compile, which makes every lookup of the layer fail.

use crate::diag::Diagnostic;
use crate::engine::ruby::ruby_regex;
use crate::project::{LoadedFile, Project};
use crate::rules::{lopts, Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H403",
    name: "invalid-lookup-options-regex",
    category: Correctness,
    summary: "a lookup_options pattern that is not a valid Ruby regex: every lookup of its layer fails",
});

pub struct InvalidLookupOptionsRegex;

impl Rule for InvalidLookupOptionsRegex {
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
            if !key.starts_with('^') {
                continue;
            }
            // The engine's compiler (Onigmo's syntax and messages, cached: the engine reuses
            // the result when it assembles lookup_options).
            let Err(err) = ruby_regex(key) else {
                continue;
            };
            let reason = err
                .message
                .strip_suffix(&format!(": /{key}/"))
                .unwrap_or(&err.message)
                .to_string();
            let blast = match file.module_name() {
                Some(m) => format!("every lookup of a `{m}::` key"),
                None => "every lookup, of any key,".to_string(),
            };
            sink.report(
                Diagnostic::new(
                    &META,
                    &file.source,
                    e.key.span,
                    format!("lookup_options pattern is not a valid Ruby regex: {reason}"),
                )
                .primary_message(reason.clone())
                .note(format!(
                    "a lookup_options key starting with `^` is compiled with Ruby's \
                     `Regexp.compile`; Puppet compiles all patterns of the layer when it first \
                     needs options, so {blast} whose hierarchy reads this file fails, keys with \
                     options of their own included: `RegexpError: {}` (reference §3.3; recorded: \
                     fixtures/conformance/lopts/invalid-regex-pattern, \
                     fixtures/conformance/lopts/invalid-lookbehind)",
                    err.message
                )),
            );
        }
    }
}

//! H401 `lookup-options-outside-namespace`: a module's lookup_options key or pattern outside the
//! module's namespace, which makes every lookup of the module's keys fail.

use crate::diag::Diagnostic;
use crate::engine::lookup::module_lookup_options_key_error;
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{lopts, Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H401",
    name: "lookup-options-outside-namespace",
    category: Correctness,
    summary: "module lookup_options for a key or pattern outside the module: every lookup of the module's keys fails",
});

pub struct LookupOptionsOutsideNamespace;

impl Rule for LookupOptionsOutsideNamespace {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_lookup_options(&self) -> bool {
        true
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        if file.role != FileRole::Data {
            return;
        }
        let Some(m) = file.module_name() else {
            return;
        };
        let src = &file.source;
        for e in lopts::entries(file) {
            // Non-String keys crash the check differently; H405 reports them.
            let Some(key) = lopts::key_text(&e.key) else {
                continue;
            };
            let Some(err) = module_lookup_options_key_error(m, key) else {
                continue;
            };
            let pattern = key.starts_with('^');
            let (message, label) = if pattern {
                (
                    format!("lookup_options pattern `{key}` is not limited to module `{m}`"),
                    format!("does not start with `^{m}::`"),
                )
            } else {
                (
                    format!("lookup_options key `{key}` is outside module `{m}`"),
                    format!("does not start with `{m}::`"),
                )
            };
            let mut d = Diagnostic::new(&META, src, e.key.span, message)
                .primary_message(label)
                .note(format!(
                    "Puppet fails every lookup of a `{m}::` key whose hierarchy reads this \
                     file, before looking at any data: `{}` (reference §2.5; recorded: \
                     fixtures/conformance/module/lookup-options-namespace)",
                    err.message
                ));
            if pattern {
                d = d.note(format!(
                    "Puppet does not read the regex: it compares the text right after `^` with \
                     `{m}::`, so `^({m})::x` and `^{m}\\:\\:x` are refused too"
                ));
                if let Some(fixed) = rewritten(m, key) {
                    d = d.note(format!("help: write the pattern as `{fixed}`"));
                } else {
                    d = d.note(format!(
                        "help: start the pattern with `^{m}::`, or set options for keys \
                         outside the module in the environment's data"
                    ));
                }
            } else {
                d = d.note(
                    "help: a module sets options only for its own keys; set options for other \
                     keys in the environment's data (data/common.yaml), which applies to every \
                     key",
                );
            }
            sink.report(d);
        }
    }
}

/// The pattern with its module prefix written plainly, when the only problem is how the
/// prefix is spelt (`^(ntp)::x`, `^ntp\:\:x`, `^(?:ntp)::x`).
fn rewritten(m: &str, key: &str) -> Option<String> {
    let body = key.strip_prefix('^')?;
    for prefix in [
        format!("({m})::"),
        format!("(?:{m})::"),
        format!("{m}\\:\\:"),
        format!("({m}::)"),
    ] {
        if let Some(rest) = body.strip_prefix(&prefix) {
            return Some(format!("^{m}::{rest}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_spelt_prefixes() {
        assert_eq!(rewritten("ntp", "^(ntp)::x").as_deref(), Some("^ntp::x"));
        assert_eq!(rewritten("ntp", "^ntp\\:\\:x").as_deref(), Some("^ntp::x"));
        assert_eq!(rewritten("ntp", "^.*_a"), None);
    }
}

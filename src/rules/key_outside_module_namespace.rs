//! H402 `key-outside-module-namespace`: a top-level key of module data that does not start with
//! the module's name, which Puppet never looks up there (and a non-String key, which crashes
//! Puppet's check).

use crate::diag::{Diagnostic, Severity};
use crate::engine::lookup::no_method;
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{lopts, reach, Rule, RuleMeta, Sink};
use crate::value::Value;

crate::declare_rule!(pub static META = {
    code: "H402",
    name: "key-outside-module-namespace",
    category: Suspicious,
    summary: "a module data key outside the module's namespace: Puppet ignores it (a non-String key crashes the lookup)",
});

pub struct KeyOutsideModuleNamespace;

impl Rule for KeyOutsideModuleNamespace {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file<'a>(&self, project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        if file.role != FileRole::Data || file.doc.fatal_issue().is_some() {
            return;
        }
        let Some(m) = file.module_name() else {
            return;
        };
        let Some(map) = file.doc.root.as_ref().and_then(|r| r.as_map()) else {
            return;
        };
        // A file no hierarchy level reads is not Hiera data (a module without hiera.yaml keeps
        // `data/` for its own code, as wikimedia's `admin` module does): unreachable-data-file
        // says so once, and its keys are nobody's business here.
        let reach = sink.reach(project, file);
        if matches!(*reach, reach::Reach::Unreachable(_)) {
            return;
        }
        let prefix = format!("{m}::");
        let by_data_hash = reach.read_by_data_hash();
        let src = &file.source;
        for e in lopts::effective_entries(map) {
            let key = e.key.to_value();
            match &key {
                // Psych's Symbol keys behave as their names here (recorded:
                // module/nonstring-top-level-key, `:symkey::k` is found).
                Value::String(k) | Value::Symbol(k) => {
                    if &**k == lopts::LOOKUP_OPTIONS || k.starts_with(&prefix) {
                        continue;
                    }
                    sink.report(outside(file, e.key.span, m, k));
                }
                other => {
                    let crashes = by_data_hash;
                    let written = src.slice(e.key.span);
                    let mut d = Diagnostic::new(
                        &META,
                        src,
                        e.key.span,
                        format!(
                            "{} key `{written}` in the data of module `{m}`",
                            match other {
                                Value::Undef => "null",
                                other => other.type_name(),
                            }
                        ),
                    );
                    if crashes {
                        let err = no_method(
                            "start_with?",
                            other,
                            "      next memo if k == LOOKUP_OPTIONS || k.start_with?(module_prefix)",
                        );
                        let first = err.message.lines().next().unwrap_or_default().to_string();
                        d = d
                            .with_severity(Severity::Error)
                            .primary_message("not a String: Puppet's namespace check crashes on it")
                            .note(format!(
                                "Puppet checks that every key of module data starts with \
                                 `{prefix}` by calling `start_with?` on it, so every lookup of a \
                                 `{prefix}` key whose hierarchy reads this file fails with \
                                 NoMethodError: {first} (reference §2.4; recorded: \
                                 fixtures/conformance/module/nonstring-top-level-key)"
                            ));
                    } else {
                        d = d.primary_message("never looked up").note(format!(
                            "only String keys starting with `{prefix}` are looked up in module \
                             `{m}` (reference §2.3)"
                        ));
                    }
                    sink.report(d.note(format!(
                        "help: quote the key and qualify it: `'{prefix}{written}'`"
                    )));
                }
            }
        }
    }
}

fn outside(file: &LoadedFile, span: crate::span::Span, m: &str, k: &str) -> Diagnostic {
    let prefix = format!("{m}::");
    let mut d = Diagnostic::new(
        &META,
        &file.source,
        span,
        format!("key `{k}` is outside module `{m}`'s namespace"),
    )
    .primary_message(format!("Puppet never looks this up in module `{m}`"))
    .note(format!(
        "Puppet looks a key up in a module's data only when the key starts with `{prefix}` \
         (reference §2.3); Puppet 7 logs `Module '{m}': Value returned from data_hash function \
         ..., must use keys qualified with the name of the module` on every lookup that reads \
         this file, and Puppet 8 also drops the key (§2.4; recorded: \
         fixtures/conformance/module/routing-and-namespace)"
    ));
    let single = format!("{m}:");
    let help = if let Some(rest) = k.strip_prefix("::") {
        format!("help: drop the leading `::`: `{rest}`")
    } else if let Some(rest) = k.strip_prefix(&single).filter(|r| !r.starts_with(':')) {
        format!("help: one colon is missing: `{prefix}{rest}`")
    } else if let Some(rest) = k
        .get(..prefix.len())
        .filter(|p| p.eq_ignore_ascii_case(&prefix))
        .and_then(|_| k.get(prefix.len()..))
    {
        format!("help: module names are case-sensitive: `{prefix}{rest}`")
    } else if let Some((other, _)) = k.split_once("::") {
        format!(
            "help: `{other}::` keys are looked up in module `{other}`'s data and in the \
             environment's data; move it there, or qualify it with `{prefix}`"
        )
    } else {
        format!(
            "help: qualify it with the module's name (`{prefix}{k}`), or move it to the \
             environment's data"
        )
    };
    d = d.note(help);
    d
}

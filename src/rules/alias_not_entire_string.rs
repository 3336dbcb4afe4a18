//! H203 `alias-not-entire-string`: `%{alias('k')}` with other text in the same string.

use crate::diag::Diagnostic;
use crate::interp::Method;
use crate::project::{LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H203",
    name: "alias-not-entire-string",
    category: Correctness,
    summary: "an `alias` interpolation that is not the whole string",
});

pub struct AliasNotEntireString;

impl Rule for AliasNotEntireString {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_interpolations(&self) -> bool {
        true
    }

    // hiera.yaml allows no methods at all (H102).
    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        for site in sink.data_sites(file).iter() {
            if site.copied {
                continue;
            }
            for t in site.tokens() {
                if t.method() != Some(Method::Alias) {
                    continue;
                }
                // Puppet compares the string after YAML parsing with the matched token: spaces
                // inside the braces belong to the token, anything outside does not (§5.3).
                if t.range.start == 0 && t.range.end == site.value.len() {
                    continue;
                }
                let key = t.lookup_key().unwrap_or_default();
                let span = site.span_of(&file.source, t.range.clone());
                let text = &site.value[t.range.clone()];
                let only_space = site.value[..t.range.start].trim().is_empty()
                    && site.value[t.range.end..].trim().is_empty();
                let mut d = Diagnostic::new(
                    &META,
                    &file.source,
                    span,
                    format!("`{text}` must be the entire string, but the string has other text"),
                )
                .note("every lookup of this key fails")
                .note("Puppet says: 'alias' interpolation is only permitted if the expression is equal to the entire string")
                .note(format!(
                    "help: use `%{{lookup('{key}')}}` to insert the value as text, or make `%{{alias('{key}')}}` the whole value to keep its type"
                ));
                if only_space {
                    d = d.note("the other text is white space outside the braces (a `|` or `>` block keeps its final line break unless written `|-` or `>-`)");
                }
                sink.report(d);
            }
        }
    }
}

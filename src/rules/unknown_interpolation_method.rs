//! H202 `unknown-interpolation-method`: `%{lokup('x')}` and other method names Puppet does not know.

use crate::diag::Diagnostic;
use crate::interp::{Method, TokenKind};
use crate::project::{LoadedFile, Project};
use crate::rules::interp_sites::edit_distance;
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H202",
    name: "unknown-interpolation-method",
    category: Correctness,
    summary: "a `%{name('arg')}` token whose method is not lookup, hiera, alias, scope or literal",
});

pub struct UnknownInterpolationMethod;

const METHODS: [Method; 5] = [
    Method::Lookup,
    Method::Hiera,
    Method::Alias,
    Method::Scope,
    Method::Literal,
];

/// The known method closest to `name` (case-insensitively, within two edits), if any.
fn closest(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    METHODS
        .iter()
        .map(|m| (edit_distance(&lower, m.name()), m.name()))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, n)| n)
}

impl Rule for UnknownInterpolationMethod {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_interpolations(&self) -> bool {
        true
    }

    // hiera.yaml allows no methods at all: `interpolation-method-in-hiera-config` (H102)
    // reports every method call there, known or not (Puppet raises the method-syntax error
    // before it looks at the name).
    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        for site in sink.data_sites(file).iter() {
            if site.copied {
                continue;
            }
            for t in site.tokens() {
                let TokenKind::UnknownMethod { name, arg, .. } = &t.kind else {
                    continue;
                };
                let span = site.span_of(&file.source, t.range.clone());
                let mut d = Diagnostic::new(
                    &META,
                    &file.source,
                    span,
                    format!("unknown interpolation method `{name}`"),
                )
                .note("every lookup of this key fails")
                .note(format!(
                    "Puppet says: Unknown interpolation method '{name}'"
                ));
                d = match closest(name) {
                    Some(m) if m.eq_ignore_ascii_case(name) => d.note(format!(
                        "help: method names are case-sensitive: `%{{{m}('{arg}')}}`"
                    )),
                    Some(m) => d.note(format!("help: did you mean `%{{{m}('{arg}')}}`?")),
                    None => d.note(
                        "help: the methods are `lookup`, `hiera`, `alias`, `scope` and `literal`",
                    ),
                };
                sink.report(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(closest("lokup"), Some("lookup"));
        assert_eq!(closest("Lookup"), Some("lookup"));
        assert_eq!(closest("alais"), Some("alias"));
        assert_eq!(closest("heira"), Some("hiera"));
        assert_eq!(closest("scop"), Some("scope"));
        assert_eq!(closest("what"), None);
    }
}

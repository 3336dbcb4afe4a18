//! H407 `module-not-loaded`: a module with Hiera data whose `metadata.json` makes Puppet leave
//! the module out of the environment, so that none of its data is ever read.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::engine::{metadata_problem, MetadataProblem, PuppetVersion};
use crate::loader::Format;
use crate::project::{FileRole, Layer, Project};
use crate::rules::{Rule, RuleMeta, Sink};
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind};

crate::declare_rule!(pub static META = {
    code: "H407",
    name: "module-not-loaded",
    category: Correctness,
    summary: "a module whose metadata.json Puppet refuses (no `author`, `license`, `source` or `version`, `dependencies` not an array): Puppet does not load it, so its Hiera data is never read",
});

pub struct ModuleNotLoaded;

impl Rule for ModuleNotLoaded {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// A project rule: the finding is about `metadata.json`, which is not one of the files the
    /// scan loads, and about the module's `hiera.yaml` beside it.
    fn check_project(&self, project: &Project, sink: &mut Sink) {
        // Puppet 8 (strict = error) also refuses a metadata.json that does not parse; Puppet 7
        // logs it and loads the module (the engine decides alike: `Engine::module_info`).
        let strict_error = project.puppet != Some(PuppetVersion::V7);
        let mut seen: BTreeSet<&std::path::Path> = BTreeSet::new();
        for f in &project.files {
            // Only modules with a Hiera layer: without a hiera.yaml the module has no data
            // for Hiera to miss.
            let (FileRole::HieraConfig, Layer::Module(name)) = (&f.role, &f.layer) else {
                continue;
            };
            let Some(dir) = f.source.path.parent() else {
                continue;
            };
            if !seen.insert(dir) {
                continue;
            }
            let path = dir.join("metadata.json");
            let Ok(bytes) = crate::paths::read_regular(&path, project.limits.max_file_bytes) else {
                continue;
            };
            let src = Arc::new(SourceFile::from_bytes(&path, &bytes));
            let Some(problem) = metadata_problem(Some(src.text()), strict_error) else {
                continue;
            };
            sink.report(diagnostic(&src, name, &problem));
        }
    }
}

/// The finding for module `name` whose `metadata.json` is `src`: at the JSON parser's error,
/// the first null or non-Array value, or the opening brace of an object that lacks a key.
fn diagnostic(src: &Arc<SourceFile>, name: &str, problem: &MetadataProblem) -> Diagnostic {
    let doc = crate::loader::load(Format::Json, src);
    let root = doc.root.as_ref();
    let value_of = |key: &str| -> Option<&Node> {
        let NodeKind::Map(m) = &root?.kind else {
            return None;
        };
        m.entries
            .iter()
            .rev()
            .find(|e| e.key.as_str() == Some(key))
            .map(|e| &e.value)
    };
    let brace = root.map_or(Span::empty(0), |r| {
        Span::new(r.span.start as usize, r.span.start as usize + 1)
    });
    let consequence = format!(
        "the environment leaves the module out, so Puppet never reads its hiera.yaml or data: \
         lookups of `{name}::` keys fall through to the global and environment layers, or are \
         not found (recorded: fixtures/conformance/module/metadata-completeness)"
    );
    match problem {
        MetadataProblem::Unparsable => {
            let span = doc.issues.first().map_or(brace, |i| i.span);
            Diagnostic::new(
                &META,
                src,
                span,
                format!("Puppet 8 does not load module `{name}`: its metadata.json does not parse"),
            )
            .primary_message("not valid JSON")
            .note(format!(
                "with strict = error (Puppet 8's default) `Puppet::Module#read_metadata` raises: {consequence}"
            ))
            .note("Puppet 7 logs the error and loads the module anyway")
        }
        MetadataProblem::Missing(attrs) => {
            let listed = list(attrs);
            // A null value is shown where it is; a missing key at the object's brace.
            let null = attrs.iter().find_map(|a| value_of(a).map(|v| (a, v.span)));
            let (span, label) = match null {
                Some((a, span)) => (span, format!("`{a}` is null")),
                None => (brace, format!("no {listed} in this object")),
            };
            let first = attrs[0];
            Diagnostic::new(
                &META,
                src,
                span,
                format!("Puppet does not load module `{name}`: its metadata.json has no {listed}"),
            )
            .primary_message(label)
            .note(format!(
                "`Puppet::Module#load_metadata` requires `source`, `author`, `version`, \
                 `license` and `dependencies` (not null) in a non-empty metadata.json, and \
                 raises `No {first} module metadata provided for {name}`: {consequence}"
            ))
            .note(format!(
                "add {listed} (`dependencies` is an array, `[]` for none), or make the file an \
                 empty object `{{}}`"
            ))
        }
        MetadataProblem::DependenciesNotArray => {
            let span = value_of("dependencies").map_or(brace, |v| v.span);
            Diagnostic::new(
                &META,
                src,
                span,
                format!(
                    "Puppet does not load module `{name}`: the `dependencies` of its \
                     metadata.json is not an array"
                ),
            )
            .primary_message("not an array")
            .note(format!(
                "`Puppet::Module#load_metadata` raises `The value for the key dependencies in \
                 the file metadata.json of the module {name} must be an array`: {consequence}"
            ))
            .note("write `\"dependencies\": []` when the module has none")
        }
    }
}

/// `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``.
fn list(attrs: &[&str]) -> String {
    let quoted: Vec<String> = attrs.iter().map(|a| format!("`{a}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::list;

    #[test]
    fn lists_read_as_english() {
        assert_eq!(list(&["a"]), "`a`");
        assert_eq!(list(&["a", "b"]), "`a` and `b`");
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` and `c`");
    }
}

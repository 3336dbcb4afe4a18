//! H013 `empty-data-file`: a YAML data file that holds no data at all.

use crate::diag::Diagnostic;
use crate::loader::Format;
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};
use crate::span::Span;
use crate::value::Value;

crate::declare_rule!(pub static META = {
    code: "H013",
    name: "empty-data-file",
    category: Info,
    summary: "a YAML data file with no data (empty, only comments, `---`, `~` or `false`): Puppet warns each time it reads it",
});

pub struct EmptyDataFile;

impl Rule for EmptyDataFile {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        if !matches!(file.role, FileRole::Data | FileRole::Loose) || file.doc.format != Format::Yaml
        {
            return;
        }
        // A file that does not load at all is reported by the rule for its failure.
        if file.doc.fatal_issue().is_some() {
            return;
        }
        // Psych gives nil for an empty file (or only comments, or `---`) and for `~`; yaml_data
        // turns nil into false and warns `<path>: file does not contain a valid yaml hash` for
        // false on every Puppet version and strict mode, reading `{}` (reference §6.1; recorded:
        // conformance/yaml/file-shapes-and-errors `fempty`, `fdashes`, `fcomment`, `ftilde`,
        // `ffalsedoc`). Other non-hash documents are non-hash-data-file (H003). An empty HOCON
        // file is `{}` without a warning; an empty JSON file does not parse (H001).
        let markers_only = || {
            let message = if file.source.text().trim().is_empty() {
                "this data file is empty"
            } else {
                "this data file holds no data: only comments or document markers"
            };
            (message, Span::empty(0))
        };
        let (message, span) = match &file.doc.root {
            None => markers_only(),
            // `---` with nothing after it: an empty plain scalar (nil), written nowhere
            Some(root) if root.span.is_empty() => markers_only(),
            Some(root) => match root.as_scalar().map(|s| &s.value) {
                Some(Value::Undef) => (
                    "this data file holds no data: its document is `~` (nil)",
                    root.span,
                ),
                Some(Value::Bool(false)) => (
                    "this data file holds no data: its document is `false`",
                    root.span,
                ),
                _ => return,
            },
        };
        sink.report(
            Diagnostic::new(&META, &file.source, span, message)
                .note(format!(
                    "Puppet logs `{}: file does not contain a valid yaml hash` each time a lookup \
                 reads it, and finds no key in it",
                    file.source.path.display()
                ))
                .note("help: delete the file, or give it a key (`---` then `key: value`)"),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::loader::{self, Format};
    use crate::project::{FileRole, Layer, LoadedFile, Project};
    use crate::rules::{Rule, Sink};
    use crate::span::SourceFile;
    use std::sync::Arc;

    fn check(text: &str) -> Vec<(String, u32)> {
        let source = Arc::new(SourceFile::new("data/common.yaml", text));
        let doc = loader::load(Format::Yaml, &source);
        let file = LoadedFile::new(source, doc, FileRole::Data, Layer::Environment, None);
        let mut sink = Sink::default();
        super::EmptyDataFile.check_data_file(&Project::default(), &file, &mut sink);
        sink.diagnostics
            .iter()
            .map(|d| (d.message.clone(), d.primary.span.start))
            .collect()
    }

    /// An empty file cannot carry a fixture's `# expect:` marker, so it is checked here.
    #[test]
    fn an_empty_file_is_reported_at_its_start() {
        assert_eq!(check(""), vec![("this data file is empty".to_string(), 0)]);
        assert_eq!(check("\n  \n").len(), 1);
        assert!(check("a: 1\n").is_empty());
        assert!(check("{}\n").is_empty());
        // a list is non-hash-data-file's
        assert!(check("- a\n").is_empty());
    }
}

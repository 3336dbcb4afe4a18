//! H003 `non-hash-data-file`: a data file whose top level is not a hash.

use crate::diag::Diagnostic;
use crate::loader::{yaml, Format};
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};
use crate::value::{Node, NodeKind, Value};

crate::declare_rule!(pub static META = {
    code: "H003",
    name: "non-hash-data-file",
    category: Correctness,
    summary: "a data file whose top level is a list or a scalar instead of a hash",
});

pub struct NonHashDataFile;

impl Rule for NonHashDataFile {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// Data files, and loose files a user names on the command line (the scanner only makes a
    /// file `hiera.yaml` a configuration; anything else given explicitly is checked as data).
    fn check_data_file(&self, project: &Project, file: &LoadedFile, sink: &mut Sink) {
        if !matches!(file.role, FileRole::Data | FileRole::Loose) {
            return;
        }
        // A file that does not load at all is reported by the rule for its failure.
        if file.doc.fatal_issue().is_some() {
            return;
        }
        let Some(root) = &file.doc.root else {
            // An empty YAML file (or only comments or `---`) is Psych's nil, which yaml_data turns
            // into false: a warning only, on every Puppet version and strict mode (§6.1;
            // recorded: conformance/yaml/file-shapes-and-errors `fempty`, `fdashes`, `fcomment`).
            // An empty HOCON file is `{}`; an empty JSON file is a parse error (H001).
            return;
        };
        if matches!(root.kind, NodeKind::Map(_)) {
            return;
        }
        let what = describe(root);
        let src = &file.source;
        let span = tree::first_line_of_content(src, &file.doc.comments, root.span);
        let d = match file.doc.format {
            Format::Yaml => {
                let value = root.as_scalar().map(|s| &s.value);
                // `~`/`null` is nil and `--- false` is false: yaml_data only warns for those, even
                // with strict=error (recorded: `ftilde`, `ffalsedoc`), as for an empty file.
                if matches!(value, Some(Value::Undef | Value::Bool(false))) {
                    return;
                }
                yaml_diagnostic(project, file, span, &what)
            }
            Format::Json => Diagnostic::new(
                &META,
                src,
                span,
                format!("top level of this JSON data file is {what}, not an object"),
            )
            .note(format!(
                "Puppet fails every lookup that reads this file: `Value returned from data_hash \
                 function 'json_data', when using location '{}', has wrong type, expects a Hash \
                 value, got {}`",
                src.path.display(),
                root.to_value().puppet_inferred_type()
            )),
            Format::Hocon => Diagnostic::new(
                &META,
                src,
                span,
                format!("top level of this HOCON data file is {what}, not an object"),
            )
            .note(
                "Puppet fails every lookup that reads this file: `has type LIST rather than \
                 object at file root`",
            ),
        };
        sink.report(d);
    }
}

fn yaml_diagnostic(
    project: &Project,
    file: &LoadedFile,
    span: crate::span::Span,
    what: &str,
) -> Diagnostic {
    let src = &file.source;
    let puppet_text = format!(
        "`{}: file does not contain a valid yaml hash`",
        src.path.display()
    );
    // Reference §6.1 and §11: yaml_data (and eyaml_lookup_key) raise when strict == error and the
    // data is not false, else warn and use {}. Puppet 8 defaults strict to error. Recorded:
    // conformance/yaml/env-non-hash-file and file-shapes-and-errors `flist`, `fscalar`, `fnumber`
    // (expected-7.jsonl: warning and not found; expected-strict.jsonl: LookupError).
    let mut d = if project.puppet() == crate::engine::PuppetVersion::V7 {
        Diagnostic::new(
            &META,
            src,
            span,
            format!("top level of this data file is {what}, not a hash: Puppet 7 ignores its data"),
        )
        .note(format!(
            "Puppet 7 warns {puppet_text} and reads the file as an empty hash"
        ))
        .note("Puppet 8 (strict = error) fails every lookup that reads this file instead")
    } else {
        Diagnostic::new(
            &META,
            src,
            span,
            format!(
                "top level of this data file is {what}, not a hash: every lookup that reads it \
                 fails"
            ),
        )
        .note(format!(
            "Puppet 8 (strict = error) fails with {puppet_text}"
        ))
        .note("Puppet 7 (strict = warning) only warns and ignores the file's data")
    };
    if yaml::bom_hides_marker(src) {
        d = d.note(
            "the file starts with a byte order mark: Psych then reads the `---` after it as \
             text, not as the document start; remove the byte order mark",
        );
    }
    d
}

/// `an Array`, `the String `x``: what the top level holds.
fn describe(root: &Node) -> String {
    match &root.kind {
        NodeKind::Seq(_) => "an Array".to_string(),
        NodeKind::Map(_) => "a Hash".to_string(),
        NodeKind::Scalar(s) => match &s.value {
            Value::String(t) => format!("the String `{}`", t.lines().next().unwrap_or("")),
            Value::Symbol(t) => format!("the Symbol `:{t}`"),
            Value::Undef => "null".to_string(),
            Value::Array(_) => "an Array".to_string(),
            Value::Hash(_) => "a Hash".to_string(),
            v => format!("the {} `{}`", v.type_name(), v.to_ruby_s()),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::loader::Document;
    use crate::project::Layer;
    use crate::span::{SourceFile, Span};
    use crate::value::ScalarStyle;

    /// A JSON document as the JSON loader will hand it over (the loader is not built yet, so
    /// the tree is made by hand): the notes quote Puppet's recorded json_data messages
    /// (conformance/json/values-and-file-errors `jarray`, `jnull`).
    fn json(root: Node, text: &str) -> Vec<crate::diag::Diagnostic> {
        let source = Arc::new(SourceFile::new("data/common.json", text));
        let mut doc = Document::empty(Format::Json);
        doc.root = Some(root);
        let file = LoadedFile::new(source, doc, FileRole::Data, Layer::Environment, None);
        let mut sink = Sink::default();
        NonHashDataFile.check_data_file(&Project::default(), &file, &mut sink);
        sink.diagnostics
    }

    #[test]
    fn json_top_level_array_and_null() {
        let item = Node::scalar(Span::new(1, 2), Value::Integer(1), ScalarStyle::Json, "1");
        let mut list = Node::scalar(Span::new(0, 3), Value::Undef, ScalarStyle::Json, "");
        list.kind = NodeKind::Seq(vec![item]);
        let d = json(list, "[1]\n");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].primary.span, Span::new(0, 3));
        assert_eq!(
            d[0].message,
            "top level of this JSON data file is an Array, not an object"
        );
        assert!(d[0].notes[0].ends_with("expects a Hash value, got Tuple`"));

        let null = Node::scalar(Span::new(0, 4), Value::Undef, ScalarStyle::Json, "null");
        let d = json(null, "null\n");
        assert!(d[0].notes[0].ends_with("got Undef`"), "{}", d[0].notes[0]);

        let mut map = Node::scalar(Span::new(0, 2), Value::Undef, ScalarStyle::Json, "");
        map.kind = NodeKind::Map(Default::default());
        assert!(json(map, "{}\n").is_empty());
    }
}

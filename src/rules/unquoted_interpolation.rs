//! H006 `unquoted-interpolation`: `%{...}` inside a plain (unquoted) scalar.

use crate::diag::{Diagnostic, Fix};
use crate::project::{LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};
use crate::value::ScalarStyle;

crate::declare_rule!(pub static META = {
    code: "H006",
    name: "unquoted-interpolation",
    category: Style,
    summary: "an interpolation `%{...}` in an unquoted value or key",
});

pub struct UnquotedInterpolation;

impl Rule for UnquotedInterpolation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_scalar_flags(&self) -> bool {
        true
    }

    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        check(file, sink);
    }

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
    let Some(root) = &file.doc.root else {
        return;
    };
    // Only a file with a plain scalar holding `%{` (`tree::flags`: found as the file is
    // parsed, while its tree is in the cache). Walking every scalar of the files whose text
    // holds `%{` (35% of a synthetic 15k-file repository's), long after they were parsed, was
    // about 700,000 cache misses (docs/benchmarks.md, session 32).
    if !tree::flags(&file.doc).plain_interpolation {
        return;
    }
    let src = &file.source;
    for &at in sink.scalars(root).iter() {
        // Only YAML plain scalars: quoted and block scalars keep `%` as text, and JSON/HOCON
        // strings have their own quoting (`ScalarStyle::Json`).
        if at.scalar.style != ScalarStyle::Plain
            || !crate::interp::has_interpolation(&at.scalar.text)
        {
            continue;
        }
        // A plain scalar cannot start with `%` (the parser stops: yaml-syntax-error), so every
        // scalar here has the interpolation after its first character and parses; the value is
        // the same as quoted (recorded: fixtures/recorded/unquoted-interpolation/mid-scalar).
        let span = at.node.span;
        let what = if at.is_key { "key" } else { "value" };
        let mut d = Diagnostic::new(
            &META,
            src,
            span,
            format!("interpolation in an unquoted {what}"),
        )
        .note(
            "a plain scalar cannot start with `%`: this one stops parsing as soon as the text \
             before `%{` is removed; quote values and keys that contain `%{...}`",
        );
        if let Some(text) = tree::single_line_plain(src, &at) {
            let quoted = tree::quote(text);
            d = d.with_fix(Fix {
                span,
                replacement: quoted,
                title: format!("quote the {what}"),
            });
        }
        sink.report(d);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::loader::yaml;
    use crate::project::{FileRole, Layer, LoadedFile, Project};
    use crate::rules::{Rule, Sink};
    use crate::span::SourceFile;

    fn run(text: &str) -> Vec<crate::diag::Diagnostic> {
        let source = Arc::new(SourceFile::new("t.yaml", text));
        let doc = yaml::load(&source);
        let file = LoadedFile::new(source, doc, FileRole::Data, Layer::Environment, None);
        let mut sink = Sink::default();
        super::UnquotedInterpolation.check_data_file(&Project::default(), &file, &mut sink);
        sink.diagnostics
    }

    #[test]
    fn a_multi_line_plain_scalar_is_reported_without_a_fix() {
        // Folding turns the line break into a space: quoting the source text would not be
        // certain to keep the value, so no fix is offered.
        let diagnostics = run("motd: Welcome to %{facts.fqdn},\n  managed by Puppet\n");
        assert_eq!(diagnostics.len(), 1);
        let d = &diagnostics[0];
        assert_eq!(d.primary.span.start, 6);
        assert_eq!(
            d.primary.span.end as usize,
            "motd: Welcome to %{facts.fqdn},\n  managed by Puppet".len()
        );
        assert!(d.fix.is_none());
    }

    #[test]
    fn the_fix_quotes_with_the_same_value() {
        for (text, want) in [
            ("k: a%{x}\n", "'a%{x}'"),
            ("k: it's %{x}\n", "\"it's %{x}\""),
            ("k: it's \"%{x}\" \\ ok\n", r#""it's \"%{x}\" \\ ok""#),
        ] {
            let diagnostics = run(text);
            let fix = diagnostics[0].fix.as_ref().unwrap();
            assert_eq!(fix.replacement, want);
            let mut fixed = text.to_string();
            fixed.replace_range(fix.span.range(), &fix.replacement);
            let before = yaml::load(&SourceFile::new("a", text))
                .root
                .unwrap()
                .to_value();
            let after = yaml::load(&SourceFile::new("b", fixed))
                .root
                .unwrap()
                .to_value();
            assert_eq!(before, after, "{text}");
        }
    }
}

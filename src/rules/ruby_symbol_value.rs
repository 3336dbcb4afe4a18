//! H012 `ruby-symbol-value`: a value Psych loads as a Ruby Symbol, which Puppet rejects.

use crate::diag::Diagnostic;
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};
use crate::value::Value;

crate::declare_rule!(pub static META = {
    code: "H012",
    name: "ruby-symbol-value",
    category: Correctness,
    summary: "an unquoted `:name` (or `!ruby/symbol`) value: a Ruby Symbol, which fails every lookup of its key",
});

pub struct RubySymbolValue;

impl Rule for RubySymbolValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_scalar_flags(&self) -> bool {
        true
    }

    /// Data files only: hiera.yaml version 3 is written with Symbols (`:backends:`), and its
    /// model is checked by the hiera.yaml rules.
    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        if !matches!(file.role, FileRole::Data | FileRole::Loose) {
            return;
        }
        let Some(root) = &file.doc.root else {
            return;
        };
        if !crate::rules::tree::flags(&file.doc).symbol_value {
            return;
        }
        let src = &file.source;
        for &at in sink.scalars(root).iter() {
            // Symbol keys are turned into Strings when Puppet loads the file
            // (`HieraConfig.symkeys_to_string`, applied to the whole tree); values are not.
            if at.is_key {
                continue;
            }
            let Value::Symbol(name) = &at.scalar.value else {
                continue;
            };
            let span = at
                .node
                .tag()
                .map_or(at.node.span, |t| t.span.cover(at.node.span));
            let shown = Value::Symbol(name.clone()).ruby_inspect();
            sink.report(
                Diagnostic::new(
                    &META,
                    src,
                    span,
                    format!("`{}` is read as the Ruby Symbol `{shown}`", src.slice(span)),
                )
                .note(
                    "Puppet data cannot hold a Symbol: every lookup of this key fails with \
                     `has wrong type, expects Puppet::LookupValue, got Runtime[ruby, 'Symbol']`",
                )
                .note("quote the value to make it a string"),
            );
        }
    }
}

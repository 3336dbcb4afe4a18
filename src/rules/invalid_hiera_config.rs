//! H101 `invalid-hiera-config`: every configuration error Puppet raises for a hiera.yaml.

use crate::config::{ConfigError, ConfigErrorKind, When};
use crate::diag::{Diagnostic, Severity};
use crate::project::{LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H101",
    name: "invalid-hiera-config",
    category: Correctness,
    summary: "a hiera.yaml that Puppet rejects or silently replaces (schema, functions, locations, layers)",
});

pub struct InvalidHieraConfig;

/// Kinds reported by other rules: YAML syntax (H001), method interpolation (H102) and
/// interpolation syntax errors (H201).
fn reported_elsewhere(kind: &ConfigErrorKind) -> bool {
    matches!(
        kind,
        ConfigErrorKind::YamlSyntax
            | ConfigErrorKind::MethodInterpolation
            | ConfigErrorKind::InterpolationSyntax
    )
}

/// Builds the diagnostic for a configuration error: our wording as the message, Puppet's text
/// as a note, related places as secondary labels.
pub fn config_diagnostic(
    meta: &'static RuleMeta,
    file: &LoadedFile,
    e: &ConfigError,
) -> Diagnostic {
    let mut d = Diagnostic::new(meta, &file.source, e.span, e.message.clone());
    // Warnings Puppet only logs (deprecated versions, a non-hash file that falls back to the v3
    // default) stay warnings; everything that fails lookups is an error (reference §1.4, §1.6).
    if e.when == When::Warning {
        d.severity = Severity::Warning;
    }
    for (span, label) in &e.related {
        d = d.label(&file.source, *span, label.clone());
    }
    let impact = match e.when {
        When::AtValidation | When::AtProviderCreation => {
            Some("every lookup that reaches this layer fails")
        }
        When::AtLookup => Some("every lookup that reaches this hierarchy level fails"),
        When::Warning => None,
    };
    if let Some(impact) = impact {
        d = d.note(impact);
    }
    let quote = if e.puppet_exact {
        "Puppet says"
    } else {
        "Puppet says (approximately)"
    };
    d = d.note(format!("{quote}: {}", e.puppet_message));
    if let Some(strict) = &e.puppet_message_strict {
        d = d.note(format!(
            "with strict=error (Puppet 8's default) Puppet says: {strict}"
        ));
    }
    if let Some(help) = &e.help {
        d = d.note(format!("help: {help}"));
    }
    d
}

impl Rule for InvalidHieraConfig {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        for e in &file.hiera_config().1 {
            if !reported_elsewhere(&e.kind) {
                sink.report(config_diagnostic(&META, file, e));
            }
        }
    }
}

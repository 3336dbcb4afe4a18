//! The hiera.yaml model: versions 5, 4 and 3, every field spanned, and Puppet's validation.
//!
//! [`parse`] reads a loaded hiera.yaml the way Puppet's `HieraConfig.create` does (reference §1):
//! version dispatch, defaults filling, the struct assertion with Puppet's exact messages
//! ([`schema`]), the semantic checks made at validation time, the checks made when the layer's
//! data providers are created (duplicate names, method interpolation, v4 backends), the argument
//! errors of Puppet's built-in functions, and the layer rules (v4 not global, v3 global only,
//! `hiera3_backend` global only, `default_hierarchy` module only). Unlike Puppet, which stops at
//! the first problem, it reports them all; [`ConfigError::when`] says when Puppet would raise each.
//!
//! [`model`] holds the types the engine reads, with the accessors it needs (effective function,
//! datadir and options per entry, the default configs, the strings to interpolate).

mod build;
pub mod error;
pub mod interp;
pub(crate) mod lines;
pub mod model;
pub mod schema;
mod validate;

use std::sync::{Arc, OnceLock};

use crate::diag::Severity;
use crate::loader::{Document, LoadIssueKind};
use crate::project::Layer;
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind, Value};

pub use error::{ConfigError, ConfigErrorKind, When};
pub use model::*;

/// What [`parse`] gives: the model and the problems.
pub type Parsed = (Option<HieraConfig>, Vec<ConfigError>);

/// A hiera.yaml's [`parse`], made on first use and shared by all who read the file: the rules
/// (through `LoadedFile::hiera_config`) and the lookup engine (through the analysis's file
/// system, `Vfs::shared_config`). Each parsed every configuration for itself: 500 module
/// hiera.yaml files at 15k files were parsed and validated twice (about 45M instructions).
#[derive(Debug)]
pub struct SharedParse {
    file: Arc<SourceFile>,
    doc: Arc<Document>,
    layer: Layer,
    parsed: OnceLock<Parsed>,
}

impl SharedParse {
    pub fn new(file: Arc<SourceFile>, doc: Arc<Document>, layer: Layer) -> SharedParse {
        SharedParse {
            file,
            doc,
            layer,
            parsed: OnceLock::new(),
        }
    }

    /// The parse, made now if no reader made it yet.
    pub fn get(&self) -> &Parsed {
        self.parsed
            .get_or_init(|| parse(&self.file, &self.doc, &self.layer))
    }

    /// Whether a reader has made the parse yet.
    #[cfg(test)]
    pub fn is_parsed(&self) -> bool {
        self.parsed.get().is_some()
    }

    /// The layer the file was parsed for.
    pub fn layer(&self) -> &Layer {
        &self.layer
    }
}

/// Reads a hiera.yaml of the given layer: the model (when Puppet gets that far) and every problem
/// Puppet would report, each with Puppet's text and our span.
///
/// The model is `None` only when Puppet cannot build one at all (YAML syntax error, unsupported
/// or unconvertible `version`). A model is returned even when it has errors: check
/// [`ConfigError::breaks_layer`] to know whether Puppet would fail every lookup in the layer.
pub fn parse(
    file: &Arc<SourceFile>,
    doc: &Document,
    layer: &Layer,
) -> (Option<HieraConfig>, Vec<ConfigError>) {
    let mut cx = Cx::new(file, layer);
    let config = cx.parse(doc);
    (config, cx.errors)
}

/// The state of one parse: the file, its layer and the problems found.
pub(crate) struct Cx<'a> {
    pub file: &'a Arc<SourceFile>,
    pub layer: &'a Layer,
    /// The path as Puppet prints it (our display path stands in for Puppet's absolute path).
    pub path: String,
    pub errors: Vec<ConfigError>,
}

/// What a problem is, for [`Cx::report`].
pub(crate) struct Report {
    pub kind: ConfigErrorKind,
    pub span: Span,
    pub puppet: String,
    pub message: String,
    pub severity: Severity,
    pub when: When,
}

impl<'a> Cx<'a> {
    fn new(file: &'a Arc<SourceFile>, layer: &'a Layer) -> Cx<'a> {
        Cx {
            file,
            layer,
            path: file.path.display().to_string(),
            errors: Vec::new(),
        }
    }

    pub(crate) fn report(&mut self, r: Report) -> &mut ConfigError {
        self.errors.push(ConfigError {
            kind: r.kind,
            span: r.span,
            related: Vec::new(),
            puppet_message: r.puppet,
            puppet_message_strict: None,
            puppet_exact: true,
            puppet_assertion: None,
            message: r.message,
            help: None,
            severity_hint: r.severity,
            when: r.when,
        });
        let last = self.errors.len() - 1;
        &mut self.errors[last]
    }

    pub(crate) fn text(&self) -> &str {
        self.file.text()
    }

    fn parse(&mut self, doc: &Document) -> Option<HieraConfig> {
        if let Some(issue) = doc.fatal_issue() {
            // Puppet::Util::Yaml.safe_load raises `(<path>): <psych message>` (§1.1 item 2).
            let (kind, message) = match issue.kind {
                LoadIssueKind::Syntax => (
                    ConfigErrorKind::YamlSyntax,
                    "hiera.yaml is not valid YAML".to_string(),
                ),
                _ => (ConfigErrorKind::YamlSyntax, issue.message.to_lowercase()),
            };
            let puppet = format!("({}): {}", self.path, issue.message);
            self.report(Report {
                kind,
                span: issue.span,
                puppet,
                message,
                severity: Severity::Error,
                when: When::AtProviderCreation,
            })
            .help = Some(format!("the YAML parser says: {}", issue.message));
            return None;
        }
        let root = match &doc.root {
            Some(n) if n.as_map().is_some() => n,
            other => {
                // §1.1 item 3: not a hash (empty, list, scalar): warning, then the v3 default.
                let span = other.as_ref().map(|n| n.span).unwrap_or_default();
                let what = match other {
                    None => "hiera.yaml is empty".to_string(),
                    Some(n) => format!("hiera.yaml holds {}, not a hash", describe_node(n)),
                };
                self.report(Report {
                    kind: ConfigErrorKind::NotAHash,
                    span,
                    puppet: format!(
                        "{}: File exists but does not contain a valid YAML hash. Falling back to Hiera version 3 default config",
                        self.path
                    ),
                    message: format!("{what}; Puppet falls back to the hiera 3 default configuration"),
                    severity: Severity::Warning,
                    when: When::Warning,
                });
                // HieraConfigV3#validate_config then warns about version 3.
                self.deprecated(3, span);
                let mut config = HieraConfig::default_v3(self.layer.clone());
                config.file = Some(self.file.clone());
                config.origin = ConfigOrigin::V3FallbackNotAHash;
                self.v3_layer_checks(&config, None);
                return Some(config);
            }
        };
        let (version, vfield) = self.version(root)?;
        let before = self.errors.len();
        let mut config = match version {
            ConfigVersion::V5 => validate::v5(self, root),
            ConfigVersion::V4 => validate::v4(self, root),
            ConfigVersion::V3 => validate::v3(self, root),
        };
        config.version = Field {
            value: version,
            span: vfield,
        };
        // The layer's version check runs only once the config validated (a v3 file failing its
        // struct raises that error instead of being ignored; recorded: missing-version).
        let validated = !self.errors[before..]
            .iter()
            .any(|e| e.when == When::AtValidation);
        if version == ConfigVersion::V3 && validated {
            let vspan = if vfield.synthetic {
                first_key_span(root)
            } else {
                vfield.value
            };
            self.v3_layer_checks(&config, Some(vspan));
        }
        Some(config)
    }

    /// `version = config['version'] || config[:version]`, `nil` → 3, else `to_i` (§1.1 item 5).
    fn version(&mut self, root: &Node) -> Option<(ConfigVersion, FieldSpan)> {
        let raw = |sym: bool| {
            root.as_map()?
                .entries
                .iter()
                .rev()
                .find(|e| match &e.key.kind {
                    NodeKind::Scalar(s) => match &s.value {
                        Value::String(t) if !sym => &**t == "version",
                        Value::Symbol(t) if sym => &**t == "version",
                        _ => false,
                    },
                    _ => false,
                })
                .map(|e| (&e.key, &e.value))
        };
        let chosen = raw(false)
            .filter(|(_, v)| !build::is_falsy(v))
            .or_else(|| raw(true).filter(|(_, v)| !build::is_falsy(v)));
        let Some((kn, vn)) = chosen else {
            let at = root.span;
            return Some((ConfigVersion::V3, FieldSpan::synthetic(at)));
        };
        let fs = FieldSpan::new(kn.span, vn.span);
        let value = vn.to_value();
        let n: Result<i64, String> = match &value {
            Value::Integer(i) => Ok(*i),
            Value::Float(f) if f.is_finite() => Ok(f.trunc() as i64),
            Value::Float(f) => Err(if f.is_nan() {
                "NaN".to_string()
            } else if *f > 0.0 {
                "Infinity".to_string()
            } else {
                "-Infinity".to_string()
            }),
            Value::String(s) => Ok(ruby_to_i(s)),
            other => Err(format!(
                "undefined method `to_i' for {}:{}",
                other.ruby_inspect(),
                crate::engine::ruby::class_name(other)
            )),
        };
        match n {
            Ok(5) => Some((ConfigVersion::V5, fs)),
            Ok(4) => Some((ConfigVersion::V4, fs)),
            Ok(3) => Some((ConfigVersion::V3, fs)),
            Ok(n) => {
                let shown = vn
                    .as_scalar()
                    .map(|s| s.text.to_string())
                    .unwrap_or_default();
                let message = if matches!(value, Value::Integer(_)) {
                    format!("hiera.yaml version {n} is not supported (use version 5)")
                } else {
                    format!("`version: {shown}` reads as version {n}, which is not supported (use version 5)")
                };
                let puppet = format!(
                    "This runtime does not support hiera.yaml version {n}{}",
                    lines::location_suffix(Some(&self.path), None)
                );
                self.report(Report {
                    kind: ConfigErrorKind::UnsupportedVersion,
                    span: vn.span,
                    puppet,
                    message,
                    severity: Severity::Error,
                    when: When::AtProviderCreation,
                });
                None
            }
            Err(puppet) => {
                // Ruby raises before any validation: NoMethodError (or FloatDomainError).
                self.report(Report {
                    kind: ConfigErrorKind::VersionNotConvertible,
                    span: vn.span,
                    puppet,
                    message: format!("`version` must be the integer 5, not {}", describe_node(vn)),
                    severity: Severity::Error,
                    when: When::AtProviderCreation,
                });
                None
            }
        }
    }

    /// v3 outside the global layer is ignored with a warning, or an error under strict=error
    /// (`environment_data_provider.rb`/`module_data_provider.rb` `assert_config_version`).
    fn v3_layer_checks(&mut self, config: &HieraConfig, version_span: Option<Span>) {
        let (puppet, strict, where_) = match self.layer {
            Layer::Global => return,
            Layer::Environment => (
                format!(
                    "hiera.yaml version 3 found at the environment root was ignored\n   (file: {})",
                    self.path
                ),
                format!(
                    "hiera.yaml version 3 cannot be used in an environment{}",
                    lines::location_suffix(Some(&self.path), None)
                ),
                "an environment",
            ),
            Layer::Module(_) => (
                format!(
                    "hiera.yaml version 3 found at module root was ignored\n   (file: {})",
                    self.path
                ),
                format!(
                    "hiera.yaml version 3 cannot be used in a module{}",
                    lines::location_suffix(Some(&self.path), None)
                ),
                "a module",
            ),
        };
        let span = version_span.unwrap_or(config.version.span.value);
        let e = self.report(Report {
            kind: ConfigErrorKind::V3NotGlobal,
            span,
            puppet,
            message: format!(
                "hiera.yaml version 3 is ignored in {where_}: this layer has no data (use version 5)"
            ),
            severity: Severity::Warning,
            when: When::Warning,
        });
        e.puppet_message_strict = Some(strict);
    }
}

/// The span of the first key of a mapping (where a missing `version` is reported).
fn first_key_span(root: &Node) -> Span {
    root.as_map()
        .and_then(|m| m.entries.first())
        .map(|e| e.key.span)
        .unwrap_or(Span::empty(root.span.start as usize))
}

/// A short human description of a node's type ("a string", "a list").
pub(crate) fn describe_node(n: &Node) -> &'static str {
    match &n.kind {
        NodeKind::Seq(_) => "a list",
        NodeKind::Map(_) => "a hash",
        NodeKind::Scalar(s) => match &s.value {
            Value::Undef => "null",
            Value::Bool(_) => "a boolean",
            Value::Integer(_) | Value::BigInt(_) => "an integer",
            Value::Float(_) => "a float",
            Value::String(t) if t.is_empty() => "an empty string",
            Value::String(_) => "a string",
            Value::Symbol(_) => "a Ruby symbol",
            Value::Array(_) => "a list",
            Value::Hash(_) => "a hash",
            Value::Sensitive(_) => "a Sensitive value",
        },
    }
}

/// Ruby `String#to_i`: leading whitespace, an optional sign, digits with single underscores
/// between them; anything else ends the number. Saturates outside i64.
pub(crate) fn ruby_to_i(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    let mut prev_underscore = false;
    let mut any = false;
    for c in digits.chars() {
        match c {
            '0'..='9' => {
                n = n.saturating_mul(10).saturating_add(c as i64 - '0' as i64);
                prev_underscore = false;
                any = true;
            }
            '_' if any && !prev_underscore => prev_underscore = true,
            _ => break,
        }
    }
    if neg {
        -n
    } else {
        n
    }
}

#[cfg(test)]
mod tests;

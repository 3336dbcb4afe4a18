//! Problems found in a hiera.yaml: Puppet's exact message next to ours, with a span.

use crate::diag::Severity;
use crate::span::Span;

/// When Puppet reports the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum When {
    /// While the configuration is validated: every lookup touching the layer fails.
    AtValidation,
    /// When the layer's data providers are created (the first lookup that reaches the layer);
    /// every lookup touching the layer fails.
    AtProviderCreation,
    /// Only when a lookup reaches the entry (the function rejects its arguments).
    AtLookup,
    /// Puppet logs a warning and continues.
    Warning,
}

/// What is wrong, for rules that want to match on it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConfigErrorKind {
    /// The YAML itself does not load (Puppet raises the Psych error).
    YamlSyntax,
    /// The file exists but is not a hash: v3 default used (warning).
    NotAHash,
    /// `version` is not 3, 4 or 5 after `to_i`.
    UnsupportedVersion,
    /// A struct-type mismatch (`The Lookup Configuration at ... has wrong type, ...`).
    WrongType,
    /// A key the struct does not know (`unrecognized key`).
    UnrecognizedKey,
    /// A required key is missing (`expects a value for key`).
    MissingKey,
    /// No function in the entry nor in defaults.
    MissingFunction,
    /// Two or more functions in one entry.
    MultipleFunctions,
    /// Two or more functions in defaults.
    MultipleFunctionsInDefaults,
    /// Two or more location keys in one entry.
    MultipleLocations,
    /// `path`/`uri` in an entry's options.
    ReservedOption,
    /// `path`/`uri` in defaults' options.
    ReservedDefaultOption,
    /// `hiera3_backend` outside the global layer.
    Hiera3BackendNotGlobal,
    /// `hiera3_backend: yaml|json|hocon`.
    Hiera3BackendReplaced,
    /// `default_hierarchy` outside the module layer.
    DefaultHierarchyNotInModule,
    /// Two entries with the same name in one hierarchy list.
    DuplicateName,
    /// `%{lookup(..)}` and other method calls in a hiera.yaml string.
    MethodInterpolation,
    /// An entry whose built-in function needs a location has none (or only `uri`).
    MissingLocation,
    /// v4: a backend other than yaml/json/hocon.
    UnknownV4Backend,
    /// v4 in the global layer.
    V4InGlobal,
    /// v3 in the environment or module layer (ignored, or an error under strict=error).
    V3NotGlobal,
    /// v3: a backend listed twice.
    DuplicateV3Backend,
    /// Deprecated version 3 or 4 (warning).
    Deprecated,
}

/// One problem in a hiera.yaml.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub kind: ConfigErrorKind,
    /// The offending field (key or value, whichever the message is about).
    pub span: Span,
    /// Other places worth showing (the first definition of a duplicate name...).
    pub related: Vec<(Span, String)>,
    /// Puppet's text, as Puppet 7.23 prints it for this file (path included), recorded from the
    /// real thing (fixtures/hiera-config/).
    pub puppet_message: String,
    /// Under `strict=error` Puppet says something else (v3 in an environment: an error instead of
    /// a warning).
    pub puppet_message_strict: Option<String>,
    /// Our wording: lowercase, no trailing period, keys in backticks.
    pub message: String,
    pub severity_hint: Severity,
    pub when: When,
}

impl ConfigError {
    /// True when Puppet fails every lookup touching the layer because of it.
    pub fn breaks_layer(&self) -> bool {
        matches!(self.when, When::AtValidation | When::AtProviderCreation)
    }
}

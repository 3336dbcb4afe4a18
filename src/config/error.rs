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
    /// An option name Puppet's pattern rejects (`key of entry '_x' expects a match for ...`).
    InvalidOptionName,
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
    /// A hiera.yaml `%{}` expression `split_key` rejects (`Syntax error in string: ...`).
    InterpolationSyntax,
    /// A built-in data_hash function (yaml/json/hocon_data) given `options`: its signature only
    /// accepts `path`, so every lookup through the level fails (recorded,
    /// fixtures/conformance/config/env-options-defaults-not-merged).
    OptionsRejected,
    /// Deprecated version 3 or 4 (warning).
    Deprecated,
    /// `version` has no `to_i` (true, an array, a hash, a symbol): Ruby's NoMethodError.
    VersionNotConvertible,
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
    /// real thing (fixtures/hiera-config/). For struct-assertion errors it is the one line of
    /// Puppet's (possibly multi-line) message that is about this field.
    pub puppet_message: String,
    /// False when `puppet_message` approximates Puppet's text (a type printed as `Hash` where
    /// Puppet prints its full inferred type; see `schema`).
    pub puppet_exact: bool,
    /// For struct-assertion errors: Puppet's whole `TypeAssertionError` message, every mismatch
    /// of the assertion included (some of which hieralint does not report as diagnostics of
    /// their own; see `validate::assert_struct`).
    pub puppet_assertion: Option<String>,
    /// Under `strict=error` Puppet says something else (v3 in an environment: an error instead of
    /// a warning).
    pub puppet_message_strict: Option<String>,
    /// Our wording: lowercase, no trailing period, keys in backticks.
    pub message: String,
    /// Advice (a likely intended key, the fix), for a `help` note.
    pub help: Option<String>,
    pub severity_hint: Severity,
    pub when: When,
}

impl ConfigError {
    /// True when Puppet fails every lookup touching the layer because of it.
    pub fn breaks_layer(&self) -> bool {
        matches!(self.when, When::AtValidation | When::AtProviderCreation)
    }
}

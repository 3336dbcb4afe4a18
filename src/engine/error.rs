//! Lookup failures: the message Puppet prints, the Ruby class it raises, and where it came from.
//!
//! Puppet's lookup fails with exceptions of several Ruby classes, and the class matters: errors
//! raised inside a data provider's recursion guard (`Invocation#check`) that are `Puppet::Error`s
//! but not `LookupError`s are re-raised as `LookupError` (reference §5.7), while plain Ruby errors
//! (`ArgumentError` for an undefined variable under strict=error, `RegexpError`...) pass through.
//! [`ErrorKind`] names the class so the engine can apply those rules and tests can compare.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::span::{SourceFile, Span};

/// The Ruby exception class Puppet raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `Puppet::DataBinding::LookupError`.
    Lookup,
    /// `Puppet::DataBinding::RecursiveLookupError` (a LookupError).
    RecursiveLookup,
    /// `Puppet::Pops::Types::TypeAssertionError` (a Puppet::Error).
    TypeAssertion,
    /// `Puppet::Error` (e.g. `Lookup of key 'k' failed: ...` before a check wraps it).
    PuppetError,
    /// `Puppet::Util::Yaml::YamlLoadError` (a Puppet::Error): a hiera.yaml that does not parse.
    YamlLoad,
    /// Ruby `ArgumentError` (unknown merge strategy, undefined variable under strict=error,
    /// comparison failures while sorting).
    Argument,
    /// `DeepMerge::InvalidParameter`.
    DeepMergeInvalidParameter,
    /// Ruby `RegexpError` (a bad lookup_options pattern or knockout prefix).
    Regexp,
    /// Ruby `NoMethodError` (Puppet crashing on odd data).
    NoMethod,
    /// Ruby `TypeError`.
    Type,
    /// `URI::InvalidURIError`.
    InvalidUri,
    /// Ruby `LoadError` (a gem Puppet needs is missing, e.g. GPG support for eyaml).
    Load,
    /// `Errno::EISDIR`: a hierarchy path names a directory, which the backend tries to read.
    IsADirectory,
    /// `Errno::ENOENT`: a file vanished or cannot be read.
    NoSuchFile,
    /// Something hieralint cannot evaluate (a custom function, an unsupported `convert_to`
    /// type). Never produced by Puppet; reported so a caller can tell it apart.
    Unsupported,
}

impl ErrorKind {
    /// The Ruby class name, as the conformance recordings write it.
    pub fn ruby_class(self) -> &'static str {
        match self {
            ErrorKind::Lookup => "Puppet::DataBinding::LookupError",
            ErrorKind::RecursiveLookup => "Puppet::DataBinding::RecursiveLookupError",
            ErrorKind::TypeAssertion => "Puppet::Pops::Types::TypeAssertionError",
            ErrorKind::PuppetError => "Puppet::Error",
            ErrorKind::YamlLoad => "Puppet::Util::Yaml::YamlLoadError",
            ErrorKind::Argument => "ArgumentError",
            ErrorKind::DeepMergeInvalidParameter => "DeepMerge::InvalidParameter",
            ErrorKind::Regexp => "RegexpError",
            ErrorKind::NoMethod => "NoMethodError",
            ErrorKind::Type => "TypeError",
            ErrorKind::InvalidUri => "URI::InvalidURIError",
            ErrorKind::Load => "LoadError",
            ErrorKind::IsADirectory => "Errno::EISDIR",
            ErrorKind::NoSuchFile => "Errno::ENOENT",
            ErrorKind::Unsupported => "Hieralint::Unsupported",
        }
    }

    /// `Puppet::DataBinding::LookupError` or a subclass.
    pub fn is_lookup_error(self) -> bool {
        matches!(self, ErrorKind::Lookup | ErrorKind::RecursiveLookup)
    }

    /// A `Puppet::Error` (which `Invocation#check` turns into a LookupError).
    pub fn is_puppet_error(self) -> bool {
        matches!(
            self,
            ErrorKind::Lookup
                | ErrorKind::RecursiveLookup
                | ErrorKind::TypeAssertion
                | ErrorKind::PuppetError
                | ErrorKind::YamlLoad
        )
    }
}

/// A lookup failure.
#[derive(Clone, Debug)]
pub struct LookupError {
    /// The full message as Puppet renders it (file/line suffixes included).
    pub message: String,
    pub kind: ErrorKind,
    /// The file the failure is about, when known (a data file, a hiera.yaml).
    pub path: Option<PathBuf>,
    /// The span in that file, when known.
    pub source: Option<(Arc<SourceFile>, Span)>,
    /// Raised through an `Issues` entry (`HieraConfig#fail`, interpolation failures). Errors
    /// without one are wrapped as `Lookup of key '<k>' failed: ...` when they leave the global
    /// layer (`LookupAdapter#lookup_global`).
    pub issue_code: bool,
    /// hieralint stopped at one of its own bounds (docs/limits.md), where Puppet would go on:
    /// which bound, said without the lookup's framing (`interpolation nesting exceeds 200
    /// levels (limit `max_lookup_depth`)`). `check` reports these (H008,
    /// [`crate::rules::unreadable_file::limit_hit`]) instead of leaving the lookups they
    /// stopped unchecked.
    pub limit: Option<String>,
}

impl LookupError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> LookupError {
        LookupError {
            message: message.into(),
            kind,
            path: None,
            source: None,
            issue_code: false,
            limit: None,
        }
    }

    pub fn lookup(message: impl Into<String>) -> LookupError {
        LookupError::new(ErrorKind::Lookup, message)
    }

    pub fn argument(message: impl Into<String>) -> LookupError {
        LookupError::new(ErrorKind::Argument, message)
    }

    pub fn type_assertion(message: impl Into<String>) -> LookupError {
        LookupError::new(ErrorKind::TypeAssertion, message)
    }

    pub fn with_path(mut self, p: impl Into<PathBuf>) -> LookupError {
        self.path = Some(p.into());
        self
    }

    pub fn with_source(mut self, file: &Arc<SourceFile>, span: Span) -> LookupError {
        self.path.get_or_insert_with(|| file.path.clone());
        self.source = Some((file.clone(), span));
        self
    }

    /// What `Invocation#check` does to an error leaving a provider: LookupErrors pass, other
    /// `Puppet::Error`s become LookupErrors with the same message, Ruby errors pass.
    pub fn through_check(mut self) -> LookupError {
        if self.kind.is_puppet_error() && !self.kind.is_lookup_error() {
            self.kind = ErrorKind::Lookup;
            self.issue_code = false;
        }
        self
    }
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LookupError {}

/// Ruby's `Puppet::ExternalFileError` suffix: ` (file: <path>, line: <n>)`, ` (file: <path>)`
/// or ` (line: <n>)` (`util/errors.rb`).
pub fn file_line_suffix(path: Option<&std::path::Path>, line: Option<usize>) -> String {
    match (path, line) {
        (Some(p), Some(l)) => format!(" (file: {}, line: {l})", p.display()),
        (Some(p), None) => format!(" (file: {})", p.display()),
        (None, Some(l)) => format!(" (line: {l})"),
        (None, None) => String::new(),
    }
}

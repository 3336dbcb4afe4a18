//! Loaders: YAML (Psych semantics), JSON and HOCON files into one spanned tree.
//!
//! Every loader returns a [`Document`]: the root [`Node`] (with spans), the comments, and the
//! problems met while loading, each positioned. A loader never panics and never gives up on the
//! whole file silently: whatever it could not read is a [`LoadIssue`] with a span.
//!
//! The engine asks a document for [`Document::puppet_data`], which says what Puppet's reader would
//! produce: the data, or the failure message Puppet raises for the whole file.

mod fast;
#[doc(hidden)]
pub use fast::differential as fast_yaml_differential;
pub mod hocon;
pub mod json;
pub mod psych;
mod repair;
pub mod yaml;

use crate::span::Span;
use crate::value::{Node, Value};

/// Which reader the file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Yaml,
    Json,
    Hocon,
}

impl Format {
    /// The format Puppet's built-in data_hash function reads (`yaml_data`, `json_data`,
    /// `hocon_data`); eyaml files are YAML.
    pub fn from_extension(path: &std::path::Path) -> Option<Format> {
        // `Path::extension` parses components from the back (about 600 instructions on a
        // repository's long paths, once per data file loaded by the analysis); a path that
        // spells its components (no `//`, `/.` or trailing `/`) has its name after the last
        // `/`, and the name's extension after its last `.` unless that `.` begins it.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            let b = path.as_os_str().as_bytes();
            if crate::paths::spells_components(b) {
                let name = &b[memchr::memrchr(b'/', b).map_or(0, |i| i + 1)..];
                let ext = match memchr::memrchr(b'.', name) {
                    Some(i) if i > 0 => &name[i + 1..],
                    _ => return None,
                };
                return Format::of_extension(std::str::from_utf8(ext).ok()?);
            }
        }
        Format::of_extension(path.extension()?.to_str()?)
    }

    fn of_extension(ext: &str) -> Option<Format> {
        match ext {
            "yaml" | "yml" | "eyaml" => Some(Format::Yaml),
            "json" => Some(Format::Json),
            "conf" | "hocon" => Some(Format::Hocon),
            _ => None,
        }
    }
}

/// A `#` comment (or `//` in HOCON): the span covers the marker through the end of the line,
/// excluding the line break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub span: Span,
    /// True when nothing but whitespace precedes the comment on its line.
    pub own_line: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadIssueKind {
    /// The parser stopped here. The document's `root` holds what was read before, if anything.
    Syntax,
    /// A plain scalar Psych turns into Date/Time: Puppet's safe_load rejects the whole file with
    /// `Tried to load unspecified class: Date` (reference §6.1).
    DateTime,
    /// A tag Psych's safe_load refuses (`!ruby/object:...`, `!ruby/regexp`, `!!set`...): the whole
    /// file fails with `Tried to load unspecified class: <class>`.
    ForbiddenTag,
    /// A key repeated in one mapping: Psych silently keeps the last value. `first` is the span of
    /// the first occurrence's key.
    DuplicateKey { first: Span },
    /// A second YAML document: Puppet reads only the first.
    ExtraDocument,
    /// A limit was hit (alias expansion, nesting depth, size): loading stopped with a diagnostic
    /// instead of running away.
    Limit,
    /// The bytes are not valid UTF-8 or contain NUL.
    Encoding,
    /// Psych raises while building values, with an error other than a syntax error or a
    /// forbidden class: `Float()` or `Integer()` rejecting a scalar its regexes let through
    /// (`.e+5`, `0x_`), a `nil.allocate` for an empty class name in a tag, `Unknown alias: x`
    /// (Psych::BadAlias). Puppet fails the whole file with `Unable to parse <message>` (without
    /// the `(<path>): ` that Psych's own syntax errors carry).
    /// HOCON: ruby-hocon crashes with a non-`ConfigError` (`a = "\q"`: NoMethodError,
    /// `a = 1e400`: FloatDomainError, `include url(...)`); hocon_data rescues only ConfigError,
    /// so Puppet reports the bare message, without `Unable to parse` (recorded with the oracle).
    RubyError,
    /// Psych loads a value hieralint cannot represent exactly (an integer beyond 64 bits, a
    /// `!ruby/encoding` object, `!!binary` bytes that are not UTF-8): the loaded value is an
    /// approximation, the message says which. Not fatal: Puppet loads the file.
    /// JSON and HOCON use it for integers beyond 64 bits too, and HOCON for what depends on the
    /// Puppet server rather than the file (`${VAR}` falling back to an environment variable,
    /// `include "file"` relative to the server's working directory).
    Unmodelled,
    /// Something hieralint cannot reproduce exactly (a Ruby Bignum, a HOCON construct the `hocon`
    /// crate reads differently from ruby-hocon): the value is hieralint's best approximation and
    /// the issue says how Puppet's differs. Informational; not fatal.
    Unsupported,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadIssue {
    pub kind: LoadIssueKind,
    pub span: Span,
    pub message: String,
}

/// A loaded file.
#[derive(Clone, Debug)]
pub struct Document {
    pub format: Format,
    /// `None` for an empty document (empty file, only comments, only `---`, JSON parse failure).
    pub root: Option<Node>,
    pub comments: Vec<Comment>,
    pub issues: Vec<LoadIssue>,
    /// What the document's scalars hold that some rule reports ([`ScalarFlags`]), found by
    /// the first that asks (`rules::tree::flags`).
    pub scalar_flags: std::sync::OnceLock<ScalarFlags>,
    /// Where the root mapping's `lookup_options` entry is (the last one written there), found
    /// by the first that asks (`rules::lopts::lookup_options_index`): at parse time when a
    /// rule reading lookup_options runs. Every lookup_options rule asks it of every data file,
    /// and finding it in a tree long out of the cache compared each root key's text with
    /// `lookup_options`: about 840,000 cache misses at 15k files (docs/benchmarks.md, session
    /// 28).
    /// With it, whether any root entry's key is `lookup_options` (duplicates and entries a `<<`
    /// merge key brings included).
    pub lookup_options_at: std::sync::OnceLock<(Option<u32>, bool)>,
    /// A hash of each root key as the engine reads it, in entry order
    /// (`engine::data::root_key_hashes`), found by the first that asks: at parse time when the
    /// analysis will compare hierarchies by the keys their files define (`analysis::Deltas`
    /// asks it of every node file; reading the keys from 15k trees out of the cache was about
    /// 400,000 cache misses: docs/benchmarks.md, session 28).
    pub root_key_hashes: std::sync::OnceLock<Box<[u64]>>,
    /// The strings of a data file that Puppet interpolates, in file order
    /// (`rules::interp_sites::data_sites` makes its sites of them), found by the first that
    /// asks: at parse time when a rule reading interpolations runs. Walked after the whole
    /// project is loaded, the trees of a 15k-file repository are long out of the cache: that
    /// walk was a million cache misses, a fifth of those the analysis and its rules add to the
    /// load (docs/benchmarks.md, session 32).
    pub interp_sites: std::sync::OnceLock<Box<[InterpolatedString]>>,
}

/// A string of a data file holding `%{` ([`Document::interp_sites`]): the value and the root
/// key it sits under, shared with the tree (reference counts, not copies).
#[derive(Clone, Debug)]
pub struct InterpolatedString {
    pub value: std::sync::Arc<str>,
    pub span: Span,
    pub root_key: std::sync::Arc<str>,
    /// The key of a nested hash.
    pub is_key: bool,
    /// Inside an alias expansion or a `<<`-merged entry.
    pub copied: bool,
}

/// Whether any scalar of a document is one that a rule reports, so that the rules can pass a
/// file over without walking its tree. Found by one walk of the tree when the file is parsed,
/// while the tree is in the cache (`rules::tree::flags`): walked again after the whole
/// project is loaded, the trees of a 15k-file repository are long out of the cache, and that
/// walk cost more than its instructions say (docs/benchmarks.md "Session 27").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScalarFlags {
    /// A plain scalar yaml11-implicit-type reports (H005).
    pub yaml11_surprise: bool,
    /// A value Psych reads as a Ruby Symbol (H012).
    pub symbol_value: bool,
    /// A plain scalar (key or value) whose text holds `%{` (unquoted-interpolation, H102).
    pub plain_interpolation: bool,
    /// A string value (not a key) that holds `ENC[`, the only values malformed-eyaml reads.
    /// Found while the tree is in the cache: the rule searched every file's whole text for
    /// `ENC[` instead, 64 MB out of the cache at 15k files (the rule's time on one thread,
    /// medians of five: 11.9 ms with the search, 6.8 ms with the flag).
    pub eyaml_token: bool,
}

/// What Puppet's reader makes of a file (reference §6).
#[derive(Clone, Debug, PartialEq)]
pub enum PuppetData {
    /// A value: for YAML, `Value::Bool(false)` stands for an empty document (Psych's `nil` turned
    /// into `false` by yaml_data), which Puppet then treats as "not a hash, only a warning".
    Value(Value),
    /// The whole file fails to load: `Unable to parse (<path>): <message>` in Puppet's wording
    /// (the caller adds the path prefix).
    Error(String),
}

impl Document {
    pub fn empty(format: Format) -> Document {
        Document {
            format,
            root: None,
            comments: Vec::new(),
            issues: Vec::new(),
            scalar_flags: Default::default(),
            lookup_options_at: Default::default(),
            root_key_hashes: Default::default(),
            interp_sites: Default::default(),
        }
    }

    /// Whether the loader met an issue of a kind (rules that report one kind of the loader's
    /// findings skip the other files before any walk of the tree).
    pub fn has_issue(&self, kind: impl Fn(&LoadIssueKind) -> bool) -> bool {
        self.issues.iter().any(|i| kind(&i.kind))
    }

    /// The first issue that makes Puppet reject the whole file, if any.
    pub fn fatal_issue(&self) -> Option<&LoadIssue> {
        self.issues.iter().find(|i| {
            matches!(
                i.kind,
                LoadIssueKind::Syntax
                    | LoadIssueKind::DateTime
                    | LoadIssueKind::ForbiddenTag
                    | LoadIssueKind::Limit
                    | LoadIssueKind::RubyError
            )
        })
    }

    /// What Puppet's data_hash function reading this file gives.
    pub fn puppet_data(&self) -> PuppetData {
        if let Some(issue) = self.fatal_issue() {
            return PuppetData::Error(issue.message.clone());
        }
        match (&self.root, self.format) {
            (Some(n), Format::Yaml) => match n.to_value() {
                // Psych's nil (`~`, `---` alone, an empty document) becomes false too (§6.1).
                Value::Undef => PuppetData::Value(Value::Bool(false)),
                v => PuppetData::Value(v),
            },
            (Some(n), _) => PuppetData::Value(n.to_value()),
            // Psych returns nil for an empty stream; yaml_data turns it into false (§6.1).
            (None, Format::Yaml) => PuppetData::Value(Value::Bool(false)),
            // HOCON: an empty file is an empty hash (§6.3).
            (None, Format::Hocon) => PuppetData::Value(Value::hash(Default::default())),
            // JSON: an empty file is a parse error, reported by the loader as a Syntax issue
            // (Ruby json 2.6.1's message, recorded in fixtures/json/cases.json).
            (None, Format::Json) => PuppetData::Error("859: unexpected token at ''".into()),
        }
    }
}

/// Loads a file of the given format.
pub fn load(format: Format, file: &crate::span::SourceFile) -> Document {
    load_with(format, file, &crate::limits::Limits::default())
}

/// Loads a file of the given format within `limits` (YAML: nesting and alias expansion; HOCON:
/// what substitutions may add. JSON's nesting limit is Ruby's own; see docs/limits.md).
pub fn load_with(
    format: Format,
    file: &crate::span::SourceFile,
    limits: &crate::limits::Limits,
) -> Document {
    match format {
        Format::Yaml => yaml::load_with(file, limits),
        Format::Json => json::load(file),
        Format::Hocon => hocon::load_with(file, limits),
    }
}

#[cfg(test)]
mod tests {
    use super::Format;
    use std::path::Path;

    /// The byte-level reading of a path's extension answers as `Path::extension` does.
    #[test]
    fn from_extension_answers_as_path_extension() {
        let std_way = |p: &Path| Format::of_extension(p.extension()?.to_str()?);
        for p in [
            "",
            "/",
            ".",
            "..",
            "a",
            "a.yaml",
            "/env/data/common.yaml",
            "/env/data/nodes/web01.example.com.json",
            "/env/data/x.eyaml",
            "/env/data/x.yml",
            "/env/data/x.conf",
            "/env/data/x.hocon",
            "/env/data/x.YAML",
            "/env/data/x.txt",
            "/env/data/.yaml",
            "/env/data/a.",
            "/env/data/a.tar.yaml",
            "/env/data./x",
            "/env/data.yaml/",
            "/env/data//x.json",
            "/env/./x.json",
            "/env/../x.json",
            "x.yaml/.",
            ".hidden.yaml",
            "/env/données/é.yaml",
        ] {
            assert_eq!(
                Format::from_extension(Path::new(p)),
                std_way(Path::new(p)),
                "{p:?}"
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            for b in [
                &b"/env/\xff.yaml"[..],
                b"/env/x.\xffyaml",
                b"/env/\xff/x.json",
            ] {
                let p = Path::new(std::ffi::OsStr::from_bytes(b));
                assert_eq!(Format::from_extension(p), std_way(p), "{b:?}");
            }
        }
    }
}

//! Data files as Puppet's built-in backends read them (reference §6): the parse cache shared by
//! every lookup, and `yaml_data`, `json_data`, `hocon_data` and the file half of
//! `eyaml_lookup_key`.

use std::path::Path;
use std::sync::{Arc, RwLock};

use super::error::{ErrorKind, LookupError};
use super::vfs::Vfs;
use crate::loader::{self, Document, Format, LoadIssueKind};
use crate::span::{SourceFile, Span};
use crate::value::{Hash, Value};

/// One data file, parsed once.
#[derive(Debug)]
pub struct DataFile {
    pub source: Arc<SourceFile>,
    pub doc: Arc<Document>,
    format: Format,
    /// What the reader gives: the value (YAML symbol keys already strings), or the failure
    /// ([`DataFile::loaded`]). Converted on first use: most node files of a check without
    /// facts are read only for their root keys ([`DataFile::root_keys`]), never looked up in.
    loaded: std::sync::OnceLock<Result<Value, ParseFailure>>,
    /// Key and value spans of the root mapping's entries, by key ([`DataFile::entries`]).
    entries: std::sync::OnceLock<super::vfs::FastMap<Value, (Span, Span)>>,
    /// Root keys whose values need neither validation errors nor interpolation
    /// ([`DataFile::plain_keys`]).
    plain_keys: std::sync::OnceLock<super::vfs::FastSet<Value>>,
}

/// A file the reader rejects.
#[derive(Clone, Debug)]
pub struct ParseFailure {
    /// The reader's message.
    pub message: String,
    /// Psych and JSON put the path in front (`(<path>): <message>`); a Ruby error raised while
    /// building values does not (`Unable to parse <message>`).
    pub with_path: bool,
    pub span: Span,
}

/// Puppet's `symkeys_to_string`: Symbol hash keys become Strings, at every depth.
pub fn symkeys_to_string(v: &Value) -> Value {
    match v {
        Value::Hash(h) => {
            if !needs_symkeys(v) {
                return v.clone();
            }
            let mut out = Hash::with_capacity_and_hasher(h.len(), Default::default());
            for (k, x) in h.iter() {
                let k = match k {
                    Value::Symbol(s) => Value::String(s.clone()),
                    other => other.clone(),
                };
                out.insert(k, symkeys_to_string(x));
            }
            Value::hash(out)
        }
        Value::Array(a) if needs_symkeys(v) => {
            Value::array(a.iter().map(symkeys_to_string).collect())
        }
        other => other.clone(),
    }
}

/// The key a root mapping entry gives the loaded Hash: its converted value, a YAML symbol as a
/// string (`symkeys_to_string` at the root).
/// The fixed-seed hash under which the analysis files a root key (`analysis::Deltas`).
pub fn key_hash(k: &Value) -> u64 {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::default().hash_one(k)
}

/// [`key_hash`] of each root key of `doc` as [`DataFile::root_key_values`] lists them (every
/// entry of the root mapping, in order), found once per document
/// ([`Document::root_key_hashes`]); empty when the root is not a mapping.
pub fn root_key_hashes(doc: &Document) -> &[u64] {
    doc.root_key_hashes
        .get_or_init(|| match doc.root.as_ref().and_then(|r| r.as_map()) {
            Some(m) => m.entries.iter().map(|e| key_hash(&root_key(e))).collect(),
            None => Box::default(),
        })
}

fn root_key(e: &crate::value::Entry) -> Value {
    match e.key.to_value() {
        Value::Symbol(s) => Value::String(s),
        k => k,
    }
}

fn needs_symkeys(v: &Value) -> bool {
    match v {
        Value::Hash(h) => h
            .iter()
            .any(|(k, x)| matches!(k, Value::Symbol(_)) || needs_symkeys(x)),
        Value::Array(a) => a.iter().any(needs_symkeys),
        _ => false,
    }
}

impl DataFile {
    pub fn parse(source: Arc<SourceFile>, format: Format) -> DataFile {
        let doc = Arc::new(loader::load(format, &source));
        DataFile::from_document(source, format, doc)
    }

    /// A data file from the document `source` parses to in `format` (already parsed by the
    /// scanner).
    pub fn from_document(source: Arc<SourceFile>, format: Format, doc: Arc<Document>) -> DataFile {
        DataFile {
            source,
            doc,
            format,
            loaded: std::sync::OnceLock::new(),
            entries: std::sync::OnceLock::new(),
            plain_keys: std::sync::OnceLock::new(),
        }
    }

    /// What the reader gives: the value (YAML symbol keys already strings), or the failure.
    pub fn loaded(&self) -> &Result<Value, ParseFailure> {
        self.loaded.get_or_init(|| match self.doc.fatal_issue() {
            Some(issue) => Err(ParseFailure {
                message: issue.message.clone(),
                with_path: issue.kind != LoadIssueKind::RubyError,
                span: issue.span,
            }),
            None => match (&self.doc.root, self.format) {
                // A document that is only `~` or `---` is nil for Psych, `false` for yaml_data.
                (Some(n), Format::Yaml) => Ok(match n.to_value() {
                    Value::Undef => Value::Bool(false),
                    v => symkeys_to_string(&v),
                }),
                (Some(n), _) => Ok(n.to_value()),
                // Psych gives nil for an empty stream; yaml_data makes it `false`.
                (None, Format::Yaml) => Ok(Value::Bool(false)),
                (None, Format::Hocon) => Ok(Value::hash(Hash::default())),
                (None, Format::Json) => Err(ParseFailure {
                    message: "unexpected token at ''".into(),
                    with_path: true,
                    span: Span::empty(0),
                }),
            },
        })
    }

    /// The root keys of the data when [`DataFile::loaded`] is a Hash (`None` otherwise),
    /// found without converting the values: the keys of [`DataFile::entries`], which are
    /// that Hash's keys (a root mapping converts to a Hash whose keys are its entries' keys,
    /// duplicates once, YAML symbol keys as strings; an empty HOCON document is an empty
    /// Hash). Tested against the conversion on every fixture file.
    pub fn root_keys(&self) -> Option<&super::vfs::FastMap<Value, (Span, Span)>> {
        self.is_hash().then(|| self.entries())
    }

    /// Whether [`DataFile::loaded`] is a Hash, told from the document.
    pub fn is_hash(&self) -> bool {
        if self.doc.fatal_issue().is_some() {
            return false;
        }
        match (&self.doc.root, self.format) {
            (Some(n), _) => n.as_map().is_some(),
            (None, Format::Hocon) => true,
            _ => false,
        }
    }

    /// The keys of [`DataFile::root_keys`] (in no particular order; a key written twice is
    /// listed twice), without building and keeping its map when it is not built yet:
    /// comparing hierarchies asks this once of each node file (a map kept per node file was
    /// 4 MB of a 5k-file check's peak heap), and files the keys into maps of its own, which
    /// take a repeated key as it is (a set of the keys seen was a third of listing a file's
    /// keys).
    /// [`key_hash`] of each of [`DataFile::root_key_values`], from the document's hashes
    /// (found at parse time when the analysis compares hierarchies) unless the map of entries
    /// is built.
    pub fn root_key_hashes(&self) -> std::borrow::Cow<'_, [u64]> {
        if !self.is_hash() {
            return std::borrow::Cow::Borrowed(&[]);
        }
        if let Some(m) = self.entries.get() {
            return std::borrow::Cow::Owned(m.keys().map(key_hash).collect());
        }
        std::borrow::Cow::Borrowed(root_key_hashes(&self.doc))
    }

    pub fn root_key_values(&self) -> Vec<Value> {
        if !self.is_hash() {
            return Vec::new();
        }
        if let Some(m) = self.entries.get() {
            return m.keys().cloned().collect();
        }
        match self.doc.root.as_ref().and_then(|r| r.as_map()) {
            Some(m) => m.entries.iter().map(root_key).collect(),
            None => Vec::new(),
        }
    }

    /// Key and value spans of the root mapping's entries, by key (the last duplicate wins, as
    /// in Psych). Built on first use, like [`DataFile::plain_keys`]: most node files are read
    /// only for their root keys (which groups may share a lookup), never looked up in.
    pub fn entries(&self) -> &super::vfs::FastMap<Value, (Span, Span)> {
        self.entries.get_or_init(|| {
            // Fixed-seed hashing, sized up front (SipHash and rehashing while it grew were a
            // third of converting a file).
            let mut entries = super::vfs::FastMap::default();
            if let Some(m) = self.doc.root.as_ref().and_then(|r| r.as_map()) {
                entries.reserve(m.entries.len());
                for e in &m.entries {
                    entries.insert(root_key(e), (e.key.span, e.value.span));
                }
            }
            entries
        })
    }

    /// Root keys whose values need neither validation errors nor interpolation (`RichData`
    /// without `%{`): a lookup can return them as they are.
    pub fn plain_keys(&self) -> &super::vfs::FastSet<Value> {
        self.plain_keys.get_or_init(|| {
            let mut plain_keys = super::vfs::FastSet::default();
            if let Ok(Value::Hash(h)) = self.loaded() {
                plain_keys.reserve(h.len());
                for (k, v) in h.iter() {
                    if super::types::is_rich_data_value(v) && !has_interpolation(v) {
                        plain_keys.insert(k.clone());
                    }
                }
            }
            plain_keys
        })
    }

    /// `Unable to parse (<path>): <message>`, as yaml/json/hocon_data raise it.
    pub fn unable_to_parse(&self, path: &Path) -> Option<LookupError> {
        let f = self.loaded().as_ref().err()?;
        let msg = if f.with_path {
            format!("Unable to parse ({}): {}", path.display(), f.message)
        } else {
            format!("Unable to parse {}", f.message)
        };
        Some(LookupError::lookup(msg).with_source(&self.source, f.span))
    }
}

/// Whether a value holds a `%{` anywhere (keys included).
pub fn has_interpolation(v: &Value) -> bool {
    v.any_string(crate::interp::has_interpolation)
}

/// Parsed files by path and format, shared by every session; a file whose text changed (a new
/// `SourceFile` from the [`Vfs`]) is parsed again.
#[derive(Default)]
pub struct FileCache {
    files: RwLock<super::vfs::PathMap<Parses>>,
}

/// A file's parses, by format (a file is read in one format, rarely two).
type Parses = Vec<(Format, Arc<DataFile>)>;

impl FileCache {
    pub fn load(&self, vfs: &dyn Vfs, path: &Path, format: Format) -> Option<Arc<DataFile>> {
        let (source, doc) = vfs.read_document(path, format)?;
        let cached = self.files.read().ok().and_then(|m| {
            m.get(&super::vfs::PathRef(path))?
                .iter()
                .find(|(f, _)| *f == format)
                .map(|(_, d)| d.clone())
        });
        if let Some(f) = cached {
            if Arc::ptr_eq(&f.source, &source) {
                return Some(f);
            }
        }
        let parsed = Arc::new(match doc {
            Some(doc) => DataFile::from_document(source, format, doc),
            None => DataFile::parse(source, format),
        });
        if let Ok(mut m) = self.files.write() {
            let list = m
                .entry(super::vfs::PathKey(path.to_path_buf()))
                .or_default();
            list.retain(|(f, _)| *f != format);
            list.push((format, parsed.clone()));
        }
        Some(parsed)
    }

    pub fn clear(&self) {
        if let Ok(mut m) = self.files.write() {
            m.clear();
        }
    }
}

/// The file a data_hash function reads could not be read (a directory, unreadable): Ruby's
/// `Errno` error.
pub fn read_failure(path: &Path, is_dir: bool) -> LookupError {
    // Recorded with the oracle (a `path:` naming a directory).
    if is_dir {
        LookupError::new(
            ErrorKind::IsADirectory,
            format!("Is a directory @ io_fread - {}", path.display()),
        )
    } else {
        LookupError::new(
            ErrorKind::NoSuchFile,
            format!(
                "No such file or directory @ rb_sysopen - {}",
                path.display()
            ),
        )
    }
}

/// What a YAML file gives to `yaml_data`/`eyaml_lookup_key`: the hash, or `{}` with a warning
/// for a non-hash document; under strict=error a non-hash that is not `false` (an empty file)
/// fails (§6.1).
pub fn yaml_hash(
    file: &DataFile,
    path: &Path,
    strict_error: bool,
    warnings: &mut Vec<String>,
) -> Result<Value, LookupError> {
    if let Some(e) = file.unable_to_parse(path) {
        return Err(e);
    }
    let v = file
        .loaded()
        .as_ref()
        .map_err(|_| LookupError::lookup(""))?;
    if matches!(v, Value::Hash(_)) {
        return Ok(v.clone());
    }
    let msg = format!(
        "{}: file does not contain a valid yaml hash",
        path.display()
    );
    if strict_error && !matches!(v, Value::Bool(false)) {
        return Err(LookupError::lookup(msg).with_path(path));
    }
    warnings.push(msg);
    Ok(Value::hash(Hash::default()))
}

/// The `/.*ENC\[.*?\]/` test of eyaml (Ruby: `.` does not cross newlines).
pub fn is_encrypted(s: &str) -> bool {
    s.split('\n').any(|line| {
        line.find("ENC[")
            .is_some_and(|i| line[i + 4..].contains(']'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_detection() {
        assert!(is_encrypted("ENC[PKCS7,abc]"));
        assert!(is_encrypted("x ENC[GPG,a] y"));
        assert!(!is_encrypted("ENC[PKCS7,\nabc]"));
        assert!(!is_encrypted("plain"));
    }

    /// `root_keys` (read from the document) against the keys of the converted value, for one
    /// text in one format: both say whether the data is a Hash, and name the same keys.
    fn root_keys_agree(text: &str, format: Format) -> bool {
        let source = Arc::new(SourceFile::new("t", text.to_string()));
        let file = DataFile::parse(source, format);
        let from_doc: Option<Vec<String>> = file.root_keys().map(|m| {
            let mut k: Vec<String> = m.keys().map(|k| k.ruby_inspect()).collect();
            k.sort();
            k
        });
        let converted: Option<Vec<String>> = match file.loaded() {
            Ok(Value::Hash(h)) => {
                let mut k: Vec<String> = h.keys().map(|k| k.ruby_inspect()).collect();
                k.sort();
                Some(k)
            }
            _ => None,
        };
        assert_eq!(from_doc, converted, "{format:?}: {text:?}");
        // The list form, before and after the map is built, names the same keys (a key
        // written twice is listed twice before).
        let fresh = DataFile::parse(file.source.clone(), format);
        for f in [&fresh, &file] {
            let mut list: Vec<String> = f
                .root_key_values()
                .iter()
                .map(|k| k.ruby_inspect())
                .collect();
            list.sort();
            list.dedup();
            assert_eq!(
                Some(list).filter(|_| f.is_hash()),
                converted,
                "{format:?}: {text:?}"
            );
        }
        // The hashes the analysis files keys by are those of the listed keys, before and after
        // the map is built (the document's, then the map's).
        for f in [&fresh, &file] {
            let mut hashes: Vec<u64> = f.root_key_hashes().to_vec();
            let mut want: Vec<u64> = f.root_key_values().iter().map(key_hash).collect();
            hashes.sort_unstable();
            want.sort_unstable();
            if f.is_hash() {
                assert_eq!(hashes, want, "{format:?}: {text:?}");
            } else {
                assert!(hashes.is_empty(), "{format:?}: {text:?}");
            }
        }
        converted.is_some()
    }

    #[test]
    fn root_keys_are_the_converted_hash_keys() {
        let cases: &[(&str, Format, bool)] = &[
            ("a: 1\nb: 2\n", Format::Yaml, true),
            // Duplicates once; a symbol key and the string it names are one key.
            ("a: 1\na: 2\n:a: 3\n:b: 4\n", Format::Yaml, true),
            // Merge keys are expanded: their keys are root keys.
            ("base: &b {x: 1, y: 2}\n<<: *b\nx: 3\n", Format::Yaml, true),
            ("1: one\n~: nil\ntrue: yes\n", Format::Yaml, true),
            ("", Format::Yaml, false),
            ("---\n", Format::Yaml, false),
            ("- a\n- b\n", Format::Yaml, false),
            ("just text\n", Format::Yaml, false),
            ("a: [1\n", Format::Yaml, false),
            ("a: 2001-02-30\n", Format::Yaml, false),
            ("{\"a\": 1, \"a\": 2, \"b\": {}}", Format::Json, true),
            ("[1]", Format::Json, false),
            ("", Format::Json, false),
            ("{", Format::Json, false),
            ("", Format::Hocon, true),
            ("a = 1\nb { c = 2 }\n", Format::Hocon, true),
            ("a = ", Format::Hocon, false),
        ];
        for &(text, format, hash) in cases {
            assert_eq!(root_keys_agree(text, format), hash, "{format:?}: {text:?}");
        }
        // Every data file of the fixtures, in the format its extension names (but the hostile
        // ones: their bombs are for the scanner's limits, and fuzzing covers them).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut hashes = 0;
        let walk = walkdir::WalkDir::new(root)
            .into_iter()
            .filter_entry(|e| e.file_name() != "hostile");
        for e in walk.flatten() {
            let format = match e.path().extension().and_then(|x| x.to_str()) {
                Some("yaml" | "yml" | "eyaml") => Format::Yaml,
                Some("json") => Format::Json,
                Some("conf") => Format::Hocon,
                _ => continue,
            };
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            hashes += usize::from(root_keys_agree(&text, format));
        }
        assert!(hashes > 1000, "{hashes} fixture files hold a Hash");
    }

    #[test]
    fn symbol_keys_become_strings() {
        let mut inner = Hash::default();
        inner.insert(Value::Symbol("b".into()), Value::Symbol("v".into()));
        let mut h = Hash::default();
        h.insert(Value::Symbol("a".into()), Value::hash(inner));
        let v = symkeys_to_string(&Value::hash(h));
        assert_eq!(v.ruby_inspect(), r#"{"a"=>{"b"=>:v}}"#);
    }
}

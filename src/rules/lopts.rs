//! Helpers the lookup_options rules share: a data file's `lookup_options` hash as Puppet reads
//! it (the last of duplicate keys, entries written in the file), and what its entries say.

use crate::engine::vfs::FastSet as HashSet;

use crate::project::{FileRole, LoadedFile};
use crate::value::{Entry, Mapping, Node, Value};

/// The reserved key (reference §3.1).
pub const LOOKUP_OPTIONS: &str = "lookup_options";

/// The top-level `lookup_options` entry of a data file that Puppet can load, as Psych keeps it
/// (the last of duplicates). `None` for hiera.yaml files, files that do not load (their own
/// rules report them) and files without the key.
pub fn top_entry(file: &LoadedFile) -> Option<&Entry> {
    if !matches!(file.role, FileRole::Data | FileRole::Loose) || file.doc.fatal_issue().is_some() {
        return None;
    }
    let at = lookup_options_index(&file.doc)?;
    file.doc.root.as_ref()?.as_map()?.entries.get(at as usize)
}

/// The index, among the root mapping's entries, of the last `lookup_options` entry written
/// there (not one a `<<` merge key brings), found once per document
/// ([`crate::loader::Document::lookup_options_at`]).
pub fn lookup_options_index(doc: &crate::loader::Document) -> Option<u32> {
    lookup_options_found(doc).0
}

/// Whether any root entry of `doc` has the key `lookup_options`, a `<<` merge key's and
/// duplicates included (found with [`lookup_options_index`]).
pub fn any_lookup_options(doc: &crate::loader::Document) -> bool {
    lookup_options_found(doc).1
}

fn lookup_options_found(doc: &crate::loader::Document) -> (Option<u32>, bool) {
    *doc.lookup_options_at.get_or_init(|| {
        let Some(m) = doc.root.as_ref().and_then(|r| r.as_map()) else {
            return (None, false);
        };
        let mut last = None;
        let mut any = false;
        for (i, e) in m.entries.iter().enumerate() {
            if e.key.as_str() == Some(LOOKUP_OPTIONS) {
                any = true;
                if !e.merged {
                    last = u32::try_from(i).ok();
                }
            }
        }
        (last, any)
    })
}

/// The entries of a mapping that Puppet sees, in file order: for duplicate keys only the last
/// (Psych keeps the last value; the duplicate itself is H002's), and only entries written in
/// the mapping (a `<<` merge key's entries are reported where the anchor writes them).
pub fn effective_entries(map: &Mapping) -> Vec<&Entry> {
    let mut seen: HashSet<Value> = HashSet::default();
    let mut out: Vec<&Entry> = map
        .entries
        .iter()
        .rev()
        .filter(|e| seen.insert(e.key.to_value()))
        .filter(|e| !e.merged && !e.key.from_alias)
        .collect();
    out.reverse();
    out
}

/// The `lookup_options` hash of a file and its effective entries (empty when the value is not
/// a mapping).
pub fn entries(file: &LoadedFile) -> Vec<&Entry> {
    match top_entry(file).and_then(|e| e.value.as_map()) {
        Some(m) => effective_entries(m),
        None => Vec::new(),
    }
}

/// A lookup_options key as Puppet compares it: a String key (Symbols and other scalars never
/// equal a looked-up key).
pub fn key_text(key: &Node) -> Option<&str> {
    key.as_str()
}

/// Ruby regex metacharacters that make a lookup_options key look like a pattern, outside
/// `%{...}` interpolation tokens (keys are interpolated like any value, reference §3.1).
pub fn regex_metacharacters(key: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut rest = key;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("%{") {
            if let Some(end) = after.find('}') {
                rest = &after[end + 1..];
                continue;
            }
        }
        let Some(c) = rest.chars().next() else { break };
        if "*+?[](){}|\\$^".contains(c) && !out.contains(&c) {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::yaml;
    use crate::span::SourceFile;

    /// The last `lookup_options` written at the root, not one a `<<` brings in; none in a
    /// file without it or whose root is not a mapping.
    #[test]
    fn lookup_options_index_finds_the_last_written_entry() {
        let at = |text: &str| lookup_options_index(&yaml::load(&SourceFile::new("t.yaml", text)));
        assert_eq!(
            at("a: 1\nlookup_options: {}\nb: 2\nlookup_options: {a: {}}\n"),
            Some(3)
        );
        assert_eq!(at("d: &d {lookup_options: {}}\nx:\n  <<: *d\n"), None);
        assert_eq!(at("<<: {lookup_options: {}}\na: 1\n"), None);
        assert_eq!(at("a: 1\n"), None);
        assert_eq!(at("- lookup_options\n"), None);
        assert_eq!(at(""), None);
    }

    /// Any root `lookup_options`, one a `<<` brings included (merge-type-mismatch counts
    /// every entry): the parse-time answer that lets it pass other files over.
    #[test]
    fn any_lookup_options_counts_merged_entries_too() {
        let any = |text: &str| any_lookup_options(&yaml::load(&SourceFile::new("t.yaml", text)));
        assert!(any("a: 1\nlookup_options: {}\n"));
        assert!(any("<<: {lookup_options: {}}\na: 1\n"));
        assert!(!any("d: &d {lookup_options: {}}\nx:\n  <<: *d\n"));
        assert!(!any("a: {lookup_options: {}}\n"));
        assert!(!any("- lookup_options\n"));
        assert!(!any(""));
    }

    #[test]
    fn effective_entries_keep_the_last_duplicate_and_skip_merged_ones() {
        let file = SourceFile::new(
            "t.yaml",
            "d: &d {m: 1}\nh:\n  <<: *d\n  a: 1\n  b: 2\n  a: 3\n",
        );
        let doc = yaml::load(&file);
        let root = doc.root.unwrap();
        let h = root
            .as_map()
            .unwrap()
            .get_value("h")
            .unwrap()
            .as_map()
            .unwrap();
        let got: Vec<&str> = effective_entries(h)
            .iter()
            .map(|e| file.slice(e.value.span))
            .collect();
        assert_eq!(got, ["2", "3"]);
    }

    #[test]
    fn metacharacters_outside_interpolation() {
        assert_eq!(regex_metacharacters("profile::.*::packages$"), ['*', '$']);
        assert!(regex_metacharacters("profile::%{facts.role}::x").is_empty());
        assert!(regex_metacharacters("ntp::servers").is_empty());
        assert_eq!(regex_metacharacters("a%{b"), ['{']);
        assert_eq!(regex_metacharacters("x(y|z)"), ['(', '|', ')']);
    }
}

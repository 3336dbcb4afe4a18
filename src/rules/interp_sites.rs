//! The strings Puppet interpolates, found once for the interpolation rules (H201-H205,
//! H301-H302): in a data file, every string under a root key (values at any depth and the keys
//! of nested hashes; reference §5.1), and in a hiera.yaml every string of every hierarchy level
//! (`datadir`, locations, `mapped_paths`, `options`). Each [`Site`] knows how to turn a byte
//! range of its value into a source span ([`crate::value_span`]).

use std::borrow::Cow;

use crate::config::{HierarchyEntry, StringRole};
use crate::interp::{self, Token};
use crate::loader::{Document, InterpolatedString};
use crate::project::{FileRole, LoadedFile};
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind, Scalar, Value};

/// One interpolated string.
#[derive(Clone)]
pub struct Site<'a> {
    /// The string after YAML/JSON/HOCON parsing (what Puppet interpolates).
    pub value: Cow<'a, str>,
    /// The scalar's source span (quotes and block indicators included).
    pub span: Span,
    /// Data files: the root key whose value holds the string.
    pub root_key: Option<&'a str>,
    /// True for the key of a nested hash.
    pub is_key: bool,
    /// True inside a YAML alias expansion (`*name`) or a `<<` merged entry: the text is written
    /// elsewhere (the anchor), so token-level findings are reported there, not here.
    pub copied: bool,
    /// hiera.yaml: which field the string comes from.
    pub role: Option<StringRole>,
    /// A `mapped_paths` template: the variable bound to each mapped value (`mapped_paths[1]`),
    /// a local variable rather than a fact.
    pub local_var: Option<String>,
    /// The tokens of `value`, found by the first rule that asks ([`Site::tokens`]): a data
    /// file's sites serve six rules.
    tokens: std::sync::OnceLock<Vec<Token>>,
}

/// Where a string is interpolated: Puppet treats undefined variables differently there
/// (reference §5.6, §11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A data value or nested key.
    Data,
    /// A hiera.yaml location (`path(s)`, `glob(s)`, `uri(s)`, `mapped_paths`): Puppet 8
    /// interpolates these under `avoid_hiera_interpolation_errors` (PUP-11751).
    ConfigLocation,
    /// A hiera.yaml `datadir` or `options` string.
    ConfigOther,
}

/// What Puppet does with an undefined variable `name` (as Puppet prints it: `x`, `::x`) at a
/// place, on both versions.
pub fn undefined_effect(name: &str, place: Place) -> String {
    match place {
        Place::Data => format!(
            "Puppet 8 fails the lookup with `Undefined variable '{name}'`; Puppet 7 warns and interpolates an empty string"
        ),
        Place::ConfigLocation => format!(
            "Puppet interpolates an empty string with a warning (`Undefined variable '{name}'` on Puppet 7, `Interpolation failed with '{name}', but compilation continuing` on Puppet 8)"
        ),
        Place::ConfigOther => format!(
            "Puppet 8 fails every lookup through the layer with `Undefined variable '{name}'`; Puppet 7 warns and interpolates an empty string"
        ),
    }
}

impl Site<'_> {
    /// Where Puppet interpolates this string.
    pub fn place(&self) -> Place {
        match self.role {
            None => Place::Data,
            Some(
                StringRole::Location(_)
                | StringRole::MappedPathsScope
                | StringRole::MappedPathsTemplate,
            ) => Place::ConfigLocation,
            Some(StringRole::Datadir | StringRole::Option) => Place::ConfigOther,
        }
    }

    pub fn tokens(&self) -> &[Token] {
        self.tokens.get_or_init(|| interp::tokens(&self.value))
    }

    /// The source span of `range` of the value: exact when the source reads back to the value,
    /// else the whole scalar (an alias token, an explicit block indentation indicator).
    pub fn span_of(&self, file: &SourceFile, range: std::ops::Range<usize>) -> Span {
        crate::value_span::map_range(file.text(), self.span, &self.value, range)
            .unwrap_or(self.span)
    }

    /// Where an unterminated `%{` starts: Puppet's scan (`gsub(/%\{([^}]*)\}/)`) leaves it and
    /// everything after it literal (§5.2; recorded: interp/escapes-and-empty-tokens
    /// `unterminated`). It can only follow the last complete token.
    pub fn unterminated(&self, tokens: &[Token]) -> Option<usize> {
        let from = tokens.last().map_or(0, |t| t.range.end);
        self.value[from..].find("%{").map(|i| from + i)
    }
}

/// True for a data file that loads (Puppet reads nothing from a file that does not). Files the
/// user named outside an environment (`FileRole::Loose`, a pre-commit hook's file list) are
/// taken as data too: only Hiera data holds `%{` tokens.
fn readable_data(file: &LoadedFile) -> bool {
    matches!(file.role, FileRole::Data | FileRole::Loose) && file.doc.fatal_issue().is_none()
}

/// Every string Puppet interpolates in a data file, in file order. Root keys are not
/// interpolated (`data_hash_function_provider.rb` interpolates the value found under the key;
/// recorded: interp/lint-evidence `root_%{nope}`), the keys of nested hashes are.
pub fn data_sites(file: &LoadedFile) -> Vec<Site<'_>> {
    if !readable_data(file) {
        return Vec::new();
    }
    interpolated_strings(&file.doc, file.source.text())
        .iter()
        .map(|s| Site {
            value: Cow::Borrowed(&s.value),
            span: s.span,
            root_key: Some(&s.root_key),
            is_key: s.is_key,
            copied: s.copied,
            role: None,
            local_var: None,
            tokens: Default::default(),
        })
        .collect()
}

/// The strings of `doc` (a data file whose source text is `text`) that Puppet interpolates, in
/// file order ([`crate::loader::Document::interp_sites`]): found now unless found before.
/// The scan finds them for every file right after parsing it when a rule reading
/// interpolations runs, while the tree is in the cache.
pub fn interpolated_strings<'d>(doc: &'d Document, text: &str) -> &'d [InterpolatedString] {
    doc.interp_sites.get_or_init(|| {
        let mut out = Vec::new();
        if doc.fatal_issue().is_some() {
            return out.into();
        }
        let Some(root) = doc.root.as_ref().and_then(Node::as_map) else {
            return out.into();
        };
        if !crate::project::text_may_contain(text, doc.format, "%{") {
            return out.into();
        }
        // (node, is_key, copied); an explicit stack: nesting depth comes from the file. The
        // same one serves every root entry (an allocation per entry before).
        let mut stack: Vec<(&Node, bool, bool)> = Vec::new();
        for e in &root.entries {
            let NodeKind::Scalar(Scalar {
                value: Value::String(key),
                ..
            }) = &e.key.kind
            else {
                continue;
            };
            stack.push((&e.value, false, e.merged));
            while let Some((n, is_key, copied)) = stack.pop() {
                let copied = copied || n.from_alias;
                match &n.kind {
                    NodeKind::Scalar(Scalar {
                        value: Value::String(s),
                        ..
                    }) => {
                        if interp::has_interpolation(s) {
                            out.push(InterpolatedString {
                                value: s.clone(),
                                span: n.span,
                                root_key: key.clone(),
                                is_key,
                                copied,
                            });
                        }
                    }
                    NodeKind::Scalar(_) => {}
                    NodeKind::Seq(items) => {
                        stack.extend(items.iter().rev().map(|i| (i, false, copied)));
                    }
                    NodeKind::Map(m) => {
                        for entry in m.entries.iter().rev() {
                            let c = copied || entry.merged;
                            stack.push((&entry.value, false, c));
                            stack.push((&entry.key, true, c));
                        }
                    }
                }
            }
        }
        out.into()
    })
}

/// Every string of a hiera.yaml that Puppet interpolates, once per source span (a `defaults`
/// string is shared by the levels that do not override it).
pub fn config_sites(file: &LoadedFile) -> Vec<Site<'static>> {
    let mut out: Vec<Site<'static>> = Vec::new();
    let Some(cfg) = &file.hiera_config().0 else {
        return out;
    };
    let mut entries: Vec<&HierarchyEntry> = cfg.hierarchy.iter().collect();
    if let Some((_, d)) = &cfg.default_hierarchy {
        entries.extend(d);
    }
    if let Some((_, p)) = &cfg.plan_hierarchy {
        entries.extend(p);
    }
    for e in entries {
        let mapped_var = match &e.locations {
            crate::config::Locations::MappedPaths { var, .. } => Some(var.value.clone()),
            _ => None,
        };
        for raw in e.raw_strings(&cfg.defaults) {
            let scope_expr = raw.role == StringRole::MappedPathsScope;
            if !scope_expr && !interp::has_interpolation(&raw.value) {
                continue;
            }
            if out
                .iter()
                .any(|s| s.span == raw.span && s.role == Some(raw.role))
            {
                continue;
            }
            out.push(Site {
                value: Cow::Owned(raw.value),
                span: raw.span,
                root_key: None,
                is_key: false,
                copied: false,
                role: Some(raw.role),
                local_var: mapped_var
                    .clone()
                    .filter(|_| raw.role == StringRole::MappedPathsTemplate),
                tokens: Default::default(),
            });
        }
    }
    out.sort_by_key(|s| s.span);
    out
}

pub use crate::analysis::ReadIndex;

/// A key as a lookup request: quoted when it holds a dot or a quote, so that a root key with
/// dots is looked up literally (as [`Group::outcomes`] does).
pub fn request_for_root_key(k: &str) -> String {
    if k.contains(['.', '\'', '"']) && !k.contains('"') {
        format!("\"{k}\"")
    } else if k.contains(['.', '\'']) {
        format!("'{k}'")
    } else {
        k.to_string()
    }
}

/// Edit distance (Levenshtein, on characters), for "did you mean" notes.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass over the text that lets files without interpolation skip the tree walk
    /// (`project::text_may_contain`) misses no string that decodes to `%{`: escapes in
    /// double-quoted YAML and JSON, a `!!binary` value, a nested key.
    #[test]
    fn sites_are_found_however_the_text_writes_them() {
        use crate::loader::{self, Format};
        use crate::project::Layer;
        let sites = |path: &str, format: Format, text: &str| {
            let source = std::sync::Arc::new(SourceFile::new(path, text));
            let doc = loader::load(format, &source);
            let f = LoadedFile::new(source, doc, FileRole::Data, Layer::Environment, None);
            data_sites(&f)
                .iter()
                .map(|s| s.value.to_string())
                .collect::<Vec<_>>()
        };
        let yaml = |t: &str| sites("/e/data/common.yaml", Format::Yaml, t);
        assert_eq!(yaml("a: \"\\x25{facts.x}\"\n"), vec!["%{facts.x}"]);
        assert_eq!(yaml("a: \"%\\x7bfacts.x}\"\n"), vec!["%{facts.x}"]);
        assert_eq!(yaml("a: !!binary JXtmYWN0cy54fQ==\n"), vec!["%{facts.x}"]);
        // A binary tag that does not write `binary`: through a `%TAG` handle, or URI-escaped
        // (both decode, recorded: conformance/yaml/binary-tags; the rules once skipped these
        // files while the engine decoded them).
        assert_eq!(
            yaml("%TAG !b! tag:yaml.org,2002:bin\n---\na: !b!ary JXtmYWN0cy54fQ==\n"),
            vec!["%{facts.x}"]
        );
        assert_eq!(yaml("a: !!bin%61ry JXtmYWN0cy54fQ==\n"), vec!["%{facts.x}"]);
        assert_eq!(yaml("a:\n  \"%{k}\": 1\n"), vec!["%{k}"]);
        assert_eq!(yaml("a: \"%\n  {x}\"\n"), Vec::<String>::new());
        assert_eq!(yaml("a: plain\nb: [1, 2]\n"), Vec::<String>::new());
        let json = sites(
            "/e/data/common.json",
            Format::Json,
            "{\"a\": \"\\u0025{x}\"}",
        );
        assert_eq!(json, vec!["%{x}"]);
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("lokup", "lookup"), 1);
        assert_eq!(edit_distance("Lookup", "lookup"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("alais", "alias"), 2);
    }

    #[test]
    fn root_key_requests() {
        assert_eq!(request_for_root_key("a::b"), "a::b");
        assert_eq!(request_for_root_key("a.b"), "\"a.b\"");
        assert_eq!(request_for_root_key("it's.x"), "\"it's.x\"");
        assert_eq!(request_for_root_key("say \"x\""), "say \"x\"");
    }
}

//! What is under the cursor in a loaded file (a key, a `%{...}` token), and every token and key
//! definition of a file, with source spans. Trees are walked with explicit stacks or loops
//! (never recursion): nesting depth is the data's.

use crate::interp::{self, Segment, Token};
use crate::project::{FileRole, LoadedFile};
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind, Value};

/// The key Hiera reads its lookup options from (reference §4).
const LOOKUP_OPTIONS: &str = "lookup_options";

/// Something the cursor can be on.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A key of a data file. `lookup` is the key to look up (the root key, or a dotted key
    /// into its value for a nested key), `root` the root key, `span` the key's span.
    Key {
        lookup: String,
        root: String,
        span: Span,
    },
    /// A `%{...}` token of a string: `text` is the token as written in the value
    /// (`%{lookup('k')}`), `span` where it is in the file.
    Token {
        token: Token,
        text: String,
        span: Span,
        /// True in hiera.yaml (where method interpolation is not allowed, reference §5.3).
        in_config: bool,
    },
}

impl Target {
    pub fn span(&self) -> Span {
        match self {
            Target::Key { span, .. } | Target::Token { span, .. } => *span,
        }
    }

    /// The root key this target looks up, if any (a key, or a lookup/alias/hiera token).
    pub fn root_key(&self) -> Option<String> {
        match self {
            Target::Key { root, .. } => Some(root.clone()),
            Target::Token { token, .. } => token.lookup_key().and_then(root_of),
        }
    }
}

/// The root key of a lookup key (`a.b` → `a`, `"a.b".c` → `a.b`); `None` when the key does not
/// parse (Puppet fails such lookups) or starts with an index.
pub fn root_of(key: &str) -> Option<String> {
    match interp::split_key(key).ok()?.into_iter().next()? {
        Segment::Str(s) => Some(s),
        Segment::Int(_) => None,
    }
}

fn contains(span: Span, offset: usize) -> bool {
    span.start as usize <= offset && offset <= span.end as usize
}

/// A string key of a mapping as Puppet reads it (String or Symbol).
pub fn key_string(key: &Node) -> Option<String> {
    match key.as_scalar().map(|s| &s.value) {
        Some(Value::String(s)) | Some(Value::Symbol(s)) => Some(s.to_string()),
        _ => None,
    }
}

/// One segment of a dotted key, quoted when Puppet's `split_key` would otherwise cut or convert
/// it; `None` when no quoting can express it.
fn dotted_segment(s: &str) -> Option<String> {
    let plain = !s.is_empty()
        && !s.contains(['.', '\'', '"'])
        && s.trim() == s
        && !s
            .trim_start_matches(':')
            .trim_start_matches(['+', '-'])
            .bytes()
            .all(|b| b.is_ascii_digit());
    if plain {
        Some(s.to_string())
    } else if !s.contains('"') {
        Some(format!("\"{s}\""))
    } else if !s.contains('\'') {
        Some(format!("'{s}'"))
    } else {
        None
    }
}

/// Path step from a root key's value down to the node under the cursor.
enum Step {
    Key(String),
    Index(usize),
}

/// What is at byte `offset` of `file`.
pub fn target_at(file: &LoadedFile, offset: usize) -> Option<Target> {
    let root = file.doc.root.as_ref()?;
    let in_config = file.role == FileRole::HieraConfig;
    let mut node = root;
    let mut path: Vec<Step> = Vec::new();
    loop {
        match &node.kind {
            NodeKind::Map(m) => {
                let mut next = None;
                for e in m.entries.iter().filter(|e| !e.merged) {
                    if contains(e.key.span, offset) && e.key.as_scalar().is_some() {
                        if let Some(t) = token_at(&file.source, &e.key, offset, in_config) {
                            return Some(t);
                        }
                        if in_config {
                            return None;
                        }
                        let k = key_string(&e.key)?;
                        return key_target(&path, k, e.key.span);
                    }
                    if contains(e.value.span, offset) {
                        next = Some(e);
                        break;
                    }
                }
                let e = next?;
                path.push(Step::Key(key_string(&e.key).unwrap_or_default()));
                node = &e.value;
            }
            NodeKind::Seq(items) => {
                let (i, item) = items
                    .iter()
                    .enumerate()
                    .find(|(_, n)| contains(n.span, offset))?;
                path.push(Step::Index(i));
                node = item;
            }
            NodeKind::Scalar(_) => return token_at(&file.source, node, offset, in_config),
        }
    }
}

fn key_target(path: &[Step], key: String, span: Span) -> Option<Target> {
    match path.first() {
        None if key == LOOKUP_OPTIONS => None,
        None => Some(Target::Key {
            lookup: dotted_segment(&key).unwrap_or_else(|| key.clone()),
            root: key,
            span,
        }),
        // A key under lookup_options names the key it configures (patterns start with `^`).
        Some(Step::Key(r)) if r == LOOKUP_OPTIONS => (path.len() == 1 && !key.starts_with('^'))
            .then(|| Target::Key {
                lookup: dotted_segment(&key).unwrap_or_else(|| key.clone()),
                root: key,
                span,
            }),
        Some(Step::Key(root)) => {
            // A nested key: the dotted key that digs to it (sub-lookup, reference §7.1).
            let mut dotted = dotted_segment(root)?;
            for step in &path[1..] {
                dotted.push('.');
                match step {
                    Step::Key(k) => dotted.push_str(&dotted_segment(k)?),
                    Step::Index(i) => dotted.push_str(&i.to_string()),
                }
            }
            dotted.push('.');
            dotted.push_str(&dotted_segment(&key)?);
            Some(Target::Key {
                lookup: dotted,
                root: root.clone(),
                span,
            })
        }
        Some(Step::Index(_)) => None,
    }
}

/// The tokens of a string scalar with their spans in the file.
///
/// Tokens are found in the value (what Puppet interpolates) and placed in the source: where the
/// source text of the scalar is its value (plain and simple quoted scalars), offsets carry
/// over; otherwise (escapes, folded lines) each token's text is searched for in the source, in
/// order, and a token not found there is given the span of the whole scalar.
pub fn scalar_tokens(source: &SourceFile, node: &Node) -> Vec<(Span, Token, String)> {
    let Some(text) = node.as_scalar().and_then(|s| match &s.value {
        Value::String(v) => Some(v.clone()),
        _ => None,
    }) else {
        return Vec::new();
    };
    if !interp::has_interpolation(&text) {
        return Vec::new();
    }
    let raw = source.slice(node.span);
    let mut out = Vec::new();
    let mut from = 0;
    for t in interp::tokens(&text) {
        let token_text = text.get(t.range.clone()).unwrap_or("").to_string();
        let span = if raw == &*text {
            node.span.sub(t.range.start, t.range.end)
        } else {
            match raw.get(from..).and_then(|r| r.find(&token_text)) {
                Some(at) => {
                    let start = from + at;
                    from = start + token_text.len();
                    node.span.sub(start, start + token_text.len())
                }
                None => node.span,
            }
        };
        out.push((span, t, token_text));
    }
    out
}

fn token_at(source: &SourceFile, node: &Node, offset: usize, in_config: bool) -> Option<Target> {
    scalar_tokens(source, node)
        .into_iter()
        .find(|(span, _, _)| contains(*span, offset))
        .map(|(span, token, text)| Target::Token {
            token,
            text,
            span,
            in_config,
        })
}

/// Every `%{...}` token of a file (in keys and values), in file order.
pub fn all_tokens(file: &LoadedFile) -> Vec<(Span, Token)> {
    let mut out = Vec::new();
    let Some(root) = &file.doc.root else {
        return out;
    };
    let mut stack: Vec<&Node> = vec![root];
    while let Some(n) = stack.pop() {
        match &n.kind {
            NodeKind::Scalar(_) => {
                out.extend(
                    scalar_tokens(&file.source, n)
                        .into_iter()
                        .map(|(s, t, _)| (s, t)),
                );
            }
            NodeKind::Seq(items) => stack.extend(items.iter().rev()),
            NodeKind::Map(m) => {
                for e in m.entries.iter().rev().filter(|e| !e.merged) {
                    stack.push(&e.value);
                    stack.push(&e.key);
                }
            }
        }
    }
    out
}

/// The spans of the root keys named `root` in a data file (every occurrence: a duplicate key is
/// a definition too, even though Psych keeps only the last one).
pub fn root_definitions(file: &LoadedFile, root: &str) -> Vec<Span> {
    let Some(m) = file.doc.root.as_ref().and_then(Node::as_map) else {
        return Vec::new();
    };
    m.entries
        .iter()
        .filter(|e| !e.merged && key_string(&e.key).as_deref() == Some(root))
        .map(|e| e.key.span)
        .collect()
}

/// The spans of `lookup_options` entries that name `root` literally.
pub fn lookup_options_entries(file: &LoadedFile, root: &str) -> Vec<Span> {
    let Some(opts) = file
        .doc
        .root
        .as_ref()
        .and_then(Node::as_map)
        .and_then(|m| m.get_value(LOOKUP_OPTIONS))
        .and_then(Node::as_map)
    else {
        return Vec::new();
    };
    opts.entries
        .iter()
        .filter(|e| !e.merged && key_string(&e.key).as_deref() == Some(root))
        .map(|e| e.key.span)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::{self, Format};
    use crate::project::Layer;
    use std::sync::Arc;

    fn loaded(text: &str, role: FileRole) -> LoadedFile {
        let source = Arc::new(SourceFile::new("/e/data/common.yaml", text));
        let doc = loader::load(Format::Yaml, &source);
        LoadedFile::new(source, doc, role, Layer::Environment, None)
    }

    fn at(text: &str, needle: &str, delta: usize) -> usize {
        text.find(needle).unwrap() + delta
    }

    #[test]
    fn keys_nested_keys_and_tokens() {
        let text = "a::b: 1\nusers:\n  al.ice:\n    uid: 1\n  '7': x\nlist:\n  - k: v\nmsg: \"x %{lookup('a::b.c')} y\"\nlookup_options:\n  a::b:\n    merge: deep\n";
        let f = loaded(text, FileRole::Data);
        let t = target_at(&f, at(text, "a::b:", 2)).unwrap();
        assert_eq!(
            t,
            Target::Key {
                lookup: "a::b".into(),
                root: "a::b".into(),
                span: Span::new(0, 4)
            }
        );
        match target_at(&f, at(text, "uid", 1)).unwrap() {
            Target::Key { lookup, root, .. } => {
                assert_eq!(lookup, "users.\"al.ice\".uid");
                assert_eq!(root, "users");
            }
            other => panic!("{other:?}"),
        }
        match target_at(&f, at(text, "'7'", 1)).unwrap() {
            Target::Key { lookup, .. } => assert_eq!(lookup, "users.\"7\""),
            other => panic!("{other:?}"),
        }
        match target_at(&f, at(text, "k: v", 0)).unwrap() {
            Target::Key { lookup, .. } => assert_eq!(lookup, "list.0.k"),
            other => panic!("{other:?}"),
        }
        let tok = at(text, "%{lookup", 0);
        match target_at(&f, tok + 5).unwrap() {
            Target::Token {
                token,
                text: tt,
                span,
                ..
            } => {
                assert_eq!(tt, "%{lookup('a::b.c')}");
                assert_eq!(span, Span::new(tok, tok + tt.len()));
                assert_eq!(token.lookup_key(), Some("a::b.c"));
                assert_eq!(
                    target_at(&f, tok).unwrap().root_key().as_deref(),
                    Some("a::b")
                );
            }
            other => panic!("{other:?}"),
        }
        // lookup_options: the root key is not a target, a literal entry names its key
        assert_eq!(target_at(&f, at(text, "lookup_options", 1)), None);
        let lo = text.rfind("a::b:").unwrap();
        assert_eq!(
            target_at(&f, lo + 1).unwrap().root_key().as_deref(),
            Some("a::b")
        );
        assert_eq!(target_at(&f, at(text, "merge", 1)), None);
        assert_eq!(root_definitions(&f, "a::b"), vec![Span::new(0, 4)]);
        assert_eq!(lookup_options_entries(&f, "a::b").len(), 1);
        assert_eq!(all_tokens(&f).len(), 1);
    }

    #[test]
    fn tokens_in_escaped_scalars_are_found_in_the_source() {
        let text = "k: \"\\t%{facts.x}\\u00e9%{::y}\"\n";
        let f = loaded(text, FileRole::Data);
        let toks = all_tokens(&f);
        assert_eq!(toks.len(), 2);
        let a = text.find("%{facts").unwrap();
        assert_eq!(toks[0].0, Span::new(a, a + "%{facts.x}".len()));
        let b = text.find("%{::y}").unwrap();
        assert_eq!(toks[1].0, Span::new(b, b + 6));
    }

    #[test]
    fn config_keys_are_not_targets_but_tokens_are() {
        let text =
            "version: 5\nhierarchy:\n  - name: n\n    path: \"nodes/%{trusted.certname}.yaml\"\n";
        let f = loaded(text, FileRole::HieraConfig);
        assert_eq!(target_at(&f, 2), None);
        match target_at(&f, at(text, "%{trusted", 3)).unwrap() {
            Target::Token {
                in_config, text, ..
            } => {
                assert!(in_config);
                assert_eq!(text, "%{trusted.certname}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 20_000;
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let f = loaded(&format!("k: {text}\n"), FileRole::Data);
        let _ = target_at(&f, 3 + depth);
        let _ = all_tokens(&f);
    }
}

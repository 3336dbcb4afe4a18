//! Helpers the syntax rules share: walking the scalars written in a file, quoting a scalar so
//! that its value stays the same, and narrowing spans.

use crate::loader::{Document, ScalarFlags};
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind, Scalar, ScalarStyle};

/// A scalar as written in the file, with where it sits.
#[derive(Clone, Copy, Debug)]
pub struct ScalarAt<'a> {
    pub node: &'a Node,
    pub scalar: &'a Scalar,
    /// The scalar is a mapping key.
    pub is_key: bool,
    /// The scalar is a key of the root mapping (a name Hiera looks up).
    pub top_level_key: bool,
}

/// Every scalar written in the document, keys and values, in file order.
///
/// Skips what the file does not write at that place: alias expansions (`*name` copies the
/// anchored node, whose scalars are visited where the anchor is) and entries a `<<` merge key
/// brought in. Uses an explicit stack, so hostile nesting cannot overflow the call stack.
pub fn scalars(root: &Node) -> Vec<ScalarAt<'_>> {
    // Sized from the text the root spans (about one scalar per 10 bytes in generated and real
    // data): grown from empty, the vector was reallocated a dozen times per file, a third of
    // this walk's cost.
    let mut out =
        Vec::with_capacity(((root.span.end - root.span.start) as usize / 10).min(1 << 16));
    // (node, is_key, top_level_key)
    let mut stack: Vec<(&Node, bool, bool)> = Vec::with_capacity(64);
    stack.push((root, false, false));
    while let Some((node, is_key, top_level_key)) = stack.pop() {
        if node.from_alias {
            continue;
        }
        match &node.kind {
            NodeKind::Scalar(scalar) => out.push(ScalarAt {
                node,
                scalar,
                is_key,
                top_level_key,
            }),
            NodeKind::Seq(items) => {
                for item in items.iter().rev() {
                    stack.push((item, false, false));
                }
            }
            NodeKind::Map(m) => {
                let is_root = std::ptr::eq(node, root);
                for e in m.entries.iter().rev().filter(|e| !e.merged) {
                    stack.push((&e.value, false, false));
                    stack.push((&e.key, true, is_root));
                }
            }
        }
    }
    // The walk visits keys before values, in file order: almost always sorted already (a
    // check costs a fraction of the sort's pass).
    let key = |s: &ScalarAt<'_>| (s.node.span.start, s.node.span.end);
    if !out.is_sorted_by_key(key) {
        out.sort_by_key(key);
    }
    out
}

/// [`ScalarFlags`] of `doc`: found now (a walk of the tree) unless found before.
///
/// The scan finds them for every file right after parsing it when a rule that reads them runs
/// (`ScanOptions::scalar_flags`): then the tree is still in the cache. The rules ask here
/// first and skip the file's walk when nothing in it is theirs to report.
pub fn flags(doc: &Document) -> ScalarFlags {
    *doc.scalar_flags.get_or_init(|| {
        let mut f = ScalarFlags::default();
        if let Some(root) = &doc.root {
            // The scalars `scalars` lists, in the same walk (keys included, alias expansions
            // and `<<`-merged entries left out), without the list.
            let mut stack: Vec<(&Node, bool)> = Vec::with_capacity(64);
            stack.push((root, false));
            while let Some((node, is_key)) = stack.pop() {
                if node.from_alias {
                    continue;
                }
                match &node.kind {
                    NodeKind::Scalar(s) => {
                        if !is_key && matches!(s.value, crate::value::Value::Symbol(_)) {
                            f.symbol_value = true;
                        }
                        if !f.yaml11_surprise
                            && s.style == ScalarStyle::Plain
                            && node.tag().is_none()
                            && super::yaml11_implicit_type::surprises(s, is_key)
                        {
                            f.yaml11_surprise = true;
                        }
                        if !f.plain_interpolation
                            && s.style == ScalarStyle::Plain
                            && crate::interp::has_interpolation(&s.text)
                        {
                            f.plain_interpolation = true;
                        }
                        if !f.eyaml_token && !is_key {
                            if let crate::value::Value::String(v) = &s.value {
                                f.eyaml_token = crate::interp::contains_short(v, "ENC[");
                            }
                        }
                        if f.symbol_value
                            && f.yaml11_surprise
                            && f.plain_interpolation
                            && f.eyaml_token
                        {
                            break;
                        }
                    }
                    NodeKind::Seq(items) => stack.extend(items.iter().map(|i| (i, false))),
                    NodeKind::Map(m) => {
                        for e in m.entries.iter().filter(|e| !e.merged) {
                            stack.push((&e.value, false));
                            stack.push((&e.key, true));
                        }
                    }
                }
            }
        }
        f
    })
}

/// The scalar whose span is exactly `span`, in the output of [`scalars`] (sorted by span).
pub fn find_at<'s, 'a>(scalars: &'s [ScalarAt<'a>], span: Span) -> Option<&'s ScalarAt<'a>> {
    let i =
        scalars.partition_point(|s| (s.node.span.start, s.node.span.end) < (span.start, span.end));
    scalars.get(i).filter(|s| s.node.span == span)
}

/// The source text of a single-line scalar, when it is exactly its value (a plain scalar on one
/// line: what it says is what it means). `None` when quoting it could change the value.
pub fn single_line_plain<'a>(file: &'a SourceFile, at: &ScalarAt<'_>) -> Option<&'a str> {
    if at.scalar.style != ScalarStyle::Plain || at.node.tag().is_some() {
        return None;
    }
    let src = file.slice(at.node.span);
    (src == &*at.scalar.text && !src.contains(['\n', '\r'])).then_some(src)
}

/// `text` as a YAML quoted scalar with the same value: single quotes unless the text holds a
/// `'`, else double quotes with `\` and `"` escaped. Only for text without line breaks or other
/// control characters except tab (a plain scalar's text).
pub fn quote(text: &str) -> String {
    if !text.contains('\'') {
        format!("'{text}'")
    } else {
        let mut s = String::with_capacity(text.len() + 2);
        s.push('"');
        for c in text.chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                '"' => s.push_str("\\\""),
                c => s.push(c),
            }
        }
        s.push('"');
        s
    }
}

/// `span` cut at the end of its first line (without the line break), for labels on values that
/// run over many lines.
pub fn first_line(file: &SourceFile, span: Span) -> Span {
    let text = file.slice(span);
    match text.find('\n') {
        Some(i) => {
            let line = &text[..i];
            let line = line.strip_suffix('\r').unwrap_or(line);
            Span::new(span.start as usize, span.start as usize + line.len())
        }
        None => span,
    }
}

/// `span` cut to its first line and before any comment that starts in it, without trailing
/// blanks: for labels on a value that starts a long block (a whole top-level list).
pub fn first_line_of_content(
    file: &SourceFile,
    comments: &[crate::loader::Comment],
    span: Span,
) -> Span {
    let mut s = first_line(file, span);
    if let Some(c) = comments
        .iter()
        .find(|c| c.span.start > s.start && c.span.start < s.end)
    {
        s.end = c.span.start;
    }
    let text = file.slice(s);
    let trimmed = text.trim_end_matches([' ', '\t']);
    Span::new(s.start as usize, s.start as usize + trimmed.len())
}

/// An empty span widened to the character it points at (not a line break), so the label shows
/// where the parser stopped.
pub fn at_char(file: &SourceFile, span: Span) -> Span {
    if !span.is_empty() {
        return span;
    }
    let at = span.start as usize;
    match file.text().get(at..).and_then(|t| t.chars().next()) {
        Some(c) if c != '\n' && c != '\r' => Span::new(at, at + c.len_utf8()),
        _ => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::yaml;

    fn texts(src: &str) -> Vec<(String, bool, bool)> {
        let file = SourceFile::new("t.yaml", src);
        let doc = yaml::load(&file);
        scalars(doc.root.as_ref().unwrap())
            .iter()
            .map(|s| {
                (
                    file.slice(s.node.span).to_string(),
                    s.is_key,
                    s.top_level_key,
                )
            })
            .collect()
    }

    #[test]
    fn visits_keys_and_values_in_file_order_skipping_aliases_and_merges() {
        let got = texts("a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n  e: [f, 'g']\n");
        let want = [
            ("a", true, true),
            ("b", true, false),
            ("1", false, false),
            ("c", true, true),
            ("d", true, true),
            ("e", true, false),
            ("f", false, false),
            ("'g'", false, false),
        ];
        let got: Vec<(&str, bool, bool)> = got
            .iter()
            .map(|(t, k, top)| (t.as_str(), *k, *top))
            .collect();
        assert_eq!(got, want);
    }

    /// The flags' own walk says what a pass over [`scalars`] says: the rules skip a file on
    /// the flags alone, so a scalar the flags miss would be a finding lost.
    #[test]
    fn flags_agree_with_the_scalars_the_rules_walk() {
        let docs = [
            ("a: on\n", true, false),
            ("a: true\nb: 'on'\nc: !!str on\n", false, false),
            ("true: x\n", true, false),
            ("a: {b: [x, 0755]}\n", true, false),
            ("a: 1e3\n", true, false),
            ("a: 10.0.0.1\nb: 1.5\n", false, false),
            ("a: :sym\n", false, true),
            (":sym: x\n", false, false),
            ("a: [x, {b: c}]\nd: yes\ne:\n  - :s\n", true, true),
            // An anchored scalar counts where the anchor is, not where an alias repeats it;
            // `<<`-merged entries count in the mapping they come from.
            ("a: &x on\nb: *x\n", true, false),
            ("a: &m\n  k: :s\nb:\n  <<: *m\n", false, true),
            ("", false, false),
            ("- on\n- :s\n", true, true),
        ];
        // The plain scalars holding `%{` (unquoted-interpolation's), keys included; quoted
        // ones and an alias of an anchored one do not count.
        let interpolations = [
            ("a: x%{b}\n", true),
            ("x%{b}: 1\n", true),
            ("a:\n  k%{b}: 1\n", true),
            ("a: 'x%{b}'\nb: \"x%{c}\"\nc: |\n  x%{d}\n", false),
            ("a: &x 'y%{b}'\nb: *x\n", false),
            ("a:\n  - 1\n  - x%{b}\n", true),
            ("a: x%b\n", false),
        ];
        for (text, want) in interpolations {
            let doc = yaml::load(&SourceFile::new("t.yaml", text));
            let by_walk = doc.root.as_ref().is_some_and(|r| {
                scalars(r).iter().any(|s| {
                    s.scalar.style == ScalarStyle::Plain
                        && crate::interp::has_interpolation(&s.scalar.text)
                })
            });
            assert_eq!(flags(&doc).plain_interpolation, by_walk, "{text:?}");
            assert_eq!(by_walk, want, "{text:?}");
        }
        for (text, yaml11, symbol) in docs {
            let file = SourceFile::new("t.yaml", text);
            let doc = yaml::load(&file);
            let by_walk = doc.root.as_ref().map_or((false, false), |r| {
                let all = scalars(r);
                (
                    all.iter().any(|s| {
                        s.scalar.style == ScalarStyle::Plain
                            && s.node.tag().is_none()
                            && crate::rules::yaml11_implicit_type::surprises(s.scalar, s.is_key)
                    }),
                    all.iter().any(|s| {
                        !s.is_key && matches!(s.scalar.value, crate::value::Value::Symbol(_))
                    }),
                )
            });
            let f = flags(&doc);
            assert_eq!((f.yaml11_surprise, f.symbol_value), by_walk, "{text:?}");
            assert_eq!(by_walk, (yaml11, symbol), "{text:?}");
        }
    }

    #[test]
    fn quotes_keep_the_value() {
        assert_eq!(quote("a%{b}"), "'a%{b}'");
        assert_eq!(quote("it's \\ \"x\""), r#""it's \\ \"x\"""#);
        for text in ["a%{b}", "it's \\ \"x\"", "x\ty"] {
            let file = SourceFile::new("t.yaml", format!("k: {}\n", quote(text)));
            let doc = yaml::load(&file);
            let v = doc.root.unwrap().as_map().unwrap().entries[0]
                .value
                .to_value();
            assert_eq!(v.as_str(), Some(text));
        }
    }

    #[test]
    fn first_line_of_content_stops_at_comments() {
        let file = SourceFile::new("t.yaml", "- a  # c\n- b\n");
        let doc = yaml::load(&file);
        let root = doc.root.unwrap();
        assert_eq!(
            first_line_of_content(&file, &doc.comments, root.span),
            Span::new(0, 3)
        );
    }

    #[test]
    fn first_line_and_at_char() {
        let file = SourceFile::new("t.yaml", "ab\r\ncd\né");
        assert_eq!(first_line(&file, Span::new(0, 7)), Span::new(0, 2));
        assert_eq!(at_char(&file, Span::empty(7)), Span::new(7, 9));
        assert_eq!(at_char(&file, Span::empty(0)), Span::new(0, 1));
        assert_eq!(at_char(&file, Span::empty(2)), Span::empty(2));
        assert_eq!(at_char(&file, Span::empty(6)), Span::empty(6));
        assert_eq!(at_char(&file, Span::empty(9)), Span::empty(9));
    }
}

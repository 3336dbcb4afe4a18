//! Invariants every loader result must satisfy on any input, shared by the fuzz targets and by
//! the regression tests in `tests/hostile.rs` (which include this file with `#[path]`).
//!
//! A loader must never panic, and everything it returns must be usable by the rest of hieralint
//! without further checks: every span (node, key, tag, comment, issue) lies inside the text and on
//! UTF-8 character boundaries, `line_col` works for both ends, and the tree converts to Puppet
//! data and prints. The walk uses an explicit stack, so the checker itself survives any depth the
//! loader lets through.

use hieralint::loader::Document;
use hieralint::span::{SourceFile, Span};
use hieralint::value::{Node, NodeKind};

/// Line starts counted directly from the text (the oracle for `SourceFile::line_col`).
pub struct Lines(Vec<usize>);

impl Lines {
    /// Line starts counted directly: after `\n`, and after a `\r` not followed by `\n` (a
    /// lone `\r` ends a line, as libyaml counts lines; docs/integrations.md "Positions").
    pub fn of(text: &str) -> Lines {
        let b = text.as_bytes();
        let mut v = vec![0];
        for (i, &c) in b.iter().enumerate() {
            if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
                v.push(i + 1);
            }
        }
        Lines(v)
    }

    /// 1-based line and character column of a byte offset on a character boundary.
    fn line_col(&self, text: &str, at: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&s| s <= at);
        let start = self.0[line - 1];
        (line, text[start..at].chars().count() + 1)
    }
}

/// Checks one span against the file: in bounds, ordered, on character boundaries, and
/// `line_col` agrees with a direct count for both ends.
pub fn check_span(file: &SourceFile, span: Span, what: &str) -> Result<(), String> {
    check_span_with(file, &Lines::of(file.text()), span, what)
}

fn check_span_with(file: &SourceFile, lines: &Lines, span: Span, what: &str) -> Result<(), String> {
    let text = file.text();
    let (s, e) = (span.start as usize, span.end as usize);
    if s > e || e > text.len() {
        return Err(format!(
            "{what} span {s}..{e} out of bounds (text is {} bytes)",
            text.len()
        ));
    }
    if !text.is_char_boundary(s) || !text.is_char_boundary(e) {
        return Err(format!(
            "{what} span {s}..{e} is not on character boundaries"
        ));
    }
    for at in [s, e] {
        let lc = file.line_col(at);
        let (line, column) = lines.line_col(text, at);
        if (lc.line, lc.column) != (line, column) {
            return Err(format!(
                "{what} offset {at}: line_col says {}:{}, the text says {line}:{column}",
                lc.line, lc.column
            ));
        }
    }
    Ok(())
}

/// Checks every span of a loaded document and that its data converts and prints.
pub fn check_document(file: &SourceFile, doc: &Document) -> Result<(), String> {
    let lines = Lines::of(file.text());
    for c in &doc.comments {
        check_span_with(file, &lines, c.span, "comment")?;
    }
    for i in &doc.issues {
        check_span_with(file, &lines, i.span, &format!("issue ({:?})", i.kind))?;
        if i.message.is_empty() {
            return Err(format!("issue {:?} without a message", i.kind));
        }
    }
    if let Some(root) = &doc.root {
        check_tree_with(file, &lines, root)?;
        let v = root.to_value();
        let _ = v.ruby_inspect();
        let _ = v.to_ruby_s();
        let _ = v.to_json();
    }
    let _ = doc.puppet_data();
    Ok(())
}

/// Walks a node tree (explicit stack) checking every node, key and tag span.
pub fn check_tree(file: &SourceFile, root: &Node) -> Result<(), String> {
    check_tree_with(file, &Lines::of(file.text()), root)
}

fn check_tree_with(file: &SourceFile, lines: &Lines, root: &Node) -> Result<(), String> {
    let mut stack: Vec<&Node> = vec![root];
    while let Some(n) = stack.pop() {
        check_span_with(file, lines, n.span, "node")?;
        if let Some(t) = n.tag() {
            check_span_with(file, lines, t.span, "tag")?;
        }
        match &n.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => stack.extend(items.iter()),
            NodeKind::Map(m) => {
                for e in &m.entries {
                    stack.push(&e.key);
                    stack.push(&e.value);
                }
            }
        }
    }
    Ok(())
}

/// The text pass that lets the scan skip a file's walk (`project::text_may_contain`) is sound:
/// when it says a string cannot hold `%{` or `ENC[`, no string the file loads to (keys
/// included, aliases and merge keys expanded, escapes and binary tags decoded) holds it.
pub fn check_may_contain(file: &std::sync::Arc<SourceFile>, doc: Document) -> Result<(), String> {
    use hieralint::value::Value;
    let Some(root) = doc.root.as_ref() else {
        return Ok(());
    };
    let data = root.to_value();
    for needle in ["%{", "ENC["] {
        if hieralint::project::text_may_contain(file.text(), doc.format, needle) {
            continue;
        }
        let mut stack = vec![&data];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) | Value::Symbol(s) if s.contains(needle) => {
                    return Err(format!(
                        "text_may_contain({needle:?}) is false but {s:?} holds it"
                    ));
                }
                Value::Array(a) => stack.extend(a.iter()),
                Value::Hash(h) => {
                    for (k, v) in h.iter() {
                        stack.push(k);
                        stack.push(v);
                    }
                }
                Value::Sensitive(v) => stack.push(v),
                _ => {}
            }
        }
    }
    Ok(())
}

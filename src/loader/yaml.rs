//! The span-exact YAML loader with Psych (YAML 1.1) semantics, on saphyr-parser's event stream.
//!
//! saphyr-parser gives every event a start and end marker (character indices); this module turns
//! them into byte spans, builds the [`Node`] tree with an explicit stack (no recursion, so hostile
//! nesting cannot overflow the stack), applies Psych's typing ([`super::psych`]), anchors,
//! aliases and `<<` merge keys as `Psych::Visitors::ToRuby` does, finds the comments saphyr does
//! not report, and turns scan errors into positioned [`LoadIssue`]s. See `docs/loader.md`.
//!
//! Spans: a node's span covers its content, not its properties (`&anchor`, `!tag`: the tag has
//! its own span in [`Tag::span`]). A quoted scalar's span includes the quotes; a block scalar's
//! runs from the `|`/`>` indicator to the end of its last non-blank content; a flow collection's
//! from the bracket to the closing bracket; a block collection's from its first key or `-` to the
//! end of its last item. An alias node's span is the `*name` token.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use indexmap::IndexMap;
use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, ScanError, Span as SaphyrSpan};

use super::psych::{self, MapTag, SeqTag};
use super::{Comment, Document, Format, LoadIssue, LoadIssueKind};
use crate::span::{CharIndex, SourceFile, Span};
use crate::value::{Entry, Mapping, Node, NodeKind, Scalar, ScalarStyle, Tag, Value};

/// Deepest nesting of collections accepted (counting what aliases expand to). Psych has no limit
/// (libyaml recurses in C); 1,000 is far beyond real data and keeps every recursive walk over
/// the tree (drop, clone, `to_value`) safe.
pub const MAX_DEPTH: usize = 1_000;

/// Most nodes that alias expansion may produce in one document (the "billion laughs" defence).
/// Psych shares one Ruby object per anchor and so never expands; hieralint copies the anchored
/// nodes so that every value keeps a span, and stops at this many copies.
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// Loads the first YAML document of `file` as Puppet's `yaml_data` does (reference §6.1).
pub fn load(file: &SourceFile) -> Document {
    let mut loader = Loader::new(file.text());
    loader.run();
    let mut doc = loader.finish();
    if let Some(at) = file.invalid_utf8_at {
        let at = at.min(file.text().len());
        let lc = file.line_col(at);
        doc.issues.push(LoadIssue {
            kind: LoadIssueKind::Encoding,
            span: Span::new(at, (at + '\u{FFFD}'.len_utf8()).min(file.text().len())),
            message: format!(
                "the file is not valid UTF-8 (first invalid byte at line {} column {}); the \
                 invalid bytes were replaced",
                lc.line, lc.column
            ),
        });
    }
    sort_issues(&mut doc.issues);
    doc
}

/// Psych parses the whole first document before building values, so a syntax error wins over
/// any value error; value errors then come in document order (`ToRuby` walks depth-first).
fn sort_issues(issues: &mut [LoadIssue]) {
    issues.sort_by_key(|i| (i.kind != LoadIssueKind::Syntax, i.span.start));
}

/// Maps saphyr's character indices to byte offsets; events arrive nearly in order, so a forward
/// cursor does most of the work.
struct Offsets<'a> {
    text: &'a str,
    ascii: bool,
    index: CharIndex<'a>,
    last_char: usize,
    last_byte: usize,
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Offsets<'a> {
        Offsets {
            text,
            ascii: text.is_ascii(),
            index: CharIndex::new(text),
            last_char: 0,
            last_byte: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        if char_index >= self.last_char && char_index - self.last_char <= 256 {
            let mut b = self.last_byte;
            let mut rest = self.text[b..].chars();
            for _ in self.last_char..char_index {
                match rest.next() {
                    Some(c) => b += c.len_utf8(),
                    None => break,
                }
            }
            self.last_char = char_index;
            self.last_byte = b;
            return b;
        }
        let b = self.index.byte(char_index);
        self.last_char = char_index;
        self.last_byte = b;
        b
    }
}

/// Anchor and tag of a node, read from the source text (saphyr gives only an anchor id and the
/// resolved tag).
#[derive(Default)]
struct Props {
    anchor_id: usize,
    anchor: Option<String>,
    tag: Option<Tag>,
    /// The tag as Psych sees it (libyaml's resolved form: `tag:yaml.org,2002:str`, `!foo`).
    psych_tag: Option<String>,
}

enum FrameKind {
    Seq(Vec<Node>),
    Map {
        entries: Vec<Entry>,
        key: Option<Node>,
        /// Keys written in this mapping (not merged), for duplicate detection; an index is built
        /// once the mapping grows past a few entries.
        seen: Vec<(Value, Span)>,
        index: Option<HashMap<Value, Span>>,
    },
}

struct Frame {
    kind: FrameKind,
    start: usize,
    /// End of the last child so far.
    end: usize,
    flow: bool,
    props: Props,
    /// Nodes in this subtree (for alias accounting) and its height.
    count: usize,
    height: usize,
}

/// A finished anchored node, kept for aliases.
struct Anchored {
    node: Node,
    count: usize,
    height: usize,
}

struct Loader<'a> {
    text: &'a str,
    offsets: Offsets<'a>,
    stack: Vec<Frame>,
    root: Option<(Node, usize, usize)>,
    anchors: HashMap<usize, Anchored>,
    alias_nodes: usize,
    issues: Vec<LoadIssue>,
    /// Byte ranges of scalar content, where a `#` is not a comment.
    no_comment: Vec<(usize, usize)>,
    /// Where the comment scan stops (an error position, or the end).
    comment_limit: usize,
    /// End of the previous event's span (bytes).
    last_end: usize,
    documents: usize,
    /// After the first document: events are only read for the comment scan.
    skipping: bool,
}

impl<'a> Loader<'a> {
    fn new(text: &'a str) -> Loader<'a> {
        Loader {
            text,
            offsets: Offsets::new(text),
            stack: Vec::new(),
            root: None,
            anchors: HashMap::new(),
            alias_nodes: 0,
            issues: Vec::new(),
            no_comment: Vec::new(),
            comment_limit: text.len(),
            last_end: 0,
            documents: 0,
            skipping: false,
        }
    }

    fn span(&mut self, s: &SaphyrSpan) -> (usize, usize) {
        let start = self.offsets.byte(s.start.index());
        let end = self.offsets.byte(s.end.index());
        (start, end.max(start))
    }

    fn run(&mut self) {
        let text = self.text;
        let mut parser = Parser::new_from_str(text);
        loop {
            // saphyr-parser is not known to panic, but a panic inside it must not take the run
            // down: it becomes a syntax issue at the last position reached.
            let next = catch_unwind(AssertUnwindSafe(|| parser.next_event()));
            let event = match next {
                Ok(Some(Ok(ev))) => ev,
                Ok(None) => break,
                Ok(Some(Err(e))) => {
                    self.syntax_error(&e);
                    break;
                }
                Err(_) => {
                    let at = self.last_end;
                    self.stop_with(
                        LoadIssueKind::Syntax,
                        Span::empty(at),
                        "the YAML parser failed unexpectedly here".into(),
                    );
                    break;
                }
            };
            let (ev, sspan) = event;
            if !self.event(ev, &sspan) {
                break;
            }
        }
        self.unwind();
    }

    /// Handles one event; false stops the run.
    fn event(&mut self, ev: Event<'a>, sspan: &SaphyrSpan) -> bool {
        let (start, end) = self.span(sspan);
        let cont = match ev {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => true,
            Event::DocumentStart(explicit) => {
                self.documents += 1;
                if self.documents == 2 {
                    let span = if explicit {
                        Span::new(start, (start + 3).min(self.text.len()))
                    } else {
                        Span::empty(start)
                    };
                    self.issues.push(LoadIssue {
                        kind: LoadIssueKind::ExtraDocument,
                        span,
                        message: "a second YAML document starts here: Puppet reads only the \
                                  first document of a data file"
                            .into(),
                    });
                    self.skipping = true;
                }
                true
            }
            Event::Scalar(value, style, anchor_id, tag) => {
                self.scalar(value, style, anchor_id, tag.as_deref(), start, end);
                true
            }
            Event::Alias(id) => {
                if self.skipping {
                    true
                } else {
                    self.alias(id, start, end)
                }
            }
            Event::SequenceStart(anchor_id, tag) => {
                self.open(true, anchor_id, tag.as_deref(), start, end)
            }
            Event::MappingStart(anchor_id, tag) => {
                self.open(false, anchor_id, tag.as_deref(), start, end)
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.close(end);
                true
            }
        };
        self.last_end = self.last_end.max(end);
        cont
    }

    // ----- properties -------------------------------------------------------------------------

    /// Reads `&anchor` and `!tag` tokens from `start` (bounded by `limit`) and returns the
    /// properties and where the content starts.
    fn props(
        &self,
        start: usize,
        limit: usize,
        anchor_id: usize,
        tag: Option<&saphyr_parser::Tag>,
    ) -> (Props, usize) {
        let mut props = Props {
            anchor_id,
            ..Props::default()
        };
        if let Some(t) = tag {
            props.psych_tag = Some(format!("{}{}", t.handle, t.suffix));
        }
        if anchor_id == 0 && tag.is_none() {
            return (props, start);
        }
        let b = self.text.as_bytes();
        let limit = limit.min(b.len());
        let mut i = start;
        while i < limit {
            match b[i] {
                b'&' => {
                    let j = token_end(b, i + 1, limit);
                    props.anchor = Some(self.text[i + 1..j].to_string());
                    i = j;
                }
                b'!' => {
                    let j = if b.get(i + 1) == Some(&b'<') {
                        b[i..limit]
                            .iter()
                            .position(|&c| c == b'>')
                            .map_or(limit, |p| i + p + 1)
                    } else {
                        token_end(b, i + 1, limit)
                    };
                    let written = &self.text[i..j];
                    let (handle, suffix) = if written.starts_with("!<") {
                        (
                            String::new(),
                            tag.map(|t| t.suffix.clone()).unwrap_or_default(),
                        )
                    } else if written == "!" {
                        ("!".to_string(), String::new())
                    } else {
                        let handle = match written[1..].find('!') {
                            Some(k) => &written[..k + 2],
                            None => "!",
                        };
                        let suffix = tag
                            .map(|t| t.suffix.clone())
                            .unwrap_or_else(|| written[handle.len()..].to_string());
                        (handle.to_string(), suffix)
                    };
                    props.tag = Some(Tag {
                        handle,
                        suffix,
                        span: Span::new(i, j),
                    });
                    i = j;
                }
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'#' => {
                    while i < limit && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        (props, i)
    }

    // ----- nodes ------------------------------------------------------------------------------

    fn scalar(
        &mut self,
        value: std::borrow::Cow<'a, str>,
        style: SaphyrStyle,
        anchor_id: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
        end: usize,
    ) {
        let (props, content_start) = self.props(start, end, anchor_id, tag);
        let content_start = content_start.min(end);
        let b = self.text.as_bytes();
        let (style, span) = match style {
            SaphyrStyle::Plain => (ScalarStyle::Plain, Span::new(content_start, end)),
            // saphyr's end marker for a quoted scalar lies after the whitespace and comment that
            // follow the closing quote: find the quote.
            SaphyrStyle::SingleQuoted => (
                ScalarStyle::SingleQuoted,
                Span::new(content_start, quoted_end(b, content_start, end, b'\'')),
            ),
            SaphyrStyle::DoubleQuoted => (
                ScalarStyle::DoubleQuoted,
                Span::new(content_start, quoted_end(b, content_start, end, b'"')),
            ),
            SaphyrStyle::Literal | SaphyrStyle::Folded => {
                let st = if style == SaphyrStyle::Literal {
                    ScalarStyle::Literal
                } else {
                    ScalarStyle::Folded
                };
                // saphyr's span covers only the content; the indicator is the first `|`/`>`
                // after the previous token (or after the properties), outside comments.
                let indicator = if props.tag.is_some() || props.anchor.is_some() {
                    content_start
                } else {
                    find_block_indicator(b, self.last_end, start).unwrap_or(start)
                };
                let header_end = indicator
                    + b[indicator..]
                        .iter()
                        .take_while(|c| matches!(c, b'|' | b'>' | b'+' | b'-' | b'0'..=b'9'))
                        .count();
                let mut e = end;
                while e > start && matches!(b[e - 1], b' ' | b'\t' | b'\r' | b'\n') {
                    e -= 1;
                }
                let e = if e <= start { header_end } else { e };
                (st, Span::new(indicator, e.max(header_end)))
            }
        };
        if end > start {
            // The content of a block scalar starts after its header: only that part is exempt
            // from the comment scan (a `# comment` may follow the indicator).
            let range = if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                (start, end)
            } else {
                (span.start as usize, span.end as usize)
            };
            self.no_comment.push(range);
        }
        if self.skipping {
            return;
        }
        let text: Arc<str> = Arc::from(value.as_ref());
        let resolved = psych::scalar(
            props.psych_tag.as_deref(),
            style == ScalarStyle::Plain,
            &text,
        );
        if let Some(f) = &resolved.error {
            self.issues.push(LoadIssue {
                kind: f.kind.clone(),
                span,
                message: f.message.clone(),
            });
        }
        let node = Node {
            span,
            kind: NodeKind::Scalar(Scalar {
                value: resolved.value,
                style,
                resolved: resolved.resolution,
                text,
            }),
            tag: props.tag,
            anchor: props.anchor,
            from_alias: false,
        };
        self.finish_node(node, props.anchor_id, 1, 0);
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> bool {
        let depth = self.stack.len();
        let Some(anchored) = self.anchors.get(&id) else {
            // saphyr resolved the name, so the anchor exists but is still open: the alias is
            // inside its own anchored node (Psych builds recursive data).
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end),
                "this alias refers to a node that contains it: Psych builds recursive data, \
                 which Puppet cannot use"
                    .into(),
            );
        };
        if depth + anchored.height > MAX_DEPTH {
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end),
                format!(
                    "this alias nests the data deeper than {MAX_DEPTH} levels; hieralint stops \
                     loading here"
                ),
            );
        }
        self.alias_nodes = self.alias_nodes.saturating_add(anchored.count);
        if self.alias_nodes > MAX_ALIAS_NODES {
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end),
                format!(
                    "aliases expand to more than {MAX_ALIAS_NODES} nodes (an alias bomb?); \
                     hieralint stops loading here"
                ),
            );
        }
        let (count, height) = (anchored.count, anchored.height);
        let mut node = anchored.node.clone();
        node.span = Span::new(start, end);
        node.from_alias = true;
        node.anchor = None;
        self.finish_node(node, 0, count, height);
        true
    }

    fn open(
        &mut self,
        seq: bool,
        anchor_id: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
        end: usize,
    ) -> bool {
        if self.stack.len() >= MAX_DEPTH {
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end.max(start + 1).min(self.text.len())),
                format!("collections are nested deeper than {MAX_DEPTH} levels; hieralint stops loading here"),
            );
        }
        let (props, content_start) = self.props(start, end.max(start), anchor_id, tag);
        let flow = matches!(self.text.as_bytes().get(content_start), Some(b'[' | b'{'));
        let kind = if seq {
            FrameKind::Seq(Vec::new())
        } else {
            FrameKind::Map {
                entries: Vec::new(),
                key: None,
                seen: Vec::new(),
                index: None,
            }
        };
        self.stack.push(Frame {
            kind,
            start: content_start,
            end: if flow {
                content_start + 1
            } else {
                content_start
            },
            flow,
            props,
            count: 1,
            height: 1,
        });
        true
    }

    fn close(&mut self, end: usize) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let end = if frame.flow {
            end.max(frame.end)
        } else {
            frame.end
        };
        let Frame {
            kind,
            start,
            props,
            count,
            height,
            ..
        } = frame;
        let span = Span::new(start, end.max(start));
        let node_kind = match kind {
            FrameKind::Seq(items) => match props.psych_tag.as_deref().map(psych::seq_tag) {
                Some(SeqTag::Omap) => NodeKind::Map(self.omap(items)),
                Some(SeqTag::Fail(kind, message)) => {
                    self.issue_at_tag(kind, &props, span, message);
                    NodeKind::Seq(items)
                }
                _ => NodeKind::Seq(items),
            },
            FrameKind::Map { entries, .. } => {
                match props.psych_tag.as_deref().map(psych::map_tag) {
                    Some(MapTag::Fail(kind, message)) => {
                        self.issue_at_tag(kind, &props, span, message);
                        NodeKind::Map(Mapping { entries })
                    }
                    Some(MapTag::StrKey) => self.str_from_map(entries, span),
                    // revive_hash(hash, value) for each `elements` pair.
                    Some(MapTag::Elements) => NodeKind::Map(Mapping {
                        entries: entries
                            .into_iter()
                            .filter(|e| e.key.as_str() == Some("elements"))
                            .filter_map(|e| match e.value.kind {
                                NodeKind::Map(m) => Some(m.entries),
                                _ => None,
                            })
                            .flatten()
                            .collect(),
                    }),
                    _ => NodeKind::Map(Mapping { entries }),
                }
            }
        };
        if self.skipping {
            return;
        }
        let node = Node {
            span,
            kind: node_kind,
            tag: props.tag,
            anchor: props.anchor,
            from_alias: false,
        };
        self.finish_node(node, props.anchor_id, count, height);
    }

    fn issue_at_tag(&mut self, kind: LoadIssueKind, props: &Props, span: Span, message: String) {
        let span = props.tag.as_ref().map_or(span, |t| t.span);
        self.issues.push(LoadIssue {
            kind,
            span,
            message,
        });
    }

    /// `!!omap` on a sequence: `map[accept(a.children.first)] = accept a.children.last` for each
    /// element (a mapping's first key and last value, a sequence's first and last items).
    fn omap(&mut self, items: Vec<Node>) -> Mapping {
        let mut entries = Vec::with_capacity(items.len());
        for item in items {
            let item_span = item.span;
            let from_alias = item.from_alias;
            let (pair, message) = match item.kind {
                _ if from_alias => (None, psych::OMAP_NOT_COLLECTION),
                NodeKind::Map(m) => {
                    let mut it = m.entries.into_iter();
                    let first = it.next();
                    let last = it.next_back();
                    let pair = first.map(|f| match last {
                        Some(l) => (f.key, l.value),
                        None => (f.key, f.value),
                    });
                    (pair, psych::OMAP_EMPTY)
                }
                NodeKind::Seq(mut v) => {
                    let last = v.pop();
                    let first = if v.is_empty() {
                        last.clone()
                    } else {
                        Some(v.swap_remove(0))
                    };
                    (first.zip(last), psych::OMAP_EMPTY)
                }
                NodeKind::Scalar(_) => (None, psych::OMAP_NOT_COLLECTION),
            };
            match pair {
                Some((key, value)) => entries.push(Entry {
                    key,
                    value,
                    merged: false,
                }),
                None => self.issues.push(LoadIssue {
                    kind: LoadIssueKind::RubyError,
                    span: item_span,
                    message: message.into(),
                }),
            }
        }
        Mapping { entries }
    }

    /// `!!str` on a mapping: the value of its last `str` key, or nil (`ToRuby`'s str branch).
    fn str_from_map(&mut self, entries: Vec<Entry>, span: Span) -> NodeKind {
        let others = entries.iter().any(|e| e.key.as_str() != Some("str"));
        if others {
            self.issues.push(LoadIssue {
                kind: LoadIssueKind::Unmodelled,
                span,
                message: "Psych sets the other keys of a !!str mapping as instance variables of \
                          its `str` value (or fails); hieralint keeps the mapping"
                    .into(),
            });
            return NodeKind::Map(Mapping { entries });
        }
        match entries.into_iter().next_back() {
            Some(e) => e.value.kind,
            None => NodeKind::Scalar(Scalar {
                value: Value::Undef,
                style: ScalarStyle::Plain,
                resolved: None,
                text: Arc::from(""),
            }),
        }
    }

    /// A node is complete: remember it if anchored, then give it to its parent.
    fn finish_node(&mut self, node: Node, anchor_id: usize, count: usize, height: usize) {
        if anchor_id > 0 {
            self.anchors.insert(
                anchor_id,
                Anchored {
                    node: node.clone(),
                    count,
                    height,
                },
            );
        }
        let end = node.span.end as usize;
        let Some(parent) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some((node, count, height));
            }
            return;
        };
        parent.count = parent.count.saturating_add(count);
        parent.height = parent.height.max(height + 1);
        parent.end = parent.end.max(end);
        match &mut parent.kind {
            FrameKind::Seq(items) => items.push(node),
            FrameKind::Map { key, .. } => match key.take() {
                None => *key = Some(node),
                Some(k) => self.entry(k, node),
            },
        }
    }

    /// Adds a key/value pair to the innermost mapping, with Psych's `revive_hash` semantics for
    /// `<<` and duplicate keys.
    fn entry(&mut self, key: Node, value: Node) {
        if is_merge_key(&key) {
            if let Some(merged) = merge_entries(&value) {
                if let Some(Frame {
                    kind: FrameKind::Map { entries, .. },
                    ..
                }) = self.stack.last_mut()
                {
                    entries.extend(merged);
                }
                return;
            }
        }
        let key_value = key.to_value();
        let key_span = key.span;
        let mut duplicate = None;
        if let Some(Frame {
            kind:
                FrameKind::Map {
                    entries,
                    seen,
                    index,
                    ..
                },
            ..
        }) = self.stack.last_mut()
        {
            if let Some(ix) = index {
                if let Some(first) = ix.get(&key_value) {
                    duplicate = Some(*first);
                } else {
                    ix.insert(key_value.clone(), key_span);
                }
            } else if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key_value) {
                duplicate = Some(*first);
            } else {
                seen.push((key_value.clone(), key_span));
                if seen.len() > 8 {
                    *index = Some(seen.drain(..).collect());
                }
            }
            entries.push(Entry {
                key,
                value,
                merged: false,
            });
        }
        if let Some(first) = duplicate {
            let lc = line_col(self.text, first.start as usize);
            self.issues.push(LoadIssue {
                kind: LoadIssueKind::DuplicateKey { first },
                span: key_span,
                message: format!(
                    "duplicate key {}: first defined at line {} column {}; Psych keeps the last \
                     value (at the first key's position)",
                    key_value.ruby_inspect(),
                    lc.0,
                    lc.1
                ),
            });
        }
    }

    // ----- errors and the end -----------------------------------------------------------------

    fn stop_with(&mut self, kind: LoadIssueKind, span: Span, message: String) -> bool {
        self.comment_limit = self.comment_limit.min(span.start as usize);
        if !self.skipping {
            self.issues.push(LoadIssue {
                kind,
                span,
                message,
            });
        }
        false
    }

    fn syntax_error(&mut self, e: &ScanError) {
        let m = e.marker();
        let at = self.offsets.byte(m.index());
        let message = format!("{} at line {} column {}", e.info(), m.line(), m.col() + 1);
        self.stop_with(LoadIssueKind::Syntax, Span::empty(at), message);
    }

    /// Closes what is still open after an error, keeping the partial tree.
    fn unwind(&mut self) {
        while let Some(top) = self.stack.last_mut() {
            if let FrameKind::Map { key, .. } = &mut top.kind {
                *key = None;
            }
            let end = top.end;
            self.close(end);
        }
    }

    fn finish(self) -> Document {
        let comments = scan_comments(self.text, &self.no_comment, self.comment_limit);
        Document {
            format: Format::Yaml,
            root: self.root.map(|(n, _, _)| n),
            comments,
            issues: self.issues,
        }
    }
}

/// End of an anchor or tag token: up to a blank, a line break or a flow indicator.
fn token_end(b: &[u8], mut i: usize, limit: usize) -> usize {
    while i < limit
        && !matches!(
            b[i],
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
        )
    {
        i += 1;
    }
    i
}

/// The end (after the closing quote) of the quoted scalar opening at `start`; `''` escapes a
/// single quote, a backslash escapes in double quotes. Falls back to `limit`.
fn quoted_end(b: &[u8], start: usize, limit: usize, quote: u8) -> usize {
    let limit = limit.min(b.len());
    let mut i = start + 1;
    while i < limit {
        let c = b[i];
        if quote == b'"' && c == b'\\' {
            i += 2;
        } else if c == quote {
            if quote == b'\'' && b.get(i + 1) == Some(&b'\'') {
                i += 2;
            } else {
                return i + 1;
            }
        } else {
            i += 1;
        }
    }
    limit
}

/// The first `|` or `>` in `b[from..to]` outside comments.
fn find_block_indicator(b: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut i = from;
    let to = to.min(b.len());
    while i < to {
        match b[i] {
            b'|' | b'>' => return Some(i),
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                while i < to && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// `key == '<<' && k.tag != "tag:yaml.org,2002:str"` (`ToRuby#revive_hash`): a quoted `"<<"`
/// counts too, only an explicit `!!str` opts out.
fn is_merge_key(key: &Node) -> bool {
    key.as_str() == Some("<<")
        && key
            .tag
            .as_ref()
            .is_none_or(|t| t.full() != "tag:yaml.org,2002:str")
}

/// What `<<: value` inserts, or `None` when Psych stores the `<<` key as an ordinary entry.
///
/// `revive_hash`: an alias or a mapping is `hash.merge!(val)` (a non-Hash raises TypeError, and
/// the pair is stored as is); a sequence is merged in reverse into a fresh hash, which is then
/// merged (`h = {}; val.reverse_each { |v| h.merge! v }; hash.merge! h`), so earlier elements win
/// and the key order is that of the last element first. Any other node is stored as is.
/// `merge!` assigns each pair in turn, so appending the pairs as entries and letting later
/// entries win (as [`Node::to_value`] does) gives the same Hash.
fn merge_entries(value: &Node) -> Option<Vec<Entry>> {
    let pairs = |n: &Node| -> Option<Vec<(Node, Node)>> {
        let m = n.as_map()?;
        let mut out: IndexMap<Value, (Node, Node)> = IndexMap::with_capacity(m.entries.len());
        for e in &m.entries {
            match out.get_mut(&e.key.to_value()) {
                Some(slot) => slot.1 = e.value.clone(),
                None => {
                    out.insert(e.key.to_value(), (e.key.clone(), e.value.clone()));
                }
            }
        }
        Some(out.into_values().collect())
    };
    let merged: Vec<(Node, Node)> = match &value.kind {
        NodeKind::Map(_) => pairs(value)?,
        NodeKind::Seq(items) if !value.from_alias => {
            let mut h: IndexMap<Value, (Node, Node)> = IndexMap::new();
            for item in items.iter().rev() {
                for (k, v) in pairs(item)? {
                    match h.get_mut(&k.to_value()) {
                        Some(slot) => slot.1 = v,
                        None => {
                            h.insert(k.to_value(), (k, v));
                        }
                    }
                }
            }
            h.into_values().collect()
        }
        _ => return None,
    };
    Some(
        merged
            .into_iter()
            .map(|(key, value)| Entry {
                key,
                value,
                merged: true,
            })
            .collect(),
    )
}

/// 1-based line and character column, without a line index (for messages).
fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let byte = crate::span::floor_char_boundary(text, byte);
    let before = &text[..byte];
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    (line, text[line_start..byte].chars().count() + 1)
}

/// Finds `#` comments: a `#` at a line start or after whitespace, outside scalar content.
fn scan_comments(text: &str, no_comment: &[(usize, usize)], limit: usize) -> Vec<Comment> {
    let b = text.as_bytes();
    let limit = limit.min(b.len());
    let mut ranges: Vec<(usize, usize)> = no_comment.to_vec();
    ranges.sort_unstable();
    let mut comments = Vec::new();
    let mut r = 0;
    let mut i = 0;
    while i < limit {
        let Some(off) = b[i..limit].iter().position(|&c| c == b'#') else {
            break;
        };
        let h = i + off;
        while r < ranges.len() && ranges[r].1 <= h {
            r += 1;
        }
        if r < ranges.len() && ranges[r].0 <= h {
            i = ranges[r].1;
            continue;
        }
        if h == 0 || matches!(b[h - 1], b' ' | b'\t' | b'\n' | b'\r') {
            let mut e = h;
            while e < b.len() && b[e] != b'\n' {
                e += 1;
            }
            let end = if e > h && b[e - 1] == b'\r' { e - 1 } else { e };
            let line_start = b[..h]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
            let own_line = b[line_start..h].iter().all(|c| matches!(c, b' ' | b'\t'));
            comments.push(Comment {
                span: Span::new(h, end),
                own_line,
            });
            i = e;
        } else {
            i = h + 1;
        }
    }
    comments
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        load(&SourceFile::new("t.yaml", text))
    }

    #[test]
    fn loads_a_mapping_with_spans() {
        let d = doc("a: 1\n'b': [x, y]\n");
        assert!(d.issues.is_empty(), "{:?}", d.issues);
        let root = d.root.unwrap();
        let m = root.as_map().unwrap();
        assert_eq!(m.entries.len(), 2);
        assert_eq!(m.entries[1].key.span, Span::new(5, 8));
        assert_eq!(m.entries[1].value.span, Span::new(10, 16));
        assert_eq!(root.span, Span::new(0, 16));
    }

    #[test]
    fn comments_are_found_outside_scalars() {
        let d = doc("# top\na: 'x # y' # tail\nb: |\n  # not\n");
        let spans: Vec<_> = d.comments.iter().map(|c| (c.span, c.own_line)).collect();
        assert_eq!(
            spans,
            vec![(Span::new(0, 5), true), (Span::new(17, 23), false)]
        );
    }
}

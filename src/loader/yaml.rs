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
use crate::limits::Limits;
use crate::span::{CharIndex, SourceFile, Span};
use crate::value::{Entry, Mapping, Node, NodeKind, Scalar, ScalarStyle, Tag, Value};

/// Deepest nesting of collections accepted by default (counting what aliases expand to). Psych
/// has no limit (libyaml recurses in C); 1,000 is far beyond real data and keeps every recursive
/// walk over the tree (drop, clone, `to_value`) safe. Configurable downwards:
/// [`Limits::yaml_max_depth`].
pub const MAX_DEPTH: usize = Limits::YAML_DEPTH_CEILING;

/// Most nodes that alias expansion may produce in one document by default (the "billion laughs"
/// defence). Psych shares one Ruby object per anchor and so never expands; hieralint copies the
/// anchored nodes so that every value keeps a span, and stops at this many copies
/// ([`Limits::max_expanded_nodes`]).
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// Deepest nesting of flow collections (`[`, `{`) saphyr-parser reads: it counts them in a `u8`.
pub const MAX_FLOW_DEPTH: usize = 255;

/// Loads the first YAML document of `file` as Puppet's `yaml_data` does (reference §6.1).
pub fn load(file: &SourceFile) -> Document {
    load_with(file, &Limits::default())
}

/// [`load`] with the given limits (nesting depth and alias expansion).
pub fn load_with(file: &SourceFile, limits: &Limits) -> Document {
    // After a byte order mark that hides a line-1 marker, parse as libyaml reads it: the mark
    // becomes a space, and every span moves back by that byte afterwards.
    let bom = bom_hides_marker(file);
    let shifted;
    let text = if bom {
        shifted = format!(" {}", file.text());
        shifted.as_str()
    } else {
        file.text()
    };
    let mut loader = Loader::new(text, limits);
    loader.reader_check(file, usize::from(bom));
    loader.run();
    if let Some(at) = loader.truncate_at {
        let extra = std::mem::take(&mut loader.issues);
        loader = Loader::new(&text[..at], limits);
        loader.run();
        loader.issues.extend(extra);
    }
    let mut doc = loader.finish();
    if bom {
        shift_back(&mut doc);
    }
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

/// True when the file starts with a byte order mark followed by a line-1 marker that libyaml only
/// recognises at column 1 (`---`, `...`, a `%` directive). libyaml skips the mark but counts it as
/// a column, so Psych reads `---` as the start of a plain scalar: `\u{FEFF}---` followed by a
/// mapping fails with `mapping values are not allowed in this context` (recorded:
/// fixtures/conformance/yaml/file-shapes-and-errors `fbom`), `\u{FEFF}--- 42` is the String
/// `"--- 42"`. A mark before anything else is harmless.
pub fn bom_hides_marker(file: &SourceFile) -> bool {
    let t = file.text().as_bytes();
    let marker = |m: &[u8]| {
        t.starts_with(m)
            && t.get(m.len())
                .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
    };
    file.had_bom && (marker(b"---") || marker(b"...") || t.first() == Some(&b'%'))
}

/// Moves every span of a document parsed with a leading space (see [`load`]) back by that byte;
/// the space itself maps to offset 0. Messages keep the parser's columns, which then count the
/// mark as Psych's do.
fn shift_back(doc: &mut Document) {
    let back = |s: Span| Span {
        start: s.start.saturating_sub(1),
        end: s.end.saturating_sub(1),
    };
    for c in &mut doc.comments {
        c.span = back(c.span);
    }
    for i in &mut doc.issues {
        i.span = back(i.span);
        if let LoadIssueKind::DuplicateKey { first } = &mut i.kind {
            *first = back(*first);
        }
    }
    let mut stack: Vec<&mut Node> = doc.root.iter_mut().collect();
    while let Some(node) = stack.pop() {
        node.span = back(node.span);
        if let Some(tag) = &mut node.tag {
            tag.span = back(tag.span);
        }
        match &mut node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => stack.extend(items.iter_mut()),
            NodeKind::Map(m) => {
                for e in &mut m.entries {
                    stack.push(&mut e.key);
                    stack.push(&mut e.value);
                }
            }
        }
    }
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

// One frame per open collection (at most MAX_DEPTH of them): the size difference between the
// variants costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
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
    /// [`Limits::yaml_depth`] and [`Limits::max_expanded_nodes`] for this load.
    max_depth: usize,
    max_alias_nodes: usize,
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
    /// The file holds a tab (libyaml's tab rules are checked only then).
    has_tabs: bool,
    /// End of the previous token, for libyaml's whitespace checks between tokens.
    tok_end: usize,
    /// The previous token was a plain scalar: its start and libyaml's indent for it (the column
    /// of the innermost block collection plus one).
    prev_plain: Option<(usize, usize)>,
    /// libyaml's reader rejected the text (a control character, invalid UTF-8): that is the only
    /// syntax error Psych reports.
    reader_error: bool,
    /// saphyr failed on a token after a complete flow root before reporting the root (its
    /// scanner looks ahead); the document is re-read up to here.
    truncate_at: Option<usize>,
    /// Byte offsets of line starts, built on the first duplicate key (whose message names the
    /// first key's line): one index instead of a scan of the text per duplicate.
    line_starts: Option<Vec<usize>>,
}

impl<'a> Loader<'a> {
    fn new(text: &'a str, limits: &Limits) -> Loader<'a> {
        Loader {
            text,
            offsets: Offsets::new(text),
            stack: Vec::new(),
            root: None,
            anchors: HashMap::new(),
            alias_nodes: 0,
            max_depth: limits.yaml_depth(),
            max_alias_nodes: limits.max_expanded_nodes,
            issues: Vec::new(),
            no_comment: Vec::new(),
            comment_limit: text.len(),
            last_end: 0,
            documents: 0,
            skipping: false,
            has_tabs: text.as_bytes().contains(&b'\t'),
            tok_end: 0,
            prev_plain: None,
            reader_error: false,
            truncate_at: None,
            line_starts: None,
        }
    }

    /// libyaml's reader refuses control characters and invalid UTF-8 before any parsing; Psych
    /// reports it with an unset context mark, so always `at line 1 column 1`.
    /// `shift` is how many bytes `self.text` has before the file's text (1 after a byte order
    /// mark, see [`load`]).
    fn reader_check(&mut self, file: &SourceFile, shift: usize) {
        let control = self.text.char_indices().find(|&(_, c)| {
            !matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}'
                | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        });
        let utf8 = file
            .invalid_utf8_at
            .zip(file.invalid_utf8_problem)
            .map(|(at, problem)| ((at + shift).min(self.text.len()), problem));
        let first = match (control, utf8) {
            (Some((c, _)), Some((u, p))) if u < c => Some((u, p)),
            (Some((c, _)), _) => Some((c, "control characters are not allowed")),
            (None, u) => u,
        };
        if let Some((at, problem)) = first {
            let end = self.text[at..]
                .chars()
                .next()
                .map_or(at, |c| at + c.len_utf8());
            self.issues.push(LoadIssue {
                kind: LoadIssueKind::Syntax,
                span: Span::new(at, end),
                message: format!("{problem} at line 1 column 1"),
            });
            self.reader_error = true;
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
        if !self.skipping && self.has_tabs {
            let upto = match ev {
                Event::StreamEnd => self.text.len(),
                Event::StreamStart | Event::Nothing => 0,
                _ => start,
            };
            if upto > 0 && !self.check_tabs(upto) {
                return false;
            }
        }
        let cont = match ev {
            Event::StreamEnd if self.documents == 0 => self.check_stream_start(self.text.len()),
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => true,
            Event::DocumentStart(explicit) => {
                if explicit {
                    self.tok_end = self.tok_end.max((start + 3).min(self.text.len()));
                    self.prev_plain = None;
                    if self.documents == 0 && !self.check_directives(start) {
                        return false;
                    }
                } else if self.documents == 0 && !self.check_stream_start(start) {
                    return false;
                }
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
                self.scalar(value, style, anchor_id, tag.as_deref(), start, end)
            }
            Event::Alias(id) => {
                self.tok_end = end;
                self.prev_plain = None;
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
                // saphyr's end marker of a flow collection lies after the whitespace and comment
                // that follow the closing bracket; its start is the bracket itself.
                let bracket_end = match self.text.as_bytes().get(start) {
                    Some(b']' | b'}') => Some(start + 1),
                    _ => None,
                };
                self.close(end, bracket_end)
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
    ) -> bool {
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
        let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
        let is_key = matches!(
            self.stack.last(),
            Some(Frame {
                kind: FrameKind::Map { key: None, .. },
                ..
            })
        );
        if !self.skipping {
            if block
                && self.has_tabs
                && !self.check_block_scalar_tabs(span.start as usize, start, end)
            {
                return false;
            }
            if is_key
                && style == ScalarStyle::Plain
                && value.is_empty()
                && props.anchor_id == 0
                && props.tag.is_none()
                && !self.check_empty_key(start)
            {
                return false;
            }
        }
        self.tok_end = if block { end } else { span.end as usize };
        self.prev_plain = (style == ScalarStyle::Plain && !value.is_empty())
            .then(|| (span.start as usize, self.plain_indent()));
        if self.skipping {
            return true;
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
        self.finish_node(node, props.anchor_id, 1, 0)
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
        let (max_depth, max_alias_nodes) = (self.max_depth, self.max_alias_nodes);
        if depth + anchored.height > max_depth {
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end),
                format!(
                    "this alias nests the data deeper than {max_depth} levels; hieralint stops \
                     loading here"
                ),
            );
        }
        self.alias_nodes = self.alias_nodes.saturating_add(anchored.count);
        if self.alias_nodes > max_alias_nodes {
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end),
                format!(
                    "aliases expand to more than {max_alias_nodes} nodes (an alias bomb?); \
                     hieralint stops loading here"
                ),
            );
        }
        let (count, height) = (anchored.count, anchored.height);
        let mut node = anchored.node.clone();
        node.span = Span::new(start, end);
        node.from_alias = true;
        node.anchor = None;
        self.finish_node(node, 0, count, height)
    }

    fn open(
        &mut self,
        seq: bool,
        anchor_id: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
        end: usize,
    ) -> bool {
        if self.stack.len() >= self.max_depth {
            let max_depth = self.max_depth;
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end.max(start + 1).min(self.text.len())),
                format!("collections are nested deeper than {max_depth} levels; hieralint stops loading here"),
            );
        }
        let (props, content_start) = self.props(start, end.max(start), anchor_id, tag);
        let flow = matches!(self.text.as_bytes().get(content_start), Some(b'[' | b'{'));
        if flow {
            self.tok_end = content_start + 1;
            self.prev_plain = None;
        }
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

    /// Closes the innermost collection; `bracket_end` is the end of a flow collection's closing
    /// bracket, where its span ends.
    fn close(&mut self, end: usize, bracket_end: Option<usize>) -> bool {
        let Some(frame) = self.stack.pop() else {
            return true;
        };
        let end = if frame.flow {
            self.tok_end = end;
            self.prev_plain = None;
            bracket_end.unwrap_or(end).max(frame.end)
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
            return true;
        }
        let node = Node {
            span,
            kind: node_kind,
            tag: props.tag,
            anchor: props.anchor,
            from_alias: false,
        };
        self.finish_node(node, props.anchor_id, count, height)
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
    fn finish_node(&mut self, node: Node, anchor_id: usize, count: usize, height: usize) -> bool {
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
        let in_flow = self.stack.iter().any(|f| f.flow);
        let Some(parent) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some((node, count, height));
            }
            return true;
        };
        parent.count = parent.count.saturating_add(count);
        parent.height = parent.height.max(height + 1);
        parent.end = parent.end.max(end);
        let mut long_key = None;
        match &mut parent.kind {
            FrameKind::Seq(items) => items.push(node),
            FrameKind::Map { key, entries, .. } => match key.take() {
                None => {
                    if !in_flow {
                        long_key = Some((node.span, parent.start, entries.is_empty()));
                    }
                    *key = Some(node);
                }
                Some(k) => self.entry(k, node),
            },
        }
        match long_key {
            Some((key_span, map_start, first)) => self.check_key_length(key_span, map_start, first),
            None => true,
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
            let lc = self.indexed_line_col(first.start as usize);
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

    // ----- what libyaml rejects and saphyr accepts --------------------------------------------
    //
    // Each check reproduces one libyaml 0.2.5 rule (the C source Psych 4.0.3 bundles) with the
    // message Psych gives for it; `fixtures/yaml/malformed/` holds a recorded case for each.

    /// 1-based line and character column of a byte offset, through the cached line index.
    fn indexed_line_col(&mut self, byte: usize) -> (usize, usize) {
        let text = self.text;
        let starts = self.line_starts.get_or_insert_with(|| {
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let byte = crate::span::floor_char_boundary(text, byte);
        let line = starts.partition_point(|&s| s <= byte);
        let start = starts[line - 1];
        (line, text[start..byte].chars().count() + 1)
    }

    /// 0-based character column of a byte offset.
    fn col(&self, byte: usize) -> usize {
        let byte = crate::span::floor_char_boundary(self.text, byte);
        let line_start = self.text[..byte].rfind('\n').map_or(0, |p| p + 1);
        self.text[line_start..byte].chars().count()
    }

    /// Psych's ` at line L column C` (libyaml's context mark, 1-based).
    fn psych_at(&self, byte: usize) -> String {
        let (line, column) = line_col(self.text, byte);
        format!(" at line {line} column {column}")
    }

    fn syntax_at(&mut self, at: usize, problem: &str, context_at: usize) -> bool {
        let message = format!("{problem}{}", self.psych_at(context_at));
        let end = (at + 1).min(self.text.len()).max(at);
        let end = crate::span::floor_char_boundary(self.text, end).max(at);
        self.stop_syntax(Span::new(at, end), message)
    }

    /// libyaml's indent while it scans a plain scalar: the column of the innermost block
    /// collection, plus one (0 at the top level).
    fn plain_indent(&self) -> usize {
        self.stack
            .iter()
            .rev()
            .find(|f| !f.flow)
            .map_or(0, |f| self.col(f.start) + 1)
    }

    /// Tabs in the whitespace before the next token (`upto`), as libyaml treats them
    /// (`yaml_parser_scan_to_next_token`, `yaml_parser_scan_plain_scalar`): in block context a
    /// tab may not start a line's indentation, nor follow a `-` or `?` indicator; after a plain
    /// scalar, a tab left of its indentation ends the file. Tabs elsewhere are skipped.
    fn check_tabs(&mut self, upto: usize) -> bool {
        let from = self.tok_end;
        let b = self.text.as_bytes();
        let upto = upto.min(b.len());
        if from >= upto || !b[from..upto].contains(&b'\t') {
            return true;
        }
        let flow = self.stack.iter().any(|f| f.flow);
        let plain = self.prev_plain;
        let mut plain_running = plain.is_some();
        let mut broke = false;
        let mut line_ws = from == 0 || b[from - 1] == b'\n';
        let mut after_indicator = false;
        let mut col = if line_ws { 0 } else { self.col(from) };
        let mut i = from;
        while i < upto {
            let c = b[i];
            match c {
                b'\n' => {
                    line_ws = true;
                    broke = true;
                    after_indicator = false;
                    col = 0;
                }
                b'\r' => {}
                b' ' => col += 1,
                b'\t' => {
                    if let (true, Some((start, indent))) = (plain_running, plain) {
                        if broke && col < indent {
                            return self.syntax_at(
                                i,
                                "found a tab character that violates indentation while scanning \
                                 a plain scalar",
                                start,
                            );
                        }
                    } else if !flow && (line_ws || after_indicator) {
                        return self.syntax_at(
                            i,
                            "found character that cannot start any token while scanning for the \
                             next token",
                            i,
                        );
                    }
                    col += 1;
                }
                b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                    plain_running = false;
                    line_ws = false;
                    after_indicator = false;
                    while i < upto && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                _ => {
                    plain_running = false;
                    line_ws = false;
                    after_indicator = matches!(c, b'-' | b'?')
                        && matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
                    if !(0x80..0xC0).contains(&c) {
                        col += 1;
                    }
                }
            }
            i += 1;
        }
        true
    }

    /// Tabs around a block scalar's content (`yaml_parser_scan_block_scalar_breaks`): before the
    /// first content line a tab may not appear in the indentation at all, after it not left of
    /// the content's indentation (this includes the line that ends the scalar).
    fn check_block_scalar_tabs(&mut self, indicator: usize, content: usize, end: usize) -> bool {
        let b = self.text.as_bytes();
        let Some(nl) = b[indicator..].iter().position(|&c| c == b'\n') else {
            return true;
        };
        let mut i = indicator + nl + 1;
        let has_content = end > content && content >= i;
        let indent = if has_content { self.col(content) } else { 0 };
        while i < b.len() {
            let mut col = 0;
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
                col += 1;
            }
            let before_content = !has_content || j < content;
            if b.get(j) == Some(&b'\t') && (before_content || col < indent) {
                return self.syntax_at(
                    j,
                    "found a tab character where an indentation space is expected while \
                     scanning a block scalar",
                    indicator,
                );
            }
            let blank = matches!(b.get(j), None | Some(b'\n' | b'\r'));
            if !blank && !before_content && col < indent {
                break;
            }
            if !blank && j >= end {
                break;
            }
            match b[j..].iter().position(|&c| c == b'\n') {
                Some(p) => i = j + p + 1,
                None => break,
            }
        }
        true
    }

    /// A mapping key that is nothing but the `:` indicator. libyaml 0.2.5 refuses it in a block
    /// mapping (`did not find expected key`, at the mapping's start) and in flow context (`did
    /// not find expected node content`); an explicit `? ` key may be empty.
    fn check_empty_key(&mut self, at: usize) -> bool {
        let b = self.text.as_bytes();
        if b.get(at) != Some(&b':') {
            return true;
        }
        let explicit = find_indicator(b, self.tok_end, at, b'?');
        if explicit {
            return true;
        }
        let in_flow = self.stack.iter().any(|f| f.flow);
        if in_flow {
            return self.syntax_at(
                at,
                "did not find expected node content while parsing a flow node",
                at,
            );
        }
        let map_start = self.stack.last().map_or(at, |f| f.start);
        self.syntax_at(
            at,
            "did not find expected key while parsing a block mapping",
            map_start,
        )
    }

    /// libyaml forgets a possible simple key once the scanner is more than 1024 characters past
    /// its start (`yaml_parser_stale_simple_keys`): a longer implicit key is an error at its `:`.
    fn check_key_length(&mut self, key: Span, map_start: usize, first: bool) -> bool {
        let b = self.text.as_bytes();
        let mut p = key.end as usize;
        while p < b.len() && matches!(b[p], b' ' | b'\t') {
            p += 1;
        }
        if b.get(p) != Some(&b':') || p - (key.start as usize) <= 1024 {
            return true;
        }
        let chars = self.text[key.start as usize..p].chars().count();
        if chars <= 1024 {
            return true;
        }
        let required = !first && self.col(key.start as usize) == self.col(map_start);
        if required {
            self.syntax_at(
                key.start as usize,
                "could not find expected ':' while scanning a simple key",
                key.start as usize,
            )
        } else {
            self.syntax_at(p, "mapping values are not allowed in this context", p)
        }
    }

    /// Directives before the first `---` (`yaml_parser_scan_directive`,
    /// `yaml_parser_process_directives`): only `%YAML 1.1`/`%YAML 1.2` and `%TAG`.
    fn check_directives(&mut self, doc_start: usize) -> bool {
        let head = &self.text[..doc_start.min(self.text.len())];
        let mut offset = 0;
        for line in head.split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            let Some(rest) = line.strip_prefix('%') else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            match name.as_str() {
                "YAML" => {
                    let version = rest[4..].trim_start();
                    let version = version
                        .split([' ', '\t', '\r', '\n', '#'])
                        .next()
                        .unwrap_or("");
                    let ok = matches!(version.split_once('.'), Some((major, minor))
                        if major.parse::<u32>() == Ok(1)
                            && matches!(minor.parse::<u32>(), Ok(1 | 2)));
                    if !ok {
                        return self.syntax_at(at, "found incompatible YAML document", at);
                    }
                }
                "TAG" => {}
                _ => {
                    return self.syntax_at(
                        at,
                        "found unknown directive name while scanning a directive",
                        at,
                    );
                }
            }
        }
        true
    }

    /// A stream whose first token is `...`: libyaml expects a node for the implicit first
    /// document and fails; saphyr skips the marker.
    fn check_stream_start(&mut self, first_token: usize) -> bool {
        let b = self.text.as_bytes();
        // The first token saphyr reports is after the marker; find the marker before it.
        let mut i = 0;
        while i < first_token.min(b.len()) {
            let line_end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            let line = &b[i..line_end];
            let trimmed = line
                .iter()
                .position(|c| !matches!(c, b' ' | b'\t' | b'\r'))
                .map(|p| &line[p..]);
            match trimmed {
                None | Some([b'#', ..]) => i = line_end + 1,
                Some(_) => {
                    if line.starts_with(b"...")
                        && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r'))
                    {
                        return self.syntax_at(
                            i,
                            "did not find expected node content while parsing a block node",
                            i,
                        );
                    }
                    break;
                }
            }
        }
        true
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

    /// A syntax error: fatal, unless it lies after the first document (Psych never reads it).
    fn stop_syntax(&mut self, span: Span, message: String) -> bool {
        if self.reader_error {
            return false;
        }
        if self.skipping {
            return self.after_document(span, &message);
        }
        self.stop_with(LoadIssueKind::Syntax, span, message)
    }

    /// An error Psych does not see because `Psych.parse` returns at the end of the first
    /// document: reported, not fatal.
    fn after_document(&mut self, span: Span, message: &str) -> bool {
        self.comment_limit = self.comment_limit.min(span.start as usize);
        self.issues.push(LoadIssue {
            kind: LoadIssueKind::ExtraDocument,
            span,
            message: format!(
                "after the first document: {message}; Puppet reads only the first document, so \
                 it ignores this"
            ),
        });
        false
    }

    /// A saphyr scan/parse error, reworded as libyaml/Psych words it, with libyaml's context mark
    /// (the start of the construct being parsed, which Psych prints) in the message; the span is
    /// where parsing stopped.
    fn syntax_error(&mut self, e: &ScanError) {
        let m = e.marker();
        let at = self.offsets.byte(m.index());
        // saphyr counts flow nesting in a u8 and gives up past 255 levels; libyaml has no such
        // limit and Psych loads the file (recorded: fixtures/recorded/yaml-limit-exceeded, 1,100
        // nested flow sequences). That is hieralint's limit, not a syntax error.
        if e.info() == "recursion limit exceeded" {
            let end = crate::span::floor_char_boundary(self.text, (at + 1).min(self.text.len()));
            self.stop_with(
                LoadIssueKind::Limit,
                Span::new(at, end.max(at)),
                format!(
                    "flow collections are nested deeper than {MAX_FLOW_DEPTH} levels; hieralint \
                     stops loading here"
                ),
            );
            return;
        }
        if self.has_tabs && !self.skipping && !self.check_tabs(at) {
            return;
        }
        let end = crate::span::floor_char_boundary(self.text, (at + 1).min(self.text.len()));
        let span = Span::new(at, end.max(at));
        let info = e.info();
        // Errors saphyr raises where libyaml just ends the first document (an explicit end
        // marker followed by content, a directive without `...`, a stray closing bracket after
        // a flow root): Psych returns the first document.
        let root_done = self.root.is_some() && self.stack.is_empty()
            || (info == "misplaced bracket" && self.stack.iter().all(|f| f.flow));
        let libyaml_ends_document = matches!(
            info,
            "did not find expected <document start>"
                | "did not find expected <document-start>"
                | "missing explicit document end marker before directive"
                | "invalid content after document end marker"
                | "misplaced bracket"
        );
        if root_done && libyaml_ends_document || self.skipping {
            let saphyr = format!("{info}{}", self.psych_at(at));
            self.after_document(span, &saphyr);
            if self.root.is_none() && !self.skipping && at > 0 {
                self.truncate_at = Some(at);
            }
            return;
        }
        let (message, context_at) = self.psych_wording(info, at);
        let message = match context_at {
            Some(c) => format!("{message}{}", self.psych_at(c)),
            None => message,
        };
        self.stop_syntax(span, message);
    }

    /// Maps saphyr's error text to libyaml's `problem context` wording and context mark.
    fn psych_wording(&self, info: &str, at: usize) -> (String, Option<usize>) {
        let innermost = |flow: Option<bool>, seq: Option<bool>| {
            self.stack.iter().rev().find(|f| {
                flow.is_none_or(|fl| f.flow == fl)
                    && seq.is_none_or(|s| matches!(f.kind, FrameKind::Seq(_)) == s)
            })
        };
        let by_context = || -> (String, Option<usize>) {
            match self.stack.last() {
                Some(f) if f.flow && matches!(f.kind, FrameKind::Seq(_)) => (
                    "did not find expected ',' or ']' while parsing a flow sequence".into(),
                    Some(f.start),
                ),
                Some(f) if f.flow => (
                    "did not find expected ',' or '}' while parsing a flow mapping".into(),
                    Some(f.start),
                ),
                Some(f) if matches!(f.kind, FrameKind::Seq(_)) => (
                    "did not find expected '-' indicator while parsing a block collection".into(),
                    Some(f.start),
                ),
                Some(f) => (
                    "did not find expected key while parsing a block mapping".into(),
                    Some(f.start),
                ),
                None => (info.to_string(), Some(at)),
            }
        };
        let reorder = |context: &str, problem: &str| (format!("{problem} {context}"), Some(at));
        match info {
            "while parsing a block mapping, did not find expected key" => {
                let f = innermost(Some(false), Some(false));
                (
                    "did not find expected key while parsing a block mapping".into(),
                    Some(f.map_or(at, |f| f.start)),
                )
            }
            "while parsing a block collection, did not find expected '-' indicator" => {
                let f = innermost(Some(false), Some(true));
                (
                    "did not find expected '-' indicator while parsing a block collection".into(),
                    Some(f.map_or(at, |f| f.start)),
                )
            }
            "while parsing a flow sequence, expected ',' or ']'"
            | "while parsing a flow mapping, did not find expected ',' or '}'"
            | "illegal placement of ':' indicator"
            | "misplaced bracket"
            | "invalid trailing content after double-quoted scalar" => by_context(),
            // saphyr ends the document at a BOM that starts a line; libyaml reads it as part
            // of the root collection and fails there.
            "a byte order mark must not appear inside a document" => match &self.root {
                Some((n, _, _)) if self.stack.is_empty() => match n.kind {
                    NodeKind::Map(_) => (
                        "did not find expected key while parsing a block mapping".into(),
                        Some(n.span.start as usize),
                    ),
                    NodeKind::Seq(_) => (
                        "did not find expected '-' indicator while parsing a block collection"
                            .into(),
                        Some(n.span.start as usize),
                    ),
                    NodeKind::Scalar(_) => (info.into(), Some(at)),
                },
                _ => by_context(),
            },
            "while parsing a node, did not find expected node content" => {
                let kind = if self.stack.iter().any(|f| f.flow) {
                    "flow"
                } else {
                    "block"
                };
                (
                    format!("did not find expected node content while parsing a {kind} node"),
                    Some(at),
                )
            }
            "while parsing node, found unknown anchor" => {
                let b = self.text.as_bytes();
                let name_end = token_end(b, at + 1, b.len());
                let name = self.text.get(at + 1..name_end).unwrap_or("");
                // Psych::BadAlias, raised while building values: no position.
                (format!("Unknown alias: {name}"), None)
            }
            "while scanning an anchor or alias, did not find expected alphabetic or numeric character" => {
                let what = if self.text.as_bytes().get(at) == Some(&b'&') {
                    "anchor"
                } else {
                    "alias"
                };
                reorder(
                    &format!("while scanning an {what}"),
                    "did not find expected alphabetic or numeric character",
                )
            }
            "simple key expect ':'" | "simple key expected" => (
                "could not find expected ':' while scanning a simple key".into(),
                Some(self.simple_key_start(at)),
            ),
            "while scanning a verbatim tag, did not find the expected '>'" => {
                reorder("while scanning a tag", "did not find the expected '>'")
            }
            "the handle wasn't declared" => (
                "found undefined tag handle while parsing a node".into(),
                Some(at),
            ),
            "while scanning a plain scalar, found a tab" => (
                "found a tab character that violates indentation while scanning a plain scalar"
                    .into(),
                Some(at),
            ),
            "tabs disallowed within this context (block indentation)" => (
                "found character that cannot start any token while scanning for the next token"
                    .into(),
                Some(at),
            ),
            "found unprintable character" => ("control characters are not allowed".into(), Some(0)),
            _ => {
                if let Some(c) = info.strip_prefix("unexpected character: ") {
                    let _ = c;
                    return (
                        "found character that cannot start any token while scanning for the \
                         next token"
                            .into(),
                        Some(at),
                    );
                }
                // "while <context>, <problem>" → "<problem> while <context>" (libyaml's order).
                if let Some((context, problem)) = info
                    .strip_prefix("while ")
                    .and_then(|r| r.split_once(", "))
                {
                    return reorder(&format!("while {context}"), problem);
                }
                (info.to_string(), Some(at))
            }
        }
    }

    /// Where the simple key that lacks its `:` started: the first token of the last non-blank,
    /// non-comment line before `at`.
    fn simple_key_start(&self, at: usize) -> usize {
        let b = self.text.as_bytes();
        let mut end = at.min(b.len());
        loop {
            let line_start = b[..end]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
            let line = &b[line_start..end];
            if let Some(p) = line
                .iter()
                .position(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            {
                if line[p] != b'#' {
                    let mut q = line_start + p;
                    // Skip block indicators: the key follows them.
                    while q + 1 < end && matches!(b[q], b'-' | b'?') && b[q + 1] == b' ' {
                        q += 2;
                        while q < end && b[q] == b' ' {
                            q += 1;
                        }
                    }
                    return q;
                }
            }
            if line_start == 0 {
                return at;
            }
            end = line_start - 1;
        }
    }

    /// Closes what is still open after an error, keeping the partial tree.
    fn unwind(&mut self) {
        while let Some(top) = self.stack.last_mut() {
            if let FrameKind::Map { key, .. } = &mut top.kind {
                *key = None;
            }
            let end = top.end;
            self.close(end, None);
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

/// Whether `b[from..to]` holds the indicator `ind` (followed by a blank) outside comments.
fn find_indicator(b: &[u8], from: usize, to: usize, ind: u8) -> bool {
    let mut i = from;
    let to = to.min(b.len());
    while i < to {
        match b[i] {
            c if c == ind && matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n')) => {
                return true
            }
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                while i < to && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    false
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

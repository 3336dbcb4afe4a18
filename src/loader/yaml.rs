//! The span-exact YAML loader with Psych (YAML 1.1) semantics, on saphyr-parser's event stream.
//!
//! saphyr-parser gives every event a start and end marker (character indices); this module turns
//! them into byte spans, builds the [`Node`] tree with an explicit stack (no recursion, so hostile
//! nesting cannot overflow the stack), applies Psych's typing ([`super::psych`]), anchors,
//! aliases and `<<` merge keys as `Psych::Visitors::ToRuby` does, finds the comments saphyr does
//! not report, and turns scan errors into positioned [`LoadIssue`]s. saphyr-parser is used as
//! released: where it refuses what libyaml reads, the text it reads is repaired and parsed again
//! ((`loader::repair`)); where it reads what libyaml refuses, the checks here say so with libyaml's
//! message. See `docs/loader.md`.
//!
//! Spans: a node's span covers its content, not its properties (`&anchor`, `!tag`: the tag has
//! its own span in [`Tag::span`]). A quoted scalar's span includes the quotes; a block scalar's
//! runs from the `|`/`>` indicator to the end of its last non-blank content; a flow collection's
//! from the bracket to the closing bracket; a block collection's from its first key or `-` to the
//! end of its last item. An alias node's span is the `*name` token.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use indexmap::IndexMap;
use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, ScanError, Span as SaphyrSpan};

use super::psych::{self, MapTag, SeqTag};
use super::repair::{
    self, CharMap, Edit, EditKind, Origin, ParseInput, Repairs, BOM_STAND_IN, DASH_STAND_IN,
    MAX_PAD,
};
use super::{Comment, Document, Format, LoadIssue, LoadIssueKind};
use crate::limits::Limits;
use crate::span::{CharIndex, SourceFile, Span};
use crate::value::{Entry, Mapping, Node, NodeKind, Scalar, ScalarStyle, Tag, Value};

/// Deepest nesting of collections accepted by default (counting what aliases expand to). Psych
/// has no limit (libyaml recurses in C); 1,000 is far beyond real data and keeps every recursive
/// walk over the tree (drop, clone, `to_value`) safe. Configurable downwards:
/// [`Limits::yaml_depth`].
pub const MAX_DEPTH: usize = Limits::YAML_DEPTH_CEILING;

/// Deepest nesting of flow collections saphyr-parser reads: its scanner counts flow levels in a
/// `u8` and stops at the 256th with "recursion limit exceeded". Psych nests flow collections
/// until Ruby's stack overflows (about 10,000 levels); Hiera data never comes close.
pub const MAX_FLOW_DEPTH: usize = 255;

/// Most nodes that alias expansion may produce in one document by default (the "billion laughs"
/// defence). Psych shares one Ruby object per anchor and so never expands; hieralint copies the
/// anchored nodes so that every value keeps a span, and stops at this many copies
/// ([`Limits::max_expanded_nodes`]).
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// Most parses of one file while repairing what saphyr refuses and libyaml accepts (see
/// `loader::repair`); a file needing more stops with a `Limit` issue. Each parse also counts against a
/// budget of 32 times the file's length (plus 4 MiB), so repairs stay linear in practice.
const MAX_REPAIR_RUNS: usize = 200;

/// Loads the first YAML document of `file` as Puppet's `yaml_data` does (reference §6.1).
///
/// saphyr-parser reads the text first as it is. When it stops at a construct libyaml accepts,
/// the loader edits the text it gives saphyr (never the positions it reports: they map back to
/// `file`) and parses again; see `loader::repair`.
pub fn load(file: &SourceFile) -> Document {
    load_with(file, &Limits::default())
}

/// [`load`] with the given limits (nesting depth and alias expansion).
pub fn load_with(file: &SourceFile, limits: &Limits) -> Document {
    load_counted(file, limits).0
}

/// How a load went: the parses it took and whether proposed repairs were dropped.
#[derive(Debug, Default, PartialEq, Eq)]
struct Runs {
    parses: usize,
    dropped_proposals: bool,
}

fn load_counted(file: &SourceFile, limits: &Limits) -> (Document, Runs) {
    // After a byte order mark, parse as libyaml reads it: the mark becomes a space, and every
    // span moves back by that byte afterwards. Puppet reads files with `encoding: 'utf-8'`, so
    // the mark reaches libyaml, which skips it at column 0 but counts it as a column
    // (`yaml_parser_scan_to_next_token`): line 1 starts at column 1, as after a space. It hides
    // a `---` there ([`bom_hides_marker`]), and a block mapping or sequence begun on line 1 ends
    // at the first line back at column 0, where Psych's first document ends: Psych reads only
    // that first part (recorded: fixtures/conformance/yaml/bom-shifts-line-one).
    let bom = file.had_bom;
    let shifted;
    let text = if bom {
        shifted = format!(" {}", file.text());
        shifted.as_str()
    } else {
        file.text()
    };
    let mut repairs = Repairs::default();
    let mut stats = Runs::default();
    let mut runs = 0;
    let mut work = 0usize;
    let budget = text.len().saturating_mul(32).saturating_add(4 << 20);
    let (mut doc, truncate_at) = loop {
        let input = ParseInput::build(text, text.len(), &repairs);
        let mut loader = Loader::new(text, &input, file.line_starts(), &repairs, limits);
        loader.reader_check(file, usize::from(bom));
        loader.run();
        runs += 1;
        work = work.saturating_add(text.len());
        match loader.verdict() {
            Verdict::Done => {
                let truncate_at = loader.truncate_at;
                break (loader.finish(), truncate_at);
            }
            Verdict::DropSpeculative => {
                stats.dropped_proposals = true;
                repairs.drop_speculative();
            }
            Verdict::DropTentative(at) => repairs.drop_tentative(&at),
            Verdict::Repair(edits, speculate_from) => {
                repairs.next_round();
                let mut changed = false;
                for e in edits {
                    changed |= repairs.add(e);
                }
                if let Some(from) = speculate_from {
                    if !repairs.speculated && !repairs.no_speculation {
                        repairs.speculated = true;
                        for e in repair::speculate(text, from) {
                            repairs.add(e);
                        }
                    }
                }
                if !changed {
                    // No progress: the next run reports the error.
                    repairs.exhausted = true;
                }
            }
        }
        if runs >= MAX_REPAIR_RUNS || work > budget {
            // Too many repairs: the next run reports what saphyr refuses as a Limit issue
            // (dropping wrong edits still ends: nothing is added any more).
            repairs.exhausted = true;
        }
    };
    stats.parses = runs;
    if let Some(at) = truncate_at {
        // saphyr failed on a token after a complete flow root before reporting the root: read
        // the document again up to that token.
        let extra = std::mem::take(&mut doc.issues);
        let input = ParseInput::build(text, at, &repairs);
        let mut loader = Loader::new(&text[..at], &input, file.line_starts(), &repairs, limits);
        loader.run();
        doc = loader.finish();
        doc.issues.extend(extra);
    }
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
    (doc, stats)
}

/// True when the file starts with a byte order mark followed by a line-1 marker that libyaml only
/// recognises at column 1 (`---`, `...`, a `%` directive). libyaml skips the mark but counts it as
/// a column, so Psych reads `---` as the start of a plain scalar: `\u{FEFF}---` followed by a
/// mapping fails with `mapping values are not allowed in this context` (recorded:
/// fixtures/conformance/yaml/file-shapes-and-errors `fbom`), `\u{FEFF}--- 42` is the String
/// `"--- 42"`. Before a block collection the mark shortens the data instead (see [`load`]).
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
        if let Some(tag) = node.props.as_mut().and_then(|p| p.tag.as_mut()) {
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

/// What a run of the loader asks for.
enum Verdict {
    /// The document is read (or failed as Psych fails it).
    Done,
    /// A speculative edit proved wrong: drop them all and repair one error at a time.
    DropSpeculative,
    /// Tentative edits at these positions proved wrong: the errors there are libyaml's too.
    DropTentative(Vec<usize>),
    /// saphyr refused a construct libyaml accepts: parse again with these edits (and, from the
    /// given position on, the same edits for later constructs of the kind).
    Repair(Vec<Edit>, Option<usize>),
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
    /// Where the `&` of the anchor is.
    anchor_at: Option<usize>,
    /// Where the `!` of the tag is.
    tag_at: Option<usize>,
    tag: Option<Tag>,
    /// The tag as Psych sees it (libyaml's resolved form: `tag:yaml.org,2002:str`, `!foo`).
    psych_tag: Option<String>,
}

// At most MAX_DEPTH frames exist at once, so the size of the Map variant does not matter.
#[allow(clippy::large_enum_variant)]
enum FrameKind {
    Seq(Vec<Node>),
    Map {
        entries: Vec<Entry>,
        key: Option<Node>,
        /// Keys written in this mapping (not merged), for duplicate detection; an index is built
        /// once the mapping grows past a few entries.
        seen: Vec<(Value, Span)>,
        index: Option<crate::engine::vfs::FastMap<Value, Span>>,
    },
}

struct Frame {
    kind: FrameKind,
    start: usize,
    /// End of the last child so far.
    end: usize,
    flow: bool,
    /// A flow collection or inside one (the single-pair mapping of `[a: b]` is not `flow`).
    in_flow: bool,
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
    /// Byte offsets of line starts (`SourceFile::line_starts`).
    line_starts: &'a [u32],
    /// What saphyr reads: `text` with libyaml's other line breaks (NEL, LS, PS) replaced by
    /// `\n`, and the repairs (see `loader::repair`).
    parse_text: &'a str,
    /// Maps saphyr's character indices in `parse_text` to character indices in `text`.
    char_map: &'a CharMap,
    repairs: &'a Repairs,
    offsets: Offsets<'a>,
    stack: Vec<Frame>,
    root: Option<(Node, usize, usize)>,
    anchors: crate::engine::vfs::FastMap<usize, Anchored>,
    alias_nodes: usize,
    /// Bounds for this load: [`Limits::yaml_depth`] and [`Limits::max_expanded_nodes`].
    limits: &'a Limits,
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
    /// Where the first document ended, once a second one started.
    doc_end: Option<usize>,
    /// The file holds a tab (libyaml's tab rules are checked only then).
    has_tabs: bool,
    /// End of the previous token, for libyaml's whitespace checks between tokens.
    tok_end: usize,
    /// The previous token was a plain scalar: its start and the start of the innermost block
    /// collection around it (libyaml's indent for it is that column plus one).
    prev_plain: Option<(usize, Option<usize>)>,
    /// libyaml's reader rejected the text (a control character, invalid UTF-8): that is the only
    /// syntax error Psych reports.
    reader_error: bool,
    /// saphyr failed on a token after a complete flow root before reporting the root (its
    /// scanner looks ahead); the document is re-read up to here.
    truncate_at: Option<usize>,
    /// Values may hold stand-ins for a BOM or a `-` (`loader::repair`) to put back.
    restore_bom: bool,
    restore_dash: bool,
    /// The repair this run asks for.
    request: Option<(Vec<Edit>, Option<usize>)>,
    /// Where the run stopped (a fatal issue or a repair request), for checking edits.
    stop_at: usize,
    /// Unconfirmed pads (line start, origin, lies inside a flow collection or quoted scalar).
    pads: Vec<(usize, Origin, bool)>,
    /// Unconfirmed tab replacements (position, origin, lies inside a quoted or block scalar).
    tabs: Vec<(usize, Origin, bool)>,
}

impl<'a> Loader<'a> {
    fn new(
        text: &'a str,
        input: &'a ParseInput<'a>,
        line_starts: &'a [u32],
        repairs: &'a Repairs,
        limits: &'a Limits,
    ) -> Loader<'a> {
        let mut pads = Vec::new();
        let mut tabs = Vec::new();
        for e in repairs.unconfirmed() {
            match e.kind {
                EditKind::Pad(_) => pads.push((e.at, e.origin, false)),
                EditKind::Replace(' ') => tabs.push((e.at, e.origin, false)),
                _ => {}
            }
        }
        Loader {
            text,
            line_starts,
            parse_text: &input.text,
            char_map: &input.map,
            repairs,
            offsets: Offsets::new(text),
            stack: Vec::new(),
            root: None,
            anchors: Default::default(),
            alias_nodes: 0,
            limits,
            issues: Vec::new(),
            no_comment: Vec::new(),
            comment_limit: text.len(),
            last_end: 0,
            documents: 0,
            skipping: false,
            doc_end: None,
            has_tabs: text.as_bytes().contains(&b'\t'),
            tok_end: 0,
            prev_plain: None,
            reader_error: false,
            truncate_at: None,
            restore_bom: text.contains('\u{FEFF}') && !text.contains(BOM_STAND_IN),
            restore_dash: repairs.has_stand_in(DASH_STAND_IN),
            request: None,
            stop_at: text.len(),
            pads,
            tabs,
        }
    }

    /// libyaml's reader refuses control characters and invalid UTF-8 before any parsing; Psych
    /// reports it with an unset context mark, so always `at line 1 column 1`.
    /// `shift` is how many bytes `self.text` has before the file's text (1 after a byte order
    /// mark, see [`load`]).
    fn reader_check(&mut self, file: &SourceFile, shift: usize) {
        // Characters are looked at from the first 32-byte block that is not all printable
        // ASCII, tab or line break (a byte check the compiler vectorizes): the character walk
        // over every file was 3% of a check of wikimedia's hieradata.
        let from = plain_ascii_prefix(self.text.as_bytes());
        let control = self.text[from..]
            .char_indices()
            .find(|&(_, c)| {
                !matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}'
                    | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
            })
            .map(|(i, c)| (i + from, c));
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

    /// Byte offset in `text` of a saphyr character index.
    fn byte(&mut self, parse_index: usize) -> usize {
        let index = self.char_map.orig(parse_index);
        self.offsets.byte(index)
    }

    fn span(&mut self, s: &SaphyrSpan) -> (usize, usize) {
        let start = self.byte(s.start.index());
        let end = self.byte(s.end.index());
        (start, end.max(start))
    }

    fn run(&mut self) {
        // Most data files are plain block YAML, which `fast` reads into saphyr's very events
        // several times faster; it gives up on anything else, and saphyr reads the file.
        let text = self.parse_text;
        if super::fast::read(text, |ev, sspan| self.event(ev, sspan)) {
            self.unwind();
            return;
        }
        let mut parser = Parser::new_from_str(self.parse_text);
        let mut unknown_aliases = 0;
        loop {
            // saphyr-parser is not known to panic, but a panic inside it must not take the run
            // down: it becomes a syntax issue at the last position reached.
            let next = catch_unwind(AssertUnwindSafe(|| parser.next_event()));
            let event = match next {
                Ok(Some(Ok(ev))) => ev,
                Ok(None) => break,
                Ok(Some(Err(e)))
                    if e.info() == "while parsing node, found unknown anchor"
                        && !self.skipping
                        && unknown_aliases < 10_000 =>
                {
                    // saphyr has consumed the alias and moved on: parsing can continue.
                    unknown_aliases += 1;
                    let at = self.byte(e.marker().index());
                    if !self.check_anchor_name(at) || !self.unknown_alias(&e) {
                        break;
                    }
                    continue;
                }
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
        // saphyr spans an implicit document start over the first token: it ends nothing.
        let ends_token = !matches!(ev, Event::DocumentStart(false));
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
                    self.doc_end = Some(start);
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
                let checked =
                    self.skipping || self.check_flow_key_line() && self.check_anchor_name(start);
                if !checked {
                    return false;
                }
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
                // that follow the closing bracket; its start is the bracket itself, or, after a
                // trailing `,` (`{a: 1,\n}`), that comma.
                let bracket_end = if self.stack.last().is_some_and(|f| f.flow) {
                    match self.text.as_bytes().get(start) {
                        Some(b']' | b'}') => Some(start + 1),
                        _ => self.closing_bracket_after(start),
                    }
                } else {
                    None
                };
                // The bracket is the end of the token (after a trailing comma too).
                self.last_end = self.last_end.max(bracket_end.unwrap_or(0));
                self.close(end, bracket_end)
            }
        };
        if ends_token {
            self.last_end = self.last_end.max(end);
        }
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
                    let j = anchor_end(b, i + 1, limit);
                    props.anchor = Some(self.text[i + 1..j].to_string());
                    props.anchor_at.get_or_insert(i);
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
                    props.tag_at.get_or_insert(i);
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
        match style {
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                self.cover(span.start as usize, span.end as usize);
                self.taint(span.start as usize, span.end as usize);
            }
            ScalarStyle::Literal | ScalarStyle::Folded => self.taint(start, end),
            _ => {}
        }
        if !self.skipping {
            if !self.check_flow_key_line() {
                return false;
            }
            if !self.check_props(&props) {
                return false;
            }
            if block && self.stack.is_empty() && !self.check_root_block_scalar(span) {
                return false;
            }
            if style == ScalarStyle::Plain
                && self.stack.last().is_some_and(|f| f.in_flow)
                && !self.check_flow_plain(span, &value)
            {
                return false;
            }
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
            .then(|| (span.start as usize, self.plain_block_start()));
        if self.skipping {
            return true;
        }
        let value = if block && self.block_scalar_ends_text(end) {
            // libyaml keeps a final line break only if the text has one: a file ending in a
            // block scalar without a newline gives `"x"`, saphyr `"x\n"` (recorded with Psych).
            match value.strip_suffix('\n') {
                Some(v) => std::borrow::Cow::Owned(v.to_string()),
                None => value,
            }
        } else {
            value
        };
        let text: Arc<str> = if self.restore_bom && value.contains(BOM_STAND_IN)
            || self.restore_dash && value.contains(DASH_STAND_IN)
        {
            let mut v = value.into_owned();
            if self.restore_bom {
                v = v.replace(BOM_STAND_IN, "\u{FEFF}");
            }
            if self.restore_dash {
                v = v.replace(DASH_STAND_IN, "-");
            }
            Arc::from(v)
        } else {
            Arc::from(value.as_ref())
        };
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
            props: crate::value::NodeProps::boxed(props.tag, props.anchor),
            from_alias: false,
        };
        self.finish_node(node, props.anchor_id, 1, 0)
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> bool {
        let depth = self.stack.len();
        let Some(anchored) = self.anchors.get(&id) else {
            // saphyr resolved the name, so the anchor exists but is still open: the alias is
            // inside its own anchored node. Psych registers a Hash before filling it, so
            // `<<: *open` merges the pairs read so far (none new when it is the mapping being
            // read); anything else is recursive data.
            if let Some(snapshot) = self.open_anchor_for_merge(id, start, end) {
                let (node, count, height) = snapshot;
                return self.finish_node(node, 0, count, height);
            }
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end),
                "this alias refers to a node that contains it: Psych builds recursive data, \
                 which Puppet cannot use"
                    .into(),
            );
        };
        let (max_depth, max_alias_nodes) =
            (self.limits.yaml_depth(), self.limits.max_expanded_nodes);
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
        // The copy is not itself anchored.
        if let Some(p) = &mut node.props {
            p.anchor = None;
            if p.tag.is_none() {
                node.props = None;
            }
        }
        self.finish_node(node, 0, count, height)
    }

    /// The open anchored mapping `id` as it stands, when the alias is the value of a `<<` key.
    fn open_anchor_for_merge(
        &self,
        id: usize,
        start: usize,
        end: usize,
    ) -> Option<(Node, usize, usize)> {
        let Some(Frame {
            kind: FrameKind::Map { key: Some(key), .. },
            ..
        }) = self.stack.last()
        else {
            return None;
        };
        if !is_merge_key(key) {
            return None;
        }
        let frame = self.stack.iter().find(|f| f.props.anchor_id == id)?;
        let FrameKind::Map { entries, .. } = &frame.kind else {
            return None;
        };
        let node = Node {
            span: Span::new(start, end),
            kind: NodeKind::Map(Mapping {
                entries: entries.clone(),
            }),
            props: None,
            from_alias: true,
        };
        Some((node, frame.count, frame.height))
    }

    /// `*name` with no anchor `name`: Psych parses on and raises `Psych::BadAlias` while building
    /// values (after any syntax error, before later value errors). The alias reads as nil.
    fn unknown_alias(&mut self, e: &ScanError) -> bool {
        let at = self.byte(e.marker().index());
        let b = self.text.as_bytes();
        let name_end = anchor_end(b, (at + 1).min(b.len()), b.len());
        let span = Span::new(at, name_end.max(at));
        if self.has_tabs && !self.check_tabs(at) {
            return false;
        }
        self.issues.push(LoadIssue {
            kind: LoadIssueKind::RubyError,
            span,
            message: format!(
                "Unknown alias: {}",
                self.text.get(at + 1..name_end).unwrap_or("")
            ),
        });
        self.tok_end = span.end as usize;
        self.prev_plain = None;
        let node = Node::scalar(span, Value::Undef, ScalarStyle::Plain, "");
        self.finish_node(node, 0, 1, 0)
    }

    fn open(
        &mut self,
        seq: bool,
        anchor_id: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
        end: usize,
    ) -> bool {
        if self.stack.len() >= self.limits.yaml_depth() {
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(start, end.max(start + 1).min(self.text.len())),
                depth_message(self.limits.yaml_depth()),
            );
        }
        if !self.skipping && !self.check_flow_key_line() {
            return false;
        }
        let (props, content_start) = self.props(start, end.max(start), anchor_id, tag);
        if !self.skipping && !self.check_props(&props) {
            return false;
        }
        let flow = matches!(self.text.as_bytes().get(content_start), Some(b'[' | b'{'));
        let in_flow = flow || self.stack.last().is_some_and(|f| f.in_flow);
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
            in_flow,
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
            let end = bracket_end.unwrap_or(end).max(frame.end);
            self.tok_end = end;
            self.prev_plain = None;
            self.cover(frame.start, end);
            end
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
        // Collections are kept for the whole run: a vector's spare capacity (a quarter to a half
        // of it, grown by doubling; a map entry is 184 bytes) was 28% of a 5k-file check's
        // peak heap, all of it fresh pages the kernel zeroes.
        let mut kind = kind;
        match &mut kind {
            FrameKind::Seq(items) => items.shrink_to_fit(),
            FrameKind::Map { entries, .. } => entries.shrink_to_fit(),
        }
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
            props: crate::value::NodeProps::boxed(props.tag, props.anchor),
            from_alias: false,
        };
        self.finish_node(node, props.anchor_id, count, height)
    }

    /// The end of the closing bracket after `from` (a trailing comma), past blanks, commas and
    /// comments.
    fn closing_bracket_after(&self, from: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut i = from;
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\r' | b'\n' | b',' => i += 1,
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b']' | b'}' => return Some(i + 1),
                _ => break,
            }
        }
        None
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
            let lc = self.line_col(first.start as usize);
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

    /// 1-based line and character column (for messages), with the file's line index.
    fn line_col(&self, byte: usize) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&(byte as u32)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        (line + 1, self.col(byte) + 1)
    }

    /// 0-based character column of a byte offset.
    fn col(&self, byte: usize) -> usize {
        let byte = crate::span::floor_char_boundary(self.text, byte);
        let line_start = self.text[..byte].rfind('\n').map_or(0, |p| p + 1);
        self.text[line_start..byte].chars().count()
    }

    /// 0-based character column of a byte offset with libyaml's line breaks (NEL, LS and PS
    /// too), as saphyr counts it in the text it reads.
    fn yaml_col(&self, byte: usize) -> usize {
        let byte = crate::span::floor_char_boundary(self.text, byte);
        let line_start = repair::line_start(self.text.as_bytes(), byte);
        self.text[line_start..byte].chars().count()
    }

    /// Psych's ` at line L column C` (libyaml's context mark, 1-based).
    fn psych_at(&self, byte: usize) -> String {
        let (line, column) = libyaml_line_col(self.text, byte);
        format!(" at line {line} column {column}")
    }

    fn syntax_at(&mut self, at: usize, problem: &str, context_at: usize) -> bool {
        let message = format!("{problem}{}", self.psych_at(context_at));
        let end = (at + 1).min(self.text.len()).max(at);
        let end = crate::span::floor_char_boundary(self.text, end).max(at);
        self.stop_syntax(Span::new(at, end), message)
    }

    /// Start of the innermost block collection: libyaml's indent while it scans a plain scalar
    /// is its column plus one (0 at the top level).
    fn plain_block_start(&self) -> Option<usize> {
        self.stack.iter().rev().find(|f| !f.flow).map(|f| f.start)
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
        let plain = self
            .prev_plain
            .map(|(start, block)| (start, block.map_or(0, |b| self.col(b) + 1)));
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
                    // A `:` starting a line is the value of a complex key (`? a` above): libyaml
                    // allows a simple key after it, so tabs there are refused as after `-`/`?`.
                    let line_first = line_ws;
                    line_ws = false;
                    let token_start = i == from || matches!(b[i - 1], b' ' | b'\t' | b'\n');
                    after_indicator = token_start
                        && (matches!(c, b'-' | b'?') || c == b':' && line_first)
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

    /// A value starts in a flow mapping: libyaml forgets a possible simple key once the scanner
    /// reaches another line (`yaml_parser_stale_simple_keys`, in flow context too), so an
    /// implicit key and its `:` must share a line (`{a\n: 1}` fails); saphyr keeps flow keys
    /// across lines. An explicit `? key` may span lines.
    fn check_flow_key_line(&mut self) -> bool {
        let Some(Frame {
            kind: FrameKind::Map { key: Some(key), .. },
            flow: true,
            start,
            ..
        }) = self.stack.last()
        else {
            return true;
        };
        let b = self.text.as_bytes();
        let key_start =
            key.tag()
                .map_or(key.span.start, |t| t.span.start.min(key.span.start)) as usize;
        let mut i = key.span.end as usize;
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                _ if repair::break_len(b, i) > 0 => i += repair::break_len(b, i),
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if b.get(i) != Some(&b':') || repair::next_line(b, key_start) > i {
            return true;
        }
        let mut p = key_start;
        while p > 0 && matches!(b[p - 1], b' ' | b'\t' | b'\r' | b'\n') {
            p -= 1;
        }
        if p > 0 && b[p - 1] == b'?' {
            return true;
        }
        let map_start = *start;
        self.syntax_at(
            i,
            "did not find expected ',' or '}' while parsing a flow mapping",
            map_start,
        )
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
    /// `yaml_parser_process_directives`): only well-formed `%YAML 1.1`/`%YAML 1.2` and `%TAG`.
    fn check_directives(&mut self, doc_start: usize) -> bool {
        let head = &self.text[..doc_start.min(self.text.len())];
        let mut offset = 0;
        let mut seen_yaml = false;
        for line in head.split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            if !line.starts_with('%') {
                continue;
            }
            match scan_directive(line.as_bytes()) {
                Err((problem, context, p)) => {
                    let p = (at + p).min(at + line.trim_end_matches(['\r', '\n']).len());
                    return self.syntax_at(p, &format!("{problem} {context}"), at);
                }
                Ok(Some((major, minor))) => {
                    if seen_yaml {
                        return self.syntax_at(at, "found duplicate %YAML directive", at);
                    }
                    seen_yaml = true;
                    if major != 1 || !matches!(minor, 1 | 2) {
                        return self.syntax_at(at, "found incompatible YAML document", at);
                    }
                }
                Ok(None) => {}
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

    // ----- what saphyr refuses and libyaml accepts -------------------------------------------
    //
    // saphyr-parser reads YAML 1.2 more strictly than libyaml 0.2.5. Each case below names the
    // saphyr error it answers and the recorded fixture that proves libyaml's reading; the edit
    // is neutral to libyaml (see `repair`), so the re-parse reads what libyaml reads.

    /// The edit that lets saphyr read on past `info` at `at`, when libyaml accepts the construct
    /// there; and, for constructs files repeat, where to look for more of them.
    fn repair_for(&self, info: &str, at: usize) -> Option<(Vec<Edit>, Option<usize>)> {
        let b = self.text.as_bytes();
        let line_start = repair::line_start(b, at);
        let first_on_line = b[line_start..at.min(b.len())]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t'));
        let next_line = || repair::next_line(b, at);
        let one = |e: Edit| Some((vec![e], None));
        match info {
            // A tab after a mapping value's `:`, then `-` or a letter: libyaml skips tabs there
            // (after a simple key's `:` it allows no simple key, so it eats tabs too):
            // `a:\tb` is {"a"=>"b"} (`accepted/tab_after_colon.yaml`). The tab becomes a space.
            "':' must be followed by a valid YAML whitespace" => {
                let mut c = at.min(b.len());
                while c > 0 && matches!(b[c - 1], b' ' | b'\t') {
                    c -= 1;
                }
                let tab = (c > 0 && b[c - 1] == b':').then(|| repair::colon_tab(b, c - 1))??;
                Some((
                    vec![Edit::exact(tab, EditKind::Replace(' '))],
                    Some(next_line()),
                ))
            }
            // A quoted scalar's continuation line left of the block indentation: libyaml has no
            // such check (`accepted/quoted_less_indented.yaml`). Every continuation line is
            // padded to the opening quote's column (saphyr checked the quote against its
            // indentation already); leading blanks of a continuation line are not content.
            "invalid indentation in quoted scalar" if matches!(b.get(at), Some(b'"' | b'\'')) => {
                // saphyr wants the block indentation (at most two columns right of the block
                // collection); the quote's column (as saphyr saw it: a pad may have moved its
                // line) is enough for sure, and is used when the first try was not.
                let quote_col = self.yaml_col(at) + self.repairs.pad_at(line_start).unwrap_or(0);
                let retry = self.repairs.pad_at(repair::next_line(b, at)).is_some();
                let to = if retry {
                    quote_col
                } else {
                    quote_col.min(self.block_pad_target())
                };
                let (pads, end) = repair::quoted_pads(b, at, to, 0);
                let edits: Vec<Edit> = pads
                    .into_iter()
                    .map(|(ls, n)| Edit::exact(ls, EditKind::Pad(n)))
                    .collect();
                (!edits.is_empty()).then_some((edits, Some(end)))
            }
            // saphyr checks indentation inside flow collections ("invalid indentation" is only
            // raised there: in block context it unrolls the indentation first) and quoted
            // scalars; libyaml does not: `a: {\n}` and `b: {\n x: 1}` under a nested key load
            // (`accepted/flow_closing_at_column_1.yaml`, `accepted/flow_plain_left_of_indent.yaml`).
            // The line is padded to two columns right of the innermost block collection (saphyr's
            // indentation there plus one), more if saphyr still complains.
            // "invalid indentation" may also stop at a token after the continuation of a flow
            // plain scalar (`[whee\nl, adm]`): the line is padded all the same.
            // A token moved to its own line (after a quoted scalar, below) is moved further right.
            "invalid indentation" | "invalid indentation in flow construct"
                if self.repairs.break_at(at).is_some() =>
            {
                let prev = self.repairs.break_at(at)?;
                (prev < MAX_PAD).then(|| {
                    let to = self.block_pad_target().max(prev * 2 + 2);
                    (vec![Edit::exact(at, EditKind::Break(to))], None)
                })
            }
            "invalid indentation"
            | "invalid indentation in flow construct"
            | "tab cannot be used as indentation" => {
                let amount = self.line_pad(line_start)?;
                Some((
                    vec![Edit::exact(line_start, EditKind::Pad(amount))],
                    Some(line_start + 1),
                ))
            }
            // A tab in a line's indentation: libyaml refuses it in block context (the loader's
            // own tab check gives its message) but skips it in flow context
            // (`accepted/tab_in_flow.yaml`). Which one it is shows only after the re-parse, so
            // the pad is tentative.
            "tabs disallowed within this context (block indentation)"
                if first_on_line && !self.repairs.is_refused(line_start) =>
            {
                let amount = self.line_pad(line_start)?;
                Some((
                    vec![Edit::new(
                        line_start,
                        EditKind::Pad(amount),
                        Origin::Tentative,
                    )],
                    Some(line_start + 1),
                ))
            }
            // libyaml starts a comment at any `#` where a token may start: `[a,#b` and `[a]#c`
            // (`accepted/comment_after_flow_token.yaml`).
            "comments must be separated from other tokens by whitespace"
                if b.get(at) == Some(&b'#') =>
            {
                one(Edit::exact(at, EditKind::Insert(" ")))
            }
            // libyaml reads `[-]` as ["-"] (`accepted/flow_dash.yaml`): the `-` is read through a
            // stand-in character that the loader puts back.
            "plain scalar cannot start with '-' followed by ,[]{}"
                if b.get(at) == Some(&b'-') && !self.text.contains(DASH_STAND_IN) =>
            {
                one(Edit::exact(at, EditKind::Replace(DASH_STAND_IN)))
            }
            // YAML 1.2 (test BS4K) forbids a more-indented line right after `value # comment`;
            // libyaml ends the plain scalar at the comment and reads the next line as a new token
            // (`accepted/comment_then_more_indented.yaml`). A blank line in between tells saphyr
            // the same.
            "comment intercepting the multiline text" if next_line() < b.len() => {
                one(Edit::exact(next_line(), EditKind::Insert("\n")))
            }
            // A block scalar at its mapping's key column: saphyr saves it as a required simple
            // key, libyaml removes pending keys instead (`accepted/block_scalar_at_key_column.yaml`).
            // One more column makes the key optional to saphyr; the block scalar's indentation
            // is relative to the mapping, not to the indicator.
            "simple key expect ':'" | "simple key expected" => {
                match self.pending_block_scalar(at)? {
                    (k, true) => one(Edit::exact(k, EditKind::Insert(" "))),
                    (_, false) => None,
                }
            }

            // `"a" :[b]`, `*a :[b]`: libyaml reads a `:` in flow context as the value indicator
            // whatever follows; saphyr wants a blank before `[`/`{` unless the key is adjacent.
            // After a plain scalar the `:` is inside it to libyaml, an error (`psych_wording`).
            "':' may not precede any of `[{` in flow mapping" if self.flow_colon_after_node(at) => {
                one(Edit::exact(at + 1, EditKind::Insert(" ")))
            }
            // `?` ending the text is an empty key to libyaml (saphyr wants whitespace after it);
            // in flow context libyaml skips tabs after it.
            "expected whitespace" if at >= b.len() && b.last() == Some(&b'?') => {
                one(Edit::exact(b.len(), EditKind::Insert("\n")))
            }
            "expected whitespace" | "tabs disallowed in this context"
                if b.get(at) == Some(&b'\t') =>
            {
                // In block context libyaml refuses the tab; the loader's tab check still reads
                // the original text and says so.
                one(Edit::exact(at, EditKind::Replace(' ')))
            }
            // Text after a quoted scalar on its line: libyaml reads it as the next token (which
            // ends a quoted root: Psych returns the scalar, `accepted/quoted_root_then_text.yaml`;
            // in a mapping it fails: `malformed/trailing_after_quoted.yaml`). The token moves to
            // the next line at the same column, where saphyr reads it as libyaml does, unless
            // starting a line changes its meaning (a `:`, `-` or `?` indicator).
            "invalid trailing content after double-quoted scalar" => self.quoted_then_text(at),
            _ => None,
        }
    }

    /// Whether the token before the `:` at `at` (past blanks) is a quoted scalar, a flow
    /// collection or an alias, not a plain scalar running on to the `:`.
    fn flow_colon_after_node(&self, at: usize) -> bool {
        let b = self.text.as_bytes();
        let mut p = at.min(b.len());
        while p > 0 && matches!(b[p - 1], b' ' | b'\t' | b'\r' | b'\n') {
            p -= 1;
        }
        if p == at || p == 0 {
            return false;
        }
        if matches!(b[p - 1], b']' | b'}' | b'"' | b'\'') {
            return true;
        }
        let mut s = p;
        while s > 0 && !matches!(b[s - 1], b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b'{') {
            s -= 1;
        }
        b[s] == b'*'
    }

    /// How many spaces to put before the line at `line_start` (inside a flow collection or a
    /// quoted scalar) so that saphyr accepts its indentation: up to two columns right of the
    /// innermost block collection, or twice the last pad when that was not enough.
    fn line_pad(&self, line_start: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let lead = b[line_start..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        let has_tab = b[line_start..line_start + lead].contains(&b'\t');
        match self.repairs.pad_at(line_start) {
            // More padding cannot help (saphyr's indentation is never that deep).
            Some(prev) if prev >= MAX_PAD => None,
            Some(prev) => Some(prev * 2 + 2),
            None => Some(repair::pad_amount(lead, has_tab, self.block_pad_target()).max(1)),
        }
    }

    /// Two columns right of the innermost block collection: saphyr's indentation inside a flow
    /// collection there plus one (a plain scalar's minimum).
    fn block_pad_target(&self) -> usize {
        self.stack
            .iter()
            .rev()
            .find(|f| !f.in_flow)
            .map_or(1, |f| self.yaml_col(f.start) + 2)
    }

    /// The block scalar indicator saphyr holds as a required simple key: the first token after
    /// the last event, when it is a `|`/`>` header starting its line; and whether one more
    /// column keeps its meaning.
    fn pending_block_scalar(&self, at: usize) -> Option<(usize, bool)> {
        let b = self.text.as_bytes();
        let mut k = self.last_end;
        let at = at.min(b.len());
        let mut indicator = false;
        while k < at {
            match b[k] {
                b' ' | b'\t' | b'\r' | b'\n' => k += 1,
                _ if repair::break_len(b, k) > 0 => k += repair::break_len(b, k),
                b'#' => {
                    while k < at && b[k] != b'\n' {
                        k += 1;
                    }
                }
                b':' | b'-' | b'?'
                    if matches!(b.get(k + 1), Some(b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    indicator = true;
                    k += 1
                }
                _ => break,
            }
        }
        // Only as the value of an indicator (`key:`, `-`, `?`) is the block scalar where
        // libyaml's parser wants a node; one more column keeps it there. After a complete value
        // the scalar sits where a key must be: libyaml fails (worded by `psych_wording`), and a
        // moved scalar could continue a plain scalar or land at another mapping's column.
        let movable = indicator;
        let line_start = repair::line_start(b, k);
        let header_end = k + b[k..]
            .iter()
            .take_while(|c| matches!(c, b'|' | b'>' | b'+' | b'-' | b'1'..=b'9'))
            .count();
        (k < at
            && matches!(b[k], b'|' | b'>')
            && b[line_start..k].iter().all(|&c| c == b' ')
            && matches!(b.get(header_end), None | Some(b' ' | b'\t' | b'\r' | b'\n')))
        .then_some((k, movable))
    }

    /// The innermost `[` or `{` saphyr has read but not reported (between the last event and
    /// `at`), still open at `at`.
    fn pending_flow_opening(&self, at: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let at = at.min(b.len());
        let mut open = Vec::new();
        let mut i = self.last_end.min(at);
        while i < at {
            match b[i] {
                b'[' | b'{' => open.push(i),
                b']' | b'}' => {
                    open.pop();
                }
                b'"' | b'\'' if i == 0 || !b[i - 1].is_ascii_alphanumeric() => {
                    i = repair::quoted_end(b, i, b[i]);
                    continue;
                }
                b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b',') => {
                    while i < at && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        open.pop()
    }

    /// libyaml's error for text after a quoted root scalar on its line (`at`; the quote at `q`):
    /// a `-` or `?` indicator is not allowed after the scalar, a `:` makes the scalar a key and
    /// the text before it a stray node in that mapping.
    fn root_quoted_trailing(&self, at: usize, q: usize) -> Option<(String, Option<usize>)> {
        let b = self.text.as_bytes();
        let line_end = repair::next_line(b, at);
        let mut token_start = true;
        let mut in_plain = false;
        for i in at..line_end {
            let blank_next = matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
            match b[i] {
                b'#' if token_start => return None,
                b'-' | b'?' if in_plain => {}
                b'-' if token_start && blank_next => {
                    return Some((
                        "block sequence entries are not allowed in this context".into(),
                        Some(i),
                    ))
                }
                b'?' if token_start && blank_next => {
                    return Some((
                        "mapping keys are not allowed in this context".into(),
                        Some(i),
                    ))
                }
                b':' if blank_next => {
                    return Some((
                        "did not find expected key while parsing a block mapping".into(),
                        Some(q),
                    ))
                }
                b' ' | b'\t' => {}
                _ if token_start => in_plain = true,
                _ => {}
            }
            token_start = matches!(b[i], b' ' | b'\t');
        }
        None
    }

    /// The opening quote of the quoted scalar saphyr stopped after (at `at`, past its trailing
    /// blanks): the first token after the last event, past a `---` and block indicators.
    fn pending_quoted(&self, at: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let at = at.min(b.len());
        let mut q = self.last_end;
        while q < at {
            match b[q] {
                b' ' | b'\t' | b'\r' | b'\n' => q += 1,
                b'#' => {
                    while q < at && b[q] != b'\n' {
                        q += 1;
                    }
                }
                b':' | b'-' | b'?'
                    if matches!(b.get(q + 1), Some(b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    q += 1
                }
                b'-' if b[q..].starts_with(b"---")
                    && matches!(b.get(q + 3), Some(b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    q += 3
                }
                _ => break,
            }
        }
        if !matches!(b.get(q), Some(b'"' | b'\'')) {
            return None;
        }
        let close = repair::quoted_end(b, q, b[q]);
        (close <= at && b[close..at].iter().all(|c| matches!(c, b' ' | b'\t'))).then_some(q)
    }

    /// The `&` or `*` of the first token saphyr has not reported yet, when it is an anchor or an
    /// alias (after block indicators and a tag).
    fn pending_anchor(&self, at: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let at = at.min(b.len());
        let mut k = self.last_end;
        while k < at {
            match b[k] {
                b' ' | b'\t' | b'\r' | b'\n' => k += 1,
                b'#' => {
                    while k < at && b[k] != b'\n' {
                        k += 1;
                    }
                }
                b':' | b'-' | b'?'
                    if matches!(b.get(k + 1), Some(b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    k += 1
                }
                b'!' => {
                    let end = token_end(b, k, at);
                    if b.get(end)
                        .is_some_and(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
                    {
                        // A tag ended by a flow indicator: libyaml's check comes first.
                        return Some(k);
                    }
                    k = end;
                }
                _ => break,
            }
        }
        (k < at && matches!(b[k], b'&' | b'*')).then_some(k)
    }

    /// Text after a quoted scalar on its line (`at`): the edit that moves it to the next line
    /// at its column, when that keeps its meaning. libyaml allows no simple key after a quoted
    /// scalar on its line and saphyr does at a line start, so a `:` on the rest of the line, or
    /// a `-`/`?` indicator, keeps saphyr's error (worded as libyaml's by `psych_wording`).
    fn quoted_then_text(&self, at: usize) -> Option<(Vec<Edit>, Option<usize>)> {
        let b = self.text.as_bytes();
        if at >= b.len() || self.repairs.has_insert(at) {
            return None;
        }
        let mut line_end = repair::next_line(b, at);
        // A root scalar spanning lines is no possible key any more: libyaml reads just one more
        // token before it ends the document, so only that token's indicator matters.
        let multi_line_root = self.stack.is_empty()
            && self.root.is_none()
            && self
                .pending_quoted(at)
                .is_some_and(|q| repair::next_line(b, q) <= at);
        if multi_line_root {
            let token_end = b[at..line_end]
                .iter()
                .position(|&c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
                .map_or(line_end, |p| at + p);
            if matches!(&b[at..token_end], b"-" | b"?") {
                return None;
            }
            line_end = at;
        }
        let rest = &b[at..line_end];
        // Inside a plain scalar, `- ` and `? ` are text (up to a flow indicator in flow context).
        let in_flow = self.stack.last().is_some_and(|f| f.in_flow);
        let mut token_start = true;
        let mut in_plain = false;
        for (i, &c) in rest.iter().enumerate() {
            let blank_next = matches!(rest.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
            let bad = match c {
                b'#' if token_start => break,
                b':' => {
                    blank_next || matches!(rest.get(i + 1), Some(b',' | b'[' | b']' | b'{' | b'}'))
                }
                b'-' | b'?' => token_start && blank_next && !in_plain,
                _ => false,
            };
            if bad {
                return None;
            }
            if token_start && !matches!(c, b' ' | b'\t' | b'-' | b'?') {
                in_plain = true;
            }
            if in_flow && matches!(c, b',' | b'[' | b']' | b'{' | b'}') {
                in_plain = false;
            }
            token_start = matches!(c, b' ' | b'\t' | b',' | b'[' | b'{');
        }
        Some((
            vec![Edit::exact(at, EditKind::Break(self.yaml_col(at)))],
            None,
        ))
    }

    /// A block scalar as the root node: libyaml indents its content at least one column
    /// (`yaml_parser_scan_block_scalar`: `indent = 1` at least), saphyr takes column 0 at the top
    /// level. A first content line at column 0 ends libyaml's (empty) scalar, and with it the
    /// first document: Psych returns `""` and never reads the rest. The document is read again
    /// up to that line.
    fn check_root_block_scalar(&mut self, span: Span) -> bool {
        let b = self.text.as_bytes();
        let header = span.start as usize;
        if b[header..]
            .iter()
            .skip(1)
            .take_while(|c| matches!(c, b'+' | b'-' | b'1'..=b'9'))
            .any(u8::is_ascii_digit)
        {
            return true;
        }
        let mut ls = repair::next_line(b, header);
        while ls < b.len() {
            let blank = b[ls..].iter().take_while(|c| **c == b' ').count();
            let next = repair::next_line(b, ls);
            if b[ls + blank..next]
                .iter()
                .any(|c| !matches!(c, b'\r' | b'\n'))
            {
                break;
            }
            ls = next;
        }
        if ls >= b.len() || matches!(b[ls], b' ' | b'\t') || self.truncate_at.is_some() {
            return true;
        }
        self.after_document(
            Span::empty(ls),
            "a line at column 1 is not part of a root block scalar to libyaml, which ends the \
             document before it",
        );
        self.truncate_at = Some(ls);
        false
    }

    /// Whether a block scalar's content (ending at `end`) runs to the end of a text whose last
    /// line has no line break.
    fn block_scalar_ends_text(&self, end: usize) -> bool {
        let rest = self.text.get(end..).unwrap_or("");
        rest.bytes().all(|c| matches!(c, b' ' | b'\t'))
            && !self
                .text
                .ends_with(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
    }

    /// A node's anchor and tag, as libyaml scans them.
    fn check_props(&mut self, props: &Props) -> bool {
        let mut at = [props.anchor_at, props.tag_at];
        at.sort_unstable();
        at.into_iter()
            .flatten()
            .all(|i| match self.text.as_bytes()[i] {
                b'!' => self.check_tag_end(i),
                _ => self.check_anchor_name(i),
            })
    }

    /// libyaml ends a tag at the first character outside `yaml_parser_scan_tag_uri`'s set
    /// (letters, digits and `-_;/?:@&=+$.!~*'()%`; a verbatim `!<...>` also takes `,[]`) and
    /// wants a blank or a line break there, or a `,` in flow context: `a: !t,x 1`, `[!t]` and
    /// `!{a: 1}` fail. saphyr reads the tag up to a blank or a flow indicator (recorded with
    /// Psych: `did not find expected whitespace or line break while scanning a tag`).
    fn check_tag_end(&mut self, at: usize) -> bool {
        let b = self.text.as_bytes();
        let mut i = at + 1;
        if b.get(i) == Some(&b'<') {
            i = tag_uri_end(b, i + 1, true);
            if b.get(i) != Some(&b'>') {
                // saphyr refuses an unclosed verbatim tag itself.
                return true;
            }
            i += 1;
        } else {
            i = tag_uri_end(b, i, false);
        }
        let in_flow = self.stack.last().is_some_and(|f| f.in_flow);
        match b.get(i) {
            None | Some(b' ' | b'\t' | b'\r' | b'\n') => true,
            Some(b',') if in_flow => true,
            _ if self.text[i..].starts_with(['\u{85}', '\u{2028}', '\u{2029}']) => true,
            // libyaml's problem mark: the character that ends the tag's URI characters.
            _ => self.syntax_at(
                i,
                "did not find expected whitespace or line break while scanning a tag",
                at,
            ),
        }
    }

    /// libyaml's anchor and alias names (`yaml_parser_scan_anchor`): `[0-9A-Za-z_-]+`, then a
    /// blank, a line break or one of `?:,]}%@` and the backquote. saphyr takes any character but
    /// a blank or a flow indicator: `&port:` is the anchor `port:` to saphyr and `port` on an
    /// empty key to libyaml (`accepted/anchor_before_colon.yaml`); `*admi&n` is an error
    /// (`malformed/alias_bad_character.yaml`). `at` is the `&` or `*`.
    fn check_anchor_name(&mut self, at: usize) -> bool {
        let b = self.text.as_bytes();
        let Some(&sigil) = b.get(at).filter(|c| matches!(c, b'&' | b'*')) else {
            return true;
        };
        let end = anchor_end(b, at + 1, b.len());
        let next = self.text[end..].chars().next();
        let named = end > at + 1;
        match next {
            _ if !named => {}
            None
            | Some(
                ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' | ',' | ']' | '}',
            ) => return true,
            // libyaml ends the name there and reads the character as the next token; a space
            // makes saphyr do the same.
            Some('?' | ':' | '%' | '@' | '`') if self.repairs.has_insert(end) => return true,
            Some('?' | ':' | '%' | '@' | '`') => {
                return self.ask(
                    vec![Edit::exact(end, EditKind::Insert(" "))],
                    None,
                    at,
                    "an anchor name ending at an indicator",
                );
            }
            Some(_) => {}
        }
        let what = if sigil == b'&' {
            "an anchor"
        } else {
            "an alias"
        };
        // libyaml's problem mark is the character that ends the name (its context mark, in the
        // message, is the sigil); a name that is missing is shown at the sigil.
        self.syntax_at(
            if named { end } else { at },
            &format!("did not find expected alphabetic or numeric character while scanning {what}"),
            at,
        )
    }

    /// A plain scalar in flow context, as libyaml scans it (`yaml_parser_fetch_next_token`,
    /// `yaml_parser_scan_plain_scalar`): `?` and `:` are the key and value indicators whatever
    /// follows, `|` and `>` cannot start a token, a `:` followed by one of `,?[]{}` is an error,
    /// and a tab left of the indentation on a continuation line too. saphyr reads `[?a]`,
    /// `[:a]` and `[|a]` as plain scalars and `{a:}` as an empty value
    /// (`accepted/flow_question_mark_key.yaml`, `malformed/flow_symbol.yaml`,
    /// `malformed/flow_pipe.yaml`, `malformed/flow_colon_before_bracket.yaml`).
    fn check_flow_plain(&mut self, span: Span, value: &str) -> bool {
        let b = self.text.as_bytes();
        let (s, e) = (span.start as usize, span.end as usize);
        let Some(&first) = b.get(s).filter(|&&c| value.as_bytes().first() == Some(&c)) else {
            return true;
        };
        match first {
            b'?' | b':' if self.repairs.has_insert(s + 1) => {}
            b'?' | b':' => {
                return self.ask(
                    vec![Edit::exact(s + 1, EditKind::Insert(" "))],
                    None,
                    s,
                    "a flow indicator",
                )
            }
            b'|' | b'>' => {
                return self.syntax_at(
                    s,
                    "found character that cannot start any token while scanning for the next \
                     token",
                    s,
                )
            }
            _ => {}
        }
        let stop = (e + 1).min(b.len());
        if (s..stop).any(|i| {
            b[i] == b':' && matches!(b.get(i + 1), Some(b',' | b'?' | b'[' | b']' | b'{' | b'}'))
        }) {
            return self.syntax_at(s, "found unexpected ':' while scanning a plain scalar", s);
        }
        if self.has_tabs && b[s..e].contains(&b'\n') {
            // Continuation lines: a tab in the indentation left of libyaml's indent for the
            // scalar (the innermost block collection's column plus one). saphyr checks this
            // too, unless a pad moved the line.
            let indent = self.plain_block_start().map_or(0, |p| self.col(p) + 1);
            let mut i = s;
            while let Some(p) = b[i..e].iter().position(|&c| c == b'\n') {
                let ls = i + p + 1;
                let mut j = ls;
                while j < e && matches!(b[j], b' ' | b'\t') {
                    if b[j] == b'\t' && j - ls < indent {
                        return self.syntax_at(
                            j,
                            "found a tab character that violates indentation while scanning a \
                             plain scalar",
                            s,
                        );
                    }
                    j += 1;
                }
                i = ls;
            }
        }
        true
    }

    /// Asks for a parse with `edits`; false stops this run. When no more repairs are allowed,
    /// the construct stops loading with a `Limit` issue instead.
    fn ask(&mut self, edits: Vec<Edit>, speculate: Option<usize>, at: usize, what: &str) -> bool {
        if self.repairs.exhausted {
            let end = crate::span::floor_char_boundary(self.text, at + 1).max(at);
            return self.stop_with(
                LoadIssueKind::Limit,
                Span::new(at, end),
                format!(
                    "the YAML parser hieralint uses refuses {what} here where libyaml accepts it, \
                     and hieralint has repaired as many such places in this file as it allows; \
                     it stops loading here"
                ),
            );
        }
        self.stop_at = self.stop_at.min(at);
        self.request = Some((edits, speculate));
        false
    }

    /// Pads at line starts strictly inside `start..end` (a flow collection or a quoted scalar)
    /// are confirmed.
    fn cover(&mut self, start: usize, end: usize) {
        let i = self.pads.partition_point(|p| p.0 <= start);
        for p in self.pads[i..].iter_mut().take_while(|p| p.0 < end) {
            p.2 = true;
        }
    }

    /// Tabs replaced strictly inside `start..end` (a quoted or block scalar) changed a value.
    fn taint(&mut self, start: usize, end: usize) {
        let i = self.tabs.partition_point(|t| t.0 <= start);
        for t in self.tabs[i..].iter_mut().take_while(|t| t.0 < end) {
            t.2 = true;
        }
    }

    /// Unconfirmed edits before `limit` that this run shows wrong: whether a speculative one
    /// is among them, and the positions of the tentative ones.
    fn wrong_edits(&self, limit: usize) -> (bool, Vec<usize>) {
        let mut speculative = false;
        let mut tentative = Vec::new();
        let wrong = self
            .pads
            .iter()
            .filter(|p| p.0 < limit && !p.2)
            .chain(self.tabs.iter().filter(|t| t.0 < limit && t.2));
        for &(at, origin, _) in wrong {
            match origin {
                Origin::Speculative => speculative = true,
                Origin::Tentative => tentative.push(at),
                Origin::Exact => {}
            }
        }
        (speculative, tentative)
    }

    /// What this run asks for: another parse with more edits, without wrong ones, or nothing.
    fn verdict(&self) -> Verdict {
        if let Some((edits, speculate)) = &self.request {
            // Edits made so far are judged once a parse gets through.
            return Verdict::Repair(edits.clone(), *speculate);
        }
        let limit = self.stop_at.min(self.doc_end.unwrap_or(usize::MAX));
        let (mut speculative, mut tentative) = self.wrong_edits(limit);
        if (speculative || !tentative.is_empty()) && limit < self.text.len() {
            // saphyr's scanner may have read a whole flow collection ahead of its events (the
            // collection could be a key) when it stopped: read up to the stop again, where
            // the events catch up, and take the edits the second reading confirms.
            let input = ParseInput::build(self.text, limit, self.repairs);
            let mut probe = Loader::new(
                &self.text[..limit],
                &input,
                self.line_starts,
                self.repairs,
                self.limits,
            );
            probe.run();
            let confirmed = |at: usize| probe.pads.iter().any(|p| p.0 == at && p.2);
            speculative = false;
            tentative.clear();
            for &(at, origin, covered) in &self.pads {
                if at < limit && !covered && !confirmed(at) {
                    match origin {
                        Origin::Speculative => speculative = true,
                        Origin::Tentative => tentative.push(at),
                        Origin::Exact => {}
                    }
                }
            }
            for &(at, origin, tainted) in &self.tabs {
                if at < limit && tainted {
                    match origin {
                        Origin::Speculative => speculative = true,
                        Origin::Tentative => tentative.push(at),
                        Origin::Exact => {}
                    }
                }
            }
        }
        if speculative {
            Verdict::DropSpeculative
        } else if !tentative.is_empty() {
            Verdict::DropTentative(tentative)
        } else {
            Verdict::Done
        }
    }

    // ----- errors and the end -----------------------------------------------------------------

    fn stop_with(&mut self, kind: LoadIssueKind, span: Span, message: String) -> bool {
        self.comment_limit = self.comment_limit.min(span.start as usize);
        if !self.skipping {
            self.stop_at = self.stop_at.min(span.start as usize);
        }
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
        let at = self.byte(m.index());
        if !self.skipping && !self.reader_error {
            if let Some((edits, speculate)) = self.repair_for(e.info(), at) {
                self.ask(edits, speculate, at, e.info());
                return;
            }
            // saphyr holds the tokens of a possible simple key until it knows whether a `:`
            // follows; an anchor there was read with saphyr's looser name rules before the error.
            if let Some(k) = self.pending_anchor(at) {
                let checked = if self.text.as_bytes()[k] == b'!' {
                    self.check_tag_end(k)
                } else {
                    self.check_anchor_name(k)
                };
                if !checked {
                    return;
                }
            }
        }
        if self.has_tabs && !self.skipping && !self.check_tabs(at) {
            return;
        }
        let end = crate::span::floor_char_boundary(self.text, (at + 1).min(self.text.len()));
        let span = Span::new(at, end.max(at));
        let info = e.info();
        if info == "recursion limit exceeded" {
            // saphyr counts flow levels in a u8 (MAX_FLOW_DEPTH).
            self.stop_with(
                LoadIssueKind::Limit,
                span,
                format!(
                    "flow collections are nested deeper than {MAX_FLOW_DEPTH} levels; hieralint \
                     stops loading here"
                ),
            );
            return;
        }
        if info == "wrongly indented line in block scalar"
            && self.stack.is_empty()
            && self.root.is_none()
            && !self.skipping
        {
            // A root block scalar with an indentation indicator (`|1`) and a line left of it:
            // libyaml ends the scalar there, and the document (Psych returns it); saphyr refuses
            // the line. The document is read again up to it.
            let line = repair::line_start(self.text.as_bytes(), at);
            self.after_document(
                Span::empty(line),
                "a line left of a root block scalar's indentation ends the scalar to libyaml, \
                 and the document",
            );
            self.truncate_at = Some(line);
            return;
        }
        // Errors saphyr raises where libyaml just ends the first document (an explicit end
        // marker followed by content, a directive without `...`, a stray closing bracket after
        // a flow root): Psych returns the first document.
        // A `...` or a directive at column 0 ends the document in libyaml (block collections
        // are closed by unrolling the indentation), as a stray `]` does after a flow root.
        if info == "missing explicit document end marker before directive" {
            // libyaml scans the directive first: a malformed one is the error.
            let line_end = self.text[at..]
                .find('\n')
                .map_or(self.text.len(), |p| at + p);
            if let Err((problem, context, p)) = scan_directive(&self.text.as_bytes()[at..line_end])
            {
                let p = (at + p).min(line_end);
                self.syntax_at(p, &format!("{problem} {context}"), at);
                return;
            }
        }
        let ends_all = match info {
            // A stray bracket ends a flow root; with nothing before it, it is where the root
            // node should be.
            // libyaml unrolls the block collections right of the bracket's column before it
            // reads the bracket (`yaml_parser_unroll_indent`): with none left, the document is
            // complete and the bracket comes after it.
            "misplaced bracket" => {
                let col = self.yaml_col(at);
                self.stack
                    .iter()
                    .all(|f| f.flow || self.yaml_col(f.start) > col)
                    && (self.root.is_some() || !self.stack.is_empty() || self.content_before(at))
            }
            "invalid content after document end marker"
            | "missing explicit document end marker before directive" => {
                !self.stack.iter().any(|f| f.flow)
            }
            _ => false,
        };
        let root_done = self.root.is_some() && self.stack.is_empty() || ends_all;
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
        // The message names libyaml's context mark (Psych prints it); the diagnostic points at
        // its problem mark where saphyr stopped earlier (at the start of the scalar, tag,
        // anchor or block header that holds the problem).
        let problem = self.problem_span(&message, at).unwrap_or(span);
        let message = match context_at {
            Some(c) => format!("{message}{}", self.psych_at(c)),
            None => message,
        };
        if self.reader_error || self.skipping {
            self.stop_syntax(span, message);
            return;
        }
        // Where loading stops (and comments stop being read) is saphyr's mark, as before.
        self.stop_with(LoadIssueKind::Syntax, span, message);
        if let Some(issue) = self.issues.last_mut() {
            issue.span = problem;
        }
    }

    /// libyaml's problem mark, where saphyr reports the start of the construct instead (the
    /// session-26 span audit): the bad escape of a double-quoted scalar (the whole escape),
    /// the tab that breaks the indentation of a plain scalar, the character of a block
    /// scalar's header that is neither an indicator nor a comment, an indentation indicator
    /// of 0, the character that ends an anchor's or alias's name. `None` where `at` is not
    /// what the message expects there: the caller keeps saphyr's mark.
    fn problem_span(&self, message: &str, at: usize) -> Option<Span> {
        let b = self.text.as_bytes();
        let char_at = |i: usize| self.text.get(i..)?.chars().next();
        let one_char = |i: usize| Some(Span::new(i, i + char_at(i)?.len_utf8()));
        let quoted = |what: &str| message.starts_with(what) && message.contains("quoted scalar");
        if quoted("found unknown escape character")
            || quoted("did not find expected hexdecimal number")
            || quoted("found invalid Unicode character escape code")
        {
            if b.get(at) != Some(&b'"') {
                return None;
            }
            let mut i = at + 1;
            while let Some(c) = char_at(i) {
                match c {
                    '"' => return None,
                    '\\' => {
                        let e = char_at(i + 1)?;
                        // An escaped line break folds the line; every other escape is
                        // the loader's own table.
                        let digits = match e {
                            '\n' | '\r' => 0,
                            _ => match crate::value_span::escape_digits(e) {
                                Some(n) => n,
                                None => return Some(Span::new(i, i + 1 + e.len_utf8())),
                            },
                        };
                        let start = i + 2;
                        // The escape's digits as written (up to the closing quote or the line).
                        let mut end = start;
                        let mut value = 0u32;
                        let mut hex = true;
                        for _ in 0..digits {
                            match char_at(end) {
                                Some(d) if d != '"' && d != '\n' && d != '\r' => {
                                    match d.to_digit(16) {
                                        Some(v) => value = value.wrapping_mul(16).wrapping_add(v),
                                        None => hex = false,
                                    }
                                    end += d.len_utf8();
                                }
                                _ => {
                                    hex = false;
                                    break;
                                }
                            }
                        }
                        let invalid = digits > 0
                            && (!hex || (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF);
                        if invalid {
                            return Some(Span::new(i, end));
                        }
                        i = end;
                    }
                    c => i += c.len_utf8(),
                }
            }
            return None;
        }
        if message.starts_with("found a tab character that violates indentation") {
            // The first tab after `at` that only blanks precede on its line.
            let mut line_start = true;
            for (i, &c) in b.iter().enumerate().skip(at) {
                match c {
                    b'\t' if line_start => return one_char(i),
                    b'\n' => line_start = true,
                    b' ' => {}
                    _ => line_start = false,
                }
            }
            return None;
        }
        if message.contains("while scanning a block scalar")
            && matches!(b.get(at), Some(b'|' | b'>'))
        {
            let mut i = at + 1;
            if message.starts_with("found an indentation indicator equal to 0") {
                while let Some(&c) = b.get(i) {
                    match c {
                        b'0' => return one_char(i),
                        b'+' | b'-' => i += 1,
                        _ => return None,
                    }
                }
                return None;
            }
            if message.starts_with("did not find expected comment or line break") {
                while matches!(b.get(i), Some(b'+' | b'-' | b'1'..=b'9')) && i < at + 3 {
                    i += 1;
                }
                while matches!(b.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                return one_char(i).filter(|_| !matches!(b.get(i), Some(b'#' | b'\n' | b'\r')));
            }
            return None;
        }
        if message
            .starts_with("did not find expected whitespace or line break while scanning a tag")
            && b.get(at) == Some(&b'!')
        {
            return one_char(tag_uri_end(b, at + 1, false));
        }
        if b.get(at) == Some(&b'%') && message.contains("directive") {
            // The directive's line read again, as libyaml scans it.
            let line_end = self.text[at..]
                .find('\n')
                .map_or(self.text.len(), |p| at + p);
            if let Err((_, _, p)) = scan_directive(&b[at..line_end]) {
                // The word the problem starts (an unknown directive's name, a bad version).
                let p = (at + p).min(line_end);
                let mut end = p;
                while end < line_end && !matches!(b[end], b' ' | b'\t' | b'\r') {
                    end += 1;
                }
                let end = crate::span::floor_char_boundary(self.text, end.max(p + 1).min(line_end));
                return Some(Span::new(p, end.max(p)));
            }
            return None;
        }
        if message.starts_with("did not find the expected '>'")
            && b.get(at) == Some(&b'!')
            && b.get(at + 1) == Some(&b'<')
        {
            // An unclosed verbatim tag: the first character that is not a URI character.
            return one_char(tag_uri_end(b, at + 2, true));
        }
        if message.starts_with("did not find expected alphabetic or numeric character")
            && matches!(b.get(at), Some(b'&' | b'*'))
        {
            // The first character after the sigil that is not a name character (the sigil
            // itself when there is no name).
            let end = anchor_end(b, at + 1, b.len());
            return one_char(if end > at + 1 { end } else { at });
        }
        None
    }

    /// Maps saphyr's error text to libyaml's `problem context` wording and context mark.
    fn psych_wording(&self, info: &str, at: usize) -> (String, Option<usize>) {
        let innermost = |flow: Option<bool>, seq: Option<bool>| {
            self.stack.iter().rev().find(|f| {
                flow.is_none_or(|fl| f.flow == fl)
                    && seq.is_none_or(|s| matches!(f.kind, FrameKind::Seq(_)) == s)
            })
        };
        let by_frame = |frame: Option<&Frame>| -> (String, Option<usize>) {
            match frame {
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
        let by_context = || match self.pending_flow_opening(at) {
            // saphyr's scanner read past a `[`/`{` whose event has not come (it could be a
            // key): that collection is the one being parsed.
            Some(open) if self.text.as_bytes()[open] == b'[' => (
                "did not find expected ',' or ']' while parsing a flow sequence".into(),
                Some(open),
            ),
            Some(open) => (
                "did not find expected ',' or '}' while parsing a flow mapping".into(),
                Some(open),
            ),
            None => by_frame(self.stack.last()),
        };
        let reorder = |context: &str, problem: &str| (format!("{problem} {context}"), Some(at));
        match info {
            "misplaced bracket" if self.stack.is_empty() && self.root.is_none() => (
                "did not find expected node content while parsing a block node".into(),
                Some(at),
            ),
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
            | "misplaced bracket" => by_context(),
            // saphyr fails inside the token, before reporting the block ends its column closes
            // (`yaml_parser_unroll_indent`): the collection libyaml is in is the innermost one
            // at or left of the quote.
            "invalid trailing content after double-quoted scalar"
                if self.text.as_bytes().get(at) != Some(&b':') =>
            {
                match self.pending_quoted(at) {
                    // A quoted root: libyaml scans the rest of its line (the scalar could still
                    // be a key) and fails at the first indicator it cannot take there.
                    Some(q) if self.stack.is_empty() && self.root.is_none() => {
                        self.root_quoted_trailing(at, q).unwrap_or_else(by_context)
                    }
                    Some(q) if !self.stack.iter().any(|f| f.flow) => {
                        let col = self.yaml_col(q);
                        by_frame(
                            self.stack
                                .iter()
                                .rev()
                                .find(|f| self.yaml_col(f.start) <= col),
                        )
                    }
                    _ => by_context(),
                }
            }
            // A `:` after a quoted scalar spanning lines (saphyr's reason to refuse it here):
            // the scalar is no simple key to libyaml any more (`yaml_parser_stale_simple_keys`),
            // so the `:` fails, unless the key was required at its mapping's column.
            "invalid trailing content after double-quoted scalar" => {
                match self.pending_quoted(at) {
                    Some(q)
                        if self
                            .plain_block_start()
                            .is_some_and(|m| self.yaml_col(m) == self.yaml_col(q)) =>
                    {
                        (
                            "could not find expected ':' while scanning a simple key".into(),
                            Some(q),
                        )
                    }
                    _ => (
                        "mapping values are not allowed in this context".into(),
                        Some(at),
                    ),
                }
            }
            // After a plain scalar in a flow collection (`{a:[b]}`): libyaml refuses the `:`
            // inside the scalar, at the scalar's start.
            "':' may not precede any of `[{` in flow mapping" => {
                // The scalar runs back over blanks to a flow indicator or a `: `.
                let b = self.text.as_bytes();
                let mut s = at.min(b.len());
                while s > 0
                    && !matches!(b[s - 1], b',' | b'[' | b']' | b'{' | b'}')
                    && !(b[s - 1] == b':' && matches!(b.get(s), Some(b' ' | b'\t' | b'\n')))
                {
                    s -= 1;
                }
                while s < at && matches!(b[s], b' ' | b'\t' | b'\r' | b'\n') {
                    s += 1;
                }
                (
                    "found unexpected ':' while scanning a plain scalar".into(),
                    Some(s),
                )
            }
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
            "\"-\" is only valid inside a block" => (
                "did not find expected node content while parsing a flow node".into(),
                Some(at),
            ),
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
                let name_end = anchor_end(b, at + 1, b.len());
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
            // A block scalar where a key must be (after a plain value): libyaml reads the
            // scalar and its parser wants a key there.
            "simple key expect ':'" | "simple key expected"
                if self.pending_block_scalar(at).is_some() =>
            {
                let (k, _) = self.pending_block_scalar(at).unwrap_or((at, false));
                let col = self.yaml_col(k);
                by_frame(
                    self.stack
                        .iter()
                        .rev()
                        .find(|f| !f.in_flow && self.yaml_col(f.start) <= col),
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
            "a block scalar content cannot start with a tab" => (
                "found a tab character where an indentation space is expected while scanning a \
                 block scalar"
                    .into(),
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
                // libyaml's own spelling.
                if info == "while parsing a quoted scalar, did not find expected hexadecimal number"
                {
                    return reorder(
                        "while parsing a quoted scalar",
                        "did not find expected hexdecimal number",
                    );
                }
                // "while <context>, <problem>" → "<problem> while <context>" (libyaml's order).
                if let Some((context, problem)) = info
                    .strip_prefix("while ")
                    .and_then(|r| r.split_once(", "))
                {
                    if context == "scanning a directive" {
                        // libyaml's context mark is the `%`, at the start of the line.
                        let line_start = self.text[..at].rfind('\n').map_or(0, |p| p + 1);
                        return (format!("{problem} while {context}"), Some(line_start));
                    }
                    return reorder(&format!("while {context}"), problem);
                }
                (info.to_string(), Some(at))
            }
        }
    }

    /// Whether a flow collection opens in `text[..at]` outside comments (the start of a root
    /// saphyr failed to report because its scanner looked ahead).
    fn content_before(&self, at: usize) -> bool {
        let b = self.text.as_bytes();
        find_indicator_any(b, 0, at, b"[{")
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
        // A flow collection still open where the run stopped holds everything up to there.
        let open: Vec<usize> = self
            .stack
            .iter()
            .filter(|f| f.flow)
            .map(|f| f.start)
            .collect();
        for start in open {
            self.cover(start, self.stop_at);
        }
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
            scalar_flags: Default::default(),
            lookup_options_at: Default::default(),
            root_key_hashes: Default::default(),
            interp_sites: Default::default(),
        }
    }
}

/// The length of the leading 32-byte blocks of `b` that hold only printable ASCII, tabs and
/// line breaks (so the rest starts at a character boundary).
fn plain_ascii_prefix(b: &[u8]) -> usize {
    let mut n = 0;
    for block in b.chunks(32) {
        // No early exit inside a block, so the check is vectorized.
        let unusual = block.iter().fold(false, |acc, &c| {
            acc | !(c == b'\t' || c == b'\n' || c == b'\r' || (0x20..=0x7e).contains(&c))
        });
        if unusual {
            break;
        }
        n += block.len();
    }
    n
}

fn depth_message(max_depth: usize) -> String {
    format!("collections are nested deeper than {max_depth} levels; hieralint stops loading here")
}

/// End of an anchor or alias name: libyaml's `[0-9A-Za-z_-]+` (see `check_anchor_name`).
/// End of the tag URI characters from `i` (libyaml's `yaml_parser_scan_tag_uri`; a verbatim
/// tag `!<...>` also takes `,[]`).
fn tag_uri_end(b: &[u8], mut i: usize, verbatim: bool) -> usize {
    while b.get(i).is_some_and(|&c| {
        c.is_ascii_alphanumeric()
            || b"-_;/?:@&=+$.!~*'()%".contains(&c)
            || verbatim && b",[]".contains(&c)
    }) {
        i += 1;
    }
    i
}

fn anchor_end(b: &[u8], mut i: usize, limit: usize) -> usize {
    while i < limit && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'-')) {
        i += 1;
    }
    i
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

/// libyaml's `yaml_parser_scan_directive` on one line starting with `%`: the `%YAML` version,
/// `None` for `%TAG`, or the scanner's (problem, context).
/// A malformed directive: libyaml's problem and context, and the offset in the line of its
/// problem mark.
type DirectiveError = (&'static str, &'static str, usize);

fn scan_directive(line: &[u8]) -> Result<Option<(u32, u32)>, DirectiveError> {
    const CTX: &str = "while scanning a directive";
    let blank = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t'));
    let blankz = |c: Option<&u8>| matches!(c, None | Some(b' ' | b'\t' | b'\r' | b'\n'));
    let alpha = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-');
    let mut i = 1;
    while line.get(i).is_some_and(alpha) {
        i += 1;
    }
    if i == 1 {
        return Err(("could not find expected directive name", CTX, i));
    }
    if !blankz(line.get(i)) {
        return Err(("found unexpected non-alphabetical character", CTX, i));
    }
    let skip_blanks = |i: &mut usize| {
        while blank(line.get(*i)) {
            *i += 1;
        }
    };
    let number = |i: &mut usize| -> Result<u32, DirectiveError> {
        let start = *i;
        while line.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        match *i - start {
            0 => Err((
                "did not find expected version number",
                "while scanning a %YAML directive",
                *i,
            )),
            n if n > 9 => Err((
                "found extremely long version number",
                "while scanning a %YAML directive",
                start,
            )),
            _ => Ok(std::str::from_utf8(&line[start..*i])
                .ok()
                .and_then(|d| d.parse().ok())
                .unwrap_or(0)),
        }
    };
    let version = match &line[1..i] {
        b"YAML" => {
            skip_blanks(&mut i);
            let major = number(&mut i)?;
            if line.get(i) != Some(&b'.') {
                return Err((
                    "did not find expected digit or '.' character",
                    "while scanning a %YAML directive",
                    i,
                ));
            }
            i += 1;
            let minor = number(&mut i)?;
            Some((major, minor))
        }
        b"TAG" => {
            skip_blanks(&mut i);
            if line.get(i) != Some(&b'!') {
                return Err((
                    "did not find expected '!'",
                    "while scanning a tag directive",
                    i,
                ));
            }
            i += 1;
            while line.get(i).is_some_and(alpha) {
                i += 1;
            }
            if line.get(i) == Some(&b'!') {
                i += 1;
            } else if i != 2 {
                return Err((
                    "did not find expected '!'",
                    "while scanning a tag directive",
                    i,
                ));
            }
            if !blank(line.get(i)) {
                return Err((
                    "did not find expected whitespace",
                    "while scanning a %TAG directive",
                    i,
                ));
            }
            skip_blanks(&mut i);
            let start = i;
            while !blankz(line.get(i)) {
                i += 1;
            }
            if i == start {
                return Err((
                    "did not find expected tag URI",
                    "while parsing a %TAG directive",
                    i,
                ));
            }
            None
        }
        _ => return Err(("found unknown directive name", CTX, 1)),
    };
    skip_blanks(&mut i);
    if line.get(i) == Some(&b'#') {
        return Ok(version);
    }
    if !matches!(line.get(i), None | Some(b'\r' | b'\n')) {
        return Err(("did not find expected comment or line break", CTX, i));
    }
    Ok(version)
}

/// Whether `b[from..to]` holds one of `chars` outside comments.
fn find_indicator_any(b: &[u8], from: usize, to: usize, chars: &[u8]) -> bool {
    let mut i = from;
    let to = to.min(b.len());
    while i < to {
        match b[i] {
            c if chars.contains(&c) => return true,
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
            .tag()
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

/// 1-based line and column as libyaml counts them: CR LF, CR, LF, NEL, LS and PS break lines.
fn libyaml_line_col(text: &str, byte: usize) -> (usize, usize) {
    let byte = crate::span::floor_char_boundary(text, byte);
    let (mut line, mut column) = (1, 1);
    let mut chars = text[..byte].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                column = 1;
            }
            _ => column += 1,
        }
    }
    (line, column)
}

/// Whether `b[..h]` ends with a block scalar header (`|`, `>`, then chomping and indentation
/// indicators) after a blank or a line start.
fn after_block_header(b: &[u8], h: usize) -> bool {
    let mut i = h;
    while i > 0 && matches!(b[i - 1], b'-' | b'+' | b'1'..=b'9') {
        i -= 1;
    }
    i > 0
        && matches!(b[i - 1], b'|' | b'>')
        && (i == 1 || matches!(b[i - 2], b' ' | b'\t' | b'\n' | b'\r'))
}

/// Finds `#` comments: outside scalar content, a `#` at a line start, after whitespace, or where
/// libyaml starts a token right after another (`yaml_parser_scan_to_next_token`): after a flow
/// indicator or a closing quote (`[a,#c`, `[a]#c`, `"a"#c`, `accepted/comment_after_flow_token.yaml`)
/// and after a block scalar header (`|#c`, `>-#c`).
fn scan_comments(text: &str, no_comment: &[(usize, usize)], limit: usize) -> Vec<Comment> {
    let b = text.as_bytes();
    let limit = limit.min(b.len());
    let mut ranges: Vec<(usize, usize)> = no_comment.to_vec();
    ranges.sort_unstable();
    let mut comments = Vec::new();
    let mut r = 0;
    let mut i = 0;
    while i < limit {
        // memchr: this scan over every file's text was 2% of a 1.5k-file check byte by byte.
        let Some(off) = memchr::memchr(b'#', &b[i..limit]) else {
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
        if h == 0
            || matches!(
                b[h - 1],
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b'[' | b']' | b'{' | b'}' | b'"' | b'\''
            )
            || after_block_header(b, h)
        {
            let e = memchr::memchr(b'\n', &b[h..]).map_or(b.len(), |k| h + k);
            let end = if e > h && b[e - 1] == b'\r' { e - 1 } else { e };
            let line_start = memchr::memrchr(b'\n', &b[..h]).map_or(0, |p| p + 1);
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

    /// The reader's check for characters YAML forbids starts at the first block that is not
    /// plain ASCII: a control character past a long ASCII prefix, or after a multi-byte
    /// character in an earlier block, is found at its exact byte; DEL (0x7F) is one too.
    #[test]
    fn control_characters_are_found_past_the_ascii_blocks() {
        let at = |text: &str| -> Vec<(u32, u32)> {
            doc(text)
                .issues
                .iter()
                .filter(|i| i.message.starts_with("control characters are not allowed"))
                .map(|i| (i.span.start, i.span.end))
                .collect()
        };
        let ascii = "key: value\n".repeat(7); // 77 bytes, over two blocks
        assert_eq!(at(&format!("{ascii}k: \u{7}\n")), [(80, 81)]);
        assert_eq!(at(&format!("{ascii}k: \u{7f}\n")), [(80, 81)]);
        let wide = format!("é: x\n{ascii}k: \u{1}\n"); // `é` is two bytes
        assert_eq!(at(&wide), [(86, 87)]);
        assert_eq!(
            at(&format!("{ascii}é: \u{A0}ok\n")),
            Vec::<(u32, u32)>::new()
        );
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
    fn files_saphyr_reads_take_one_parse() {
        let (d, runs) = load_counted(
            &SourceFile::new("t.yaml", "a: [x, y]\nb: \"q\"\n"),
            &Limits::default(),
        );
        assert!(d.issues.is_empty());
        assert_eq!(runs.parses, 1);
    }

    #[test]
    fn one_failed_parse_proposes_every_later_repair() {
        // Four lists closed at the key's column, two tabs after `:`, two quoted scalars
        // continued at column 1: the first error proposes the rest, one more parse confirms.
        let text = "a: [\n]\nb:\tx\nc: \"p\nq\"\nd: {\n}\ne:\ty\nf: [1,\n2]\ng: 'r\ns'\nh: [\n]\n";
        let (d, runs) = load_counted(&SourceFile::new("t.yaml", text), &Limits::default());
        assert!(d.issues.is_empty(), "{:?}", d.issues);
        assert_eq!(
            runs,
            Runs {
                parses: 2,
                dropped_proposals: false
            }
        );
        assert_eq!(
            d.root.unwrap().to_value().ruby_inspect(),
            r#"{"a"=>[], "b"=>"x", "c"=>"p q", "d"=>{}, "e"=>"y", "f"=>[1, 2], "g"=>"r s", "h"=>[]}"#
        );
    }

    #[test]
    fn wrong_proposals_are_dropped() {
        // After the first repair, the sketch reads `[y` (inside a multi-line plain scalar) as
        // a flow collection and proposes to pad `b: 1`, which is block context: the parse
        // shows the pad outside any flow collection, the proposals go, and each later error is
        // repaired on its own. The result is Psych's (`{"k"=>[], "a"=>"x [y", "b"=>1, "c"=>[]}`).
        let text = "k: [\n]\na: x\n  [y\nb: 1\nc: [\n]\n";
        let (d, runs) = load_counted(&SourceFile::new("t.yaml", text), &Limits::default());
        assert!(d.issues.is_empty(), "{:?}", d.issues);
        assert!(runs.dropped_proposals);
        assert_eq!(
            d.root.unwrap().to_value().ruby_inspect(),
            r#"{"k"=>[], "a"=>"x [y", "b"=>1, "c"=>[]}"#
        );
    }

    #[test]
    fn a_tab_indented_line_in_block_context_is_not_padded() {
        // saphyr's "tabs disallowed" error: padding would be right in a flow collection, so it
        // is tried and the parse shows block context: libyaml's error is reported.
        let (d, runs) = load_counted(
            &SourceFile::new("t.yaml", "a:\n\tb: 1\n"),
            &Limits::default(),
        );
        // saphyr's error, then the padded parse, where the loader's own tab check (on the text
        // as written) stops at the tab before the pad needs judging.
        assert_eq!(runs.parses, 2);
        let issue = d.fatal_issue().unwrap();
        assert_eq!(
            issue.message,
            "found character that cannot start any token while scanning for the next token at \
             line 2 column 1"
        );
        assert_eq!(issue.span.start, 3);
        // In a flow collection the pad stays: Psych loads {"x"=>{"a"=>[1, 2]}}.
        let (d, runs) = load_counted(
            &SourceFile::new("t.yaml", "x:\n  a: [1,\n\t2]\n"),
            &Limits::default(),
        );
        assert!(d.issues.is_empty(), "{:?}", d.issues);
        assert_eq!(runs.parses, 2);
        assert_eq!(
            d.root.unwrap().to_value().ruby_inspect(),
            r#"{"x"=>{"a"=>[1, 2]}}"#
        );
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

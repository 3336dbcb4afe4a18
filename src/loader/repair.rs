//! Edits of the text that let stock saphyr-parser read YAML the way libyaml (Psych) reads it.
//!
//! saphyr-parser 0.3.3 follows YAML 1.2 more strictly than libyaml 0.2.5 and refuses some files
//! Psych loads (docs/loader.md, "What saphyr refuses"). When saphyr stops with one of those
//! errors, the loader ([`super::yaml`]) asks for an [`Edit`] of the construct at the error and
//! parses again. Every edit is neutral to libyaml: it adds or changes only whitespace where
//! libyaml ignores whitespace (spaces at the start of a line inside a flow collection or a quoted
//! scalar, a space between two tokens, a blank line between two tokens), or swaps a character
//! for a stand-in that the loader puts back into the value. The loader's own libyaml checks
//! (tabs, anchors, flow indicators) always read the original text, never the edited one.
//!
//! Edits are positioned in the original text; [`ParseInput`] builds the text saphyr reads and
//! the map from its character indices back to the original ones.
//!
//! A file often repeats a construct (a closing bracket at the key's column after every list, a
//! tab after every `:`), so the first repair also proposes the same edit for every later
//! occurrence the [`speculate`] sketch finds. Those speculative edits are checked against the
//! parse they produce (a padded line must lie inside a flow collection or a quoted scalar, a
//! replaced tab outside quoted and block scalars); if one fails, all are dropped and the file is
//! repaired one error at a time.

use std::borrow::Cow;

/// Stands in for U+FEFF inside the text: saphyr treats a byte order mark as a document
/// boundary, libyaml as an ordinary character (except at a line start, where it skips it).
/// A noncharacter, so it cannot be confused with content.
pub(super) const BOM_STAND_IN: char = '\u{FDD0}';

/// Most columns a repair pads a line by: saphyr's indentation inside a flow collection or a
/// quoted scalar is that of the enclosing block collection, never this deep in real data (and
/// a pad this size on every line of a big file would multiply its size).
pub(super) const MAX_PAD: usize = 1_024;

/// Stands in for a `-` that saphyr refuses to start a flow plain scalar with (`[-]`, `[a -]`):
/// libyaml reads it as the scalar `-`. Put back into the value by the loader.
pub(super) const DASH_STAND_IN: char = '\u{FDD1}';

/// How sure an edit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// Made for the construct saphyr's error names, at its position.
    Exact,
    /// Made at an error whose context is not certain (a tab in a line's indentation: libyaml
    /// allows it in flow context only); kept only if the parse shows the context was right.
    Tentative,
    /// Proposed for a later construct of the same kind before saphyr reached it.
    Speculative,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum EditKind {
    /// Spaces inserted at a line start, inside a flow collection or a quoted scalar (libyaml
    /// does not check indentation there; leading blanks of a continuation line are not content).
    Pad(usize),
    /// Text inserted before the character at `at`, between two tokens.
    Insert(&'static str),
    /// A line break and this many spaces inserted before the character at `at`: the token there
    /// moves to the next line at the same column.
    Break(usize),
    /// The character at `at` (one byte in the original) read as this one instead.
    Replace(char),
}

#[derive(Clone, Debug)]
pub(super) struct Edit {
    /// Byte offset in the original text.
    pub at: usize,
    pub kind: EditKind,
    pub origin: Origin,
    /// The round of repairs that added it ([`Repairs::round`]).
    round: usize,
}

impl Edit {
    pub fn new(at: usize, kind: EditKind, origin: Origin) -> Edit {
        Edit {
            at,
            kind,
            origin,
            round: 0,
        }
    }

    pub fn exact(at: usize, kind: EditKind) -> Edit {
        Edit::new(at, kind, Origin::Exact)
    }
}

/// The edits made so far for one file.
#[derive(Default)]
pub(super) struct Repairs {
    /// Sorted by position; at one position a `Pad`/`Insert` comes before a `Replace`.
    edits: Vec<Edit>,
    /// Positions where a tentative edit proved wrong: the error there is libyaml's too.
    refused: Vec<usize>,
    /// Whether [`speculate`] has run (it runs once per file).
    pub speculated: bool,
    /// Speculation failed once: repair one error at a time.
    pub no_speculation: bool,
    /// No more repairs: the loader reports what saphyr refuses as a `Limit` issue.
    pub exhausted: bool,
    /// Counts the rounds of edits (one per parse that asked for a repair).
    round: usize,
}

fn order(kind: &EditKind) -> u8 {
    match kind {
        EditKind::Pad(_) => 0,
        EditKind::Insert(_) | EditKind::Break(_) => 1,
        EditKind::Replace(_) => 2,
    }
}

impl Repairs {
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    /// Starts a new round of edits (made after one more parse).
    pub fn next_round(&mut self) {
        self.round += 1;
    }

    /// Adds an edit; a pad at a line already padded keeps the larger one (and the surer
    /// origin). Returns false when the edit was already there (nothing would change).
    pub fn add(&mut self, mut edit: Edit) -> bool {
        edit.round = self.round;
        let key = (edit.at, order(&edit.kind));
        let i = self.edits.partition_point(|e| (e.at, order(&e.kind)) < key);
        if let Some(old) = self.edits.get_mut(i) {
            if (old.at, order(&old.kind)) == key {
                let sure = edit.origin == Origin::Exact;
                let changed = match (&old.kind, &edit.kind) {
                    (EditKind::Pad(a), EditKind::Pad(b)) if b <= a => false,
                    (a, b) if a == b => false,
                    _ => {
                        old.kind = edit.kind;
                        old.round = edit.round;
                        true
                    }
                };
                if sure {
                    old.origin = Origin::Exact;
                } else if changed && old.origin == Origin::Exact {
                    old.origin = edit.origin;
                }
                return changed;
            }
        }
        self.edits.insert(i, edit);
        true
    }

    /// The pad already made at the line starting at `line_start`.
    pub fn pad_at(&self, line_start: usize) -> Option<usize> {
        let i = self.edits.partition_point(|e| e.at < line_start);
        self.edits[i..]
            .iter()
            .take_while(|e| e.at == line_start)
            .find_map(|e| match e.kind {
                EditKind::Pad(n) => Some(n),
                _ => None,
            })
    }

    /// The column of the line break inserted before the character at `at`.
    pub fn break_at(&self, at: usize) -> Option<usize> {
        let i = self.edits.partition_point(|e| e.at < at);
        self.edits[i..]
            .iter()
            .take_while(|e| e.at == at)
            .find_map(|e| match e.kind {
                EditKind::Break(n) => Some(n),
                _ => None,
            })
    }

    /// Whether text is inserted before the character at `at`.
    pub fn has_insert(&self, at: usize) -> bool {
        let i = self.edits.partition_point(|e| e.at < at);
        self.edits[i..]
            .iter()
            .take_while(|e| e.at == at)
            .any(|e| matches!(e.kind, EditKind::Insert(_) | EditKind::Break(_)))
    }

    pub fn is_refused(&self, at: usize) -> bool {
        self.refused.contains(&at)
    }

    /// Drops every speculative edit (one of them proved wrong) and every edit made after them
    /// (saphyr read a wrong text then); from now on errors are repaired one at a time.
    pub fn drop_speculative(&mut self) {
        let first = self
            .edits
            .iter()
            .filter(|e| e.origin == Origin::Speculative)
            .map(|e| e.round)
            .min();
        if let Some(first) = first {
            self.edits
                .retain(|e| e.origin != Origin::Speculative && e.round <= first);
        }
        self.no_speculation = true;
    }

    /// Drops the tentative edits at `positions` (and every edit made after them) and refuses
    /// those positions: the errors there are libyaml's too.
    pub fn drop_tentative(&mut self, positions: &[usize]) {
        let wrong = |e: &Edit| e.origin == Origin::Tentative && positions.contains(&e.at);
        if let Some(first) = self
            .edits
            .iter()
            .filter(|e| wrong(e))
            .map(|e| e.round)
            .min()
        {
            self.edits.retain(|e| !wrong(e) && e.round < first);
        }
        self.refused.extend_from_slice(positions);
    }

    /// The edits a parse must confirm: the speculative and tentative ones.
    pub fn unconfirmed(&self) -> impl Iterator<Item = &Edit> {
        self.edits.iter().filter(|e| e.origin != Origin::Exact)
    }

    /// Whether a `Replace` by a stand-in character was made (values must be restored).
    pub fn has_stand_in(&self, c: char) -> bool {
        self.edits
            .iter()
            .any(|e| matches!(e.kind, EditKind::Replace(r) if r == c))
    }
}

/// Maps character indices in the text saphyr reads back to character indices in the original:
/// only inserted runs shift them (replacements keep one character for one).
#[derive(Default)]
pub(super) struct CharMap {
    /// (start of the inserted run in parse indices, original index it stands before, total
    /// characters inserted up to and including this run).
    runs: Vec<(usize, usize, usize)>,
}

impl CharMap {
    pub fn orig(&self, parse_index: usize) -> usize {
        if self.runs.is_empty() {
            return parse_index;
        }
        let k = self.runs.partition_point(|r| r.0 <= parse_index);
        if k == 0 {
            return parse_index;
        }
        let (start, orig, shift_after) = self.runs[k - 1];
        let len = shift_after - if k >= 2 { self.runs[k - 2].2 } else { 0 };
        if parse_index < start + len {
            orig
        } else {
            parse_index - shift_after
        }
    }
}

/// What saphyr reads, and how its positions map back.
pub(super) struct ParseInput<'a> {
    pub text: Cow<'a, str>,
    pub map: CharMap,
}

impl<'a> ParseInput<'a> {
    /// The text saphyr must read to tokenize `text[..limit]` like libyaml: NEL, LS and PS are
    /// line breaks (`\n`); a byte order mark starting a line is skipped (a space), elsewhere it
    /// is content ([`BOM_STAND_IN`]); then the `repairs`.
    pub fn build(text: &'a str, limit: usize, repairs: &Repairs) -> ParseInput<'a> {
        let text = &text[..limit];
        // All four are outside ASCII: most files are ASCII, which a SIMD pass tells.
        let view =
            !text.is_ascii() && text.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{FEFF}']);
        if !view && repairs.is_empty() {
            return ParseInput {
                text: Cow::Borrowed(text),
                map: CharMap::default(),
            };
        }
        let edits = repairs.edits();
        let mut out = String::with_capacity(text.len() + 64);
        let mut map = CharMap::default();
        let mut shift = 0;
        let mut k = 0;
        let mut line_start = true;
        let mut insert = |out: &mut String, map: &mut CharMap, s: &str, oc: usize| {
            let n = s.chars().count();
            if n > 0 {
                map.runs.push((oc + shift, oc, shift + n));
                shift += n;
                out.push_str(s);
            }
        };
        for (oc, (b, c)) in text.char_indices().enumerate() {
            let mut replace = None;
            while k < edits.len() && edits[k].at <= b {
                let e = &edits[k];
                k += 1;
                if e.at < b {
                    continue; // not on a character boundary: never made, ignored
                }
                match &e.kind {
                    EditKind::Pad(n) => insert(&mut out, &mut map, &" ".repeat(*n), oc),
                    EditKind::Insert(s) => insert(&mut out, &mut map, s, oc),
                    EditKind::Break(n) => {
                        insert(&mut out, &mut map, &format!("\n{}", " ".repeat(*n)), oc)
                    }
                    EditKind::Replace(r) => replace = Some(*r),
                }
            }
            let mapped = match (replace, c) {
                (Some(r), _) => r,
                (None, '\u{85}' | '\u{2028}' | '\u{2029}') => '\n',
                (None, '\u{FEFF}') if line_start => ' ',
                (None, '\u{FEFF}') => BOM_STAND_IN,
                (None, c) => c,
            };
            line_start = matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
            out.push(mapped);
        }
        let oc = text.chars().count();
        for e in &edits[k..] {
            if e.at == text.len() {
                match &e.kind {
                    EditKind::Pad(n) => insert(&mut out, &mut map, &" ".repeat(*n), oc),
                    EditKind::Insert(s) => insert(&mut out, &mut map, s, oc),
                    EditKind::Break(_) | EditKind::Replace(_) => {}
                }
            }
        }
        ParseInput {
            text: Cow::Owned(out),
            map,
        }
    }
}

// ----- the sketch ---------------------------------------------------------------------------

fn is_break(c: u8) -> bool {
    matches!(c, b'\n' | b'\r')
}

/// Length of the line break at `i` as libyaml reads it (CR LF, LF, CR, NEL, LS, PS), or 0.
pub(super) fn break_len(b: &[u8], i: usize) -> usize {
    match b.get(i..).unwrap_or_default() {
        [b'\r', b'\n', ..] => 2,
        [b'\n' | b'\r', ..] => 1,
        [0xC2, 0x85, ..] => 2,
        [0xE2, 0x80, 0xA8 | 0xA9, ..] => 3,
        _ => 0,
    }
}

/// Start of the line holding byte `at`, with libyaml's line breaks.
pub(super) fn line_start(b: &[u8], at: usize) -> usize {
    let mut i = at.min(b.len());
    while i > 0 {
        match b[i - 1] {
            b'\n' | b'\r' => return i,
            0x85 if i >= 2 && b[i - 2] == 0xC2 => return i,
            0xA8 | 0xA9 if i >= 3 && b[i - 3] == 0xE2 && b[i - 2] == 0x80 => return i,
            _ => i -= 1,
        }
    }
    0
}

fn blankz(b: &[u8], i: usize) -> bool {
    matches!(b.get(i), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
}

/// Start of the line after the one holding `i` (or the end), with libyaml's line breaks.
pub(super) fn next_line(b: &[u8], i: usize) -> usize {
    let mut j = i.min(b.len());
    while j < b.len() {
        let n = break_len(b, j);
        if n > 0 {
            return j + n;
        }
        j += 1;
    }
    b.len()
}

/// Leading blanks of the line at `ls`: (count, whether a tab is among them).
fn lead(b: &[u8], ls: usize) -> (usize, bool) {
    let n = b[ls..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    (n, b[ls..ls + n].contains(&b'\t'))
}

/// Spaces to put before a line's indentation so that its first non-blank character (and any
/// tab in its indentation) is at column `to` or right of it.
pub(super) fn pad_amount(lead: usize, has_tab: bool, to: usize) -> usize {
    if has_tab {
        to
    } else {
        to.saturating_sub(lead)
    }
}

/// Whether the line at `ls` starts with a document marker (`---`/`...` and a blank), which
/// libyaml and saphyr both read at column 0 even inside a flow collection or a quoted scalar:
/// such a line is never padded.
fn doc_marker_line(b: &[u8], ls: usize) -> bool {
    let rest = &b[ls..];
    (rest.starts_with(b"---") || rest.starts_with(b"...")) && blankz(b, ls + 3)
}

/// A document marker or a `%` directive: both are read at column 0 inside a flow collection.
fn marker_line(b: &[u8], ls: usize) -> bool {
    b.get(ls) == Some(&b'%') || doc_marker_line(b, ls)
}

/// Column (characters) of byte `i`, whose line starts at `ls`.
fn col_of(text: &str, ls: usize, i: usize) -> usize {
    let s = &text.as_bytes()[ls..i];
    if s.is_ascii() {
        s.len()
    } else {
        text.get(ls..i).map_or(s.len(), |t| t.chars().count())
    }
}

/// The end (after the closing quote) of the quoted scalar opening at `start`; `''` escapes a
/// single quote, a backslash escapes in double quotes. The text's end when it is not closed.
pub(super) fn quoted_end(b: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
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
    b.len()
}

/// Pads for the continuation lines of the quoted scalar opening at `q`, so that each starts at
/// column `to` or right of it (blank lines and document markers excepted). Returns the pads and
/// the scalar's end.
pub(super) fn quoted_pads(
    b: &[u8],
    q: usize,
    to: usize,
    from: usize,
) -> (Vec<(usize, usize)>, usize) {
    let end = quoted_end(b, q, b[q]);
    let mut pads = Vec::new();
    let mut ls = next_line(b, q);
    while ls < end {
        let (n, tab) = lead(b, ls);
        let first = ls + n;
        let blank = first >= b.len() || break_len(b, first) > 0;
        if ls >= from && !blank && !doc_marker_line(b, ls) {
            let amount = pad_amount(n, tab, to);
            if amount > 0 && amount <= MAX_PAD {
                pads.push((ls, amount));
            }
        }
        ls = next_line(b, ls);
    }
    (pads, end)
}

/// Whether `:` at `i` followed by blanks is one saphyr refuses ("':' must be followed by a
/// valid YAML whitespace": only tabs, then `-` or a letter, digit or `_`): the position of the
/// first tab.
pub(super) fn colon_tab(b: &[u8], i: usize) -> Option<usize> {
    let ws = b[i + 1..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    let run = &b[i + 1..i + 1 + ws];
    let next = b.get(i + 1 + ws).copied();
    (run.first() == Some(&b'\t')
        && !run.contains(&b' ')
        && next.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')))
    .then_some(i + 1)
}

/// A rough libyaml tokenizer over the whole text that proposes, for every line at or after
/// `from`, the edits the same saphyr errors would ask for: pads for lines inside flow
/// collections (to two columns right of the key owning the collection, enough for saphyr's
/// `indent + 1`) and for continuation lines of quoted scalars (to the opening quote's column),
/// and a space for the first tab after a `:` that saphyr refuses. It can be wrong (a multi-line
/// plain scalar containing `[` or a quote); the loader checks every proposal against the parse.
pub(super) fn speculate(text: &str, from: usize) -> Vec<Edit> {
    let b = text.as_bytes();
    let mut out: Vec<Edit> = Vec::new();
    let push = |out: &mut Vec<Edit>, at: usize, kind: EditKind| {
        if at >= from {
            out.push(Edit::new(at, kind, Origin::Speculative));
        }
    };
    let mut depth = 0usize;
    let mut flow_to = 0usize;
    // Parent indentation of the block scalar being skipped.
    let mut block_scalar: Option<isize> = None;
    let mut ls = 0;
    while ls < b.len() {
        let (n, tab) = lead(b, ls);
        let first = ls + n;
        let blank = first >= b.len() || is_break(b[first]);
        if let Some(parent) = block_scalar {
            let indent = b[ls..first].iter().take_while(|&&c| c == b' ').count();
            if blank || indent as isize > parent {
                ls = next_line(b, ls);
                continue;
            }
            block_scalar = None;
        }
        if blank {
            ls = next_line(b, ls);
            continue;
        }
        let mut i = first;
        if n == 0 && marker_line(b, ls) {
            depth = 0;
            if b[ls] == b'%' {
                ls = next_line(b, ls);
                continue;
            }
            i = ls + 3;
        } else if depth > 0 && b[first] != b'#' {
            // saphyr skips a comment line without checking its indentation.
            let amount = pad_amount(n, tab, flow_to);
            if amount > 0 && amount <= MAX_PAD {
                push(&mut out, ls, EditKind::Pad(amount));
            }
        }
        // Column of the first token after the block indicators (`- `, `? `, `: `) on this line.
        let mut owner: Option<usize> = None;
        let mut last_indicator: Option<usize> = None;
        let mut line_start = ls;
        'tokens: loop {
            while i < b.len() && matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
            if i >= b.len() || is_break(b[i]) {
                break;
            }
            let c = b[i];
            let at_blank = i == line_start || matches!(b[i - 1], b' ' | b'\t');
            if depth == 0 {
                match c {
                    b'#' if at_blank => break,
                    b'-' | b'?' | b':' if blankz(b, i + 1) => {
                        if c == b':' {
                            if let Some(t) = colon_tab(b, i) {
                                push(&mut out, t, EditKind::Replace(' '));
                            }
                        }
                        last_indicator = Some(col_of(text, line_start, i));
                        i += 1;
                    }
                    b'[' | b'{' => {
                        let col = col_of(text, line_start, i);
                        depth = 1;
                        flow_to = owner.or(last_indicator).unwrap_or(col) + 2;
                        i += 1;
                    }
                    b'"' | b'\'' => {
                        let col = col_of(text, line_start, i);
                        // saphyr's indentation is the key's (plus one), left of the quote.
                        let to = owner.or(last_indicator).map_or(col, |o| col.min(o + 2));
                        owner.get_or_insert(col);
                        let (pads, end) = quoted_pads(b, i, to, from);
                        for (at, amount) in pads {
                            push(&mut out, at, EditKind::Pad(amount));
                        }
                        if end >= b.len() {
                            return out;
                        }
                        line_start = b[..end]
                            .iter()
                            .rposition(|&c| c == b'\n')
                            .map_or(0, |p| p + 1);
                        i = end;
                    }
                    b'|' | b'>' => {
                        let col = col_of(text, line_start, i);
                        let parent = owner.or(last_indicator).unwrap_or(col);
                        block_scalar = Some(parent as isize);
                        break;
                    }
                    b'&' | b'*' | b'!' => {
                        owner.get_or_insert(col_of(text, line_start, i));
                        while !blankz(b, i) {
                            i += 1;
                        }
                    }
                    _ => {
                        // A plain scalar: up to `: `, ` #` or the line's end.
                        owner.get_or_insert(col_of(text, line_start, i));
                        i += 1;
                        while i < b.len() && !is_break(b[i]) {
                            if b[i] == b':' && blankz(b, i + 1) {
                                break;
                            }
                            if b[i] == b'#' && matches!(b[i - 1], b' ' | b'\t') {
                                break 'tokens;
                            }
                            i += 1;
                        }
                    }
                }
            } else {
                match c {
                    b'[' | b'{' => {
                        depth += 1;
                        i += 1;
                    }
                    b']' | b'}' => {
                        depth -= 1;
                        i += 1;
                    }
                    b',' | b'?' => i += 1,
                    b':' => {
                        if let Some(t) = colon_tab(b, i) {
                            push(&mut out, t, EditKind::Replace(' '));
                        }
                        i += 1;
                    }
                    b'#' if at_blank || matches!(b[i - 1], b',' | b'[' | b'{') => break,
                    b'"' | b'\'' => {
                        let (pads, end) = quoted_pads(b, i, flow_to, from);
                        for (at, amount) in pads {
                            push(&mut out, at, EditKind::Pad(amount));
                        }
                        if end >= b.len() {
                            return out;
                        }
                        line_start = b[..end]
                            .iter()
                            .rposition(|&c| c == b'\n')
                            .map_or(0, |p| p + 1);
                        i = end;
                    }
                    b'&' | b'*' | b'!' => {
                        while !blankz(b, i) && !matches!(b[i], b',' | b'[' | b']' | b'{' | b'}') {
                            i += 1;
                        }
                    }
                    _ => {
                        i += 1;
                        while i < b.len() && !is_break(b[i]) {
                            match b[i] {
                                b',' | b'[' | b']' | b'{' | b'}' => break,
                                b':' if blankz(b, i + 1)
                                    || matches!(
                                        b.get(i + 1),
                                        Some(b',' | b'[' | b']' | b'{' | b'}')
                                    ) =>
                                {
                                    break
                                }
                                b'#' if matches!(b[i - 1], b' ' | b'\t') => break 'tokens,
                                _ => i += 1,
                            }
                        }
                    }
                }
            }
        }
        ls = next_line(b, i.max(ls));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(text: &str, edits: Vec<Edit>) -> (String, CharMap) {
        let mut r = Repairs::default();
        for e in edits {
            r.add(e);
        }
        let p = ParseInput::build(text, text.len(), &r);
        (p.text.into_owned(), p.map)
    }

    #[test]
    fn inserted_runs_map_back_to_their_position() {
        let text = "a: [\n]\nb: [\n]\n";
        let (parsed, map) = built(
            text,
            vec![
                Edit::exact(5, EditKind::Pad(2)),
                Edit::exact(12, EditKind::Pad(3)),
            ],
        );
        assert_eq!(parsed, "a: [\n  ]\nb: [\n   ]\n");
        // Before the first run, inside it, after it.
        assert_eq!(map.orig(4), 4);
        assert_eq!(map.orig(5), 5);
        assert_eq!(map.orig(6), 5);
        assert_eq!(map.orig(7), 5);
        assert_eq!(map.orig(8), 6);
        // `]` of the second list: parse index 12 + 2 + 3.
        assert_eq!(parsed.as_bytes()[17], b']');
        assert_eq!(map.orig(17), 12);
        assert_eq!(map.orig(parsed.len()), text.len());
    }

    #[test]
    fn replacements_keep_indices_and_the_view_maps_line_breaks() {
        let text = "a: [-]\u{85}b:\tc";
        let (parsed, map) = built(
            text,
            vec![
                Edit::exact(4, EditKind::Replace(DASH_STAND_IN)),
                Edit::exact(text.find('\t').unwrap(), EditKind::Replace(' ')),
            ],
        );
        assert_eq!(parsed, "a: [\u{FDD1}]\nb: c");
        assert_eq!(map.orig(8), 8);
    }

    #[test]
    fn pads_merge_to_the_larger() {
        let mut r = Repairs::default();
        assert!(r.add(Edit::exact(3, EditKind::Pad(2))));
        assert!(!r.add(Edit::exact(3, EditKind::Pad(1))));
        assert!(r.add(Edit::exact(3, EditKind::Pad(4))));
        assert_eq!(r.pad_at(3), Some(4));
        assert_eq!(r.edits().len(), 1);
    }

    #[test]
    fn the_sketch_pads_flow_and_quoted_lines_and_tabs_after_colons() {
        let text = "a: [\n  x,\ny]\nb: \"one\ntwo\"\nc:\tdd\nd: |\n  [\n  \"\ne: 'q\n  r'\n";
        let edits = speculate(text, 0);
        let got: Vec<(usize, EditKind)> = edits.into_iter().map(|e| (e.at, e.kind)).collect();
        let line = |s: &str| text.find(s).unwrap();
        assert_eq!(
            got,
            vec![
                (line("y]"), EditKind::Pad(2)),
                (line("two"), EditKind::Pad(2)),
                (line("\tdd"), EditKind::Replace(' ')),
            ]
        );
    }
}

//! A fast reader for the plain block-structured YAML that Hiera data is mostly written in. It
//! gives **exactly** saphyr-parser's event stream (events, values and spans) or, the moment the
//! text leaves the subset it knows, nothing: the caller then parses with saphyr as before. It is
//! an accelerator, never a second opinion: whatever it accepts, saphyr reads the same way, which
//! `tests` checks on every YAML file in the repository, on generated texts and under fuzzing
//! (`fuzz/fuzz_targets/yaml_fast.rs`).
//!
//! saphyr scans character by character through a look-ahead queue and was 57% of the
//! instructions of loading a 1.5k-file control repo (docs/benchmarks.md, session 9). This reader
//! goes line by line over bytes.
//!
//! The subset: an optional `---` line, then one block mapping or block sequence of single-line
//! plain and quoted scalars (no escapes in double quotes), nested block collections, compact
//! mappings in sequence entries (`- k: v`), single-line flow sequences and mappings of such
//! scalars (`[a, "b"]`, `{k: v}`), comments and blank lines. Anything else (tabs, carriage
//! returns, control characters, anchors, aliases, tags, block scalars, multi-line scalars,
//! nested flow collections, explicit keys, directives, a second document, a root scalar, an
//! indentation saphyr would refuse) makes it give up.
//!
//! saphyr's spans have quirks this reader reproduces (each pinned by `fast/tests.rs`): a
//! quoted scalar in block context and a flow collection's closing bracket end after the blanks
//! and comment that follow on their line, a quoted scalar inside a flow collection after the
//! blanks that follow it, an opening bracket after the blanks that follow it, while a plain
//! scalar ends at its last character; a missing value is an empty plain scalar at the `:`, a
//! missing sequence entry one after the blanks that follow the `-`; a block sequence written at
//! its parent key's indentation starts at its first entry's content, an indented one at its
//! first `-`; a collection ends at the next token, or at the end of the text (those indented
//! deeper than the last line's length where the text stops, the others at the start of a
//! next line when the text does not end with a line break).

use saphyr_parser::{Event, Marker, ScalarStyle, Span};
use std::borrow::Cow;

/// One event with its span, as `saphyr_parser::Parser::next_event` returns them.
pub(super) type Spanned<'a> = (Event<'a>, Span);

/// Deepest block nesting read here (deeper texts go to saphyr, whose limits apply).
const MAX_DEPTH: usize = 64;

/// Calls `f` with saphyr's events for `text`, in order, until it returns false, when `text` is
/// in the subset this module reads; returns false without calling `f` otherwise (the caller
/// then parses with saphyr).
///
/// The events are first read whole (the text may leave the subset at its last line) into a
/// buffer of compact events kept per thread: a buffer of saphyr's events sized for each file
/// (112 bytes an event) was fresh memory for every large file, and zeroing its pages was 9% of
/// a 15k-file check (perf, session 9).
pub(super) fn read<'a>(text: &'a str, mut f: impl FnMut(Event<'a>, &Span) -> bool) -> bool {
    let (mut out, mut owned) = BUFFERS.with(|b| std::mem::take(&mut *b.borrow_mut()));
    out.clear();
    owned.clear();
    // The reader is not known to panic (fuzzed, differential); were it to, saphyr reads the
    // file as it did before this reader existed.
    let filled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        fill(text, &mut out, &mut owned)
    }))
    .unwrap_or(None);
    let taken = match filled {
        Some(()) => {
            for c in &out {
                let (ev, span) = c.expand(text, &mut owned);
                if !f(ev, &span) {
                    break;
                }
            }
            true
        }
        None => false,
    };
    // Kept for the next file, unless one huge file grew them.
    if out.capacity() <= KEEP_EVENTS {
        BUFFERS.with(|b| *b.borrow_mut() = (out, owned));
    }
    taken
}

/// saphyr's events for `text` (see [`read`]), collected.
pub(super) fn events(text: &str) -> Option<Vec<Spanned<'_>>> {
    let mut all = Vec::new();
    read(text, |ev, span| {
        all.push((ev, *span));
        true
    })
    .then_some(all)
}

/// Most events a thread keeps its buffer for (40 bytes each).
const KEEP_EVENTS: usize = 1 << 18;

thread_local! {
    static BUFFERS: std::cell::RefCell<(Vec<Compact>, Vec<String>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The reader's work: compact events into `out` (and the values that are not slices of the
/// text into `owned`), or `None` when the text leaves the subset.
fn fill(text: &str, out: &mut Vec<Compact>, owned: &mut Vec<String>) -> Option<()> {
    let b = text.as_bytes();
    // Positions are kept in 32 bits.
    if b.len() >= u32::MAX as usize {
        return None;
    }
    // Tabs and carriage returns have their own rules in saphyr and in the loader's libyaml
    // checks; control characters are refused by libyaml's reader; a byte order mark and NEL,
    // LS, PS are line breaks or markers to libyaml (the loader rewrites them before saphyr).
    if has_control(b) {
        return None;
    }
    let ascii = text.is_ascii();
    if !ascii
        && text.contains([
            '\u{85}', '\u{2028}', '\u{2029}', '\u{FEFF}', '\u{A0}', '\u{FFFE}', '\u{FFFF}',
        ])
    {
        return None;
    }
    let mut r = Reader {
        text,
        b,
        ascii,
        out,
        owned,
        stack: Vec::new(),
        pending: Pending::None,
        started: false,
        explicit: false,
        line_no: 1,
        line_start: 0,
        line_start_char: 0,
        eol: 0,
    };
    r.run()
}

/// A position as saphyr's `Marker` holds it (character index, line from 1, column).
#[derive(Clone, Copy)]
struct Mark {
    index: u32,
    line: u32,
    col: u32,
}

impl Mark {
    fn of(m: Marker) -> Mark {
        Mark {
            index: m.index() as u32,
            line: m.line() as u32,
            col: m.col() as u32,
        }
    }

    fn marker(self) -> Marker {
        Marker::new(self.index as usize, self.line as usize, self.col as usize)
    }
}

#[derive(Clone, Copy)]
enum Kind {
    StreamStart,
    StreamEnd,
    DocumentStart(bool),
    DocumentEnd,
    MappingStart,
    MappingEnd,
    SequenceStart,
    SequenceEnd,
    /// A scalar: its style and value (a slice of the text, or one of the owned values).
    Scalar(ScalarStyle, Value),
}

#[derive(Clone, Copy)]
enum Value {
    Slice(u32, u32),
    Owned(u32),
}

/// One of saphyr's events without its borrowed or owned parts.
#[derive(Clone, Copy)]
struct Compact {
    kind: Kind,
    start: Mark,
    end: Mark,
}

impl Compact {
    fn expand<'a>(&self, text: &'a str, owned: &mut [String]) -> (Event<'a>, Span) {
        let ev = match self.kind {
            Kind::StreamStart => Event::StreamStart,
            Kind::StreamEnd => Event::StreamEnd,
            Kind::DocumentStart(explicit) => Event::DocumentStart(explicit),
            Kind::DocumentEnd => Event::DocumentEnd,
            Kind::MappingStart => Event::MappingStart(0, None),
            Kind::MappingEnd => Event::MappingEnd,
            Kind::SequenceStart => Event::SequenceStart(0, None),
            Kind::SequenceEnd => Event::SequenceEnd,
            Kind::Scalar(style, value) => {
                let v = match value {
                    Value::Slice(a, b) => Cow::Borrowed(&text[a as usize..b as usize]),
                    Value::Owned(i) => Cow::Owned(std::mem::take(&mut owned[i as usize])),
                };
                Event::Scalar(v, style, 0, None)
            }
        };
        (ev, Span::new(self.start.marker(), self.end.marker()))
    }
}

/// The fast reader against saphyr on `text`: `Ok(true)` when it read the text into saphyr's
/// exact events, `Ok(false)` when it left it to saphyr, `Err` with the first difference. For the
/// tests and the differential fuzz target (`fuzz/fuzz_targets/yaml_fast.rs`).
#[doc(hidden)]
pub fn differential(text: &str) -> Result<bool, String> {
    let Some(fast) = events(text) else {
        return Ok(false);
    };
    let mut parser = saphyr_parser::Parser::new_from_str(text);
    let mut slow = Vec::new();
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok(ev)) => slow.push(ev),
            Some(Err(e)) => {
                return Err(format!(
                    "the fast reader accepted a text saphyr refuses ({e}): {text:?}"
                ))
            }
        }
    }
    if fast != slow {
        let at = fast
            .iter()
            .zip(&slow)
            .position(|(a, b)| a != b)
            .unwrap_or(fast.len().min(slow.len()));
        return Err(format!(
            "events differ for {text:?} at event {at}:\n  fast:   {:?}\n  saphyr: {:?}",
            fast.get(at),
            slow.get(at)
        ));
    }
    Ok(true)
}

#[derive(Clone, Copy)]
struct Open {
    seq: bool,
    /// Column of the collection's entries.
    indent: usize,
    /// A sequence at its parent key's column (`key:\n- a`).
    indentless: bool,
}

#[derive(Clone, Copy)]
enum Pending {
    None,
    /// `key:` with nothing after it yet: the value is a nested collection on the next lines,
    /// or empty (a plain scalar at the `:`).
    Value {
        colon: Marker,
        indent: usize,
    },
    /// `-` with nothing after it: an empty entry just after the `-`.
    Item {
        after_dash: Marker,
        indent: usize,
    },
}

struct Reader<'a, 'o> {
    text: &'a str,
    b: &'a [u8],
    ascii: bool,
    out: &'o mut Vec<Compact>,
    owned: &'o mut Vec<String>,
    stack: Vec<Open>,
    pending: Pending,
    started: bool,
    explicit: bool,
    /// The current line: number (from 1), byte offset and character index of its start, and
    /// the byte offset of its end (its `\n`, or the end of the text).
    line_no: usize,
    line_start: usize,
    line_start_char: usize,
    eol: usize,
}

fn is_blank_or_end(b: &[u8], i: usize, eol: usize) -> bool {
    i >= eol || b[i] == b' '
}

impl<'a> Reader<'a, '_> {
    fn mark(&self, byte: usize) -> Marker {
        let col = if self.ascii {
            byte - self.line_start
        } else {
            self.text[self.line_start..byte].chars().count()
        };
        Marker::new(self.line_start_char + col, self.line_no, col)
    }

    fn push(&mut self, ev: Event<'a>, start: Marker, end: Marker) {
        let kind = match ev {
            Event::StreamStart => Kind::StreamStart,
            Event::StreamEnd => Kind::StreamEnd,
            Event::DocumentStart(explicit) => Kind::DocumentStart(explicit),
            Event::DocumentEnd => Kind::DocumentEnd,
            Event::MappingStart(..) => Kind::MappingStart,
            Event::MappingEnd => Kind::MappingEnd,
            Event::SequenceStart(..) => Kind::SequenceStart,
            Event::SequenceEnd => Kind::SequenceEnd,
            Event::Scalar(v, style, ..) => {
                let value = match v {
                    Cow::Borrowed("") => Value::Slice(0, 0),
                    // A slice of the text: where it lies.
                    Cow::Borrowed(s) => {
                        let at = s.as_ptr() as usize - self.text.as_ptr() as usize;
                        Value::Slice(at as u32, (at + s.len()) as u32)
                    }
                    Cow::Owned(s) => {
                        self.owned.push(s);
                        Value::Owned((self.owned.len() - 1) as u32)
                    }
                };
                Kind::Scalar(style, value)
            }
            // Not made by this reader.
            Event::Nothing | Event::Alias(_) => return,
        };
        self.out.push(Compact {
            kind,
            start: Mark::of(start),
            end: Mark::of(end),
        });
    }

    fn push_at(&mut self, ev: Event<'a>, byte: usize) {
        let m = self.mark(byte);
        self.push(ev, m, m);
    }

    fn scalar(&mut self, value: Cow<'a, str>, style: ScalarStyle, start: usize, end: usize) {
        let (s, e) = (self.mark(start), self.mark(end));
        self.push(Event::Scalar(value, style, 0, None), s, e);
    }

    fn run(&mut self) -> Option<()> {
        self.push(
            Event::StreamStart,
            Marker::new(0, 1, 0),
            Marker::new(0, 1, 0),
        );
        let len = self.b.len();
        let mut pos = 0;
        loop {
            self.line_start = pos;
            self.eol = memchr::memchr(b'\n', &self.b[pos..]).map_or(len, |k| pos + k);
            let eol = self.eol;
            let mut p = pos;
            while p < eol && self.b[p] == b' ' {
                p += 1;
            }
            if p < eol && self.b[p] != b'#' {
                self.line(p - pos, p)?;
            }
            if eol >= len {
                break;
            }
            pos = eol + 1;
            self.line_start_char += if self.ascii {
                eol + 1 - self.line_start
            } else {
                self.text[self.line_start..=eol].chars().count()
            };
            self.line_no += 1;
        }
        self.finish()
    }

    /// The end of the text, where saphyr puts the closing events. Its scanner stands at the end
    /// of the last line: the collections indented deeper than that column end there; then, when
    /// the text does not end with a line break, it moves to the start of a next line, where the
    /// others, the document and the stream end.
    fn finish(&mut self) -> Option<()> {
        let len = self.b.len();
        let chars = if self.ascii {
            len
        } else {
            self.text.chars().count()
        };
        let newlines = memchr::memchr_iter(b'\n', self.b).count();
        let last_line = memchr::memrchr(b'\n', self.b).map_or(0, |k| k + 1);
        let col = if self.ascii {
            len - last_line
        } else {
            self.text[last_line..].chars().count()
        };
        let at_col = Marker::new(chars, newlines + 1, col);
        let end = if col == 0 {
            at_col
        } else {
            Marker::new(chars, newlines + 2, 0)
        };
        if !self.started {
            if self.explicit {
                // `---` alone: an empty document (a null root), not handled here.
                return None;
            }
            self.push(Event::StreamEnd, end, end);
            return Some(());
        }
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => {}
            Pending::Value { colon, .. } => self.push(
                Event::Scalar(Cow::Borrowed(""), ScalarStyle::Plain, 0, None),
                colon,
                colon,
            ),
            Pending::Item { after_dash, .. } => self.push(
                Event::Scalar(Cow::Borrowed(""), ScalarStyle::Plain, 0, None),
                after_dash,
                after_dash,
            ),
        }
        while let Some(open) = self.stack.pop() {
            let ev = if open.seq {
                Event::SequenceEnd
            } else {
                Event::MappingEnd
            };
            let at = if open.indent > col { at_col } else { end };
            self.push(ev, at, at);
        }
        self.push(Event::DocumentEnd, end, end);
        self.push(Event::StreamEnd, end, end);
        Some(())
    }

    /// A line whose first non-blank character, at column `col` (byte `p`), is not `#`.
    fn line(&mut self, col: usize, p: usize) -> Option<()> {
        let b = self.b;
        let eol = self.eol;
        if col == 0 && (b[p..eol].starts_with(b"---") || b[p..eol].starts_with(b"...")) {
            // A document marker: only a first `---` is read here (`---x` is left to saphyr).
            if self.started || self.explicit || b[p] == b'.' || !is_blank_or_end(b, p + 3, eol) {
                return None;
            }
            self.rest_is_comment(p + 3)?;
            self.explicit = true;
            let (s, e) = (self.mark(p), self.mark(p + 3));
            self.push(Event::DocumentStart(true), s, e);
            return Some(());
        }
        if col == 0 && b[p] == b'%' {
            return None;
        }
        let dash = b[p] == b'-' && is_blank_or_end(b, p + 1, eol);
        if !self.started {
            self.started = true;
            if !self.explicit {
                self.push_at(Event::DocumentStart(false), p);
            }
            self.open(dash, col, false, p)?;
            return if dash {
                self.entry(col, p)
            } else {
                self.map_entry(col, p)
            };
        }
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => {}
            Pending::Value { colon, indent } => {
                if dash && col >= indent {
                    let indentless = col == indent;
                    if !indentless {
                        self.push_at(Event::SequenceStart(0, None), p);
                    }
                    self.stack.push(Open {
                        seq: true,
                        indent: col,
                        indentless,
                    });
                    if self.stack.len() > MAX_DEPTH {
                        return None;
                    }
                    return self.entry_start(col, p, indentless);
                }
                if col > indent {
                    self.open(false, col, false, p)?;
                    return self.map_entry(col, p);
                }
                self.push(
                    Event::Scalar(Cow::Borrowed(""), ScalarStyle::Plain, 0, None),
                    colon,
                    colon,
                );
            }
            Pending::Item { after_dash, indent } => {
                if col > indent {
                    return None;
                }
                self.push(
                    Event::Scalar(Cow::Borrowed(""), ScalarStyle::Plain, 0, None),
                    after_dash,
                    after_dash,
                );
            }
        }
        // Close what this line is left of.
        loop {
            let top = *self.stack.last()?;
            let close =
                top.indent > col || (top.indent == col && top.seq && top.indentless && !dash);
            if !close {
                break;
            }
            self.stack.pop();
            let ev = if top.seq {
                Event::SequenceEnd
            } else {
                Event::MappingEnd
            };
            self.push_at(ev, p);
        }
        let top = *self.stack.last()?;
        if top.indent != col || top.seq != dash {
            return None;
        }
        if dash {
            self.entry(col, p)
        } else {
            self.map_entry(col, p)
        }
    }

    fn open(&mut self, seq: bool, col: usize, indentless: bool, p: usize) -> Option<()> {
        let ev = if seq {
            Event::SequenceStart(0, None)
        } else {
            Event::MappingStart(0, None)
        };
        self.push_at(ev, p);
        self.stack.push(Open {
            seq,
            indent: col,
            indentless,
        });
        (self.stack.len() <= MAX_DEPTH).then_some(())
    }

    /// A sequence entry: `-` at byte `p` (column `col`).
    fn entry(&mut self, col: usize, p: usize) -> Option<()> {
        self.entry_start(col, p, false)
    }

    /// A sequence entry; `starts_seq`: the first entry of an indentless sequence, whose start
    /// event saphyr puts at the entry's content.
    fn entry_start(&mut self, col: usize, p: usize, starts_seq: bool) -> Option<()> {
        let b = self.b;
        let eol = self.eol;
        let mut q = p + 1;
        while q < eol && b[q] == b' ' {
            q += 1;
        }
        if q >= eol {
            if starts_seq {
                return None;
            }
            // The empty entry sits after the blanks that follow the `-`.
            self.pending = Pending::Item {
                after_dash: self.mark(q),
                indent: col,
            };
            return Some(());
        }
        if b[q] == b'#' || (b[q] == b'-' && is_blank_or_end(b, q + 1, eol)) {
            // `- # comment` (saphyr's spans differ) or a nested sequence.
            return None;
        }
        if starts_seq {
            self.push_at(Event::SequenceStart(0, None), q);
        }
        let qcol = col + (q - p);
        if self.is_key_line(q) {
            self.open(false, qcol, false, q)?;
            return self.map_entry(qcol, q);
        }
        self.value(q)
    }

    /// Whether a simple key (plain or quoted) followed by `:` starts at `q`.
    fn is_key_line(&self, q: usize) -> bool {
        let b = self.b;
        let eol = self.eol;
        match b[q] {
            b'"' | b'\'' => {
                let quote = b[q];
                let mut i = q + 1;
                while i < eol {
                    if b[i] == quote {
                        if quote == b'\'' && i + 1 < eol && b[i + 1] == b'\'' {
                            i += 2;
                            continue;
                        }
                        return i + 1 < eol && b[i + 1] == b':';
                    }
                    if b[i] == b'\\' && quote == b'"' {
                        return false;
                    }
                    i += 1;
                }
                false
            }
            c => {
                if !plain_can_start(b, q, eol, c) {
                    return false;
                }
                let end = plain_end(b, q, eol);
                end < eol && b[end] == b':'
            }
        }
    }

    /// A mapping entry whose key starts at `p` (column `col`, the mapping's).
    fn map_entry(&mut self, col: usize, p: usize) -> Option<()> {
        let b = self.b;
        let eol = self.eol;
        let colon = match b[p] {
            b'"' | b'\'' => {
                let close = self.quoted(p)?;
                // A quoted key ends at its closing quote when the `:` follows at once.
                if close >= eol || b[close] != b':' {
                    return None;
                }
                close
            }
            c => {
                if !plain_can_start(b, p, eol, c) {
                    return None;
                }
                let end = plain_end(b, p, eol);
                if end >= eol || b[end] != b':' {
                    return None;
                }
                // A key with blanks before its `:` (`a : 1`) is left to saphyr.
                if b[end - 1] == b' ' {
                    return None;
                }
                self.scalar(
                    Cow::Borrowed(&self.text[p..end]),
                    ScalarStyle::Plain,
                    p,
                    end,
                );
                end
            }
        };
        // libyaml and saphyr limit a simple key to 1024 characters; long ones go to saphyr.
        if colon - p > 1000 {
            return None;
        }
        if !is_blank_or_end(b, colon + 1, eol) {
            return None;
        }
        let mut r = colon + 1;
        while r < eol && b[r] == b' ' {
            r += 1;
        }
        if r >= eol || (b[r] == b'#' && r > colon + 1) {
            self.pending = Pending::Value {
                colon: self.mark(colon),
                indent: col,
            };
            return Some(());
        }
        self.value(r)
    }

    /// A value starting at `r` that ends its line: a scalar or a flow collection.
    fn value(&mut self, r: usize) -> Option<()> {
        let b = self.b;
        let eol = self.eol;
        match b[r] {
            b'"' | b'\'' => {
                let close = self.quoted(r)?;
                // The scalar's end lies after the blanks and comment that follow it.
                let end = self.rest_is_comment(close)?;
                let last = self.out.len() - 1;
                self.out[last].end = Mark::of(self.mark(end));
                Some(())
            }
            b'[' | b'{' => self.flow(r),
            c => {
                if !plain_can_start(b, r, eol, c) {
                    return None;
                }
                let end = plain_end(b, r, eol);
                if end < eol && b[end] == b':' {
                    // `mapping values are not allowed in this context`
                    return None;
                }
                let mut e = end;
                while b[e - 1] == b' ' {
                    e -= 1;
                }
                self.scalar(Cow::Borrowed(&self.text[r..e]), ScalarStyle::Plain, r, e);
                Some(())
            }
        }
    }

    /// A single-line quoted scalar opening at `q`: pushes it (span up to the closing quote) and
    /// returns the byte after the closing quote.
    fn quoted(&mut self, q: usize) -> Option<usize> {
        let b = self.b;
        let eol = self.eol;
        let quote = b[q];
        let mut i = q + 1;
        let mut doubled = false;
        loop {
            if i >= eol {
                return None;
            }
            let c = b[i];
            if c == quote {
                if quote == b'\'' && i + 1 < eol && b[i + 1] == b'\'' {
                    doubled = true;
                    i += 2;
                    continue;
                }
                break;
            }
            if quote == b'"' && c == b'\\' {
                return None;
            }
            i += 1;
        }
        let content = &self.text[q + 1..i];
        let value = if doubled {
            Cow::Owned(content.replace("''", "'"))
        } else {
            Cow::Borrowed(content)
        };
        let style = if quote == b'"' {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::SingleQuoted
        };
        self.scalar(value, style, q, i + 1);
        Some(i + 1)
    }

    /// From `i` to the end of the line there are only blanks and a comment (a `#` after a
    /// blank): returns where they end (the line's end when a comment is there, else after the
    /// blanks).
    fn rest_is_comment(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let eol = self.eol;
        let mut j = i;
        while j < eol && b[j] == b' ' {
            j += 1;
        }
        if j >= eol {
            return Some(j);
        }
        (b[j] == b'#' && j > i).then_some(eol)
    }

    /// A single-line flow sequence or mapping of scalars opening at `r`, ending the line.
    fn flow(&mut self, r: usize) -> Option<()> {
        let b = self.b;
        let eol = self.eol;
        let map = b[r] == b'{';
        let close = if map { b'}' } else { b']' };
        // The opening bracket's span runs over the blanks after it.
        let mut i = skip_spaces(b, r + 1, eol);
        let (s, e) = (self.mark(r), self.mark(i));
        let start = if map {
            Event::MappingStart(0, None)
        } else {
            Event::SequenceStart(0, None)
        };
        self.push(start, s, e);
        if i < eol && b[i] == close {
            return self.flow_end(i, map);
        }
        loop {
            i = self.flow_scalar(i, map)?;
            if map {
                if i >= eol || b[i] != b':' || !is_blank_or_end(b, i + 1, eol) {
                    return None;
                }
                i = skip_spaces(b, i + 1, eol);
                i = self.flow_scalar(i, false)?;
            }
            if i >= eol {
                return None;
            }
            if b[i] == close {
                return self.flow_end(i, map);
            }
            if b[i] != b',' {
                return None;
            }
            i = skip_spaces(b, i + 1, eol);
            if i >= eol || b[i] == close {
                // A trailing `,`: saphyr spans the end from the comma.
                return None;
            }
        }
    }

    fn flow_end(&mut self, i: usize, map: bool) -> Option<()> {
        let end = self.rest_is_comment(i + 1)?;
        let (s, e) = (self.mark(i), self.mark(end));
        let ev = if map {
            Event::MappingEnd
        } else {
            Event::SequenceEnd
        };
        self.push(ev, s, e);
        Some(())
    }

    /// A scalar inside a flow collection at `i` (a flow mapping's key when `key`); returns the
    /// next non-blank byte after it. A quoted one's span runs over the blanks after its closing
    /// quote.
    fn flow_scalar(&mut self, i: usize, key: bool) -> Option<usize> {
        let b = self.b;
        let eol = self.eol;
        if i >= eol {
            return None;
        }
        match b[i] {
            b'"' | b'\'' => {
                let after = self.quoted(i)?;
                let next = skip_spaces(b, after, eol);
                let last = self.out.len() - 1;
                self.out[last].end = Mark::of(self.mark(next));
                Some(next)
            }
            c => {
                if matches!(
                    c,
                    b'-' | b'?'
                        | b':'
                        | b','
                        | b'['
                        | b']'
                        | b'{'
                        | b'}'
                        | b'#'
                        | b'&'
                        | b'*'
                        | b'!'
                        | b'|'
                        | b'>'
                        | b'%'
                        | b'@'
                        | b'`'
                ) {
                    return None;
                }
                let mut j = i;
                while j < eol && !matches!(b[j], b',' | b'[' | b']' | b'{' | b'}' | b':' | b'#') {
                    j += 1;
                }
                let key_end = key && b.get(j) == Some(&b':') && is_blank_or_end(b, j + 1, eol);
                if j >= eol || (matches!(b[j], b'[' | b'{' | b':' | b'#') && !key_end) {
                    return None;
                }
                // saphyr refuses a `-` right before a flow indicator inside a flow scalar
                // (`[n -]`: "plain scalar cannot start with '-' followed by ,[]{}"; found by
                // the fuzz target).
                if b[j - 1] == b'-' {
                    return None;
                }
                let mut e = j;
                while b[e - 1] == b' ' {
                    e -= 1;
                }
                self.scalar(Cow::Borrowed(&self.text[i..e]), ScalarStyle::Plain, i, e);
                Some(j)
            }
        }
    }
}

/// Whether `b` holds a control character other than `\n` (tab and carriage return included).
/// Checked 32 bytes at a time without an early exit, which the compiler vectorizes.
fn has_control(b: &[u8]) -> bool {
    let bad = |c: u8| (c < 0x20 && c != b'\n') || c == 0x7f;
    let mut chunks = b.chunks_exact(32);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |acc, &c| acc | bad(c)) {
            return true;
        }
    }
    chunks.remainder().iter().any(|&c| bad(c))
}

fn skip_spaces(b: &[u8], mut i: usize, eol: usize) -> usize {
    while i < eol && b[i] == b' ' {
        i += 1;
    }
    i
}

/// Whether a block plain scalar may start with `c` at `p`: not an indicator, except `-`
/// followed by a non-blank (`-1`).
fn plain_can_start(b: &[u8], p: usize, eol: usize, c: u8) -> bool {
    match c {
        b'-' => !is_blank_or_end(b, p + 1, eol),
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => false,
        _ => true,
    }
}

/// Where a block plain scalar starting at `p` stops on its line: at a `:` followed by a blank or
/// the line's end, at ` #`, or at the line's end (trailing blanks included).
fn plain_end(b: &[u8], p: usize, eol: usize) -> usize {
    let mut i = p;
    while i < eol {
        match b[i] {
            b':' if is_blank_or_end(b, i + 1, eol) => return i,
            b'#' if i > p && b[i - 1] == b' ' => {
                let mut e = i;
                while e > p && b[e - 1] == b' ' {
                    e -= 1;
                }
                return e;
            }
            _ => i += 1,
        }
    }
    eol
}

#[cfg(test)]
mod tests;

//! Byte spans into source files, and the source files themselves.
//!
//! Every diagnostic, key and value carries a [`Span`]: a half-open byte range into the text of one
//! [`SourceFile`]. Lines and columns are computed only when rendering; columns count characters
//! (Unicode scalar values), not bytes, as the JSON output contract requires.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A half-open byte range `[start, end)` into a file's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    pub const fn empty(at: usize) -> Span {
        Span::new(at, at)
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.end == self.start
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The sub-span `[start + from, start + to)`, for tokens inside a scalar whose source text is
    /// contiguous with its value (plain and single-line quoted scalars).
    pub fn sub(self, from: usize, to: usize) -> Span {
        Span::new(self.start as usize + from, self.start as usize + to)
    }

    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column; the column counts characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Identifies a file within one run (an index into the run's file table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FileId(pub u32);

/// One source file: its display path, its text and a line index.
///
/// The text is the file's bytes decoded as UTF-8. Invalid UTF-8 is replaced (U+FFFD) by
/// [`SourceFile::from_bytes`], which also records that it happened so a diagnostic can say so.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as it should be displayed: the path given on the command line joined with the
    /// path inside it.
    pub path: PathBuf,
    pub text: Arc<str>,
    line_starts: Vec<u32>,
    /// Byte offset of the first invalid UTF-8 sequence in the original bytes, if any.
    pub invalid_utf8_at: Option<usize>,
    /// What libyaml's reader (Psych) says about that sequence: `invalid leading UTF-8 octet`,
    /// `invalid trailing UTF-8 octet`, `incomplete UTF-8 octet sequence`, `invalid length of a
    /// UTF-8 sequence` or `invalid Unicode character`.
    pub invalid_utf8_problem: Option<&'static str>,
    /// The file started with a UTF-8 byte order mark, which was stripped from `text`.
    pub had_bom: bool,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> SourceFile {
        let text: Arc<str> = text.into();
        let line_starts = line_starts(&text);
        SourceFile {
            path: path.into(),
            text,
            line_starts,
            invalid_utf8_at: None,
            invalid_utf8_problem: None,
            had_bom: false,
        }
    }

    /// The same file shown under another spelling of its path (a file argument spelt
    /// `data/common.yaml` for a file the scan reached as `./data/common.yaml`).
    pub fn respelled(&self, path: impl Into<PathBuf>) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: self.text.clone(),
            line_starts: self.line_starts.clone(),
            invalid_utf8_at: self.invalid_utf8_at,
            invalid_utf8_problem: self.invalid_utf8_problem,
            had_bom: self.had_bom,
        }
    }

    /// Decodes raw bytes: strips a UTF-8 BOM, remembering it in `had_bom` (Ruby's JSON parser, as
    /// Puppet calls it, fails on a BOM: see `loader::json`), and replaces invalid UTF-8,
    /// remembering where the first invalid sequence was.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: &[u8]) -> SourceFile {
        let (bytes, had_bom) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => (rest, true),
            None => (bytes, false),
        };
        let (text, invalid_utf8_at) = match std::str::from_utf8(bytes) {
            Ok(s) => (Arc::<str>::from(s), None),
            Err(e) => (
                Arc::<str>::from(String::from_utf8_lossy(bytes).as_ref()),
                Some(e.valid_up_to()),
            ),
        };
        let mut file = SourceFile::new(path, text);
        file.invalid_utf8_problem = invalid_utf8_at.map(|at| libyaml_utf8_problem(&bytes[at..]));
        file.invalid_utf8_at = invalid_utf8_at;
        file.had_bom = had_bom;
        file
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn slice(&self, span: Span) -> &str {
        let r = span.range();
        self.text.get(r).unwrap_or("")
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, byte: usize) -> usize {
        match self.line_starts.binary_search(&(byte as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte offset where a 0-based line starts.
    pub fn line_start(&self, line_index: usize) -> usize {
        self.line_starts
            .get(line_index)
            .map(|&s| s as usize)
            .unwrap_or(self.text.len())
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// 1-based line and character column of a byte offset (clamped to the text).
    pub fn line_col(&self, byte: usize) -> LineCol {
        let byte = floor_char_boundary(&self.text, byte.min(self.text.len()));
        let li = self.line_index(byte);
        let start = self.line_start(li);
        let column = self.text[start..byte].chars().count() + 1;
        LineCol {
            line: li + 1,
            column,
        }
    }

    /// Byte offset of a 1-based line and a 0-based character column (as YAML parsers report).
    pub fn offset_of(&self, line: usize, char_col: usize) -> usize {
        let li = line
            .saturating_sub(1)
            .min(self.line_starts.len().saturating_sub(1));
        let start = self.line_start(li);
        let end = self.line_start(li + 1);
        let line_text = &self.text[start..end.max(start)];
        match line_text.char_indices().nth(char_col) {
            Some((b, _)) => start + b,
            None => start + line_text.len(),
        }
    }

    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }
}

/// libyaml's reader (`yaml_parser_update_buffer`) on the first invalid UTF-8 sequence.
fn libyaml_utf8_problem(b: &[u8]) -> &'static str {
    let Some(&lead) = b.first() else {
        return "incomplete UTF-8 octet sequence";
    };
    let width = match lead {
        l if l & 0x80 == 0 => 1,
        l if l & 0xE0 == 0xC0 => 2,
        l if l & 0xF0 == 0xE0 => 3,
        l if l & 0xF8 == 0xF0 => 4,
        _ => return "invalid leading UTF-8 octet",
    };
    if b.len() < width {
        return "incomplete UTF-8 octet sequence";
    }
    let mut value: u32 = match width {
        1 => lead as u32 & 0x7F,
        2 => lead as u32 & 0x1F,
        3 => lead as u32 & 0x0F,
        _ => lead as u32 & 0x07,
    };
    for &c in &b[1..width] {
        if c & 0xC0 != 0x80 {
            return "invalid trailing UTF-8 octet";
        }
        value = (value << 6) | (c as u32 & 0x3F);
    }
    let shortest = match width {
        1 => true,
        2 => value >= 0x80,
        3 => value >= 0x800,
        _ => value >= 0x10000,
    };
    if !shortest {
        return "invalid length of a UTF-8 sequence";
    }
    "invalid Unicode character"
}

/// Offsets of the starts of lines. A line ends at `\n`, at `\r\n` (one break: the `\r` stays
/// on its line) and at a lone `\r`, as libyaml counts lines (Psych reports `a: 1\rk: @x` at
/// line 2; the language server counts the same, as LSP says).
fn line_starts(text: &str) -> Vec<u32> {
    let b = text.as_bytes();
    let mut v = Vec::with_capacity(text.len() / 32 + 1);
    v.push(0);
    // memchr's search is vectorized: the byte loop was 2% of a check of wikimedia's hieradata.
    // Most files hold no `\r`: one search for it first keeps their pass a single-byte one.
    if memchr::memchr(b'\r', b).is_none() {
        v.extend(memchr::memchr_iter(b'\n', b).map(|i| (i + 1) as u32));
    } else {
        v.extend(
            memchr::memchr2_iter(b'\n', b'\r', b)
                .filter(|&i| b[i] == b'\n' || b.get(i + 1) != Some(&b'\n'))
                .map(|i| (i + 1) as u32),
        );
    }
    v
}

pub fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Maps character indices (as YAML scanners count) to byte offsets, for one text.
///
/// ASCII-only texts map the identity; otherwise a table of the byte offset of every 64th char is
/// kept and the rest is walked.
pub struct CharIndex<'a> {
    text: &'a str,
    ascii: bool,
    checkpoints: Vec<u32>,
}

const CHECKPOINT: usize = 64;

impl<'a> CharIndex<'a> {
    pub fn new(text: &'a str) -> CharIndex<'a> {
        let ascii = text.is_ascii();
        let mut checkpoints = Vec::new();
        if !ascii {
            for (n, (b, _)) in text.char_indices().enumerate() {
                if n % CHECKPOINT == 0 {
                    checkpoints.push(b as u32);
                }
            }
        }
        CharIndex {
            text,
            ascii,
            checkpoints,
        }
    }

    pub fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        let cp = char_index / CHECKPOINT;
        let Some(&start) = self.checkpoints.get(cp) else {
            return self.text.len();
        };
        let rest = char_index % CHECKPOINT;
        let tail = &self.text[start as usize..];
        match tail.char_indices().nth(rest) {
            Some((b, _)) => start as usize + b,
            None => self.text.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_carriage_return_breaks_the_line_as_libyaml_counts() {
        let f = SourceFile::new("x.yaml", "a: 1\rk: @x\r\nb: 2\nc: 3\r");
        assert_eq!(f.line_starts(), &[0, 5, 12, 17, 22]);
        let at = f.text().find('@').unwrap();
        assert_eq!(f.line_col(at), LineCol { line: 2, column: 4 });
        assert_eq!(f.line_col(f.text().find('b').unwrap()).line, 3);
        assert_eq!(f.line_col(f.text().find('c').unwrap()).line, 4);
    }

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new("x.yaml", "a: é\nbé: 1\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        // "bé: 1": the ':' is after 'b' and 'é' (2 bytes)
        let colon = f.text().find("é:").unwrap() + 'é'.len_utf8();
        assert_eq!(f.line_col(colon), LineCol { line: 2, column: 3 });
        assert_eq!(f.offset_of(2, 2), colon);
    }

    #[test]
    fn bom_is_stripped_and_invalid_utf8_located() {
        let f = SourceFile::from_bytes("x", b"\xEF\xBB\xBFa: 1\n\xFF");
        assert!(f.had_bom);
        assert_eq!(f.invalid_utf8_at, Some(5));
        assert!(f.text().starts_with("a: 1"));
    }

    #[test]
    fn char_index_maps_multibyte() {
        let text = "é".repeat(200) + "x";
        let ci = CharIndex::new(&text);
        assert_eq!(ci.byte(0), 0);
        assert_eq!(ci.byte(130), 260);
        assert_eq!(ci.byte(200), 400);
        assert_eq!(ci.byte(500), text.len());
    }
}

//! Positions and edits: byte offsets ↔ LSP positions (UTF-8 or UTF-16 columns), and the
//! incremental text changes a client sends.
//!
//! Spans are byte offsets into a [`SourceFile`]'s text. LSP positions are a line and a column
//! counted in the negotiated encoding: UTF-16 code units unless the client offers `utf-8`
//! (LSP 3.17 `general.positionEncodings`). LSP lines end at `\n`, `\r\n` or a lone `\r`, so
//! this module keeps its own line index rather than [`SourceFile`]'s (which breaks at `\n`
//! only, as Psych's marks count lines).

use lsp_types::{Position, Range};

use crate::span::{SourceFile, Span};

/// How LSP columns are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// The byte offsets where the lines of a text start, with LSP's line breaks.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let b = text.as_bytes();
        let mut starts = Vec::with_capacity(b.len() / 32 + 1);
        starts.push(0);
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\n' => starts.push(i + 1),
                b'\r' => {
                    if b.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    starts.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex {
            starts,
            len: b.len(),
        }
    }

    /// The position of a byte offset (clamped to the text, and down to a character boundary).
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let offset = crate::span::floor_char_boundary(text, offset.min(self.len));
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0).min(offset);
        let col: usize = match enc {
            Encoding::Utf8 => offset - start,
            Encoding::Utf16 => text
                .get(start..offset)
                .unwrap_or("")
                .chars()
                .map(char::len_utf16)
                .sum(),
        };
        Position::new(line as u32, col as u32)
    }

    /// The byte offset of a position. A column past the end of its line means the end of the
    /// line (LSP: "defaults back to the line length"); a line past the end means the end of the
    /// text; a column inside a character (a UTF-16 surrogate pair, a UTF-8 sequence) snaps to
    /// the start of that character.
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let line = pos.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return self.len;
        };
        let next = self.starts.get(line + 1).copied().unwrap_or(self.len);
        let mut end = next;
        let bytes = text.as_bytes();
        if end > start && bytes.get(end - 1) == Some(&b'\n') {
            end -= 1;
        }
        if end > start && bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        let want = pos.character as usize;
        let mut units = 0;
        for (i, c) in text.get(start..end).unwrap_or("").char_indices() {
            let w = enc.width(c);
            if units + w > want {
                return start + i;
            }
            units += w;
        }
        end
    }
}

/// Converts between a [`SourceFile`]'s byte spans and LSP ranges.
///
/// `bom` says that the client's text starts with a byte order mark that the source file does
/// not have ([`SourceFile::from_bytes`] strips it): then the columns of the first line are one
/// character further right for the client.
pub struct Coords<'a> {
    file: &'a SourceFile,
    index: LineIndex,
    enc: Encoding,
    bom: bool,
}

impl<'a> Coords<'a> {
    pub fn new(file: &'a SourceFile, enc: Encoding, bom: bool) -> Coords<'a> {
        Coords {
            file,
            index: LineIndex::new(file.text()),
            enc,
            bom,
        }
    }

    fn bom_width(&self) -> u32 {
        if self.bom {
            self.enc.width('\u{feff}') as u32
        } else {
            0
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let mut p = self.index.position(self.file.text(), offset, self.enc);
        if p.line == 0 {
            p.character += self.bom_width();
        }
        p
    }

    pub fn range(&self, span: Span) -> Range {
        Range::new(
            self.position(span.start as usize),
            self.position(span.end as usize),
        )
    }

    pub fn offset(&self, mut pos: Position) -> usize {
        if pos.line == 0 {
            pos.character = pos.character.saturating_sub(self.bom_width());
        }
        self.index.offset(self.file.text(), pos, self.enc)
    }
}

/// Applies one `textDocument/didChange` content change to `text`: a range replaced by new
/// text, or (no range) the whole text replaced.
pub fn apply_change(text: &mut String, range: Option<Range>, new_text: &str, enc: Encoding) {
    let Some(range) = range else {
        text.clear();
        text.push_str(new_text);
        return;
    };
    let index = LineIndex::new(text);
    let a = index.offset(text, range.start, enc);
    let b = index.offset(text, range.end, enc);
    let (start, end) = if a <= b { (a, b) } else { (b, a) };
    text.replace_range(start..end, new_text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        // 'é' is 2 bytes / 1 unit, '😀' 4 bytes / 2 units.
        let text = "a: é😀x\nb: 1\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(x, 9);
        assert_eq!(idx.position(text, x, Encoding::Utf16), Position::new(0, 6));
        assert_eq!(idx.position(text, x, Encoding::Utf8), Position::new(0, 9));
        assert_eq!(idx.offset(text, Position::new(0, 6), Encoding::Utf16), x);
        // inside the surrogate pair: the start of the emoji
        assert_eq!(idx.offset(text, Position::new(0, 5), Encoding::Utf16), 5);
        // past the end of the line: the end of the line, before the break
        assert_eq!(idx.offset(text, Position::new(0, 99), Encoding::Utf16), 10);
        assert_eq!(idx.offset(text, Position::new(1, 3), Encoding::Utf16), 14);
        assert_eq!(
            idx.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
    }

    #[test]
    fn line_breaks_are_lsp_ones() {
        let text = "a\r\nb\rc\nd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 3, Encoding::Utf16), Position::new(1, 0));
        assert_eq!(idx.position(text, 5, Encoding::Utf16), Position::new(2, 0));
        assert_eq!(idx.position(text, 7, Encoding::Utf16), Position::new(3, 0));
        // the end of line 0 is before "\r\n"
        assert_eq!(idx.offset(text, Position::new(0, 5), Encoding::Utf16), 1);
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut t = String::from("k: 😀a\nz: 2\n");
        // replace "a" (after the emoji: UTF-16 column 5) with "bc"
        apply_change(
            &mut t,
            Some(Range::new(Position::new(0, 5), Position::new(0, 6))),
            "bc",
            Encoding::Utf16,
        );
        assert_eq!(t, "k: 😀bc\nz: 2\n");
        // insert a line at the end
        apply_change(
            &mut t,
            Some(Range::new(Position::new(2, 0), Position::new(2, 0))),
            "y: 3\n",
            Encoding::Utf16,
        );
        assert_eq!(t, "k: 😀bc\nz: 2\ny: 3\n");
        // UTF-8 columns: the emoji is 4 bytes
        apply_change(
            &mut t,
            Some(Range::new(Position::new(0, 3), Position::new(0, 7))),
            "",
            Encoding::Utf8,
        );
        assert_eq!(t, "k: bc\nz: 2\ny: 3\n");
        apply_change(&mut t, None, "all new", Encoding::Utf16);
        assert_eq!(t, "all new");
    }

    #[test]
    fn bom_shifts_the_first_line_only() {
        let f = SourceFile::from_bytes("x.yaml", "\u{feff}a: 1\nb: 2\n".as_bytes());
        assert!(f.had_bom);
        let c = Coords::new(&f, Encoding::Utf16, true);
        assert_eq!(c.position(0), Position::new(0, 1));
        assert_eq!(c.position(5), Position::new(1, 0));
        assert_eq!(c.offset(Position::new(0, 1)), 0);
        let c8 = Coords::new(&f, Encoding::Utf8, true);
        assert_eq!(c8.position(3), Position::new(0, 6));
        assert_eq!(c8.offset(Position::new(0, 6)), 3);
    }
}

//! Maps a byte range of a string scalar's *value* back to the source text that produced it.
//!
//! Rules point at parts of strings (an interpolation token inside a value), but the value is
//! what the YAML/JSON/HOCON reader made of the source: quotes removed, escapes decoded (`\t`,
//! `\u00e9`, `''`), lines folded (a multi-line plain or quoted scalar, a `>` block), block
//! indentation stripped (`|`). [`map_range`] re-reads the scalar's source the way the reader
//! does, recording for every value character the source bytes it came from, and answers only
//! when its reading reproduces the loader's value exactly: if it does not (a construct it does
//! not model, such as an explicit block indentation indicator or a YAML alias), the caller gets
//! `None` and falls back to the whole scalar, so a span is never wrong, only sometimes wider.

use std::ops::Range;

use crate::span::Span;

/// One character of the value and the source bytes (relative to the scalar's span) it came
/// from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    ch: char,
    src: (usize, usize),
}

/// The source span of `range` (byte offsets into `value`) for the scalar at `span` of `text`.
/// `None` when the source cannot be read back to exactly `value`, or the range is not on
/// character boundaries of `value`.
pub fn map_range(text: &str, span: Span, value: &str, range: Range<usize>) -> Option<Span> {
    if range.start > range.end
        || range.end > value.len()
        || !value.is_char_boundary(range.start)
        || !value.is_char_boundary(range.end)
    {
        return None;
    }
    let src = text.get(span.range())?;
    if src == value {
        return Some(span.sub(range.start, range.end));
    }
    // A one-line quoted scalar without escapes (`"%{lookup('a')}"`, the usual interpolated
    // value): every character is its own source, one byte after the quote. An escape, a
    // doubled `''` or a folded line reads back to another length or text, so `src` spelling
    // the value between its quotes is exactly that case; the reading below gives the same
    // span (tested) at thousands of instructions per call. HOCON's `"""` strings and an empty
    // range at the end (placed after the closing quote below) take the general reading.
    if range.start < value.len() && src.len() == value.len() + 2 && !src.starts_with("\"\"\"") {
        let b = src.as_bytes();
        let q = b[0];
        if (q == b'"' || q == b'\'') && b[b.len() - 1] == q && &src[1..src.len() - 1] == value {
            return Some(span.sub(range.start + 1, range.end + 1));
        }
    }
    map_range_read(src, span, value, range)
}

/// [`map_range`] by reading the source as the loader does.
fn map_range_read(src: &str, span: Span, value: &str, range: Range<usize>) -> Option<Span> {
    let pieces = decode(src, value)?;
    // Value byte offset of each piece.
    let mut at = 0usize;
    let mut first: Option<(usize, usize)> = None;
    let mut last: Option<(usize, usize)> = None;
    for p in &pieces {
        let len = p.ch.len_utf8();
        if at == range.start && first.is_none() {
            first = Some(p.src);
        }
        if at < range.end && at + len >= range.end {
            last = Some(p.src);
        }
        at += len;
    }
    if range.start == range.end {
        // An empty range: the position where the character at `start` comes from.
        let pos = match first {
            Some((s, _)) => s,
            None => src.len(),
        };
        return Some(span.sub(pos, pos));
    }
    let (start, _) = first?;
    let (_, end) = last?;
    (start <= end).then(|| span.sub(start, end))
}

/// Reads `src` into pieces and checks that they spell `value`.
fn decode(src: &str, value: &str) -> Option<Vec<Piece>> {
    let pieces = if let Some(inner) = src
        .strip_prefix("\"\"\"")
        .and_then(|s| s.strip_suffix("\"\"\""))
    {
        // A HOCON triple-quoted string: verbatim.
        verbatim(inner, 3)
    } else if src.starts_with('"') {
        flow(src.get(1..src.len().checked_sub(1)?)?, 1, Quote::Double)?
    } else if src.starts_with('\'') {
        flow(src.get(1..src.len().checked_sub(1)?)?, 1, Quote::Single)?
    } else if src.starts_with('|') || src.starts_with('>') {
        return block(src, value);
    } else {
        flow(src, 0, Quote::Plain)?
    };
    spells(&pieces, value).then_some(pieces)
}

fn spells(pieces: &[Piece], value: &str) -> bool {
    let mut chars = value.chars();
    for p in pieces {
        if chars.next() != Some(p.ch) {
            return false;
        }
    }
    chars.next().is_none()
}

fn verbatim(s: &str, base: usize) -> Vec<Piece> {
    s.char_indices()
        .map(|(i, ch)| Piece {
            ch,
            src: (base + i, base + i + ch.len_utf8()),
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Plain,
    Single,
    Double,
}

fn is_break(c: char) -> bool {
    c == '\n' || c == '\r'
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A flow scalar's content (plain, or between the quotes): YAML line folding (a single line
/// break between text becomes a space, each empty line a line feed, white space around breaks
/// is dropped), `''` in single quotes, escapes in double quotes (YAML's set, which includes
/// JSON's).
fn flow(s: &str, base: usize, quote: Quote) -> Option<Vec<Piece>> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let end_of = |k: usize| chars.get(k).map_or(s.len(), |&(i, _)| i);
    let mut out: Vec<Piece> = Vec::with_capacity(chars.len());
    // In-line white space not yet known to be content (dropped before a line break).
    let mut pending: Vec<Piece> = Vec::new();
    let mut k = 0usize;
    let piece = |ch: char, from: usize, to: usize| Piece {
        ch,
        src: (base + from, base + to),
    };
    while k < chars.len() {
        let (i, c) = chars[k];
        if is_break(c) {
            pending.clear();
            let brk_from = i;
            k = skip_break(&chars, k);
            let brk = (brk_from, end_of(k));
            let mut empties: Vec<(usize, usize)> = Vec::new();
            loop {
                while k < chars.len() && is_blank(chars[k].1) {
                    k += 1;
                }
                if k < chars.len() && is_break(chars[k].1) {
                    let from = chars[k].0;
                    k = skip_break(&chars, k);
                    empties.push((from, end_of(k)));
                } else {
                    break;
                }
            }
            if empties.is_empty() {
                out.push(piece(' ', brk.0, brk.1));
            } else {
                out.extend(empties.iter().map(|&(f, t)| piece('\n', f, t)));
            }
            continue;
        }
        if is_blank(c) {
            pending.push(piece(c, i, end_of(k + 1)));
            k += 1;
            continue;
        }
        out.append(&mut pending);
        match (quote, c) {
            (Quote::Single, '\'') => {
                // `''` is one quote; a lone quote cannot occur inside the scalar.
                if chars.get(k + 1).map(|x| x.1) != Some('\'') {
                    return None;
                }
                out.push(piece('\'', i, end_of(k + 2)));
                k += 2;
            }
            (Quote::Double, '\\') => {
                let (&(_, e), rest) = chars.get(k + 1..)?.split_first()?;
                if is_break(e) {
                    // An escaped line break: the break and the next line's indentation vanish.
                    k = skip_break(&chars, k + 1);
                    while k < chars.len() && is_blank(chars[k].1) {
                        k += 1;
                    }
                    continue;
                }
                let (ch, used) = escape(e, rest)?;
                let next = k + 2 + used;
                out.push(piece(ch, i, end_of(next)));
                k = next;
            }
            (Quote::Double, '"') => return None,
            _ => {
                out.push(piece(c, i, end_of(k + 1)));
                k += 1;
            }
        }
    }
    out.append(&mut pending);
    Some(out)
}

fn skip_break(chars: &[(usize, char)], k: usize) -> usize {
    if chars[k].1 == '\r' && chars.get(k + 1).map(|x| x.1) == Some('\n') {
        k + 2
    } else {
        k + 1
    }
}

/// How many hexadecimal digits follow the escape letter `e` of a double-quoted scalar (0 for a
/// one-letter escape); `None` for a letter YAML 1.1 has no escape for.
pub(crate) fn escape_digits(e: char) -> Option<usize> {
    match e {
        'x' => Some(2),
        'u' => Some(4),
        'U' => Some(8),
        '0' | 'a' | 'b' | 't' | '\t' | 'n' | 'v' | 'f' | 'r' | 'e' | ' ' | '"' | '/' | '\\'
        | 'N' | '_' | 'L' | 'P' => Some(0),
        _ => None,
    }
}

/// A double-quoted escape after the backslash: the character and how many characters after
/// the escape letter it used (hex digits).
fn escape(e: char, rest: &[(usize, char)]) -> Option<(char, usize)> {
    let hex = |n: usize| -> Option<(char, usize)> {
        let digits: String = rest.get(..n)?.iter().map(|x| x.1).collect();
        let v = u32::from_str_radix(&digits, 16).ok()?;
        // `char::from_u32` refuses UTF-16 surrogates: a JSON surrogate pair (two `\u`
        // escapes for one character) is not modelled and falls back.
        Some((char::from_u32(v)?, n))
    };
    Some(match e {
        '0' => ('\0', 0),
        'a' => ('\x07', 0),
        'b' => ('\x08', 0),
        't' | '\t' => ('\t', 0),
        'n' => ('\n', 0),
        'v' => ('\x0b', 0),
        'f' => ('\x0c', 0),
        'r' => ('\r', 0),
        'e' => ('\x1b', 0),
        ' ' => (' ', 0),
        '"' => ('"', 0),
        '/' => ('/', 0),
        '\\' => ('\\', 0),
        'N' => ('\u{85}', 0),
        '_' => ('\u{a0}', 0),
        'L' => ('\u{2028}', 0),
        'P' => ('\u{2029}', 0),
        _ => match escape_digits(e)? {
            0 => return None,
            n => return hex(n),
        },
    })
}

/// A block scalar (`|` literal, `>` folded). The chomping indicator only decides how many
/// final line feeds the value keeps, so the pieces are built as if all were kept and then cut
/// to the value (final line feeds the span does not cover map to its end).
fn block(src: &str, value: &str) -> Option<Vec<Piece>> {
    let folded = src.starts_with('>');
    let header_end = src.find('\n')?;
    let header = src[1..header_end].trim_end_matches('\r');
    let header = header.split('#').next().unwrap_or("").trim();
    // At most one chomping indicator and one indentation indicator (`1`-`9`), in either order
    // (YAML 1.1 §9.1.1: `|2-`, `|-2`).
    let digits = header.chars().filter(char::is_ascii_digit).count();
    let chomps = header.chars().filter(|c| matches!(c, '-' | '+')).count();
    if digits > 1 || chomps > 1 || digits + chomps != header.chars().count() || header.contains('0')
    {
        return None;
    }
    let explicit = digits == 1;
    // Content lines: (start offset, text) without the line break.
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut pos = header_end + 1;
    for raw in src[pos..].split('\n') {
        lines.push((pos, raw.trim_end_matches('\r')));
        pos += raw.len() + 1;
    }
    let spaces = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let first = lines
        .iter()
        .find(|(_, l)| !l.trim_start_matches(' ').is_empty())
        .map(|(_, l)| spaces(l))?;
    let indent = if explicit {
        // An explicit indicator counts from the parent node's indentation, which the span
        // does not show; what the indicator left of the first text line's spaces starts the
        // value's first text line, so the indentation is the difference. Whatever it is, the
        // reading below must spell the value exactly or no span is given.
        // The indentation is never below the indicator (libyaml adds it to the parent's
        // indentation, or takes it alone at the root).
        let d = header.chars().find(char::is_ascii_digit)?.to_digit(10)? as usize;
        let first_value_line = value
            .split('\n')
            .find(|l| !l.trim_start_matches(' ').is_empty())?;
        first
            .checked_sub(spaces(first_value_line))
            .filter(|&i| i >= d)?
    } else {
        first
    };
    // Each line's content after the indentation, and where its line break is.
    struct Line<'a> {
        start: usize,
        text: &'a str,
        brk: (usize, usize),
    }
    let lines: Vec<Line> = lines
        .iter()
        .map(|&(start, l)| {
            let content_start = l.len().min(indent);
            let text = if l.len() > indent { &l[indent..] } else { "" };
            let end = start + l.len();
            let brk_end = if end < src.len() {
                (end + 1).min(src.len())
            } else {
                end
            };
            Line {
                start: start + content_start,
                text,
                brk: (end, brk_end),
            }
        })
        .collect();
    let mut out: Vec<Piece> = Vec::new();
    let push_text = |out: &mut Vec<Piece>, l: &Line| {
        for (i, ch) in l.text.char_indices() {
            out.push(Piece {
                ch,
                src: (l.start + i, l.start + i + ch.len_utf8()),
            });
        }
    };
    let nl = |at: (usize, usize)| Piece { ch: '\n', src: at };
    if !folded {
        for l in &lines {
            push_text(&mut out, l);
            out.push(nl(l.brk));
        }
    } else {
        // YAML 1.2 §8.1.3: a break between two text lines that are not more indented folds
        // to a space; empty lines are line feeds; breaks next to more-indented lines stay.
        let more = |l: &Line| l.text.starts_with([' ', '\t']);
        let mut prev: Option<&Line> = None;
        let mut empties: Vec<&Line> = Vec::new();
        for l in &lines {
            if l.text.is_empty() {
                empties.push(l);
                continue;
            }
            match prev {
                None => out.extend(empties.iter().map(|e| nl(e.brk))),
                Some(p) => {
                    if more(p) || more(l) {
                        out.push(nl(p.brk));
                        out.extend(empties.iter().map(|e| nl(e.brk)));
                    } else if empties.is_empty() {
                        out.push(Piece {
                            ch: ' ',
                            src: p.brk,
                        });
                    } else {
                        out.extend(empties.iter().map(|e| nl(e.brk)));
                    }
                }
            }
            empties.clear();
            push_text(&mut out, l);
            prev = Some(l);
        }
        if let Some(p) = prev {
            out.push(nl(p.brk));
        }
        out.extend(empties.iter().map(|e| nl(e.brk)));
    }
    // Chomping: keep as many pieces as the value has characters; line feeds beyond the span
    // (the final break of a clipped or kept scalar) point at its end.
    let n = value.chars().count();
    if out.len() >= n {
        out.truncate(n);
    } else {
        while out.len() < n {
            out.push(nl((src.len(), src.len())));
        }
    }
    spells(&out, value).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut for one-line quoted scalars gives what reading the source gives, for
    /// every range of values with and without escapes, quotes, and multi-byte text.
    #[test]
    fn quoted_shortcut_agrees_with_the_reading() {
        let cases: &[(&str, &str)] = &[
            ("\"%{lookup('a')}\"", "%{lookup('a')}"),
            ("'%{lookup(\"a\")}'", "%{lookup(\"a\")}"),
            ("\"é%{x}ü\"", "é%{x}ü"),
            ("'it''s %{x}'", "it's %{x}"),
            ("\"a\\tb %{x}\"", "a\tb %{x}"),
            ("\"\"", ""),
            ("''", ""),
            ("\"x\"", "x"),
            ("'%{a}'", "%{a}"),
            ("\"\"\"%{a}\"\"\"", "%{a}"),
            ("\"\"\"x\"\"\"", "\"\"x\"\""),
            ("\"%{a}\"", "%{b}"),
        ];
        for (src, value) in cases {
            let text = format!("k: {src}\n");
            let span = Span::new(3, 3 + src.len());
            for start in 0..=value.len() {
                for end in start..=value.len() {
                    let fast = map_range(&text, span, value, start..end);
                    let read = if start > end
                        || !value.is_char_boundary(start)
                        || !value.is_char_boundary(end)
                    {
                        None
                    } else {
                        map_range_read(src, span, value, start..end)
                    };
                    assert_eq!(fast, read, "{src} {start}..{end}");
                }
            }
        }
    }

    /// Maps the first occurrence of `needle` in `value` for a scalar whose source is `src`
    /// (placed at offset 3 of a larger text) and returns the source text of the span.
    fn mapped(src: &str, value: &str, needle: &str) -> Option<String> {
        let text = format!("k: {src}\n");
        let span = Span::new(3, 3 + src.len());
        let at = value.find(needle)?;
        let s = map_range(&text, span, value, at..at + needle.len())?;
        Some(text[s.range()].to_string())
    }

    #[test]
    fn verbatim_plain_and_quoted() {
        assert_eq!(
            mapped("a %{x} b", "a %{x} b", "%{x}").as_deref(),
            Some("%{x}")
        );
        assert_eq!(
            mapped("\"a %{x}\"", "a %{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
        assert_eq!(
            mapped("'it''s %{x}'", "it's %{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
        assert_eq!(
            mapped("'it''s %{x}'", "it's %{x}", "'s").as_deref(),
            Some("''s")
        );
    }

    #[test]
    fn double_quoted_escapes_and_multibyte() {
        let src = r#""tab\t%{x} \u00e9 %{y}""#;
        let value = "tab\t%{x} é %{y}";
        assert_eq!(mapped(src, value, "%{x}").as_deref(), Some("%{x}"));
        assert_eq!(mapped(src, value, "%{y}").as_deref(), Some("%{y}"));
        assert_eq!(mapped(src, value, "é").as_deref(), Some("\\u00e9"));
        assert_eq!(
            mapped(r#""q\"%{a}\"""#, "q\"%{a}\"", "\"%{a}\"").as_deref(),
            Some("\\\"%{a}\\\"")
        );
        assert_eq!(
            mapped("\"ü %{x}\"", "ü %{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
    }

    #[test]
    fn folded_flow_scalars() {
        assert_eq!(
            mapped("\"line one\n  %{x} two\"", "line one %{x} two", "%{x}").as_deref(),
            Some("%{x}")
        );
        assert_eq!(
            mapped("first\n  %{x} second", "first %{x} second", "%{x}").as_deref(),
            Some("%{x}")
        );
        // An empty line is a line feed.
        assert_eq!(
            mapped("\"a\n\n  %{x}\"", "a\n%{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
        // An escaped line break joins without a space.
        assert_eq!(
            mapped("\"a\\\n  %{x}\"", "a%{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
        // A token broken over two lines maps to both lines.
        assert_eq!(
            mapped("\"%{facts.\n  os}\"", "%{facts. os}", "%{facts. os}").as_deref(),
            Some("%{facts.\n  os}")
        );
    }

    #[test]
    fn block_scalars() {
        let src = "|\n  first %{a}\n    second %{b}";
        let value = "first %{a}\n  second %{b}\n";
        assert_eq!(mapped(src, value, "%{b}").as_deref(), Some("%{b}"));
        assert_eq!(mapped(src, value, "%{a}").as_deref(), Some("%{a}"));
        let src = ">-\n  first %{a}\n  second %{b}";
        let value = "first %{a} second %{b}";
        assert_eq!(mapped(src, value, "%{b}").as_deref(), Some("%{b}"));
        assert_eq!(mapped(src, value, "a} s").as_deref(), Some("a}\n  s"));
        let src = ">\n  a\n\n  %{b}\n    more\n  c";
        let value = "a\n%{b}\n  more\nc\n";
        assert_eq!(mapped(src, value, "%{b}").as_deref(), Some("%{b}"));
        assert_eq!(mapped(src, value, "c").as_deref(), Some("c"));
        // An explicit indentation indicator: the indentation is read off the value, and the
        // reading must spell it (repros of the session-26 span audit).
        assert_eq!(
            mapped("|2\n   %{a}", " %{a}\n", "%{a}").as_deref(),
            Some("%{a}")
        );
        assert_eq!(
            mapped("|2\n   é %{a..b}\n", " é %{a..b}\n", "%{a..b}").as_deref(),
            Some("%{a..b}")
        );
        assert_eq!(
            mapped(">1\n  é %{x}\n  y\n", " é %{x}\n y\n", "%{x}").as_deref(),
            Some("%{x}")
        );
        assert_eq!(
            mapped("|-2\n    a\n\n    %{b}", "  a\n\n  %{b}", "%{b}").as_deref(),
            Some("%{b}")
        );
        assert_eq!(
            mapped("|2+\n   %{a}\n\n", " %{a}\n\n", "%{a}").as_deref(),
            Some("%{a}")
        );
        // A value the source does not spell at any indentation: no span.
        assert_eq!(mapped("|2\n   %{a}", "  %{a}\n", "%{a}"), None);
        assert_eq!(mapped("|0\n %{a}", "%{a}\n", "%{a}"), None);
    }

    #[test]
    fn a_source_that_does_not_read_back_gives_none() {
        // The alias token `*a` cannot be mapped to the anchored value.
        assert_eq!(mapped("*a", "%{x}", "%{x}"), None);
        // A mismatch between the source and the value is never guessed around.
        assert_eq!(mapped("\"%{y}\"", "%{x}", "%{x}"), None);
        // Ranges not on character boundaries.
        let text = "k: \"é\"";
        assert_eq!(map_range(text, Span::new(3, 7), "é", 0..1), None);
    }

    #[test]
    fn json_and_hocon_strings() {
        assert_eq!(
            mapped(r#""a\/b %{x}""#, "a/b %{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
        assert_eq!(
            mapped("\"\"\"raw %{x}\"\"\"", "raw %{x}", "%{x}").as_deref(),
            Some("%{x}")
        );
        // A surrogate pair is not modelled (falls back).
        assert_eq!(mapped(r#""\ud83d\ude00 %{x}""#, "😀 %{x}", "%{x}"), None);
    }

    /// Every token of every string the real YAML loader reads maps to source text that is the
    /// token itself (none of these tokens holds an escape or a line break).
    #[test]
    fn tokens_of_loaded_yaml_map_to_their_text() {
        let text = concat!(
            "plain: a %{x} b\n",
            "sq: 'it''s %{x} ''%{y}'''\n",
            "dq: \"tab\\t%{x} \\u00e9 %{y} \\\"%{z}\\\"\"\n",
            "ml: \"line one\n  %{x} two\n\n  %{y}\"\n",
            "lit: |\n  first %{a}\n    second %{b}\n\n  third %{c}\n",
            "keep: |+\n  %{a}\n\n",
            "fold: >-\n  first %{a}\n  second %{b}\n\n  third %{c}\n      more %{d}\n  end %{e}\n",
            "plainml: first\n  %{x} second\n   %{y}\n",
            "nested:\n  - {\"k %{k}\": 'v %{v}'}\n  - >\n    é %{w}\n",
            "crlf: \"a\r\n  %{x}\"\n",
        );
        let file = crate::span::SourceFile::new("t.yaml", text);
        let doc = crate::loader::yaml::load(&file);
        assert!(doc.fatal_issue().is_none(), "{:?}", doc.issues);
        let mut stack = vec![doc.root.as_ref().unwrap()];
        let mut checked = 0;
        while let Some(n) = stack.pop() {
            match &n.kind {
                crate::value::NodeKind::Scalar(_) => {
                    let Some(v) = n.as_str() else { continue };
                    for t in crate::interp::tokens(v) {
                        let s = map_range(text, n.span, v, t.range.clone())
                            .unwrap_or_else(|| panic!("no span for {v:?}"));
                        assert_eq!(&text[s.range()], &v[t.range.clone()], "in {v:?}");
                        checked += 1;
                    }
                }
                crate::value::NodeKind::Seq(items) => stack.extend(items),
                crate::value::NodeKind::Map(m) => {
                    for e in &m.entries {
                        stack.push(&e.key);
                        stack.push(&e.value);
                    }
                }
            }
        }
        assert_eq!(checked, 23);
    }
}

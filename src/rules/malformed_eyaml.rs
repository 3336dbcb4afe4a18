//! H007 `malformed-eyaml`: an `ENC[...]` value that hiera-eyaml cannot decrypt, or silently
//! does not decrypt.
//!
//! Puppet's `eyaml_lookup_key` decrypts a String value when `/.*ENC\[.*?\]/` matches it (so the
//! brackets must be on one line), then scans it with hiera-eyaml 3.3's
//! `ENC\[(\w+,)?([a-zA-Z0-9+/ =\n]+?)\]` (`EncHieraTokenType`): a matching token is decrypted, any
//! other text, including an `ENC[` that does not match, is kept as it is. Each case below is
//! recorded in fixtures/recorded/malformed-eyaml/variants.

use crate::diag::Diagnostic;
use crate::loader::psych::unpack_base64;
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};
use crate::value::Value;

crate::declare_rule!(pub static META = {
    code: "H007",
    name: "malformed-eyaml",
    category: Correctness,
    summary: "an `ENC[...]` value with an unknown method, no closing bracket, or damaged base64",
});

pub struct MalformedEyaml;

impl Rule for MalformedEyaml {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_scalar_flags(&self) -> bool {
        true
    }

    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        if !matches!(file.role, FileRole::Data | FileRole::Loose) {
            return;
        }
        let Some(root) = &file.doc.root else {
            return;
        };
        // Most data files hold no `ENC[` in any value: the scan finds which do while it parses
        // them (`ScalarFlags::eyaml_token`, over the same scalars as the walk below), which
        // spares both the walk and a search of the whole text.
        if !super::tree::flags(&file.doc).eyaml_token {
            return;
        }
        let src = &file.source;
        for &at in sink.scalars(root).iter() {
            // hiera-eyaml decrypts values only; keys are interpolated, never decrypted.
            if at.is_key {
                continue;
            }
            let Value::String(text) = &at.scalar.value else {
                continue;
            };
            // Each bad token at its own `ENC[...]` (the scalar where the source cannot be
            // read back to the value exactly, value_span.rs).
            for (range, p) in problems(text) {
                let span = crate::value_span::map_range(src.text(), at.node.span, text, range)
                    .unwrap_or(at.node.span);
                sink.report(diagnostic(src, span, p));
            }
        }
    }
}

/// Encryption methods hiera-eyaml can load: PKCS7 is built in; the others are the tags of the
/// published encryptor plugins (hiera-eyaml-gpg, -kms, -gkms, -vault). `Encryptor.find` matches
/// the class name case-insensitively (`Utils.find_closest_class`; recorded `valid_lower_method`).
const KNOWN_METHODS: &[&str] = &["PKCS7", "GPG", "KMS", "GKMS", "VAULT"];

#[derive(Debug, PartialEq)]
enum Problem {
    /// `ENC[` with no `]` after it.
    NoClose,
    /// `ENC[` and its `]` on different lines of the value (a literal block): `encrypted?` does
    /// not match, the value is returned as written.
    AcrossLines,
    /// A character the token regex does not accept, inside the brackets.
    BadChar(char),
    /// The part before the comma is not a `\w+` method name.
    BadMethodName(String),
    /// `ENC[]` or `ENC[PKCS7,]`.
    Empty,
    /// A method hiera-eyaml cannot load.
    UnknownMethod(String),
    /// PKCS7 base64 that does not decode to a complete DER structure.
    Damaged(String),
}

/// The problems of the `ENC[` tokens in a value, each with the byte range of its token in the
/// value (`ENC[` to its `]`; `ENC[` alone when no `]` closes it).
fn problems(text: &str) -> Vec<(std::ops::Range<usize>, Problem)> {
    // Asked of every scalar (most hold none).
    if !crate::interp::contains_short(text, "ENC[") {
        return Vec::new();
    }
    // `encrypted?`: some line has `ENC[` and, later on that line, `]`. Without one,
    // hiera-eyaml returns the value as written: one finding, at the first `ENC[`.
    let encrypted = text
        .lines()
        .any(|l| l.find("ENC[").is_some_and(|i| l[i + 4..].contains(']')));
    if !encrypted {
        let first = text.find("ENC[").unwrap_or(0);
        return vec![match text[first..].find(']') {
            Some(close) => (first..first + close + 1, Problem::AcrossLines),
            None => (first..first + 4, Problem::NoClose),
        }];
    }
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("ENC[") {
        let start = from + i;
        let inner_start = start + 4;
        let Some(close) = text[inner_start..].find(']') else {
            out.push((start..inner_start, Problem::NoClose));
            break;
        };
        let end = inner_start + close + 1;
        if let Some(p) = token_problem(&text[inner_start..end - 1]) {
            out.push((start..end, p));
        }
        from = end;
    }
    out
}

/// The first problem of the `ENC[` tokens in a value, if any.
#[cfg(test)]
fn problem(text: &str) -> Option<Problem> {
    problems(text).into_iter().next().map(|(_, p)| p)
}

/// Checks the text between `ENC[` and the first `]` against `(\w+,)?([a-zA-Z0-9+/ =\n]+?)`.
fn token_problem(inner: &str) -> Option<Problem> {
    let body_char =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | ' ' | '=' | '\n');
    let (method, body) = match inner.split_once(',') {
        Some((m, b)) => (Some(m), b),
        None => (None, inner),
    };
    if let Some(m) = method {
        // Ruby's `\w` is ASCII `[a-zA-Z0-9_]`.
        if m.is_empty() || !m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            // Without a valid method the whole inside must be base64, and it holds a comma.
            return Some(Problem::BadMethodName(m.to_string()));
        }
    }
    if body.is_empty() {
        return Some(Problem::Empty);
    }
    if let Some(c) = body.chars().find(|&c| !body_char(c)) {
        return Some(Problem::BadChar(c));
    }
    let method = method.unwrap_or("PKCS7");
    if !KNOWN_METHODS.iter().any(|k| k.eq_ignore_ascii_case(method)) {
        return Some(Problem::UnknownMethod(method.to_string()));
    }
    if method.eq_ignore_ascii_case("PKCS7") {
        // `Base64.decode64` (lenient: skips the spaces and line breaks, stops at a `=` that
        // ends a group) then `OpenSSL::PKCS7.new`.
        let der = unpack_base64(body);
        if let Some(why) = der_problem(&der) {
            return Some(Problem::Damaged(why));
        }
    }
    None
}

/// Deepest nesting the DER walk follows (PKCS7 envelopes nest about ten levels).
const MAX_DER_DEPTH: usize = 64;

/// Whether `der` starts with one complete DER element whose constructed parts nest exactly, as
/// `OpenSSL::PKCS7.new` needs. Trailing bytes after the element are accepted, as OpenSSL does
/// (recorded `trailing_garbage`); BER indefinite lengths end the check (OpenSSL accepts them).
fn der_problem(der: &[u8]) -> Option<String> {
    let Some(&first) = der.first() else {
        return Some("it decodes to no bytes".into());
    };
    if first != 0x30 {
        return Some(format!(
            "it decodes to bytes that are not a PKCS7 structure (they start with {first:#04x}, \
             not a DER SEQUENCE)"
        ));
    }
    let (constructed, start, len) = match header(der, 0, der.len()) {
        Ok(Some(h)) => h,
        Ok(None) => return None,
        Err(()) => return Some("its DER header is cut short".into()),
    };
    let end = start + len;
    if end > der.len() {
        return Some(format!(
            "it decodes to {} bytes, but its PKCS7 structure is {end} bytes long: the \
             ciphertext is truncated",
            der.len()
        ));
    }
    let mut stack: Vec<(usize, usize)> = Vec::new();
    if constructed {
        stack.push((start, end));
    }
    while let Some(top) = stack.last_mut() {
        let (pos, parent_end) = *top;
        if pos == parent_end {
            stack.pop();
            continue;
        }
        let (constructed, cstart, clen) = match header(der, pos, parent_end) {
            Ok(Some(h)) => h,
            Ok(None) => return None,
            Err(()) => {
                return Some(format!(
                    "its DER structure is damaged at byte {pos} (an element header runs past \
                     its parent)"
                ))
            }
        };
        let cend = cstart + clen;
        if cend > parent_end {
            return Some(format!(
                "its DER structure is damaged at byte {pos}: an element of {clen} bytes does \
                 not fit in its parent"
            ));
        }
        top.0 = cend;
        if constructed {
            if stack.len() >= MAX_DER_DEPTH {
                return None;
            }
            stack.push((cstart, cend));
        }
    }
    None
}

/// Reads the tag and length at `pos` (bounded by `end`): `(constructed, content start, content
/// length)`, `None` for an indefinite length, `Err` when the header does not fit.
fn header(b: &[u8], pos: usize, end: usize) -> Result<Option<(bool, usize, usize)>, ()> {
    let end = end.min(b.len());
    let tag = *b.get(pos).filter(|_| pos < end).ok_or(())?;
    let constructed = tag & 0x20 != 0;
    let mut i = pos + 1;
    if tag & 0x1f == 0x1f {
        // high tag number: base-128 digits, the last without bit 8
        loop {
            let c = *b.get(i).filter(|_| i < end).ok_or(())?;
            i += 1;
            if c & 0x80 == 0 {
                break;
            }
        }
    }
    let l = *b.get(i).filter(|_| i < end).ok_or(())?;
    i += 1;
    if l < 0x80 {
        return Ok(Some((constructed, i, l as usize)));
    }
    if l == 0x80 {
        return Ok(None);
    }
    let n = (l & 0x7f) as usize;
    if n > 8 || i + n > end {
        return Err(());
    }
    let mut len: usize = 0;
    for &c in &b[i..i + n] {
        len = len.checked_mul(256).ok_or(())? | c as usize;
    }
    Ok(Some((constructed, i + n, len)))
}

fn diagnostic(
    src: &std::sync::Arc<crate::span::SourceFile>,
    span: crate::span::Span,
    p: Problem,
) -> Diagnostic {
    const PASSED_THROUGH: &str = "hiera-eyaml does not decrypt it: Puppet returns this text, \
                                  ciphertext and all, as the value, without an error";
    match p {
        Problem::NoClose => Diagnostic::new(&META, src, span, "`ENC[` without a closing `]`")
            .note(PASSED_THROUGH)
            .note("a truncated paste? re-encrypt the value with `eyaml encrypt`"),
        Problem::AcrossLines => Diagnostic::new(
            &META,
            src,
            span,
            "`ENC[...]` runs over several lines of a literal block",
        )
        .note(PASSED_THROUGH)
        .note(
            "Puppet decrypts `ENC[...]` only when both brackets are on one line of the value: \
             write the block folded (`>`), as `eyaml encrypt -o block` does",
        ),
        Problem::BadChar(c) => {
            let shown = match c {
                '\t' => "a tab".to_string(),
                '\r' => "a carriage return".to_string(),
                c => format!("`{c}`"),
            };
            Diagnostic::new(
                &META,
                src,
                span,
                format!("`ENC[...]` holds {shown}, which is not base64"),
            )
            .note(PASSED_THROUGH)
        }
        Problem::BadMethodName(m) => Diagnostic::new(
            &META,
            src,
            span,
            format!("`{m}` is not an eyaml encryption method name"),
        )
        .note(PASSED_THROUGH)
        .note("a method name has only letters, digits and `_`, as in `ENC[PKCS7,...]`"),
        Problem::Empty => {
            Diagnostic::new(&META, src, span, "`ENC[...]` holds no ciphertext").note(PASSED_THROUGH)
        }
        Problem::UnknownMethod(m) => Diagnostic::new(
            &META,
            src,
            span,
            format!("unknown eyaml encryption method `{m}`"),
        )
        .note(format!(
            "hiera-eyaml requires `hiera/backend/eyaml/encryptors/{}`: every lookup of this key \
             fails with `cannot load such file` (a LoadError)",
            m.to_lowercase()
        ))
        .note("hiera-eyaml has PKCS7 built in; GPG, KMS, GKMS and VAULT come from plugins"),
        Problem::Damaged(why) => Diagnostic::new(
            &META,
            src,
            span,
            "the ciphertext in `ENC[PKCS7,...]` is truncated or damaged",
        )
        .note(why)
        .note(
            "every lookup of this key fails: `hiera-eyaml backend error decrypting ... Error was \
             Could not parse the PKCS7`",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(path: &str, text: &str) -> Vec<(u32, u32)> {
        use crate::project::Layer;
        let source = std::sync::Arc::new(crate::span::SourceFile::new(path, text));
        let format = crate::loader::Format::from_extension(std::path::Path::new(path))
            .unwrap_or(crate::loader::Format::Yaml);
        let doc = crate::loader::load(format, &source);
        let file = LoadedFile::new(source, doc, FileRole::Data, Layer::Environment, None);
        let mut sink = Sink::default();
        MalformedEyaml.check_data_file(&Project::default(), &file, &mut sink);
        sink.diagnostics
            .iter()
            .map(|d| (d.primary.span.start, d.primary.span.end))
            .collect()
    }

    /// The flag that lets a file skip the walk over its scalars (`ScalarFlags::eyaml_token`)
    /// misses no value that decodes to `ENC[`: written, escaped, or behind a binary tag however
    /// it is spelled; a key holding one is not a value hiera-eyaml decrypts.
    #[test]
    fn values_that_decode_to_enc_are_checked_however_written() {
        let bad = "ENC[PKCS7,QU_JD]";
        assert_eq!(run("t.yaml", &format!("a: {bad}\n")), vec![(3, 19)]);
        assert_eq!(
            run("t.yaml", "a: \"\\x45NC[PKCS7,QU_JD]\"\n"),
            vec![(4, 23)]
        );
        assert_eq!(run("t.json", "{\"a\": \"\\u0045NC[]\"}"), vec![(7, 17)]);
        // base64 of `ENC[]`: `!!binary`, a `%TAG` handle and a URI-escaped tag all decode it.
        assert_eq!(run("t.yaml", "a: !!binary RU5DW10=\n").len(), 1);
        assert_eq!(
            run(
                "t.yaml",
                "%TAG !b! tag:yaml.org,2002:bin\n---\na: !b!ary RU5DW10=\n"
            )
            .len(),
            1
        );
        assert_eq!(run("t.yaml", "a: !!bin%61ry RU5DW10=\n").len(), 1);
        assert_eq!(run("t.yaml", "a: plain\nb: [1, 2]\n"), vec![]);
        assert_eq!(run("t.yaml", "\"ENC[PKCS7,QU_JD]\": 1\n"), vec![]);
        assert_eq!(
            run("t.yaml", "\"ENC[PKCS7,QU_JD]\": 1\nb:\n  - ENC[]\n"),
            vec![(29, 34)]
        );
    }

    #[test]
    fn base64_is_decoded_as_ruby_decode64() {
        // Recorded with Ruby 3.1 `Base64.decode64`.
        for (s, want) in [
            ("QUJD", "ABC"),
            ("QUJDRA==", "ABCD"),
            ("QU=JD", "A"),
            ("Q=UJD", "ABC"),
            ("QUJDR", "ABC"),
            ("QUJDRE", "ABCD"),
            ("=QUJD", "ABC"),
            ("QUJD=RUZH", "ABCEFG"),
            ("QUJDRA=RUZH", "ABCD"),
            ("QU JD\nRA", "ABCD"),
        ] {
            assert_eq!(unpack_base64(s), want.as_bytes(), "{s}");
        }
    }

    #[test]
    fn der_walk() {
        // SEQUENCE { INTEGER 1, [0] { OCTET STRING "ab" } }
        let good = [
            0x30, 0x09, 0x02, 0x01, 0x01, 0xa0, 0x04, 0x04, 0x02, b'a', b'b',
        ];
        assert_eq!(der_problem(&good), None);
        let mut trailing = good.to_vec();
        trailing.extend([0, 0, 0]);
        assert_eq!(der_problem(&trailing), None);
        assert!(der_problem(&good[..10]).unwrap().contains("truncated"));
        let mut inner = good;
        inner[6] = 0x05; // [0] claims more than the SEQUENCE holds
        assert!(der_problem(&inner).unwrap().contains("damaged"));
        assert!(der_problem(&[0x04, 0x00])
            .unwrap()
            .contains("not a DER SEQUENCE"));
        assert!(der_problem(&[]).is_some());
        // indefinite length: BER, not checked further
        assert_eq!(der_problem(&[0x30, 0x80, 0x02]), None);
        // long-form lengths, and a length that overflows
        assert!(der_problem(&[0x30, 0x82, 0x01]).is_some());
        assert!(der_problem(&[0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9]).is_some());
        // deep nesting is bounded
        let mut deep = Vec::new();
        for _ in 0..200 {
            deep.extend([0x30, 0x80]);
        }
        assert_eq!(der_problem(&deep), None);
    }

    /// Each bad token is a finding of its own, at its `ENC[...]` (session 26's span audit:
    /// two bad tokens in one string gave one finding over the whole scalar).
    #[test]
    fn each_bad_token_has_its_own_range() {
        let text = "pw: ENC[FOO,QUJD] ok ENC[GPG,QUJD] é ENC[] x";
        let found: Vec<(&str, Problem)> = super::problems(text)
            .into_iter()
            .map(|(r, p)| (&text[r], p))
            .collect();
        assert_eq!(
            found,
            vec![
                ("ENC[FOO,QUJD]", Problem::UnknownMethod("FOO".into())),
                ("ENC[]", Problem::Empty),
            ]
        );
        let text = "a ENC[GPG,QUJD] b ENC[PKCS7,QUJD";
        let found: Vec<&str> = super::problems(text)
            .into_iter()
            .map(|(r, _)| &text[r])
            .collect();
        assert_eq!(found, vec!["ENC["]);
        let text = "x ENC[PKCS7,QU\nJD]";
        let found: Vec<&str> = super::problems(text)
            .into_iter()
            .map(|(r, _)| &text[r])
            .collect();
        assert_eq!(found, vec!["ENC[PKCS7,QU\nJD]"]);
    }

    #[test]
    fn problems() {
        assert_eq!(problem("plain"), None);
        assert_eq!(problem("ENC[PKCS7,QUJD"), Some(Problem::NoClose));
        assert_eq!(problem("ENC[PKCS7,QU\nJD]\n"), Some(Problem::AcrossLines));
        assert_eq!(problem("ENC[PKCS7,QU_JD]"), Some(Problem::BadChar('_')));
        assert_eq!(
            problem("ENC[PKCS-7,QUJD]"),
            Some(Problem::BadMethodName("PKCS-7".into()))
        );
        assert_eq!(problem("ENC[]"), Some(Problem::Empty));
        assert_eq!(problem("ENC[PKCS7,]"), Some(Problem::Empty));
        assert_eq!(
            problem("ENC[FOO,QUJD]"),
            Some(Problem::UnknownMethod("FOO".into()))
        );
        assert_eq!(problem("ENC[gpg,QUJD]"), None);
        assert!(matches!(
            problem("ENC[PKCS7,QUJD]"),
            Some(Problem::Damaged(_))
        ));
        // a second, broken token after a good one
        assert_eq!(
            problem("ENC[GPG,QUJD] and ENC[X-Y,QUJD]"),
            Some(Problem::BadMethodName("X-Y".into()))
        );
    }
}

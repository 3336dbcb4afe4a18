//! `--fix` and `--diff`: apply the [`Fix`](crate::diag::Fix)es that rules attach to their
//! diagnostics.
//!
//! Fixes are grouped by the primary label's file. Within a file they are applied in span order;
//! a fix that overlaps one already taken is left for the next pass (the caller re-checks after
//! fixing and fixes again until nothing changes), and the edits are made from the end of the
//! text so that earlier offsets stay valid.
//!
//! A fix must never change what Puppet reads. [`plan`] checks it: when the file loads cleanly
//! before the edit, it must load cleanly after it with equal data ([`preserves_data`]); a fix
//! that fails the check is refused, not applied. (Fixes that make a file loadable, such as
//! quoting an unquoted date, start from a file Puppet rejects and are the rule's to prove.)

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::diag::{Diagnostic, Fix};
use crate::loader::{self, Format};
use crate::span::SourceFile;

/// The edits for one file.
#[derive(Debug)]
pub struct FileFix {
    pub file: Arc<SourceFile>,
    /// The new text.
    pub fixed: String,
    /// How many fixes were applied (overlapping ones wait for the next pass).
    pub applied: usize,
    pub skipped: usize,
}

/// Applies non-overlapping `fixes` to `text`. Returns the new text, the number applied and the
/// number skipped. Fixes whose span is outside the text or not on character boundaries are
/// skipped.
pub fn apply_to_text(text: &str, fixes: &[&Fix]) -> (String, usize, usize) {
    let mut sorted: Vec<&Fix> = fixes.to_vec();
    sorted.sort_by_key(|f| (f.span.start, f.span.end));
    let mut taken: Vec<&Fix> = Vec::new();
    let mut skipped = 0;
    let mut last_end: Option<u32> = None;
    for f in sorted {
        let (s, e) = (f.span.start as usize, f.span.end as usize);
        let valid =
            s <= e && e <= text.len() && text.is_char_boundary(s) && text.is_char_boundary(e);
        if !valid {
            skipped += 1;
            continue;
        }
        // an identical fix reached twice (two diagnostics, one edit) is applied once
        if taken
            .last()
            .is_some_and(|t| t.span == f.span && t.replacement == f.replacement)
        {
            continue;
        }
        // a fix starting inside the previous one, or anything at the point of a previous
        // insertion (the order of the two would be a guess), overlaps
        let overlaps = last_end.is_some_and(|le| f.span.start < le)
            || taken
                .last()
                .is_some_and(|t| t.span.is_empty() && t.span.start == f.span.start);
        if overlaps {
            skipped += 1;
            continue;
        }
        last_end = Some(f.span.end);
        taken.push(f);
    }
    let mut out = text.to_string();
    for f in taken.iter().rev() {
        out.replace_range(f.span.range(), &f.replacement);
    }
    (out, taken.len(), skipped)
}

/// Whether `after` gives Puppet the same data as `before`. `true` when `before` does not load
/// cleanly (a syntax error, a date, a forbidden tag): there is no data to keep then.
pub fn preserves_data(path: &std::path::Path, before: &str, after: &str) -> bool {
    let format = Format::from_extension(path).unwrap_or(Format::Yaml);
    let b = loader::load(format, &SourceFile::new(path, before));
    if b.fatal_issue().is_some() {
        return true;
    }
    let a = loader::load(format, &SourceFile::new(path, after));
    a.fatal_issue().is_none() && a.puppet_data() == b.puppet_data()
}

/// A fix [`plan`] refused because it would change the file's data.
#[derive(Clone, Debug)]
pub struct Refused {
    pub file: Arc<SourceFile>,
    pub fix: Fix,
}

/// The fixes of `diags`, applied per file, with the fixes refused by [`preserves_data`]. Files
/// whose text would not change are left out.
pub fn plan_checked(diags: &[Diagnostic]) -> (Vec<FileFix>, Vec<Refused>) {
    let mut refused = Vec::new();
    let mut out = Vec::new();
    for ff in plan(diags) {
        if preserves_data(&ff.file.path, ff.file.text(), &ff.fixed) {
            out.push(ff);
            continue;
        }
        // find the culprits: keep the fixes that preserve the data on their own
        let fixes: Vec<&Fix> = diags
            .iter()
            .filter(|d| d.primary.file.path == ff.file.path)
            .filter_map(|d| d.fix.as_ref())
            .collect();
        let mut keep: Vec<&Fix> = Vec::new();
        for f in fixes {
            let (alone, _, _) = apply_to_text(ff.file.text(), &[f]);
            if preserves_data(&ff.file.path, ff.file.text(), &alone) {
                keep.push(f);
            } else if !refused
                .iter()
                .any(|r: &Refused| r.fix == *f && r.file.path == ff.file.path)
            {
                refused.push(Refused {
                    file: ff.file.clone(),
                    fix: f.clone(),
                });
            }
        }
        let (fixed, applied, skipped) = apply_to_text(ff.file.text(), &keep);
        if fixed != ff.file.text() && preserves_data(&ff.file.path, ff.file.text(), &fixed) {
            out.push(FileFix {
                file: ff.file.clone(),
                fixed,
                applied,
                skipped,
            });
        }
    }
    (out, refused)
}

/// The fixes of `diags`, applied per file (unchecked; see [`plan_checked`]). Files whose text
/// would not change are left out.
pub fn plan(diags: &[Diagnostic]) -> Vec<FileFix> {
    let mut by_file: BTreeMap<PathBuf, (Arc<SourceFile>, Vec<&Fix>)> = BTreeMap::new();
    for d in diags {
        if let Some(f) = &d.fix {
            by_file
                .entry(d.primary.file.path.clone())
                .or_insert_with(|| (d.primary.file.clone(), Vec::new()))
                .1
                .push(f);
        }
    }
    by_file
        .into_values()
        .filter_map(|(file, fixes)| {
            let (fixed, applied, skipped) = apply_to_text(file.text(), &fixes);
            (fixed != file.text()).then_some(FileFix {
                file,
                fixed,
                applied,
                skipped,
            })
        })
        .collect()
}

/// A unified diff of one file's fix (`--diff`), with `a/` and `b/` headers as git writes them.
pub fn unified_diff(ff: &FileFix) -> String {
    let name = crate::paths::slashed(&ff.file.path);
    // git's `a/` and `b/` prefixes; an absolute path keeps its own leading `/`
    let sep = if name.starts_with('/') { "" } else { "/" };
    similar::TextDiff::from_lines(ff.file.text(), ff.fixed.as_str())
        .unified_diff()
        .context_radius(3)
        .header(&format!("a{sep}{name}"), &format!("b{sep}{name}"))
        .to_string()
}

/// Writes a fixed file back, keeping a byte order mark the original had.
pub fn write_back(ff: &FileFix) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(ff.fixed.len() + 3);
    if ff.file.had_bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    bytes.extend_from_slice(ff.fixed.as_bytes());
    std::fs::write(&ff.file.path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    fn fix(s: usize, e: usize, r: &str) -> Fix {
        Fix {
            span: Span::new(s, e),
            replacement: r.to_string(),
            title: String::new(),
        }
    }

    #[test]
    fn applies_from_the_end_and_skips_overlaps() {
        let text = "a: %{x}\nb: 2021-01-01\n";
        let f1 = fix(3, 7, "\"%{x}\"");
        let f2 = fix(11, 21, "'2021-01-01'");
        let f3 = fix(5, 9, "zz"); // overlaps f1
        let (out, applied, skipped) = apply_to_text(text, &[&f2, &f3, &f1]);
        assert_eq!(out, "a: \"%{x}\"\nb: '2021-01-01'\n");
        assert_eq!((applied, skipped), (2, 1));
    }

    #[test]
    fn rejects_bad_spans_and_dedups_identical_fixes() {
        let text = "é: 1\n";
        let bad = fix(1, 2, "x"); // inside é
        let out_of_range = fix(3, 99, "x");
        let a = fix(4, 5, "2");
        let a2 = fix(4, 5, "2");
        let (out, applied, skipped) = apply_to_text(text, &[&bad, &out_of_range, &a, &a2]);
        assert_eq!(out, "é: 2\n");
        assert_eq!((applied, skipped), (1, 2));
    }

    #[test]
    fn data_must_be_preserved_when_there_is_data() {
        let p = std::path::Path::new("x.yaml");
        assert!(preserves_data(p, "a: on\nb: 1\n", "a: true\nb: 1\n"));
        assert!(preserves_data(p, "a: x\n", "a: 'x'\n"));
        assert!(
            !preserves_data(p, "a: on\n", "a: 'on'\n"),
            "on is a boolean, 'on' a string"
        );
        assert!(
            !preserves_data(p, "a: 1\n", "a: [\n"),
            "the fix breaks the file"
        );
        // an unloadable file has no data to keep (quoting a date makes it loadable)
        assert!(preserves_data(p, "a: 2024-01-01\n", "a: '2024-01-01'\n"));
    }

    #[test]
    fn two_insertions_at_one_point_conflict() {
        let (out, applied, skipped) = apply_to_text("ab", &[&fix(1, 1, "x"), &fix(1, 1, "y")]);
        assert_eq!(out, "axb");
        assert_eq!((applied, skipped), (1, 1));
    }
}

//! Content fingerprints of findings, shared by the GitLab Code Quality report and the baseline.
//!
//! A fingerprint must survive unrelated edits (a line inserted above the finding) and still tell
//! two findings apart (GitLab hides findings that share one). It hashes the rule code, the
//! repo-relative path, the source text under the primary span, and an occurrence index: the
//! rank of the finding among those with the same rule, path and text, in file order. Line and
//! column numbers are deliberately not part of it.

use std::collections::HashMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::diag::Diagnostic;
use crate::paths;

/// The fingerprint of every diagnostic, in the same order. `diags` must be in the contract order
/// (see [`crate::diag::sort_and_dedup`]) so that occurrence indices follow the file.
pub fn fingerprints(diags: &[Diagnostic], root: &Path) -> Vec<String> {
    let mut seen: HashMap<(&'static str, String, String), usize> = HashMap::new();
    diags
        .iter()
        .map(|d| {
            let path = paths::report_path(&d.primary.file.path, root);
            let text = d.primary.file.slice(d.primary.span).to_string();
            let n = seen
                .entry((d.rule.code, path.clone(), text.clone()))
                .or_insert(0);
            let index = *n;
            *n += 1;
            fingerprint(d.rule.code, &path, &text, index)
        })
        .collect()
}

/// The fingerprint of one finding: hex SHA-256 of its identifying parts, each length-prefixed so
/// that no two different tuples hash the same input.
pub fn fingerprint(code: &str, path: &str, text: &str, index: usize) -> String {
    let mut h = Sha256::new();
    for part in [code, path, text] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update((index as u64).to_le_bytes());
    h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_delimited() {
        assert_ne!(
            fingerprint("H1", "ab", "c", 0),
            fingerprint("H1", "a", "bc", 0)
        );
        assert_ne!(
            fingerprint("H1", "a", "b", 0),
            fingerprint("H1", "a", "b", 1)
        );
        assert_eq!(fingerprint("H1", "a", "b", 0).len(), 64);
    }
}

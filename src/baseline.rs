//! Baselines: `--write-baseline FILE` records the current findings, `--baseline FILE` silences
//! the findings recorded there, so that a large legacy repository can adopt hieralint and fail
//! only on new findings.
//!
//! A finding is matched by rule code, repo-relative path and content fingerprint
//! ([`crate::fingerprint`]), never by line number, so inserting or deleting lines elsewhere in
//! the file keeps it matched. Rules that cannot be suppressed (syntax errors, H9xx) are never
//! recorded: they must be fixed.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::fingerprint;
use crate::paths;

/// The file's format version; bump on an incompatible change.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// Rule code.
    pub code: String,
    /// Rule name, for people reading the file.
    #[serde(default)]
    pub rule: String,
    /// Repo-relative path.
    pub path: String,
    pub fingerprint: String,
    /// The line when recorded, for people reading the file (not used for matching).
    #[serde(default)]
    pub line: usize,
    #[serde(default)]
    pub message: String,
}

#[derive(Serialize, Deserialize, Debug)]
struct File {
    version: u32,
    tool: String,
    findings: Vec<Entry>,
}

/// The keys of a loaded baseline.
#[derive(Debug, Default)]
pub struct Baseline {
    keys: BTreeSet<(String, String, String)>,
}

impl Baseline {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the baseline `{}`: {e}", path.display()))?;
        let f: File = serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not a hieralint baseline: {e}", path.display()))?;
        if f.version != VERSION {
            return Err(format!(
                "`{}` is a version {} baseline; this hieralint reads version {VERSION}",
                path.display(),
                f.version
            ));
        }
        Ok(Baseline {
            keys: f
                .findings
                .into_iter()
                .map(|e| (e.code, e.path, e.fingerprint))
                .collect(),
        })
    }

    /// Which of `diags` (in contract order) the baseline covers.
    pub fn matches(&self, diags: &[Diagnostic], root: &Path) -> Vec<bool> {
        let fps = fingerprint::fingerprints(diags, root);
        diags
            .iter()
            .zip(fps)
            .map(|(d, fp)| {
                d.rule.suppressible
                    && self.keys.contains(&(
                        d.rule.code.to_string(),
                        paths::report_path(&d.primary.file.path, root),
                        fp,
                    ))
            })
            .collect()
    }
}

/// The entries a baseline of `diags` (in contract order) records.
pub fn entries(diags: &[Diagnostic], root: &Path) -> Vec<Entry> {
    let fps = fingerprint::fingerprints(diags, root);
    let mut out: Vec<Entry> = diags
        .iter()
        .zip(fps)
        .filter(|(d, _)| d.rule.suppressible)
        .map(|(d, fingerprint)| Entry {
            code: d.rule.code.to_string(),
            rule: d.rule.name.to_string(),
            path: paths::report_path(&d.primary.file.path, root),
            fingerprint,
            line: d.primary.file.line_col(d.primary.span.start as usize).line,
            message: d.message.clone(),
        })
        .collect();
    out.sort();
    out
}

/// Writes a baseline file recording `diags`.
pub fn write(path: &Path, diags: &[Diagnostic], root: &Path) -> Result<usize, String> {
    let findings = entries(diags, root);
    let n = findings.len();
    let f = File {
        version: VERSION,
        tool: "hieralint".to_string(),
        findings,
    };
    let mut text = serde_json::to_string_pretty(&f).map_err(|e| e.to_string())?;
    text.push('\n');
    std::fs::write(path, text)
        .map_err(|e| format!("cannot write the baseline `{}`: {e}", path.display()))?;
    Ok(n)
}

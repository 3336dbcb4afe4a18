//! Shared helpers for the integration tests: fixture discovery, temporary environments, and
//! the `# expect: <rule>` marker check.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hieralint::check::{self, CheckOptions};
use hieralint::diag::Diagnostic;

pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `check` on `path` with only `rule` enabled. The path is made relative to the crate root
/// so that rendered paths are stable in snapshots. A directory case with a `facts/` directory
/// is checked with those fact sets (`--facts <case>/facts`).
pub fn check_with_rule(path: &Path, rule: &'static str) -> Vec<Diagnostic> {
    let rel = path
        .strip_prefix(crate_root())
        .unwrap_or(path)
        .to_path_buf();
    std::env::set_current_dir(crate_root()).unwrap();
    let facts = if path.join("facts").is_dir() {
        vec![rel.join("facts")]
    } else {
        Vec::new()
    };
    check::check(&CheckOptions {
        paths: vec![rel],
        only: vec![rule],
        facts,
        ..CheckOptions::default()
    })
    .diagnostics
}

/// The cases of a rule: files and directories under fixtures/rules/<rule>/, sorted.
pub fn rule_cases(rule: &str) -> Vec<PathBuf> {
    let dir = crate_root().join("fixtures/rules").join(rule);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_str().unwrap().starts_with('.'))
        .collect();
    v.sort();
    v
}

/// Every `# expect: rule[, rule]` (and `# expect-next-line:`) marker under `case`: (file relative to the crate root, line, rule).
pub fn expect_markers(case: &Path) -> BTreeSet<(String, usize, String)> {
    let mut out = BTreeSet::new();
    let files: Vec<PathBuf> = if case.is_dir() {
        walkdir::WalkDir::new(case)
            .sort_by_file_name()
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .collect()
    } else {
        vec![case.to_path_buf()]
    };
    for f in files {
        // Lossy: a case may hold bytes that are not UTF-8 on purpose (its markers are ASCII).
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let rel = f
            .strip_prefix(crate_root())
            .unwrap_or(&f)
            .display()
            .to_string();
        // `# expect-next-line:` marks the line below, where no comment can go (the first
        // line of a block scalar's content).
        for (i, line) in text.lines().enumerate() {
            for (marker, line_no) in [("# expect:", i + 1), ("# expect-next-line:", i + 2)] {
                if let Some(pos) = line.find(marker) {
                    for r in line[pos + marker.len()..].split(',') {
                        // In a JSON file, which has no comments, the marker sits at the end of
                        // a string (`"summary": "# expect: module-not-loaded"`).
                        let r = r.trim().trim_end_matches('"');
                        if !r.is_empty() {
                            out.insert((rel.clone(), line_no, r.to_string()));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The (file, line, rule) of each diagnostic's primary label.
pub fn reported(diags: &[Diagnostic]) -> BTreeSet<(String, usize, String)> {
    diags
        .iter()
        .map(|d| {
            let lc = d.primary.file.line_col(d.primary.span.start as usize);
            (
                d.primary.file.path.display().to_string(),
                lc.line,
                d.rule.name.to_string(),
            )
        })
        .collect()
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "hieralint-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

//! Helpers for the integration-layer tests (suppressions, configuration, gate, formats): a
//! test-only rule with a fix and a secondary label, runs of the pipeline with it, and span
//! formatting for exact assertions.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use hieralint::diag::{Diagnostic, Fix};
use hieralint::project::{LoadedFile, Project};
use hieralint::rules::{Category, Rule, RuleMeta, Sink};
use hieralint::run::{self, RunOptions, RunResult};
use hieralint::settings;
use hieralint::value::{NodeKind, ScalarStyle};

/// H990 `test-bad-value`: every plain scalar value `BAD` (keys are not looked at), with a
/// secondary label on its key when it is a mapping value, and a fix that double-quotes it (the
/// same string).
pub static BAD_META: RuleMeta = RuleMeta {
    code: "H990",
    name: "test-bad-value",
    category: Category::Suspicious,
    summary: "a scalar value written `BAD` (test rule)",
    doc: "---\ncode: H990\nname: test-bad-value\ncategory: suspicious\n---\n# test-bad-value (H990)\n\n## What it does\nFlags `BAD`.\n\n## Why is this bad?\nTests.\n\n## Example\nnone\n\n## Options\n- `allow`: ignored\n\n## References\n- tests\n",
    suppressible: true,
};

pub struct BadValue;

impl Rule for BadValue {
    fn meta(&self) -> &'static RuleMeta {
        &BAD_META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        let Some(root) = &file.doc.root else { return };
        let mut stack = vec![(root, None)];
        while let Some((n, key)) = stack.pop() {
            match &n.kind {
                NodeKind::Scalar(s) if &*s.text == "BAD" && !s.style.is_quoted() => {
                    let mut d = Diagnostic::new(&BAD_META, &file.source, n.span, "value `BAD`")
                        .primary_message("here")
                        .with_fix(Fix {
                            span: n.span,
                            replacement: "\"BAD\"".to_string(),
                            title: "double-quote `BAD`".to_string(),
                        });
                    if let Some(k) = key {
                        d = d.label(&file.source, k, "in this entry");
                    }
                    sink.report(d);
                }
                NodeKind::Scalar(_) => {}
                NodeKind::Seq(items) => stack.extend(items.iter().map(|i| (i, None))),
                NodeKind::Map(m) => {
                    stack.extend(m.entries.iter().map(|e| (&e.value, Some(e.key.span))))
                }
            }
        }
    }
}

pub static BAD_VALUE: BadValue = BadValue;

/// H991 `test-double-quoted`: a double-quoted scalar without `\` or `'`, fixed by single-quoting
/// it (the same string). Fixing H990 creates H991 findings, so a run with both needs a second
/// round.
pub static GOOD_META: RuleMeta = RuleMeta {
    code: "H991",
    name: "test-double-quoted",
    category: Category::Style,
    summary: "a double-quoted scalar that needs no escapes (test rule)",
    doc: "---\ncode: H991\nname: test-double-quoted\ncategory: style\n---\n# test-double-quoted (H991)\n\n## What it does\nx\n\n## Why is this bad?\nx\n\n## Example\nx\n\n## Options\nNone.\n\n## References\n- tests\n",
    suppressible: true,
};

pub struct PlainGood;

impl Rule for PlainGood {
    fn meta(&self) -> &'static RuleMeta {
        &GOOD_META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        let Some(root) = &file.doc.root else { return };
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match &n.kind {
                NodeKind::Scalar(s)
                    if s.style == ScalarStyle::DoubleQuoted
                        && !s.text.contains(['\\', '\'', '\n']) =>
                {
                    sink.report(
                        Diagnostic::new(&GOOD_META, &file.source, n.span, "needless double quotes")
                            .with_fix(Fix {
                                span: n.span,
                                replacement: format!("'{}'", s.text),
                                title: "single-quote it".to_string(),
                            }),
                    );
                }
                NodeKind::Scalar(_) => {}
                NodeKind::Seq(items) => stack.extend(items.iter()),
                NodeKind::Map(m) => stack.extend(m.entries.iter().map(|e| &e.value)),
            }
        }
    }
}

/// H992 `test-wrong-fix`: a plain `on` (YAML 1.1 true), with a wrong fix that quotes it (the
/// string `on`): the fix machinery must refuse it.
pub static WRONG_META: RuleMeta = RuleMeta {
    code: "H992",
    name: "test-wrong-fix",
    category: Category::Style,
    summary: "a plain `on` (test rule with a fix that changes the data)",
    doc: "---\ncode: H992\nname: test-wrong-fix\ncategory: style\n---\n# test-wrong-fix (H992)\n\n## What it does\nx\n\n## Why is this bad?\nx\n\n## Example\nx\n\n## Options\nNone.\n\n## References\n- tests\n",
    suppressible: true,
};

pub struct WrongFix;

impl Rule for WrongFix {
    fn meta(&self) -> &'static RuleMeta {
        &WRONG_META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        let Some(root) = &file.doc.root else { return };
        let Some(m) = root.as_map() else { return };
        for e in &m.entries {
            if let NodeKind::Scalar(s) = &e.value.kind {
                if &*s.text == "on" && !s.style.is_quoted() {
                    sink.report(
                        Diagnostic::new(&WRONG_META, &file.source, e.value.span, "plain `on`")
                            .with_fix(Fix {
                                span: e.value.span,
                                replacement: "'on'".to_string(),
                                title: "quote `on`".to_string(),
                            }),
                    );
                }
            }
        }
    }
}

pub static WRONG_FIX: WrongFix = WrongFix;

pub static PLAIN_GOOD: PlainGood = PlainGood;

pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every test works from the crate root with relative paths (the lead's harness does the same,
/// so the process-wide current directory never disagrees between threads).
pub fn at_root() {
    std::env::set_current_dir(crate_root()).unwrap();
}

/// Run options for `paths` (relative to the crate root) with the test rule added and the
/// configuration found from the first path.
pub fn options(paths: &[&str]) -> RunOptions {
    at_root();
    let mut o = RunOptions::new(paths.iter().map(PathBuf::from).collect());
    o.registry = vec![&BAD_VALUE];
    o.registry
        .extend(hieralint::rules::registry().iter().copied());
    if let Some(cfg) = settings::find(Path::new(paths[0])) {
        let (s, d) = settings::load(&cfg, &o.known()).unwrap();
        o.settings = s;
        o.config_diagnostics = d;
    }
    o
}

pub fn run_paths(paths: &[&str]) -> RunResult {
    run::run(&options(paths))
}

/// `path:line:col-line:col code` of a diagnostic's primary label.
pub fn at(d: &Diagnostic) -> String {
    let s = d.primary.file.line_col(d.primary.span.start as usize);
    let e = d.primary.file.line_col(d.primary.span.end as usize);
    format!(
        "{}:{}:{}-{}:{} {}",
        d.primary.file.path.display(),
        s.line,
        s.column,
        e.line,
        e.column,
        d.rule.code
    )
}

pub fn all_at(diags: &[Diagnostic]) -> Vec<String> {
    diags.iter().map(at).collect()
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "hieralint-it-{tag}-{}-{}",
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

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.0.join(rel)).unwrap()
    }

    /// Copies a directory tree into this one.
    pub fn copy_from(&self, src: &Path) {
        for e in walkdir::WalkDir::new(src) {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(src).unwrap();
            let dst = self.0.join(rel);
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&dst).unwrap();
            } else {
                std::fs::copy(e.path(), &dst).unwrap();
            }
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The minimal v5 hiera.yaml used by fixtures.
pub const HIERA: &str = "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  - name: Common\n    path: common.yaml\n";

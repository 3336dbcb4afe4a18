//! Diagnostics: owned data until render time (selene's model).
//!
//! A [`Diagnostic`] names its rule by [`RuleMeta`](crate::rules::RuleMeta), carries a severity
//! (the rule's default unless configuration overrides it), a message, a primary [`Label`] and any
//! number of secondary labels, possibly in other files, and notes. Rendering (codespan, JSON,
//! SARIF...) happens once, on the main thread, after sorting.

use std::path::PathBuf;
use std::sync::Arc;

use crate::rules::RuleMeta;
use crate::span::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A location: a file of the run and a byte span in it.
#[derive(Clone, Debug)]
pub struct Label {
    pub file: Arc<SourceFile>,
    pub span: Span,
    pub message: String,
}

impl Label {
    pub fn new(file: &Arc<SourceFile>, span: Span) -> Label {
        Label {
            file: file.clone(),
            span,
            message: String::new(),
        }
    }

    pub fn with_message(mut self, m: impl Into<String>) -> Label {
        self.message = m.into();
        self
    }
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
    /// A fix that is certain to keep the looked-up value identical (integration issue: `--fix`).
    pub fix: Option<Fix>,
}

/// A text edit that fixes a diagnostic: replace `span` of the primary file with `replacement`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub span: Span,
    pub replacement: String,
    pub title: String,
}

impl Diagnostic {
    pub fn new(
        rule: &'static RuleMeta,
        file: &Arc<SourceFile>,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            rule,
            severity: rule.category.default_severity(),
            message: message.into(),
            primary: Label::new(file, span),
            secondary: Vec::new(),
            notes: Vec::new(),
            fix: None,
        }
    }

    pub fn primary_message(mut self, m: impl Into<String>) -> Diagnostic {
        self.primary.message = m.into();
        self
    }

    pub fn label(mut self, file: &Arc<SourceFile>, span: Span, m: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label::new(file, span).with_message(m));
        self
    }

    pub fn note(mut self, n: impl Into<String>) -> Diagnostic {
        self.notes.push(n.into());
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Diagnostic {
        self.fix = Some(fix);
        self
    }

    pub fn with_severity(mut self, s: Severity) -> Diagnostic {
        self.severity = s;
        self
    }

    pub fn path(&self) -> &PathBuf {
        &self.primary.file.path
    }

    /// The sort key of the output contract: file, line, column, code (then message, so that the
    /// order is total and output identical whatever the thread count).
    pub fn sort_key(&self) -> (PathBuf, u32, &'static str, String) {
        (
            self.primary.file.path.clone(),
            self.primary.span.start,
            self.rule.code,
            self.message.clone(),
        )
    }
}

/// Shows the files `shown` names (by the path the scan gave them) under the spelling it maps
/// them to, in every label: the scan keeps one spelling per file for the engine (hierarchy
/// paths are joined to the environment's spelling), and the user sees the one they typed
/// (`scan::Scan::respell`). Sort again afterwards: the order is by displayed path.
pub fn respell<'a>(
    diags: impl Iterator<Item = &'a mut Diagnostic>,
    shown: &std::collections::BTreeMap<PathBuf, PathBuf>,
) {
    if shown.is_empty() {
        return;
    }
    let mut made: std::collections::BTreeMap<PathBuf, Arc<SourceFile>> = Default::default();
    let mut fix = |label: &mut Label| {
        if let Some(to) = shown.get(&label.file.path) {
            let f = made
                .entry(label.file.path.clone())
                .or_insert_with(|| Arc::new(label.file.respelled(to)));
            label.file = f.clone();
        }
    };
    for d in diags {
        fix(&mut d.primary);
        d.secondary.iter_mut().for_each(&mut fix);
    }
}

/// Sorts diagnostics into the contract order and removes exact duplicates (the same finding
/// reached from two fact sets or two layers).
pub fn sort_and_dedup(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        a.primary
            .file
            .path
            .cmp(&b.primary.file.path)
            .then(a.primary.span.start.cmp(&b.primary.span.start))
            .then(a.rule.code.cmp(b.rule.code))
            .then(a.message.cmp(&b.message))
            .then(a.primary.span.end.cmp(&b.primary.span.end))
    });
    diags.dedup_by(|a, b| {
        a.rule.code == b.rule.code
            && a.primary.span == b.primary.span
            && a.primary.file.path == b.primary.file.path
            && a.message == b.message
    });
}

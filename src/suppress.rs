//! Inline suppressions: `# hieralint: <action>[<rule>, ...] <reason>` comments in data files
//! (house style §3.8), and the diagnostics about them (H901, H902, H904).
//!
//! Actions and what they cover (a rule is a name or a code, any case for codes; no brackets
//! means every rule):
//! - `ignore`, trailing (code before it on the line): the comment's line.
//! - `ignore` on its own line: the next YAML entry with its whole value subtree, that is the first
//!   mapping entry or sequence item that starts after the comment (selene and shellcheck scope a
//!   directive to the next node, not the next line).
//! - `disable` ... `enable`: from the start of the `disable` line through the `enable` line (or
//!   the end of the file), per rule.
//! - `ignore-file`: the whole file; it must come before the document's first content (H904).
//!
//! A diagnostic is covered when its primary label starts in the scope, in the same file. Rules
//! whose `RuleMeta.suppressible` is false (syntax errors, unreadable files, hieralint's own H9xx)
//! are never silenced.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::loader::{Comment, Document, LoadIssueKind};
use crate::project::Project;
use crate::rules::{self, RuleMeta};
use crate::span::{SourceFile, Span};
use crate::value::{Node, NodeKind};

/// What silenced a diagnostic.
#[derive(Clone, Debug)]
pub enum SuppressedBy {
    /// A `# hieralint:` directive; `span` is the whole comment.
    Inline {
        file: Arc<SourceFile>,
        span: Span,
        action: Action,
        reason: Option<String>,
    },
    /// A finding recorded in the `--baseline` file.
    Baseline,
}

/// A diagnostic that was silenced, kept for `--show-suppressed` and the summary count.
#[derive(Clone, Debug)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    pub by: SuppressedBy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Ignore,
    Disable,
    Enable,
    IgnoreFile,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Ignore => "ignore",
            Action::Disable => "disable",
            Action::Enable => "enable",
            Action::IgnoreFile => "ignore-file",
        }
    }

    fn parse(s: &str) -> Option<Action> {
        Some(match s {
            "ignore" => Action::Ignore,
            "disable" => Action::Disable,
            "enable" => Action::Enable,
            "ignore-file" => Action::IgnoreFile,
            _ => return None,
        })
    }
}

/// A rule named in a directive's brackets, with its span in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRef {
    pub text: String,
    pub span: Span,
}

/// A parsed directive: offsets are relative to the comment's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub action: Action,
    /// `None` when there are no brackets (every rule).
    pub rules: Option<Vec<RuleRef>>,
    pub reason: Option<String>,
}

/// Why a `# hieralint:` comment is not a directive: the span (relative to the comment) and the
/// message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub span: Span,
    pub message: String,
}

/// Parses one comment's text (with its `#` or `//` marker). `Ok(None)` when the comment is not
/// addressed to hieralint.
pub fn parse_directive(comment: &str) -> Result<Option<Parsed>, Malformed> {
    let body_at = if comment.starts_with('#') {
        1
    } else if comment.starts_with("//") {
        2
    } else {
        return Ok(None);
    };
    let after_marker = &comment[body_at..];
    let lead = after_marker.len() - after_marker.trim_start().len();
    let start = body_at + lead;
    let Some(rest) = comment[start..].strip_prefix("hieralint:") else {
        return Ok(None);
    };
    let mut pos = start + "hieralint:".len();
    pos += rest.len() - rest.trim_start().len();
    let action_len = comment[pos..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(comment.len() - pos);
    let word = &comment[pos..pos + action_len];
    let Some(action) = Action::parse(word) else {
        let span = if word.is_empty() {
            Span::new(start, comment.len())
        } else {
            Span::new(pos, pos + action_len)
        };
        return Err(Malformed {
            span,
            message: if word.is_empty() {
                "`hieralint:` comment without an action (ignore, disable, enable, ignore-file)"
                    .to_string()
            } else {
                format!(
                    "unknown suppression action `{word}` (expected ignore, disable, enable or ignore-file)"
                )
            },
        });
    };
    pos += action_len;
    let after_action = &comment[pos..];
    let ws = after_action.len() - after_action.trim_start().len();
    let mut rules = None;
    if after_action[ws..].starts_with('[') {
        let open = pos + ws;
        let Some(close_rel) = comment[open..].find(']') else {
            return Err(Malformed {
                span: Span::new(open, comment.len()),
                message: "unclosed `[` in suppression".to_string(),
            });
        };
        let close = open + close_rel;
        let mut list = Vec::new();
        let mut item_start = open + 1;
        for piece in comment[open + 1..close].split(',') {
            let trimmed = piece.trim();
            let off = item_start + (piece.len() - piece.trim_start().len());
            if trimmed.is_empty() {
                return Err(Malformed {
                    span: Span::new(open, close + 1),
                    message: "empty rule name in suppression brackets".to_string(),
                });
            }
            list.push(RuleRef {
                text: trimmed.to_string(),
                span: Span::new(off, off + trimmed.len()),
            });
            item_start += piece.len() + 1;
        }
        rules = Some(list);
        pos = close + 1;
    } else if ws == 0 && !after_action.is_empty() {
        // `ignore:x` or `ignore(x)`: not our grammar
        return Err(Malformed {
            span: Span::new(pos, comment.len()),
            message: format!("expected `[` or a space after `{}`", action.as_str()),
        });
    }
    let reason = comment[pos..].trim();
    Ok(Some(Parsed {
        action,
        rules,
        reason: (!reason.is_empty()).then(|| reason.to_string()),
    }))
}

/// A directive found in a file (spans absolute in the file).
#[derive(Clone, Debug)]
struct Directive {
    comment: Comment,
    action: Action,
    /// `None`: every rule. Each rule's meta is `None` when unknown or not suppressible.
    rules: Option<Vec<(RuleRef, Option<&'static RuleMeta>)>>,
    reason: Option<String>,
}

/// What one directive (or one rule of it) covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// A 0-based line.
    Line(usize),
    /// Byte offsets, both inclusive.
    Range(usize, usize),
    File,
}

/// One thing that can suppress: a directive's rule (or all rules), over a scope.
#[derive(Debug)]
struct Suppressor {
    directive: usize,
    /// Index into the directive's rules; `None` for a bracketless directive.
    rule_index: Option<usize>,
    /// The code it silences; `None` for all.
    code: Option<&'static str>,
    scope: Scope,
    used: bool,
}

impl Suppressor {
    fn covers(&self, file: &SourceFile, d: &Diagnostic) -> bool {
        if let Some(code) = self.code {
            if code != d.rule.code {
                return false;
            }
        }
        let at = d.primary.span.start as usize;
        match self.scope {
            Scope::Line(l) => file.line_index(at) == l,
            Scope::Range(s, e) => s <= at && at <= e,
            Scope::File => true,
        }
    }
}

/// What [`apply`] needs to know about the run.
pub struct Context<'a> {
    /// Every rule the run knows (for resolving names in brackets).
    pub known: &'a [&'static RuleMeta],
    /// Codes of the rules that ran: a directive naming another rule is not reported unused.
    pub enabled: &'a BTreeSet<&'static str>,
    /// Whether a bracketless directive that suppressed nothing is reported (false unless every
    /// suppressible rule ran: it may be meant for one that did not).
    pub check_blanket: bool,
}

/// The outcome of [`apply`].
#[derive(Default)]
pub struct Outcome {
    pub kept: Vec<Diagnostic>,
    pub suppressed: Vec<Suppressed>,
    /// H901, H902 and H904 diagnostics about the directives themselves.
    pub directive_diagnostics: Vec<Diagnostic>,
}

/// Finds a rule by name or code (codes in any case) among `known`.
pub fn resolve(known: &[&'static RuleMeta], name: &str) -> Option<&'static RuleMeta> {
    known
        .iter()
        .copied()
        .find(|m| m.name == name || m.code.eq_ignore_ascii_case(name))
}

/// The start and end (inclusive of the whole value subtree) of every mapping entry and sequence
/// item in a document, in start order (outermost first on ties). Alias expansions and `<<`
/// merged entries are not walked: their spans point back at the anchor, not at what follows the
/// comment. Iterative, so nesting depth cannot overflow the stack.
fn entry_extents(root: &Node) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack: Vec<&Node> = vec![root];
    while let Some(n) = stack.pop() {
        if n.from_alias {
            continue;
        }
        match &n.kind {
            NodeKind::Map(m) => {
                for e in &m.entries {
                    if e.merged {
                        continue;
                    }
                    let s = e.key.span.start.min(e.value.span.start) as usize;
                    let end = e.key.span.end.max(e.value.span.end) as usize;
                    out.push((s, end));
                    stack.push(&e.value);
                    stack.push(&e.key);
                }
            }
            NodeKind::Seq(items) => {
                for it in items {
                    out.push((it.span.start as usize, it.span.end as usize));
                    stack.push(it);
                }
            }
            NodeKind::Scalar(_) => {}
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    out
}

fn directive_diag(
    meta: &'static RuleMeta,
    file: &Arc<SourceFile>,
    span: Span,
    message: String,
) -> Diagnostic {
    Diagnostic::new(meta, file, span, message)
}

/// Everything about the directives of one file.
struct FileDirectives {
    file: Arc<SourceFile>,
    directives: Vec<Directive>,
    suppressors: Vec<Suppressor>,
    /// Skip unused-suppression checks (the file did not parse, so rules saw only part of it).
    broken: bool,
}

fn collect_file(
    file: &Arc<SourceFile>,
    doc: &Document,
    cx: &Context,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileDirectives> {
    let mut directives = Vec::new();
    for c in &doc.comments {
        let text = file.slice(c.span);
        match parse_directive(text) {
            Ok(None) => {}
            Ok(Some(p)) => {
                let base = c.span.start as usize;
                let rules = p.rules.map(|list| {
                    list.into_iter()
                        .map(|r| {
                            let abs = RuleRef {
                                span: Span::new(
                                    base + r.span.start as usize,
                                    base + r.span.end as usize,
                                ),
                                text: r.text,
                            };
                            let meta = match resolve(cx.known, &abs.text) {
                                Some(m) if m.suppressible => Some(m),
                                Some(m) => {
                                    diags.push(directive_diag(
                                        &rules::unknown_rule_in_suppression::META,
                                        file,
                                        abs.span,
                                        format!("`{}` ({}) cannot be suppressed", m.name, m.code),
                                    ));
                                    None
                                }
                                None => {
                                    let mut d = directive_diag(
                                        &rules::unknown_rule_in_suppression::META,
                                        file,
                                        abs.span,
                                        format!("unknown rule `{}` in suppression", abs.text),
                                    );
                                    if let Some(s) = suggest(cx.known, &abs.text) {
                                        d = d.note(format!("did you mean `{s}`?"));
                                    }
                                    diags.push(d);
                                    None
                                }
                            };
                            (abs, meta)
                        })
                        .collect()
                });
                directives.push(Directive {
                    comment: c.clone(),
                    action: p.action,
                    rules,
                    reason: p.reason,
                });
            }
            Err(m) => {
                let base = c.span.start as usize;
                diags.push(directive_diag(
                    &rules::misplaced_suppression::META,
                    file,
                    Span::new(base + m.span.start as usize, base + m.span.end as usize),
                    m.message,
                ));
            }
        }
    }
    if directives.is_empty() {
        return None;
    }
    let broken = doc.issues.iter().any(|i| i.kind == LoadIssueKind::Syntax);
    let mut suppressors = Vec::new();
    let mut extents: Option<Vec<(usize, usize)>> = None;
    // open `disable` ranges: code (None = all) -> (directive, rule index, start byte)
    let mut open: Vec<(Option<&'static str>, usize, Option<usize>, usize)> = Vec::new();
    let content_start = doc.root.as_ref().map(|r| r.span.start as usize);

    // the (code, rule index) pairs a directive applies to; unknown rules apply to nothing
    let targets = |d: &Directive| -> Vec<(Option<&'static str>, Option<usize>)> {
        match &d.rules {
            None => vec![(None, None)],
            Some(list) => list
                .iter()
                .enumerate()
                .filter_map(|(i, (_, m))| m.map(|m| (Some(m.code), Some(i))))
                .collect(),
        }
    };

    for (di, d) in directives.iter().enumerate() {
        let cstart = d.comment.span.start as usize;
        let cend = d.comment.span.end as usize;
        let line = file.line_index(cstart);
        match d.action {
            Action::Ignore => {
                let scope = if !d.comment.own_line {
                    Some(Scope::Line(line))
                } else {
                    let ex = extents.get_or_insert_with(|| {
                        doc.root.as_ref().map(entry_extents).unwrap_or_default()
                    });
                    let i = ex.partition_point(|&(s, _)| s < cend);
                    match ex.get(i) {
                        Some(&(s, e)) => Some(Scope::Range(file.line_start(file.line_index(s)), e)),
                        None => match &doc.root {
                            Some(r) if r.span.start as usize >= cend => Some(Scope::Range(
                                file.line_start(file.line_index(r.span.start as usize)),
                                r.span.end as usize,
                            )),
                            _ => None,
                        },
                    }
                };
                match scope {
                    Some(scope) => {
                        for (code, ri) in targets(d) {
                            suppressors.push(Suppressor {
                                directive: di,
                                rule_index: ri,
                                code,
                                scope,
                                used: false,
                            });
                        }
                    }
                    None => diags.push(directive_diag(
                        &rules::misplaced_suppression::META,
                        file,
                        d.comment.span,
                        "this `ignore` has no YAML entry after it to apply to".to_string(),
                    )),
                }
            }
            Action::IgnoreFile => {
                if content_start.is_some_and(|s| cstart > s) {
                    diags.push(
                        directive_diag(
                            &rules::misplaced_suppression::META,
                            file,
                            d.comment.span,
                            "`ignore-file` must come before the first content of the file"
                                .to_string(),
                        )
                        .note("move it to the top of the file, before `---` and the first key"),
                    );
                    continue;
                }
                for (code, ri) in targets(d) {
                    suppressors.push(Suppressor {
                        directive: di,
                        rule_index: ri,
                        code,
                        scope: Scope::File,
                        used: false,
                    });
                }
            }
            Action::Disable => {
                let start = file.line_start(line);
                for (code, ri) in targets(d) {
                    if let Some(&(_, prev, _, _)) = open.iter().find(|o| o.0 == code) {
                        let prev_line =
                            file.line_index(directives[prev].comment.span.start as usize) + 1;
                        let span = match (ri, &d.rules) {
                            (Some(i), Some(list)) => list[i].0.span,
                            _ => d.comment.span,
                        };
                        diags.push(directive_diag(
                            &rules::misplaced_suppression::META,
                            file,
                            span,
                            format!("already disabled by the `disable` on line {prev_line}"),
                        ));
                        continue;
                    }
                    open.push((code, di, ri, start));
                }
            }
            Action::Enable => {
                let end = file.line_start(line + 1).saturating_sub(1).max(cstart);
                let mut close = |code: Option<&'static str>| -> bool {
                    let before = open.len();
                    let mut closed = Vec::new();
                    open.retain(|o| {
                        if code.is_none() || o.0 == code {
                            closed.push(*o);
                            false
                        } else {
                            true
                        }
                    });
                    for (c, odi, ori, s) in closed {
                        suppressors.push(Suppressor {
                            directive: odi,
                            rule_index: ori,
                            code: c,
                            scope: Scope::Range(s, end),
                            used: false,
                        });
                    }
                    open.len() != before
                };
                match &d.rules {
                    None => {
                        if !close(None) {
                            diags.push(directive_diag(
                                &rules::misplaced_suppression::META,
                                file,
                                d.comment.span,
                                "`enable` without a `disable` before it".to_string(),
                            ));
                        }
                    }
                    Some(list) => {
                        for (r, m) in list {
                            let Some(m) = m else { continue };
                            if !close(Some(m.code)) {
                                diags.push(directive_diag(
                                    &rules::misplaced_suppression::META,
                                    file,
                                    r.span,
                                    format!(
                                        "`enable[{}]` without a matching `disable` before it",
                                        r.text
                                    ),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    // ranges left open run to the end of the file
    for (code, di, ri, s) in open {
        suppressors.push(Suppressor {
            directive: di,
            rule_index: ri,
            code,
            scope: Scope::Range(s, file.text().len()),
            used: false,
        });
    }
    Some(FileDirectives {
        file: file.clone(),
        directives,
        suppressors,
        broken,
    })
}

/// The closest known rule name, for "did you mean".
pub fn suggest(known: &[&'static RuleMeta], name: &str) -> Option<&'static str> {
    known
        .iter()
        .map(|m| (strsim::jaro_winkler(name, m.name), m.name))
        .filter(|(s, _)| *s > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// Applies the directives of every file of `project` to `diags`.
pub fn apply(project: &Project, diags: Vec<Diagnostic>, cx: &Context) -> Outcome {
    let mut out = Outcome::default();
    let mut files: Vec<FileDirectives> = Vec::new();
    let mut by_path: HashMap<&std::path::Path, usize> = HashMap::new();
    // Every file's comments, in parallel (serial, reading 15k files' comment lists was 2 ms at
    // the end of a run), then taken in file order: the same result whatever the thread count.
    let collected: Vec<(Option<FileDirectives>, Vec<Diagnostic>)> = {
        use rayon::prelude::*;
        project
            .files
            .par_iter()
            .map(|f| {
                let mut diags = Vec::new();
                let fd = collect_file(&f.source, &f.doc, cx, &mut diags);
                (fd, diags)
            })
            .collect()
    };
    for (f, (fd, diags)) in project.files.iter().zip(collected) {
        out.directive_diagnostics.extend(diags);
        if let Some(fd) = fd {
            by_path.insert(f.source.path.as_path(), files.len());
            files.push(fd);
        }
    }
    for d in diags {
        let fi = if d.rule.suppressible {
            by_path.get(d.primary.file.path.as_path()).copied()
        } else {
            None
        };
        let Some(fi) = fi else {
            out.kept.push(d);
            continue;
        };
        let fd = &mut files[fi];
        let mut by: Option<usize> = None;
        for (si, s) in fd.suppressors.iter_mut().enumerate() {
            if s.covers(&fd.file, &d) {
                s.used = true;
                by.get_or_insert(si);
            }
        }
        match by {
            Some(si) => {
                let dir = &fd.directives[fd.suppressors[si].directive];
                out.suppressed.push(Suppressed {
                    diagnostic: d,
                    by: SuppressedBy::Inline {
                        file: fd.file.clone(),
                        span: dir.comment.span,
                        action: dir.action,
                        reason: dir.reason.clone(),
                    },
                });
            }
            None => out.kept.push(d),
        }
    }
    // unused directives
    for fd in &files {
        if fd.broken {
            continue;
        }
        // a directive's rule is used when any of its suppressors (one per scope) was
        let mut used: BTreeSet<(usize, Option<usize>)> = BTreeSet::new();
        let mut present: BTreeSet<(usize, Option<usize>)> = BTreeSet::new();
        for s in &fd.suppressors {
            present.insert((s.directive, s.rule_index));
            if s.used {
                used.insert((s.directive, s.rule_index));
            }
        }
        for key @ (di, ri) in present {
            if used.contains(&key) {
                continue;
            }
            let dir = &fd.directives[di];
            match (ri, &dir.rules) {
                (Some(i), Some(list)) => {
                    let (r, m) = &list[i];
                    let Some(m) = m else { continue };
                    if !cx.enabled.contains(m.code) {
                        continue;
                    }
                    out.directive_diagnostics.push(
                        directive_diag(
                            &rules::unused_suppression::META,
                            &fd.file,
                            r.span,
                            format!("unused suppression: `{}` is not reported here", m.name),
                        )
                        .primary_message("nothing to suppress"),
                    );
                }
                _ => {
                    if !cx.check_blanket {
                        continue;
                    }
                    out.directive_diagnostics.push(
                        directive_diag(
                            &rules::unused_suppression::META,
                            &fd.file,
                            dir.comment.span,
                            format!(
                                "unused suppression: this `{}` suppresses nothing",
                                dir.action.as_str()
                            ),
                        )
                        .primary_message("nothing to suppress"),
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Parsed {
        parse_directive(s).unwrap().unwrap()
    }

    #[test]
    fn parses_each_form() {
        let d = p("# hieralint: ignore[duplicate-key, H004] kept for Puppet 6");
        assert_eq!(d.action, Action::Ignore);
        let rules = d.rules.unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].text, "duplicate-key");
        assert_eq!(rules[0].span, Span::new(20, 33));
        assert_eq!(rules[1].text, "H004");
        assert_eq!(rules[1].span, Span::new(35, 39));
        assert_eq!(d.reason.as_deref(), Some("kept for Puppet 6"));

        let d = p("#hieralint:disable");
        assert_eq!(d.action, Action::Disable);
        assert!(d.rules.is_none());
        assert!(d.reason.is_none());

        let d = p("// hieralint: ignore-file [legacy-fact]");
        assert_eq!(d.action, Action::IgnoreFile);
        assert_eq!(d.rules.unwrap()[0].span, Span::new(27, 38));

        let d = p("# hieralint: enable because");
        assert_eq!(d.action, Action::Enable);
        assert_eq!(d.reason.as_deref(), Some("because"));
    }

    #[test]
    fn other_comments_are_not_directives() {
        assert_eq!(parse_directive("# just a comment"), Ok(None));
        assert_eq!(parse_directive("# yamllint disable-line"), Ok(None));
        assert_eq!(parse_directive("# see hieralint: docs"), Ok(None));
    }

    #[test]
    fn malformed_directives_are_located() {
        let e = parse_directive("# hieralint: ignroe[x]").unwrap_err();
        assert_eq!(e.span, Span::new(13, 19));
        assert!(e.message.contains("ignroe"));
        let e = parse_directive("# hieralint: ignore[x").unwrap_err();
        assert_eq!(e.span, Span::new(19, 21));
        let e = parse_directive("# hieralint: ignore[a,,b]").unwrap_err();
        assert!(e.message.contains("empty"));
        let e = parse_directive("# hieralint:").unwrap_err();
        assert!(e.message.contains("without an action"));
        let e = parse_directive("# hieralint: ignore:x").unwrap_err();
        assert_eq!(e.span, Span::new(19, 21));
    }
}

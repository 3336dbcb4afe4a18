//! Substitution resolution with ruby-hocon 1.3.1's results (`resolve_context.rb`,
//! `resolve_source.rb`, `config_reference.rb`, `config_delayed_merge.rb`).
//!
//! This is not a line-by-line port of Ruby's resolver, but it follows the same rules:
//! * a reference is looked up in the whole document, resolving only what lies on its path;
//! * a value set several times is a merge stack; while one of its entries is resolved, a
//!   reference to its own path sees the merge of the older entries (how `a += 1` and
//!   `path = ${path}":x"` see the previous value) — Ruby's `replace_within_current_parent`;
//! * a reference met again while it is being resolved is a cycle: an optional reference then
//!   gives nothing, a required one fails with `<ref> was part of a cycle of substitutions
//!   involving <references being resolved>` (Ruby's trace);
//! * every entry of a merge stack is resolved, even the ones a newer scalar hides (so their
//!   errors surface, as in Ruby);
//! * errors inside a list become `unexpected exception` (`simple_config_list.rb` wraps them);
//! * a reference missing from the document falls back, in Ruby, to the Puppet server's
//!   environment variables: we cannot know those, so the value is left out with an
//!   [`LoadIssueKind::Unmodelled`] issue.

use std::borrow::Cow;
use std::collections::HashMap;

use super::parser::Fail;
use super::value::{consolidate, Obj, Subst, HV, K};
use crate::loader::{LoadIssue, LoadIssueKind};

/// Resolution stops beyond this many nested resolutions (references inside references...).
const MAX_DEPTH: usize = 400;
/// The deepest value resolution may build (substituting objects into objects adds depth).
pub(super) const MAX_VALUE_DEPTH: u32 = 512;

pub(super) enum RErr {
    /// Ruby's NotPossibleToResolve: a cycle, with the trace of references being resolved.
    NotPossible(String),
    Fail(Fail),
}

impl From<Fail> for RErr {
    fn from(f: Fail) -> RErr {
        RErr::Fail(f)
    }
}

type R<T> = Result<T, RErr>;

/// How big a resolved value may get (nodes, string bytes; see `HV::nodes`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    pub nodes: u64,
    pub bytes: u64,
}

pub(super) struct Resolver<'a> {
    root: &'a HV,
    budget: Budget,
    /// Paths whose value is replaced while an entry of their merge stack is resolved (`None`:
    /// nothing older, the path is then undefined).
    replacements: Vec<(Vec<String>, Option<HV>)>,
    /// References being resolved (Ruby's cycle markers, by identity).
    markers: Vec<Subst>,
    /// Renders of the references on the resolve stack (Ruby's trace).
    trace: Vec<String>,
    /// Values of root paths resolved without replacements.
    memo: HashMap<Vec<String>, Option<HV>>,
    depth: usize,
    /// Resolutions made so far (see [`Resolver::resolve`]).
    steps: u64,
    pub issues: Vec<LoadIssue>,
}

impl<'a> Resolver<'a> {
    pub fn new(root: &'a HV, budget: Budget) -> Resolver<'a> {
        Resolver {
            root,
            budget,
            replacements: Vec::new(),
            markers: Vec::new(),
            trace: Vec::new(),
            memo: HashMap::new(),
            depth: 0,
            steps: 0,
            issues: Vec::new(),
        }
    }

    /// Resolves the whole document.
    pub fn resolve_root(&mut self) -> Result<HV, Fail> {
        match self.resolve(self.root, Some(&[]), true) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Ok(HV::new(K::Obj(Obj::default()), self.root.span, 1)),
            Err(RErr::Fail(f)) => Err(f),
            // A cycle always meets a reference on its way up, which turns it into a failure.
            Err(RErr::NotPossible(trace)) => Err(Fail::Config {
                message: format!("Could not resolve substitution: cycle {trace}"),
                span: self.root.span,
            }),
        }
    }

    /// Resolves `v`, which sits at `path` in the document (`None` inside a list). `pristine`
    /// says `v` is the document's own value there (so its resolution can be remembered).
    fn resolve(&mut self, v: &HV, path: Option<&[String]>, pristine: bool) -> R<Option<HV>> {
        if v.resolved {
            return Ok(Some(v.clone()));
        }
        // Work, not only size: a path set by `a += ${a} [1]` again and again resolves each
        // entry of its merge stack with the older entries as `${a}`, and those again (no memo
        // applies while a replacement is in force), so n such lines take 2^n resolutions of
        // small values (found by fuzzing, tests/hostile.rs `fuzz_hocon_self_append_chain`).
        // Every resolution counts against the node budget.
        self.steps += 1;
        if self.steps > self.budget.nodes {
            return Err(RErr::Fail(Fail::Limit {
                span: v.span,
                message: format!(
                    "substitutions take more than {} resolution steps (limit \
                     `max_expanded_nodes` plus the file's size); hieralint stops here",
                    self.budget.nodes
                ),
            }));
        }
        if self.depth >= MAX_DEPTH {
            return Err(RErr::Fail(Fail::TooDeep {
                span: v.span,
                what: "substitutions nested deeper than 400 levels",
            }));
        }
        self.depth += 1;
        let r = self.resolve_inner(v, path, pristine);
        self.depth -= 1;
        if let Ok(Some(hv)) = &r {
            self.within_budget(hv, v)?;
        }
        r
    }

    /// Substitutions copy values, so a chain `b = ${a}${a}`, `c = ${b}${b}`... doubles per
    /// line (ruby-hocon builds the same 2^n value, and runs out of memory): stop once a value
    /// is bigger than the file plus the configured allowance.
    fn within_budget(&self, hv: &HV, at: &HV) -> R<()> {
        let (nodes, bytes) = (self.budget.nodes, self.budget.bytes);
        let message = if hv.nodes > nodes {
            format!(
                "substitutions build a value of more than {nodes} nodes (limit \
                 `max_expanded_nodes` plus the file's size); hieralint stops here"
            )
        } else if hv.bytes > bytes {
            format!(
                "substitutions build a value holding more than {bytes} bytes of strings (limit \
                 `max_interpolated_bytes` plus the file's size); hieralint stops here"
            )
        } else {
            return Ok(());
        };
        Err(RErr::Fail(Fail::Limit {
            span: at.span,
            message,
        }))
    }

    fn resolve_inner(&mut self, v: &HV, path: Option<&[String]>, pristine: bool) -> R<Option<HV>> {
        match &v.kind {
            K::Obj(o) => {
                let mut out = Obj {
                    fields: Default::default(),
                    ignores_fallbacks: o.ignores_fallbacks,
                };
                for (k, e) in &o.fields {
                    let child_path = path.map(|p| {
                        let mut c = p.to_vec();
                        c.push(k.clone());
                        c
                    });
                    let r = match &child_path {
                        // Resolved values need no memo (a lookup copies them from the root).
                        Some(cp)
                            if pristine && self.replacements.is_empty() && !e.value.resolved =>
                        {
                            self.resolve_memo(&e.value, cp)?
                        }
                        _ => self.resolve(&e.value, child_path.as_deref(), false)?,
                    };
                    if let Some(r) = r {
                        out.fields.insert(
                            k.clone(),
                            super::value::Entry {
                                key_span: e.key_span,
                                value: r,
                            },
                        );
                    }
                }
                let mut hv = HV::new(K::Obj(out), v.span, v.lines.0);
                hv.lines = v.lines;
                if hv.depth > MAX_VALUE_DEPTH {
                    return Err(RErr::Fail(Fail::TooDeep {
                        span: v.span,
                        what: "a value nested deeper than 512 levels once substituted",
                    }));
                }
                Ok(Some(hv))
            }
            K::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match self.resolve(item, None, false) {
                        Ok(Some(r)) => out.push(r),
                        Ok(None) => {}
                        Err(RErr::NotPossible(t)) => return Err(RErr::NotPossible(t)),
                        // simple_config_list.rb: any ConfigError becomes a bug error without
                        // origin (recorded: `a = [${nope}]` fails with "unexpected exception").
                        Err(RErr::Fail(Fail::Config { span, .. })) => {
                            return Err(RErr::Fail(Fail::Config {
                                message: "unexpected exception".into(),
                                span,
                            }))
                        }
                        Err(e) => return Err(e),
                    }
                }
                let mut hv = HV::new(K::List(out), v.span, v.lines.0);
                hv.lines = v.lines;
                if hv.depth > MAX_VALUE_DEPTH {
                    return Err(RErr::Fail(Fail::TooDeep {
                        span: v.span,
                        what: "a value nested deeper than 512 levels once substituted",
                    }));
                }
                Ok(Some(hv))
            }
            K::Ref(s) => self.resolve_ref(s, v),
            K::Concat(pieces) => {
                let mut resolved = Vec::with_capacity(pieces.len());
                for p in pieces {
                    if let Some(r) = self.resolve(p, path, false)? {
                        resolved.push(r);
                    }
                }
                let mut joined = consolidate(resolved)?;
                let one = joined.pop().filter(|_| joined.is_empty());
                // The result is spanned by the concatenation as written (its pieces may come
                // from anywhere in the file).
                Ok(one.map(|r| HV { span: v.span, ..r }))
            }
            K::Merge(stack) => self.resolve_merge(stack, path),
            _ => Ok(Some(v.clone())),
        }
    }

    /// A root path's value, resolved once.
    fn resolve_memo(&mut self, v: &HV, path: &[String]) -> R<Option<HV>> {
        if let Some(r) = self.memo.get(path) {
            return Ok(r.clone());
        }
        let r = self.resolve(v, Some(path), true)?;
        self.memo.insert(path.to_vec(), r.clone());
        Ok(r)
    }

    fn resolve_ref(&mut self, s: &Subst, at: &HV) -> R<Option<HV>> {
        self.trace.push(s.render.clone());
        if self.markers.iter().any(|m| m.id == s.id) {
            let trace = self.trace.join(", ");
            self.trace.pop();
            return Err(RErr::NotPossible(trace));
        }
        self.markers.push(s.clone());
        let found = self.lookup(&s.path);
        self.markers.pop();
        self.trace.pop();
        match found {
            Err(RErr::NotPossible(trace)) => {
                if s.optional {
                    Ok(None)
                } else {
                    Err(RErr::Fail(Fail::Config {
                        message: format!(
                            "String: {}: Could not resolve substitution to a value: {} was part \
                             of a cycle of substitutions involving {trace}",
                            s.line, s.render
                        ),
                        span: at.span,
                    }))
                }
            }
            Err(e) => Err(e),
            Ok(Some(v)) => Ok(Some(v)),
            Ok(None) => {
                if s.path.len() == 1 {
                    // Ruby then looks for an environment variable of that name in the Puppet
                    // server's process. We cannot know it and answer as if it were unset.
                    self.issues.push(LoadIssue {
                        kind: LoadIssueKind::Unmodelled,
                        span: at.span,
                        message: format!(
                            "{} is not set in this file: ruby-hocon then uses the Puppet server's \
                             environment variable {} if it exists; hieralint assumes it does not",
                            s.render, s.path[0]
                        ),
                    });
                }
                if s.optional {
                    Ok(None)
                } else {
                    Err(RErr::Fail(Fail::Config {
                        message: format!(
                            "String: {}: Could not resolve substitution to a value: {}",
                            s.line, s.render
                        ),
                        span: at.span,
                    }))
                }
            }
        }
    }
    fn replacement(&self, path: &[String]) -> Option<&Option<HV>> {
        self.replacements
            .iter()
            .rev()
            .find(|(p, _)| p.as_slice() == path)
            .map(|(_, v)| v)
    }

    /// The resolved value at `path` in the document, resolving only what lies on the way.
    fn lookup(&mut self, path: &[String]) -> R<Option<HV>> {
        let root: &'a HV = self.root;
        let mut cur: Cow<'a, HV> = Cow::Borrowed(root);
        // True while `cur` is the document's own (unreplaced, unresolved) value at the prefix.
        let mut pristine = true;
        for (i, key) in path.iter().enumerate() {
            let prefix = &path[..i];
            if cur.is_unmergeable() {
                match self.resolve(&cur, Some(prefix), false)? {
                    Some(r) => cur = Cow::Owned(r),
                    None => return Ok(None),
                }
                pristine = false;
            }
            let here = &path[..=i];
            if let Some(rep) = self.replacement(here) {
                pristine = false;
                match rep.clone() {
                    Some(v) => cur = Cow::Owned(v),
                    None => return Ok(None),
                }
                continue;
            }
            cur = match cur {
                Cow::Borrowed(b) => match &b.kind {
                    K::Obj(o) => match o.fields.get(key) {
                        Some(e) => Cow::Borrowed(&e.value),
                        None => return Ok(None),
                    },
                    _ => return Ok(None),
                },
                Cow::Owned(o) => match o.kind {
                    K::Obj(mut obj) => match obj.fields.swap_remove(key) {
                        Some(e) => Cow::Owned(e.value),
                        None => return Ok(None),
                    },
                    _ => return Ok(None),
                },
            };
        }
        if pristine && self.replacements.is_empty() {
            self.resolve_memo(&cur, path)
        } else {
            self.resolve(&cur, Some(path), false)
        }
    }

    /// A delayed merge: every entry resolved (unmergeable ones with their path replaced by the
    /// older entries), then merged newest first.
    fn resolve_merge(&mut self, stack: &[HV], path: Option<&[String]>) -> R<Option<HV>> {
        let mut merged: Option<HV> = None;
        for (i, end) in stack.iter().enumerate() {
            let r = match path {
                Some(p) if end.is_unmergeable() => {
                    let remainder = make_replacement(&stack[i + 1..]);
                    self.replacements.push((p.to_vec(), remainder));
                    let r = self.resolve(end, Some(p), false);
                    self.replacements.pop();
                    r?
                }
                _ => self.resolve(end, path, false)?,
            };
            if let Some(r) = r {
                merged = Some(match merged {
                    None => r,
                    Some(m) => m.with_fallback(r, &mut None),
                });
            }
        }
        Ok(merged)
    }
}

/// `ConfigDelayedMerge.make_replacement`: the older entries merged (unresolved).
fn make_replacement(rest: &[HV]) -> Option<HV> {
    let mut it = rest.iter().cloned();
    let first = it.next()?;
    Some(it.fold(first, |m, v| m.with_fallback(v, &mut None)))
}

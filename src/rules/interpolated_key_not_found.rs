//! H204 `interpolated-key-not-found`: `%{lookup('k')}`, `hiera` or `alias` of a key that has no
//! value, which Puppet silently turns into an empty string.

use crate::engine::vfs::FastMap as HashMap;
use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::analysis::{union_ascending, EnvAnalysis};
use crate::diag::Diagnostic;
use crate::engine::{LookupRequest, LookupResult, Session};
use crate::interp::{split_key, Method, Segment};
use crate::project::{LoadedFile, Project};
use crate::rules::interp_sites::edit_distance;
use crate::rules::{Rule, RuleMeta, Sink};
use crate::span::Span;

crate::declare_rule!(pub static META = {
    code: "H204",
    name: "interpolated-key-not-found",
    category: Suspicious,
    summary: "a `lookup`, `hiera` or `alias` interpolation of a key that has no value",
});

pub struct InterpolatedKeyNotFound;

/// A `lookup`/`hiera`/`alias` token in a data file.
struct KeyToken<'a> {
    file: &'a LoadedFile,
    span: Span,
    text: String,
    method: Method,
    key: String,
}

/// A key's shared lookup: the key, the groups sharing it that miss it, the groups that look
/// it up on their own, and the limit hieralint stopped the lookup at, if any.
type SharedAnswer<'k> = (&'k str, Vec<usize>, Vec<usize>, Option<String>);

fn key_tokens<'a>(project: &'a Project, env: &EnvAnalysis, sink: &Sink) -> Vec<KeyToken<'a>> {
    let mut out = Vec::new();
    for (i, file) in project.files.iter().enumerate() {
        if file.env_root.as_deref() != Some(env.root.as_path()) {
            continue;
        }
        for site in sink.file_sites(i, file).iter() {
            if site.copied {
                continue;
            }
            for t in site.tokens() {
                let (Some(method), Some(key)) = (t.method(), t.lookup_key()) else {
                    continue;
                };
                // A key Puppet cannot parse is `interpolation-syntax-error` (H201).
                if split_key(key).is_err() {
                    continue;
                }
                out.push(KeyToken {
                    file,
                    span: site.span_of(&file.source, t.range.clone()),
                    text: site.value[t.range.clone()].to_string(),
                    method,
                    key: key.to_string(),
                });
            }
        }
    }
    out
}

/// Lookups hieralint stopped at one of its bounds (`max_lookup_depth`, `max_sub_lookups`,
/// `max_interpolated_bytes`: a chain of a thousand keys each interpolating the next): H008
/// at the first such token of each file, with the count of the others. Without it they failed
/// silently: the rules that look keys up pass over failed lookups (docs/limits.md; the
/// contract is a diagnostic for every limit hit, never a silent truncation).
fn stopped_at_limits(tokens: &[KeyToken], limited: &BTreeMap<&str, String>, sink: &mut Sink) {
    if limited.is_empty() {
        return;
    }
    // tokens come file by file
    let mut firsts: Vec<(&KeyToken, &str, usize)> = Vec::new();
    for t in tokens {
        let Some(message) = limited.get(t.key.as_str()) else {
            continue;
        };
        match firsts.last_mut() {
            Some((first, _, n)) if std::ptr::eq(first.file, t.file) => *n += 1,
            _ => firsts.push((t, message.as_str(), 0)),
        }
    }
    for (t, what, more) in firsts {
        let others = match more {
            0 => String::new(),
            1 => " (1 more lookup in this file stopped at a limit)".to_string(),
            n => format!(" ({n} more lookups in this file stopped at a limit)"),
        };
        sink.report(crate::rules::unreadable_file::limit_hit(
            &t.file.source,
            t.span,
            format!(
                "`{}`: hieralint stopped evaluating this lookup: {what}",
                t.text
            ),
            &format!("the rules that look keys up do not check a lookup hieralint stopped{others}"),
        ));
    }
}

/// The root key of a lookup key (`a.b` → `a`).
fn root_of(key: &str) -> Option<String> {
    match split_key(key).ok()?.into_iter().next()? {
        Segment::Str(s) => Some(s),
        Segment::Int(_) => None,
    }
}

/// "Did you mean" candidates: defined keys bucketed by namespace (what precedes the last
/// `::`) and length, so that a missing key is compared with few keys, not all of them.
struct Suggestions<'a> {
    buckets: HashMap<(&'a str, usize), Vec<&'a str>>,
}

impl<'a> Suggestions<'a> {
    fn empty() -> Suggestions<'a> {
        Suggestions {
            buckets: HashMap::default(),
        }
    }

    /// Files `k` (each key once).
    fn add(&mut self, k: &'a str) {
        self.buckets
            .entry((namespace(k), k.chars().count()))
            .or_default()
            .push(k);
    }

    /// Each bucket in key order: `closest` stops after a budget of comparisons, so which keys
    /// it sees first must not depend on hashing.
    fn sort(&mut self) {
        for b in self.buckets.values_mut() {
            b.sort_unstable();
        }
    }

    /// A defined key in the same namespace within two edits (and at most a third of the
    /// name), if any.
    fn closest(&self, key: &str) -> Option<&'a str> {
        const BUDGET: usize = 2000;
        let len = key.chars().count();
        let max = 2.min(len / 3 + 1);
        let ns = namespace(key);
        let mut best: Option<(usize, &str)> = None;
        let mut compared = 0usize;
        for l in len.saturating_sub(max)..=len + max {
            for &cand in self.buckets.get(&(ns, l)).into_iter().flatten() {
                compared += 1;
                if compared > BUDGET {
                    return best.map(|(_, k)| k);
                }
                let d = edit_distance(key, cand);
                if d <= max && best.is_none_or(|(bd, bk)| (d, cand) < (bd, bk)) {
                    best = Some((d, cand));
                }
            }
        }
        best.map(|(_, k)| k)
    }
}

fn namespace(key: &str) -> &str {
    key.rsplit_once("::").map_or("", |(ns, _)| ns)
}

/// Every root key defined in the environment's data, with where (the first definition). Keys
/// are borrowed and hashed: a sorted map of copied keys was most of this rule's own time (one
/// entry per root key of every data file), and nothing iterates it in order.
///
/// With them, the [`Suggestions`] among them, filed in the same pass: each key is read while
/// it is in the cache (a second pass over the map read 180,000 keys again at 15k files, long
/// out of it).
fn definitions<'a>(
    project: &'a Project,
    env: &EnvAnalysis,
) -> (
    crate::engine::vfs::FastMap<&'a str, (&'a LoadedFile, Span)>,
    Suggestions<'a>,
) {
    let mut out = crate::engine::vfs::FastMap::default();
    let mut suggest = Suggestions::empty();
    for file in &project.files {
        if file.env_root.as_deref() != Some(env.root.as_path())
            || file.role != crate::project::FileRole::Data
        {
            continue;
        }
        let Some(m) = file.doc.root.as_ref().and_then(|r| r.as_map()) else {
            continue;
        };
        for e in &m.entries {
            if let Some(k) = e.key.as_str() {
                if let std::collections::hash_map::Entry::Vacant(v) = out.entry(k) {
                    v.insert((file, e.key.span));
                    suggest.add(k);
                }
            }
        }
    }
    suggest.sort();
    (out, suggest)
}

/// Whether group `g`'s data defines root key `k` in a layer a lookup of it consults: then the
/// key is found (or fails for another reason), and no lookup is needed, which would interpolate
/// its value and everything that value looks up. Keys with dots or quotes are looked up.
fn defined(env: &EnvAnalysis, session: &Session, g: usize, k: &str) -> bool {
    !k.contains(['.', '\'', '"']) && session.visibly_defined_in(&env.groups[g].hierarchy, &[k])[0]
}

impl Rule for InterpolatedKeyNotFound {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn needs_analysis(&self) -> bool {
        true
    }

    /// Among the longest project phases: a lookup per interpolated key, shared or per group.
    fn project_cost(&self) -> u8 {
        2
    }

    fn needs_shared_lookups(&self) -> bool {
        true
    }

    fn reads_interpolations(&self) -> bool {
        true
    }

    fn check_project(&self, project: &Project, sink: &mut Sink) {
        let analysis = project.analysis();
        for env in &analysis.envs {
            let tokens = key_tokens(project, env, sink);
            if tokens.is_empty() {
                continue;
            }
            let index = env.read_index();
            // The groups that evaluate each token: those whose hierarchies read its file.
            let token_groups: Vec<&[usize]> = tokens
                .iter()
                .map(|t| index.groups_reading(&t.file.source.path))
                .collect();
            // The groups that evaluate each key (over every token that looks it up). Tokens of
            // one file read by the same groups: each key takes a file's readers once (common
            // data is read by every group, and a key it looks up from many places made lists of
            // every group again and again); the lists are merged below (`union_ascending`).
            let mut key_groups: BTreeMap<&str, Vec<&[usize]>> = BTreeMap::new();
            let mut seen: crate::engine::vfs::FastSet<(&str, *const LoadedFile)> =
                Default::default();
            for (t, gs) in tokens.iter().zip(&token_groups) {
                if seen.insert((t.key.as_str(), t.file as *const LoadedFile)) {
                    key_groups.entry(t.key.as_str()).or_default().push(gs);
                }
            }
            let n_groups = env.groups.len();
            // The groups in which each key has no value: one lookup for the groups whose data
            // cannot answer differently (`EnvAnalysis::lookup_shared`), then the others in a
            // session per group.
            let shared: Vec<SharedAnswer> = key_groups
                .into_par_iter()
                .map_init(
                    || env.reference_session(),
                    |reference, (k, lists)| {
                        let groups = union_ascending(&lists, n_groups);
                        if groups.is_empty() {
                            return (k, Vec::new(), Vec::new(), None);
                        }
                        // `Lookup.lookup(key, nil, '', true, nil, ...)`: the key's own
                        // lookup_options apply; not found gives the default ''.
                        let s = env.lookup_shared(reference, &groups, &LookupRequest::new(k));
                        // hieralint stopped this lookup at one of its bounds (docs/limits.md)
                        let limit = match &s.outcome.result {
                            LookupResult::Error(e) if !s.sharing.is_empty() => e.limit.clone(),
                            _ => None,
                        };
                        let missing = match s.sharing.first() {
                            Some(&first)
                                if !defined(env, reference, first, k)
                                    && matches!(s.outcome.result, LookupResult::NotFound) =>
                            {
                                s.sharing
                            }
                            _ => Vec::new(),
                        };
                        (k, missing, s.others, limit)
                    },
                )
                .collect();
            let limited: BTreeMap<&str, String> = shared
                .iter()
                .filter_map(|(k, _, _, l)| l.clone().map(|m| (*k, m)))
                .collect();
            stopped_at_limits(&tokens, &limited, sink);
            let mut own: Vec<Vec<&str>> = vec![Vec::new(); env.groups.len()];
            for (k, _, others, _) in &shared {
                for &g in others {
                    own[g].push(k);
                }
            }
            let own_missing = env.in_own_sessions(None, own, |g, session, keys| {
                keys.into_iter()
                    .filter(|k| {
                        !defined(env, session, g, k)
                            && matches!(
                                env.lookup_own(session, &LookupRequest::new(k)).result,
                                LookupResult::NotFound
                            )
                    })
                    .collect::<Vec<&str>>()
            });
            let mut missing: BTreeMap<&str, Vec<usize>> =
                shared.into_iter().map(|(k, m, _, _)| (k, m)).collect();
            for (g, keys) in own_missing {
                for k in keys {
                    missing.entry(k).or_default().push(g);
                }
            }
            for m in missing.values_mut() {
                m.sort_unstable();
            }
            // Built for the first diagnostic: most environments have none.
            let mut found: Option<(_, Suggestions)> = None;
            for (t, groups) in tokens.iter().zip(&token_groups) {
                // The groups reading the token that miss its key: both lists ascending, the
                // shorter one searched in the other (every token of common data is read by
                // every group, and filtering them all per token was 5% of a 15k-file run).
                let not_found: Vec<usize> = match missing.get(t.key.as_str()) {
                    None => continue,
                    Some(m) if m.len() < groups.len() => {
                        let mut v: Vec<usize> = m
                            .iter()
                            .copied()
                            .filter(|g| groups.binary_search(g).is_ok())
                            .collect();
                        v.dedup();
                        v
                    }
                    Some(m) => groups
                        .iter()
                        .copied()
                        .filter(|g| m.binary_search(g).is_ok())
                        .collect(),
                };
                if not_found.is_empty() {
                    continue;
                }
                let who = env.describe(&not_found);
                let mut d = Diagnostic::new(
                    &META,
                    &t.file.source,
                    t.span,
                    format!(
                        "`{}` looks up `{}`, which has no value {who}",
                        t.text, t.key
                    ),
                );
                d = d.note(match t.method {
                    Method::Alias => "Puppet gives an empty string for an alias of a key it does not find (not undef, and no warning)",
                    _ => "Puppet interpolates an empty string for a key it does not find, without a warning",
                });
                let root = root_of(&t.key).unwrap_or_default();
                let (defs, suggest) = found.get_or_insert_with(|| definitions(project, env));
                match defs.get(root.as_str()) {
                    Some((file, span)) => {
                        let read_by_all =
                            not_found.iter().all(|&g| index.reads(g, &file.source.path));
                        // A file some of these nodes do not read says nothing of what they
                        // lack (the span audit of session 26: `web02.yaml` defining
                        // `prof.sub` was labelled as lacking it for the nodes of other files).
                        let what = if !read_by_all {
                            format!("`{root}` is defined here, in a file these nodes do not read")
                        } else if root != t.key {
                            format!(
                                "`{root}` is defined here, without the value `{}` asks for",
                                t.key
                            )
                        } else {
                            format!("`{root}` is defined here, but the lookup does not find it")
                        };
                        d = d.label(&file.source, *span, what);
                    }
                    None => {
                        if let Some(k) = suggest.closest(&root) {
                            d = d.note(format!("help: did you mean `{k}`?"));
                        }
                    }
                }
                sink.report(d);
            }
        }
    }
}

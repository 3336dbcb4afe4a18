//! H204 `interpolated-key-not-found`: `%{lookup('k')}`, `hiera` or `alias` of a key that has no
//! value, which Puppet silently turns into an empty string.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::analysis::EnvAnalysis;
use crate::diag::Diagnostic;
use crate::engine::{LookupRequest, LookupResult};
use crate::interp::{split_key, Method, Segment};
use crate::project::{LoadedFile, Project};
use crate::rules::interp_sites::{data_sites, edit_distance, files_read, groups_reading};
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

fn key_tokens<'a>(project: &'a Project, env: &EnvAnalysis) -> Vec<KeyToken<'a>> {
    let mut out = Vec::new();
    for file in &project.files {
        if file.env_root.as_deref() != Some(env.root.as_path()) {
            continue;
        }
        for site in data_sites(file) {
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

/// The root key of a lookup key (`a.b` → `a`).
fn root_of(key: &str) -> Option<String> {
    match split_key(key).ok()?.into_iter().next()? {
        Segment::Str(s) => Some(s),
        Segment::Int(_) => None,
    }
}

/// Every root key defined in the environment's data, with where (the first definition).
fn definitions<'a>(
    project: &'a Project,
    env: &EnvAnalysis,
) -> BTreeMap<String, (&'a LoadedFile, Span)> {
    let mut out = BTreeMap::new();
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
                out.entry(k.to_string()).or_insert((file, e.key.span));
            }
        }
    }
    out
}

impl Rule for InterpolatedKeyNotFound {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_project(&self, project: &Project, sink: &mut Sink) {
        let analysis = project.analysis();
        for env in &analysis.envs {
            let tokens = key_tokens(project, env);
            if tokens.is_empty() {
                continue;
            }
            let reads: Vec<Vec<PathBuf>> = env.groups.iter().map(files_read).collect();
            // The groups that evaluate each token: those whose hierarchies read its file.
            let token_groups: Vec<Vec<usize>> = tokens
                .iter()
                .map(|t| groups_reading(&reads, &t.file.source.path))
                .collect();
            // One targeted lookup per (group, key), in a session per group.
            let missing: Vec<BTreeSet<String>> = (0..env.groups.len())
                .into_par_iter()
                .map(|g| {
                    let keys: BTreeSet<&str> = tokens
                        .iter()
                        .zip(&token_groups)
                        .filter(|(_, gs)| gs.contains(&g))
                        .map(|(t, _)| t.key.as_str())
                        .collect();
                    if keys.is_empty() {
                        return BTreeSet::new();
                    }
                    let rep = env.groups[g].nodes[0];
                    let session = env.engine.session(env.nodes[rep].scope.clone());
                    keys.into_iter()
                        .filter(|k| {
                            // `Lookup.lookup(key, nil, '', true, nil, ...)`: the key's own
                            // lookup_options apply; not found gives the default ''.
                            let outcome = session.lookup(&LookupRequest::new(k));
                            matches!(outcome.result, LookupResult::NotFound)
                        })
                        .map(str::to_string)
                        .collect()
                })
                .collect();
            let defs = definitions(project, env);
            for (t, groups) in tokens.iter().zip(&token_groups) {
                let not_found: Vec<usize> = groups
                    .iter()
                    .copied()
                    .filter(|&g| missing[g].contains(&t.key))
                    .collect();
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
                match defs.get(&root) {
                    Some((file, span)) => {
                        let read_by_all = not_found
                            .iter()
                            .all(|&g| reads[g].iter().any(|p| *p == file.source.path));
                        let what = if root != t.key {
                            format!(
                                "`{root}` is defined here, without the value `{}` asks for",
                                t.key
                            )
                        } else if read_by_all {
                            format!("`{root}` is defined here, but the lookup does not find it")
                        } else {
                            format!("`{root}` is defined here, in a file these nodes do not read")
                        };
                        d = d.label(&file.source, *span, what);
                    }
                    None => {
                        let close = defs
                            .keys()
                            .map(|k| (edit_distance(k, &root), k))
                            .filter(|(dist, _)| *dist <= 2 && *dist < root.chars().count() / 3 + 1)
                            .min();
                        if let Some((_, k)) = close {
                            d = d.note(format!("help: did you mean `{k}`?"));
                        }
                    }
                }
                sink.report(d);
            }
        }
    }
}

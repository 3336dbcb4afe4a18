//! H205 `interpolation-loop`: keys whose values look each other up (`a` → `b` → `a`), which
//! Puppet answers with `Recursive lookup detected in [a, b]`.
//!
//! The cycles are found statically, per group of nodes, in the graph of `lookup`/`hiera`/`alias`
//! tokens of the files the group reads, and each one is confirmed by the lookup engine (the
//! lookup of a key of the cycle fails with a recursion through exactly the cycle's keys): a
//! cycle whose halves no node reads together, or that a higher level overrides, is not reported.

use crate::engine::vfs::FastMap as HashMap;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rayon::prelude::*;

use crate::analysis::EnvAnalysis;
use crate::diag::Diagnostic;
use crate::engine::scope::VarLookup;
use crate::engine::{LookupRequest, Session};
use crate::interp::{split_key, Method, Segment, TokenKind};
use crate::project::{LoadedFile, Project};
use crate::rules::interp_sites::{request_for_root_key, ReadIndex};
use crate::rules::{Rule, RuleMeta, Sink};
use crate::span::Span;

crate::declare_rule!(pub static META = {
    code: "H205",
    name: "interpolation-loop",
    category: Correctness,
    summary: "keys whose interpolations look each other up in a cycle",
});

pub struct InterpolationLoop;

/// A `lookup`/`hiera`/`alias` token: an edge from the root key holding it to the root key it
/// looks up.
struct Edge<'a> {
    file: &'a LoadedFile,
    span: Span,
    from: String,
    to: String,
    /// The key as written in the token (`a.b`; `to` is its root).
    key: String,
    method: Method,
}

/// A variable token whose value, for some node, holds tokens itself (a scope-variable loop can
/// only go through such a variable).
struct VarToken<'a> {
    file: &'a LoadedFile,
    span: Span,
    text: String,
    root_key: String,
    var: String,
}

fn root_of(key: &str) -> Option<String> {
    match split_key(key).ok()?.into_iter().next()? {
        Segment::Str(s) => Some(s),
        Segment::Int(_) => None,
    }
}

/// The edges and variable tokens of an environment's data. Tokens after one that makes Puppet
/// fail (an unknown method, an alias that is not the whole string, a syntax error) are never
/// evaluated, so they make no edge.
fn collect<'a>(
    project: &'a Project,
    env: &EnvAnalysis,
    sink: &Sink,
) -> (Vec<Edge<'a>>, Vec<VarToken<'a>>) {
    let mut edges = Vec::new();
    let mut vars = Vec::new();
    for (i, file) in project.files.iter().enumerate() {
        if file.env_root.as_deref() != Some(env.root.as_path()) {
            continue;
        }
        for site in sink.file_sites(i, file).iter() {
            let Some(from) = site.root_key else { continue };
            for t in site.tokens() {
                let whole = t.range.start == 0 && t.range.end == site.value.len();
                match &t.kind {
                    TokenKind::UnknownMethod { .. } => break,
                    TokenKind::Method {
                        method: Method::Alias,
                        ..
                    } if !whole => break,
                    TokenKind::Method {
                        method: method @ (Method::Lookup | Method::Hiera | Method::Alias),
                        arg,
                        ..
                    } => {
                        let Some(to) = root_of(arg) else { break };
                        edges.push(Edge {
                            file,
                            span: site.span_of(&file.source, t.range.clone()),
                            from: from.to_string(),
                            to,
                            key: arg.clone(),
                            method: *method,
                        });
                    }
                    TokenKind::Method { .. } | TokenKind::Empty => {}
                    TokenKind::Variable => {
                        let Some(var) = root_of(&t.expr) else { break };
                        if !site.copied {
                            vars.push(VarToken {
                                file,
                                span: site.span_of(&file.source, t.range.clone()),
                                text: site.value[t.range.clone()].to_string(),
                                root_key: from.to_string(),
                                var,
                            });
                        }
                    }
                }
            }
        }
    }
    (edges, vars)
}

/// Strongly connected components (Tarjan, iterative: the graph comes from user data).
fn sccs(n: usize, adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0usize;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next child position)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < adj[v].len() {
                let w = adj[v][*pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}

/// The shortest cycle through `start` inside `comp` (breadth-first), as node indices starting
/// with `start`.
fn shortest_cycle(start: usize, adj: &[Vec<usize>], comp: &BTreeSet<usize>) -> Option<Vec<usize>> {
    let mut prev: HashMap<usize, usize> = HashMap::default();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &adj[v] {
            if !comp.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![v];
                let mut cur = v;
                while cur != start {
                    cur = prev[&cur];
                    path.push(cur);
                }
                path.reverse();
                return Some(path);
            }
            if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    None
}

/// The keys of the recursion stack in Puppet's message (`Recursive lookup detected in
/// [a, b]`), as root keys (`scope:x` entries kept as they are).
fn recursion_stack(message: &str) -> Option<Vec<String>> {
    let at = message.rfind("Recursive lookup detected in [")?;
    let inner = &message[at + "Recursive lookup detected in [".len()..];
    let inner = inner.strip_suffix(']').unwrap_or(inner);
    Some(
        inner
            .split(", ")
            .map(|e| {
                if e.starts_with("scope:") {
                    e.to_string()
                } else {
                    root_of(e).unwrap_or_else(|| e.to_string())
                }
            })
            .collect(),
    )
}

/// Which of `edges` lie on a cycle of the graph of all of them (both ends in one strongly
/// connected component that loops).
fn looping_edges(edges: &[Edge]) -> Vec<bool> {
    let mut names: Vec<&str> = edges
        .iter()
        .flat_map(|e| [e.from.as_str(), e.to.as_str()])
        .collect();
    names.sort_unstable();
    names.dedup();
    let id = |k: &str| names.binary_search(&k).ok();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for e in edges {
        if let (Some(a), Some(b)) = (id(&e.from), id(&e.to)) {
            adj[a].push(b);
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    // The component of each key, for the keys on a looping component.
    let mut comp_of = vec![usize::MAX; names.len()];
    for (c, comp) in sccs(names.len(), &adj).into_iter().enumerate() {
        let loops = comp.len() > 1 || adj[comp[0]].contains(&comp[0]);
        if loops {
            for v in comp {
                comp_of[v] = c;
            }
        }
    }
    edges
        .iter()
        .map(|e| match (id(&e.from), id(&e.to)) {
            (Some(a), Some(b)) => comp_of[a] != usize::MAX && comp_of[a] == comp_of[b],
            _ => false,
        })
        .collect()
}

/// A confirmed cycle of one group: its hops (edge indices, starting at the smallest key) and
/// Puppet's message.
struct Found<'a> {
    hops: &'a [usize],
    /// Borrowed from a shared lookup's outcome, owned when the group looked up on its own.
    message: std::borrow::Cow<'a, str>,
}

/// The cycles of one group's graph (not yet confirmed by the engine). `reads`: the ids
/// ([`ReadIndex`]) of the files the group reads, in order (or only those with edges: the
/// order among them is all that counts); `edges_by_file`: by file id, the
/// edges that can be on a cycle ([`looping_edges`]: a cycle of a group's graph is a cycle of
/// the whole graph, so the other edges cannot be on it, and leaving them out changes neither
/// the cycles found nor the first edge of each hop).
fn group_cycles(reads: &[u32], edges: &[Edge], edges_by_file: &[Vec<usize>]) -> Vec<Cycle> {
    // Edges this group evaluates, in the order of the files it reads, then file order (each
    // file's edges in edge order, which the stable sort keeps for equal spans).
    let mut mine: Vec<(usize, usize)> = reads
        .iter()
        .enumerate()
        .flat_map(|(pos, &id)| {
            edges_by_file
                .get(id as usize)
                .into_iter()
                .flatten()
                .map(move |&i| (pos, i))
        })
        .collect();
    if mine.is_empty() {
        return Vec::new();
    }
    mine.sort_by_key(|&(pos, i)| (pos, edges[i].span.start));
    let mut names: Vec<&str> = mine
        .iter()
        .flat_map(|&(_, i)| [edges[i].from.as_str(), edges[i].to.as_str()])
        .collect();
    names.sort_unstable();
    names.dedup();
    let id = |k: &str| names.binary_search(&k).ok();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    // The first edge (in evaluation order) from one key to another.
    let mut hop_edge: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for &(_, i) in &mine {
        let (Some(a), Some(b)) = (id(&edges[i].from), id(&edges[i].to)) else {
            continue;
        };
        if let std::collections::btree_map::Entry::Vacant(e) = hop_edge.entry((a, b)) {
            e.insert(i);
            adj[a].push(b);
        }
    }
    let mut cycles: BTreeSet<Vec<usize>> = BTreeSet::new();
    for comp in sccs(names.len(), &adj) {
        let looping = comp.len() > 1 || adj[comp[0]].contains(&comp[0]);
        if !looping {
            continue;
        }
        let set: BTreeSet<usize> = comp.iter().copied().collect();
        // One shortest cycle through each key (bounded: a component is a handful of keys in
        // real data; a pathological one is not enumerated further).
        for &start in set.iter().take(64) {
            if let Some(mut c) = shortest_cycle(start, &adj, &set) {
                // Start at the smallest key (`names` is sorted, so the smallest index).
                let min = c
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, &v)| v)
                    .map_or(0, |(i, _)| i);
                c.rotate_left(min);
                cycles.insert(c);
            }
        }
    }
    cycles
        .into_iter()
        .map(|c| {
            let keys: Vec<String> = c.iter().map(|&v| names[v].to_string()).collect();
            let mut key_set = keys.clone();
            key_set.sort_unstable();
            key_set.dedup();
            Cycle {
                keys,
                key_set,
                hops: (0..c.len())
                    .map(|i| hop_edge.get(&(c[i], c[(i + 1) % c.len()])).copied())
                    .collect(),
            }
        })
        .collect()
}

/// A cycle of one group's graph, to be confirmed by the engine: its keys (from the smallest)
/// and its hops (edge indices; `None` when an edge is missing).
struct Cycle {
    keys: Vec<String>,
    /// `keys` sorted, each once: what a confirming recursion's stack must hold.
    key_set: Vec<String>,
    hops: Option<Vec<usize>>,
}

/// What the lookup of a cycle's keys runs into, per key and group: one evaluation for the
/// groups whose data cannot answer differently (`EnvAnalysis::lookup_shared`); the others look
/// the key up in a session of their own, when [`confirmed`] asks: a cycle is confirmed by the
/// first of its keys whose recursion is the cycle's, and the keys after it need no lookup (at
/// 15k files the groups whose node files define a loop key looked every key of the seeded loop
/// up beforehand: 11,654 own lookups, 9% of the check; asked as needed, the rule's instructions
/// went 779M -> 626M).
struct Recursions<'k> {
    /// Per key: the reference's recursion and the groups sharing it (a bit set: at 15k files
    /// each of about forty keys is shared by 13,800 groups, 110 KB as a list of indices).
    shared: HashMap<&'k str, (Recursion, crate::analysis::GroupSet)>,
    /// By group: the keys it looks up on its own, ascending (none for most groups).
    own: Vec<Vec<&'k str>>,
    sessions: crate::analysis::OwnSessions,
}

/// The keys of a recursion's stack (sorted, each once) and Puppet's message.
type Recursion = Option<(Vec<String>, String)>;

impl<'k> Recursions<'k> {
    /// `found`: the cycles of each distinct list of looping files; `which`: each group's list.
    fn new(env: &EnvAnalysis, found: &'k [Vec<Cycle>], which: &[Option<usize>]) -> Recursions<'k> {
        // The groups of each key, by distinct list (every group's list is the same one for a
        // loop in common data: walking each group's cycles was a fifth of the rule at 15k).
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); found.len()];
        for (g, w) in which.iter().enumerate() {
            if let Some(u) = w {
                members[*u].push(g);
            }
        }
        // Each member list is ascending (groups in order); a key's lists are merged below.
        let mut key_groups: BTreeMap<&str, Vec<&[usize]>> = BTreeMap::new();
        for (cs, groups) in found.iter().zip(&members) {
            let mut keys: Vec<&str> = cs
                .iter()
                .flat_map(|c| &c.keys)
                .map(String::as_str)
                .collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                key_groups.entry(k).or_default().push(groups);
            }
        }
        let mut own: Vec<Vec<&str>> = vec![Vec::new(); env.groups.len()];
        if key_groups.is_empty() {
            return Recursions {
                shared: HashMap::default(),
                own,
                sessions: env.own_sessions(None),
            };
        }
        let reference = env.reference_session();
        let mut shared = HashMap::default();
        // In key order: each group's own keys come out ascending.
        for (k, lists) in key_groups {
            let groups = crate::analysis::union_ascending(&lists, env.groups.len());
            let req = LookupRequest::new(&request_for_root_key(k));
            let s = env.lookup_shared(&reference, &groups, &req);
            for &g in &s.others {
                own[g].push(k);
            }
            let sharing = crate::analysis::GroupSet::of(env.groups.len(), s.sharing);
            shared.insert(k, (recursion_in(&s.outcome), sharing));
        }
        Recursions {
            shared,
            own,
            sessions: env.own_sessions(Some(&reference)),
        }
    }

    /// The shared answer for `key` in group `g` (`None` when `g` does not share it).
    fn shared<'s>(&'s self, key: &str, g: usize) -> Option<&'s (Vec<String>, String)> {
        self.shared
            .get(key)
            .filter(|(_, groups)| groups.contains(g))
            .and_then(|(r, _)| r.as_ref())
    }
}

/// The cycles of group `g` the engine confirms: a lookup of one of the cycle's keys (tried in
/// the cycle's order) fails with a recursion through exactly the cycle's keys. Keys the group
/// looks up on its own are looked up here, once each, in a session made on first need.
/// (Shared answers are borrowed: at 15k files every group confirms the loop seeded in common
/// data, 267k findings, and each cloned its hops and message.)
fn confirmed<'a>(
    env: &EnvAnalysis,
    g: usize,
    cycles: &'a [Cycle],
    recursions: &'a Recursions,
) -> Vec<Found<'a>> {
    use std::borrow::Cow;
    let own_keys = &recursions.own[g];
    let mut session: Option<Session> = None;
    let mut own: Vec<(&str, Recursion)> = Vec::new();
    let mut out = Vec::new();
    for c in cycles {
        let mut message: Option<Cow<'a, str>> = None;
        for k in &c.keys {
            let k = k.as_str();
            if own_keys.binary_search(&k).is_err() {
                if let Some((stack, m)) = recursions.shared(k, g) {
                    if *stack == c.key_set {
                        message = Some(Cow::Borrowed(m.as_str()));
                        break;
                    }
                }
                continue;
            }
            let i = match own.iter().position(|(x, _)| *x == k) {
                Some(i) => i,
                None => {
                    let session =
                        session.get_or_insert_with(|| recursions.sessions.session(env, g));
                    let req = LookupRequest::new(&request_for_root_key(k));
                    own.push((k, recursion_in(&env.lookup_own(session, &req))));
                    own.len() - 1
                }
            };
            if let Some((stack, m)) = &own[i].1 {
                if *stack == c.key_set {
                    message = Some(Cow::Owned(m.clone()));
                    break;
                }
            }
        }
        let Some(message) = message else { continue };
        if let Some(hops) = &c.hops {
            out.push(Found { hops, message });
        }
    }
    out
}

/// The recursion a lookup's outcome reports, if any: the stack's keys (sorted, each once:
/// [`confirmed`] compares them as a set) and Puppet's message.
fn recursion_in(outcome: &crate::engine::LookupOutcome) -> Recursion {
    let e = outcome.error()?;
    recursion_stack(&e.message).map(|mut s| {
        s.sort_unstable();
        s.dedup();
        (s, e.message.clone())
    })
}

/// The recursion a lookup of `key` runs into, if any: the stack's keys and Puppet's message.
fn recursion_of(session: &Session, key: &str) -> Option<(Vec<String>, String)> {
    let outcome = session.lookup(&LookupRequest::new(&request_for_root_key(key)));
    let e = outcome.error()?;
    recursion_stack(&e.message).map(|s| (s, e.message.clone()))
}

fn verb(m: Method) -> &'static str {
    match m {
        Method::Alias => "aliases",
        _ => "looks up",
    }
}

fn report_cycle(
    env: &EnvAnalysis,
    edges: &[Edge],
    hops: &[usize],
    groups: &[usize],
    message: &str,
) -> Diagnostic {
    let first = &edges[hops[0]];
    let mut path: Vec<&str> = hops.iter().map(|&h| edges[h].from.as_str()).collect();
    path.push(first.from.as_str());
    let who = env.describe(groups);
    let title = if hops.len() == 1 {
        format!("interpolation loop: `{}` looks itself up {who}", first.from)
    } else {
        let mut chain: Vec<String> = path.iter().map(|k| format!("`{k}`")).collect();
        if chain.len() > 7 {
            // Long cycles: the first keys and the way back; every hop is still labelled.
            let n = hops.len();
            chain.splice(3..chain.len() - 2, [format!("… ({n} keys in all)")]);
        }
        format!("interpolation loop: {} {who}", chain.join(" → "))
    };
    let mut d =
        Diagnostic::new(&META, &first.file.source, first.span, title).primary_message(format!(
            "`{}` {} `{}` here",
            first.from,
            verb(first.method),
            first.key
        ));
    for (i, &h) in hops.iter().enumerate().skip(1) {
        let e = &edges[h];
        let closing = if i + 1 == hops.len() {
            ", closing the loop"
        } else {
            ""
        };
        d = d.label(
            &e.file.source,
            e.span,
            format!(
                "then `{}` {} `{}` here{closing}",
                e.from,
                verb(e.method),
                e.key
            ),
        );
    }
    d.note("every lookup of these keys fails for those nodes")
        .note(format!("Puppet says: {message}"))
        .note("help: one of the keys must have a value that does not interpolate the others")
}

impl Rule for InterpolationLoop {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn needs_analysis(&self) -> bool {
        true
    }

    /// Among the longest project phases: the cycles of every group, and their lookups (about half the project phase at 1.5k and 15k files).
    fn project_cost(&self) -> u8 {
        3
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
            let (edges, vars) = collect(project, env, sink);
            if edges.is_empty() && vars.is_empty() {
                continue;
            }
            let index = env.read_index();
            // A group's graph is a part of the graph of every edge of the environment: it can
            // only loop through edges that lie on a cycle of the whole graph (both ends in one
            // strongly connected component that loops). Only those edges are kept, by the id
            // of their file, and only the groups reading such a file are looked at (with one
            // group per node file, few are).
            let looping = looping_edges(&edges);
            let mut edges_by_file: Vec<Vec<usize>> = Vec::new();
            let mut candidate = vec![false; env.groups.len()];
            for (i, e) in edges.iter().enumerate() {
                let path = e.file.source.path.as_path();
                // Only edges on a cycle of the whole graph need their file's id.
                if !looping[i] {
                    continue;
                }
                let Some(id) = index.id(path) else {
                    continue;
                };
                let id = id as usize;
                if edges_by_file.len() <= id {
                    edges_by_file.resize_with(id + 1, Vec::new);
                }
                if edges_by_file[id].is_empty() {
                    for &g in index.groups_reading(path) {
                        candidate[g] = true;
                    }
                }
                edges_by_file[id].push(i);
            }
            // A group's graph is made of the looping edges of the files it reads, in the order
            // it reads them: groups reading the same such files in the same order (every
            // group, for a loop in common data) have the same cycles, found once.
            let lists: Vec<Option<Vec<u32>>> = index.file_ids_where(
                |g| candidate[g],
                |id| {
                    edges_by_file
                        .get(id as usize)
                        .is_some_and(|v| !v.is_empty())
                },
            );
            let mut distinct: HashMap<&[u32], usize> = HashMap::default();
            let mut unique: Vec<&[u32]> = Vec::new();
            let which: Vec<Option<usize>> = lists
                .iter()
                .map(|l| {
                    let l = l.as_deref()?;
                    Some(*distinct.entry(l).or_insert_with(|| {
                        unique.push(l);
                        unique.len() - 1
                    }))
                })
                .collect();
            let found: Vec<Vec<Cycle>> = unique
                .par_iter()
                .map(|ids| group_cycles(ids, &edges, &edges_by_file))
                .collect();
            let cycles: Vec<&[Cycle]> = which
                .iter()
                .map(|w| w.map_or(&[][..], |i| found[i].as_slice()))
                .collect();
            let recursions = Recursions::new(env, &found, &which);
            // A group that looks none of its keys up on its own shares the reference's
            // lookup of every key of its cycles (`Recursions::new` puts each group asked about
            // a key on one side or the other): what is confirmed for it depends on its cycles
            // alone, and is found once per distinct list of looping files (at 15k files,
            // 13,400 groups confirmed the same 20 loops of common data one by one).
            let mut first_sharing: Vec<Option<usize>> = vec![None; found.len()];
            for (g, w) in which.iter().enumerate() {
                if let Some(u) = *w {
                    if recursions.own[g].is_empty() && first_sharing[u].is_none() {
                        first_sharing[u] = Some(g);
                    }
                }
            }
            let by_list: Vec<Vec<Found>> = first_sharing
                .par_iter()
                .enumerate()
                .map(|(u, g)| {
                    g.map_or_else(Vec::new, |g| confirmed(env, g, &found[u], &recursions))
                })
                .collect();
            // In parallel: the groups with keys of their own (`None`: the group's list's).
            let own_found: Vec<Option<Vec<Found>>> = cycles
                .par_iter()
                .enumerate()
                .map(|(g, cs)| match which[g] {
                    Some(_) if recursions.own[g].is_empty() => None,
                    _ => Some(confirmed(env, g, cs, &recursions)),
                })
                .collect();
            let per_group = own_found.iter().zip(&which).map(|(f, w)| match (f, w) {
                (Some(f), _) => f.as_slice(),
                (None, Some(u)) => by_list[*u].as_slice(),
                (None, None) => &[],
            });
            // The same hops found for several groups make one diagnostic naming them all (with
            // the message of the first), in hops order.
            let mut slot: HashMap<&[usize], usize> = HashMap::default();
            let mut by_hops: Vec<(&[usize], Vec<usize>, std::borrow::Cow<str>)> = Vec::new();
            for (g, found) in per_group.enumerate() {
                for f in found.iter() {
                    let i = *slot.entry(f.hops).or_insert_with(|| {
                        by_hops.push((f.hops, Vec::new(), f.message.clone()));
                        by_hops.len() - 1
                    });
                    by_hops[i].1.push(g);
                }
            }
            by_hops.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (hops, groups, message) in &by_hops {
                sink.report(report_cycle(env, &edges, hops, groups, message));
            }
            self.scope_loops(env, index, &vars, sink);
        }
    }
}

impl InterpolationLoop {
    /// Loops through scope variables: a variable whose value (a fact holding `%{...}`) leads
    /// back to itself. Only such variables can loop, and their values differ from node to
    /// node, so each node holding one is looked at (real data has next to none).
    fn scope_loops(
        &self,
        env: &EnvAnalysis,
        index: &ReadIndex,
        vars: &[VarToken],
        sink: &mut Sink,
    ) {
        let mut found: BTreeMap<usize, (Vec<usize>, String)> = BTreeMap::new();
        // By the read index's file ids: hashing a path per group and file read was 2% of a
        // 15k-file run.
        let mut vars_by_file: HashMap<u32, Vec<usize>> = HashMap::default();
        for (i, v) in vars.iter().enumerate() {
            if let Some(id) = index.id(&v.file.source.path) {
                vars_by_file.entry(id).or_default().push(i);
            }
        }
        if vars_by_file.is_empty() {
            return;
        }
        let mut var_names: Vec<&str> = vars.iter().map(|v| v.var.as_str()).collect();
        var_names.sort_unstable();
        var_names.dedup();
        // Per group in parallel (listing each group's tokens was a serial pass over every
        // group's files); the findings are then taken in group, node and token order.
        let per_group: Vec<Vec<(usize, usize, String)>> = env
            .groups
            .par_iter()
            .enumerate()
            .map(|(g, group)| {
                let mut out = Vec::new();
                // Which variables hold tokens, per node of the group: only a token of such a
                // variable can loop. Asked first, per distinct variable name: most nodes have
                // none (every group of a 15k-file repository listed the tokens of the files it
                // reads for nothing).
                let holding: Vec<(usize, Vec<&str>)> = group
                    .nodes
                    .iter()
                    .filter_map(|&n| {
                        let scope = &env.nodes[n].scope;
                        let held: Vec<&str> = var_names
                            .iter()
                            .copied()
                            .filter(|v| {
                                matches!(
                                    scope.lookup(v),
                                    VarLookup::Found(crate::value::Value::String(s))
                                        if crate::interp::has_interpolation(&s)
                                )
                            })
                            .collect();
                        (!held.is_empty()).then_some((n, held))
                    })
                    .collect();
                if holding.is_empty() {
                    return out;
                }
                // The variable tokens of the files this group reads, in token order.
                let mut mine: Vec<usize> = index
                    .file_ids(g)
                    .filter_map(|id| vars_by_file.get(&id))
                    .flatten()
                    .copied()
                    .collect();
                mine.sort_unstable();
                for (n, held) in holding {
                    let scope = &env.nodes[n].scope;
                    let mut session = None;
                    for &i in &mine {
                        let v = &vars[i];
                        if !held.contains(&v.var.as_str()) {
                            continue;
                        }
                        let session =
                            session.get_or_insert_with(|| env.engine.session(scope.clone()));
                        let Some((stack, message)) = recursion_of(session, &v.root_key) else {
                            continue;
                        };
                        if stack.iter().any(|s| *s == format!("scope:{}", v.var)) {
                            out.push((i, n, message));
                        }
                    }
                }
                out
            })
            .collect();
        for (i, n, message) in per_group.into_iter().flatten() {
            found
                .entry(i)
                .or_insert_with(|| (Vec::new(), message))
                .0
                .push(n);
        }
        for (i, (nodes, message)) in found {
            let v = &vars[i];
            sink.report(
                Diagnostic::new(
                    &META,
                    &v.file.source,
                    v.span,
                    format!(
                        "interpolation loop through the variable `{}` {}",
                        v.var,
                        env.describe_nodes(&nodes)
                    ),
                )
                .primary_message(format!("`{}` interpolates `{}` here", v.root_key, v.text))
                .note("the variable's value holds `%{...}` tokens that lead back to it")
                .note(format!("Puppet says: {message}")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarjan_finds_components() {
        // 0 → 1 → 2 → 0, 2 → 3, 3 → 3, 4
        let adj = vec![vec![1], vec![2], vec![0, 3], vec![3], vec![]];
        let mut comps: Vec<Vec<usize>> = sccs(5, &adj)
            .into_iter()
            .map(|mut c| {
                c.sort();
                c
            })
            .collect();
        comps.sort();
        assert_eq!(comps, vec![vec![0, 1, 2], vec![3], vec![4]]);
        let set: BTreeSet<usize> = [0, 1, 2].into();
        assert_eq!(shortest_cycle(1, &adj, &set), Some(vec![1, 2, 0]));
        let one: BTreeSet<usize> = [3].into();
        assert_eq!(shortest_cycle(3, &adj, &one), Some(vec![3]));
    }

    #[test]
    fn deep_chains_do_not_overflow() {
        let n = 200_000;
        let adj: Vec<Vec<usize>> = (0..n).map(|i| vec![(i + 1) % n]).collect();
        let comps = sccs(n, &adj);
        assert_eq!(comps.len(), 1);
        assert_eq!(comps[0].len(), n);
    }

    #[test]
    fn stacks_from_puppet_messages() {
        // Recorded: interp/recursion.
        assert_eq!(
            recursion_stack("Lookup of key 'p' failed: Recursive lookup detected in [p, q]"),
            Some(vec!["p".to_string(), "q".to_string()])
        );
        assert_eq!(
            recursion_stack("Lookup of key 'dotted_self.k' failed: Recursive lookup detected in [dotted_self, dotted_self.k]"),
            Some(vec!["dotted_self".to_string(), "dotted_self".to_string()])
        );
        assert_eq!(
            recursion_stack("Recursive lookup detected in [scope_loop, scope:r1, scope:r2]"),
            Some(vec![
                "scope_loop".into(),
                "scope:r1".into(),
                "scope:r2".into()
            ])
        );
        assert_eq!(recursion_stack("Undefined variable 'x'"), None);
    }
}

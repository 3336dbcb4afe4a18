//! H405 `invalid-merge-behavior`: lookup_options that Puppet rejects or ignores: an unknown
//! merge strategy, unknown or mistyped merge options, entries that are not hashes, unknown
//! entry keys, knockout prefixes that break or misbehave, a `convert_to` that cannot parse, a
//! `lookup_options` that is not a hash, and a null `lookup_options` next to another level's.
//!
//! The static checks read each data file; the null `lookup_options` check needs the levels a
//! node's hierarchy reads together, so it runs per group of nodes (`check_project`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Severity};
use crate::engine::convert::check_convert_to;
use crate::engine::lookup::{no_method, option_entry_get};
use crate::engine::merge::{MergeStrategy, StrategyKind};
use crate::engine::ruby::ruby_regex;
use crate::engine::Place;
use crate::project::{LoadedFile, Project};
use crate::rules::{lopts, Rule, RuleMeta, Sink};
use crate::span::{SourceFile, Span};
use crate::value::{Entry, Mapping, Node, NodeKind, Value};

crate::declare_rule!(pub static META = {
    code: "H405",
    name: "invalid-merge-behavior",
    category: Correctness,
    summary: "lookup_options that Puppet rejects or ignores: unknown strategy or option, non-hash entry, bad knockout prefix or convert_to",
});

pub struct InvalidMergeBehavior;

const STRATEGIES: [&str; 4] = ["first", "unique", "hash", "deep"];
const DEEP_OPTIONS: [&str; 4] = [
    "knockout_prefix",
    "merge_debug",
    "merge_hash_arrays",
    "sort_merged_arrays",
];

impl Rule for InvalidMergeBehavior {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_lookup_options(&self) -> bool {
        true
    }

    fn needs_analysis(&self) -> bool {
        true
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        let Some(top) = lopts::top_entry(file) else {
            return;
        };
        let cx = Cx { file, sink };
        cx.check_top(top);
    }

    fn check_project(&self, project: &Project, sink: &mut Sink) {
        null_lookup_options(project, sink);
    }
}

struct Cx<'a, 's, 'k> {
    file: &'a LoadedFile,
    sink: &'s mut Sink<'k>,
}

/// Who fails when an entry for `key` is broken.
fn blast(key: &str) -> String {
    if key.starts_with('^') {
        format!("every lookup of a key matching `{key}`")
    } else {
        format!("every lookup of `{key}`")
    }
}

fn closest<'a>(word: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .copied()
        .map(|n| (edit_distance(word, n), n))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The entry of `map` whose key is the String `name`.
fn field<'m>(map: &'m Mapping, name: &str) -> Option<&'m Entry> {
    lopts::effective_entries(map)
        .into_iter()
        .find(|e| e.key.as_str() == Some(name))
}

/// A label span for a value: the value, or its key when the value is empty (`k:` is null).
fn value_span(e: &Entry) -> Span {
    if e.value.span.is_empty() {
        e.key.span
    } else {
        e.value.span
    }
}

impl Cx<'_, '_, '_> {
    fn src(&self) -> &std::sync::Arc<SourceFile> {
        &self.file.source
    }

    fn report(&mut self, d: Diagnostic) {
        self.sink.report(d);
    }

    fn check_top(mut self, top: &Entry) {
        let v = &top.value;
        match &v.kind {
            NodeKind::Map(m) => {
                for e in lopts::effective_entries(m) {
                    self.check_entry(e);
                }
            }
            // A single null is ignored (recorded: lopts/single-null); next to another level's
            // lookup_options it is not (see `null_lookup_options`).
            NodeKind::Scalar(s) if s.value.is_undef() => {}
            // A Symbol fails value validation first (H012 `ruby-symbol-value` reports it).
            NodeKind::Scalar(s) if matches!(s.value, Value::Symbol(_)) => {}
            _ => {
                let scope = match self.file.module_name() {
                    Some(m) => format!("every lookup of a `{m}::` key"),
                    None => "every lookup".to_string(),
                };
                let d = Diagnostic::new(
                    &META,
                    self.src(),
                    value_span(top),
                    format!("`lookup_options` is {}, not a hash", article(v)),
                )
                .primary_message("must be a hash of keys to options")
                .note(format!(
                    "Puppet fails {scope} whose hierarchy reads this file: `value of \
                     lookup_options must be a hash` (reference §2.5; recorded: \
                     fixtures/conformance/lopts/string-lookup-options, \
                     fixtures/conformance/module/lookup-options-namespace)"
                ));
                self.report(d);
            }
        }
    }

    fn check_entry(&mut self, e: &Entry) {
        let key_v = e.key.to_value();
        let key = match &key_v {
            Value::String(s) => s.to_string(),
            // A Symbol key has `start_with?` and is never equal to a looked-up key.
            Value::Symbol(_) => return,
            other => {
                let err = no_method(
                    "start_with?",
                    other,
                    "      if key.start_with?(LOOKUP_OPTIONS_PATTERN_START)",
                );
                let first = err.message.lines().next().unwrap_or_default().to_string();
                let scope = match self.file.module_name() {
                    Some(m) => format!("every lookup of a `{m}::` key"),
                    None => "every lookup".to_string(),
                };
                let written = self.src().slice(e.key.span).to_string();
                let d = Diagnostic::new(
                    &META,
                    self.src(),
                    e.key.span,
                    format!(
                        "lookup_options key `{written}` is {}, not a String",
                        article_value(other)
                    ),
                )
                .primary_message("Puppet crashes on this key")
                .note(format!(
                    "Puppet calls `start_with?` on every lookup_options key, so {scope} whose \
                     hierarchy reads this file fails with NoMethodError: {first} (recorded: \
                     fixtures/conformance/lopts/nonstring-key, \
                     fixtures/conformance/lopts/rule-claims `nskey::k`)"
                ))
                .note(format!("help: quote the key: `'{written}'`"));
                self.report(d);
                return;
            }
        };
        match &e.value.kind {
            NodeKind::Map(m) => self.check_options(&key, m),
            NodeKind::Scalar(s) if s.value.is_undef() => {}
            _ => self.check_non_hash_entry(&key, e),
        }
    }

    /// An entry that is not a hash: Ruby's `[]` on it (recorded: lopts/entry-shapes).
    fn check_non_hash_entry(&mut self, key: &str, e: &Entry) {
        let v = e.value.to_value();
        let span = value_span(e);
        let failure = match option_entry_get(Some(&v), "merge") {
            Err(err) => Some(err.message),
            Ok(Some(m)) => MergeStrategy::parse(&m).err().map(|e| e.message),
            Ok(None) => match option_entry_get(Some(&v), "convert_to") {
                Err(err) => Some(err.message),
                Ok(Some(c)) => check_convert_to(key, &[c]).err().map(|e| e.message),
                Ok(None) => None,
            },
        };
        let shape = article(&e.value);
        match failure {
            Some(msg) => {
                let d = Diagnostic::new(
                    &META,
                    self.src(),
                    span,
                    format!("lookup_options entry for `{key}` is {shape}, not a hash"),
                )
                .primary_message("Puppet fails on this entry")
                .note(format!(
                    "Puppet reads `merge` from the entry with Ruby's `[]`, so {} fails: `{msg}` \
                     (reference §3.4; recorded: fixtures/conformance/lopts/entry-shapes)",
                    blast(key)
                ))
                .note(help_for_entry(&v));
                self.report(d);
            }
            None => {
                let d = Diagnostic::new(
                    &META,
                    self.src(),
                    span,
                    format!("lookup_options entry for `{key}` is {shape}: Puppet ignores it"),
                )
                .with_severity(Severity::Warning)
                .primary_message("not a hash: no option is read from it")
                .note(
                    "Puppet reads `merge` and `convert_to` from a hash; from a String it gets \
                     nothing (unless the text contains `merge`), so the key keeps the default \
                     first-found lookup (reference §3.4; recorded: \
                     fixtures/conformance/lopts/entry-shapes `str_entry`)",
                )
                .note(help_for_entry(&v));
                self.report(d);
            }
        }
    }

    fn check_options(&mut self, key: &str, m: &Mapping) {
        for o in lopts::effective_entries(m) {
            match o.key.as_str() {
                Some("merge") => self.check_merge(key, o),
                Some("convert_to") => self.check_convert_to(key, o),
                _ => self.unknown_option(key, o),
            }
        }
    }

    fn unknown_option(&mut self, key: &str, o: &Entry) {
        let name = o
            .key
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| self.src().slice(o.key.span).to_string());
        let help = if name == "strategy" {
            match o.value.as_str() {
                Some(s) => format!("help: the strategy belongs in `merge`: `merge: {s}`"),
                None => "help: the strategy belongs in `merge`".to_string(),
            }
        } else if DEEP_OPTIONS.contains(&name.as_str()) {
            format!(
                "help: `{name}` belongs inside `merge`: `merge: {{strategy: deep, {name}: ...}}`"
            )
        } else if let Some(c) = closest(&name, &["merge", "convert_to"]) {
            format!("help: did you mean `{c}`?")
        } else {
            "help: a lookup_options entry takes `merge` and `convert_to`".to_string()
        };
        let d = Diagnostic::new(
            &META,
            self.src(),
            o.key.span,
            format!("`{name}` is not a lookup_options setting: Puppet ignores it"),
        )
        .with_severity(Severity::Warning)
        .primary_message("ignored")
        .note(format!(
            "Puppet reads only `merge` and `convert_to` from the entry for `{key}` and ignores \
             other keys silently (reference §3.4; recorded: fixtures/conformance/lopts/entry-shapes \
             `unknown_keys`, fixtures/conformance/lopts/rule-claims `typo_ent`)"
        ))
        .note(help);
        self.report(d);
    }

    fn check_convert_to(&mut self, key: &str, o: &Entry) {
        let v = o.value.to_value();
        if v.is_undef() {
            return;
        }
        let args: Vec<Value> = match &v {
            Value::Array(a) => a.to_vec(),
            other => vec![other.clone()],
        };
        if let Err(err) = check_convert_to(key, &args) {
            let d = Diagnostic::new(
                &META,
                self.src(),
                value_span(o),
                format!("`convert_to` for `{key}` is not a type Puppet can create"),
            )
            .primary_message("Puppet cannot use this type")
            .note(format!(
                "{} that finds a value fails: `{}` (reference §3.4; recorded: \
                 fixtures/conformance/lopts/convert-to)",
                capitalise(&blast(key)),
                err.message
            ));
            self.report(d);
        }
    }

    fn check_merge(&mut self, key: &str, o: &Entry) {
        let v = o.value.to_value();
        if v.is_undef() {
            return;
        }
        let strategy = match MergeStrategy::parse(&v) {
            Ok(s) => s,
            Err(err) => {
                self.merge_parse_error(key, o, &err.message);
                return;
            }
        };
        let is_deep = matches!(
            strategy.kind,
            StrategyKind::Deep | StrategyKind::ReverseDeep | StrategyKind::UnconstrainedDeep
        );
        let Some(m) = o.value.as_map() else { return };
        if !is_deep {
            return;
        }
        let Some(ko) = field(m, "knockout_prefix") else {
            return;
        };
        let Some(prefix) = ko.value.as_str() else {
            return;
        };
        let span = value_span(ko);
        if prefix.is_empty() {
            let d = Diagnostic::new(
                &META,
                self.src(),
                span,
                format!("empty `knockout_prefix` in the merge of `{key}`"),
            )
            .primary_message("cannot be empty")
            .note(format!(
                "{} that merges two or more values fails: `knockout_prefix cannot be an empty \
                 string in deep_merge!` (DeepMerge::InvalidParameter; reference §4.5; recorded: \
                 fixtures/conformance/merge/deep-knockout-prefix)",
                capitalise(&blast(key))
            ))
            .note("help: remove `knockout_prefix`, or use the usual `--`");
            self.report(d);
            return;
        }
        // deep_merge builds `/^#{knockout_prefix}/` with the prefix unescaped (§4.5).
        match ruby_regex(&format!("^{prefix}")) {
            Err(err) => {
                let d = Diagnostic::new(
                    &META,
                    self.src(),
                    span,
                    format!("`knockout_prefix` `{prefix}` is not a valid Ruby regex"),
                )
                .primary_message("used unescaped in a regex")
                .note(format!(
                    "deep_merge uses the prefix inside `/^<prefix>/` without escaping it, so \
                     {} that merges two or more values fails: `RegexpError: {}` (reference \
                     §4.5; recorded: fixtures/conformance/merge/deep-knockout-regex-prefix \
                     `paren`)",
                    blast(key),
                    err.message
                ))
                .note("help: use a prefix without regex characters, such as `--`");
                self.report(d);
            }
            Ok(_) => {
                let meta = lopts::regex_metacharacters(prefix);
                let meta: Vec<char> = meta
                    .into_iter()
                    .chain(prefix.contains('.').then_some('.'))
                    .collect();
                if meta.is_empty() {
                    return;
                }
                let shown: Vec<String> = meta.iter().map(|c| format!("`{c}`")).collect();
                let d = Diagnostic::new(
                    &META,
                    self.src(),
                    span,
                    format!("`knockout_prefix` `{prefix}` holds regex characters"),
                )
                .with_severity(Severity::Warning)
                .primary_message(format!("{} read as regex syntax", shown.join(", ")))
                .note(
                    "deep_merge uses the prefix inside `/^<prefix>/` without escaping it: `.` \
                     matches any character, and `*`, `+`, `^`, `$` make it knock out nothing, \
                     leaving the prefixed elements in the result (reference §4.5; recorded: \
                     fixtures/conformance/merge/deep-knockout-regex-prefix)",
                )
                .note("help: use a prefix without regex characters, such as `--`");
                self.report(d);
            }
        }
    }

    /// One diagnostic per problem `MergeStrategy::parse` reports, each at the node it is about.
    fn merge_parse_error(&mut self, key: &str, o: &Entry, message: &str) {
        let map = o.value.as_map();
        let strategy_node = map.and_then(|m| field(m, "strategy"));
        let strategy_name = strategy_node
            .and_then(|e| e.value.as_str())
            .or_else(|| o.value.as_str())
            .unwrap_or("");
        let problems: Vec<&str> = message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let count = problems.len();
        for line in problems {
            // Puppet reports every problem of the entry in one message; each diagnostic quotes
            // its own line of it.
            let also = if count > 1 {
                format!(", one of the {count} problems its message lists")
            } else {
                String::new()
            };
            let puppet = format!(
                "Puppet fails {}: `{line}`{also} (reference §4.6; recorded: \
                 fixtures/conformance/lopts/entry-shapes, \
                 fixtures/conformance/merge/invalid-strategy)",
                blast(key)
            );
            let (span, msg, label, help) = if let Some(name) = line
                .strip_prefix("Unknown merge strategy: '")
                .and_then(|r| r.strip_suffix('\''))
            {
                let span = strategy_node
                    .map(value_span)
                    .unwrap_or_else(|| value_span(o));
                let help = if let Some(s) = STRATEGIES.iter().find(|s| s.eq_ignore_ascii_case(name))
                {
                    format!("help: strategy names are case-sensitive: `{s}`")
                } else if let Some(s) = closest(name, &STRATEGIES) {
                    format!("help: did you mean `{s}`?")
                } else {
                    "help: the strategies are `first`, `unique`, `hash` and `deep`".to_string()
                };
                let msg = if name.is_empty() {
                    "empty merge strategy".to_string()
                } else {
                    format!("unknown merge strategy `{name}`")
                };
                (span, msg, "not a merge strategy".to_string(), help)
            } else if line.starts_with("The hash given as 'merge' must contain") {
                // `strategy: ~` (or empty): at the null, not over the whole hash.
                let (span, label, help) = match strategy_node {
                    Some(e) => (
                        value_span(e),
                        "a null strategy",
                        "help: name one: `strategy: deep`",
                    ),
                    None => (
                        value_span(o),
                        "no `strategy` key",
                        "help: add `strategy: deep` (options belong to the deep merge)",
                    ),
                };
                (
                    span,
                    "the `merge` hash names no `strategy`".to_string(),
                    label.to_string(),
                    help.to_string(),
                )
            } else if let Some(opt) = between(line, "unrecognized key '", "'") {
                let at = map
                    .and_then(|m| field(m, opt))
                    .map(|e| e.key.span)
                    .unwrap_or_else(|| value_span(o));
                let (msg, help) = if strategy_name == "deep" {
                    (
                        format!("`{opt}` is not an option of the deep merge"),
                        match closest(opt, &DEEP_OPTIONS) {
                            Some(c) => format!("help: did you mean `{c}`?"),
                            None => "help: the deep merge takes `knockout_prefix`, `merge_hash_arrays`, `sort_merged_arrays` and `merge_debug`".to_string(),
                        },
                    )
                } else {
                    (
                        format!("the `{strategy_name}` merge takes no option `{opt}`"),
                        if DEEP_OPTIONS.contains(&opt) {
                            format!(
                                "help: `{opt}` is an option of the deep merge: `strategy: deep`"
                            )
                        } else {
                            format!("help: remove `{opt}`")
                        },
                    )
                };
                (at, msg, "unknown option".to_string(), help)
            } else if let Some(opt) = between(line, "entry '", "' expects") {
                let at = map
                    .and_then(|m| field(m, opt))
                    .map(value_span)
                    .unwrap_or_else(|| value_span(o));
                let want = line
                    .split(" expects ")
                    .nth(1)
                    .and_then(|r| r.split(", got ").next())
                    .unwrap_or("another type")
                    .to_string();
                let takes = if want.contains("Boolean") {
                    "`true` or `false`"
                } else if want.contains("String") {
                    "a String"
                } else {
                    want.as_str()
                };
                let help = match map
                    .and_then(|m| field(m, opt))
                    .and_then(|e| e.value.as_str())
                {
                    Some(t @ ("true" | "false")) => format!("help: write `{t}` without quotes"),
                    _ => format!("help: `{opt}` takes {takes}"),
                };
                (
                    at,
                    format!("merge option `{opt}` has the wrong type"),
                    format!("expects {want}"),
                    help,
                )
            } else {
                (
                    value_span(o),
                    "invalid merge options".to_string(),
                    "Puppet rejects these options".to_string(),
                    "help: option names are Strings".to_string(),
                )
            };
            let d = Diagnostic::new(&META, self.src(), span, format!("{msg} for `{key}`"))
                .primary_message(label)
                .note(puppet)
                .note(help);
            self.report(d);
        }
    }
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let i = s.find(start)? + start.len();
    let j = s[i..].find(end)? + i;
    Some(&s[i..j])
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn article(n: &Node) -> String {
    match &n.kind {
        NodeKind::Seq(_) => "a list".to_string(),
        NodeKind::Map(_) => "a hash".to_string(),
        NodeKind::Scalar(s) => article_value(&s.value),
    }
}

fn article_value(v: &Value) -> String {
    match v {
        Value::Undef => "null".to_string(),
        Value::Integer(_) => "an Integer".to_string(),
        Value::Array(_) => "a list".to_string(),
        Value::Hash(_) => "a hash".to_string(),
        other => format!("a {}", other.type_name()),
    }
}

/// Advice for a non-hash entry: the hash it was probably meant to be.
fn help_for_entry(v: &Value) -> String {
    match v {
        Value::String(s) if STRATEGIES.contains(&&**s) => {
            format!("help: write `{{merge: {s}}}`")
        }
        Value::Array(a) => {
            let names: Vec<&str> = a.iter().filter_map(|x| x.as_str()).collect();
            if let Some(s) = names.iter().find(|n| STRATEGIES.contains(n)) {
                format!("help: write a hash: `{{merge: {s}}}`")
            } else {
                "help: write a hash: `{merge: <strategy>}`".to_string()
            }
        }
        _ => "help: write a hash: `{merge: <strategy>}`".to_string(),
    }
}

/// A `lookup_options:` left null in one file while another file the same nodes read (in the
/// same layer) defines lookup_options: Puppet's hash merge of the layer's lookup_options
/// type-checks both and fails, for every key (recorded: lopts/null-and-non-hash; one null
/// alone is ignored: lopts/single-null). Reported here, with the other `lookup_options`
/// problems; merges of data values are H406's.
fn null_lookup_options(project: &Project, sink: &mut Sink) {
    // Cheap pre-filter: only environments with a null `lookup_options` somewhere.
    let has_null = |root: &Path| {
        project.files.iter().any(|f| {
            f.env_root.as_deref() == Some(root)
                && lopts::top_entry(f).is_some_and(|e| e.value.to_value().is_undef())
        })
    };
    if !project
        .files
        .iter()
        .any(|f| lopts::top_entry(f).is_some_and(|e| e.value.to_value().is_undef()))
    {
        return;
    }
    let analysis = project.analysis();
    for env in &analysis.envs {
        if !has_null(&env.root) {
            continue;
        }
        let by_path: std::collections::HashMap<&Path, &LoadedFile> = project
            .files
            .iter()
            .filter(|f| f.env_root.as_deref() == Some(&*env.root))
            .map(|f| (f.source.path.as_path(), f))
            .collect();
        // (file, span) → (diagnostic parts, groups)
        let mut found: BTreeMap<(PathBuf, u32), (Finding, Vec<usize>)> = BTreeMap::new();
        for (gi, g) in env.groups.iter().enumerate() {
            // Files with lookup_options, per layer (a module's default_hierarchy is merged on
            // its own), in hierarchy order.
            let mut layers: Vec<(LayerId, Vec<LoptsAt<'_>>)> = Vec::new();
            for level in &g.hierarchy.levels {
                let id = (level.layer.clone(), level.default_hierarchy);
                for loc in level.locations.iter().flatten() {
                    if loc.is_uri || !loc.exists {
                        continue;
                    }
                    let Some(&f) = by_path.get(loc.path()) else {
                        continue;
                    };
                    let Some(e) = lopts::top_entry(f) else {
                        continue;
                    };
                    match layers.iter_mut().find(|(k, _)| *k == id) {
                        Some((_, v)) => v.push((f, e)),
                        None => layers.push((id.clone(), vec![(f, e)])),
                    }
                }
            }
            for ((place, _), files) in &layers {
                if files.len() < 2 || !files.iter().any(|(_, e)| e.value.to_value().is_undef()) {
                    continue;
                }
                let Some(f) = merge_failure(place, files) else {
                    continue;
                };
                let key = (f.file.source.path.clone(), f.span.start);
                found
                    .entry(key)
                    .or_insert_with(|| (f, Vec::new()))
                    .1
                    .push(gi);
            }
        }
        for (f, groups) in found.into_values() {
            let who = env.describe(&groups);
            let d = Diagnostic::new(
                &META,
                &f.file.source,
                f.span,
                "`lookup_options` is null here while another level defines lookup_options",
            )
            .primary_message("null")
            .label(&f.other.source, f.other_span, "merged with this")
            .note(format!(
                "Puppet merges the `lookup_options` of all levels with the hash strategy, which \
                 rejects a null: {} fails, {who}: `{}` (reference §3.2; recorded: \
                 fixtures/conformance/lopts/null-and-non-hash; a null alone is ignored: \
                 fixtures/conformance/lopts/single-null)",
                f.scope, f.message
            ))
            .note("help: remove the empty `lookup_options:` key");
            sink.report(d);
        }
    }
}

/// A layer of a group's hierarchy: its place, and whether it is a module's default_hierarchy.
type LayerId = (Place, bool);

/// A file's `lookup_options` entry.
type LoptsAt<'p> = (&'p LoadedFile, &'p Entry);

struct Finding<'p> {
    file: &'p LoadedFile,
    span: Span,
    other: &'p LoadedFile,
    other_span: Span,
    message: String,
    scope: String,
}

/// Puppet's hash merge of one layer's `lookup_options` values, in priority order: the null
/// value it fails on, the value it was merged with, and the message.
fn merge_failure<'p>(place: &Place, files: &[LoptsAt<'p>]) -> Option<Finding<'p>> {
    let hash = MergeStrategy::of(StrategyKind::Hash);
    let values: Vec<Value> = files.iter().map(|(_, e)| e.value.to_value()).collect();
    let mut memo = values.first()?.clone();
    for i in 1..values.len() {
        match hash.merge(&memo, &values[i]) {
            Ok(r) => memo = r,
            Err(err) => {
                let (bad, other) = if err.message.contains("The first element") {
                    (i - 1, i)
                } else {
                    (i, i - 1)
                };
                if !values[bad].is_undef() {
                    return None;
                }
                let scope = match place {
                    Place::Module(m) => format!("every lookup of a `{m}::` key"),
                    _ => "every lookup".to_string(),
                };
                return Some(Finding {
                    file: files[bad].0,
                    span: value_span(files[bad].1),
                    other: files[other].0,
                    other_span: files[other].1.key.span,
                    message: err.message,
                    scope,
                });
            }
        }
    }
    None
}

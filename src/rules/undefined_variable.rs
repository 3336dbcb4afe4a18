//! H302 `undefined-variable`: a variable, or a fact under `facts`, that a fact set does not
//! have, in a hierarchy path or a data value.

use crate::analysis::EnvAnalysis;
use crate::diag::{Diagnostic, Severity};
use crate::engine::scope::VarLookup;
use crate::engine::PuppetVersion;
use crate::interp::{split_key, Segment};
use crate::project::{FileRole, LoadedFile, Project};
use crate::rules::interp_sites::{config_sites, data_sites, Place, Site};
use crate::rules::{Rule, RuleMeta, Sink};
use crate::value::Value;

crate::declare_rule!(pub static META = {
    code: "H302",
    name: "undefined-variable",
    category: Correctness,
    summary: "a variable or fact that some fact sets do not have, in hiera.yaml or data",
});

pub struct UndefinedVariable;

/// What a variable expression gives for one node.
enum Reading {
    /// Defined (or not checked: a sub-key Puppet may dig but hieralint does not judge).
    Ok,
    /// The root variable is undefined: Puppet warns or fails; the name as Puppet prints it.
    Undefined(String),
    /// The root exists but a sub-key does not: Puppet silently interpolates `''`.
    Missing,
}

fn reading(scope: &crate::engine::Scope, segments: &[Segment]) -> Reading {
    let Some(Segment::Str(root)) = segments.first() else {
        return Reading::Ok;
    };
    let value = match scope.lookup(root) {
        VarLookup::Undefined { name, .. } => return Reading::Undefined(name),
        VarLookup::BuiltIn => return Reading::Ok,
        VarLookup::Found(v) => v,
    };
    let bare = root.trim_start_matches("::");
    let rest = &segments[1..];
    match bare {
        // Fact sets rarely carry server facts: their absence says nothing about the servers.
        "server_facts" => return Reading::Ok,
        // `$trusted` always has its keys; only extensions vary, and only a fact set that
        // carries some tells which ones a node has.
        "trusted" => {
            let has_extensions = matches!(
                &value,
                Value::Hash(h) if h
                    .get(&Value::string("extensions"))
                    .and_then(Value::as_hash)
                    .is_some_and(|e| !e.is_empty())
            );
            if !(rest.first().and_then(Segment::as_str) == Some("extensions") && has_extensions) {
                return Reading::Ok;
            }
        }
        _ => {}
    }
    let mut cur = value;
    for seg in rest {
        let next = match (&cur, seg) {
            (Value::Hash(h), Segment::Str(s)) => h.get(&Value::string(s.as_str())).cloned(),
            (Value::Hash(h), Segment::Int(i)) => h.get(&Value::Integer(*i)).cloned(),
            (Value::Array(a), Segment::Int(i)) => {
                usize::try_from(*i).ok().and_then(|i| a.get(i)).cloned()
            }
            // Digging into a String or a number is a type error, not a missing value.
            _ => return Reading::Ok,
        };
        match next {
            Some(Value::Undef) | None => return Reading::Missing,
            Some(v) => cur = v,
        }
    }
    Reading::Ok
}

/// Severity and what Puppet does with an undefined variable, for the modelled version.
fn undefined_effect(puppet: PuppetVersion, place: Place, name: &str) -> (Severity, String) {
    match (puppet, place) {
        (PuppetVersion::V7, _) => (
            Severity::Warning,
            format!("Puppet 7 warns `Undefined variable '{name}'` and interpolates an empty string (with strict=error it fails)"),
        ),
        (PuppetVersion::V8, Place::Data) => (
            Severity::Error,
            format!("Puppet 8 fails every lookup of this key: Undefined variable '{name}'"),
        ),
        (PuppetVersion::V8, Place::ConfigOther) => (
            Severity::Error,
            format!("Puppet 8 fails every lookup through this layer: Undefined variable '{name}'"),
        ),
        (PuppetVersion::V8, Place::ConfigLocation) => (
            Severity::Warning,
            format!("Puppet 8 warns `Interpolation failed with '{name}', but compilation continuing` and interpolates an empty string, so this level reads another path"),
        ),
    }
}

/// A token to check, with the nodes that evaluate it.
struct Check<'a> {
    file: &'a LoadedFile,
    site: Site<'a>,
    nodes: Vec<usize>,
}

impl UndefinedVariable {
    fn check_site(&self, project: &Project, env: &EnvAnalysis, c: &Check, sink: &mut Sink) {
        for t in c.site.tokens() {
            let Some(expr) = t.scope_key() else { continue };
            // Method calls read as variables (`lookup(a)`) and nested tokens are
            // `interpolation-syntax-error` (H201).
            if expr.contains(['(', ')']) || expr.contains("%{") {
                continue;
            }
            let Ok(segments) = split_key(expr) else {
                continue;
            };
            if let (Some(Segment::Str(root)), Some(local)) = (segments.first(), &c.site.local_var) {
                if root == local {
                    continue;
                }
            }
            let mut undefined: Vec<usize> = Vec::new();
            let mut name = String::new();
            let mut missing: Vec<usize> = Vec::new();
            for &n in &c.nodes {
                match reading(&env.nodes[n].scope, &segments) {
                    Reading::Ok => {}
                    Reading::Undefined(v) => {
                        name = v;
                        undefined.push(n);
                    }
                    Reading::Missing => missing.push(n),
                }
            }
            let span = c.site.span_of(&c.file.source, t.range.clone());
            let text = &c.site.value[t.range.clone()];
            let place = c.site.place();
            if !undefined.is_empty() {
                let (severity, effect) = undefined_effect(project.puppet(), place, &name);
                sink.report(
                    Diagnostic::new(
                        &META,
                        &c.file.source,
                        span,
                        format!(
                            "`{text}`: the variable `{name}` is not defined {}",
                            env.describe_nodes(&undefined)
                        ),
                    )
                    .with_severity(severity)
                    .note(effect),
                );
            }
            if !missing.is_empty() {
                let consequence = match place {
                    Place::Data => "Puppet interpolates an empty string, without a warning",
                    _ => "Puppet interpolates an empty string, without a warning, so this level reads another path",
                };
                sink.report(
                    Diagnostic::new(
                        &META,
                        &c.file.source,
                        span,
                        format!(
                            "`{text}`: `{}` has no value {}",
                            expr.trim(),
                            env.describe_nodes(&missing)
                        ),
                    )
                    .with_severity(Severity::Warning)
                    .note(consequence),
                );
            }
        }
    }
}

impl Rule for UndefinedVariable {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn needs_analysis(&self) -> bool {
        true
    }

    fn check_project(&self, project: &Project, sink: &mut Sink) {
        // Nodes implied by the data bind only what file names reveal; every other variable
        // is unknown there, not undefined: only real fact sets are judged.
        if project.fact_sets.is_empty() {
            return;
        }
        let analysis = project.analysis();
        for env in analysis
            .envs
            .iter()
            .filter(|e| e.real_facts && !e.nodes.is_empty())
        {
            let index = env.read_index();
            let all: Vec<usize> = (0..env.nodes.len()).collect();
            for file in &project.files {
                if file.env_root.as_deref() != Some(env.root.as_path()) {
                    continue;
                }
                let checks: Vec<Check> = if file.role == FileRole::HieraConfig {
                    // Every level of a layer's hierarchy is interpolated when its providers
                    // are created, for every node.
                    config_sites(file)
                        .into_iter()
                        // What an undefined `mapped_paths[0]` does is not recorded.
                        .filter(|s| s.role != Some(crate::config::StringRole::MappedPathsScope))
                        .map(|site| Check {
                            file,
                            site,
                            nodes: all.clone(),
                        })
                        .collect()
                } else {
                    // A data file's tokens are evaluated for the nodes that read it.
                    let nodes: Vec<usize> = index
                        .groups_reading(&file.source.path)
                        .iter()
                        .flat_map(|&g| env.groups[g].nodes.iter().copied())
                        .collect();
                    if nodes.is_empty() {
                        continue;
                    }
                    data_sites(file)
                        .into_iter()
                        .filter(|s| !s.copied)
                        .map(|site| Check {
                            file,
                            site,
                            nodes: nodes.clone(),
                        })
                        .collect()
                };
                for c in &checks {
                    self.check_site(project, env, c, sink);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Scope, Trusted};
    use crate::value::Hash;

    fn scope(facts: &[(&str, Value)], extensions: &[(&str, &str)]) -> Scope {
        let mut h = Hash::default();
        for (k, v) in facts {
            h.insert(Value::string(*k), v.clone());
        }
        let mut t = Trusted {
            certname: Some("web01.example.com".into()),
            ..Default::default()
        };
        for (k, v) in extensions {
            t.extensions.insert(Value::string(*k), Value::string(*v));
        }
        Scope::for_node(&h, &t, None, "production")
    }

    fn kind(s: &Scope, expr: &str) -> &'static str {
        match reading(s, &split_key(expr).unwrap()) {
            Reading::Ok => "ok",
            Reading::Undefined(_) => "undefined",
            Reading::Missing => "missing",
        }
    }

    #[test]
    fn readings() {
        let mut os = Hash::default();
        os.insert(Value::string("family"), Value::string("Debian"));
        let s = scope(
            &[
                ("os", Value::hash(os)),
                ("list", Value::array(vec![Value::string("a")])),
            ],
            &[],
        );
        assert_eq!(kind(&s, "facts.os.family"), "ok");
        assert_eq!(kind(&s, "::facts.os.family"), "ok");
        assert_eq!(kind(&s, "os.family"), "ok");
        assert_eq!(kind(&s, "facts.os.name"), "missing");
        assert_eq!(kind(&s, "facts.role"), "missing");
        assert_eq!(kind(&s, "facts.list.0"), "ok");
        assert_eq!(kind(&s, "facts.list.3"), "missing");
        // Digging into a String is a type error, another problem.
        assert_eq!(kind(&s, "facts.os.family.x"), "ok");
        assert_eq!(kind(&s, "::nope"), "undefined");
        assert_eq!(kind(&s, "nope.sub"), "undefined");
        assert_eq!(kind(&s, "module_name"), "ok");
        assert_eq!(kind(&s, "trusted.certname"), "ok");
        // Without extensions in the fact set, extensions are not judged.
        assert_eq!(kind(&s, "trusted.extensions.pp_role"), "ok");
        assert_eq!(kind(&s, "server_facts.servername"), "ok");
        let s = scope(&[], &[("pp_role", "web")]);
        assert_eq!(kind(&s, "trusted.extensions.pp_role"), "ok");
        assert_eq!(kind(&s, "trusted.extensions.pp_zone"), "missing");
    }

    #[test]
    fn severity_follows_version_and_place() {
        use PuppetVersion::*;
        assert_eq!(undefined_effect(V7, Place::Data, "x").0, Severity::Warning);
        assert_eq!(
            undefined_effect(V7, Place::ConfigOther, "x").0,
            Severity::Warning
        );
        assert_eq!(undefined_effect(V8, Place::Data, "x").0, Severity::Error);
        assert_eq!(
            undefined_effect(V8, Place::ConfigOther, "x").0,
            Severity::Error
        );
        assert_eq!(
            undefined_effect(V8, Place::ConfigLocation, "x").0,
            Severity::Warning
        );
        assert!(undefined_effect(V8, Place::ConfigLocation, "::x")
            .1
            .contains("Interpolation failed with '::x'"));
    }
}

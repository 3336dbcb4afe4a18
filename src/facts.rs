//! Fact sets: the facts, trusted data and server facts of one node, read from the files people
//! have (facter output, `puppet facts`, PuppetDB exports, Puppet's YAML facts cache), and the
//! top-scope variables Puppet derives from them for a lookup.
//!
//! Forms recognised (see [`load_fact_sets`]):
//! * a plain facts hash: `facter -j`, `puppet facts show`, or the oracle's convention of
//!   top-level `"trusted"` and `"server_facts"` keys beside the facts
//!   (/work/shared/oracle/README.md, `lookup-batch.rb:64-68`);
//! * the `Puppet::Node::Facts` wrapper `{"name": .., "values": {..}, "timestamp": .., ..}`, as
//!   `puppet facts find` renders it and as Puppet's YAML facts cache stores it
//!   (`--- !ruby/object:Puppet::Node::Facts`: the tag is recognised and dropped, nothing is
//!   instantiated; `!ruby/sym` keys and values and unquoted timestamps are tolerated);
//! * PuppetDB: a factset `{certname, environment, facts}` or a list of them, where `facts` is
//!   `{"data": [{name, value}..]}` (export), `{"href": .., "data": [..]}` (`/pdb/query/v4/factsets`),
//!   a bare `[{name, value}..]` or a hash; a list of facts `{certname, name, value}`
//!   (`/pdb/query/v4/facts`), grouped by certname; and `{certname, values, ..}` (the
//!   `replace facts` command and `puppet db export`).
//!
//! Facts are sanitized as Puppet's `Puppet::Node::Facts#sanitize` does when a node is built
//! (`node/facts.rb:73-160`): `nil` becomes `""`, Symbols become Strings (keys too). Recorded with
//! the oracle: a fact `null` reads back as `""` through `%{facts.x}` and `%{::x}`
//! (fixtures/facts/oracle/answers.json).

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::loader::{self, Format, LoadIssueKind};
use crate::span::{SourceFile, Span};
use crate::value::{Hash, Node, NodeKind, Value};

/// The facts of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct FactSet {
    /// The node name (certname), see [`load_fact_sets`] for the order it is looked for in.
    pub name: String,
    /// The file it came from.
    pub source: PathBuf,
    /// The facts (a Hash), sanitized, without the `trusted` and `server_facts` entries.
    pub facts: Value,
    /// `$trusted`: `{"authenticated", "certname", "extensions", "hostname", "domain",
    /// "external"}` in `TrustedInformation#to_h` order.
    pub trusted: Value,
    /// Server facts when the set has them (`$server_facts` is then this plus `environment`).
    pub server_facts: Option<Value>,
    /// The environment the set names (PuppetDB factsets do), if any.
    pub environment: Option<String>,
}

/// A file (or one entry of it) that does not hold usable facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactsError {
    pub path: PathBuf,
    pub message: String,
    /// Where in the file, when known.
    pub span: Option<Span>,
}

/// Loads fact sets from files and directories (directories are walked recursively in file-name
/// order and their `.json`, `.yaml` and `.yml` files read; a file named directly is read
/// whatever its extension: JSON for `.json`, YAML for `.yaml`/`.yml`, otherwise JSON and then
/// YAML, as `puppet lookup --facts` does, `application/lookup.rb:353-361`).
///
/// The node name is, in order: `trusted.certname`, the name the file gives (`name` of the
/// Facts wrapper, PuppetDB's `certname`), the `clientcert` fact, `networking.fqdn`, `fqdn`, and
/// the file's stem. `lookup-batch.rb:68` uses the same order (without the wrapper names, and with
/// a fixed default instead of the stem).
pub fn load_fact_sets(paths: &[PathBuf]) -> (Vec<FactSet>, Vec<FactsError>) {
    let mut sets = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.is_dir() {
            for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
                let entry = match entry {
                    Ok(e) => e,
                    Err(err) => {
                        errors.push(FactsError {
                            path: err.path().unwrap_or(path).to_path_buf(),
                            message: err.to_string(),
                            span: None,
                        });
                        continue;
                    }
                };
                let p = entry.path();
                let wanted = entry.file_type().is_file()
                    && matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("json" | "yaml" | "yml")
                    );
                if wanted {
                    load_file(p, &mut sets, &mut errors);
                }
            }
        } else {
            load_file(path, &mut sets, &mut errors);
        }
    }
    (sets, errors)
}

fn load_file(path: &Path, sets: &mut Vec<FactSet>, errors: &mut Vec<FactsError>) {
    match std::fs::read(path) {
        Ok(bytes) => {
            let file = SourceFile::from_bytes(path, &bytes);
            let (mut s, mut e) = load_fact_file(&file);
            sets.append(&mut s);
            errors.append(&mut e);
        }
        Err(err) => errors.push(FactsError {
            path: path.to_path_buf(),
            message: format!("cannot read the file: {err}"),
            span: None,
        }),
    }
}

/// Loads the fact sets of one file already read (its path picks the format).
pub fn load_fact_file(file: &SourceFile) -> (Vec<FactSet>, Vec<FactsError>) {
    let path = file.path();
    let err = |message: String, span: Option<Span>| FactsError {
        path: path.to_path_buf(),
        message,
        span,
    };
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let formats: &[Format] = match ext {
        "json" => &[Format::Json],
        "yaml" | "yml" => &[Format::Yaml],
        _ => &[Format::Json, Format::Yaml],
    };
    let mut first_error = None;
    for &format in formats {
        // A BOM is already gone from `file`: right for YAML (Puppet reads YAML fact files with
        // 'bom|utf-8', util/yaml.rb:45); the JSON loader still reports it, as Puppet's
        // JSON.parse fails on it.
        let doc = loader::load(format, file);
        let fatal = doc.issues.iter().find(|i| {
            matches!(
                i.kind,
                LoadIssueKind::Syntax | LoadIssueKind::Limit | LoadIssueKind::RubyError
            )
            // The facts cache's `!ruby/object:Puppet::Node::Facts` tag and timestamps
            // (ForbiddenTag, DateTime) are expected: read tolerantly.
        });
        if let Some(issue) = fatal {
            first_error.get_or_insert_with(|| {
                err(
                    format!("not valid {format:?}: {}", first_line(&issue.message)),
                    Some(issue.span),
                )
            });
            continue;
        }
        let Some(root) = doc.root.as_ref() else {
            first_error
                .get_or_insert_with(|| err("the file holds no facts (it is empty)".into(), None));
            continue;
        };
        return from_root(path, root);
    }
    let error = first_error.unwrap_or_else(|| err("the file holds no facts".into(), None));
    (Vec::new(), vec![error])
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Recognises the shape of a loaded file.
fn from_root(path: &Path, root: &Node) -> (Vec<FactSet>, Vec<FactsError>) {
    let mut sets = Vec::new();
    let mut errors = Vec::new();
    let err = |message: String, span: Span| FactsError {
        path: path.to_path_buf(),
        message,
        span: Some(span),
    };
    match &root.kind {
        NodeKind::Map(_) => match map_shape(root) {
            Ok(raw) => finish(path, raw, &mut sets, &mut errors),
            Err((message, span)) => errors.push(err(message, span)),
        },
        NodeKind::Seq(items) => {
            if items.is_empty() {
                errors.push(err("an empty list: no fact sets".into(), root.span));
            } else if items.iter().all(is_fact_entry) {
                // /pdb/query/v4/facts: one entry per fact, grouped by certname in order.
                let mut groups: IndexMap<String, (Hash, Option<String>)> = IndexMap::new();
                for item in items {
                    let m = item.as_map().into_iter().flat_map(|m| m.entries.iter());
                    let mut certname = None;
                    let mut name = None;
                    let mut value = None;
                    let mut env = None;
                    for e in m {
                        match e.key.as_str() {
                            Some("certname") => certname = e.value.as_str().map(str::to_string),
                            Some("name") => name = Some(e.value.to_value()),
                            Some("value") => value = Some(e.value.to_value()),
                            Some("environment") => env = e.value.as_str().map(str::to_string),
                            _ => {}
                        }
                    }
                    let (Some(certname), Some(name), Some(value)) = (certname, name, value) else {
                        errors.push(err(
                            "a PuppetDB fact needs a string certname, a name and a value".into(),
                            item.span,
                        ));
                        continue;
                    };
                    let g = groups
                        .entry(certname)
                        .or_insert_with(|| (Hash::default(), None));
                    g.0.insert(name, value);
                    if g.1.is_none() {
                        g.1 = env;
                    }
                }
                for (certname, (facts, environment)) in groups {
                    let raw = Raw {
                        facts,
                        name: Some(certname),
                        environment,
                    };
                    finish(path, raw, &mut sets, &mut errors);
                }
            } else {
                for item in items {
                    if item.as_map().is_some_and(|m| m.get("certname").is_some()) {
                        match map_shape(item) {
                            Ok(raw) => finish(path, raw, &mut sets, &mut errors),
                            Err((message, span)) => errors.push(err(message, span)),
                        }
                    } else {
                        errors.push(err(
                            format!(
                                "a list of fact sets must hold PuppetDB factsets ({{\"certname\", \
                                 \"facts\"}}) or facts ({{\"certname\", \"name\", \"value\"}}); \
                                 this entry is a {}",
                                item.type_name()
                            ),
                            item.span,
                        ));
                    }
                }
            }
        }
        NodeKind::Scalar(_) => errors.push(err(
            format!(
                "facts must be a hash (or a list of PuppetDB fact sets), not a {}",
                root.type_name()
            ),
            root.span,
        )),
    }
    (sets, errors)
}

/// A fact set as found, before trusted data and the name are worked out.
struct Raw {
    facts: Hash,
    name: Option<String>,
    environment: Option<String>,
}

fn is_fact_entry(n: &Node) -> bool {
    n.as_map().is_some_and(|m| {
        m.get("certname").is_some()
            && m.get("name").is_some()
            && m.get("value").is_some()
            && m.get("facts").is_none()
            && m.get("values").is_none()
    })
}

/// Keys of the Facts wrapper (`Puppet::Node::Facts#to_data_hash`, `node/facts.rb:89-111`).
const WRAPPER_KEYS: &[&str] = &["name", "values", "timestamp", "expiration", "_timestamp"];

/// One hash: a Facts wrapper, a PuppetDB factset, or plain facts.
fn map_shape(node: &Node) -> Result<Raw, (String, Span)> {
    let Some(m) = node.as_map() else {
        return Err(("not a hash".into(), node.span));
    };
    let str_of = |k: &str| m.get_value(k).and_then(|v| v.as_str()).map(str::to_string);
    let tagged_facts = node
        .tag()
        .is_some_and(|t| t.suffix == "ruby/object:Puppet::Node::Facts");
    let wrapper = tagged_facts
        || (m.get_value("values").is_some_and(|v| v.as_map().is_some())
            && m.get_value("name").is_some_and(|v| v.as_str().is_some())
            && m.entries
                .iter()
                .all(|e| e.key.as_str().is_some_and(|k| WRAPPER_KEYS.contains(&k))));
    if wrapper {
        let values = m.get_value("values");
        let Some(values) = values.filter(|v| v.as_map().is_some()) else {
            return Err((
                "a Puppet::Node::Facts without a `values` hash".into(),
                values.map_or(node.span, |v| v.span),
            ));
        };
        let mut facts = to_hash(values);
        // Puppet drops the legacy `_timestamp` fact (node/facts.rb:46).
        facts.shift_remove(&Value::from("_timestamp"));
        return Ok(Raw {
            facts,
            name: str_of("name"),
            environment: None,
        });
    }
    if let Some(certname) = str_of("certname") {
        let environment = str_of("environment");
        // `replace facts` / `puppet db export`: {certname, values}.
        if let Some(values) = m.get_value("values") {
            if values.as_map().is_none() {
                return Err((
                    "PuppetDB `values` must be a hash of facts".into(),
                    values.span,
                ));
            }
            return Ok(Raw {
                facts: to_hash(values),
                name: Some(certname),
                environment,
            });
        }
        if let Some(facts) = m.get_value("facts") {
            return Ok(Raw {
                facts: puppetdb_facts(facts)?,
                name: Some(certname),
                environment,
            });
        }
    }
    Ok(Raw {
        facts: to_hash(node),
        name: None,
        environment: None,
    })
}

/// A factset's `facts`: `{"data": [..]}`, `{"href": .., "data": [..]}`, `[{name, value}..]`, or a
/// plain hash.
fn puppetdb_facts(facts: &Node) -> Result<Hash, (String, Span)> {
    let list = match &facts.kind {
        NodeKind::Seq(items) => items.as_slice(),
        NodeKind::Map(m) => match m.get_value("data") {
            Some(data)
                if m.entries
                    .iter()
                    .all(|e| matches!(e.key.as_str(), Some("data" | "href"))) =>
            {
                match data.as_seq() {
                    Some(items) => items,
                    None => {
                        return Err(("PuppetDB `facts.data` must be a list".into(), data.span));
                    }
                }
            }
            _ => return Ok(to_hash(facts)),
        },
        NodeKind::Scalar(_) => {
            // `{"href": ..}` alone (facts not expanded) ends up here too.
            return Err((
                "PuppetDB `facts` must be a hash or a list of {name, value}".into(),
                facts.span,
            ));
        }
    };
    let mut out = Hash::default();
    for item in list {
        let entry = item
            .as_map()
            .and_then(|m| Some((m.get_value("name")?, m.get_value("value")?)));
        match entry {
            Some((name, value)) => {
                out.insert(name.to_value(), value.to_value());
            }
            None => {
                return Err((
                    "a PuppetDB fact must be {\"name\": .., \"value\": ..}".into(),
                    item.span,
                ))
            }
        }
    }
    Ok(out)
}

fn to_hash(node: &Node) -> Hash {
    match node.to_value() {
        Value::Hash(h) => std::sync::Arc::try_unwrap(h).unwrap_or_else(|h| (*h).clone()),
        _ => Hash::default(),
    }
}

/// Splits off `trusted` and `server_facts`, sanitizes, names the set.
fn finish(path: &Path, raw: Raw, sets: &mut Vec<FactSet>, errors: &mut Vec<FactsError>) {
    // `trusted` and `server_facts` are not facts (the oracle's convention; PuppetDB stores the
    // trusted data as a `trusted` fact). Like the oracle, they are taken out before the facts
    // are sanitized.
    let mut facts = Hash::with_capacity_and_hasher(raw.facts.len(), Default::default());
    let mut trusted_in = None;
    let mut server_facts = None;
    for (k, v) in raw.facts {
        let k = sanitize(k);
        match k.as_str() {
            Some("trusted") => trusted_in = Some(v),
            Some("server_facts") => server_facts = Some(v),
            _ => {
                facts.insert(k, sanitize(v));
            }
        }
    }
    let trusted_in = trusted_in.as_ref().and_then(Value::as_hash);
    let server_facts = server_facts.filter(|v| v.as_hash().is_some());
    let string = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let networking_fqdn = facts
        .get(&Value::from("networking"))
        .and_then(Value::as_hash)
        .and_then(|n| n.get(&Value::from("fqdn")));
    let name = string(trusted_in.and_then(|t| t.get(&Value::from("certname"))))
        .or(raw.name)
        .or_else(|| string(facts.get(&Value::from("clientcert"))))
        .or_else(|| string(networking_fqdn))
        .or_else(|| string(facts.get(&Value::from("fqdn"))))
        .unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    for reserved in ["facts"] {
        if facts.contains_key(&Value::from(reserved)) {
            errors.push(FactsError {
                path: path.to_path_buf(),
                message: format!(
                    "node {name}: a fact named `{reserved}` makes Puppet fail (Attempt to assign \
                     to a reserved variable name: '{reserved}'); it is not a top-scope variable here"
                ),
                span: None,
            });
        }
    }
    let trusted = trusted_hash(trusted_in, &name);
    sets.push(FactSet {
        name,
        source: path.to_path_buf(),
        facts: Value::hash(facts),
        trusted,
        server_facts,
        environment: raw.environment,
    });
}

/// `Puppet::Node::Facts#sanitize_fact`: nil becomes "" and Symbols (any non-data object) their
/// string, recursively, keys included.
fn sanitize(v: Value) -> Value {
    match v {
        Value::Undef => Value::from(""),
        Value::Symbol(s) => Value::String(s),
        Value::Array(a) => Value::array(a.iter().cloned().map(sanitize).collect()),
        Value::Hash(h) => Value::hash(
            h.iter()
                .map(|(k, v)| (sanitize(k.clone()), sanitize(v.clone())))
                .collect(),
        ),
        other => other,
    }
}

/// `$trusted` as the oracle builds it: `TrustedInformation.new(trusted['authenticated'] ||
/// 'remote' (fetch), certname, trusted['extensions'] || {}, trusted['external'] || {})`
/// (`lookup-batch.rb:80-81`), rendered by `TrustedInformation#to_h`
/// (`context/trusted_information.rb:117-126`); hostname and domain are
/// `certname.split('.', 2)` (`:39`).
fn trusted_hash(trusted_in: Option<&Hash>, certname: &str) -> Value {
    let get = |k: &str| trusted_in.and_then(|t| t.get(&Value::from(k)));
    let or_empty_hash = |v: Option<&Value>| match v {
        None | Some(Value::Undef) | Some(Value::Bool(false)) => Value::hash(Hash::default()),
        Some(v) => v.clone(),
    };
    let authenticated = match trusted_in.map(|t| t.get(&Value::from("authenticated"))) {
        Some(Some(v)) => v.clone(),
        _ => Value::from("remote"),
    };
    let (hostname, domain) = if certname.is_empty() {
        (Value::Undef, Value::Undef)
    } else {
        match certname.split_once('.') {
            Some((h, d)) => (Value::from(h), Value::from(d)),
            None => (Value::from(certname), Value::Undef),
        }
    };
    let mut t = Hash::with_capacity_and_hasher(6, Default::default());
    t.insert(Value::from("authenticated"), authenticated);
    t.insert(Value::from("certname"), Value::from(certname));
    t.insert(Value::from("extensions"), or_empty_hash(get("extensions")));
    t.insert(Value::from("hostname"), hostname);
    t.insert(Value::from("domain"), domain);
    t.insert(Value::from("external"), or_empty_hash(get("external")));
    Value::hash(t)
}

/// The environment name a lookup with this fact set uses when none is given.
pub const DEFAULT_ENVIRONMENT: &str = "production";

/// The top-scope variables Puppet has for a lookup with these facts, as `puppet lookup --facts`
/// and the oracle build the node (`lookup-batch.rb:75-86`), in the order Puppet sets them:
///
/// * every fact, as a variable of the same name (`Node#fact_merge` merges the facts into the
///   node parameters, `node.rb:136-152`; `Compiler#set_node_parameters` makes each parameter a
///   top-scope variable, `parser/compiler.rb:559-568`), except `environment` and `facts`;
/// * each server fact whose name is not a fact (`Node#add_server_facts` merges without
///   overriding, `node.rb:175-181`; recorded: fact `x` wins over server fact `x`);
/// * `environment`: the environment's name, never the fact (`compiler.rb:565,569`; recorded);
/// * `trusted` (`compiler.rb:574`), `server_facts` (`:576`; `{}` when the set has none, else the
///   server facts plus `environment`, `node.rb:177`), `facts` (`:578-579`).
///
/// `clientcert`, `clientversion` and `clientnoop` exist only when they are facts (agents add
/// them, `node/facts.rb:29-33`; `puppet lookup --facts` does not: recorded, `%{clientcert}` is
/// undefined). `module_name` and `caller_module_name` are built into every scope
/// (`parser/scope.rb:19`) and are not listed. The environment is [`FactSet::environment`], else
/// [`DEFAULT_ENVIRONMENT`].
pub fn top_scope(fs: &FactSet) -> Value {
    let env = fs.environment.as_deref().unwrap_or(DEFAULT_ENVIRONMENT);
    let facts = fs.facts.as_hash().cloned().unwrap_or_default();
    let mut vars = Hash::with_capacity_and_hasher(facts.len() + 8, Default::default());
    let settable = |k: &Value| match k.as_str() {
        // Reserved or numeric names make Puppet fail (parser/scope.rb:763-779); `trusted` and
        // `server_facts` never reach here.
        Some(k) => k != "environment" && k != "facts" && !k.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    };
    for (k, v) in &facts {
        if settable(k) {
            vars.insert(k.clone(), v.clone());
        }
    }
    if let Some(sf) = fs.server_facts.as_ref().and_then(Value::as_hash) {
        for (k, v) in sf {
            if settable(k) && !vars.contains_key(k) {
                vars.insert(k.clone(), v.clone());
            }
        }
    }
    vars.insert(Value::from("environment"), Value::from(env));
    vars.insert(Value::from("trusted"), fs.trusted.clone());
    let server_facts = match fs.server_facts.as_ref().and_then(Value::as_hash) {
        Some(sf) => {
            let mut sf = sf.clone();
            sf.insert(Value::from("environment"), Value::from(env));
            Value::hash(sf)
        }
        None => Value::hash(Hash::default()),
    };
    vars.insert(Value::from("server_facts"), server_facts);
    vars.insert(Value::from("facts"), Value::hash(facts));
    Value::hash(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(path: &str, text: &str) -> String {
        let (sets, errors) = load_fact_file(&SourceFile::new(path, text));
        assert!(errors.is_empty(), "{errors:?}");
        sets[0].name.clone()
    }

    #[test]
    fn name_resolution_order() {
        let all = r#"{"trusted": {"certname": "t"}, "clientcert": "c", "networking": {"fqdn": "n"}, "fqdn": "f"}"#;
        assert_eq!(name_of("x/stem.json", all), "t");
        let wrapped = r#"{"name": "w", "values": {"clientcert": "c", "fqdn": "f"}}"#;
        assert_eq!(name_of("x/stem.json", wrapped), "w");
        assert_eq!(
            name_of(
                "x/stem.json",
                r#"{"clientcert": "c", "networking": {"fqdn": "n"}, "fqdn": "f"}"#
            ),
            "c"
        );
        assert_eq!(
            name_of(
                "x/stem.json",
                r#"{"networking": {"fqdn": "n"}, "fqdn": "f"}"#
            ),
            "n"
        );
        assert_eq!(
            name_of("x/stem.json", r#"{"networking": "odd", "fqdn": "f"}"#),
            "f"
        );
        assert_eq!(name_of("x/stem.json", r#"{"fqdn": 5}"#), "stem");
    }

    #[test]
    fn trusted_hostname_and_domain_split_like_ruby() {
        // `certname.split('.', 2)` (context/trusted_information.rb:39).
        let t = trusted_hash(None, "a.b.c");
        assert_eq!(
            t.ruby_inspect(),
            r#"{"authenticated"=>"remote", "certname"=>"a.b.c", "extensions"=>{}, "hostname"=>"a", "domain"=>"b.c", "external"=>{}}"#
        );
        let t = trusted_hash(None, "web01");
        assert_eq!(t.as_hash().unwrap()[&Value::from("domain")], Value::Undef);
        let t = trusted_hash(None, "");
        assert_eq!(t.as_hash().unwrap()[&Value::from("hostname")], Value::Undef);
        // `fetch('authenticated', 'remote')`: a present nil stays nil; `|| {}` for the hashes.
        let mut given = Hash::default();
        given.insert(Value::from("authenticated"), Value::Undef);
        given.insert(Value::from("extensions"), Value::Undef);
        let t = trusted_hash(Some(&given), "x.y");
        assert_eq!(
            t.ruby_inspect(),
            r#"{"authenticated"=>nil, "certname"=>"x.y", "extensions"=>{}, "hostname"=>"x", "domain"=>"y", "external"=>{}}"#
        );
    }

    #[test]
    fn sanitize_like_puppet() {
        let v = Value::array(vec![
            Value::Undef,
            Value::Symbol("s".into()),
            Value::Float(1.5),
        ]);
        assert_eq!(sanitize(v).ruby_inspect(), r#"["", "s", 1.5]"#);
    }
}

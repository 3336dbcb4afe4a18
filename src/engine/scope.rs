//! The variables a lookup sees: Puppet's top scope for one node (facts, `$facts`, `$trusted`,
//! `$server_facts`, `$environment`), and Puppet's rules for reading them.
//!
//! [`Scope::for_node`] builds the top scope the way `puppet lookup --facts` and a compile do
//! (`Puppet::Node#fact_merge`, `Compiler#set_node_parameters`): every fact is also a top-scope
//! variable, fact values are sanitized (`nil` becomes `""`, recorded:
//! interp/scope-variables `nil_inner`), `$trusted` gets `hostname`/`domain` split from the
//! certname, `$server_facts` gets the environment name.

use std::sync::Arc;

use indexmap::IndexMap;

/// A scope's top-scope variables, in the order set. Fixed-seed hashing: every interpolation
/// reads one, and SipHash was most of the read.
pub type Vars = IndexMap<Arc<str>, Value, foldhash::fast::FixedState>;

use crate::value::{Hash, Value};

/// Trusted information about a node (`Puppet::Context::TrustedInformation`).
#[derive(Clone, Debug)]
pub struct Trusted {
    pub certname: Option<String>,
    /// `remote` (a verified certificate), `local` or `false`; Puppet's default here is `remote`.
    pub authenticated: Value,
    pub extensions: Hash,
    pub external: Hash,
}

impl Default for Trusted {
    fn default() -> Self {
        Trusted {
            certname: None,
            authenticated: Value::string("remote"),
            extensions: Hash::default(),
            external: Hash::default(),
        }
    }
}

impl Trusted {
    /// `$trusted` for a node given as a facts hash, as `puppet lookup --facts` (and the oracle,
    /// tools/oracle/record.rb) build it: the facts' `trusted` entry when it is a hash; a
    /// certname it lacks comes from `node`, else the `clientcert`, `networking.fqdn` or `fqdn`
    /// fact, else `fallback`.
    pub fn for_facts(
        trusted: Option<&Value>,
        facts: &Hash,
        node: Option<&str>,
        fallback: &str,
    ) -> Trusted {
        let mut t = trusted
            .filter(|t| t.as_hash().is_some())
            .map(Trusted::from_value)
            .unwrap_or_default();
        if t.certname.is_none() {
            let fact = |k: &str| facts.get(&Value::string(k)).and_then(|v| v.as_str());
            let fqdn = facts
                .get(&Value::string("networking"))
                .and_then(|n| n.as_hash())
                .and_then(|n| n.get(&Value::string("fqdn")))
                .and_then(|v| v.as_str());
            t.certname = Some(
                node.or_else(|| fact("clientcert"))
                    .or(fqdn)
                    .or_else(|| fact("fqdn"))
                    .unwrap_or(fallback)
                    .to_string(),
            );
        }
        t
    }

    /// Reads a `trusted` hash as facts files carry it (`{"certname":..., "extensions":{...},
    /// "authenticated":..., "external":{...}}`).
    pub fn from_value(v: &Value) -> Trusted {
        let h = v.as_hash();
        let get = |k: &str| h.and_then(|h| h.get(&Value::string(k)));
        Trusted {
            certname: get("certname").and_then(|c| c.as_str()).map(str::to_string),
            authenticated: get("authenticated")
                .cloned()
                .unwrap_or_else(|| Value::string("remote")),
            extensions: get("extensions")
                .and_then(Value::as_hash)
                .cloned()
                .unwrap_or_default(),
            external: get("external")
                .and_then(Value::as_hash)
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// `TrustedInformation#to_h`.
    pub fn to_value(&self) -> Value {
        let (hostname, domain) = match &self.certname {
            Some(c) => match c.split_once('.') {
                Some((h, d)) => (Value::string(h), Value::string(d)),
                None => (Value::string(c.as_str()), Value::Undef),
            },
            None => (Value::Undef, Value::Undef),
        };
        let k = names();
        let hash_or_empty = |h: &Hash| {
            if h.is_empty() {
                k.empty_hash.clone()
            } else {
                Value::hash(h.clone())
            }
        };
        // The keys in `to_h`'s order, from a copy of the template (its index copied, not built
        // by six hashed inserts: a data-implied node's scope is made for each of 13,400 node
        // files at 15k), each value written in place.
        let mut h = k.trusted_template.clone();
        let values = [
            self.authenticated.clone(),
            self.certname
                .as_deref()
                .map(Value::string)
                .unwrap_or(Value::Undef),
            hash_or_empty(&self.extensions),
            hostname,
            domain,
            hash_or_empty(&self.external),
        ];
        for (slot, v) in h.values_mut().zip(values) {
            *slot = v;
        }
        Value::hash(h)
    }
}

/// The names every node's scope holds, made once (a scope is built per fact set and per
/// data-implied node: each name allocated anew was a third of building one).
struct Names {
    environment: Arc<str>,
    trusted: Arc<str>,
    server_facts: Arc<str>,
    facts: Arc<str>,
    /// `{}`: shared by the scopes whose trusted extensions, external data, server facts or
    /// facts are empty (every data-implied node's: four allocations of each of 13,900 scopes
    /// at 15k files). Values are immutable, so sharing one is sharing its contents.
    empty_hash: Value,
    /// `$trusted`'s keys in `TrustedInformation#to_h`'s order (authenticated, certname,
    /// extensions, hostname, domain, external), every value `undef`.
    trusted_template: Hash,
}

fn names() -> &'static Names {
    static NAMES: std::sync::LazyLock<Names> = std::sync::LazyLock::new(|| Names {
        environment: Arc::from("environment"),
        trusted: Arc::from("trusted"),
        server_facts: Arc::from("server_facts"),
        facts: Arc::from("facts"),
        empty_hash: Value::hash(Hash::default()),
        trusted_template: [
            "authenticated",
            "certname",
            "extensions",
            "hostname",
            "domain",
            "external",
        ]
        .into_iter()
        .map(|n| (Value::string(n), Value::Undef))
        .collect(),
    });
    &NAMES
}

/// `Puppet::Node::Facts#sanitize_fact`: containers recursively, numbers, booleans and strings
/// kept, anything else (nil, symbols) turned into its `to_s`.
pub fn sanitize_fact(v: &Value) -> Value {
    match v {
        Value::Hash(h) => Value::hash(
            h.iter()
                .map(|(k, v)| (sanitize_fact(k), sanitize_fact(v)))
                .collect(),
        ),
        Value::Array(a) => Value::array(a.iter().map(sanitize_fact).collect()),
        Value::Integer(_) | Value::Float(_) | Value::Bool(_) | Value::String(_) => v.clone(),
        other => Value::string(other.to_ruby_s()),
    }
}

/// One node's top scope.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Top-scope variables, by name (without `::`). A variable present with value `Undef` is
    /// defined (no undefined-variable warning).
    vars: Vars,
    /// A fingerprint of the variables, computed on first use.
    fingerprint: std::sync::OnceLock<u64>,
}

/// What reading a variable gives.
#[derive(Clone, Debug, PartialEq)]
pub enum VarLookup {
    /// Defined (possibly with value Undef).
    Found(Value),
    /// One of Puppet's built-in variables (`module_name`, `caller_module_name`) or a numeric
    /// match variable: nil, and never a warning.
    BuiltIn,
    /// Undefined: Puppet warns or fails (strict) with this name (`x`, `::x`, `a::b`) and reason.
    Undefined { name: String, reason: String },
}

impl Scope {
    /// A scope with exactly these top-scope variables.
    pub fn new(vars: Vars) -> Scope {
        Scope {
            vars,
            fingerprint: std::sync::OnceLock::new(),
        }
    }

    /// The top scope of a node as Puppet builds it for a compile or `puppet lookup --facts`:
    /// sanitized facts as variables, then server facts (not overriding facts), then
    /// `$environment`, `$trusted`, `$server_facts` and `$facts`.
    pub fn for_node(
        facts: &Hash,
        trusted: &Trusted,
        server_facts: Option<&Hash>,
        environment: &str,
    ) -> Scope {
        let facts: Hash = facts
            .iter()
            .map(|(k, v)| (k.clone(), sanitize_fact(v)))
            .collect();
        let mut vars = Vars::with_capacity_and_hasher(facts.len() + 4, Default::default());
        for (k, v) in &facts {
            let name: Arc<str> = match k {
                Value::String(s) => s.clone(),
                other => Arc::from(other.to_ruby_s()),
            };
            if &*name == "environment" {
                continue;
            }
            vars.insert(name, v.clone());
        }
        let mut sf = Hash::default();
        if let Some(s) = server_facts {
            for (k, v) in s {
                let name: Arc<str> = match k {
                    Value::String(s) => s.clone(),
                    other => Arc::from(other.to_ruby_s()),
                };
                if &*name != "environment" {
                    vars.entry(name).or_insert_with(|| v.clone());
                }
                sf.insert(k.clone(), v.clone());
            }
            sf.insert(Value::string("environment"), Value::string(environment));
        }
        let k = names();
        vars.insert(k.environment.clone(), Value::string(environment));
        vars.insert(k.trusted.clone(), trusted.to_value());
        let hash_or_empty = |h: Hash| {
            if h.is_empty() {
                k.empty_hash.clone()
            } else {
                Value::hash(h)
            }
        };
        vars.insert(k.server_facts.clone(), hash_or_empty(sf));
        vars.insert(k.facts.clone(), hash_or_empty(facts));
        Scope::new(vars)
    }

    pub fn vars(&self) -> &Vars {
        &self.vars
    }

    /// A hash of every variable and its value.
    pub fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| {
            use std::hash::{Hash as _, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for (k, v) in &self.vars {
                k.hash(&mut h);
                v.hash(&mut h);
            }
            h.finish()
        })
    }

    /// Reads a variable as `Scope#lookupvar` does at top scope: `::x` and `x` both read the top
    /// scope; a qualified `a::b` names a class variable, and no class is ever evaluated here.
    pub fn lookup(&self, name: &str) -> VarLookup {
        // `contains(':')` first: a `::` substring search costs a searcher per call.
        if let Some(idx) = name.contains(':').then(|| name.find("::")).flatten() {
            // lookup_qualified_variable: a leading `::` is dropped; top-scope variables are
            // keyed by their bare name, class variables by `class::var`.
            let fqn = if idx == 0 { &name[2..] } else { name };
            if let Some(v) = self.vars.get(fqn) {
                return VarLookup::Found(v.clone());
            }
            return match fqn.rfind("::") {
                // `class::var`: the class scope does not exist (no class is evaluated).
                Some(leaf) => VarLookup::Undefined {
                    name: fqn.to_string(),
                    reason: format!("class {} could not be found", &fqn[..leaf]),
                },
                // Reported with a leading `::` (handle_not_found with an empty class name).
                None => VarLookup::Undefined {
                    name: format!("::{fqn}"),
                    reason: String::new(),
                },
            };
        }
        if let Some(v) = self.vars.get(name) {
            return VarLookup::Found(v.clone());
        }
        if is_builtin(name) {
            return VarLookup::BuiltIn;
        }
        VarLookup::Undefined {
            name: name.to_string(),
            reason: String::new(),
        }
    }
}

/// `BUILT_IN_VARS` and `NUMERIC_VAR_NAME` (`/\A(?:0|(?:[1-9][0-9]*))\z/`).
fn is_builtin(name: &str) -> bool {
    matches!(name, "module_name" | "caller_module_name")
        || name == "0"
        || (!name.is_empty() && !name.starts_with('0') && name.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_scope_like_puppet() {
        let mut facts = Hash::default();
        facts.insert(Value::string("role"), Value::string("web"));
        let mut inner = Hash::default();
        inner.insert(Value::string("inner"), Value::Undef);
        facts.insert(Value::string("nil_hash"), Value::hash(inner));
        let trusted = Trusted {
            certname: Some("web01.example.com".into()),
            authenticated: Value::string("remote"),
            ..Default::default()
        };
        let s = Scope::for_node(&facts, &trusted, None, "production");
        assert_eq!(s.lookup("role"), VarLookup::Found(Value::string("web")));
        assert_eq!(s.lookup("::role"), VarLookup::Found(Value::string("web")));
        assert_eq!(
            s.lookup("environment"),
            VarLookup::Found(Value::string("production"))
        );
        let VarLookup::Found(t) = s.lookup("trusted") else {
            panic!()
        };
        assert_eq!(
            t.ruby_inspect(),
            r#"{"authenticated"=>"remote", "certname"=>"web01.example.com", "extensions"=>{}, "hostname"=>"web01", "domain"=>"example.com", "external"=>{}}"#
        );
        // A nil inside a fact is sanitized to "" (recorded: interp/scope-variables).
        let VarLookup::Found(f) = s.lookup("facts") else {
            panic!()
        };
        assert_eq!(
            f.ruby_inspect(),
            r#"{"role"=>"web", "nil_hash"=>{"inner"=>""}}"#
        );
        assert_eq!(s.lookup("module_name"), VarLookup::BuiltIn);
        assert_eq!(s.lookup("0"), VarLookup::BuiltIn);
        assert_eq!(
            s.lookup("::nope"),
            VarLookup::Undefined {
                name: "::nope".into(),
                reason: String::new()
            }
        );
        assert_eq!(
            s.lookup("foo::bar"),
            VarLookup::Undefined {
                name: "foo::bar".into(),
                reason: "class foo could not be found".into()
            }
        );
    }
}

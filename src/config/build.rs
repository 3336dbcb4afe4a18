//! Builds the [`HieraConfig`] model from the spanned YAML tree, filling in what Puppet fills in.
//!
//! Only well-typed fields go into the model (a `path: [x]` is a type error and leaves the entry
//! without a location); the struct assertion (`schema`) reports the rest. Keys are read the way
//! Puppet reads them after `symkeys_to_string`: `:name:` is `name`, and a repeated key keeps its
//! last value (`schema::effective_entries`).

use crate::span::Span;
use crate::value::{Node, NodeKind, Value};

use super::model::*;
use super::schema::{effective_entries, Key};

/// The entry of `node` (a mapping) whose key is the string `k`, as (key node, value node).
pub(crate) fn field<'a>(node: &'a Node, k: &str) -> Option<(&'a Node, &'a Node)> {
    effective_entries(node)
        .into_iter()
        .find(|(key, _, _)| key.as_str() == Some(k))
        .map(|(_, kn, vn)| (kn, vn))
}

/// Ruby truthiness: `nil` and `false` are what `||=` replaces.
pub(crate) fn is_falsy(node: &Node) -> bool {
    matches!(
        &node.kind,
        NodeKind::Scalar(s) if matches!(s.value, Value::Undef | Value::Bool(false))
    )
}

/// A string scalar's value (Symbols are not strings for Puppet's types).
pub(crate) fn string_of(node: &Node) -> Option<String> {
    match &node.kind {
        NodeKind::Scalar(s) => match &s.value {
            Value::String(t) => Some(t.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// A `String[1]` field: `Some` only when the value is a non-empty string.
fn ne_string_field(node: &Node, k: &str) -> Option<Field<String>> {
    let (kn, vn) = field(node, k)?;
    let s = string_of(vn).filter(|s| !s.is_empty())?;
    Some(Field {
        value: s,
        span: FieldSpan::new(kn.span, vn.span),
    })
}

fn spanned_string(node: &Node) -> Option<Spanned<String>> {
    string_of(node)
        .filter(|s| !s.is_empty())
        .map(|s| Spanned::new(s, node.span))
}

/// `Array[String[1], min]`: the items when every item is a non-empty string.
fn ne_string_array(node: &Node, min: usize) -> Option<Vec<Spanned<String>>> {
    let items = node.as_seq()?;
    if items.len() < min {
        return None;
    }
    items.iter().map(spanned_string).collect()
}

/// Builds an `options` value if it is a hash.
fn options_of(node: &Node, k: &str) -> Option<Options> {
    let (kn, vn) = field(node, k)?;
    vn.as_map()?;
    Some(Options {
        node: vn.clone(),
        value: symkeys_to_string(&vn.to_value()),
        span: FieldSpan::new(kn.span, vn.span),
    })
}

/// Puppet's `symkeys_to_string`: Symbol keys become Strings, recursively (values stay).
pub fn symkeys_to_string(v: &Value) -> Value {
    // Iterative over an explicit stack would be overkill for hiera.yaml options; bound the depth.
    fn go(v: &Value, depth: usize) -> Value {
        if depth > 64 {
            return v.clone();
        }
        match v {
            Value::Hash(h) => {
                let mut out =
                    crate::value::Hash::with_capacity_and_hasher(h.len(), Default::default());
                for (k, x) in h.iter() {
                    let k = match k {
                        Value::Symbol(s) => Value::String(s.clone()),
                        other => other.clone(),
                    };
                    out.insert(k, go(x, depth + 1));
                }
                Value::hash(out)
            }
            Value::Array(a) => Value::array(a.iter().map(|x| go(x, depth + 1)).collect()),
            other => other.clone(),
        }
    }
    go(v, 0)
}

fn function_of(kind: FunctionKind, kn: &Node, vn: &Node) -> Function {
    Function {
        kind,
        name: Spanned::new(string_of(vn).unwrap_or_default(), vn.span),
        span: FieldSpan::new(kn.span, vn.span),
    }
}

/// Every function key of a mapping (present with any value), in file order.
fn functions_in(node: &Node, kinds: &[FunctionKind]) -> Vec<Function> {
    effective_entries(node)
        .into_iter()
        .filter_map(|(k, kn, vn)| {
            let kind = FunctionKind::from_key(k.as_str()?)?;
            // A null value is `nil` for Puppet's `he[key]` checks (and a type error).
            let null = matches!(&vn.kind, NodeKind::Scalar(s) if s.value.is_undef());
            (kinds.contains(&kind) && !null).then(|| function_of(kind, kn, vn))
        })
        .collect()
}

fn location_field(key: LocationKey, kn: &Node, vn: &Node) -> Option<Locations> {
    let span = FieldSpan::new(kn.span, vn.span);
    let one = |v: &Node| spanned_string(v).map(|s| vec![s]);
    let lf = |items: Vec<Spanned<String>>| LocationField { key, span, items };
    Some(match key {
        LocationKey::Path => Locations::Paths(lf(one(vn)?)),
        LocationKey::Paths => Locations::Paths(lf(ne_string_array(vn, 1)?)),
        LocationKey::Glob => Locations::Globs(lf(one(vn)?)),
        LocationKey::Globs => Locations::Globs(lf(ne_string_array(vn, 1)?)),
        LocationKey::Uri => Locations::Uris(lf(one(vn)?)),
        LocationKey::Uris => Locations::Uris(lf(ne_string_array(vn, 1)?)),
        LocationKey::MappedPaths => {
            let items = ne_string_array(vn, 3)?;
            let [scope_expr, var, template]: [Spanned<String>; 3] = items.try_into().ok()?;
            Locations::MappedPaths {
                span,
                scope_expr,
                var,
                template,
            }
        }
    })
}

/// A v5 hierarchy entry (`node` is a mapping).
pub(crate) fn v5_entry(node: &Node, index: usize) -> HierarchyEntry {
    let entries = effective_entries(node);
    let name = match field(node, "name") {
        Some((kn, vn)) => Field {
            // Puppet prints `he['name']` with Ruby `to_s` in its messages.
            value: match string_of(vn) {
                Some(s) => s,
                None => vn.to_value().to_ruby_s(),
            },
            span: FieldSpan::new(kn.span, vn.span),
        },
        None => Field {
            value: String::new(),
            span: FieldSpan::synthetic(node.span),
        },
    };
    let functions = functions_in(node, &FunctionKind::ENTRY_ORDER);
    let function = FunctionKind::ENTRY_ORDER.iter().find_map(|k| {
        functions
            .iter()
            .find(|f| f.kind == *k && !f.name.value.is_empty())
            .cloned()
    });
    let mut location_keys = Vec::new();
    for (k, kn, vn) in &entries {
        if let Some(lk) = k.as_str().and_then(LocationKey::from_key) {
            location_keys.push((lk, FieldSpan::new(kn.span, vn.span)));
        }
    }
    // Puppet uses the first key of LOCATION_KEYS order that is present.
    let locations = LocationKey::ORDER
        .iter()
        .find_map(|lk| {
            let (kn, vn) = field(node, lk.key())?;
            Some(location_field(*lk, kn, vn).unwrap_or(Locations::None))
        })
        .unwrap_or(Locations::None);
    HierarchyEntry {
        name,
        datadir: ne_string_field(node, "datadir"),
        function,
        functions,
        locations,
        location_keys,
        options: options_of(node, "options"),
        extension: None,
        backend: None,
        span: node.span,
        index,
    }
}

/// The entries of a hierarchy list (items that are not mappings are type errors, skipped).
pub(crate) fn v5_list(node: &Node) -> Vec<HierarchyEntry> {
    node.as_seq()
        .map(|items| {
            items
                .iter()
                .enumerate()
                .filter(|(_, n)| n.as_map().is_some())
                .map(|(i, n)| v5_entry(n, i))
                .collect()
        })
        .unwrap_or_default()
}

/// v5 `defaults` as written (a mapping).
pub(crate) fn v5_defaults(kn: &Node, vn: &Node) -> Defaults {
    let span = FieldSpan::new(kn.span, vn.span);
    if vn.as_map().is_none() {
        return Defaults {
            span,
            ..Defaults::default()
        };
    }
    Defaults {
        datadir: ne_string_field(vn, "datadir"),
        functions: functions_in(vn, &FunctionKind::DEFAULTS_ORDER),
        options: options_of(vn, "options"),
        span,
    }
}

/// Puppet's implicit v5 hierarchy `[{name: Common, path: common.yaml}]` (§1.3).
pub(crate) fn default_v5_hierarchy(at: Span) -> Vec<HierarchyEntry> {
    let fs = FieldSpan::synthetic(at);
    vec![HierarchyEntry {
        name: Field {
            value: "Common".into(),
            span: fs,
        },
        datadir: None,
        function: None,
        functions: Vec::new(),
        locations: Locations::Paths(LocationField {
            key: LocationKey::Path,
            span: fs,
            items: vec![Spanned::new("common.yaml".into(), fs.value)],
        }),
        location_keys: vec![(LocationKey::Path, fs)],
        options: None,
        extension: None,
        backend: None,
        span: fs.value,
        index: 0,
    }]
}

/// The function and extension of a v4 backend (`HieraConfigV4#create_configured_data_providers`;
/// hocon needs the hocon gem, which Puppet 7.23 on Debian has).
pub(crate) fn v4_backend(backend: &str) -> Option<(&'static str, &'static str)> {
    match backend {
        "yaml" => Some(("yaml_data", ".yaml")),
        "json" => Some(("json_data", ".json")),
        "hocon" => Some(("hocon_data", ".conf")),
        _ => None,
    }
}

/// A v4 hierarchy entry, converted to the v5 shape: the backend becomes a `data_hash`
/// function, `paths` (else `path`, else the name) become the paths, and the extension is kept.
pub(crate) fn v4_entry(node: &Node, index: usize) -> HierarchyEntry {
    let name = match field(node, "name") {
        Some((kn, vn)) => Field {
            value: string_of(vn).unwrap_or_else(|| vn.to_value().to_ruby_s()),
            span: FieldSpan::new(kn.span, vn.span),
        },
        None => Field {
            value: String::new(),
            span: FieldSpan::synthetic(node.span),
        },
    };
    let backend = ne_string_field(node, "backend");
    let (function, extension) = match backend
        .as_ref()
        .and_then(|b| v4_backend(&b.value).map(|(f, e)| (b, f, e)))
    {
        Some((b, f, e)) => (
            Some(Function {
                kind: FunctionKind::DataHash,
                name: Spanned::new(f.into(), b.span.value),
                span: b.span,
            }),
            Some(e),
        ),
        None => (None, None),
    };
    // `he[paths] || [he[path] || name]`.
    let locations = if let Some((kn, vn)) = field(node, "paths").filter(|(_, v)| !is_falsy(v)) {
        match ne_string_array(vn, 0) {
            Some(items) => Locations::Paths(LocationField {
                key: LocationKey::Paths,
                span: FieldSpan::new(kn.span, vn.span),
                items,
            }),
            None => Locations::None,
        }
    } else if let Some(p) = ne_string_field(node, "path") {
        Locations::Paths(LocationField {
            key: LocationKey::Path,
            span: p.span,
            items: vec![Spanned::new(p.value, p.span.value)],
        })
    } else if !name.value.is_empty() && !name.span.synthetic {
        // The name is the path (and is interpolated, unlike a v5 name).
        Locations::Paths(LocationField {
            key: LocationKey::Path,
            span: name.span,
            items: vec![Spanned::new(name.value.clone(), name.span.value)],
        })
    } else {
        Locations::None
    };
    let location_keys = locations
        .key()
        .zip(locations.field_span())
        .into_iter()
        .collect();
    HierarchyEntry {
        name,
        datadir: ne_string_field(node, "datadir"),
        functions: function.iter().cloned().collect(),
        function,
        locations,
        location_keys,
        options: None,
        extension,
        backend,
        span: node.span,
        index,
    }
}

/// Puppet's implicit v4 hierarchy `[{name: common, backend: yaml}]`.
pub(crate) fn default_v4_hierarchy(at: Span) -> Vec<HierarchyEntry> {
    let fs = FieldSpan::synthetic(at);
    vec![HierarchyEntry {
        name: Field {
            value: "common".into(),
            span: fs,
        },
        datadir: None,
        function: Some(Function {
            kind: FunctionKind::DataHash,
            name: Spanned::new("yaml_data".into(), fs.value),
            span: fs,
        }),
        functions: Vec::new(),
        locations: Locations::Paths(LocationField {
            key: LocationKey::Path,
            span: fs,
            items: vec![Spanned::new("common".into(), fs.value)],
        }),
        location_keys: vec![(LocationKey::Path, fs)],
        options: None,
        extension: Some(".yaml"),
        backend: Some(Field {
            value: "yaml".into(),
            span: fs,
        }),
        span: fs.value,
        index: 0,
    }]
}

/// `[x].flatten` of a String-or-Array field, keeping strings (with spans).
fn flatten_strings(node: &Node, out: &mut Vec<Spanned<String>>) {
    // Explicit stack: nested arrays are flattened (Ruby `flatten`), nesting is untrusted.
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match &n.kind {
            NodeKind::Seq(items) => stack.extend(items.iter().rev()),
            _ => {
                if let Some(s) = string_of(n) {
                    out.push(Spanned::new(s, n.span));
                }
            }
        }
    }
}

/// The v3 model, with Puppet's defaults filled (`HieraConfigV3#validate_config`).
pub(crate) fn v3_config(root: Option<&Node>, at: Span) -> V3Config {
    let synth = FieldSpan::synthetic(at);
    let written = |k: &str| root.and_then(|r| field(r, k)).filter(|(_, v)| !is_falsy(v));
    let (backends, backends_span) = match written("backends") {
        Some((kn, vn)) => {
            let mut v = Vec::new();
            flatten_strings(vn, &mut v);
            (v, FieldSpan::new(kn.span, vn.span))
        }
        None => (vec![Spanned::new("yaml".into(), synth.value)], synth),
    };
    let (hierarchy, hierarchy_span) = match written("hierarchy") {
        Some((kn, vn)) => {
            let mut v = Vec::new();
            flatten_strings(vn, &mut v);
            (v, FieldSpan::new(kn.span, vn.span))
        }
        None => (
            vec![
                Spanned::new("nodes/%{::trusted.certname}".into(), synth.value),
                Spanned::new("common".into(), synth.value),
            ],
            synth,
        ),
    };
    let merge_behavior = match written("merge_behavior") {
        Some((kn, vn)) => Field {
            value: string_of(vn).unwrap_or_default(),
            span: FieldSpan::new(kn.span, vn.span),
        },
        None => Field {
            value: "native".into(),
            span: synth,
        },
    };
    let node_field = |k: &str| {
        written(k).map(|(kn, vn)| Field {
            value: vn.clone(),
            span: FieldSpan::new(kn.span, vn.span),
        })
    };
    let mut backend_configs: Vec<V3Backend> = Vec::new();
    for b in &backends {
        if backend_configs.iter().any(|c| c.name.value == b.value) {
            continue;
        }
        let config = node_field(&b.value).filter(|f| f.value.as_map().is_some());
        let (datadir, extension) = match &config {
            Some(c) => (
                ne_string_field(&c.value, "datadir"),
                ne_string_field(&c.value, "extension"),
            ),
            None => (None, None),
        };
        backend_configs.push(V3Backend {
            name: b.clone(),
            config,
            datadir,
            extension,
        });
    }
    V3Config {
        backends,
        backends_span,
        hierarchy,
        hierarchy_span,
        merge_behavior,
        deep_merge_options: node_field("deep_merge_options"),
        logger: root.and_then(|r| ne_string_field(r, "logger")),
        backend_configs,
    }
}

/// A copy of `root` without the entries Puppet replaces by defaults (`||=` on a null or false
/// value), so the struct assertion sees what Puppet asserts.
pub(crate) fn without_filled(root: &Node, keys: &[&str]) -> Node {
    let mut out = root.clone();
    if let NodeKind::Map(m) = &mut out.kind {
        for k in keys {
            let falsy = field(root, k).is_some_and(|(_, v)| is_falsy(v));
            if falsy {
                m.entries.retain(|e| Key::of(&e.key).as_str() != Some(*k));
            }
        }
    }
    out
}

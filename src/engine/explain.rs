//! The explain tree of a lookup, and its two renderings: the text `puppet lookup --explain`
//! prints and the JSON (`to_hash`) form (`explainer.rb`; reference §8.1).
//!
//! The engine drives it exactly as Puppet drives its `Explainer`: `push` a node when entering a
//! provider, location, merge, interpolation..., `pop` when leaving, and `accept_*` events on the
//! current node. Only lookups that ask for an explanation build one.

use crate::interp::Segment;
use crate::value::{Hash, Value};

/// What happened at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Found,
    FoundInOverrides,
    FoundInDefaults,
    Result,
    NotFound,
    LocationNotFound,
    ModuleNotFound,
    ModuleProviderNotFound,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Event::Found => "found",
            Event::FoundInOverrides => "found_in_overrides",
            Event::FoundInDefaults => "found_in_defaults",
            Event::Result => "result",
            Event::NotFound => "not_found",
            Event::LocationNotFound => "location_not_found",
            Event::ModuleNotFound => "module_not_found",
            Event::ModuleProviderNotFound => "module_provider_not_found",
        }
    }
}

/// The kind of a node, with what it prints.
#[derive(Clone, Debug)]
pub enum NodeKind {
    Root,
    /// `Searching for "<key>"` (`:data` and `:meta` qualifiers).
    Top {
        key: String,
        meta: bool,
    },
    InvalidKey {
        key: String,
    },
    MergeSource {
        source: String,
    },
    Module {
        name: String,
    },
    Interpolate {
        expression: String,
    },
    Merge {
        strategy: &'static str,
        options: Option<Hash>,
    },
    DataProvider {
        name: String,
        config_path: Option<String>,
        module: Option<String>,
        /// ConfiguredDataProviders print `Using configuration`; function providers do not.
        configured: bool,
    },
    Location {
        uri: bool,
        location: String,
        original: String,
    },
    SubLookup {
        segments: Vec<Segment>,
    },
    Segment,
    Scope {
        name: String,
    },
}

#[derive(Clone, Debug)]
pub struct ExplainNode {
    pub kind: NodeKind,
    pub parent: Option<usize>,
    pub branches: Vec<usize>,
    pub event: Option<Event>,
    pub key: Option<String>,
    pub value: Option<Value>,
    pub texts: Vec<String>,
}

/// The whole tree (an arena; node 0 is the root).
#[derive(Clone, Debug)]
pub struct Explainer {
    pub nodes: Vec<ExplainNode>,
    current: usize,
}

impl Default for Explainer {
    fn default() -> Self {
        Explainer::new()
    }
}

impl Explainer {
    pub fn new() -> Explainer {
        Explainer {
            nodes: vec![ExplainNode {
                kind: NodeKind::Root,
                parent: None,
                branches: Vec::new(),
                event: None,
                key: None,
                value: None,
                texts: Vec::new(),
            }],
            current: 0,
        }
    }

    fn add(&mut self, kind: NodeKind) -> usize {
        let id = self.nodes.len();
        self.nodes.push(ExplainNode {
            kind,
            parent: Some(self.current),
            branches: Vec::new(),
            event: None,
            key: None,
            value: None,
            texts: Vec::new(),
        });
        self.nodes[self.current].branches.push(id);
        id
    }

    /// Enters a new node under the current one.
    pub fn push(&mut self, kind: NodeKind) -> usize {
        let id = self.add(kind);
        self.current = id;
        id
    }

    pub fn pop(&mut self) {
        if let Some(p) = self.nodes[self.current].parent {
            self.current = p;
        }
    }

    pub fn current(&self) -> usize {
        self.current
    }

    /// Leaves nodes until `id` is current again (after an error unwound through `with` blocks).
    pub fn reset_to(&mut self, id: usize) {
        if id < self.nodes.len() {
            self.current = id;
        }
    }

    pub fn node_mut(&mut self, id: usize) -> &mut ExplainNode {
        &mut self.nodes[id]
    }

    fn set(&mut self, event: Event, key: Option<String>, value: Option<Value>) {
        let n = &mut self.nodes[self.current];
        if key.is_some() {
            n.key = key;
        }
        n.value = value;
        n.event = Some(event);
    }

    pub fn accept_found(&mut self, key: &str, value: &Value) {
        self.set(Event::Found, Some(key.to_string()), Some(value.clone()));
    }

    pub fn accept_found_in_overrides(&mut self, key: &str, value: &Value) {
        self.set(
            Event::FoundInOverrides,
            Some(key.to_string()),
            Some(value.clone()),
        );
    }

    pub fn accept_found_in_defaults(&mut self, key: &str, value: &Value) {
        self.set(
            Event::FoundInDefaults,
            Some(key.to_string()),
            Some(value.clone()),
        );
    }

    pub fn accept_not_found(&mut self, key: &str) {
        self.set(Event::NotFound, Some(key.to_string()), None);
    }

    pub fn accept_location_not_found(&mut self) {
        self.nodes[self.current].event = Some(Event::LocationNotFound);
    }

    pub fn accept_result(&mut self, value: &Value) {
        let n = &mut self.nodes[self.current];
        n.value = Some(value.clone());
        n.event = Some(Event::Result);
    }

    pub fn accept_merge_source(&mut self, source: &str) {
        self.add(NodeKind::MergeSource {
            source: source.to_string(),
        });
    }

    pub fn accept_module_not_found(&mut self, module: &str) {
        self.push(NodeKind::Module {
            name: module.to_string(),
        });
        self.nodes[self.current].event = Some(Event::ModuleNotFound);
        self.pop();
    }

    pub fn accept_module_provider_not_found(&mut self, module: &str) {
        self.push(NodeKind::Module {
            name: module.to_string(),
        });
        self.nodes[self.current].event = Some(Event::ModuleProviderNotFound);
        self.pop();
    }

    /// Shows `new` wherever nodes created at or after `from` hold the very object `old` (Ruby
    /// explain nodes keep references, so a value mutated later is printed mutated).
    pub fn replace_object(&mut self, from: usize, old: &Value, new: &Value) {
        for n in self.nodes.iter_mut().skip(from) {
            if n.value.as_ref().is_some_and(|v| same_object(v, old)) {
                n.value = Some(new.clone());
            }
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn accept_text(&mut self, text: impl Into<String>) {
        self.nodes[self.current].texts.push(text.into());
    }

    /// The text `puppet lookup --explain` prints.
    pub fn explain(&self) -> String {
        let mut io = String::new();
        self.dump_on(0, &mut io, "", "");
        io
    }

    fn dump_texts(&self, id: usize, io: &mut String, indent: &str) {
        for t in &self.nodes[id].texts {
            io.push_str(indent);
            io.push_str(t);
            io.push('\n');
        }
    }

    fn dump_outcome(&self, id: usize, io: &mut String, indent: &str) {
        let n = &self.nodes[id];
        match n.event {
            Some(Event::NotFound) => {
                io.push_str(indent);
                io.push_str("No such key: \"");
                io.push_str(n.key.as_deref().unwrap_or(""));
                io.push_str("\"\n");
            }
            Some(e @ (Event::Found | Event::FoundInOverrides | Event::FoundInDefaults)) => {
                io.push_str(indent);
                io.push_str("Found key: \"");
                io.push_str(n.key.as_deref().unwrap_or(""));
                io.push_str("\" value: ");
                dump_value(io, indent, n.value.as_ref().unwrap_or(&Value::Undef));
                if e == Event::FoundInOverrides {
                    io.push_str(" in overrides");
                }
                if e == Event::FoundInDefaults {
                    io.push_str(" in defaults");
                }
                io.push('\n');
            }
            _ => {}
        }
        self.dump_texts(id, io, indent);
    }

    fn dump_branches(&self, id: usize, io: &mut String, indent: &str) {
        for &b in &self.nodes[id].branches {
            self.dump_on(b, io, indent, indent);
        }
    }

    fn dump_on(&self, id: usize, io: &mut String, indent: &str, first_indent: &str) {
        let n = &self.nodes[id];
        match &n.kind {
            NodeKind::Root => {
                for &b in &n.branches {
                    self.dump_on(b, io, indent, first_indent);
                }
                self.dump_texts(id, io, indent);
            }
            NodeKind::Top { key, .. } => {
                io.push_str(first_indent);
                io.push_str("Searching for \"");
                io.push_str(key);
                io.push_str("\"\n");
                let indent = format!("{indent}  ");
                self.dump_branches(id, io, &indent);
            }
            NodeKind::InvalidKey { key } => {
                io.push_str(first_indent);
                io.push_str("Invalid key \"");
                io.push_str(key);
                io.push_str("\"\n");
            }
            NodeKind::MergeSource { source } => {
                io.push_str(first_indent);
                io.push_str("Using merge options from \"");
                io.push_str(source);
                io.push_str("\" hash\n");
            }
            NodeKind::Module { name } => match n.event {
                Some(Event::ModuleNotFound) => {
                    io.push_str(indent);
                    io.push_str(&format!("Module \"{name}\" not found\n"));
                }
                Some(Event::ModuleProviderNotFound) => {
                    io.push_str(indent);
                    io.push_str(&format!(
                        "Module data provider for module \"{name}\" not found\n"
                    ));
                }
                _ => {}
            },
            NodeKind::Interpolate { expression } => {
                io.push_str(first_indent);
                io.push_str("Interpolation on \"");
                io.push_str(expression);
                io.push_str("\"\n");
                let indent = format!("{indent}  ");
                self.dump_branches(id, io, &indent);
            }
            NodeKind::Merge { strategy, options } => {
                match n.branches.len() {
                    0 => return,
                    1 => return self.dump_on(n.branches[0], io, indent, first_indent),
                    _ => {}
                }
                io.push_str(first_indent);
                io.push_str("Merge strategy ");
                io.push_str(strategy);
                io.push('\n');
                let indent = format!("{indent}  ");
                if let Some(o) = options {
                    io.push_str(&indent);
                    io.push_str("Options: ");
                    dump_value(io, &indent, &Value::hash(o.clone()));
                    io.push('\n');
                }
                self.dump_branches(id, io, &indent);
                if n.event == Some(Event::Result) {
                    io.push_str(&indent);
                    io.push_str("Merged result: ");
                    dump_value(io, &indent, n.value.as_ref().unwrap_or(&Value::Undef));
                    io.push('\n');
                }
            }
            NodeKind::DataProvider {
                name,
                config_path,
                configured,
                ..
            } => {
                io.push_str(first_indent);
                io.push_str(name);
                io.push('\n');
                let indent = format!("{indent}  ");
                if *configured {
                    if let Some(p) = config_path {
                        io.push_str(&indent);
                        io.push_str("Using configuration \"");
                        io.push_str(p);
                        io.push_str("\"\n");
                    }
                }
                self.dump_branches(id, io, &indent);
                self.dump_outcome(id, io, &indent);
            }
            NodeKind::Location {
                uri,
                location,
                original,
            } => {
                let type_name = if *uri { "URI" } else { "Path" };
                io.push_str(indent);
                io.push_str(&format!("{type_name} \"{location}\"\n"));
                let indent = format!("{indent}  ");
                io.push_str(&indent);
                io.push_str(&format!(
                    "Original {}: \"{original}\"\n",
                    type_name.to_lowercase()
                ));
                self.dump_branches(id, io, &indent);
                if n.event == Some(Event::LocationNotFound) {
                    io.push_str(&indent);
                    io.push_str(&format!("{type_name} not found\n"));
                }
                self.dump_outcome(id, io, &indent);
            }
            NodeKind::SubLookup { segments } => {
                io.push_str(indent);
                let joined: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
                io.push_str(&format!("Sub key: \"{}\"\n", joined.join(".")));
                let indent = format!("{indent}  ");
                self.dump_branches(id, io, &indent);
                self.dump_outcome(id, io, &indent);
            }
            NodeKind::Segment => self.dump_outcome(id, io, indent),
            NodeKind::Scope { name } => {
                io.push_str(indent);
                io.push_str(name);
                io.push('\n');
                let indent = format!("{indent}  ");
                self.dump_branches(id, io, &indent);
                self.dump_outcome(id, io, &indent);
            }
        }
    }

    /// The `to_hash` form (`--explain --render-as json`): the root's single branch, or the root.
    pub fn to_json(&self) -> serde_json::Value {
        let root = &self.nodes[0];
        if root.branches.len() == 1 {
            self.node_json(root.branches[0])
        } else {
            let mut m = serde_json::Map::new();
            if !root.branches.is_empty() {
                m.insert(
                    "branches".into(),
                    serde_json::Value::Array(
                        root.branches.iter().map(|&b| self.node_json(b)).collect(),
                    ),
                );
            }
            serde_json::Value::Object(m)
        }
    }

    fn node_json(&self, id: usize) -> serde_json::Value {
        use serde_json::Value as J;
        let n = &self.nodes[id];
        if let NodeKind::Merge { .. } = n.kind {
            if n.branches.len() == 1 {
                return self.node_json(n.branches[0]);
            }
        }
        if let NodeKind::MergeSource { source } = &n.kind {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), J::String("merge_source".into()));
            m.insert("merge_source".into(), J::String(source.clone()));
            return J::Object(m);
        }
        let mut m = serde_json::Map::new();
        if !n.branches.is_empty() {
            m.insert(
                "branches".into(),
                J::Array(n.branches.iter().map(|&b| self.node_json(b)).collect()),
            );
        }
        // ExplainTop sets its key when created; other nodes when an event names one.
        let top_key = match &n.kind {
            NodeKind::Top { key, .. } => Some(key),
            _ => None,
        };
        if let Some(k) = n.key.as_ref().or(top_key) {
            m.insert("key".into(), J::String(k.clone()));
        }
        if matches!(
            n.event,
            Some(Event::Found | Event::FoundInDefaults | Event::FoundInOverrides | Event::Result)
        ) {
            m.insert(
                "value".into(),
                n.value.as_ref().map(Value::to_json).unwrap_or(J::Null),
            );
        }
        if let Some(e) = n.event {
            m.insert("event".into(), J::String(e.name().into()));
        }
        if !n.texts.is_empty() {
            m.insert(
                "texts".into(),
                J::Array(n.texts.iter().map(|t| J::String(t.clone())).collect()),
            );
        }
        let ty = match &n.kind {
            NodeKind::Root | NodeKind::Top { .. } => "root",
            NodeKind::InvalidKey { .. } => "invalid_key",
            NodeKind::MergeSource { .. } => "merge_source",
            NodeKind::Module { .. } => "module",
            NodeKind::Interpolate { .. } => "interpolate",
            NodeKind::Merge { .. } => "merge",
            NodeKind::DataProvider { .. } => "data_provider",
            NodeKind::Location { uri: true, .. } => "uri",
            NodeKind::Location { .. } => "path",
            NodeKind::SubLookup { .. } => "sub_key",
            NodeKind::Segment => "segment",
            NodeKind::Scope { .. } => "scope",
        };
        m.insert("type".into(), J::String(ty.into()));
        match &n.kind {
            NodeKind::Interpolate { expression } => {
                m.insert("expression".into(), J::String(expression.clone()));
            }
            NodeKind::Merge { strategy, options } => {
                m.insert("merge".into(), J::String((*strategy).into()));
                if let Some(o) = options {
                    m.insert("options".into(), Value::hash(o.clone()).to_json());
                }
            }
            NodeKind::DataProvider {
                name,
                config_path,
                module,
                configured,
            } => {
                m.insert("name".into(), J::String(name.clone()));
                if *configured {
                    if let Some(p) = config_path {
                        m.insert("configuration_path".into(), J::String(p.clone()));
                    }
                }
                if let Some(md) = module {
                    m.insert("module".into(), J::String(md.clone()));
                }
            }
            NodeKind::Location {
                uri,
                location,
                original,
            } => {
                if *uri {
                    m.insert("original_uri".into(), J::String(original.clone()));
                    m.insert("uri".into(), J::String(location.clone()));
                } else {
                    m.insert("original_path".into(), J::String(original.clone()));
                    m.insert("path".into(), J::String(location.clone()));
                }
            }
            NodeKind::Scope { name } => {
                m.insert("name".into(), J::String(name.clone()));
            }
            _ => {}
        }
        J::Object(m)
    }
}

/// The same Ruby object: the same shared container.
pub fn same_object(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => std::sync::Arc::ptr_eq(x, y),
        (Value::Hash(x), Value::Hash(y)) => std::sync::Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// `ExplainTreeNode#dump_value`: multi-line hashes and arrays, Ruby `inspect` for the rest.
pub fn dump_value(io: &mut String, indent: &str, value: &Value) {
    // Explicit stack: (value, indent, phase) to stay safe on deep nesting.
    match value {
        Value::Hash(h) => {
            io.push('{');
            if !h.is_empty() {
                let inner = format!("{indent}  ");
                let mut sep = "\n";
                for (k, v) in h.iter() {
                    io.push_str(sep);
                    io.push_str(&inner);
                    dump_value(io, &inner, k);
                    io.push_str(" => ");
                    dump_value(io, &inner, v);
                    sep = ",\n";
                }
                io.push('\n');
                io.push_str(indent);
            }
            io.push('}');
        }
        Value::Array(a) => {
            io.push('[');
            if !a.is_empty() {
                let inner = format!("{indent}  ");
                let mut sep = "\n";
                for v in a.iter() {
                    io.push_str(sep);
                    io.push_str(&inner);
                    dump_value(io, &inner, v);
                    sep = ",\n";
                }
                io.push('\n');
                io.push_str(indent);
            }
            io.push(']');
        }
        other => io.push_str(&other.ruby_inspect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_puppet() {
        let mut e = Explainer::new();
        e.push(NodeKind::Top {
            key: "k".into(),
            meta: false,
        });
        e.push(NodeKind::DataProvider {
            name: "Environment Data Provider (hiera configuration version 5)".into(),
            config_path: Some("/env/hiera.yaml".into()),
            module: None,
            configured: true,
        });
        e.push(NodeKind::DataProvider {
            name: "Hierarchy entry \"Common\"".into(),
            config_path: None,
            module: None,
            configured: false,
        });
        e.push(NodeKind::Location {
            uri: false,
            location: "/env/data/common.yaml".into(),
            original: "common.yaml".into(),
        });
        let v = Value::hash(
            [(Value::string("a"), Value::array(vec![Value::Integer(1)]))]
                .into_iter()
                .collect(),
        );
        e.accept_found("k", &v);
        e.pop();
        e.pop();
        e.pop();
        e.pop();
        assert_eq!(
            e.explain(),
            "Searching for \"k\"\n  Environment Data Provider (hiera configuration version 5)\n    Using configuration \"/env/hiera.yaml\"\n    Hierarchy entry \"Common\"\n      Path \"/env/data/common.yaml\"\n        Original path: \"common.yaml\"\n        Found key: \"k\" value: {\n          \"a\" => [\n            1\n          ]\n        }\n"
        );
    }
}

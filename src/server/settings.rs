//! What the server needs from configuration: the fact sets and the Puppet version, from the
//! client's `initializationOptions` and from `.hieralint.yaml`.
//!
//! `initializationOptions` are the server's command line: `{"facts": ["path", ...], "puppet":
//! 7}` (`facts` may also be one string); relative fact paths are resolved against the workspace
//! root. Without them, the `.hieralint.yaml` found in the environment's directory or one of its
//! parents gives `facts:` (a path or a list, relative to the file's directory) and `puppet:`
//! (docs/configuration.md). Only these two keys are read here: validating the rest of the file
//! is the `check` command's job (H903), so a file with errors still gives what it can.

use std::path::{Path, PathBuf};

use crate::loader;
use crate::span::SourceFile;
use crate::value::{Node, NodeKind, Value};

/// The configuration file's name.
pub const CONFIG_FILE: &str = ".hieralint.yaml";

/// The client's `initializationOptions`, parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitOptions {
    pub facts: Vec<PathBuf>,
    pub puppet: Option<u8>,
}

impl InitOptions {
    /// Reads `initializationOptions`; unknown keys and values of the wrong shape are ignored
    /// (the client cannot show an error for them anyway). Relative paths are resolved against
    /// `root`.
    pub fn from_json(v: Option<&serde_json::Value>, root: &Path) -> InitOptions {
        let mut out = InitOptions::default();
        let Some(obj) = v.and_then(|v| v.as_object()) else {
            return out;
        };
        let mut push = |s: &str| {
            let p = Path::new(s);
            out.facts.push(if p.is_absolute() {
                p.to_path_buf()
            } else {
                root.join(p)
            });
        };
        match obj.get("facts") {
            Some(serde_json::Value::String(s)) => push(s),
            Some(serde_json::Value::Array(a)) => {
                for s in a.iter().filter_map(|x| x.as_str()) {
                    push(s);
                }
            }
            _ => {}
        }
        out.puppet = obj
            .get("puppet")
            .and_then(|p| p.as_u64())
            .filter(|p| matches!(p, 7 | 8))
            .map(|p| p as u8);
        out
    }
}

/// The settings in force for one environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvSettings {
    /// Fact set files or directories (empty: nodes are implied by the data).
    pub facts: Vec<PathBuf>,
    /// 7 or 8.
    pub puppet: u8,
    /// The `.hieralint.yaml` read, if any.
    pub config_file: Option<PathBuf>,
}

impl EnvSettings {
    /// The settings for the environment at `root`: the client's options first, then the
    /// configuration file, then the defaults (no facts, Puppet 8).
    pub fn resolve(init: &InitOptions, root: &Path) -> EnvSettings {
        let config_file = find_config(root);
        let (cfg_facts, cfg_puppet) = match &config_file {
            Some(p) => read_config(p),
            None => (Vec::new(), None),
        };
        EnvSettings {
            facts: if init.facts.is_empty() {
                cfg_facts
            } else {
                init.facts.clone()
            },
            puppet: init.puppet.or(cfg_puppet).unwrap_or(8),
            config_file,
        }
    }
}

/// The first `.hieralint.yaml` in `dir` or its parents.
pub fn find_config(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
}

/// `facts:` and `puppet:` of a configuration file.
fn read_config(path: &Path) -> (Vec<PathBuf>, Option<u8>) {
    let Ok(bytes) = std::fs::read(path) else {
        return (Vec::new(), None);
    };
    let file = SourceFile::from_bytes(path, &bytes);
    let doc = loader::yaml::load(&file);
    let base = path.parent().unwrap_or(Path::new("/"));
    let Some(map) = doc.root.as_ref().and_then(Node::as_map) else {
        return (Vec::new(), None);
    };
    let mut facts = Vec::new();
    if let Some(n) = map.get_value("facts") {
        let items: Vec<&Node> = match &n.kind {
            NodeKind::Seq(items) => items.iter().collect(),
            NodeKind::Scalar(_) => vec![n],
            NodeKind::Map(_) => Vec::new(),
        };
        for s in items.into_iter().filter_map(Node::as_str) {
            facts.push(super::uri::normalize(&base.join(s)));
        }
    }
    let puppet = map
        .get_value("puppet")
        .and_then(Node::as_scalar)
        .and_then(|s| match s.value {
            Value::Integer(7) => Some(7),
            Value::Integer(8) => Some(8),
            _ => None,
        });
    (facts, puppet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_options_shapes() {
        let root = Path::new("/ws");
        let o = InitOptions::from_json(
            Some(&serde_json::json!({"facts": ["f", "/abs/g.json"], "puppet": 7})),
            root,
        );
        assert_eq!(
            o.facts,
            vec![PathBuf::from("/ws/f"), PathBuf::from("/abs/g.json")]
        );
        assert_eq!(o.puppet, Some(7));
        let o = InitOptions::from_json(Some(&serde_json::json!({"facts": "x", "puppet": 6})), root);
        assert_eq!(o.facts, vec![PathBuf::from("/ws/x")]);
        assert_eq!(o.puppet, None);
        assert_eq!(InitOptions::from_json(None, root), InitOptions::default());
    }

    #[test]
    fn config_file_facts_are_relative_to_it() {
        let dir = std::env::temp_dir().join(format!("hieralint-settings-{}", std::process::id()));
        let env = dir.join("env");
        std::fs::create_dir_all(&env).unwrap();
        std::fs::write(
            dir.join(CONFIG_FILE),
            "facts: [./facts, other/x.json]\npuppet: 7\nrules: {bogus: 1}\n",
        )
        .unwrap();
        let s = EnvSettings::resolve(&InitOptions::default(), &env);
        assert_eq!(s.facts, vec![dir.join("facts"), dir.join("other/x.json")]);
        assert_eq!(s.puppet, 7);
        assert_eq!(s.config_file, Some(dir.join(CONFIG_FILE)));
        // the client's options win
        let init = InitOptions {
            facts: vec![PathBuf::from("/f")],
            puppet: Some(8),
        };
        let s = EnvSettings::resolve(&init, &env);
        assert_eq!(s.facts, vec![PathBuf::from("/f")]);
        assert_eq!(s.puppet, 8);
        std::fs::write(dir.join(CONFIG_FILE), "facts: one.json\n").unwrap();
        let s = EnvSettings::resolve(&InitOptions::default(), &env);
        assert_eq!(s.facts, vec![dir.join("one.json")]);
        assert_eq!(s.puppet, 8);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! The configuration in force for an environment: `.hieralint.yaml` (read and validated by
//! [`crate::settings`], exactly as `hieralint check` reads it) and the client's
//! `initializationOptions`, which play the part of the command line.
//!
//! `initializationOptions`: `{"facts": ["path", ...], "puppet": 7}` (`facts` may also be one
//! string); relative fact paths are resolved against the workspace root. They win over the
//! configuration file's `facts:` and `puppet:`, as `--facts` and `--puppet` do
//! (docs/configuration.md).

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::rules::RuleMeta;
use crate::settings::{self as config, Settings};

/// The configuration file's name.
pub const CONFIG_FILE: &str = config::FILE_NAME;

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
#[derive(Clone, Debug, Default)]
pub struct EnvSettings {
    /// Fact set files or directories (empty: nodes are implied by the data).
    pub facts: Vec<PathBuf>,
    /// 7 or 8.
    pub puppet: u8,
    /// The `.hieralint.yaml` read, if any.
    pub config_file: Option<PathBuf>,
    /// The configuration (the defaults without a file).
    pub settings: Settings,
    /// What is wrong in the configuration file (H903), reported on it.
    pub config_diagnostics: Vec<Diagnostic>,
}

impl EnvSettings {
    /// The settings for files under `dir`: the client's options first, then the configuration
    /// file found in `dir` or its parents, then the defaults (no facts, Puppet 8). A file that
    /// cannot be read counts as absent.
    pub fn resolve(init: &InitOptions, dir: &Path, known: &[&'static RuleMeta]) -> EnvSettings {
        let config_file = find_config(dir);
        let (settings, config_diagnostics) = config_file
            .as_deref()
            .and_then(|p| config::load(p, known).ok())
            .unwrap_or_default();
        EnvSettings {
            facts: if init.facts.is_empty() {
                settings
                    .facts
                    .iter()
                    .map(|p| super::uri::normalize(p))
                    .collect()
            } else {
                init.facts.clone()
            },
            puppet: init.puppet.or(settings.puppet).unwrap_or(8),
            config_file,
            settings,
            config_diagnostics,
        }
    }
}

/// The first `.hieralint.yaml` in `dir` or its parents (absolute, as `dir` is).
pub fn find_config(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
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
        let known = crate::rules::all_meta();
        let dir = std::env::temp_dir().join(format!("hieralint-settings-{}", std::process::id()));
        let env = dir.join("env");
        std::fs::create_dir_all(&env).unwrap();
        // the configuration's fact paths must exist (H903 otherwise)
        std::fs::create_dir_all(dir.join("facts")).unwrap();
        std::fs::create_dir_all(dir.join("other")).unwrap();
        std::fs::write(dir.join("other/x.json"), "{}").unwrap();
        std::fs::write(dir.join("one.json"), "{}").unwrap();
        std::fs::write(
            dir.join(CONFIG_FILE),
            "facts: [./facts, other/x.json]\npuppet: 7\nrules: {bogus: off}\n",
        )
        .unwrap();
        let s = EnvSettings::resolve(&InitOptions::default(), &env, &known);
        assert_eq!(s.facts, vec![dir.join("facts"), dir.join("other/x.json")]);
        assert_eq!(s.puppet, 7);
        assert_eq!(s.config_file, Some(dir.join(CONFIG_FILE)));
        // the unknown rule is an H903 finding in the file; the rest applies
        assert_eq!(s.config_diagnostics.len(), 1);
        assert_eq!(s.config_diagnostics[0].rule.code, "H903");
        // the client's options win
        let init = InitOptions {
            facts: vec![PathBuf::from("/f")],
            puppet: Some(8),
        };
        let s = EnvSettings::resolve(&init, &env, &known);
        assert_eq!(s.facts, vec![PathBuf::from("/f")]);
        assert_eq!(s.puppet, 8);
        std::fs::write(dir.join(CONFIG_FILE), "facts: one.json\n").unwrap();
        let s = EnvSettings::resolve(&InitOptions::default(), &env, &known);
        assert_eq!(s.facts, vec![dir.join("one.json")]);
        assert_eq!(s.puppet, 8);
        std::fs::remove_file(dir.join(CONFIG_FILE)).unwrap();
        let s = EnvSettings::resolve(&InitOptions::default(), &env, &known);
        assert!(s.config_file.is_none() && s.facts.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

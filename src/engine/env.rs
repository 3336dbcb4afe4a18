//! The environment a lookup runs in: its directory, `environment.conf`, the modulepath, the
//! modules on it, and the global hiera.yaml (reference §1.1, §2.2).

use std::path::{Path, PathBuf};

use super::vfs::Vfs;

/// Where an environment lives and what surrounds it.
#[derive(Clone, Debug)]
pub struct EnvironmentSpec {
    /// The environment name (`production`): `$environment`, `$server_facts['environment']`.
    pub name: String,
    /// The environment directory (holding hiera.yaml, data/, modules/, environment.conf).
    pub dir: PathBuf,
    /// Puppet's `basemodulepath` (`$codedir/modules` and the system module directory).
    pub basemodulepath: Vec<PathBuf>,
    /// The global hiera.yaml (`Puppet[:hiera_config]`). When the file does not exist, the global
    /// layer uses Puppet's default v5 configuration rooted at its directory; `None` means a
    /// directory with nothing in it (what `puppet lookup` sees without a global configuration).
    pub global_hiera_config: Option<PathBuf>,
}

impl EnvironmentSpec {
    /// The environment `<codedir>/environments/<name>`, with `basemodulepath` `<codedir>/modules`
    /// and the global hiera.yaml `<codedir>/hiera.yaml` (Puppet's defaults for a codedir).
    pub fn in_codedir(codedir: &Path, name: &str) -> EnvironmentSpec {
        EnvironmentSpec {
            name: name.to_string(),
            dir: codedir.join("environments").join(name),
            basemodulepath: vec![codedir.join("modules")],
            global_hiera_config: Some(codedir.join("hiera.yaml")),
        }
    }

    /// An environment directory on its own (no codedir): no base modules, no global config.
    pub fn standalone(dir: &Path, name: &str) -> EnvironmentSpec {
        EnvironmentSpec {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            basemodulepath: Vec::new(),
            global_hiera_config: None,
        }
    }
}

/// An environment as Puppet sees it.
#[derive(Clone, Debug)]
pub struct Environment {
    pub spec: EnvironmentSpec,
    /// The modulepath, in order.
    pub modulepath: Vec<PathBuf>,
    /// `environment_data_provider` from environment.conf (deprecated; §2.2).
    pub data_provider: Option<String>,
    /// environment.conf, when present.
    pub conf_path: Option<PathBuf>,
}

/// `key = value` settings of an environment.conf (Puppet's settings file syntax, main section).
fn parse_conf(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_main = true;
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if l.starts_with('[') {
            in_main = l == "[main]";
            continue;
        }
        if !in_main {
            continue;
        }
        if let Some((k, v)) = l.split_once('=') {
            let k = k.trim();
            if !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                out.push((k.to_string(), v.trim().to_string()));
            }
        }
    }
    out
}

impl Environment {
    /// Reads environment.conf (if any) and resolves the modulepath.
    pub fn load(spec: EnvironmentSpec, vfs: &dyn Vfs) -> Environment {
        let conf_path = spec.dir.join("environment.conf");
        let conf = vfs
            .read(&conf_path)
            .map(|f| parse_conf(f.text()))
            .unwrap_or_default();
        let get = |k: &str| {
            conf.iter()
                .rev()
                .find(|(ck, _)| ck == k)
                .map(|(_, v)| v.clone())
        };
        let modulepath = match get("modulepath") {
            Some(mp) => {
                let mut out = Vec::new();
                for entry in mp.split(':').filter(|e| !e.is_empty()) {
                    if entry.contains("$basemodulepath") {
                        out.extend(spec.basemodulepath.iter().cloned());
                        continue;
                    }
                    let entry = entry.replace("$environment", &spec.name);
                    let p = PathBuf::from(&entry);
                    out.push(if p.is_absolute() { p } else { spec.dir.join(p) });
                }
                out
            }
            None => {
                let mut v = vec![spec.dir.join("modules")];
                v.extend(spec.basemodulepath.iter().cloned());
                v
            }
        };
        let has_conf = vfs.exists(&conf_path);
        Environment {
            data_provider: get("environment_data_provider"),
            conf_path: has_conf.then_some(conf_path),
            modulepath,
            spec,
        }
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn dir(&self) -> &Path {
        &self.spec.dir
    }

    /// `environment.module(name)`: the first modulepath directory holding a directory of that
    /// name, if the name is a valid module directory name (`/^[a-z][a-z0-9_]*$/`).
    pub fn module_dir(&self, name: &str, vfs: &dyn Vfs) -> Option<PathBuf> {
        if !is_module_name(name) {
            return None;
        }
        self.modulepath
            .iter()
            .map(|d| d.join(name))
            .find(|p| vfs.is_dir(p))
    }

    /// Every module on the modulepath (first occurrence of each name wins), sorted by path order.
    pub fn modules(&self, vfs: &dyn Vfs) -> Vec<(String, PathBuf)> {
        let mut out: Vec<(String, PathBuf)> = Vec::new();
        for dir in &self.modulepath {
            let Some(mut entries) = vfs.read_dir(dir) else {
                continue;
            };
            entries.sort();
            for (name, is_dir) in entries {
                if is_dir && is_module_name(&name) && !out.iter().any(|(n, _)| *n == name) {
                    out.push((name.clone(), dir.join(&name)));
                }
            }
        }
        out
    }
}

/// `Puppet::Module.is_module_directory_name?`.
pub fn is_module_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conf_parsing() {
        let c = parse_conf(
            "# x\nmodulepath = site:modules:$basemodulepath\nenvironment_data_provider=hiera\n",
        );
        assert_eq!(
            c,
            vec![
                ("modulepath".into(), "site:modules:$basemodulepath".into()),
                ("environment_data_provider".into(), "hiera".into())
            ]
        );
        assert!(is_module_name("a_b1"));
        assert!(!is_module_name("A"));
        assert!(!is_module_name("1a"));
        assert!(!is_module_name("::mod::x"));
    }
}

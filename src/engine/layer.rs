//! A layer's configuration as Puppet creates it (`HieraConfig.create` and the providers'
//! `assert_config_version`; reference §1, §2.2): the hiera.yaml parsed by [`crate::config`],
//! Puppet's validation errors raised in Puppet's order and with Puppet's exception classes, and
//! the hierarchy flattened into [`EntrySpec`]s the session resolves against a scope.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::{file_line_suffix, ErrorKind, LookupError};
use crate::config::{
    self, ConfigError, ConfigErrorKind, ConfigVersion, FunctionKind, HieraConfig, HierarchyEntry,
    Locations, SharedParse, When,
};
use crate::loader;
use crate::project::Layer;
use crate::span::{SourceFile, Span};
use crate::value::Value;

/// Which layer a provider serves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Global,
    Environment,
    Module(String),
}

impl Place {
    pub fn layer(&self) -> Layer {
        match self {
            Place::Global => Layer::Global,
            Place::Environment => Layer::Environment,
            Place::Module(m) => Layer::Module(m.clone()),
        }
    }

    /// `ConfiguredDataProvider#place` (+ the module name), for explain.
    pub fn provider_name(&self, version: Option<u32>) -> String {
        let mut n = match self {
            Place::Global => "Global ".to_string(),
            Place::Environment => "Environment ".to_string(),
            Place::Module(m) => format!("Module \"{m}\" "),
        };
        n.push_str("Data Provider");
        if let Some(v) = version {
            n.push_str(&format!(" (hiera configuration version {v})"));
        }
        n
    }
}

/// Where a hierarchy level finds its data, before interpolation.
#[derive(Clone, Debug)]
pub enum LocSpec {
    None,
    Paths(Vec<Template>),
    /// The globs, and each one's span in the hiera.yaml (empty for a built-in configuration).
    Globs(Vec<Template>, Vec<Span>),
    Uris(Vec<String>),
    Mapped([String; 3]),
}

/// A `path` or `glob` of a level, with its `%{...}` tokens found once: a level that reads a
/// node's own name (`nodes/%{trusted.certname}.yaml`) is resolved again for every node, and
/// finding the tokens and splitting each variable's key on every resolution was a third of
/// interpolating the location ([`super::lookup::Cx`] interpolates the parts made here exactly
/// as it interpolates the text: same reads, same counts, same errors).
#[derive(Clone, Debug)]
pub struct Template {
    pub text: String,
    /// `text` as shared by every resolved location that names it as declared.
    pub(crate) shared: Arc<str>,
    /// Whether `text` holds `%{` (Puppet interpolates only such strings; an unterminated
    /// `%{` is interpolated to itself, with no token).
    pub(crate) interpolates: bool,
    /// The tokens of `text`.
    pub(crate) tokens: Arc<[crate::interp::Token]>,
    /// Per token: for a variable whose key splits, the key's parts.
    pub(crate) vars: Arc<[Option<PreVar>]>,
}

/// A variable token's key made ready: the key as an `Arc` (the scope read it records), its
/// segments ([`crate::interp::split_key`]), and the name the recursion guard stacks.
#[derive(Debug)]
pub(crate) struct PreVar {
    pub key: Arc<str>,
    pub segments: Vec<crate::interp::Segment>,
    pub guard: Arc<str>,
}

impl Template {
    pub fn new(text: impl Into<String>) -> Template {
        let text = text.into();
        let interpolates = crate::interp::has_interpolation(&text);
        let tokens: Vec<crate::interp::Token> = if interpolates {
            crate::interp::tokens(&text)
        } else {
            Vec::new()
        };
        let vars =
            tokens
                .iter()
                .map(|t| match t.kind {
                    crate::interp::TokenKind::Variable => crate::interp::split_key(&t.expr)
                        .ok()
                        .map(|segments| PreVar {
                            key: Arc::from(t.expr.as_str()),
                            segments,
                            guard: Arc::from(format!("scope:{}", t.expr)),
                        }),
                    _ => None,
                })
                .collect();
        Template {
            shared: Arc::from(text.as_str()),
            text,
            interpolates,
            tokens: tokens.into(),
            vars,
        }
    }
}

impl From<&str> for Template {
    fn from(s: &str) -> Template {
        Template::new(s)
    }
}

/// One hierarchy level, version-independent.
#[derive(Clone, Debug)]
pub struct EntrySpec {
    pub name: Arc<str>,
    /// The function kind and name Puppet calls (entry's own, else the defaults').
    /// The function's kind and name (the name shared by every resolution of the level).
    pub function: Option<(FunctionKind, Arc<str>)>,
    /// The datadir before interpolation, relative to the config root.
    pub datadir: String,
    /// `datadir` joined to the root of the configuration holding this entry (Ruby's
    /// `Pathname#+`), exact, and its text when that holds `%{` (to interpolate): made once,
    /// not on every resolution of the level (one per data-implied node for a node-file level).
    pub(crate) joined_datadir: std::sync::OnceLock<(std::path::PathBuf, Option<String>)>,
    /// `options` and their hash when nothing in them interpolates (`None` when something
    /// does): the same at every resolution of the level, so made once.
    pub(crate) static_options: std::sync::OnceLock<Option<(Arc<crate::value::Hash>, u64)>>,
    /// What every resolution of this entry shares ([`EntrySpec::settings`]).
    pub(crate) settings: std::sync::OnceLock<Arc<super::lookup::LevelSettings>>,
    pub locations: LocSpec,
    pub options: Option<Value>,
    /// v3/v4: the extension appended to paths lacking it.
    pub extension: Option<String>,
    pub span: Span,
    /// A problem Puppet raises when it creates this level's provider (duplicate name, unknown
    /// v4 backend).
    pub creation_error: Option<LookupError>,
}

impl EntrySpec {
    /// The settings every resolution of this entry shares, made on the first. An entry
    /// belongs to one layer configuration (`cfg`), and the engine makes one configuration per
    /// path and place (`Engine::create_config`), so `place`, `cfg` and `is_default` are the
    /// same at every call; `kind` and `function` are the entry's own (`self.function`).
    pub(crate) fn settings(
        &self,
        place: &Place,
        cfg: &LayerConfig,
        is_default: bool,
        kind: FunctionKind,
        function: &Arc<str>,
    ) -> Arc<super::lookup::LevelSettings> {
        let s = self.settings.get_or_init(|| {
            Arc::new(super::lookup::LevelSettings::new(
                place.clone(),
                cfg.config_path.clone(),
                self.name.clone(),
                is_default,
                kind,
                function.clone(),
            ))
        });
        debug_assert!(
            s.layer == *place
                && s.config_path == cfg.config_path
                && s.default_hierarchy == is_default
                && s.function_kind == kind
                && s.function == *function,
            "an entry resolved for another layer configuration"
        );
        s.clone()
    }
}

/// A layer's configuration, resolved once per file (scope independent).
#[derive(Clone, Debug)]
pub struct LayerConfig {
    pub version: u32,
    /// The hiera.yaml path, `None` for Puppet's built-in configurations.
    pub config_path: Option<Arc<std::path::Path>>,
    /// The directory relative paths start from.
    pub root: PathBuf,
    pub file: Option<Arc<SourceFile>>,
    pub entries: Vec<EntrySpec>,
    /// A module's `default_hierarchy`.
    pub default_entries: Option<Vec<EntrySpec>>,
    /// v3 `merge_behavior` (global layer only).
    pub v3_merge_behavior: Option<String>,
}

impl LayerConfig {
    /// `@config_path.nil?`: missing paths are dropped from a built-in configuration.
    pub fn is_default(&self) -> bool {
        self.config_path.is_none()
    }

    /// `HieraConfig#fail`: a LookupError with Puppet's file (and line) suffix.
    pub fn fail(&self, message: &str, line: Option<usize>) -> LookupError {
        let mut e = LookupError::lookup(format!(
            "{message}{}",
            file_line_suffix(self.config_path.as_deref(), line)
        ));
        e.issue_code = true;
        if let Some(p) = &self.config_path {
            e = e.with_path(p.to_path_buf());
        }
        e
    }

    /// Puppet's built-in v5 configuration for a layer without hiera.yaml (§1.1 item 4).
    pub fn default_v5(root: &Path) -> LayerConfig {
        LayerConfig {
            version: 5,
            config_path: None,
            root: root.to_path_buf(),
            file: None,
            entries: vec![EntrySpec {
                name: "Common".into(),
                function: Some((FunctionKind::DataHash, "yaml_data".into())),
                datadir: "data".into(),
                joined_datadir: Default::default(),
                static_options: Default::default(),
                settings: Default::default(),
                locations: LocSpec::Paths(vec!["common.yaml".into()]),
                options: None,
                extension: None,
                span: Span::default(),
                creation_error: None,
            }],
            default_entries: None,
            v3_merge_behavior: None,
        }
    }

    /// `HieraConfig.v4_function_config`: a legacy `<module>::data` / `environment::data`
    /// function as the only level.
    pub fn v4_function(root: &Path, function_name: &str) -> LayerConfig {
        LayerConfig {
            version: 5,
            config_path: None,
            root: root.to_path_buf(),
            file: None,
            entries: vec![EntrySpec {
                name: format!("Legacy function '{function_name}'").into(),
                function: Some((FunctionKind::V4DataHash, function_name.into())),
                datadir: "data".into(),
                joined_datadir: Default::default(),
                static_options: Default::default(),
                settings: Default::default(),
                locations: LocSpec::None,
                options: None,
                extension: None,
                span: Span::default(),
                creation_error: None,
            }],
            default_entries: None,
            v3_merge_behavior: None,
        }
    }
}

/// The result of creating a layer's configuration.
pub struct Created {
    pub config: Result<Arc<LayerConfig>, LookupError>,
    /// Warnings Puppet logs while creating it (deprecations, not-a-hash).
    pub warnings: Vec<String>,
}

/// A part of Puppet's struct assertion (`TypeAsserter`), which raises all of them at once as
/// one TypeAssertionError.
fn is_struct_error(e: &ConfigError) -> bool {
    matches!(
        e.kind,
        ConfigErrorKind::WrongType | ConfigErrorKind::UnrecognizedKey | ConfigErrorKind::MissingKey
    ) || e.puppet_message.starts_with("The Lookup Configuration at ")
}

/// `HieraConfig.create` for `path` in `place`: the configuration or the error Puppet raises
/// while creating it. `shared`: the parse of `source` the caller holds (`Vfs::shared_config`),
/// used when it was made for `place`'s layer; parsed here otherwise.
pub fn create(
    path: &Path,
    place: &Place,
    source: Option<Arc<SourceFile>>,
    shared: Option<&SharedParse>,
) -> Created {
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let Some(source) = source else {
        return Created {
            config: Ok(Arc::new(LayerConfig::default_v5(&root))),
            warnings: Vec::new(),
        };
    };
    // A parse made for another layer is not this one: the layer rules differ
    // (`default_hierarchy` is for modules only, version 3 for the global layer only).
    let layer = place.layer();
    let own;
    let (model, errors) = match shared {
        Some(p) if *p.layer() == layer => p.get(),
        _ => {
            own = config::parse(&source, &loader::yaml::load(&source), &layer);
            &own
        }
    };
    let mut warnings = Vec::new();
    // Errors Puppet raises before it has a configuration object, in its order.
    for e in errors {
        match e.kind {
            ConfigErrorKind::YamlSyntax => {
                let mut err = LookupError::new(ErrorKind::YamlLoad, e.puppet_message.clone())
                    .with_source(&source, e.span);
                err.issue_code = false;
                return Created {
                    config: Err(err),
                    warnings,
                };
            }
            ConfigErrorKind::VersionNotConvertible => {
                return Created {
                    config: Err(
                        LookupError::new(ErrorKind::NoMethod, e.puppet_message.clone())
                            .with_source(&source, e.span),
                    ),
                    warnings,
                };
            }
            ConfigErrorKind::UnsupportedVersion => {
                let mut err =
                    LookupError::lookup(e.puppet_message.clone()).with_source(&source, e.span);
                err.issue_code = true;
                return Created {
                    config: Err(err),
                    warnings,
                };
            }
            _ => {}
        }
    }
    for e in errors {
        if e.when == When::Warning && e.kind != ConfigErrorKind::V3NotGlobal {
            warnings.push(e.puppet_message.clone());
        }
    }
    let Some(model) = model else {
        return Created {
            config: Err(LookupError::lookup(format!(
                "hieralint could not read {}",
                path.display()
            ))),
            warnings,
        };
    };
    // The struct assertion reports every mismatch in one TypeAssertionError.
    let structs: Vec<&ConfigError> = errors
        .iter()
        .filter(|e| e.when == When::AtValidation && is_struct_error(e))
        .collect();
    if !structs.is_empty() {
        let msg = if let Some(whole) = &structs[0].puppet_assertion {
            whole.clone()
        } else if structs.len() == 1 {
            structs[0].puppet_message.clone()
        } else {
            format!(
                " {}",
                structs
                    .iter()
                    .map(|e| e.puppet_message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )
        };
        return Created {
            config: Err(LookupError::type_assertion(msg).with_source(&source, structs[0].span)),
            warnings,
        };
    }
    if let Some(e) = errors
        .iter()
        .find(|e| e.when == When::AtValidation && e.kind != ConfigErrorKind::V3NotGlobal)
    {
        let mut err = LookupError::lookup(e.puppet_message.clone()).with_source(&source, e.span);
        err.issue_code = true;
        return Created {
            config: Err(err),
            warnings,
        };
    }
    let version = model.version.value.number();
    let mut lc = LayerConfig {
        version,
        config_path: Some(Arc::from(path)),
        root: root.clone(),
        file: Some(source.clone()),
        entries: Vec::new(),
        default_entries: None,
        v3_merge_behavior: None,
    };
    match model.version.value {
        ConfigVersion::V5 | ConfigVersion::V4 => {
            let v4_datadir = model.v4.as_ref().map(|v| v.datadir.value.clone());
            lc.entries = model
                .hierarchy
                .iter()
                .map(|he| entry_spec(he, model, v4_datadir.as_deref(), errors, &source))
                .collect();
            if let Some((_, d)) = &model.default_hierarchy {
                lc.default_entries = Some(
                    d.iter()
                        .map(|he| entry_spec(he, model, None, errors, &source))
                        .collect(),
                );
            }
        }
        ConfigVersion::V3 => {
            if let Some(v3) = &model.v3 {
                lc.v3_merge_behavior = Some(v3.merge_behavior.value.clone());
                let hierarchy: Vec<String> = v3.hierarchy.iter().map(|s| s.value.clone()).collect();
                for b in &v3.backend_configs {
                    let name = b.name.value.clone();
                    let function = match name.as_str() {
                        "yaml" => (FunctionKind::DataHash, Arc::from("yaml_data")),
                        "json" => (FunctionKind::DataHash, Arc::from("json_data")),
                        "hocon" => (FunctionKind::DataHash, Arc::from("hocon_data")),
                        "eyaml" => (FunctionKind::LookupKey, Arc::from("eyaml_lookup_key")),
                        other => (FunctionKind::Hiera3Backend, Arc::from(other)),
                    };
                    let options = b.config.as_ref().map(|c| {
                        let mut v = c.value.to_value();
                        if let Value::Hash(h) = &mut v {
                            let mut h2 = (**h).clone();
                            for k in ["datadir", "extension"] {
                                h2.shift_remove(&Value::string(k));
                            }
                            v = Value::hash(h2);
                        }
                        v
                    });
                    lc.entries.push(EntrySpec {
                        name: name.as_str().into(),
                        function: Some(function),
                        datadir: b
                            .datadir
                            .as_ref()
                            .map(|d| d.value.clone())
                            .unwrap_or_else(|| {
                                config::V3Config::DEFAULT_DATADIR_UNDER_CODEDIR.to_string()
                            }),
                        joined_datadir: Default::default(),
                        static_options: Default::default(),
                        settings: Default::default(),
                        locations: LocSpec::Paths(
                            hierarchy.iter().map(|h| Template::new(&**h)).collect(),
                        ),
                        options,
                        extension: Some(b.effective_extension()),
                        span: b.name.span,
                        creation_error: None,
                    });
                }
            }
        }
    }
    Created {
        config: Ok(Arc::new(lc)),
        warnings,
    }
}

fn entry_spec(
    he: &HierarchyEntry,
    model: &HieraConfig,
    v4_datadir: Option<&str>,
    errors: &[ConfigError],
    source: &Arc<SourceFile>,
) -> EntrySpec {
    let locations = match &he.locations {
        Locations::None => LocSpec::None,
        Locations::Paths(f) => {
            LocSpec::Paths(f.items.iter().map(|s| Template::new(&*s.value)).collect())
        }
        Locations::Globs(f) => LocSpec::Globs(
            f.items.iter().map(|s| Template::new(&*s.value)).collect(),
            f.items.iter().map(|s| s.span).collect(),
        ),
        Locations::Uris(f) => LocSpec::Uris(f.items.iter().map(|s| s.value.clone()).collect()),
        Locations::MappedPaths {
            scope_expr,
            var,
            template,
            ..
        } => LocSpec::Mapped([
            scope_expr.value.clone(),
            var.value.clone(),
            template.value.clone(),
        ]),
    };
    // v4: paths default to the name, the backend's extension is appended.
    let locations = match (&locations, he.extension) {
        (LocSpec::None, Some(_)) => LocSpec::Paths(vec![Template::new(&*he.name.value)]),
        _ => locations,
    };
    let datadir = match (&he.datadir, v4_datadir) {
        (Some(d), _) => d.value.clone(),
        (None, Some(d)) => d.to_string(),
        (None, None) => he.effective_datadir(&model.defaults).to_string(),
    };
    let creation_error = errors
        .iter()
        .find(|e| {
            e.when == When::AtProviderCreation
                && matches!(
                    e.kind,
                    ConfigErrorKind::DuplicateName | ConfigErrorKind::UnknownV4Backend
                )
                && he.span.start <= e.span.start
                && e.span.end <= he.span.end
        })
        .map(|e| {
            let mut err = LookupError::lookup(e.puppet_message.clone()).with_source(source, e.span);
            err.issue_code = true;
            err
        });
    let function = he
        .effective_function(&model.defaults)
        .map(|f| (f.kind, Arc::from(f.name.value.as_str())));
    EntrySpec {
        name: he.name.value.as_str().into(),
        function,
        datadir,
        joined_datadir: Default::default(),
        static_options: Default::default(),
        settings: Default::default(),
        locations,
        options: he
            .effective_options(&model.defaults)
            .map(|o| o.value.clone()),
        extension: he.extension.map(str::to_string),
        span: he.span,
        creation_error,
    }
}

/// Escapes a string for use inside a Ruby regex source (Puppet interpolates names raw; this is
/// used only where Puppet's name is a plain identifier).
pub fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `create` takes a shared parse only when it was made for the layer it reads the file
    /// as: `default_hierarchy` is allowed in a module's hiera.yaml and an error in the
    /// environment's, so a module-layer parse handed to the environment must not be used.
    #[test]
    fn a_shared_parse_of_another_layer_is_not_used() {
        let path = Path::new("/nonexistent-hieralint-layer/env/hiera.yaml");
        let text = "version: 5\ndefault_hierarchy:\n  - name: d\n    path: d.yaml\n";
        let source = Arc::new(SourceFile::from_bytes(path, text.as_bytes()));
        let doc = Arc::new(loader::yaml::load(&source));
        let module = SharedParse::new(source.clone(), doc.clone(), Layer::Module("m".into()));
        let env = Place::Environment;
        let fails = |c: &Created| {
            c.config
                .as_ref()
                .err()
                .is_some_and(|e| e.message.contains("only allowed in the module layer"))
        };
        assert!(fails(&create(path, &env, Some(source.clone()), None)));
        assert!(fails(&create(
            path,
            &env,
            Some(source.clone()),
            Some(&module)
        )));
        // Made for the module, it is the module's configuration, with its default hierarchy.
        let m = create(
            path,
            &Place::Module("m".into()),
            Some(source.clone()),
            Some(&module),
        );
        assert!(m.config.is_ok_and(|c| c.default_entries.is_some()));
        // Made for the environment, it gives what parsing here gives.
        let shared_env = SharedParse::new(source.clone(), doc, Layer::Environment);
        assert!(fails(&create(path, &env, Some(source), Some(&shared_env))));
    }
}

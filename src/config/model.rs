//! The hiera.yaml model types: versions 5, 4 and 3, every field with its key and value spans.
//!
//! The model keeps what the file says (with spans) *and* what Puppet fills in (defaults, the
//! implicit hierarchy), so the engine reads one structure whatever the version. Fields Puppet
//! fills in have `synthetic: true` spans (empty, at the start of the file or of the mapping that
//! lacks them) so rules never point at text that is not there.

use std::sync::Arc;

use crate::project::Layer;
use crate::span::{SourceFile, Span};
use crate::value::{Node, Value};

/// A value and the span of the text it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Spanned<T> {
        Spanned { value, span }
    }
}

/// The spans of one `key: value` entry of a mapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldSpan {
    /// The key text.
    pub key: Span,
    /// The whole value node (for a mapping or sequence, its first to last item).
    pub value: Span,
    /// True when Puppet filled the field in (not written in the file): both spans are empty.
    pub synthetic: bool,
}

impl FieldSpan {
    pub fn new(key: Span, value: Span) -> FieldSpan {
        FieldSpan {
            key,
            value,
            synthetic: false,
        }
    }

    /// A field Puppet supplies, anchored (empty) at `at`.
    pub fn synthetic(at: Span) -> FieldSpan {
        let s = Span::empty(at.start as usize);
        FieldSpan {
            key: s,
            value: s,
            synthetic: true,
        }
    }

    /// Key through value.
    pub fn whole(&self) -> Span {
        self.key.cover(self.value)
    }
}

/// A written (or filled-in) field: its value and its spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<T> {
    pub value: T,
    pub span: FieldSpan,
}

/// hiera.yaml versions Puppet 7/8 runs (reference §1.1 item 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConfigVersion {
    V3,
    V4,
    V5,
}

impl ConfigVersion {
    pub fn number(self) -> u32 {
        match self {
            ConfigVersion::V3 => 3,
            ConfigVersion::V4 => 4,
            ConfigVersion::V5 => 5,
        }
    }
}

/// Where the configuration came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigOrigin {
    /// Read from the file.
    File,
    /// The file exists but does not hold a hash: Puppet warns and uses the v3 default
    /// (reference §1.1 item 3).
    V3FallbackNotAHash,
    /// No hiera.yaml: Puppet's built-in v5 default (§1.1 item 4). Paths that do not exist are
    /// dropped instead of being reported as `Path not found`.
    DefaultV5,
    /// Puppet's built-in v3 default, constructed without a file.
    DefaultV3,
}

/// The data provider function kinds of a hierarchy entry (`hiera_config.rb` FUNCTION_KEYS +
/// `v4_data_hash`), in the order Puppet searches for them (§1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    DataHash,
    LookupKey,
    DataDig,
    Hiera3Backend,
    V4DataHash,
}

impl FunctionKind {
    /// All kinds an entry may name, in Puppet's search order (ALL_FUNCTION_KEYS).
    pub const ENTRY_ORDER: [FunctionKind; 5] = [
        FunctionKind::DataHash,
        FunctionKind::LookupKey,
        FunctionKind::DataDig,
        FunctionKind::Hiera3Backend,
        FunctionKind::V4DataHash,
    ];
    /// The kinds `defaults` may name, in Puppet's search order (FUNCTION_KEYS).
    pub const DEFAULTS_ORDER: [FunctionKind; 4] = [
        FunctionKind::DataHash,
        FunctionKind::LookupKey,
        FunctionKind::DataDig,
        FunctionKind::Hiera3Backend,
    ];

    /// The hiera.yaml key.
    pub fn key(self) -> &'static str {
        match self {
            FunctionKind::DataHash => "data_hash",
            FunctionKind::LookupKey => "lookup_key",
            FunctionKind::DataDig => "data_dig",
            FunctionKind::Hiera3Backend => "hiera3_backend",
            FunctionKind::V4DataHash => "v4_data_hash",
        }
    }

    pub fn from_key(k: &str) -> Option<FunctionKind> {
        FunctionKind::ENTRY_ORDER.into_iter().find(|f| f.key() == k)
    }
}

/// A function of an entry: its kind and the function name (`yaml_data`, `eyaml_lookup_key`,
/// `hiera_vault`, a hiera3 backend name...).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub kind: FunctionKind,
    pub name: Spanned<String>,
    pub span: FieldSpan,
}

/// The location keys of an entry, in Puppet's search order (LOCATION_KEYS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocationKey {
    Path,
    Paths,
    Glob,
    Globs,
    Uri,
    Uris,
    MappedPaths,
}

impl LocationKey {
    pub const ORDER: [LocationKey; 7] = [
        LocationKey::Path,
        LocationKey::Paths,
        LocationKey::Glob,
        LocationKey::Globs,
        LocationKey::Uri,
        LocationKey::Uris,
        LocationKey::MappedPaths,
    ];

    pub fn key(self) -> &'static str {
        match self {
            LocationKey::Path => "path",
            LocationKey::Paths => "paths",
            LocationKey::Glob => "glob",
            LocationKey::Globs => "globs",
            LocationKey::Uri => "uri",
            LocationKey::Uris => "uris",
            LocationKey::MappedPaths => "mapped_paths",
        }
    }

    pub fn from_key(k: &str) -> Option<LocationKey> {
        LocationKey::ORDER.into_iter().find(|l| l.key() == k)
    }
}

/// The strings of one location field (`path`/`paths`, `glob`/`globs`, `uri`/`uris`), raw and
/// uninterpolated, each with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct LocationField {
    pub key: LocationKey,
    pub span: FieldSpan,
    pub items: Vec<Spanned<String>>,
}

/// Where an entry's data lives (§1.5). Interpolation is the engine's job.
#[derive(Clone, Debug, PartialEq)]
pub enum Locations {
    /// No location key: the function is called once with no location (legal for custom
    /// functions; yaml/json/hocon/eyaml reject it at lookup time, §1.4).
    None,
    /// `path` or `paths`: relative to the datadir, no extension added in v5. For v4 entries
    /// [`HierarchyEntry::extension`] says what is appended.
    Paths(LocationField),
    /// `glob` or `globs`.
    Globs(LocationField),
    /// `uri` or `uris`.
    Uris(LocationField),
    /// `mapped_paths: [SCOPE_EXPR, VAR, TEMPLATE]`.
    MappedPaths {
        span: FieldSpan,
        scope_expr: Spanned<String>,
        var: Spanned<String>,
        template: Spanned<String>,
    },
}

impl Locations {
    pub fn key(&self) -> Option<LocationKey> {
        match self {
            Locations::None => None,
            Locations::Paths(f) | Locations::Globs(f) | Locations::Uris(f) => Some(f.key),
            Locations::MappedPaths { .. } => Some(LocationKey::MappedPaths),
        }
    }

    pub fn field_span(&self) -> Option<FieldSpan> {
        match self {
            Locations::None => None,
            Locations::Paths(f) | Locations::Globs(f) | Locations::Uris(f) => Some(f.span),
            Locations::MappedPaths { span, .. } => Some(*span),
        }
    }

    /// Every raw string of the location, in file order (for mapped_paths: the three parts).
    pub fn strings(&self) -> Vec<&Spanned<String>> {
        match self {
            Locations::None => Vec::new(),
            Locations::Paths(f) | Locations::Globs(f) | Locations::Uris(f) => {
                f.items.iter().collect()
            }
            Locations::MappedPaths {
                scope_expr,
                var,
                template,
                ..
            } => vec![scope_expr, var, template],
        }
    }
}

/// An `options` hash (entry or defaults): the spanned node and Puppet's plain value.
#[derive(Clone, Debug)]
pub struct Options {
    pub node: Node,
    pub value: Value,
    pub span: FieldSpan,
}

/// One level of a hierarchy (`hierarchy`, `plan_hierarchy` or `default_hierarchy`).
#[derive(Clone, Debug)]
pub struct HierarchyEntry {
    /// The `name` (never interpolated in v5; in v4 it doubles as the default path).
    pub name: Field<String>,
    /// The entry's own `datadir`, raw.
    pub datadir: Option<Field<String>>,
    /// The entry's own function, if it names exactly one (the first in Puppet's order if it
    /// names several, which is an error).
    pub function: Option<Function>,
    /// Every function key the entry names, in file order (more than one is an error).
    pub functions: Vec<Function>,
    pub locations: Locations,
    /// Every location key the entry names, in file order (more than one is an error); the
    /// first in Puppet's LOCATION_KEYS order is `locations`.
    pub location_keys: Vec<(LocationKey, FieldSpan)>,
    pub options: Option<Options>,
    /// v4 only: the extension appended to paths that lack it (`.yaml`, `.json`, `.conf`).
    pub extension: Option<&'static str>,
    /// v4 only: the `backend` as written.
    pub backend: Option<Field<String>>,
    /// The whole entry mapping.
    pub span: Span,
    /// Index of the entry in its list.
    pub index: usize,
}

/// The v5 `defaults` hash.
#[derive(Clone, Debug, Default)]
pub struct Defaults {
    pub datadir: Option<Field<String>>,
    /// Every function key, in file order (more than one is an error).
    pub functions: Vec<Function>,
    pub options: Option<Options>,
    /// The `defaults` entry; synthetic when Puppet filled it in (§1.3).
    pub span: FieldSpan,
}

impl Defaults {
    /// Puppet's filled-in defaults `{datadir: data, data_hash: yaml_data}` (§1.3).
    pub fn puppet_default(at: Span) -> Defaults {
        let fs = FieldSpan::synthetic(at);
        Defaults {
            datadir: Some(Field {
                value: "data".into(),
                span: fs,
            }),
            functions: vec![Function {
                kind: FunctionKind::DataHash,
                name: Spanned::new("yaml_data".into(), fs.value),
                span: fs,
            }],
            options: None,
            span: fs,
        }
    }

    /// The function entries inherit: the first of data_hash, lookup_key, data_dig,
    /// hiera3_backend present (§1.3, `hiera_config.rb` FUNCTION_KEYS.find).
    pub fn function(&self) -> Option<&Function> {
        FunctionKind::DEFAULTS_ORDER
            .iter()
            .find_map(|k| self.functions.iter().find(|f| f.kind == *k))
    }
}

/// A v3 backend's own hash (`:yaml: {datadir: ...}`).
#[derive(Clone, Debug)]
pub struct V3Backend {
    pub name: Spanned<String>,
    /// The backend's config hash, if written.
    pub config: Option<Field<Node>>,
    pub datadir: Option<Field<String>>,
    /// `extension` (without the dot) if written.
    pub extension: Option<Field<String>>,
}

impl V3Backend {
    /// The extension Puppet appends: `.<extension>` if configured, `.conf` for hocon, else
    /// `.<backend>` (`HieraConfigV3#create_configured_data_providers`).
    pub fn effective_extension(&self) -> String {
        match &self.extension {
            Some(e) => format!(".{}", e.value),
            None if self.name.value == "hocon" => ".conf".into(),
            None => format!(".{}", self.name.value),
        }
    }
}

/// The v3 part of a configuration (global layer only; §1.6).
#[derive(Clone, Debug)]
pub struct V3Config {
    /// `backends`, a String or an Array (default `[yaml]`), in order, duplicates kept.
    pub backends: Vec<Spanned<String>>,
    pub backends_span: FieldSpan,
    /// `hierarchy` strings (default `['nodes/%{::trusted.certname}', 'common']`).
    pub hierarchy: Vec<Spanned<String>>,
    pub hierarchy_span: FieldSpan,
    /// `merge_behavior`: `native` (default), `deep` or `deeper`.
    pub merge_behavior: Field<String>,
    pub deep_merge_options: Option<Field<Node>>,
    pub logger: Option<Field<String>>,
    /// One per distinct backend name, in `backends` order, with its config hash if any.
    pub backend_configs: Vec<V3Backend>,
}

impl V3Config {
    /// Default v3 datadir (relative to nothing: Puppet joins it with `$codedir`):
    /// `$codedir/environments/%{::environment}/hieradata` (§1.6).
    pub const DEFAULT_DATADIR_UNDER_CODEDIR: &'static str =
        "environments/%{::environment}/hieradata";
}

/// The v4 top level (environment and module layers; §1.6). Its entries are also converted into
/// [`HieraConfig::hierarchy`] so the engine can walk them like v5 entries.
#[derive(Clone, Debug)]
pub struct V4Config {
    /// Top-level `datadir` (default `data`).
    pub datadir: Field<String>,
}

/// A hiera.yaml, any version, as Puppet reads it.
#[derive(Clone, Debug)]
pub struct HieraConfig {
    /// The file; `None` for Puppet's built-in defaults.
    pub file: Option<Arc<SourceFile>>,
    pub origin: ConfigOrigin,
    pub layer: Layer,
    /// The version Puppet dispatched on; the span is the `version` value, or synthetic.
    pub version: Field<ConfigVersion>,
    /// v5: `defaults` as filled by Puppet (§1.3): `{datadir: data, data_hash: yaml_data}` when
    /// absent or null; as written otherwise (even `{}`, which has no function).
    pub defaults: Defaults,
    /// v5 `hierarchy` (filled with `[{name: Common, path: common.yaml}]` when absent or null);
    /// v4 entries converted (see [`HierarchyEntry::extension`]); empty for v3.
    pub hierarchy: Vec<HierarchyEntry>,
    pub hierarchy_span: FieldSpan,
    /// v5 `plan_hierarchy` (Bolt plans only).
    pub plan_hierarchy: Option<(FieldSpan, Vec<HierarchyEntry>)>,
    /// v5 `default_hierarchy` (module layer only).
    pub default_hierarchy: Option<(FieldSpan, Vec<HierarchyEntry>)>,
    pub v4: Option<V4Config>,
    pub v3: Option<V3Config>,
}

/// Which hiera.yaml field an interpolated string comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringRole {
    Datadir,
    /// A `path`/`paths`/`glob`/`globs`/`uri`/`uris` string (v4: a path or the name).
    Location(LocationKey),
    /// `mapped_paths[0]`: a variable expression (dotted keys allowed), not a `%{}` string.
    MappedPathsScope,
    /// `mapped_paths[2]`: interpolated once per element with the variable bound.
    MappedPathsTemplate,
    /// A string key or value inside `options`.
    Option,
}

/// A raw hiera.yaml string the engine interpolates (methods forbidden), with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct RawString {
    pub role: StringRole,
    pub value: String,
    pub span: Span,
}

impl HierarchyEntry {
    /// The function Puppet calls for this level: the entry's own (the first of data_hash,
    /// lookup_key, data_dig, hiera3_backend, v4_data_hash), else the first of data_hash,
    /// lookup_key, data_dig, hiera3_backend in `defaults` (§1.3, `hiera_config.rb`).
    pub fn effective_function<'a>(&'a self, defaults: &'a Defaults) -> Option<&'a Function> {
        self.function.as_ref().or_else(|| defaults.function())
    }

    /// The datadir before interpolation: the entry's, else `defaults`', else `data` (§1.3).
    /// Relative to the directory holding hiera.yaml; an absolute one replaces it.
    pub fn effective_datadir<'a>(&'a self, defaults: &'a Defaults) -> &'a str {
        self.datadir_field(defaults)
            .map(|f| f.value.as_str())
            .unwrap_or("data")
    }

    /// The written field the datadir comes from, if any.
    pub fn datadir_field<'a>(&'a self, defaults: &'a Defaults) -> Option<&'a Field<String>> {
        self.datadir.as_ref().or(defaults.datadir.as_ref())
    }

    /// The options Puppet passes: the entry's, else `defaults`' — a replacement, never a merge
    /// (spec `lookup_spec.rb` "default options are not merged with hierarchy options").
    pub fn effective_options<'a>(&'a self, defaults: &'a Defaults) -> Option<&'a Options> {
        self.options.as_ref().or(defaults.options.as_ref())
    }

    /// Every string Puppet interpolates for this level, raw, with its span: the datadir, the
    /// location strings, and the option keys and values (§1.5, §5.1). Token spans inside them
    /// are exact when the source at [`RawString::span`] reads back to the value (see
    /// [`token_spans`]).
    pub fn raw_strings(&self, defaults: &Defaults) -> Vec<RawString> {
        let mut out = Vec::new();
        if let Some(d) = self.datadir_field(defaults) {
            out.push(RawString {
                role: StringRole::Datadir,
                value: d.value.clone(),
                span: d.span.value,
            });
        }
        match &self.locations {
            Locations::None => {}
            Locations::Paths(f) | Locations::Globs(f) | Locations::Uris(f) => {
                for s in &f.items {
                    out.push(RawString {
                        role: StringRole::Location(f.key),
                        value: s.value.clone(),
                        span: s.span,
                    });
                }
            }
            Locations::MappedPaths {
                scope_expr,
                template,
                ..
            } => {
                out.push(RawString {
                    role: StringRole::MappedPathsScope,
                    value: scope_expr.value.clone(),
                    span: scope_expr.span,
                });
                out.push(RawString {
                    role: StringRole::MappedPathsTemplate,
                    value: template.value.clone(),
                    span: template.span,
                });
            }
        }
        if let Some(o) = self.effective_options(defaults) {
            let mut stack = vec![&o.node];
            while let Some(n) = stack.pop() {
                match &n.kind {
                    crate::value::NodeKind::Scalar(s) => {
                        if let Value::String(t) = &s.value {
                            out.push(RawString {
                                role: StringRole::Option,
                                value: t.to_string(),
                                span: n.span,
                            });
                        }
                    }
                    crate::value::NodeKind::Seq(items) => stack.extend(items.iter().rev()),
                    crate::value::NodeKind::Map(m) => {
                        for e in m.entries.iter().rev() {
                            stack.push(&e.value);
                            stack.push(&e.key);
                        }
                    }
                }
            }
        }
        out
    }
}

/// The spans of the `%{...}` tokens of a raw string in `file`: exact when the scalar's source
/// reads back to the value (see [`sub_span`]), else the whole span for each.
pub fn token_spans(file: &SourceFile, raw: &RawString) -> Vec<(String, Span)> {
    super::interp::tokens(&raw.value)
        .into_iter()
        .map(|t| (t.expr, sub_span(file, raw.span, &raw.value, t.range)))
        .collect()
}

/// The span of `range` of a string scalar's value: exact whenever the scalar's source reads
/// back to the value (quotes, escapes, folded lines and block scalars included; see
/// [`crate::value_span`]), the whole span otherwise.
pub fn sub_span(file: &SourceFile, span: Span, value: &str, range: std::ops::Range<usize>) -> Span {
    crate::value_span::map_range(file.text(), span, value, range).unwrap_or(span)
}

impl HieraConfig {
    /// Puppet's configuration when there is no hiera.yaml (§1.1 item 4):
    /// `{version: 5, defaults: {datadir: data, data_hash: yaml_data},
    ///   hierarchy: [{name: Common, path: common.yaml}]}`. Paths that do not exist are dropped.
    pub fn default_v5(layer: Layer) -> HieraConfig {
        let at = Span::default();
        HieraConfig {
            file: None,
            origin: ConfigOrigin::DefaultV5,
            layer,
            version: Field {
                value: ConfigVersion::V5,
                span: FieldSpan::synthetic(at),
            },
            defaults: Defaults::puppet_default(at),
            hierarchy: super::build::default_v5_hierarchy(at),
            hierarchy_span: FieldSpan::synthetic(at),
            plan_hierarchy: None,
            default_hierarchy: None,
            v4: None,
            v3: None,
        }
    }

    /// Puppet's v3 default (§1.1 item 3): `{backends: [yaml], hierarchy:
    /// ['nodes/%{::trusted.certname}', 'common'], merge_behavior: native}`.
    pub fn default_v3(layer: Layer) -> HieraConfig {
        let at = Span::default();
        let v3 = super::build::v3_config(None, at);
        HieraConfig {
            file: None,
            origin: ConfigOrigin::DefaultV3,
            layer,
            version: Field {
                value: ConfigVersion::V3,
                span: FieldSpan::synthetic(at),
            },
            defaults: Defaults::default(),
            hierarchy: Vec::new(),
            hierarchy_span: FieldSpan::synthetic(at),
            plan_hierarchy: None,
            default_hierarchy: None,
            v4: None,
            v3: Some(v3),
        }
    }

    /// The entry list Puppet builds providers from for a lookup (`hierarchy`; Bolt plans use
    /// `plan_hierarchy` when present).
    pub fn hierarchy_for(&self, plan: bool) -> &[HierarchyEntry] {
        match (&self.plan_hierarchy, plan) {
            (Some((_, entries)), true) => entries,
            _ => &self.hierarchy,
        }
    }

    /// The module's `default_hierarchy` entries (consulted only in the module layer, §2.6).
    pub fn default_hierarchy_entries(&self) -> &[HierarchyEntry] {
        match (&self.default_hierarchy, &self.layer) {
            (Some((_, entries)), Layer::Module(_)) => entries,
            _ => &[],
        }
    }

    /// Whether Puppet uses this configuration for lookups in its layer: v3 outside the global
    /// layer is ignored (§1.6; an error under strict=error, which [`super::ConfigError`] says).
    pub fn is_used(&self) -> bool {
        self.version.value != ConfigVersion::V3 || matches!(self.layer, Layer::Global)
    }
}

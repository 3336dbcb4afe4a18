//! Puppet's checks of a hiera.yaml, per version, in Puppet's order (reference §1.2–§1.7):
//! the struct assertion, `validate_defaults`/`validate_hierarchy`, the layer rules, then what
//! fails when the data providers are created and when the built-in functions are called.
//!
//! Every Puppet text here was recorded from Puppet 7.23 (fixtures/hiera-config/<case>/expected.json).

use crate::diag::Severity;
use crate::project::Layer;
use crate::span::Span;
use crate::value::{Node, NodeKind, Value};

use super::build::{self, field, is_falsy};
use super::interp::{self, TokenProblem};
use super::lines::{find_line_matching, first_and_second, location_suffix};
use super::model::{sub_span, *};
use super::schema::{self, effective_entries, Mismatch, MismatchKind, PathElem, Ty};
use super::{ConfigErrorKind as K, Cx, Report, When};

/// `combine_strings(FUNCTION_KEYS)`.
const FUNCTION_KEYS_TEXT: &str = "data_hash, lookup_key, data_dig, or hiera3_backend";
/// `combine_strings(LOCATION_KEYS)`.
const LOCATION_KEYS_TEXT: &str = "path, paths, glob, globs, uri, uris, or mapped_paths";

impl Cx<'_> {
    fn puppet_file(&self) -> String {
        location_suffix(Some(&self.path), None)
    }

    fn puppet_file_line(&self, line: Option<usize>) -> String {
        location_suffix(Some(&self.path), line)
    }

    /// Reports the struct assertion's mismatches (`TypeAsserter.assert_instance_of`).
    fn assert_struct(&mut self, ty: &Ty, node: &Node) {
        if schema::matches(ty, node) {
            return;
        }
        let all = schema::describe(ty, node, &[]);
        // A variant (`Data`, v3 `String or Array`) that fails in every alternative is listed
        // by Puppet once per alternative; when some alternatives fail deeper inside the value,
        // those name the real cause, so we keep only them (each is one of Puppet's lines).
        let variant_prefix = |m: &Mismatch| {
            m.path
                .iter()
                .position(|p| matches!(p, PathElem::Variant(_)))
                .map(|i| (m.path[..i].to_vec(), i))
        };
        let shallow = |m: &Mismatch| match variant_prefix(m) {
            Some((prefix, i)) if m.path.len() == i + 1 => all.iter().any(|o| {
                variant_prefix(o).is_some_and(|(p2, j)| p2 == prefix && o.path.len() > j + 1)
            }),
            _ => false,
        };
        // Puppet's message lists them all (`describe_mismatch`: one mismatch is stripped, several
        // are joined with "\n ", each starting with a space; recorded: conformance
        // config/module-hiera-yaml-errors `cnoversion`).
        let lines: Vec<String> = all
            .iter()
            .filter(|m| !m.silent)
            .map(|m| {
                format!(
                    " The Lookup Configuration at '{}' has wrong type,{}",
                    self.path,
                    m.describe()
                )
            })
            .collect();
        let assertion = match lines.len() {
            0 => String::new(),
            1 => lines[0].trim().to_string(),
            _ => lines.join("\n "),
        };
        let kept: Vec<&Mismatch> = all.iter().filter(|m| !shallow(m)).collect();
        for m in kept {
            let puppet = if m.silent {
                String::new()
            } else {
                format!(
                    "The Lookup Configuration at '{}' has wrong type,{}",
                    self.path,
                    m.describe()
                )
            };
            let kind = match &m.kind {
                MismatchKind::ExtraneousKey(_) => K::UnrecognizedKey,
                MismatchKind::MissingKey(_) => K::MissingKey,
                MismatchKind::Pattern {
                    expected: Ty::OptionName,
                    ..
                } if m.on_key => K::InvalidOptionName,
                _ => K::WrongType,
            };
            let (message, help) = human_mismatch(m, ty);
            let exact = m.exact();
            let e = self.report(Report {
                kind,
                span: m.span,
                puppet,
                message,
                severity: Severity::Error,
                when: When::AtValidation,
            });
            e.puppet_exact = exact;
            e.help = help;
            e.puppet_assertion = Some(assertion.clone());
        }
    }

    pub(super) fn deprecated(&mut self, version: u32, span: Span) {
        // `Puppet.warn_once(..., config_path.to_s)`: the file is appended on a new line.
        let puppet = format!(
            "{p}: Use of 'hiera.yaml' version {version} is deprecated. It should be converted to version 5\n   (file: {p})",
            p = self.path
        );
        self.report(Report {
            kind: K::Deprecated,
            span,
            puppet,
            message: format!("hiera.yaml version {version} is deprecated"),
            severity: Severity::Warning,
            when: When::Warning,
        })
        .help = Some("convert it to version 5".into());
    }
}

/// A field path for humans: `hierarchy[0].options`.
fn path_text(path: &[PathElem]) -> String {
    let mut s = String::new();
    for p in path {
        match p {
            PathElem::Entry(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            PathElem::Index(i) => s.push_str(&format!("[{i}]")),
            PathElem::EntryKey(_) | PathElem::Variant(_) => {}
        }
    }
    s
}

fn human_ty(t: &Ty) -> String {
    match t {
        Ty::IntExact(n) => format!("the integer {n}"),
        Ty::NeStr => "a non-empty string".into(),
        Ty::Str => "a string".into(),
        Ty::Bool => "a boolean".into(),
        Ty::Any => "anything".into(),
        Ty::OptionName => "an option name".into(),
        Ty::Enum(vals) => format!(
            "one of {}",
            vals.iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Array(e, ..) => match **e {
            Ty::NeStr => "a list of non-empty strings".into(),
            _ => "a list".into(),
        },
        Ty::Hash(..) | Ty::Struct(_) => "a hash".into(),
        Ty::Variant(ts) => ts.iter().map(human_ty).collect::<Vec<_>>().join(" or "),
        Ty::Data => "plain data".into(),
        Ty::ScalarData => "a scalar".into(),
    }
}

fn human_actual(a: &schema::Actual) -> &'static str {
    use schema::Actual as A;
    match a {
        A::Undef => "null",
        A::Bool => "a boolean",
        A::Int(_) => "an integer",
        A::Float => "a float",
        A::Str(s) if s.is_empty() => "an empty string",
        A::Str(_) => "a string",
        A::Runtime => "a Ruby symbol",
        A::Tuple => "a list",
        A::EmptyArray => "an empty list",
        A::Struct | A::Hash => "a hash",
    }
}

/// Keys the struct at `path` knows, for "did you mean" advice.
fn known_keys<'t>(root: &'t Ty, path: &[PathElem]) -> Vec<&'t str> {
    let mut t: &'t Ty = root;
    for p in path {
        t = match (p, t) {
            (PathElem::Entry(k), Ty::Struct(elems)) => match elems.iter().find(|e| e.name == *k) {
                Some(e) => &e.ty,
                None => return Vec::new(),
            },
            (PathElem::Index(_), Ty::Array(e, ..)) => e,
            _ => return Vec::new(),
        };
    }
    match t {
        Ty::Struct(elems) => elems.iter().map(|e| e.name.as_str()).collect(),
        _ => Vec::new(),
    }
}

/// Levenshtein distance, for suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggestion<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (distance(&key.to_lowercase(), k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4) && *d > 0)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Our wording for a struct mismatch.
fn human_mismatch(m: &Mismatch, root: &Ty) -> (String, Option<String>) {
    let at = path_text(&m.path);
    let in_ = if at.is_empty() {
        "hiera.yaml".to_string()
    } else {
        format!("`{at}`")
    };
    match &m.kind {
        MismatchKind::ExtraneousKey(k) => {
            let known = known_keys(root, &m.path);
            let help = suggestion(k, &known)
                .map(|s| format!("did you mean `{s}`?"))
                .or_else(|| {
                    (!known.is_empty()).then(|| {
                        format!(
                            "known keys are {}",
                            known
                                .iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                });
            (format!("unknown key `{k}` in {in_}"), help)
        }
        MismatchKind::MissingKey(k) => (format!("{in_} has no `{k}`"), None),
        MismatchKind::Size { min, max, actual } => {
            let want = match max {
                Some(x) if x == min => format!("exactly {min}"),
                None => format!("at least {min}"),
                Some(x) => format!("between {min} and {x}"),
            };
            let plural = !(*min == 1 && (max.is_none() || *max == Some(1)));
            let what = match (matches!(m.path.last(), Some(PathElem::Index(_))), plural) {
                (true, true) => "keys",
                (true, false) => "key",
                (false, true) => "elements",
                (false, false) => "element",
            };
            (format!("{in_} must have {want} {what}, not {actual}"), None)
        }
        MismatchKind::Pattern { expected, actual } => {
            if m.on_key {
                let name = match actual {
                    schema::Actual::Str(s) => s.clone(),
                    other => human_actual(other).to_string(),
                };
                (
                    format!("invalid option name `{name}` in {in_}"),
                    Some(
                        "option names start with a letter, end with a letter or digit, and \
                         contain only letters, digits, `_` and `-`"
                            .into(),
                    ),
                )
            } else {
                let got = match actual {
                    schema::Actual::Str(s) => format!("`{s}`"),
                    other => human_actual(other).to_string(),
                };
                (
                    format!("{in_} must be {}, not {got}", human_ty(expected)),
                    None,
                )
            }
        }
        MismatchKind::Type { expected, actual } => {
            let want = expected
                .iter()
                .map(human_ty)
                .collect::<Vec<_>>()
                .join(" or ");
            if m.on_key {
                return (format!("invalid key in {in_}: keys must be {want}"), None);
            }
            let help = matches!(actual, schema::Actual::Runtime)
                .then(|| "quote it: a plain `:name` is a Ruby symbol in YAML".to_string());
            (
                format!("{in_} must be {want}, not {}", human_actual(actual)),
                help,
            )
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Version 5
// ---------------------------------------------------------------------------------------------

/// Builds and checks a v5 config (`HieraConfigV5#validate_config` and
/// `#create_configured_data_providers`).
pub(super) fn v5(cx: &mut Cx, root: &Node) -> HieraConfig {
    // §1.3: `defaults ||= {...}` and `hierarchy ||= [...]` before the assertion.
    let asserted = build::without_filled(root, &["defaults", "hierarchy"]);
    cx.assert_struct(&schema::v5_config(), &asserted);

    let defaults = match field(root, "defaults").filter(|(_, v)| !is_falsy(v)) {
        Some((kn, vn)) => build::v5_defaults(kn, vn),
        None => Defaults::puppet_default(root.span),
    };
    let (hierarchy, hierarchy_span) = match field(root, "hierarchy").filter(|(_, v)| !is_falsy(v)) {
        Some((kn, vn)) => (build::v5_list(vn), FieldSpan::new(kn.span, vn.span)),
        None => (
            build::default_v5_hierarchy(root.span),
            FieldSpan::synthetic(root.span),
        ),
    };
    let list = |k: &str| {
        field(root, k).map(|(kn, vn)| (FieldSpan::new(kn.span, vn.span), build::v5_list(vn)))
    };
    let plan_hierarchy = list("plan_hierarchy");
    let default_hierarchy = list("default_hierarchy");
    let config = HieraConfig {
        file: Some(cx.file.clone()),
        origin: ConfigOrigin::File,
        layer: cx.layer.clone(),
        version: Field {
            value: ConfigVersion::V5,
            span: FieldSpan::default(),
        },
        defaults,
        hierarchy,
        hierarchy_span,
        plan_hierarchy,
        default_hierarchy,
        v4: None,
        v3: None,
    };

    // validate_defaults (only when written: the filled-in default is valid).
    // Puppet runs these only once the struct assertion passed; we run them on every part the
    // assertion did not reject (a rejected part would only give noise derived from its mistake).
    if !config.defaults.span.synthetic && !struct_broken(cx, config.defaults.span.value) {
        validate_defaults(cx, &config.defaults);
    }
    for e in &config.hierarchy {
        validate_entry(cx, e, &config.defaults);
    }
    if let Some((_, entries)) = &config.plan_hierarchy {
        for e in entries {
            validate_entry(cx, e, &config.defaults);
        }
    }
    if let Some((fs, entries)) = &config.default_hierarchy {
        if !matches!(cx.layer, Layer::Module(_)) {
            let line = find_line_matching(cx.text(), r"(?:^|\s+)default_hierarchy:", 1);
            let puppet = format!(
                "'default_hierarchy' is only allowed in the module layer{}",
                cx.puppet_file_line(line)
            );
            cx.report(Report {
                kind: K::DefaultHierarchyNotInModule,
                span: fs.key,
                puppet,
                message: "`default_hierarchy` is only allowed in a module's hiera.yaml".into(),
                severity: Severity::Error,
                when: When::AtValidation,
            });
        }
        for e in entries {
            validate_entry(cx, e, &config.defaults);
        }
    }

    // Provider creation: `hierarchy`, and `default_hierarchy` in a module.
    let mut seen_token_spans: Vec<Span> = Vec::new();
    providers_v5(
        cx,
        &config.hierarchy,
        &config.defaults,
        &mut seen_token_spans,
    );
    if let (Some((_, entries)), Layer::Module(_)) = (&config.default_hierarchy, cx.layer) {
        providers_v5(cx, entries, &config.defaults, &mut seen_token_spans);
    }
    config
}

fn validate_defaults(cx: &mut Cx, d: &Defaults) {
    let fks: Vec<&Function> = d
        .functions
        .iter()
        .filter(|f| FunctionKind::DEFAULTS_ORDER.contains(&f.kind))
        .collect();
    if fks.len() > 1 {
        let puppet = format!(
            "Only one of {FUNCTION_KEYS_TEXT} can be defined in defaults{}",
            cx.puppet_file()
        );
        let names: Vec<String> = fks.iter().map(|f| format!("`{}`", f.kind.key())).collect();
        let e = cx.report(Report {
            kind: K::MultipleFunctionsInDefaults,
            span: fks[1].span.key,
            puppet,
            message: format!(
                "`defaults` names {} functions: {}",
                fks.len(),
                names.join(", ")
            ),
            severity: Severity::Error,
            when: When::AtValidation,
        });
        e.related.push((fks[0].span.key, "first function".into()));
        e.help = Some("keep one of them".into());
    }
    if let Some(o) = &d.options {
        reserved_options(cx, o, None);
    }
}

/// `RESERVED_OPTION_KEYS = ['path', 'uri']` in `options` (§1.4).
fn reserved_options(cx: &mut Cx, o: &Options, level: Option<&str>) {
    for reserved in ["path", "uri"] {
        let Some((kn, _)) = field(&o.node, reserved) else {
            continue;
        };
        let (puppet, message) = match level {
            Some(name) => (
                format!(
                    "Option key '{reserved}' used in hierarchy '{name}' is reserved by Puppet{}",
                    cx.puppet_file()
                ),
                format!("option `{reserved}` of hierarchy level `{name}` is reserved by Puppet"),
            ),
            None => (
                format!(
                    "Option key '{reserved}' used in defaults is reserved by Puppet{}",
                    cx.puppet_file()
                ),
                format!("option `{reserved}` in `defaults` is reserved by Puppet"),
            ),
        };
        let kind = if level.is_some() {
            K::ReservedOption
        } else {
            K::ReservedDefaultOption
        };
        cx.report(Report {
            kind,
            span: kn.span,
            puppet,
            message,
            severity: Severity::Error,
            when: When::AtValidation,
        })
        .help = Some(format!(
            "Puppet passes the data file's location to the function as `{reserved}`; rename the option"
        ));
    }
}

/// How a level is named in our messages.
fn level_label(e: &HierarchyEntry) -> String {
    if e.name.span.synthetic && e.name.value.is_empty() {
        format!("hierarchy level {}", e.index)
    } else {
        format!("hierarchy level `{}`", e.name.value)
    }
}

/// The span that stands for a whole level in messages: its name, else the mapping.
fn level_span(e: &HierarchyEntry) -> Span {
    if e.name.span.synthetic {
        e.span
    } else {
        e.name.span.value
    }
}

/// `validate_hierarchy` (§1.4).
fn validate_entry(cx: &mut Cx, e: &HierarchyEntry, defaults: &Defaults) {
    if struct_broken(cx, e.span) {
        return;
    }
    let name = &e.name.value;
    match e.functions.len() {
        0 => {
            let defaults_has = defaults
                .functions
                .iter()
                .any(|f| FunctionKind::DEFAULTS_ORDER.contains(&f.kind));
            // A `defaults` the struct assertion rejected may well be where the function was
            // meant to come from: no derived complaint.
            let defaults_broken =
                !defaults.span.synthetic && struct_broken(cx, defaults.span.value);
            if !defaults_has && !defaults_broken {
                let puppet = format!(
                    "One of {FUNCTION_KEYS_TEXT} must be defined in hierarchy '{name}'{}",
                    cx.puppet_file()
                );
                let because = if defaults.span.synthetic {
                    String::new()
                } else {
                    " (`defaults` is written, so Puppet does not supply `data_hash: yaml_data`)"
                        .to_string()
                };
                let e2 = cx.report(Report {
                    kind: K::MissingFunction,
                    span: level_span(e),
                    puppet,
                    message: format!(
                        "{} names no data provider function and `defaults` names none{because}",
                        level_label(e)
                    ),
                    severity: Severity::Error,
                    when: When::AtValidation,
                });
                e2.help = Some("add `data_hash: yaml_data` to the level or to `defaults`".into());
            }
        }
        1 => {}
        n => {
            let puppet = format!(
                "Only one of {FUNCTION_KEYS_TEXT} can be defined in hierarchy '{name}'{}",
                cx.puppet_file()
            );
            let names: Vec<String> = e
                .functions
                .iter()
                .map(|f| format!("`{}`", f.kind.key()))
                .collect();
            let first = e.functions[0].span.key;
            let err = cx.report(Report {
                kind: K::MultipleFunctions,
                span: e.functions[1].span.key,
                puppet,
                message: format!(
                    "{} names {n} functions: {}",
                    level_label(e),
                    names.join(", ")
                ),
                severity: Severity::Error,
                when: When::AtValidation,
            });
            err.related.push((first, "first function".into()));
            err.help = Some("keep one of them".into());
        }
    }

    if let Some(f) = e
        .functions
        .iter()
        .find(|f| f.kind == FunctionKind::Hiera3Backend)
    {
        // `he[hiera3_backend]` non-nil (null values are not collected as functions).
        {
            if !matches!(cx.layer, Layer::Global) {
                let line = find_line_matching(cx.text(), r"\s+hiera3_backend:", 1);
                let puppet = format!(
                    "'hiera3_backend' is only allowed in the global layer{}",
                    cx.puppet_file_line(line)
                );
                cx.report(Report {
                    kind: K::Hiera3BackendNotGlobal,
                    span: f.span.key,
                    puppet,
                    message: format!(
                        "`hiera3_backend` in {} is only allowed in the global hiera.yaml",
                        level_label(e)
                    ),
                    severity: Severity::Error,
                    when: When::AtValidation,
                });
            } else if matches!(f.name.value.as_str(), "yaml" | "json" | "hocon") {
                let v = &f.name.value;
                let pattern = format!(r#"\s+hiera3_backend:\s*['"]?{v}(?:[^\w]|$)"#);
                let line = find_line_matching(cx.text(), &pattern, 1);
                let puppet = format!(
                    "Use \"data_hash: {v}_data\" instead of \"hiera3_backend: {v}\"{}",
                    cx.puppet_file_line(line)
                );
                cx.report(Report {
                    kind: K::Hiera3BackendReplaced,
                    span: f.name.span,
                    puppet,
                    message: format!(
                        "`hiera3_backend: {v}` is not allowed: hiera 5 reads {v} itself"
                    ),
                    severity: Severity::Error,
                    when: When::AtValidation,
                })
                .help = Some(format!("use `data_hash: {v}_data`"));
            }
        }
    }

    if e.location_keys.len() > 1 {
        let puppet = format!(
            "Only one of {LOCATION_KEYS_TEXT} can be defined in hierarchy '{name}'{}",
            cx.puppet_file()
        );
        let (k0, s0) = e.location_keys[0];
        let (k1, s1) = e.location_keys[1];
        let err = cx.report(Report {
            kind: K::MultipleLocations,
            span: s1.key,
            puppet,
            message: format!(
                "{} defines both `{}` and `{}`",
                level_label(e),
                k0.key(),
                k1.key()
            ),
            severity: Severity::Error,
            when: When::AtValidation,
        });
        err.related
            .push((s0.key, format!("`{}` defined here", k0.key())));
        err.help = Some("a level reads one kind of location; split it into two levels".into());
    }

    if let Some(o) = &e.options {
        reserved_options(cx, o, Some(name));
    }
}

/// Whether the struct assertion found a problem inside `span`.
fn struct_broken(cx: &Cx, span: Span) -> bool {
    cx.errors.iter().any(|e| {
        matches!(
            e.kind,
            K::WrongType | K::UnrecognizedKey | K::MissingKey | K::InvalidOptionName
        ) && e.span.start >= span.start
            && e.span.end <= span.end
    })
}

/// Checks made while creating the data providers of one hierarchy list (§1.4, second table):
/// duplicate names, method syntax and syntax errors in interpolated strings, and the argument
/// errors the built-in functions raise when called.
fn providers_v5(
    cx: &mut Cx,
    entries: &[HierarchyEntry],
    defaults: &Defaults,
    seen: &mut Vec<Span>,
) {
    let mut names: Vec<(&str, Span)> = Vec::new();
    for e in entries {
        if struct_broken(cx, e.span) {
            // Puppet never gets past the struct assertion; what follows would only be noise
            // derived from the same mistake (a `paht` is also a missing `path`).
            continue;
        }
        let name = e.name.value.as_str();
        if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
            duplicate_name(cx, e, *first);
        } else {
            names.push((name, level_span(e)));
        }
        // datadir: `interpolate((config_root + (he.datadir || defaults.datadir || 'data')).to_s)`.
        if let Some(d) = e.datadir.as_ref().or(defaults.datadir.as_ref()) {
            let subject = datadir_subject(cx, &d.value);
            check_string(cx, &d.value, d.span.value, &subject, seen);
        }
        match &e.locations {
            Locations::None => {}
            Locations::Paths(f) | Locations::Globs(f) | Locations::Uris(f) => {
                for s in &f.items {
                    check_string(cx, &s.value, s.span, &s.value, seen);
                }
            }
            Locations::MappedPaths {
                scope_expr,
                template,
                ..
            } => {
                // mapped_paths[0] is a variable expression resolved with the scope method
                // directly (subject `mapped_path[0]`), not interpolated.
                if !interp::split_key_ok(&scope_expr.value) && !seen.contains(&scope_expr.span) {
                    seen.push(scope_expr.span);
                    cx.report(Report {
                        kind: K::InterpolationSyntax,
                        span: scope_expr.span,
                        puppet: "Syntax error in string: mapped_path[0]".into(),
                        message: format!(
                            "`{}` is not a valid variable expression for `mapped_paths`",
                            scope_expr.value
                        ),
                        severity: Severity::Error,
                        when: When::AtProviderCreation,
                    });
                }
                check_string(cx, &template.value, template.span, &template.value, seen);
            }
        }
        if let Some(o) = e.options.as_ref().or(defaults.options.as_ref()) {
            check_option_strings(cx, &o.node, seen);
        }
        function_arguments(cx, e, defaults);
    }
}

fn duplicate_name(cx: &mut Cx, e: &HierarchyEntry, first: Span) {
    let name = &e.name.value;
    let pattern = format!(r#"\s+name:\s+['"]?{name}(?:[^\w]|$)"#);
    let (first_line, line) = first_and_second(cx.text(), &pattern);
    let mut puppet = format!("Hierarchy name '{name}' defined more than once.");
    if let Some(fl) = first_line {
        puppet.push_str(&format!(" First defined at (line: {fl})"));
    }
    puppet.push_str(&cx.puppet_file_line(line));
    let err = cx.report(Report {
        kind: K::DuplicateName,
        span: level_span(e),
        puppet,
        message: format!("hierarchy level name `{name}` is used twice"),
        severity: Severity::Error,
        when: When::AtProviderCreation,
    });
    err.related.push((first, "first used here".into()));
    err.help = Some("level names must be unique in a hierarchy; rename one".into());
}

/// The string Puppet interpolates for a datadir: the config root joined with it (`Pathname#+`:
/// an absolute datadir replaces the root).
fn datadir_subject(cx: &Cx, datadir: &str) -> String {
    if datadir.starts_with('/') {
        return datadir.to_string();
    }
    let root = cx
        .file
        .path
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    if root.is_empty() {
        datadir.to_string()
    } else {
        format!("{}/{datadir}", root.trim_end_matches('/'))
    }
}

/// Method syntax and split_key errors in one interpolated hiera.yaml string.
fn check_string(cx: &mut Cx, value: &str, span: Span, subject: &str, seen: &mut Vec<Span>) {
    for t in interp::tokens(value) {
        let Some(problem) = interp::problem(&t) else {
            continue;
        };
        let tspan = sub_span(cx.file, span, value, t.range.clone());
        if seen.contains(&tspan) {
            continue;
        }
        seen.push(tspan);
        let token = &value[t.range.clone()];
        match problem {
            TokenProblem::Method(m) => {
                let help = match m.as_str() {
                    "scope" => Some("write the variable directly: `%{var}`".to_string()),
                    "literal" => Some("write the text itself".to_string()),
                    _ => Some(
                        "hiera.yaml can only use variables (`%{facts.x}`, `%{trusted.x}`), not lookups"
                            .to_string(),
                    ),
                };
                cx.report(Report {
                    kind: K::MethodInterpolation,
                    span: tspan,
                    puppet: format!(
                        "Interpolation using method syntax is not allowed in this context{}",
                        cx.puppet_file()
                    ),
                    message: format!("`{token}` calls `{m}()`, which hiera.yaml does not allow"),
                    severity: Severity::Error,
                    when: When::AtProviderCreation,
                })
                .help = help;
            }
            TokenProblem::Syntax => {
                cx.report(Report {
                    kind: K::InterpolationSyntax,
                    span: tspan,
                    puppet: format!("Syntax error in string: {subject}"),
                    message: format!("`{token}` is not a valid interpolation expression"),
                    severity: Severity::Error,
                    when: When::AtProviderCreation,
                });
            }
        }
    }
}

/// `interpolate(options)`: keys and values, recursively (explicit stack: untrusted nesting).
fn check_option_strings(cx: &mut Cx, node: &Node, seen: &mut Vec<Span>) {
    let mut stack = vec![node];
    let mut visited = 0usize;
    while let Some(n) = stack.pop() {
        visited += 1;
        if visited > 100_000 {
            break;
        }
        match &n.kind {
            NodeKind::Scalar(s) => {
                if let Value::String(t) = &s.value {
                    let t = t.to_string();
                    check_string(cx, &t, n.span, &t, seen);
                }
            }
            NodeKind::Seq(items) => stack.extend(items.iter().rev()),
            NodeKind::Map(_) => {
                for (_, kn, vn) in effective_entries(n).into_iter().rev() {
                    stack.push(vn);
                    stack.push(kn);
                }
            }
        }
    }
}

/// The effective options of a level, when non-empty.
fn effective_options<'e>(e: &'e HierarchyEntry, d: &'e Defaults) -> Option<&'e Options> {
    e.options
        .as_ref()
        .or(d.options.as_ref())
        .filter(|o| o.node.as_map().is_some_and(|m| !m.entries.is_empty()))
}

/// What Puppet's built-in functions raise when a level gives them the wrong arguments
/// (`functions/yaml_data.rb` etc.; recorded in fixtures/hiera-config and
/// fixtures/conformance/config/env-options-defaults-not-merged).
fn function_arguments(cx: &mut Cx, e: &HierarchyEntry, d: &Defaults) {
    let Some(f) = e.function.as_ref().or_else(|| d.function()) else {
        return;
    };
    let fname = f.name.value.as_str();
    let no_location = matches!(e.locations, Locations::None | Locations::Uris(_));
    let locations_span = e
        .locations
        .field_span()
        .map(|s| s.key)
        .unwrap_or(level_span(e));
    match (f.kind, fname) {
        (FunctionKind::DataHash, "yaml_data" | "json_data" | "hocon_data") => {
            let puppet = format!(
                "'{fname}' one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this data_hash function"
            );
            if no_location {
                let (message, span) = match &e.locations {
                    Locations::Uris(_) => (
                        format!("{} gives `{fname}` a URI, but it reads files", level_label(e)),
                        locations_span,
                    ),
                    _ => (
                        format!("{} uses `{fname}` but has no `path`, `paths`, `glob`, `globs` or `mapped_paths`", level_label(e)),
                        level_span(e),
                    ),
                };
                cx.report(Report {
                    kind: K::MissingLocation,
                    span,
                    puppet,
                    message,
                    severity: Severity::Error,
                    when: When::AtLookup,
                });
            } else if let Some(o) = effective_options(e, d) {
                let inherited = e.options.is_none();
                let message = if inherited {
                    format!(
                        "{} uses `{fname}`, which accepts no options, and inherits `options` from `defaults`",
                        level_label(e)
                    )
                } else {
                    format!(
                        "`{fname}` accepts no options, but {} gives some",
                        level_label(e)
                    )
                };
                let span = if inherited { level_span(e) } else { o.span.key };
                let err = cx.report(Report {
                    kind: K::OptionsRejected,
                    span,
                    puppet,
                    message,
                    severity: Severity::Error,
                    when: When::AtLookup,
                });
                if inherited {
                    err.related
                        .push((o.span.key, "options defined here".into()));
                }
                err.help = Some(
                    "Puppet calls the function with the options and the path; any extra option makes every lookup through this level fail"
                        .into(),
                );
            }
        }
        (FunctionKind::LookupKey, "eyaml_lookup_key") if no_location => {
            let puppet = "'eyaml_lookup_key': one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this lookup_key function".to_string();
            let (message, span) = match &e.locations {
                Locations::Uris(_) => (
                    format!("{} gives `eyaml_lookup_key` a URI, but it reads files", level_label(e)),
                    locations_span,
                ),
                _ => (
                    format!("{} uses `eyaml_lookup_key` but has no `path`, `paths`, `glob`, `globs` or `mapped_paths`", level_label(e)),
                    level_span(e),
                ),
            };
            cx.report(Report {
                kind: K::MissingLocation,
                span,
                puppet,
                message,
                severity: Severity::Error,
                when: When::AtLookup,
            });
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Version 4
// ---------------------------------------------------------------------------------------------

/// Builds and checks a v4 config (`HieraConfigV4`; §1.6).
pub(super) fn v4(cx: &mut Cx, root: &Node) -> HieraConfig {
    let vspan = field(root, "version")
        .map(|(_, v)| v.span)
        .unwrap_or(root.span);
    cx.deprecated(4, vspan);
    let asserted = build::without_filled(root, &["datadir", "hierarchy"]);
    let before = cx.errors.len();
    cx.assert_struct(&schema::v4_config(), &asserted);
    let validated = cx.errors.len() == before;

    let datadir = match field(root, "datadir").filter(|(_, v)| !is_falsy(v)) {
        Some((kn, vn)) => Field {
            value: build::string_of(vn).unwrap_or_default(),
            span: FieldSpan::new(kn.span, vn.span),
        },
        None => Field {
            value: "data".into(),
            span: FieldSpan::synthetic(root.span),
        },
    };
    let (hierarchy, hierarchy_span) = match field(root, "hierarchy").filter(|(_, v)| !is_falsy(v)) {
        Some((kn, vn)) => {
            let entries = vn
                .as_seq()
                .map(|items| {
                    items
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| n.as_map().is_some())
                        .map(|(i, n)| build::v4_entry(n, i))
                        .collect()
                })
                .unwrap_or_default();
            (entries, FieldSpan::new(kn.span, vn.span))
        }
        None => (
            build::default_v4_hierarchy(root.span),
            FieldSpan::synthetic(root.span),
        ),
    };
    let defaults = Defaults {
        datadir: Some(datadir.clone()),
        functions: Vec::new(),
        options: None,
        span: FieldSpan::synthetic(root.span),
    };

    if matches!(cx.layer, Layer::Global) {
        if !validated {
            // Puppet raised the struct error before looking at the layer.
            return v4_model(cx, hierarchy, hierarchy_span, defaults, datadir);
        }
        // `GlobalDataProvider#assert_config_version`, after the config was validated.
        let puppet = format!(
            "hiera.yaml version 4 cannot be used in the global layer{}",
            cx.puppet_file()
        );
        cx.report(Report {
            kind: K::V4InGlobal,
            span: vspan,
            puppet,
            message: "hiera.yaml version 4 cannot be used in the global layer".into(),
            severity: Severity::Error,
            when: When::AtProviderCreation,
        })
        .help = Some("convert it to version 5".into());
    } else {
        // `create_configured_data_providers`: duplicate names, then the backend, per entry.
        let mut names: Vec<(&str, Span)> = Vec::new();
        let mut seen = Vec::new();
        for e in &hierarchy {
            if struct_broken(cx, e.span) {
                continue;
            }
            let name = e.name.value.as_str();
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
                duplicate_name(cx, e, *first);
            } else {
                names.push((name, level_span(e)));
            }
            if let Some(b) = &e.backend {
                if build::v4_backend(&b.value).is_none() {
                    let v = &b.value;
                    let pattern = format!(r"[^\w]{v}(?:[^\w]|$)");
                    let line = find_line_matching(cx.text(), &pattern, 1);
                    let puppet = format!(
                        "No data provider is registered for backend '{v}'{}",
                        cx.puppet_file_line(line)
                    );
                    cx.report(Report {
                        kind: K::UnknownV4Backend,
                        span: b.span.value,
                        puppet,
                        message: format!(
                            "unknown backend `{v}` in {}: version 4 knows `yaml`, `json` and `hocon`",
                            level_label(e)
                        ),
                        severity: Severity::Error,
                        when: When::AtProviderCreation,
                    });
                }
            }
            if let Locations::Paths(f) = &e.locations {
                for s in &f.items {
                    check_string(cx, &s.value, s.span, &s.value, &mut seen);
                }
            }
        }
    }

    v4_model(cx, hierarchy, hierarchy_span, defaults, datadir)
}

fn v4_model(
    cx: &Cx,
    hierarchy: Vec<HierarchyEntry>,
    hierarchy_span: FieldSpan,
    defaults: Defaults,
    datadir: Field<String>,
) -> HieraConfig {
    HieraConfig {
        file: Some(cx.file.clone()),
        origin: ConfigOrigin::File,
        layer: cx.layer.clone(),
        version: Field {
            value: ConfigVersion::V4,
            span: FieldSpan::default(),
        },
        defaults,
        hierarchy,
        hierarchy_span,
        plan_hierarchy: None,
        default_hierarchy: None,
        v4: Some(V4Config { datadir }),
        v3: None,
    }
}

// ---------------------------------------------------------------------------------------------
// Version 3
// ---------------------------------------------------------------------------------------------

/// Builds and checks a v3 config (`HieraConfigV3`; §1.6).
pub(super) fn v3(cx: &mut Cx, root: &Node) -> HieraConfig {
    let vspan = field(root, "version")
        .filter(|(_, v)| !is_falsy(v))
        .map(|(_, v)| v.span)
        .unwrap_or_else(|| {
            root.as_map()
                .and_then(|m| m.entries.first())
                .map(|e| e.key.span)
                .unwrap_or(root.span)
        });
    cx.deprecated(3, vspan);
    let v3 = build::v3_config(Some(root), root.span);

    // The struct has one optional `Hash[String[1], Any]` entry per backend name. A backend that
    // is not a string makes Puppet crash building that struct.
    let written_backends = field(root, "backends").filter(|(_, v)| !is_falsy(v));
    let mut crashed = false;
    if let Some((_, vn)) = written_backends {
        let mut bad: Vec<&Node> = Vec::new();
        let mut stack = vec![vn];
        while let Some(n) = stack.pop() {
            match &n.kind {
                NodeKind::Seq(items) => stack.extend(items.iter()),
                _ if build::string_of(n).is_some_and(|s| !s.is_empty()) => {}
                _ => bad.push(n),
            }
        }
        if let Some(b) = bad.first() {
            crashed = true;
            cx.report(Report {
                kind: K::WrongType,
                span: b.span,
                puppet: "undefined method `string' for #<Puppet::Pops::Types::TypeCalculator>"
                    .into(),
                message: format!(
                    "backend names must be non-empty strings, not {}",
                    super::describe_node(b)
                ),
                severity: Severity::Error,
                when: When::AtValidation,
            })
            .puppet_exact = false;
        }
    }
    if !crashed {
        let names: Vec<&str> = v3.backends.iter().map(|b| b.value.as_str()).collect();
        let asserted = build::without_filled(
            root,
            &[
                "version",
                "backends",
                "hierarchy",
                "merge_behavior",
                "deep_merge_options",
            ],
        );
        let before = cx.errors.len();
        cx.assert_struct(&schema::v3_config(&names), &asserted);
        let no_version = field(root, "version").is_none_or(|(_, v)| is_falsy(v));
        if no_version {
            // A version 5 file that forgot `version` (§1.1 item 6).
            for e in &mut cx.errors[before..] {
                e.help = Some(
                    "this file has no `version`, so Puppet reads it as hiera.yaml version 3; \
                     add `version: 5`"
                        .into(),
                );
            }
        }
    }

    if matches!(cx.layer, Layer::Global) {
        // Provider creation: each backend once.
        let mut seen: Vec<&str> = Vec::new();
        for b in &v3.backends {
            if seen.contains(&b.value.as_str()) {
                let v = &b.value;
                let pattern = format!(r"[^\w]{v}(?:[^\w]|$)");
                let (first_line, line) = first_and_second(cx.text(), &pattern);
                let mut puppet = format!("Backend '{v}' is defined more than once.");
                if let Some(fl) = first_line {
                    puppet.push_str(&format!(" First defined at (line: {fl})"));
                }
                puppet.push_str(&cx.puppet_file_line(line));
                let first = v3
                    .backends
                    .iter()
                    .find(|x| x.value == *v)
                    .map(|x| x.span)
                    .unwrap_or(b.span);
                let err = cx.report(Report {
                    kind: K::DuplicateV3Backend,
                    span: b.span,
                    puppet,
                    message: format!("backend `{v}` is listed twice in `backends`"),
                    severity: Severity::Error,
                    when: When::AtProviderCreation,
                });
                err.related.push((first, "first listed here".into()));
            } else {
                seen.push(&b.value);
            }
        }
        // Per backend: its config hash is interpolated, then the hierarchy paths (methods
        // forbidden in both; `HieraConfigV3#create_configured_data_providers`).
        let mut seen_spans = Vec::new();
        for b in &v3.backend_configs {
            if let Some(c) = &b.config {
                check_option_strings(cx, &c.value, &mut seen_spans);
            }
            for h in &v3.hierarchy {
                check_string(cx, &h.value, h.span, &h.value, &mut seen_spans);
            }
        }
    }

    HieraConfig {
        file: Some(cx.file.clone()),
        origin: ConfigOrigin::File,
        layer: cx.layer.clone(),
        version: Field {
            value: ConfigVersion::V3,
            span: FieldSpan::default(),
        },
        defaults: Defaults::default(),
        hierarchy: Vec::new(),
        hierarchy_span: v3.hierarchy_span,
        plan_hierarchy: None,
        default_hierarchy: None,
        v4: None,
        v3: Some(v3),
    }
}

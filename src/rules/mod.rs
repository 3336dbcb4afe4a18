//! The rule registry: every rule's metadata, its page, and the phases it checks in.
//!
//! A rule is one file in `src/rules/`, declared with [`declare_rule!`], with its page in
//! `rules/<name>.md` (compiled in: the page is the single source of truth for `hieralint rule`,
//! SARIF help and the docs). Codes are stable and never reused: H0xx syntax and files, H1xx
//! hiera.yaml, H2xx interpolation, H3xx facts and variables, H4xx lookup_options and merges,
//! H9xx hieralint itself (configuration, suppressions).

pub mod alias_not_entire_string;
pub mod duplicate_key;
pub mod empty_data_file;
pub mod forbidden_yaml_tag;
pub mod interp_sites;
pub mod interpolated_key_not_found;
pub mod interpolation_loop;
pub mod interpolation_method_in_hiera_config;
pub mod interpolation_syntax_error;
pub mod invalid_config;
pub mod invalid_fact_set;
pub mod invalid_hiera_config;
pub mod invalid_lookup_options_regex;
pub mod invalid_merge_behavior;
pub mod key_outside_module_namespace;
pub mod legacy_fact;
pub mod lookup_options_outside_namespace;
pub mod lopts;
pub mod malformed_eyaml;
pub mod merge_type_mismatch;
pub mod misplaced_suppression;
pub mod module_not_loaded;
pub mod multiple_yaml_documents;
pub mod non_hash_data_file;
pub mod reach;
pub mod ruby_symbol_value;
pub mod tree;
pub mod unanchored_lookup_options_pattern;
pub mod undefined_variable;
pub mod unknown_interpolation_method;
pub mod unknown_rule_in_suppression;
pub mod unquoted_date;
pub mod unquoted_interpolation;
pub mod unreachable_data_file;
pub mod unreadable_file;
pub mod unused_suppression;
pub mod yaml11_implicit_type;
pub mod yaml_limit_exceeded;
pub mod yaml_syntax_error;

use crate::diag::{Diagnostic, Severity};
use crate::project::{LoadedFile, Project};
use crate::value::Node;
use std::borrow::Cow;

/// What kind of problem a rule finds; sets the default severity (clippy's model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Puppet fails, or silently does something other than what the data says: error.
    Correctness,
    /// Probably a mistake, or breaks on some Puppet versions: warning.
    Suspicious,
    /// Works, but a reader is misled: warning.
    Style,
    /// Information (for example, data hieralint cannot read): info.
    Info,
}

impl Category {
    pub fn default_severity(self) -> Severity {
        match self {
            Category::Correctness => Severity::Error,
            Category::Suspicious | Category::Style => Severity::Warning,
            Category::Info => Severity::Info,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Correctness => "correctness",
            Category::Suspicious => "suspicious",
            Category::Style => "style",
            Category::Info => "info",
        }
    }
}

/// A rule's identity and documentation.
#[derive(Debug)]
pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub category: Category,
    /// One line: what the rule flags.
    pub summary: &'static str,
    /// The page `rules/<name>.md`.
    pub doc: &'static str,
    /// Whether inline suppressions may silence it (syntax errors may not).
    pub suppressible: bool,
}

impl RuleMeta {
    /// Where the rule's page is published.
    pub fn url(&self) -> String {
        format!(
            "https://github.com/hieralint/hieralint/blob/main/rules/{}.md",
            self.name
        )
    }
}

/// Declares a rule's metadata; the page is `rules/<name>.md`.
#[macro_export]
macro_rules! declare_rule {
    ($vis:vis static $id:ident = { code: $code:literal, name: $name:literal, category: $cat:ident, summary: $summary:literal $(, suppressible: $sup:literal)? $(,)? }) => {
        $vis static $id: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
            code: $code,
            name: $name,
            category: $crate::rules::Category::$cat,
            summary: $summary,
            doc: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/", $name, ".md")),
            suppressible: $crate::declare_rule!(@sup $($sup)?),
        };
    };
    (@sup) => { true };
    (@sup $sup:literal) => { $sup };
}

/// Where rules report; for the file rules, also what they share of the file being checked
/// ([`FileMemo`]).
#[derive(Default)]
pub struct Sink<'a> {
    pub diagnostics: Vec<Diagnostic>,
    memo: Option<&'a FileMemo<'a>>,
    /// For the project rules of a whole run: each project file's interpolated strings, as the
    /// file rules found them ([`SharedSites`]).
    sites: Option<&'a SharedSites<'a>>,
}

/// The interpolated strings of each of a project's files (by index in `Project::files`),
/// found once per run when an enabled rule reads them ([`Rule::reads_interpolations`]): four
/// file rules read them (through one walk per file, the memo's), and
/// interpolated-key-not-found and interpolation-loop each walked every data file again in the
/// project phase.
///
/// Each file's sites are made by the first that asks (the file rules' task for that file, in
/// practice) from the strings the scan found while parsing the file
/// (`Document::interp_sites`, since session 32): a walk of the tree after the whole project is
/// loaded finds it out of the cache at 15k files (about a million cache misses, and before
/// session 27 a second cold walk for the rules: docs/benchmarks.md "Session 27", "Session 32").
pub struct SharedSites<'a> {
    per_file: Vec<Vec<interp_sites::Site<'a>>>,
}

impl<'a> SharedSites<'a> {
    /// Every file's sites, found now, in parallel.
    pub fn new(project: &'a Project) -> SharedSites<'a> {
        SiteSlots::new(project).finish()
    }

    pub fn get(&self, i: usize) -> Option<&[interp_sites::Site<'a>]> {
        self.per_file.get(i).map(Vec::as_slice)
    }

    /// Frees the sites file by file in parallel: dropped at once, they held the end of a run
    /// (serial after the project rules) 1.7 ms at 15k files.
    pub fn free(self) {
        use rayon::prelude::*;
        self.per_file.into_par_iter().for_each(drop);
    }
}

/// [`SharedSites`] being found, a file's by the first that asks ([`SiteSlots::get`]).
pub struct SiteSlots<'a> {
    project: &'a Project,
    per_file: Vec<std::sync::OnceLock<Vec<interp_sites::Site<'a>>>>,
}

impl<'a> SiteSlots<'a> {
    pub fn new(project: &'a Project) -> SiteSlots<'a> {
        SiteSlots {
            project,
            per_file: project.files.iter().map(|_| Default::default()).collect(),
        }
    }

    /// The sites of `project.files[i]`, found now if nobody asked before.
    pub fn get(&self, i: usize) -> Option<&[interp_sites::Site<'a>]> {
        let file = self.project.files.get(i)?;
        Some(
            self.per_file[i]
                .get_or_init(|| interp_sites::data_sites(file))
                .as_slice(),
        )
    }

    /// Every file's sites, those nobody asked for found now (in parallel).
    pub fn finish(self) -> SharedSites<'a> {
        use rayon::prelude::*;
        let project = self.project;
        SharedSites {
            per_file: self
                .per_file
                .into_par_iter()
                .enumerate()
                .map(|(i, slot)| {
                    slot.into_inner()
                        .unwrap_or_else(|| interp_sites::data_sites(&project.files[i]))
                })
                .collect(),
        }
    }
}

/// Walks of one file that several file rules make (seven list its scalars, four its
/// interpolated strings), made once per file by the first rule that asks.
pub struct FileMemo<'a> {
    file: &'a LoadedFile,
    scalars: std::cell::OnceCell<Vec<tree::ScalarAt<'a>>>,
    sites: std::cell::OnceCell<Vec<interp_sites::Site<'a>>>,
    /// This file's sites, when the run found them for every file ([`SharedSites`]).
    shared_sites: Option<&'a [interp_sites::Site<'a>]>,
    reach: std::cell::OnceCell<reach::Reach>,
}

impl<'a> FileMemo<'a> {
    pub fn new(file: &'a LoadedFile) -> FileMemo<'a> {
        FileMemo::with_sites(file, None)
    }

    /// A memo whose interpolated strings are `shared_sites` when given.
    pub fn with_sites(
        file: &'a LoadedFile,
        shared_sites: Option<&'a [interp_sites::Site<'a>]>,
    ) -> FileMemo<'a> {
        FileMemo {
            file,
            scalars: Default::default(),
            sites: Default::default(),
            shared_sites,
            reach: Default::default(),
        }
    }
}

impl<'a> Sink<'a> {
    /// A sink for the file rules of `memo`'s file.
    pub fn for_file(memo: &'a FileMemo<'a>) -> Sink<'a> {
        Sink {
            diagnostics: Vec::new(),
            memo: Some(memo),
            sites: None,
        }
    }

    /// A sink for the project rules that reads the files' interpolated strings from `sites`.
    pub fn for_project(sites: Option<&'a SharedSites<'a>>) -> Sink<'a> {
        Sink {
            diagnostics: Vec::new(),
            memo: None,
            sites,
        }
    }

    /// [`interp_sites::data_sites`] of `project.files[i]` (`file`): from the run's shared
    /// sites when there are some.
    pub fn file_sites<'f>(
        &'f self,
        i: usize,
        file: &'f LoadedFile,
    ) -> Cow<'f, [interp_sites::Site<'f>]> {
        match self.sites.and_then(|s| s.get(i)) {
            Some(sites) => Cow::Borrowed(sites),
            None => Cow::Owned(interp_sites::data_sites(file)),
        }
    }

    pub fn report(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// [`tree::scalars`] of `root`: from the memo when `root` is the checked file's root.
    pub fn scalars(&self, root: &'a Node) -> Cow<'a, [tree::ScalarAt<'a>]> {
        match self.memo {
            Some(m)
                if m.file
                    .doc
                    .root
                    .as_ref()
                    .is_some_and(|r| std::ptr::eq(r, root)) =>
            {
                Cow::Borrowed(m.scalars.get_or_init(|| tree::scalars(root)))
            }
            _ => Cow::Owned(tree::scalars(root)),
        }
    }

    /// [`reach::reach`] of `file` (asked by unreachable-data-file, key-outside-module-namespace
    /// and forbidden-yaml-tag): from the memo when it is the checked
    /// file.
    pub fn reach(&self, project: &Project, file: &'a LoadedFile) -> Cow<'a, reach::Reach> {
        match self.memo {
            Some(m) if std::ptr::eq(m.file, file) => {
                Cow::Borrowed(m.reach.get_or_init(|| reach::reach(project, file)))
            }
            _ => Cow::Owned(reach::reach(project, file)),
        }
    }

    /// [`interp_sites::data_sites`] of `file`: from the memo when it is the checked file.
    pub fn data_sites(&self, file: &'a LoadedFile) -> Cow<'a, [interp_sites::Site<'a>]> {
        match self.memo {
            Some(m) if std::ptr::eq(m.file, file) => match m.shared_sites {
                Some(sites) => Cow::Borrowed(sites),
                None => Cow::Borrowed(m.sites.get_or_init(|| interp_sites::data_sites(file))),
            },
            _ => Cow::Owned(interp_sites::data_sites(file)),
        }
    }
}

/// A rule. Each phase has a no-op default; a rule implements the ones it needs.
pub trait Rule: Send + Sync {
    fn meta(&self) -> &'static RuleMeta;

    /// Once per loaded data file (YAML, JSON, HOCON), in parallel. The findings may depend on
    /// this file, on hiera.yaml files, on which files exist and on project-wide settings (fact
    /// sets, Puppet version, rule options), not on the content of other data files: the language
    /// server runs it again only for the files whose text changed (cross-file findings belong
    /// in `check_project`).
    fn check_data_file<'a>(&self, _project: &Project, _file: &'a LoadedFile, _sink: &mut Sink<'a>) {
    }

    /// Once per hiera.yaml, in parallel (the same dependencies as `check_data_file`).
    fn check_hiera_config<'a>(
        &self,
        _project: &Project,
        _file: &'a LoadedFile,
        _sink: &mut Sink<'a>,
    ) {
    }

    /// Once per run, after the engine is built: cross-file and fact-set rules.
    fn check_project(&self, _project: &Project, _sink: &mut Sink) {}

    /// Once per run, while the analysis is built and the file rules run: work `check_project`
    /// needs that does not stand on the analysis (what the project's files say), kept with
    /// [`Project::rule_memo`] for `check_project` to take. A run's cores are not all busy while
    /// the analysis is built (parts of it are serial), and the project phase ends when its
    /// longest rule does: work moved here leaves that phase sooner. Must not ask for the
    /// analysis, nor run parallel work (a rayon thread waiting on the memo could hold a job it
    /// needs).
    fn prepare(&self, _project: &Project) {}

    /// True for a rule whose `check_project` asks for [`Project::analysis`]: the analysis is
    /// then built before the rules run in parallel, not by the first rule that asks, whose
    /// thread would wait for the analysis' own parallel work inside a `OnceLock` and could
    /// pick up another rule's job that waits for the same `OnceLock` (a deadlock).
    fn needs_analysis(&self) -> bool {
        false
    }

    /// True for a rule that calls [`crate::analysis::EnvAnalysis::lookup_shared`]: the shared
    /// lookups' bookkeeping (which groups differ from the reference where) is then built before
    /// the rules run, for the reason `needs_analysis` gives (it runs parallel work inside a
    /// `OnceLock` too), and so that a thread does not sit idle waiting for the one building it.
    fn needs_shared_lookups(&self) -> bool {
        false
    }

    /// True for a rule that passes files over by their [`tree::flags`]: the scan then finds
    /// them as it parses each file (`ScanOptions::scalar_flags`).
    fn reads_scalar_flags(&self) -> bool {
        false
    }

    /// True for a rule that reads data files' `lookup_options` entries ([`lopts::top_entry`]):
    /// the scan then finds each file's entry as it parses the file
    /// (`ScanOptions::lookup_options`).
    fn reads_lookup_options(&self) -> bool {
        false
    }

    /// True for a rule that reads data files' interpolated strings ([`Sink::data_sites`],
    /// [`Sink::file_sites`]): the run then finds them once for every file ([`SharedSites`]).
    fn reads_interpolations(&self) -> bool {
        false
    }

    /// How long this rule's `check_project` runs, roughly, relative to the others' (0: next to
    /// nothing). The project phase starts the longest first, so that one thread does not take
    /// the longest rule after the others are done (`check::run_project_rules`). A schedule
    /// hint only: it changes no result.
    fn project_cost(&self) -> u8 {
        0
    }
}

/// Every rule, in code order.
pub fn registry() -> &'static [&'static dyn Rule] {
    REGISTRY
}

static REGISTRY: &[&dyn Rule] = &[
    &yaml_syntax_error::YamlSyntaxError,
    &duplicate_key::DuplicateKey,
    &non_hash_data_file::NonHashDataFile,
    &unquoted_date::UnquotedDate,
    &yaml11_implicit_type::Yaml11ImplicitType,
    &unquoted_interpolation::UnquotedInterpolation,
    &malformed_eyaml::MalformedEyaml,
    &forbidden_yaml_tag::ForbiddenYamlTag,
    &multiple_yaml_documents::MultipleYamlDocuments,
    &yaml_limit_exceeded::YamlLimitExceeded,
    &ruby_symbol_value::RubySymbolValue,
    &empty_data_file::EmptyDataFile,
    &invalid_hiera_config::InvalidHieraConfig,
    &interpolation_method_in_hiera_config::InterpolationMethodInHieraConfig,
    &unreachable_data_file::UnreachableDataFile,
    &interpolation_syntax_error::InterpolationSyntaxError,
    &unknown_interpolation_method::UnknownInterpolationMethod,
    &alias_not_entire_string::AliasNotEntireString,
    &interpolated_key_not_found::InterpolatedKeyNotFound,
    &interpolation_loop::InterpolationLoop,
    &legacy_fact::LegacyFact,
    &undefined_variable::UndefinedVariable,
    &lookup_options_outside_namespace::LookupOptionsOutsideNamespace,
    &key_outside_module_namespace::KeyOutsideModuleNamespace,
    &invalid_lookup_options_regex::InvalidLookupOptionsRegex,
    &unanchored_lookup_options_pattern::UnanchoredLookupOptionsPattern,
    &invalid_merge_behavior::InvalidMergeBehavior,
    &merge_type_mismatch::MergeTypeMismatch,
    &module_not_loaded::ModuleNotLoaded,
];

/// Diagnostics hieralint raises itself, outside any [`Rule`] phase (scanner, configuration,
/// suppressions).
static INTERNAL: &[&RuleMeta] = &[
    &unreadable_file::META,
    &unused_suppression::META,
    &unknown_rule_in_suppression::META,
    &invalid_config::META,
    &misplaced_suppression::META,
    &invalid_fact_set::META,
];

/// Metadata of every rule, including diagnostics that hieralint raises itself (not via a
/// [`Rule`]), in code order.
pub fn all_meta() -> Vec<&'static RuleMeta> {
    let mut v: Vec<&'static RuleMeta> = registry().iter().map(|r| r.meta()).collect();
    v.extend(INTERNAL.iter().copied());
    v.sort_by_key(|m| m.code);
    v
}

/// Finds a rule by kebab-case name or code (case-insensitive code).
pub fn find(name_or_code: &str) -> Option<&'static RuleMeta> {
    all_meta()
        .into_iter()
        .find(|m| m.name == name_or_code || m.code.eq_ignore_ascii_case(name_or_code))
}

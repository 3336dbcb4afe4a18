//! H103 `unreachable-data-file`: a data file that no hierarchy level can read, whatever the
//! facts.

use crate::diag::Diagnostic;
use crate::project::{LoadedFile, Project};
use crate::rules::reach::{self, NearKind, Reach, Unreachable, Why};
use crate::rules::{tree, Rule, RuleMeta, Sink};
use crate::span::Span;

crate::declare_rule!(pub static META = {
    code: "H103",
    name: "unreachable-data-file",
    category: Suspicious,
    summary: "a data file that no hierarchy level reads, for any facts (`.yml` beside `.yaml` paths, misspelt directories)",
});

pub struct UnreachableDataFile;

/// How many of the layer's locations a note lists.
const LISTED: usize = 8;

impl Rule for UnreachableDataFile {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file<'a>(&self, project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        if let Reach::Unreachable(u) = &*sink.reach(project, file) {
            let d = diagnostic(file, u);
            sink.report(d);
        }
    }
}

/// `path` relative to `root`, for messages.
fn rel_display(file: &LoadedFile) -> String {
    let root = reach::layer_root(file);
    let p = &file.source.path;
    root.as_deref()
        .and_then(|r| p.strip_prefix(r).ok())
        .unwrap_or(p)
        .display()
        .to_string()
}

fn diagnostic(file: &LoadedFile, u: &Unreachable) -> Diagnostic {
    let src = &file.source;
    // Line 1, first character (an empty span for an empty file).
    let span = tree::at_char(src, Span::empty(0));
    let rel = rel_display(file);
    let module = file.module_name();
    match &u.why {
        Why::NoEnvironmentHieraYaml => Diagnostic::new(
            &META,
            src,
            span,
            format!("no hierarchy level reads `{rel}`: the environment has no hiera.yaml"),
        )
        .primary_message("never read")
        .note(
            "without hiera.yaml (and without `environment_data_provider = hiera` in \
             environment.conf) Puppet builds no environment data layer, so nothing in the \
             environment reads this file (reference §2.2; recorded: \
             fixtures/conformance/config/env-no-hiera-yaml)",
        )
        .note(
            "help: add a hiera.yaml to the environment (`version: 5` with a hierarchy that \
             names this file); only a global hiera.yaml pointing here could read it otherwise",
        ),
        Why::NoModuleHieraYaml { provider } => {
            let m = module.unwrap_or("?");
            let mut d = Diagnostic::new(
                &META,
                src,
                span,
                format!("no hierarchy level reads `{rel}`: module `{m}` has no hiera.yaml"),
            )
            .primary_message("never read");
            d = match provider {
                Some(p) => d.note(format!(
                    "metadata.json sets `\"data_provider\": \"{p}\"`, so Puppet does not read \
                     the module's data directory"
                )),
                None => d.note(
                    "without hiera.yaml (or the deprecated `\"data_provider\": \"hiera\"` in \
                     metadata.json) Puppet builds no data layer for the module (reference \
                     §2.2; recorded: fixtures/conformance/module/providers-without-hiera-yaml)",
                ),
            };
            d.note("help: add a hiera.yaml (`version: 5`) to the module")
        }
        Why::NoLevel { default_config } => {
            let whose = match (module, *default_config) {
                (Some(m), false) => format!("module `{m}`'s hiera.yaml"),
                (None, false) => "the environment's hiera.yaml".to_string(),
                (Some(m), true) => format!("module `{m}`'s default hierarchy"),
                (None, true) => "the environment's default hierarchy".to_string(),
            };
            let mut d = Diagnostic::new(
                &META,
                src,
                span,
                format!("no hierarchy level reads `{rel}`"),
            )
            .primary_message("never read, whatever the facts");
            if *default_config {
                d = d.note(
                    "without hiera.yaml Puppet's default hierarchy reads only \
                     `data/common.yaml` (reference §1.1)",
                );
            } else if u.levels.is_empty() {
                d = d.note(format!("{whose} has no level that reads files"));
            } else {
                let shown: Vec<String> = u
                    .levels
                    .iter()
                    .take(LISTED)
                    .map(|l| format!("`{}/{}`", l.datadir, l.location))
                    .collect();
                let more = u.levels.len().saturating_sub(LISTED);
                let tail = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                let holes = if u
                    .levels
                    .iter()
                    .any(|l| l.location.contains("%{") || l.datadir.contains("%{"))
                {
                    ", where each `%{...}` stands for one or more characters other than `/`"
                } else {
                    ""
                };
                d = d.note(format!("{whose} reads {}{tail}{holes}", shown.join(", ")));
            }
            if let Some(n) = &u.near {
                let level = &u.levels[n.level];
                let why = match &n.kind {
                    NearKind::Extension => {
                        "Hiera opens exactly the file name the level gives, extension included"
                            .to_string()
                    }
                    NearKind::Name { written, wanted } => {
                        format!("`{written}` is not `{wanted}`")
                    }
                };
                d = d.note(format!(
                    "help: did you mean `{}`? the level \"{}\" reads `{}`: {why}",
                    n.path, level.name, level.location
                ));
                if let (Some(cfg), Some(s)) = (&u.config, level.span) {
                    d = d.label(cfg, s, format!("\"{}\" reads this", level.name));
                }
            }
            d
        }
    }
}

//! H011 `yaml-limit-exceeded`: a file hieralint stopped reading at one of its loader limits
//! (recursive aliases, nesting depth, alias expansion).

use crate::diag::Diagnostic;
use crate::loader::{yaml, LoadIssueKind};
use crate::project::{LoadedFile, Project};
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H011",
    name: "yaml-limit-exceeded",
    category: Correctness,
    summary: "a recursive alias, nesting deeper than 1,000 levels or an alias bomb: hieralint stops reading the file",
    suppressible: false,
});

pub struct YamlLimitExceeded;

impl Rule for YamlLimitExceeded {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_data_file(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        check(file, sink);
    }

    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        check(file, sink);
    }
}

/// How the loader's message for an alias inside its own anchor starts.
const RECURSIVE_ALIAS: &str = "this alias refers to a node that contains it";

fn check(file: &LoadedFile, sink: &mut Sink) {
    let src = &file.source;
    for issue in &file.doc.issues {
        if issue.kind != LoadIssueKind::Limit {
            continue;
        }
        let mut d = Diagnostic::new(&META, src, issue.span, issue.message.clone());
        if issue.message.starts_with(RECURSIVE_ALIAS) {
            // Recorded: fixtures/recorded/yaml-limit-exceeded/recursion-and-depth (`mrec::ok`
            // fails too: symkeys_to_string walks the whole file before any key is found).
            d = d.note(
                "Psych builds recursive data from this alias, and Puppet walks it without end: \
                 every lookup that reads this file fails with `stack level too deep` \
                 (SystemStackError)",
            );
        }
        sink.report(d.note(format!(
            "hieralint read the file up to here and checks only that part (limits: {} \
             levels of nesting, {} of flow collections, {} nodes from aliases)",
            yaml::MAX_DEPTH,
            yaml::MAX_FLOW_DEPTH,
            yaml::MAX_ALIAS_NODES
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::RECURSIVE_ALIAS;
    use crate::loader::{yaml, LoadIssueKind};
    use crate::span::SourceFile;

    #[test]
    fn the_loader_names_recursive_aliases_as_this_rule_expects() {
        let doc = yaml::load(&SourceFile::new("t.yaml", "a: &r [*r]\n"));
        let issue = doc
            .issues
            .iter()
            .find(|i| i.kind == LoadIssueKind::Limit)
            .unwrap();
        assert!(
            issue.message.starts_with(RECURSIVE_ALIAS),
            "{}",
            issue.message
        );
    }
}

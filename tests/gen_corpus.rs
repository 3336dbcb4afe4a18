//! The benchmark corpus generator (examples/gen_corpus): deterministic for a seed, loadable by
//! the scanner without surprises, and its seeded defects are where DEFECTS.tsv says.

#[path = "../examples/gen_corpus/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hieralint::loader::LoadIssueKind;
use hieralint::scan;
use hieralint::value::Value;

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "hieralint-gen-corpus-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// 300 files, 20 fact sets; fact sets from the facterdb dumps when present (else the
/// generator's built-in templates, tested on their own below).
fn config(seed: u64) -> corpus::Config {
    corpus::Config::new(300, 20, seed)
}

/// Every file under `dir`, relative path -> bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            out.insert(rel, std::fs::read(e.path()).unwrap());
        }
    }
    out
}

struct Defect {
    kind: String,
    path: String,
    line: usize,
}

fn defects(dir: &Path) -> Vec<Defect> {
    std::fs::read_to_string(dir.join("DEFECTS.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Defect {
                kind: f[0].to_string(),
                path: f[1].to_string(),
                line: f[2].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
fn the_same_seed_writes_the_same_bytes_and_another_seed_does_not() {
    let (a, b, c) = (TempDir::new("a"), TempDir::new("b"), TempDir::new("c"));
    corpus::generate(&config(7), &a.0).unwrap();
    corpus::generate(&config(7), &b.0).unwrap();
    corpus::generate(&config(8), &c.0).unwrap();
    let (ta, tb, tc) = (tree(&a.0), tree(&b.0), tree(&c.0));
    assert!(ta.len() > 300, "{} files", ta.len());
    assert!(ta == tb, "seed 7 twice gave different trees");
    assert!(ta != tc, "seeds 7 and 8 gave the same tree");
}

#[test]
fn the_scanner_loads_every_file_and_only_seeded_defects_are_issues() {
    let dir = TempDir::new("scan");
    let stats = corpus::generate(&config(3), &dir.0).unwrap();
    let (project, errors) = scan::load_project(std::slice::from_ref(&dir.0));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(project.files.len(), stats.hiera_files);
    let bytes: u64 = project
        .files
        .iter()
        .map(|f| f.source.text.len() as u64)
        .sum();
    assert_eq!(bytes, stats.data_bytes);

    let defects = defects(&dir.0);
    let kinds: std::collections::BTreeSet<&str> = defects.iter().map(|d| d.kind.as_str()).collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "alias-not-entire-string",
            "bad-regex",
            "duplicate-key",
            "interpolation-loop",
            "key-outside-module-namespace",
            "lookup-of-missing-key",
            "octal-number",
            "unquoted-date",
            "yaml11-boolean"
        ]
    );

    // What the loader itself reports: (relative path, line, kind) of every issue.
    let mut found = Vec::new();
    for f in &project.files {
        let rel = f
            .source
            .path
            .strip_prefix(&dir.0)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for issue in &f.doc.issues {
            let line = f.source.line_col(issue.span.start as usize).line;
            let kind = match issue.kind {
                LoadIssueKind::DuplicateKey { .. } => "duplicate-key",
                LoadIssueKind::DateTime => "unquoted-date",
                _ => "other",
            };
            found.push((rel.clone(), line, kind.to_string()));
        }
    }
    found.sort();
    let mut expected: Vec<(String, usize, String)> = defects
        .iter()
        .filter(|d| d.kind == "duplicate-key" || d.kind == "unquoted-date")
        .map(|d| (d.path.clone(), d.line, d.kind.clone()))
        .collect();
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
fn each_listed_defect_is_on_its_line() {
    let dir = TempDir::new("lines");
    corpus::generate(&config(5), &dir.0).unwrap();
    for d in defects(&dir.0) {
        let text = std::fs::read_to_string(dir.0.join(&d.path)).unwrap();
        let line = text.lines().nth(d.line - 1).unwrap_or("");
        let ok = match d.kind.as_str() {
            "yaml11-boolean" => line.ends_with(": on"),
            "octal-number" => line.ends_with(": 0644"),
            "unquoted-date" => line.ends_with(": 2031-03-31"),
            "alias-not-entire-string" => line.contains("www.%{alias("),
            "lookup-of-missing-key" => line.contains("%{lookup('profile::nowhere"),
            "interpolation-loop" => line.contains("::a: \"%{lookup("),
            "bad-regex" => line.contains("::(broken"),
            "key-outside-module-namespace" => {
                let module = d.path.split('/').nth(1).unwrap();
                !line.starts_with(&format!("{module}::")) && line.contains("::outside_namespace")
            }
            "duplicate-key" => {
                // a top-level `key: value` or `key:` line
                let key_of = |l: &str| {
                    l.strip_suffix(':')
                        .or_else(|| l.split_once(": ").map(|(k, _)| k))
                        .filter(|_| !l.starts_with([' ', '-', '#']))
                        .map(str::to_string)
                };
                let key = key_of(line);
                key.is_some() && text.lines().filter(|l| key_of(l) == key).count() == 2
            }
            other => panic!("unknown defect kind {other}"),
        };
        assert!(ok, "{} at {}:{}: {line:?}", d.kind, d.path, d.line);
    }
}

#[test]
fn fact_sets_load_and_most_name_a_node_file() {
    let dir = TempDir::new("facts");
    let stats = corpus::generate(&config(9), &dir.0).unwrap();
    let (sets, errors) = hieralint::facts::load_fact_sets(&[dir.0.join("facts")]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(sets.len(), 20);
    let with_node_file = sets
        .iter()
        .filter(|s| {
            let nodes = dir.0.join("data/nodes");
            nodes.join(format!("{}.yaml", s.name)).is_file()
                || nodes.join(format!("{}.json", s.name)).is_file()
        })
        .count();
    assert_eq!(with_node_file, 18, "9 in 10");
    assert_eq!(stats.fact_sets_matching_a_node, 18);
    for s in &sets {
        let get = |v: &Value, k: &str| v.as_hash().and_then(|h| h.get(&Value::from(k))).cloned();
        assert!(
            get(&s.facts, "role").is_some(),
            "{} has a role fact",
            s.name
        );
        assert!(
            get(&s.facts, "site").is_some(),
            "{} has a site fact",
            s.name
        );
        assert_eq!(
            get(&s.trusted, "certname"),
            Some(Value::from(s.name.as_str()))
        );
    }
}

#[test]
fn scalars_that_yaml_would_retype_are_quoted() {
    for s in [
        "on",
        "No",
        "~",
        "10.0.0.1",
        "0644",
        "::",
        "a: b",
        "2031-03-31",
        "",
    ] {
        assert!(!corpus::plain_safe(s), "{s}");
    }
    for s in ["present", "/etc/x", "profile::base::domain", "a-b.c@d"] {
        assert!(corpus::plain_safe(s), "{s}");
    }
    let mut l = corpus::Lines::default();
    l.entry(
        0,
        "k",
        &corpus::Val::Arr(
            vec![corpus::Val::Map(vec![
                ("a".into(), corpus::Val::Int(1)),
                ("b".into(), corpus::Val::Int(2)),
            ])],
            false,
        ),
    );
    assert_eq!(
        l.text(),
        "k:\n  - a: 1\n    b: 2\n",
        "a mapping item starts on the dash line"
    );
}

#[test]
fn without_facterdb_the_built_in_fact_templates_are_used() {
    let dir = TempDir::new("no-facterdb");
    let mut cfg = config(11);
    cfg.facterdb = PathBuf::from("/nonexistent/facterdb");
    corpus::generate(&cfg, &dir.0).unwrap();
    let (sets, errors) = hieralint::facts::load_fact_sets(&[dir.0.join("facts")]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(sets.len(), 20);
    // the built-in templates' OS releases get their data files
    assert!(dir.0.join("data/os/Debian/12.yaml").is_file());
    assert!(dir.0.join("data/os/RedHat/9.yaml").is_file());
}

/// The corpus is clean apart from its seeded defects: every diagnostic `check` reports is in a
/// file DEFECTS.tsv lists (a rule may also report a defect's consequences elsewhere in that
/// file), and the YAML-level ones are on the listed line. A failure means the generator wrote
/// something a rule rightly flags (fix the generator) or a rule flags clean data.
#[test]
fn check_reports_only_the_seeded_defects() {
    let dir = TempDir::new("check");
    corpus::generate(&config(13), &dir.0).unwrap();
    let defects = defects(&dir.0);
    let result = hieralint::check::check(&hieralint::check::CheckOptions {
        paths: vec![dir.0.clone()],
        ..Default::default()
    });
    assert!(!result.diagnostics.is_empty());
    for d in &result.diagnostics {
        let file = &d.primary.file;
        let rel = file
            .path
            .strip_prefix(&dir.0)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let line = file.line_col(d.primary.span.start as usize).line;
        let in_file: Vec<&Defect> = defects.iter().filter(|x| x.path == rel).collect();
        assert!(
            !in_file.is_empty(),
            "{} {} at {rel}:{line}: {}",
            d.rule.code,
            d.rule.name,
            d.message
        );
        if ["duplicate-key", "unquoted-date", "yaml11-implicit-type"].contains(&d.rule.name) {
            assert!(
                in_file.iter().any(|x| x.line == line),
                "{} at {rel}:{line} is not on a seeded line",
                d.rule.name
            );
        }
    }
}

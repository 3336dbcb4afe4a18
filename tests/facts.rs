//! Fact sets: every supported file form, the errors for the others, and the top scope checked
//! against answers recorded from the real Puppet (fixtures/facts/oracle).

use std::path::{Path, PathBuf};

use hieralint::facts::{load_fact_file, load_fact_sets, top_scope, FactSet};
use hieralint::span::SourceFile;
use hieralint::value::Value;

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/facts")
        .join(p)
}

fn load_one(p: &str) -> FactSet {
    let (sets, errors) = load_fact_sets(&[fixture(p)]);
    assert!(errors.is_empty(), "{p}: {errors:?}");
    assert_eq!(sets.len(), 1, "{p}");
    sets.into_iter().next().unwrap()
}

/// `facts.os.family` style digging into a value.
fn dig<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(v, |v, k| v.as_hash()?.get(&Value::from(k)))
}

fn s(v: &Value, path: &str) -> String {
    dig(v, path)
        .map(Value::ruby_inspect)
        .unwrap_or_else(|| "<none>".into())
}

#[test]
fn facter_output_is_a_plain_hash() {
    let fs = load_one("forms/facter.json");
    assert_eq!(fs.name, "db01.example.com"); // networking.fqdn
    assert_eq!(fs.environment, None);
    assert_eq!(fs.server_facts, None);
    assert_eq!(s(&fs.facts, "os.release.major"), "\"12\"");
    assert_eq!(s(&fs.facts, "memory.system.total_bytes"), "8589934592");
    assert_eq!(
        fs.trusted.ruby_inspect(),
        r#"{"authenticated"=>"remote", "certname"=>"db01.example.com", "extensions"=>{}, "hostname"=>"db01", "domain"=>"example.com", "external"=>{}}"#
    );
}

#[test]
fn puppet_facts_cache_yaml_is_read_without_instantiating() {
    // Written by Puppet 7.23's own Puppet::Node::Facts#to_yaml.
    let fs = load_one("forms/puppet-cache/web01.example.com.yaml");
    assert_eq!(fs.name, "web01.example.com");
    assert_eq!(s(&fs.facts, "os.release.full"), "\"9.3\"");
    assert_eq!(s(&fs.facts, "time_like"), "\"12:30:00\"");
    // nil facts are sanitized to "" (node/facts.rb sanitize_fact).
    assert_eq!(s(&fs.facts, "nothing"), "\"\"");
    assert_eq!(s(&fs.facts, "big"), "1099511627776");
    assert!(dig(&fs.facts, "timestamp").is_none());
}

#[test]
fn legacy_cache_with_symbols_and_timestamps() {
    let fs = load_one("forms/legacy-cache.yaml");
    assert_eq!(fs.name, "legacy01.example.com");
    // Symbols become strings, the `_timestamp` fact is dropped (node/facts.rb:46).
    assert_eq!(
        fs.facts.ruby_inspect(),
        r#"{"os"=>{"family"=>"RedHat"}, "symkey"=>1, "other"=>"value", "nothing"=>"", "clientcert"=>"legacy01.example.com"}"#
    );
}

#[test]
fn puppet_facts_find_wrapper() {
    let fs = load_one("forms/facts-find.json");
    assert_eq!(fs.name, "web01.example.com");
    assert_eq!(s(&fs.facts, "role"), "\"web\"");
    assert!(dig(&fs.facts, "values").is_none());
}

#[test]
fn puppetdb_factsets() {
    let (sets, errors) = load_fact_sets(&[fixture("forms/puppetdb-factsets.json")]);
    assert!(errors.is_empty(), "{errors:?}");
    let names: Vec<_> = sets
        .iter()
        .map(|f| (f.name.as_str(), f.environment.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            ("app01.example.com", Some("staging")),
            ("app02.example.com", Some("production"))
        ]
    );
    // The `trusted` fact PuppetDB stores becomes $trusted, not a fact.
    let app01 = &sets[0];
    assert!(dig(&app01.facts, "trusted").is_none());
    assert_eq!(s(&app01.trusted, "extensions.pp_datacenter"), "\"dc1\"");
    assert_eq!(s(&app01.trusted, "hostname"), "\"app01\"");
    assert_eq!(s(&app01.facts, "role"), "\"app\"");
    assert_eq!(s(&sets[1].trusted, "certname"), "\"app02.example.com\"");
    assert_eq!(s(&sets[1].trusted, "extensions"), "{}");
}

#[test]
fn puppetdb_fact_list_is_grouped_by_certname() {
    let (sets, errors) = load_fact_sets(&[fixture("forms/puppetdb-facts.json")]);
    assert!(errors.is_empty(), "{errors:?}");
    let got: Vec<_> = sets
        .iter()
        .map(|f| (f.name.clone(), f.facts.ruby_inspect()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "cache01.example.com".to_string(),
                r#"{"role"=>"cache", "os"=>{"family"=>"Debian"}}"#.to_string()
            ),
            (
                "cache02.example.com".to_string(),
                r#"{"role"=>"cache", "os"=>{"family"=>"RedHat"}}"#.to_string()
            ),
        ]
    );
}

#[test]
fn puppetdb_replace_facts_command() {
    let fs = load_one("forms/puppetdb-replace.json");
    assert_eq!(fs.name, "mq01.example.com");
    assert_eq!(fs.environment.as_deref(), Some("production"));
    assert_eq!(
        fs.facts.ruby_inspect(),
        r#"{"role"=>"mq", "os"=>{"family"=>"RedHat"}}"#
    );
}

#[test]
fn oracle_convention() {
    let fs = load_one("forms/oracle-convention.json");
    assert_eq!(fs.name, "web02.example.com");
    assert_eq!(
        fs.facts.ruby_inspect(),
        r#"{"os"=>{"family"=>"RedHat"}, "role"=>"web"}"#
    );
    assert_eq!(
        fs.server_facts.as_ref().map(Value::ruby_inspect).as_deref(),
        Some(r#"{"serverversion"=>"7.23.0", "servername"=>"puppet.example.com"}"#)
    );
}

#[test]
fn directories_are_walked_in_name_order() {
    let (sets, errors) = load_fact_sets(&[fixture("forms")]);
    assert!(errors.is_empty(), "{errors:?}");
    let sources: Vec<String> = sets
        .iter()
        .map(|f| {
            f.source
                .strip_prefix(fixture("forms"))
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(
        sources,
        [
            "facter.json",
            "facts-find.json",
            "legacy-cache.yaml",
            "oracle-convention.json",
            "puppet-cache/web01.example.com.yaml",
            "puppetdb-facts.json",
            "puppetdb-facts.json",
            "puppetdb-factsets.json",
            "puppetdb-factsets.json",
            "puppetdb-replace.json",
        ]
    );
}

#[test]
fn unusable_files_are_errors_not_panics() {
    let (sets, errors) = load_fact_sets(&[fixture("bad")]);
    // reserved-name.json still loads (with an error saying Puppet would fail on it).
    assert_eq!(sets.len(), 1);
    let got: Vec<(String, String, Option<u32>)> = errors
        .iter()
        .map(|e| {
            (
                e.path.file_name().unwrap().to_string_lossy().into_owned(),
                e.message.clone(),
                e.span.map(|s| s.start),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "broken.json".into(),
                "not valid Json: 859: unexpected token at '{\"a\": 1,}".into(),
                Some(7)
            ),
            (
                "empty.yaml".into(),
                "the file holds no facts (it is empty)".into(),
                None
            ),
            (
                "list-of-numbers.json".into(),
                "a list of fact sets must hold PuppetDB factsets ({\"certname\", \"facts\"}) or \
                 facts ({\"certname\", \"name\", \"value\"}); this entry is a Integer"
                    .into(),
                Some(1)
            ),
            (
                "list-of-numbers.json".into(),
                "a list of fact sets must hold PuppetDB factsets ({\"certname\", \"facts\"}) or \
                 facts ({\"certname\", \"name\", \"value\"}); this entry is a Integer"
                    .into(),
                Some(4)
            ),
            (
                "puppetdb-missing-value.json".into(),
                "a PuppetDB fact must be {\"name\": .., \"value\": ..}".into(),
                // The entry `{"name": "os"}`.
                Some(50)
            ),
            (
                "reserved-name.json".into(),
                "node reserved-name: a fact named `facts` makes Puppet fail (Attempt to assign to \
                 a reserved variable name: 'facts'); it is not a top-scope variable here"
                    .into(),
                None
            ),
            (
                "scalar.json".into(),
                "facts must be a hash (or a list of PuppetDB fact sets), not a String".into(),
                Some(0)
            ),
        ]
    );
    let (_, errors) = load_fact_sets(&[fixture("does-not-exist.json")]);
    assert!(
        errors[0].message.starts_with("cannot read the file"),
        "{errors:?}"
    );
}

#[test]
fn unknown_extension_tries_json_then_yaml() {
    let f = SourceFile::new(
        "node.facts",
        "os:\n  family: Debian\nclientcert: n1.example.com\n",
    );
    let (sets, errors) = load_fact_file(&f);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(sets[0].name, "n1.example.com");
    let f = SourceFile::new("node.facts", "{\"os\": {\"family\": \"Debian\"}}");
    let (sets, _) = load_fact_file(&f);
    assert_eq!(sets[0].name, "node"); // the file stem, nothing else names it
}

#[test]
fn all_facterdb_sets_load() {
    let dir = Path::new("/work/shared/facts/facterdb-4.5");
    if !dir.is_dir() {
        eprintln!("skipped: {} is not on this machine", dir.display());
        return;
    }
    let (sets, errors) = load_fact_sets(&[dir.to_path_buf()]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(sets.len(), 35);
    for fs in &sets {
        assert_eq!(fs.name, "foo.example.com", "{}", fs.source.display());
        assert!(
            dig(&fs.facts, "os.family").is_some(),
            "{}",
            fs.source.display()
        );
        let top = top_scope(fs);
        assert_eq!(dig(&top, "os"), dig(&fs.facts, "os"));
        assert_eq!(s(&top, "trusted.hostname"), "\"foo\"");
    }
}

/// Evaluates a data value of fixtures/facts/oracle/.../common.yaml against a top scope the way
/// Hiera interpolates it: `%{a.b}` digs, `::` means top scope, a missing variable is "".
fn interpolate(top: &Value, template: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find("%{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find('}').unwrap() + i;
        let expr = rest[i + 2..end].trim_start_matches("::");
        let mut v = top;
        let mut missing = false;
        for seg in expr.split('.') {
            match v {
                Value::Hash(h) => match h.get(&Value::from(seg)) {
                    Some(x) => v = x,
                    None => {
                        missing = true;
                        break;
                    }
                },
                other => {
                    return Err(format!("Got {} when a hash-like object", other.type_name()));
                }
            }
        }
        if !missing {
            out.push_str(&v.to_ruby_s());
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[test]
fn top_scope_matches_the_oracle() {
    let fs = load_one("oracle/facts.json");
    assert_eq!(fs.name, "web01.example.com");
    let top = top_scope(&fs);
    let data = std::fs::read_to_string(fixture("oracle/environments/production/data/common.yaml"))
        .unwrap();
    let templates: Vec<(String, String)> = data
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(": ").unwrap();
            (k.to_string(), v.trim_matches('"').to_string())
        })
        .collect();
    let answers = std::fs::read_to_string(fixture("oracle/answers.jsonl")).unwrap();
    let answers: Vec<serde_json::Value> = answers
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), templates.len());
    for (answer, (key, template)) in answers.iter().zip(&templates) {
        assert_eq!(answer["key"], key.as_str());
        let got = interpolate(&top, template);
        match (answer.get("value"), answer.get("error")) {
            (Some(v), _) => assert_eq!(got.as_deref(), Ok(v.as_str().unwrap()), "{key}"),
            (_, Some(e)) => {
                let e = e.as_str().unwrap();
                let got = got.expect_err(key);
                assert!(e.contains(&got), "{key}: {e} / {got}");
            }
            _ => panic!("{answer}"),
        }
    }
    // Recorded: `%{clientcert}` warns "Undefined variable": no such variable without the fact.
    assert!(dig(&top, "clientcert").is_none());
    let names: Vec<String> = top
        .as_hash()
        .unwrap()
        .keys()
        .map(|k| k.to_ruby_s())
        .collect();
    assert_eq!(
        names,
        [
            "nilfact",
            "x",
            "num",
            "os",
            "list",
            "serverversion",
            "environment",
            "trusted",
            "server_facts",
            "facts"
        ]
    );
}

#[test]
fn top_scope_without_server_facts_and_with_an_environment() {
    let mut fs = load_one("forms/facter.json");
    fs.environment = Some("dev".into());
    let top = top_scope(&fs);
    assert_eq!(s(&top, "environment"), "\"dev\"");
    assert_eq!(s(&top, "server_facts"), "{}");
    assert_eq!(s(&top, "kernel"), "\"Linux\"");
    assert_eq!(s(&top, "facts.kernel"), "\"Linux\"");
}

//! Unit tests of the hiera.yaml model: accessors and defaults on configs read from YAML, and the
//! schema describer on hand-built trees (independent of the YAML loader).

use std::sync::Arc;

use super::*;
use crate::loader::yaml;
use crate::value::{Entry, Mapping, ScalarStyle};

fn read(text: &str, layer: Layer) -> (Arc<SourceFile>, Option<HieraConfig>, Vec<ConfigError>) {
    let file = Arc::new(SourceFile::new("/etc/puppetlabs/code/hiera.yaml", text));
    let doc = yaml::load(&file);
    let (c, e) = parse(&file, &doc, &layer);
    (file, c, e)
}

fn s(text: &str) -> Node {
    Node::scalar(
        Span::default(),
        Value::string(text),
        ScalarStyle::Plain,
        text,
    )
}

fn i(n: i64) -> Node {
    Node::scalar(
        Span::default(),
        Value::Integer(n),
        ScalarStyle::Plain,
        &n.to_string(),
    )
}

fn map(entries: Vec<(Node, Node)>) -> Node {
    Node {
        span: Span::default(),
        kind: NodeKind::Map(Mapping {
            entries: entries
                .into_iter()
                .map(|(key, value)| Entry {
                    key,
                    value,
                    merged: false,
                })
                .collect(),
        }),
        props: None,
        from_alias: false,
    }
}

fn seq(items: Vec<Node>) -> Node {
    Node {
        span: Span::default(),
        kind: NodeKind::Seq(items),
        props: None,
        from_alias: false,
    }
}

#[test]
fn describer_on_hand_built_trees() {
    // version: 5, hierarchy: [{name: 5, paths: []}, "x"], extra: 1
    let root = map(vec![
        (s("version"), i(5)),
        (
            s("hierarchy"),
            seq(vec![
                map(vec![(s("name"), i(5)), (s("paths"), seq(vec![]))]),
                s("x"),
            ]),
        ),
        (s("extra"), i(1)),
    ]);
    let ms = schema::describe(&schema::v5_config(), &root, &[]);
    let texts: Vec<String> = ms.iter().map(|m| m.describe()).collect();
    assert_eq!(
        texts,
        [
            " entry 'hierarchy' index 0 entry 'name' expects a String value, got Integer",
            " entry 'hierarchy' index 0 entry 'paths' expects size to be at least 1, got 0",
            " entry 'hierarchy' index 1 expects a Struct value, got String",
            " unrecognized key 'extra'",
        ]
    );
    // A repeated key keeps the last value (Psych), Symbol keys are strings (symkeys_to_string).
    let sym_key = Node::scalar(
        Span::default(),
        Value::Symbol("version".into()),
        ScalarStyle::Plain,
        ":version",
    );
    let root = map(vec![(s("version"), s("5")), (sym_key, i(5))]);
    assert!(schema::matches(&schema::v5_config(), &root));
}

#[test]
fn v3_variant_merge_and_enum() {
    let root = map(vec![
        (s("hierarchy"), i(5)),
        (s("merge_behavior"), s("deepest")),
    ]);
    let ty = schema::v3_config(&["yaml"]);
    let texts: Vec<String> = schema::describe(&ty, &root, &[])
        .iter()
        .map(|m| m.describe())
        .collect();
    assert_eq!(
        texts,
        [
            " entry 'merge_behavior' expects a match for Enum['deep', 'deeper', 'native'], got 'deepest'",
            " entry 'hierarchy' expects a value of type String or Array, got Integer",
        ]
    );
}

#[test]
fn effective_function_datadir_and_options() {
    let text = "\
version: 5
defaults:
  datadir: hieradata
  lookup_key: eyaml_lookup_key
  options:
    pkcs7_private_key: /k
hierarchy:
  - name: A
    path: a.eyaml
  - name: B
    datadir: other
    data_hash: json_data
    path: b.json
    options:
      x: 1
";
    let (_, c, errors) = read(text, Layer::Environment);
    let c = c.unwrap();
    let a = &c.hierarchy[0];
    let b = &c.hierarchy[1];
    let fa = a.effective_function(&c.defaults).unwrap();
    assert_eq!(
        (fa.kind, fa.name.value.as_str()),
        (FunctionKind::LookupKey, "eyaml_lookup_key")
    );
    let fb = b.effective_function(&c.defaults).unwrap();
    assert_eq!(
        (fb.kind, fb.name.value.as_str()),
        (FunctionKind::DataHash, "json_data")
    );
    assert_eq!(a.effective_datadir(&c.defaults), "hieradata");
    assert_eq!(b.effective_datadir(&c.defaults), "other");
    // Options replace, never merge.
    let oa = a.effective_options(&c.defaults).unwrap();
    let ob = b.effective_options(&c.defaults).unwrap();
    assert!(oa
        .value
        .as_hash()
        .unwrap()
        .contains_key(&Value::string("pkcs7_private_key")));
    assert_eq!(ob.value.as_hash().unwrap().len(), 1);
    assert!(ob
        .value
        .as_hash()
        .unwrap()
        .contains_key(&Value::string("x")));
    // json_data given options fails every lookup through B (recorded: yaml-data-options).
    assert_eq!(
        errors.iter().map(|e| &e.kind).collect::<Vec<_>>(),
        [&ConfigErrorKind::OptionsRejected]
    );
}

#[test]
fn puppet_fills_defaults_and_hierarchy() {
    let (_, c, errors) = read("version: 5\n", Layer::Environment);
    assert!(errors.is_empty());
    let c = c.unwrap();
    assert!(c.defaults.span.synthetic);
    assert_eq!(c.hierarchy.len(), 1);
    let e = &c.hierarchy[0];
    assert_eq!(e.name.value, "Common");
    assert_eq!(e.effective_datadir(&c.defaults), "data");
    assert_eq!(
        e.effective_function(&c.defaults)
            .map(|f| f.name.value.as_str()),
        Some("yaml_data")
    );
    match &e.locations {
        Locations::Paths(f) => assert_eq!(f.items[0].value, "common.yaml"),
        other => panic!("{other:?}"),
    }

    let d = HieraConfig::default_v5(Layer::Global);
    assert_eq!(d.origin, ConfigOrigin::DefaultV5);
    assert!(d.file.is_none());
    assert_eq!(d.hierarchy[0].effective_datadir(&d.defaults), "data");

    let v3 = HieraConfig::default_v3(Layer::Global);
    let v = v3.v3.as_ref().unwrap();
    let backends: Vec<&str> = v.backends.iter().map(|b| b.value.as_str()).collect();
    let hierarchy: Vec<&str> = v.hierarchy.iter().map(|h| h.value.as_str()).collect();
    assert_eq!(backends, ["yaml"]);
    assert_eq!(hierarchy, ["nodes/%{::trusted.certname}", "common"]);
    assert_eq!(v.merge_behavior.value, "native");
    assert_eq!(v.backend_configs[0].effective_extension(), ".yaml");
    assert!(v3.is_used());
    assert!(!HieraConfig::default_v3(Layer::Environment).is_used());
}

#[test]
fn raw_strings_and_token_spans() {
    let text = "\
version: 5
hierarchy:
  - name: OS
    path: \"os/%{facts.os.family}.yaml\"
  - name: Apps
    mapped_paths: [facts.apps, app, 'apps/%{app}.yaml']
";
    let (file, c, errors) = read(text, Layer::Environment);
    assert!(errors.is_empty(), "{errors:#?}");
    let c = c.unwrap();
    let raws = c.hierarchy[0].raw_strings(&c.defaults);
    let loc = raws
        .iter()
        .find(|r| r.role == StringRole::Location(LocationKey::Path))
        .unwrap();
    let toks = token_spans(&file, loc);
    assert_eq!(toks.len(), 1);
    assert_eq!(toks[0].0, "facts.os.family");
    assert_eq!(file.slice(toks[0].1), "%{facts.os.family}");
    let lc = file.line_col(toks[0].1.start as usize);
    assert_eq!((lc.line, lc.column), (4, 15));

    let raws = c.hierarchy[1].raw_strings(&c.defaults);
    let roles: Vec<StringRole> = raws.iter().map(|r| r.role).collect();
    // The filled-in datadir (`data`) is interpolated too.
    assert_eq!(
        roles,
        [
            StringRole::Datadir,
            StringRole::MappedPathsScope,
            StringRole::MappedPathsTemplate
        ]
    );
    assert_eq!(raws[0].value, "data");
    let t = token_spans(&file, &raws[2]);
    assert_eq!(file.slice(t[0].1), "%{app}");
}

#[test]
fn v4_entries_become_v5_shaped() {
    let text = "\
version: 4
datadir: hieradata
hierarchy:
  - name: \"nodes/%{trusted.certname}\"
    backend: json
  - name: common
    backend: hocon
    paths: [a, b]
";
    let (_, c, errors) = read(text, Layer::Module("m".into()));
    assert_eq!(
        errors.iter().map(|e| &e.kind).collect::<Vec<_>>(),
        [&ConfigErrorKind::Deprecated]
    );
    let c = c.unwrap();
    let e0 = &c.hierarchy[0];
    assert_eq!(e0.extension, Some(".json"));
    assert_eq!(e0.effective_datadir(&c.defaults), "hieradata");
    assert_eq!(
        e0.effective_function(&c.defaults)
            .map(|f| f.name.value.as_str()),
        Some("json_data")
    );
    // The name is the path.
    assert_eq!(
        c.hierarchy[0].locations.strings()[0].value,
        "nodes/%{trusted.certname}"
    );
    assert_eq!(c.hierarchy[1].extension, Some(".conf"));
    assert_eq!(c.hierarchy[1].locations.strings().len(), 2);
}

#[test]
fn v3_model_reads_symbol_keys() {
    let text = "\
---
:backends:
  - yaml
  - eyaml
:yaml:
  :datadir: /srv/hieradata
:eyaml:
  :datadir: /srv/secrets
  :extension: yaml
:hierarchy:
  - \"nodes/%{::trusted.certname}\"
  - common
:merge_behavior: deeper
";
    let (_, c, errors) = read(text, Layer::Global);
    assert_eq!(
        errors.iter().map(|e| &e.kind).collect::<Vec<_>>(),
        [&ConfigErrorKind::Deprecated]
    );
    let v = c.unwrap().v3.unwrap();
    assert_eq!(v.merge_behavior.value, "deeper");
    assert_eq!(v.backend_configs.len(), 2);
    assert_eq!(
        v.backend_configs[0].datadir.as_ref().unwrap().value,
        "/srv/hieradata"
    );
    assert_eq!(v.backend_configs[1].effective_extension(), ".yaml");
    assert_eq!(v.hierarchy.len(), 2);
}

#[test]
fn version_to_i_semantics() {
    for (text, n) in [
        ("5", 5),
        (" 5", 5),
        ("5abc", 5),
        ("abc", 0),
        ("1_0", 10),
        ("-3", -3),
        ("_1", 0),
    ] {
        assert_eq!(ruby_to_i(text), n, "{text}");
    }
    let (_, c, e) = read("version: \"5abc\"\n", Layer::Environment);
    // "5abc".to_i is 5: dispatched to v5, where the struct wants an Integer.
    assert!(c.is_some());
    assert_eq!(e[0].kind, ConfigErrorKind::WrongType);
    let (_, c, e) = read("version: 7\n", Layer::Environment);
    assert!(c.is_none());
    assert_eq!(e[0].kind, ConfigErrorKind::UnsupportedVersion);
}

#[test]
fn never_panics_on_odd_documents() {
    for text in [
        "",
        "---\n",
        "version: 5\nhierarchy: [[[[[]]]]]\n",
        "version: 5\nhierarchy:\n  - name: a\n    options: &a {x: *a}\n",
        "version: 5\nhierarchy:\n  - {name: 'a(b', data_hash: x}\n  - {name: 'a(b', data_hash: x}\n",
        "version: 5\ndefaults: {options: {a: [[[[[{b: [1]}]]]]]}}\n",
        ":backends: [[[yaml]], json, [5]]\n",
        "version: 4\nhierarchy: [{}]\n",
        "{5: 5}\n",
        "version: .nan\n",
    ] {
        for layer in [Layer::Global, Layer::Environment, Layer::Module("m".into())] {
            let _ = read(text, layer);
        }
    }
}

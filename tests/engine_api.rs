//! The engine's public API on a small environment (fixtures/engine/basic): values, provenance
//! spans (line and column), resolved hierarchies, key enumeration, sessions, overlays.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, FsVfs, LookupRequest, LookupResult, Place,
    PuppetVersion, Scope, Trusted, Vfs,
};
use hieralint::value::{Hash, Value};

fn env_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/engine/basic")
}

fn scope() -> Scope {
    let mut facts = Hash::default();
    facts.insert(Value::string("role"), Value::string("web"));
    let trusted = Trusted {
        certname: Some("web01.example.com".into()),
        ..Default::default()
    };
    Scope::for_node(&facts, &trusted, None, "production")
}

fn engine_with(vfs: Arc<dyn Vfs>) -> Engine {
    Engine::new(
        EnvironmentSpec::standalone(&env_dir(), "production"),
        EngineOptions::for_puppet(PuppetVersion::V7),
        vfs,
    )
}

fn engine() -> Engine {
    engine_with(Arc::new(FsVfs::new()))
}

#[test]
fn values_merges_and_interpolation() {
    let e = engine();
    let s = scope();
    let o = e.lookup(&s, "greeting", None, false);
    assert_eq!(o.value(), Some(&Value::string("hello web")));
    // lookup_options deep merge: node first, then common (lower keys first).
    let o = e.lookup(&s, "merged", None, false);
    assert_eq!(
        o.value().unwrap().ruby_inspect(),
        r#"{"a"=>1, "list"=>["common", "node"], "b"=>2}"#
    );
    assert!(matches!(
        e.lookup(&s, "nope", None, false).result,
        LookupResult::NotFound
    ));
    let o = e.lookup(&s, "mymod::port", None, false);
    assert_eq!(o.value(), Some(&Value::Integer(8080)));
    let o = e.lookup(&s, "bad..key", None, false);
    assert_eq!(
        o.error().unwrap().message,
        "Syntax error in key: 'bad..key'"
    );
}

#[test]
fn provenance_points_at_the_key_and_value() {
    let e = engine();
    let o = e.lookup(&scope(), "merged", None, false);
    assert_eq!(o.provenance.len(), 2);
    let p = &o.provenance[0];
    assert!(p.file.path.ends_with("data/nodes/web01.example.com.yaml"));
    let lc = p.file.line_col(p.key_span.start as usize);
    assert_eq!((lc.line, lc.column), (2, 1));
    assert_eq!(p.file.slice(p.key_span), "merged");
    let v = p.file.line_col(p.value_span.start as usize);
    assert_eq!((v.line, v.column), (3, 3));
    let c = &o.provenance[1];
    assert!(c.file.path.ends_with("data/common.yaml"));
    let lc = c.file.line_col(c.key_span.start as usize);
    assert_eq!((lc.line, lc.column), (5, 1));
}

#[test]
fn resolved_hierarchy_lists_levels_and_existence() {
    let e = engine();
    let session = e.session(Arc::new(scope()));
    let h = session.resolved_hierarchy();
    assert!(h.errors.is_empty(), "{:?}", h.errors);
    let env: Vec<_> = h
        .levels
        .iter()
        .filter(|l| l.layer == Place::Environment)
        .collect();
    assert_eq!(
        env.iter().map(|l| &*l.name).collect::<Vec<_>>(),
        vec!["Per-node", "Per-role", "Common"]
    );
    let locs = env[0].locations.as_ref().unwrap();
    assert!(locs[0]
        .location
        .ends_with("data/nodes/web01.example.com.yaml"));
    assert!(locs[0].exists);
    assert_eq!(&*locs[0].original, "nodes/%{trusted.certname}.yaml");
    assert!(!env[1].locations.as_ref().unwrap()[0].exists);
    assert!(h
        .levels
        .iter()
        .any(|l| l.layer == Place::Module("mymod".into()) && &*l.name == "Common"));
    // Another node reads other files: another fingerprint.
    let other = {
        let mut facts = Hash::default();
        facts.insert(Value::string("role"), Value::string("db"));
        let t = Trusted {
            certname: Some("db01.example.com".into()),
            ..Default::default()
        };
        Scope::for_node(&facts, &t, None, "production")
    };
    let h2 = e.session(Arc::new(other)).resolved_hierarchy();
    assert_ne!(h.fingerprint(), h2.fingerprint());
    assert_eq!(
        h.fingerprint(),
        e.session(Arc::new(scope()))
            .resolved_hierarchy()
            .fingerprint()
    );
}

#[test]
fn all_keys_enumerates_reachable_files() {
    let e = engine();
    let keys = e.session(Arc::new(scope())).all_keys();
    let names: Vec<&str> = keys.iter().map(|k| k.key.as_str()).collect();
    for k in [
        "merged",
        "node_only",
        "greeting",
        "ntp::servers",
        "mymod::port",
    ] {
        assert!(names.contains(&k), "{k} missing from {names:?}");
    }
    let port = keys.iter().find(|k| k.key == "mymod::port").unwrap();
    assert_eq!(port.layer, Place::Module("mymod".into()));
    let lc = port.file.line_col(port.value_span.start as usize);
    assert_eq!((lc.line, lc.column), (2, 14));
}

#[test]
fn defining_layers_agree_with_all_keys() {
    let e = engine();
    let session = e.session(Arc::new(scope()));
    let all = session.all_keys();
    let keys = ["merged", "node_only", "mymod::port", "no_such_key"];
    let layers = session.defining_layers(&keys);
    for (k, got) in keys.iter().zip(&layers) {
        let want: Vec<Place> = all
            .iter()
            .filter(|d| d.key == *k)
            .map(|d| d.layer.clone())
            .collect();
        assert_eq!(got, &want, "{k}");
    }
    assert!(layers[3].is_empty());
    assert_eq!(layers[2], vec![Place::Module("mymod".into())]);
}

#[test]
fn overlays_replace_file_content() {
    let fs = Arc::new(FsVfs::new());
    let e = engine_with(fs.clone());
    let s = scope();
    assert_eq!(
        e.lookup(&s, "greeting", None, false).value(),
        Some(&Value::string("hello web"))
    );
    fs.set_overlay(env_dir().join("data/common.yaml"), "greeting: bonjour\n");
    assert_eq!(
        e.lookup(&s, "greeting", None, false).value(),
        Some(&Value::string("bonjour"))
    );
}

/// The environment's hiera.yaml is found once per file system generation
/// (`Engine::env_layer_config`): a new hierarchy in an overlay, or the file gone from a
/// listing, is what the next session resolves.
#[test]
fn an_edited_environment_hiera_yaml_is_read_again() {
    let fs = Arc::new(FsVfs::new());
    let e = engine_with(fs.clone());
    let s = scope();
    let before = e.lookup(&s, "node_only", None, false);
    assert_eq!(before.value(), Some(&Value::Bool(true)));
    // Without the per-node level, the node's file is not read.
    fs.set_overlay(
        env_dir().join("hiera.yaml"),
        "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  - name: Common\n    path: common.yaml\n",
    );
    let after = e.lookup(&s, "node_only", None, false);
    assert_eq!(after.value(), None, "{after:?}");
    assert_eq!(
        e.lookup(&s, "greeting", None, false).value(),
        Some(&Value::string("hello web"))
    );
}

#[test]
fn explain_and_defaults() {
    let e = engine();
    let session = e.session(Arc::new(scope()));
    let o = session.lookup(&LookupRequest::new("node_only").explain(true));
    let text = o.explain_text().unwrap();
    assert!(text.contains("Searching for \"node_only\""), "{text}");
    assert!(
        text.contains("Found key: \"node_only\" value: true"),
        "{text}"
    );
    let json = o.explain.as_ref().unwrap().to_json();
    assert!(json.get("branches").is_some());
    let o = session.lookup(&LookupRequest::new("nope").default_value(Some(Value::string("d"))));
    assert!(o.defaulted);
    assert_eq!(o.value(), Some(&Value::string("d")));
    // Several keys: the first found wins.
    let o = session.lookup(&LookupRequest {
        keys: vec!["nope".into(), "node_only".into()],
        ..Default::default()
    });
    assert_eq!(o.key.as_deref(), Some("node_only"));
}

#[test]
fn sessions_are_usable_from_many_threads() {
    let e = Arc::new(engine());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let e = e.clone();
            std::thread::spawn(move || {
                let s = e.session(Arc::new(scope()));
                s.lookup(&LookupRequest::new("greeting")).value().cloned()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), Some(Value::string("hello web")));
    }
}

/// Hostile data: a chain of 1,000 lookups and values nested hundreds of levels deep are
/// answered (or refused with a clear error) without exhausting a 2 MiB thread stack.
#[test]
fn deep_chains_and_nesting_do_not_crash() {
    let dir = std::env::temp_dir().join(format!("hieralint-deep-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("hiera.yaml"),
        "version: 5\nhierarchy:\n  - {name: a, path: a.yaml}\n  - {name: c, path: common.yaml}\n",
    )
    .unwrap();
    let mut common = String::new();
    for i in 0..1000 {
        common.push_str(&format!("k{i}: \"%{{lookup('k{}')}}\"\n", i + 1));
    }
    common.push_str("k1000: end\nshort0: \"%{lookup('short1')}\"\nshort1: \"%{lookup('short2')}\"\nshort2: end\n");
    let d = 250;
    common.push_str(&format!("deep: {}1{}\n", "{a: ".repeat(d), "}".repeat(d)));
    std::fs::write(dir.join("data/common.yaml"), &common).unwrap();
    std::fs::write(
        dir.join("data/a.yaml"),
        format!("deep: {}2{}\n", "{a: ".repeat(d), "}".repeat(d)),
    )
    .unwrap();
    let e = Engine::on_disk(
        EnvironmentSpec::standalone(&dir, "production"),
        EngineOptions::default(),
    );
    let s = Scope::default();
    let o = e.lookup(&s, "k0", None, false);
    assert_eq!(
        o.error().map(|e| e.kind),
        Some(hieralint::engine::ErrorKind::Unsupported)
    );
    assert_eq!(
        e.lookup(&s, "short0", None, false).value(),
        Some(&Value::string("end"))
    );
    for merge in ["deep", "hash", "unique"] {
        let o = e.session(Arc::new(s.clone())).lookup(
            &LookupRequest::new("deep")
                .merge(Some(Value::string(merge)))
                .explain(true),
        );
        assert!(o.explain_text().is_some_and(|t| t.len() > 1000));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! A whole `check` of a small generated environment (see `hieralint_fuzz::env`), then every
//! vocabulary key looked up by the engine for one node, with and without a merge and explain:
//! no panic, no hang (libFuzzer's `-timeout`), every diagnostic's spans inside its file, and the
//! JSON rendering works.
#![no_main]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use hieralint::check::{self, CheckOptions};
use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, LookupRequest, PuppetVersion, Scope, Trusted,
};
use hieralint::limits::Limits;
use hieralint::value::Value;
use hieralint_fuzz::env::Env;
use hieralint_fuzz::invariants::check_span;
use libfuzzer_sys::fuzz_target;

/// A per-process scratch directory on tmpfs (`/dev/shm` when present).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        base.join(format!("hieralint-fuzz-{}", std::process::id()))
    })
}

fn scope() -> Scope {
    let facts: hieralint::value::Hash = [
        (
            "os",
            Value::hash(
                [(Value::string("family"), Value::string("RedHat"))]
                    .into_iter()
                    .collect(),
            ),
        ),
        (
            "list",
            Value::array(vec![Value::string("a"), Value::string("b")]),
        ),
        ("a", Value::string("%{facts.a}")),
        ("b", Value::Integer(1)),
    ]
    .into_iter()
    .map(|(k, v)| (Value::string(k), v))
    .collect();
    let trusted = Trusted {
        certname: Some("web01".into()),
        ..Default::default()
    };
    Scope::for_node(&facts, &trusted, None, "production")
}

/// The default limits with glob walks bounded lower: a location that interpolates to
/// `/**/*.yaml` (an empty variable before the `/`) walks the whole machine, which the default
/// `max_glob_visits` bounds but only after seconds, and a bounded walk must not read as a hang
/// (`-timeout`). The walk at full size is `datadir_at_root` in tests/hostile.rs. What such a glob
/// reads is bounded lower too: the default `max_read_bytes` (1 GiB of file text, then its parse)
/// leaves too little room under the fuzzer's 2 GiB memory limit; the budget itself is tested by
/// `reads_past_the_byte_budget_fail_the_lookup` in tests/hostile.rs.
fn limits() -> Limits {
    Limits {
        max_glob_visits: 20_000,
        max_glob_results: 2_000,
        max_read_bytes: 256 << 20,
        ..Limits::default()
    }
}

fuzz_target!(|env: Env| {
    let root = scratch();
    let _ = std::fs::remove_dir_all(root);
    let dir = root.join("production");
    if std::fs::create_dir_all(&dir).is_err() || env.write(&dir).is_err() {
        return;
    }

    let result = check::check(&CheckOptions {
        paths: vec![dir.clone()],
        limits: limits(),
        ..CheckOptions::default()
    });
    for d in &result.diagnostics {
        for l in std::iter::once(&d.primary).chain(&d.secondary) {
            if let Err(m) = check_span(&l.file, l.span, d.rule.name) {
                panic!("{m}");
            }
        }
    }
    let mut out = Vec::new();
    hieralint::render::write_json(&mut out, &result.diagnostics, &result.summary).expect("render");

    for puppet in [PuppetVersion::V7, PuppetVersion::V8] {
        let engine = Engine::on_disk(
            EnvironmentSpec::standalone(&dir, "production"),
            EngineOptions::for_puppet(puppet),
        )
        .with_limits(limits());
        let session = engine.session(Arc::new(scope()));
        for (i, k) in env.keys.iter().enumerate() {
            let merge = match i % 3 {
                0 => None,
                1 => Some(Value::string("deep")),
                _ => Some(Value::string("unique")),
            };
            let out = session.lookup(&LookupRequest::new(k).merge(merge).explain(i % 2 == 0));
            let _ = out.explain_text();
            if let Some(v) = out.value() {
                let _ = v.ruby_inspect();
            }
        }
    }
});

//! The caches an engine shares between sessions (resolved levels, module layers, outcomes by
//! hierarchy fingerprint and by data signature, the quiet and settled pools of
//! `Session::lookup`) are invisible: several nodes, each looking a sequence of keys up in a
//! session of one shared engine, get exactly what each gets from a fresh engine of its own for
//! the same sequence (value or error, warnings in order, provenance). The environment is
//! `check_env`'s generator, with a module `m` beside it (quiet data, data that is not a Hash,
//! or none) so that module layers and their once-per-compile warnings meet the pools; nodes
//! differ in certname, OS family and a fact, and each walks the keys in its own order. Found
//! by hand before this target existed: two sharing bugs (hierarchy fingerprints without level
//! options, and outcomes carrying another session's once-per-compile warnings).
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, LookupRequest, PuppetVersion, Scope, Trusted,
};
use hieralint::limits::Limits;
use hieralint::value::Value;
use hieralint_fuzz::env::Env;
use hieralint_fuzz::outcome::describe;
use libfuzzer_sys::fuzz_target;

/// A per-process scratch directory on tmpfs (`/dev/shm` when present).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        base.join(format!("hieralint-fuzz-shared-{}", std::process::id()))
    })
}

/// Glob walks and reads bounded lower still than `check_env`'s: every input resolves each
/// node's hierarchy in a fresh engine as well as the shared one (a dozen resolutions), and a
/// glob interpolated to `/*/*` walked `/proc` a dozen times at `check_env`'s bound (16 s). The
/// bounds themselves are tested in tests/hostile.rs.
fn limits() -> Limits {
    Limits {
        max_glob_visits: 2_000,
        max_glob_results: 200,
        max_read_bytes: 256 << 20,
        ..Limits::default()
    }
}

fn node(cert: &str, family: &str, a: &str) -> Arc<Scope> {
    let facts: hieralint::value::Hash = [
        (
            "os",
            Value::hash(
                [(Value::string("family"), Value::string(family))]
                    .into_iter()
                    .collect(),
            ),
        ),
        ("a", Value::string(a)),
        ("b", Value::Integer(1)),
    ]
    .into_iter()
    .map(|(k, v)| (Value::string(k), v))
    .collect();
    let trusted = Trusted {
        certname: Some(cert.into()),
        ..Default::default()
    };
    Arc::new(Scope::for_node(&facts, &trusted, None, "production"))
}

fn engine(dir: &Path, puppet: PuppetVersion) -> Engine {
    Engine::on_disk(
        EnvironmentSpec::standalone(dir, "production"),
        EngineOptions::for_puppet(puppet),
    )
    .with_limits(limits())
}

/// The module `m` beside the environment: none, quiet data that reaches back into the
/// environment, or a data file that is not a Hash (a warning when its lookup_options are
/// first assembled).
fn write_module(dir: &Path, kind: u8) -> std::io::Result<()> {
    let data = match kind % 3 {
        0 => return Ok(()),
        1 => "---\nm::k: \"%{lookup('a')}\"\nm::j: [1]\nlookup_options:\n  m::j:\n    merge: unique\n",
        _ => "- not\n- a hash\n",
    };
    let m = dir.join("modules/m");
    std::fs::create_dir_all(m.join("data"))?;
    std::fs::write(
        m.join("hiera.yaml"),
        "---\nversion: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
    )?;
    std::fs::write(m.join("data/common.yaml"), data)
}

fuzz_target!(|input: (Env, u8, u8)| {
    let (env, module, order) = input;
    let root = scratch();
    let _ = std::fs::remove_dir_all(root);
    let dir = root.join("production");
    if std::fs::create_dir_all(&dir).is_err()
        || env.write(&dir).is_err()
        || write_module(&dir, module).is_err()
    {
        return;
    }
    // `HIERALINT_FUZZ_DUMP=1 <target> <artifact>` shows the case.
    if std::env::var_os("HIERALINT_FUZZ_DUMP").is_some() {
        eprintln!("hiera.yaml:\n{}", env.hiera_yaml);
        for f in &env.files {
            eprintln!("{}:\n{}", f.path, String::from_utf8_lossy(&f.bytes));
        }
        eprintln!("keys {:?}, module {module}, order {order}", env.keys);
    }
    let mut keys = env.keys.clone();
    keys.extend(["m::k".to_string(), "m::j".to_string()]);
    let nodes = [
        node("web01", "RedHat", "x"),
        node("a", "RedHat", "x"),
        node("b", "a", "y"),
        node("web01", "RedHat", "x"),
        node("x", "RedHat", "x"),
    ];
    // Each node's order of keys: rotated by an amount of its own, reversed for some.
    let sequence = |i: usize| -> Vec<(String, Option<Value>)> {
        let n = keys.len();
        let shift = (i * (order as usize + 1)) % n;
        let mut seq: Vec<usize> = (0..n).map(|j| (j + shift) % n).collect();
        if (order >> (i % 8)) & 1 == 1 {
            seq.reverse();
        }
        seq.into_iter()
            .map(|j| {
                let merge = match (j + i) % 5 {
                    0 => Some(Value::string("deep")),
                    1 => Some(Value::string("unique")),
                    _ => None,
                };
                (keys[j].clone(), merge)
            })
            .collect()
    };
    let run = |e: &Engine, scope: &Arc<Scope>, seq: &[(String, Option<Value>)]| -> Vec<String> {
        let s = e.session(scope.clone());
        seq.iter()
            .map(|(k, m)| describe(&s.lookup(&LookupRequest::new(k).merge(m.clone()))))
            .collect()
    };
    for puppet in [PuppetVersion::V7, PuppetVersion::V8] {
        let shared = engine(&dir, puppet);
        for (i, scope) in nodes.iter().enumerate() {
            let seq = sequence(i);
            let want = run(&engine(&dir, puppet), scope, &seq);
            let got = run(&shared, scope, &seq);
            for ((w, g), (k, m)) in want.iter().zip(&got).zip(&seq) {
                assert_eq!(
                    g, w,
                    "{puppet:?}, node {i}, key {k:?} (merge {m:?}) through a shared engine"
                );
            }
        }
    }
});

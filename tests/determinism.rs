//! Determinism and safety (issue #6): the same check gives byte-identical output with 1 and with
//! 4 threads and across runs; `check` leaves the checked tree exactly as it was; the crate runs
//! no programs and pulls in no network code.

mod support;

use std::collections::BTreeMap;
use std::hash::{Hash as _, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hieralint::check::{self, CheckOptions};
use hieralint::engine::{
    Engine, EngineOptions, EnvironmentSpec, LookupRequest, LookupResult, Scope, Trusted,
};
use hieralint::value::Value;
use rayon::prelude::*;
use support::TempDir;

/// Everything a check produced, as bytes: the JSON report, then each loaded file's path, role,
/// layer, issues (kind, span, message) and data.
fn rendered_check(paths: &[PathBuf]) -> Vec<u8> {
    let r = check::check(&CheckOptions {
        paths: paths.to_vec(),
        ..CheckOptions::default()
    });
    let mut out = Vec::new();
    hieralint::render::write_json(&mut out, &r.diagnostics, &r.summary).unwrap();
    for f in &r.project.files {
        use std::io::Write;
        writeln!(
            out,
            "{} {:?} {:?} {:?}",
            f.source.path.display(),
            f.role,
            f.layer,
            f.env_root
        )
        .unwrap();
        for i in &f.doc.issues {
            writeln!(out, "  {:?} {:?} {}", i.kind, i.span, i.message).unwrap();
        }
        if let Some(root) = &f.doc.root {
            writeln!(out, "  {}", root.to_value().ruby_inspect()).unwrap();
        }
    }
    out
}

/// Looks every key up for every node, in parallel, and prints the answers in order.
fn rendered_lookups(env: &Path, keys: &[String], nodes: &[Scope]) -> Vec<u8> {
    let engine = Engine::on_disk(
        EnvironmentSpec::standalone(env, "production"),
        EngineOptions::default(),
    );
    let jobs: Vec<(usize, &String)> = (0..nodes.len())
        .flat_map(|n| keys.iter().map(move |k| (n, k)))
        .collect();
    let answers: Vec<String> = jobs
        .par_iter()
        .map(|(n, k)| {
            let o = engine
                .session(Arc::new(nodes[*n].clone()))
                .lookup(&LookupRequest::new(k).explain(true));
            let result = match &o.result {
                LookupResult::Found(v) => format!("found {}", v.ruby_inspect()),
                LookupResult::NotFound => "not found".to_string(),
                LookupResult::Error(e) => format!("error {}", e.message),
            };
            format!(
                "{n} {k}: {result}\n{}\n",
                o.explain_text().unwrap_or_default()
            )
        })
        .collect();
    answers.concat().into_bytes()
}

fn with_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("thread pool")
        .install(f)
}

fn assert_same(what: &str, a: &[u8], b: &[u8]) {
    if a != b {
        let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        let line = a
            .lines()
            .zip(b.lines())
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        panic!(
            "{what}: outputs differ from line {}:\n  {:?}\n  {:?}",
            line + 1,
            a.lines().nth(line),
            b.lines().nth(line)
        );
    }
}

fn node(certname: &str, family: &str, role: &str) -> Scope {
    let facts: hieralint::value::Hash = [
        (
            Value::string("os"),
            Value::hash(
                [(Value::string("family"), Value::string(family))]
                    .into_iter()
                    .collect(),
            ),
        ),
        (Value::string("role"), Value::string(role)),
        (Value::string("site"), Value::string("ams")),
    ]
    .into_iter()
    .collect();
    let trusted = Trusted {
        certname: Some(certname.into()),
        ..Default::default()
    };
    Scope::for_node(&facts, &trusted, None, "production")
}

/// A small deterministic generator (64-bit LCG), so the "random" environment is the same on
/// every run and every machine.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const KEYS: &[&str] = &[
    "profile::base::ntp",
    "profile::base::users",
    "profile::web::port",
    "profile::web::vhosts",
    "profile::db::name",
    "role::name",
    "common::motd",
];

fn gen_value(g: &mut Lcg, depth: u32) -> String {
    match g.below(if depth == 0 { 6 } else { 9 }) {
        0 => format!("{}", g.below(1000)),
        1 => format!("\"v{}\"", g.below(50)),
        2 => format!("\"%{{lookup('{}')}}\"", g.pick(KEYS)),
        3 => "\"%{facts.os.family}-%{trusted.certname}\"".to_string(),
        4 => g
            .pick(&["true", "false", "null", "1.5", "\"on\""])
            .to_string(),
        5 => format!("\"%{{alias('{}')}}\"", g.pick(KEYS)),
        6 | 7 => {
            let n = g.below(4);
            let items: Vec<String> = (0..n).map(|_| gen_value(g, depth - 1)).collect();
            format!("[{}]", items.join(", "))
        }
        _ => {
            let n = g.below(4);
            let items: Vec<String> = (0..n)
                .map(|i| format!("\"k{i}\": {}", gen_value(g, depth - 1)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// An environment of a few hundred files: a five-level hierarchy, nodes, roles, OS families,
/// YAML/JSON/HOCON, a module with its own data, lookup_options with merges, interpolation
/// chains, and a few broken files.
fn generate_environment(dir: &Path, seed: u64) {
    let mut g = Lcg(seed);
    let w = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w(
        "hiera.yaml",
        "---\nversion: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  \
         - name: nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  \
         - name: roles\n    glob: \"roles/%{facts.role}/*.yaml\"\n  \
         - name: json\n    data_hash: json_data\n    path: \"os/%{facts.os.family}.json\"\n  \
         - name: hocon\n    data_hash: hocon_data\n    path: \"sites/%{facts.site}.conf\"\n  \
         - name: common\n    paths: [\"common.yaml\", \"defaults.yaml\"]\n",
    );
    let data_file = |g: &mut Lcg, json: bool| {
        let n = 1 + g.below(6);
        let mut entries: Vec<String> = (0..n)
            .map(|_| format!("\"{}\": {}", g.pick(KEYS), gen_value(g, 3)))
            .collect();
        if g.below(4) == 0 {
            entries.push(
                "\"lookup_options\": {\"profile::base::users\": {\"merge\": \"deep\"}, \
                 \"^profile::web::.*\": {\"merge\": \"unique\"}}"
                    .to_string(),
            );
        }
        if json {
            format!("{{\n{}\n}}\n", entries.join(",\n"))
        } else {
            let mut t = String::from("---\n");
            for e in entries {
                t.push_str(&e);
                t.push('\n');
            }
            t
        }
    };
    for i in 0..120 {
        let t = data_file(&mut g, false);
        w(&format!("data/nodes/web{i:03}.yaml"), &t);
    }
    for role in ["web", "db", "lb"] {
        for i in 0..20 {
            let t = data_file(&mut g, false);
            w(&format!("data/roles/{role}/part{i:02}.yaml"), &t);
        }
    }
    for fam in ["RedHat", "Debian", "Suse"] {
        let t = data_file(&mut g, true);
        w(&format!("data/os/{fam}.json"), &t);
    }
    let t = data_file(&mut g, true);
    w("data/sites/ams.conf", &t);
    let t = data_file(&mut g, false);
    w("data/common.yaml", &t);
    w(
        "data/defaults.yaml",
        "---\ncommon::motd: \"hello %{trusted.certname}\"\n",
    );
    w("data/broken/tab.yaml", "a:\n\t- 1\n");
    w("data/broken/date.yaml", "a: 2024-01-01\n");
    w("data/broken/dup.json", "{\"a\": 1, \"a\": 2}\n");
    w(
        "modules/profile/hiera.yaml",
        "version: 5\nhierarchy:\n  - name: c\n    path: common.yaml\n",
    );
    let t = data_file(&mut g, false);
    w("modules/profile/data/common.yaml", &t);
    w(
        "modules/profile/metadata.json",
        "{\"name\": \"acme-profile\", \"version\": \"1.0.0\"}\n",
    );
}

/// The keys to look up: the generated ones and `lookup_options` itself.
fn lookup_keys() -> Vec<String> {
    KEYS.iter()
        .chain(&["lookup_options"])
        .map(|s| s.to_string())
        .collect()
}

fn nodes() -> Vec<Scope> {
    (0..8)
        .map(|i| {
            node(
                &format!("web{:03}", i * 7),
                ["RedHat", "Debian", "Suse"][i % 3],
                ["web", "db", "lb"][i % 3],
            )
        })
        .collect()
}

#[test]
fn same_output_with_1_and_4_threads_on_the_example_repo() {
    let repo = support::crate_root().join("fixtures/example-control-repo");
    let paths = vec![repo.clone()];
    let one = with_threads(1, || rendered_check(&paths));
    let four = with_threads(4, || rendered_check(&paths));
    assert_same("check, example repo", &one, &four);
    assert_same(
        "check, second run",
        &four,
        &with_threads(4, || rendered_check(&paths)),
    );
    let keys = lookup_keys();
    let one = with_threads(1, || rendered_lookups(&repo, &keys, &nodes()));
    let four = with_threads(4, || rendered_lookups(&repo, &keys, &nodes()));
    assert_same("lookups, example repo", &one, &four);
}

#[test]
fn same_output_with_1_and_4_threads_on_a_generated_environment() {
    let tmp = TempDir::new("determinism");
    generate_environment(&tmp.0, 6);
    let paths = vec![tmp.0.clone()];
    let one = with_threads(1, || rendered_check(&paths));
    let four = with_threads(4, || rendered_check(&paths));
    assert!(one.len() > 10_000, "the generated environment is checked");
    assert_same("check, generated environment", &one, &four);
    let keys = lookup_keys();
    let one = with_threads(1, || rendered_lookups(&tmp.0, &keys, &nodes()));
    let four = with_threads(4, || rendered_lookups(&tmp.0, &keys, &nodes()));
    let text = String::from_utf8_lossy(&one);
    assert!(text.matches(": found ").count() >= 20, "{text}");
    assert_same("lookups, generated environment", &one, &four);
    assert_same(
        "lookups, second run",
        &four,
        &with_threads(4, || rendered_lookups(&tmp.0, &keys, &nodes())),
    );
}

/// Every file under `root` with a hash of its bytes, its permissions and its modification time.
fn tree_digest(root: &Path) -> BTreeMap<PathBuf, u64> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        let meta = e.metadata().unwrap();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        if meta.is_file() {
            std::fs::read(e.path()).unwrap().hash(&mut h);
        }
        meta.permissions().readonly().hash(&mut h);
        meta.modified().ok().hash(&mut h);
        meta.len().hash(&mut h);
        out.insert(e.path().to_path_buf(), h.finish());
    }
    out
}

#[test]
fn check_leaves_the_tree_untouched() {
    let repo = support::crate_root().join("fixtures/example-control-repo");
    let tmp = TempDir::new("untouched");
    generate_environment(&tmp.0, 7);
    for root in [repo, tmp.0.clone()] {
        let before = tree_digest(&root);
        let r = check::check(&CheckOptions {
            paths: vec![root.clone()],
            facts: vec![support::crate_root().join("fixtures/example-control-repo/facts")],
            ..CheckOptions::default()
        });
        assert!(!r.project.files.is_empty());
        let keys = lookup_keys();
        rendered_lookups(&root, &keys, &nodes());
        assert_eq!(before, tree_digest(&root), "{} changed", root.display());
    }
}

/// The Rust sources of the crate (src/), for the grep-based checks.
fn crate_sources() -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(support::crate_root().join("src"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            (e.path().to_path_buf(), text)
        })
        .collect()
}

/// hieralint never runs a program: no `std::process::Command` in the crate (tests and tools
/// may use one to drive the binary or record Puppet).
#[test]
fn no_process_spawning_in_the_crate() {
    let sources = crate_sources();
    assert!(sources.len() > 20, "found the sources");
    for (path, text) in sources {
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for banned in [
                "process::Command",
                "Command::new(",
                "std::net::",
                "TcpStream",
                "UdpSocket",
            ] {
                assert!(
                    !code.contains(banned),
                    "{}:{}: `{banned}` in the crate: hieralint must not run programs or open \
                     sockets",
                    path.display(),
                    i + 1
                );
            }
        }
    }
}

/// No network client or TLS stack in the dependency tree (Cargo.lock lists every package of the
/// build, dev-dependencies included).
#[test]
fn no_network_crates_in_the_dependency_tree() {
    let lock = std::fs::read_to_string(support::crate_root().join("Cargo.lock")).unwrap();
    let packages: Vec<&str> = lock
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .map(|l| l.trim_end_matches('"'))
        .collect();
    assert!(packages.contains(&"hieralint"), "parsed Cargo.lock");
    for banned in [
        "reqwest",
        "hyper",
        "ureq",
        "curl",
        "curl-sys",
        "isahc",
        "surf",
        "attohttpc",
        "h2",
        "h3",
        "quinn",
        "rustls",
        "native-tls",
        "openssl",
        "openssl-sys",
        "tokio",
        "mio",
        "socket2",
        "async-std",
        "trust-dns-resolver",
        "hickory-resolver",
    ] {
        assert!(
            !packages.contains(&banned),
            "`{banned}` is in Cargo.lock: hieralint makes no network access"
        );
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        if e.file_type().is_dir() {
            std::fs::create_dir_all(to.join(rel)).unwrap();
        } else {
            std::fs::copy(e.path(), to.join(rel)).unwrap();
        }
    }
}

/// Runs the built binary in `cwd`; stdout and stderr together.
fn run_bin(cwd: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hieralint"))
        .current_dir(cwd)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("run hieralint");
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    s
}

/// hieralint decrypts eyaml values (rules look keys up through `eyaml_lookup_key` levels), but a
/// decrypted value only ever reaches the output when the user asks for that key's value
/// (`hieralint lookup`, like `puppet lookup`): `check` never prints one, in any output format,
/// even when the secret is interpolated into other keys, has a type other levels disagree with,
/// or sits in a hash that merges.
#[test]
fn check_never_prints_decrypted_eyaml() {
    // The recorded case fixtures/conformance/eyaml/key-files: `pkcs8_key` decrypts to `s3cr3t`
    // (expected-7.jsonl, recorded with puppet lookup).
    const SECRET: &str = "s3cr3t";
    let tmp = TempDir::new("eyaml-secret");
    copy_tree(
        &support::crate_root().join("fixtures/conformance/eyaml/key-files/env"),
        &tmp.0,
    );
    let hiera = std::fs::read_to_string(tmp.0.join("hiera.yaml")).unwrap();
    std::fs::write(
        tmp.0.join("hiera.yaml"),
        format!("{hiera}  - name: common\n    path: common.yaml\n"),
    )
    .unwrap();
    tmp.write(
        "data/common.yaml",
        "---\n\
         wrapped: \"the password is %{lookup('pkcs8_key')}\"\n\
         aliased: \"%{alias('pkcs8_key')}\"\n\
         pkcs8_key: 42\n\
         bad_interpolation: \"%{lookup('pkcs8_key')\"\n",
    );
    // The secret is reachable: the engine decrypts it for these keys.
    let engine = Engine::on_disk(
        EnvironmentSpec::standalone(&tmp.0, "production"),
        EngineOptions::default(),
    );
    let session = engine.session(Arc::new(node("web01", "RedHat", "web")));
    for (key, want) in [
        ("pkcs8_key", SECRET.to_string()),
        ("wrapped", format!("the password is {SECRET}")),
        ("aliased", SECRET.to_string()),
    ] {
        let o = session.lookup(&LookupRequest::new(key));
        assert_eq!(
            o.value(),
            Some(&Value::string(want.as_str())),
            "{key}: {:?}",
            o.result
        );
    }
    let dir = tmp.0.to_str().unwrap();
    for format in hieralint::render::OutputFormat::all() {
        let out = run_bin(&tmp.0, &["check", dir, "--format", format.name()]);
        assert!(!out.is_empty(), "{}: no output", format.name());
        assert!(
            !out.contains(SECRET),
            "check --format {} printed the decrypted value:\n{out}",
            format.name()
        );
    }
    // Asked for: `hieralint lookup` prints the value, as `puppet lookup` does.
    let out = run_bin(&tmp.0, &["lookup", "pkcs8_key"]);
    assert!(out.contains(SECRET), "{out}");
}

/// `--fix` writes only the files it was asked to fix: given one file, that file (its sibling,
/// loaded for context with the same fixable problem, stays as it was); given the environment,
/// its data files, but never a file outside it that a symbolic link inside points to, and never
/// a new file.
#[cfg(unix)]
#[test]
fn fix_writes_only_the_files_asked_for() {
    const FIXABLE: &str = "---\nmotd: Welcome to %{facts.role}\n";
    let tmp = TempDir::new("fix-scope");
    tmp.write(
        "env/hiera.yaml",
        "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n  - name: Other\n    path: other.yaml\n  - name: Linked\n    path: linked.yaml\n",
    );
    let common = tmp.write("env/data/common.yaml", FIXABLE);
    let other = tmp.write("env/data/other.yaml", FIXABLE);
    let outside = tmp.write("outside/secret.yaml", FIXABLE);
    std::os::unix::fs::symlink(&outside, tmp.0.join("env/data/linked.yaml")).unwrap();
    let fixed = |p: &Path| std::fs::read_to_string(p).unwrap() != FIXABLE;
    let fix = |arg: &Path| {
        let out = run_bin(
            &tmp.0,
            &[
                "check",
                "--fix",
                "--format",
                "concise",
                arg.to_str().unwrap(),
            ],
        );
        assert!(!out.contains("panicked"), "{out}");
    };

    let before = tree_digest(&tmp.0);
    fix(&common);
    let after = tree_digest(&tmp.0);
    let changed: Vec<&PathBuf> = after
        .iter()
        // (Directories' times may change when a file is replaced by a rename.)
        .filter(|(p, h)| before.get(*p) != Some(h) && !p.is_dir())
        .map(|(p, _)| p)
        .collect();
    assert_eq!(changed, vec![&common], "one file named, one file written");
    assert_eq!(before.len(), after.len(), "no file created or removed");
    assert!(fixed(&common) && !fixed(&other) && !fixed(&outside));

    fix(&tmp.0.join("env"));
    assert!(fixed(&other), "the environment's files are fixed");
    assert!(
        !fixed(&outside),
        "a file outside, reached by a link, is not written"
    );
    assert_eq!(tree_digest(&tmp.0).len(), before.len());
}

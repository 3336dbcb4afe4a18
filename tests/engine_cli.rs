//! `hieralint lookup` (src/engine/cli.rs): output, exit codes, Puppet's option errors, batch mode.

use std::path::{Path, PathBuf};

use hieralint::engine::cli::{run_to, LookupArgs};

fn env_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/engine/basic")
}

/// Runs with the fixture environment as `<codedir>/environments/production` emulated through
/// the current directory: the CLI treats the current directory as the environment when no
/// codedir is given, so tests point `--codedir` at a generated layout instead.
fn args(keys: &[&str]) -> LookupArgs {
    LookupArgs {
        keys: keys.iter().map(|k| k.to_string()).collect(),
        codedir: Some(codedir()),
        environment: "production".into(),
        facts: Some(env_dir().join("facts.json")),
        puppet: 7,
        ..Default::default()
    }
}

/// `<tmp>/code/environments/production` → the fixture (a symlink), built once.
fn codedir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hieralint-cli-test-{}", std::process::id()));
    let envs = dir.join("environments");
    let link = envs.join("production");
    if !link.exists() {
        std::fs::create_dir_all(&envs).unwrap();
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink(env_dir(), &link);
    }
    dir
}

fn run(a: &LookupArgs) -> (Result<i32, String>, String) {
    let mut out = Vec::new();
    let r = run_to(a, &mut out).map_err(|u| u.0);
    (r, String::from_utf8(out).unwrap())
}

#[test]
fn renders_like_puppet_lookup() {
    let (r, out) = run(&args(&["greeting"]));
    assert_eq!(r, Ok(0));
    assert_eq!(out, "--- hello web\n");
    let mut a = args(&["merged"]);
    a.render_as = Some("json".into());
    let (r, out) = run(&a);
    assert_eq!(r, Ok(0));
    assert_eq!(out, "{\"a\":1,\"list\":[\"common\",\"node\"],\"b\":2}\n");
    let mut a = args(&["merged"]);
    a.render_as = Some("s".into());
    assert_eq!(
        run(&a).1,
        "{\"a\"=>1, \"list\"=>[\"common\", \"node\"], \"b\"=>2}\n"
    );
    let (_, out) = run(&args(&["ntp::servers"]));
    assert_eq!(out, "---\n- 0.pool.ntp.org\n");
}

#[test]
fn not_found_and_defaults() {
    let (r, out) = run(&args(&["nope"]));
    assert_eq!(r, Ok(1));
    assert_eq!(out, "");
    let mut a = args(&["nope"]);
    a.default = Some("fallback".into());
    assert_eq!(run(&a), (Ok(0), "--- fallback\n".to_string()));
    // The first key found wins.
    assert_eq!(
        run(&args(&["nope", "node_only"])),
        (Ok(0), "--- true\n".to_string())
    );
}

#[test]
fn merge_options() {
    let mut a = args(&["merged"]);
    a.merge = Some("hash".into());
    a.render_as = Some("json".into());
    assert_eq!(run(&a).1, "{\"a\":1,\"list\":[\"node\"],\"b\":2}\n");
    let mut a = args(&["merged"]);
    a.merge = Some("bogus".into());
    assert_eq!(
        run(&a).0,
        Err("The --merge option only accepts 'first', 'hash', 'unique', or 'deep'\nRun 'puppet lookup --help' for more details".into())
    );
    let mut a = args(&["merged"]);
    a.sort_merged_arrays = true;
    assert_eq!(
        run(&a).0,
        Err("The options --knock-out-prefix, --sort-merged-arrays, and --merge-hash-arrays are only available with '--merge deep'\nRun 'puppet lookup --help' for more details".into())
    );
    assert_eq!(
        run(&args(&[])).0,
        Err("No keys were given to lookup.".into())
    );
    let mut a = args(&["x"]);
    a.render_as = Some("xml".into());
    assert_eq!(run(&a).0, Err("Unknown rendering format 'xml'".into()));
}

#[test]
fn explain_prints_the_tree_and_exits_0() {
    let mut a = args(&["nope"]);
    a.explain = true;
    let (r, out) = run(&a);
    assert_eq!(r, Ok(0));
    assert!(
        out.starts_with("Searching for \"lookup_options\"\n"),
        "{out}"
    );
    assert!(out.contains("Searching for \"nope\""), "{out}");
}

#[test]
fn batch_mode_prints_one_line_per_key() {
    let mut a = args(&[]);
    a.keys_file = Some(env_dir().join("keys.txt"));
    a.format = Some("jsonl".into());
    let (r, out) = run(&a);
    assert_eq!(r, Ok(1));
    assert_eq!(
        out,
        "{\"key\":\"greeting\",\"value\":\"hello web\"}\n\
         {\"key\":\"merged\",\"value\":{\"a\":1,\"list\":[\"common\",\"node\"],\"b\":2}}\n\
         {\"key\":\"nope\",\"not_found\":true}\n\
         {\"key\":\"mymod::port\",\"value\":8080}\n\
         {\"key\":\"bad..key\",\"error\":\"Syntax error in key: 'bad..key'\"}\n"
    );
}

#[test]
fn facts_file_errors_are_puppets() {
    let dir = std::env::temp_dir().join(format!("hieralint-cli-facts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("list.json");
    std::fs::write(&list, "[1]").unwrap();
    let mut a = args(&["greeting"]);
    a.facts = Some(list.clone());
    assert_eq!(
        run(&a).0,
        Err(format!(
            "Incorrectly formatted data in {} given via the --facts flag (only accepts yaml and json files)",
            list.display()
        ))
    );
    let partial = dir.join("partial.yaml");
    std::fs::write(&partial, "hostname: web01\nrole: web\n").unwrap();
    a.facts = Some(partial.clone());
    assert_eq!(
        run(&a).0,
        Err(format!(
            "When overriding any of the hostname,domain,fqdn,clientcert facts with {} given via the --facts flag, they must all be overridden.",
            partial.display()
        ))
    );
    let yaml = dir.join("facts.yaml");
    std::fs::write(&yaml, "role: db\ntrusted:\n  certname: web01.example.com\n").unwrap();
    a.facts = Some(yaml);
    assert_eq!(run(&a), (Ok(0), "--- hello db\n".to_string()));
}

/// A global hiera.yaml (`--hiera-config`): value and explanation identical to `puppet lookup`
/// (recorded in fixtures/engine/global).
#[test]
fn global_layer_like_puppet_lookup() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/engine/global");
    let base = LookupArgs {
        keys: vec!["shared".into()],
        codedir: Some(root.join("code")),
        environment: "production".into(),
        facts: Some(root.join("facts.json")),
        node: Some("n1".into()),
        hiera_config: Some(root.join("global/hiera.yaml")),
        puppet: 7,
        ..Default::default()
    };
    let mut a = base.clone();
    a.render_as = Some("json".into());
    let want = std::fs::read_to_string(root.join("value-shared.json")).unwrap();
    assert_eq!(run(&a), (Ok(0), want));
    let mut a = base;
    a.explain = true;
    let (r, out) = run(&a);
    assert_eq!(r, Ok(0));
    let want = std::fs::read_to_string(root.join("explain-shared.txt")).unwrap();
    assert_eq!(out.replace(&root.display().to_string(), "<ROOT>"), want);
}

/// The contract: `--puppet 7|8`, default 8. Puppet 8 fails a lookup whose data names an
/// undefined variable; Puppet 7 warns and interpolates `''` (reference §11).
#[test]
fn the_command_models_puppet_8_unless_told_7() {
    let dir = std::env::temp_dir().join(format!("hieralint-cli-default-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("hiera.yaml"), "version: 5\n").unwrap();
    std::fs::write(
        dir.join("data/common.yaml"),
        "a: \"x%{nope}y\"\nb: \"%{nope}\"\n",
    )
    .unwrap();
    let lookup = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hieralint"))
            .arg("lookup")
            .arg("a")
            .args(extra)
            .current_dir(&dir)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = lookup(&[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("Undefined variable 'nope'"), "{stderr}");
    assert_eq!(lookup(&["--puppet", "8"]).0, Some(1));
    let (code, stdout, stderr) = lookup(&["--puppet", "7"]);
    assert_eq!((code, stdout.as_str()), (Some(0), "--- xy\n"));
    // Puppet 7 warns on standard error, as `puppet lookup` does.
    assert_eq!(
        stderr, "Warning: Undefined variable 'nope'; \n   (file & line not available)\n",
        "{stderr}"
    );
    // A batch is one process to Puppet: the variable is warned about once (`warn_once`).
    std::fs::write(dir.join("keys.txt"), "a\nb\na\n").unwrap();
    let (code, stdout, stderr) = lookup(&[
        "--puppet",
        "7",
        "--keys-file",
        "keys.txt",
        "--format",
        "jsonl",
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "{\"key\":\"a\",\"value\":\"xy\"}\n{\"key\":\"b\",\"value\":\"\"}\n{\"key\":\"a\",\"value\":\"xy\"}\n"
    );
    assert_eq!(
        stderr, "Warning: Undefined variable 'nope'; \n   (file & line not available)\n",
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `puppet lookup` 7.23 prints on standard error for a lookup that reads an undefined
/// variable, recorded (`puppet lookup --codedir C --environment production --facts {} k j` on
/// fixtures/one-compile/undefined-variable-once/env, colours and the sandbox's Facter errors
/// left out): `hieralint lookup --puppet 7` prints the same.
#[test]
fn warnings_print_as_puppet_lookup_prints_them() {
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/one-compile/undefined-variable-once");
    let want = std::fs::read_to_string(case.join("puppet-lookup-k-j.stderr")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hieralint"))
        .args(["lookup", "--puppet", "7", "k", "j"])
        .current_dir(case.join("env"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "--- x\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), want);
}

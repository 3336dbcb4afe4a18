//! The pre-commit hook through the real `pre-commit` (PyPI), on a temporary git repository.
//!
//! The hook definition is read from this repository's `.pre-commit-hooks.yaml` (with hieralint's
//! own YAML loader) and used as a `repo: local` hook, with `language: system` and the freshly
//! built binary as the entry, so the test needs no network and no `cargo install`; its `files`
//! regex, `require_serial` and `pass_filenames` are the real ones. Skipped, with a notice, when
//! `pre-commit` or `git` is not installed (`pip install pre-commit`).
//!
//! `hook_builds_with_language_rust` (ignored by default: it compiles hieralint in release mode)
//! runs `pre-commit try-repo` on this repository, which builds the hook with `language: rust`.

mod integration_support;

use std::path::Path;
use std::process::Command;

use hieralint::span::SourceFile;
use integration_support::*;

const BIN: &str = env!("CARGO_BIN_EXE_hieralint");

fn available(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(cwd: &Path, cmd: &str, args: &[&str], home: &Path) -> (i32, String) {
    let out = Command::new(cmd)
        .args(args)
        .current_dir(cwd)
        .env("PRE_COMMIT_HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The `hieralint` hook of `.pre-commit-hooks.yaml`, as (key, scalar text) pairs.
fn hook_definition() -> Vec<(String, String)> {
    let path = crate_root().join(".pre-commit-hooks.yaml");
    let file = SourceFile::new(&path, std::fs::read_to_string(&path).unwrap());
    let doc = hieralint::loader::yaml::load(&file);
    let hooks = doc.root.as_ref().and_then(|r| r.as_seq()).unwrap();
    let hook = hooks
        .iter()
        .filter_map(|h| h.as_map())
        .find(|m| m.get_value("id").and_then(|v| v.as_str()) == Some("hieralint"))
        .unwrap();
    hook.entries
        .iter()
        .filter_map(|e| {
            let k = e.key.as_str()?.to_string();
            let v = e.value.as_scalar()?.text.to_string();
            Some((k, v))
        })
        .collect()
}

#[test]
fn hook_definition_is_complete() {
    let def = hook_definition();
    let get = |k: &str| {
        def.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(get("entry"), "hieralint check");
    assert_eq!(get("language"), "rust");
    assert_eq!(get("require_serial"), "true");
    assert_eq!(get("pass_filenames"), "true");
    assert!(!get("files").is_empty());
}

/// Writes `.pre-commit-config.yaml` with the hook as a local system hook running `BIN`.
fn local_config(repo: &TempDir) {
    let mut hook = String::from("repos:\n  - repo: local\n    hooks:\n      - id: hieralint\n");
    for (k, v) in hook_definition() {
        let v = match k.as_str() {
            "id" | "minimum_pre_commit_version" => continue,
            "language" => "system".to_string(),
            "entry" => v.replacen("hieralint", BIN, 1),
            _ => v,
        };
        if v == "true" || v == "false" {
            hook.push_str(&format!("        {k}: {v}\n"));
        } else {
            // single-quoted YAML scalars: only `'` needs escaping
            hook.push_str(&format!("        {k}: '{}'\n", v.replace('\'', "''")));
        }
    }
    repo.write(".pre-commit-config.yaml", &hook);
}

#[test]
fn hook_fails_on_a_bad_file_and_reports_only_the_files_given() {
    if !available("pre-commit") || !available("git") {
        eprintln!("NOTICE: pre-commit or git not installed (pip install pre-commit); skipping the pre-commit test");
        return;
    }
    let repo = TempDir::new("precommit");
    let home = TempDir::new("precommit-home");
    let git = |args: &[&str]| {
        let (code, out) = run(&repo.0, "git", args, &home.0);
        assert_eq!(code, 0, "git {args:?}: {out}");
    };
    git(&["init", "-q"]);
    git(&["config", "user.email", "t@example.com"]);
    git(&["config", "user.name", "t"]);
    repo.write("hiera.yaml", HIERA);
    repo.write(
        ".hieralint.yaml",
        "rules:\n  unknown-rule-in-suppression: error\n",
    );
    repo.write("data/common.yaml", "ntp::servers: []\n");
    repo.write(
        "data/nodes/web01.yaml",
        "a: 1  # hieralint: ignore[also-unknown]\n",
    );
    // outside the hook's `files`: never passed to hieralint
    repo.write("notes/todo.yaml", "a: 1  # hieralint: ignore[nope]\n");
    local_config(&repo);
    git(&["add", "-A"]);

    let pc = |args: &[&str]| run(&repo.0, "pre-commit", args, &home.0);

    // a good file passes
    let (code, out) = pc(&["run", "hieralint", "--files", "data/common.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Passed"), "{out}");

    // a file outside `files` is not checked at all
    let (code, out) = pc(&["run", "hieralint", "--files", "notes/todo.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no files to check"), "{out}");

    // a bad file fails the hook; only the files passed are reported
    repo.write(
        "data/common.yaml",
        "ntp::servers: []  # hieralint: ignore[nope]\n",
    );
    git(&["add", "-A"]);
    let (code, out) = pc(&["run", "hieralint", "--files", "data/common.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("Failed"), "{out}");
    assert!(
        out.contains("error[H902/unknown-rule-in-suppression]: unknown rule `nope` in suppression"),
        "{out}"
    );
    assert!(out.contains("data/common.yaml:1:39"), "{out}");
    assert!(
        !out.contains("also-unknown"),
        "web01.yaml was not passed: {out}"
    );

    // all files: both data files are reported, the file outside `files` is not
    let (code, out) = pc(&["run", "hieralint", "--all-files"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("also-unknown"), "{out}");
    assert!(!out.contains("notes/todo.yaml"), "{out}");

    // as a git hook, on commit
    let (code, out) = pc(&["install"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = run(&repo.0, "git", &["commit", "-qm", "bad"], &home.0);
    assert_ne!(code, 0, "the commit must be refused: {out}");
    repo.write("data/common.yaml", "ntp::servers: []\n");
    repo.write("data/nodes/web01.yaml", "a: 1\n");
    git(&["add", "-A"]);
    let (code, out) = run(&repo.0, "git", &["commit", "-qm", "good"], &home.0);
    assert_eq!(code, 0, "{out}");
}

#[test]
#[ignore = "builds hieralint with cargo (language: rust) in release mode: minutes"]
fn hook_builds_with_language_rust() {
    if !available("pre-commit") || !available("git") {
        eprintln!("NOTICE: pre-commit or git not installed; skipping");
        return;
    }
    let repo = TempDir::new("precommit-rust");
    let home = TempDir::new("precommit-rust-home");
    let git = |args: &[&str]| {
        let (code, out) = run(&repo.0, "git", args, &home.0);
        assert_eq!(code, 0, "git {args:?}: {out}");
    };
    git(&["init", "-q"]);
    repo.write("hiera.yaml", HIERA);
    repo.write(
        "data/common.yaml",
        "ntp::servers: []  # hieralint: ignore[nope]\n",
    );
    git(&["add", "-A"]);
    let (code, out) = run(
        &repo.0,
        "pre-commit",
        &[
            "try-repo",
            crate_root().to_str().unwrap(),
            "hieralint",
            "--verbose", // a passing hook's output is shown only with --verbose
            "--files",
            "data/common.yaml",
            "hiera.yaml",
        ],
        &home.0,
    );
    // H902 is a warning by default: the hook passes but reports it
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("unknown rule `nope`"), "{out}");
}

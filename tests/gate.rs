//! Gate control and the rest of `hieralint check`'s integration flags: `--fail-on`,
//! `--select`/`--ignore`, `--baseline`/`--write-baseline`, `--output-file`, `--fix`/`--diff`,
//! `--stdin-filename`, and file arguments as the reporting scope with their environment loaded.
//! The binary is used where hieralint's own diagnostics suffice; the test rules (H990, H991) run
//! in process through `gate::run_check_with` and `run::run`.

mod integration_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hieralint::cli::CheckArgs;
use hieralint::gate;
use hieralint::project::{FileRole, Layer};
use hieralint::render::OutputFormat;
use hieralint::run;
use hieralint::settings::FailOn;
use integration_support::*;

const BIN: &str = env!("CARGO_BIN_EXE_hieralint");
const ENV: &str = "fixtures/formats/env";

fn bin(args: &[&str], stdin: Option<&str>) -> (String, String, i32) {
    let mut c = Command::new(BIN);
    c.arg("check")
        .args(args)
        .current_dir(crate_root())
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn codes_of_json(out: &str) -> Vec<String> {
    let j: serde_json::Value = serde_json::from_str(out).unwrap();
    j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn fail_on_sets_the_exit_status() {
    // env: 3 errors (H902), warnings (H901) and an info (H904)
    assert_eq!(bin(&[ENV, "-q"], None).2, 1);
    assert_eq!(bin(&[ENV, "-q", "--fail-on", "never"], None).2, 0);
    // ignoring H902 (not a rule a directive can silence) leaves warnings and an info
    assert_eq!(bin(&["--ignore", "H902", ENV, "-q"], None).2, 0);
    assert_eq!(
        bin(
            &["--ignore", "H902", "--fail-on", "warning", ENV, "-q"],
            None
        )
        .2,
        1
    );
    assert_eq!(
        bin(
            &["--select", "H904", "--fail-on", "warning", ENV, "-q"],
            None
        )
        .2,
        0
    );
    // config errors are exit 2 whatever --fail-on says
    assert_eq!(
        bin(
            &["fixtures/formats/bad-config", "--fail-on", "never", "-q"],
            None
        )
        .2,
        2
    );
}

#[test]
fn select_and_ignore_by_name_or_code() {
    let sel = |args: &[&str]| {
        let mut a = vec!["--format", "json"];
        a.extend_from_slice(args);
        a.push(ENV);
        codes_of_json(&bin(&a, None).0)
    };
    assert_eq!(
        sel(&["--select", "unknown-rule-in-suppression"]),
        ["H902", "H902", "H902"]
    );
    assert_eq!(
        sel(&["--select", "h902,H904"]),
        ["H902", "H902", "H902", "H904"]
    );
    assert_eq!(
        sel(&["--select", "H902", "--select", "misplaced-suppression"]),
        ["H902", "H902", "H902", "H904"]
    );
    assert_eq!(sel(&["--ignore", "H902,unused-suppression"]), ["H904"]);
    assert_eq!(sel(&["--ignore", "H902"]), ["H901", "H904", "H901"]);
    assert_eq!(
        sel(&["--select", "H902,H904", "--ignore", "H902"]),
        ["H904"]
    );
    let (_, err, code) = bin(&["--select", "unused-supression", ENV], None);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "hieralint: --select: unknown rule `unused-supression` (did you mean `unused-suppression`?); `hieralint rules` lists them\n"
    );
}

#[test]
fn output_file_keeps_human_output_on_the_terminal() {
    let t = TempDir::new("outfile");
    let f = t.0.join("r.json");
    let (out, _, code) = bin(
        &[
            "--format",
            "json",
            "--output-file",
            f.to_str().unwrap(),
            "--color",
            "never",
            ENV,
        ],
        None,
    );
    assert_eq!(code, 1);
    assert!(out.contains("error[H902/unknown-rule-in-suppression]"));
    assert!(out.ends_with("(3 files checked), 1 note\n"));
    let codes = codes_of_json(&std::fs::read_to_string(&f).unwrap());
    assert_eq!(codes.len(), 6);
}

/// A temporary environment with the given data file.
fn env_with(tag: &str, common: &str) -> TempDir {
    let t = TempDir::new(tag);
    t.write("hiera.yaml", HIERA);
    t.write("data/common.yaml", common);
    t
}

fn args(paths: &[&Path]) -> CheckArgs {
    CheckArgs {
        paths: paths.iter().map(|p| p.to_path_buf()).collect(),
        quiet: true,
        ..CheckArgs::default()
    }
}

fn test_rules() -> Vec<&'static dyn hieralint::rules::Rule> {
    vec![&BAD_VALUE, &PLAIN_GOOD]
}

#[test]
fn baseline_silences_recorded_findings_across_line_shifts() {
    at_root();
    let t = env_with("baseline", "a: BAD\nb: [BAD, ok]\nc: ok\n");
    let base = t.0.join("baseline.json");
    let report = t.0.join("report.json");

    let mut a = args(&[&t.0]);
    a.select = vec!["H990".into()];
    a.write_baseline = Some(base.clone());
    a.format = Some(OutputFormat::Json);
    a.output_file = Some(report.clone());
    // writing a baseline silences what it records
    assert_eq!(gate::run_check_with(&a, test_rules()).unwrap(), 0);
    let j: serde_json::Value = serde_json::from_str(&t.read("baseline.json")).unwrap();
    assert_eq!(j["version"], 1);
    let findings = j["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2);
    assert_eq!(findings[0]["code"], "H990");
    assert_eq!(findings[0]["rule"], "test-bad-value");
    let r: serde_json::Value = serde_json::from_str(&t.read("report.json")).unwrap();
    assert_eq!(r["summary"]["suppressed"], 2);

    // lines move, a new finding appears: only the new one is reported
    t.write(
        "data/common.yaml",
        "# moved\n\na: BAD\nb: [BAD, ok]\nc: ok\nd: BAD\n",
    );
    a.write_baseline = None;
    a.baseline = Some(base.clone());
    assert_eq!(
        gate::run_check_with(&a, test_rules()).unwrap(),
        0,
        "warnings only"
    );
    let r: serde_json::Value = serde_json::from_str(&t.read("report.json")).unwrap();
    let d = r["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["line"], 6);
    assert_eq!(r["summary"]["suppressed"], 2);

    // --show-suppressed lists the baselined ones too
    a.show_suppressed = true;
    gate::run_check_with(&a, test_rules()).unwrap();
    let r: serde_json::Value = serde_json::from_str(&t.read("report.json")).unwrap();
    let d = r["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 3);
    assert_eq!(d[0]["suppressed"], "suppressed by the baseline");

    // a bad baseline file is a usage error
    t.write("bad.json", "{}");
    a.baseline = Some(t.0.join("bad.json"));
    let e = gate::run_check_with(&a, test_rules()).unwrap_err();
    assert!(e.contains("is not a hieralint baseline"), "{e}");
}

#[test]
fn config_format_and_fail_on_yield_to_flags() {
    at_root();
    let t = env_with("cfg-gate", "a: BAD\n");
    t.write(".hieralint.yaml", "format: json\nfail-on: warning\n");
    let report = t.0.join("r.out");
    let mut a = args(&[&t.0]);
    a.output_file = Some(report.clone());
    assert_eq!(gate::run_check_with(&a, test_rules()).unwrap(), 1);
    assert_eq!(codes_of_json(&t.read("r.out")), ["H990"]);
    a.fail_on = Some(FailOn::Never);
    a.format = Some(OutputFormat::Checkstyle);
    assert_eq!(gate::run_check_with(&a, test_rules()).unwrap(), 0);
    assert!(t.read("r.out").starts_with("<?xml"));
    // --config replaces the file found
    t.write("other.yaml", "rules:\n  test-bad-value: off\n");
    a.config = Some(t.0.join("other.yaml"));
    a.format = None;
    a.fail_on = None;
    assert_eq!(gate::run_check_with(&a, test_rules()).unwrap(), 0);
    assert_eq!(t.read("r.out"), "", "full format, quiet, nothing found");
}

#[test]
fn fix_applies_rechecks_and_repeats() {
    at_root();
    let original = "a: BAD\nb: [BAD, ok]  # keep me\nc: \"x\"\n";
    let t = env_with("fix", original);
    let mut o = run::RunOptions::new(vec![t.0.clone()]);
    o.registry = test_rules();
    let out = run::run_with_fixes(&o);
    // round 1: BAD -> "BAD" (2), "x" -> 'x' (1); round 2: the two new "BAD" -> 'BAD'
    assert_eq!(out.applied, 5);
    assert!(out.refused.is_empty());
    assert_eq!(out.changed.len(), 1);
    let fixed = "a: 'BAD'\nb: ['BAD', ok]  # keep me\nc: 'x'\n";
    assert_eq!(out.changed[0].fixed, fixed);
    assert!(out.result.diagnostics.is_empty());
    // what Puppet reads is unchanged
    let p = t.0.join("data/common.yaml");
    assert!(hieralint::fix::preserves_data(&p, original, fixed));
    let data = |text: &str| {
        hieralint::loader::yaml::load(&hieralint::span::SourceFile::new(&p, text)).puppet_data()
    };
    assert_eq!(data(original), data(fixed));

    let diff = hieralint::fix::unified_diff(&out.changed[0]);
    let name = hieralint::paths::slashed(&p);
    // an absolute path keeps its own `/` after git's `a`/`b` prefix
    assert!(name.starts_with('/'));
    assert!(
        diff.starts_with(&format!("--- a{name}\n+++ b{name}\n@@ -1,3 +1,3 @@\n")),
        "{diff}"
    );
    assert!(
        diff.contains("-a: BAD\n-b: [BAD, ok]  # keep me\n-c: \"x\"\n+a: 'BAD'\n"),
        "{diff}"
    );
    // nothing was written
    assert_eq!(t.read("data/common.yaml"), original);

    // --diff: exit 1 when there are fixes, files untouched
    let mut a = args(&[&t.0]);
    a.diff = true;
    assert_eq!(gate::run_check_with(&a, test_rules()).unwrap(), 1);
    assert_eq!(t.read("data/common.yaml"), original);
    // --fix writes, then reports what is left (nothing)
    let mut a = args(&[&t.0]);
    a.fix = true;
    a.fail_on = Some(FailOn::Warning);
    assert_eq!(gate::run_check_with(&a, test_rules()).unwrap(), 0);
    assert_eq!(t.read("data/common.yaml"), fixed);
    a.diff = true;
    a.fix = false;
    assert_eq!(
        gate::run_check_with(&a, test_rules()).unwrap(),
        0,
        "nothing left to fix"
    );
}

#[test]
fn fixes_that_change_the_data_are_refused() {
    at_root();
    let original = "a: on\nb: BAD\n";
    let t = env_with("fix-wrong", original);
    let mut o = run::RunOptions::new(vec![t.0.clone()]);
    o.registry = vec![&WRONG_FIX, &BAD_VALUE];
    let out = run::run_with_fixes(&o);
    assert_eq!(out.refused.len(), 1);
    assert_eq!(out.refused[0].fix.title, "quote `on`");
    // the good fix in the same file still applies
    assert_eq!(out.changed[0].fixed, "a: on\nb: \"BAD\"\n");
    let codes: Vec<&str> = out.result.diagnostics.iter().map(|d| d.rule.code).collect();
    assert_eq!(codes, ["H992"], "the refused finding is still reported");
}

#[test]
fn suppressed_findings_are_not_fixed() {
    at_root();
    let t = env_with(
        "fix-sup",
        "a: BAD  # hieralint: ignore[test-bad-value]\nb: BAD\n",
    );
    let mut o = run::RunOptions::new(vec![t.0.clone()]);
    o.registry = vec![&BAD_VALUE];
    let out = run::run_with_fixes(&o);
    assert_eq!(out.applied, 1);
    assert_eq!(
        out.changed[0].fixed,
        "a: BAD  # hieralint: ignore[test-bad-value]\nb: \"BAD\"\n"
    );
}

#[test]
fn file_arguments_are_the_scope_with_their_environment_loaded() {
    // a data file of an environment: the environment is loaded, only the file is reported
    let r = run_paths(&["fixtures/formats/env/data/common.yaml"]);
    let paths: Vec<String> = r
        .project
        .files
        .iter()
        .map(|f| f.source.path.display().to_string())
        .collect();
    assert_eq!(paths.len(), 3, "{paths:?}");
    assert!(paths.contains(&"fixtures/formats/env/data/common.yaml".to_string()));
    let f = r
        .project
        .files
        .iter()
        .find(|f| f.source.path == Path::new("fixtures/formats/env/data/common.yaml"))
        .unwrap();
    assert_eq!(f.role, FileRole::Data);
    assert_eq!(
        r.files,
        vec![PathBuf::from("fixtures/formats/env/data/common.yaml")]
    );
    assert_eq!(r.summary.files_checked, 1);
    assert!(r
        .diagnostics
        .iter()
        .all(|d| d.primary.file.path == Path::new("fixtures/formats/env/data/common.yaml")));
    assert_eq!(r.diagnostics.len(), 5);

    // a module's data file inside an environment: loaded with the environment, as module data
    let m = "fixtures/example-control-repo/modules/ntp/data/common.yaml";
    let r = run_paths(&[m]);
    let f = r
        .project
        .files
        .iter()
        .find(|f| f.source.path == Path::new(m))
        .unwrap();
    assert_eq!(f.role, FileRole::Data);
    assert_eq!(f.layer, Layer::Module("ntp".into()));
    assert!(r
        .project
        .files
        .iter()
        .any(|f| f.layer == Layer::Environment && f.source.path.ends_with("data/common.yaml")));
    assert_eq!(r.files, vec![PathBuf::from(m)]);

    // two files of one environment load it once
    let r = run_paths(&[
        "fixtures/formats/env/data/common.yaml",
        "fixtures/formats/env/data/nodes/web,01.yaml",
    ]);
    assert_eq!(r.project.files.len(), 3);
    assert_eq!(r.summary.files_checked, 2);
    assert_eq!(r.diagnostics.len(), 6);
}

#[test]
fn stdin_buffer_replaces_the_file_in_its_project() {
    // the buffer's own directive problems are reported, not the file on disk's, nor other files'
    let (out, _, code) = bin(
        &[
            "--format",
            "json",
            "--stdin-filename",
            "fixtures/formats/env/data/common.yaml",
        ],
        Some("a: 1\nb: 2  # hieralint: ignore[nope]\n"),
    );
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = j["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["file"], "fixtures/formats/env/data/common.yaml");
    assert_eq!(
        (d[0]["line"].as_u64(), d[0]["column"].as_u64()),
        (Some(2), Some(27))
    );
    assert_eq!(j["summary"]["files_checked"], 1);

    // an unsaved new file in a datadir is data of its environment
    at_root();
    let mut o = run::RunOptions::new(vec![]);
    o.registry = vec![&BAD_VALUE];
    o.stdin = Some((
        PathBuf::from("fixtures/formats/env/data/new.yaml"),
        "x: BAD\n".into(),
    ));
    let r = run::run(&o);
    assert_eq!(
        all_at(&r.diagnostics),
        ["fixtures/formats/env/data/new.yaml:1:4-1:7 H990"]
    );
    let f = r
        .project
        .files
        .iter()
        .find(|f| f.source.path.ends_with("new.yaml"))
        .unwrap();
    assert_eq!(f.role, FileRole::Data);
    assert_eq!(
        r.project.files.len(),
        4,
        "the environment is loaded around it"
    );

    // --fix on standard input prints the fixed buffer
    let t = env_with("stdin-fix", "a: ok\n");
    let p = t.0.join("data/common.yaml");
    let mut o = run::RunOptions::new(vec![]);
    o.registry = vec![&BAD_VALUE];
    o.stdin = Some((p.clone(), "a: BAD\n".into()));
    let out = run::run_with_fixes(&o);
    assert_eq!(out.changed.len(), 1);
    assert_eq!(out.changed[0].fixed, "a: \"BAD\"\n");
    assert_eq!(
        t.read("data/common.yaml"),
        "a: ok\n",
        "the file on disk is not touched"
    );
}

/// Cross-file findings on a file argument, however the argument is spelt: pre-commit passes
/// `data/common.yaml` from the repository root, where the environment is `.` and the scan
/// reaches the file as `./data/common.yaml`. Renaming the loaded file to the argument hid the
/// interpolation loop and the lookup of a missing key (the engine's hierarchy paths name the
/// loaded spelling), so the hook passed on a repository with an interpolation loop.
#[test]
fn file_arguments_keep_cross_file_findings_whatever_their_spelling() {
    let repo = crate_root().join("fixtures/example-control-repo");
    let run_in = |cwd: &std::path::Path, args: &[&str], stdin: Option<&str>| {
        let mut c = Command::new(BIN);
        c.arg("check")
            .args(["--format", "concise"])
            .args(args)
            .current_dir(cwd)
            .env_remove("GITHUB_ACTIONS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    let absolute = repo.join("data/common.yaml");
    let absolute = absolute.to_str().unwrap();
    let parent = repo.parent().unwrap();
    let from_parent = "example-control-repo/data/common.yaml";
    let dotted_from_parent = "./example-control-repo/data/common.yaml";
    for (cwd, arg) in [
        (repo.as_path(), "data/common.yaml"),
        (repo.as_path(), "./data/common.yaml"),
        (repo.as_path(), absolute),
        (parent, from_parent),
        (parent, dotted_from_parent),
    ] {
        let out = run_in(cwd, &[arg], None);
        // shown as typed, with the cross-file findings
        assert!(
            out.contains(&format!("{arg}:28:29: error[H205/interpolation-loop]")),
            "{arg}: {out}"
        );
        assert!(
            out.contains(&format!(
                "{arg}:34:27: warning[H204/interpolated-key-not-found]"
            )),
            "{arg}: {out}"
        );
    }
    let text = std::fs::read_to_string(absolute).unwrap();
    let out = run_in(
        &repo,
        &["--stdin-filename", "data/common.yaml"],
        Some(&text),
    );
    assert!(
        out.contains("data/common.yaml:28:29: error[H205/interpolation-loop]"),
        "{out}"
    );
    // the file's place still comes from the scan: a node file the hierarchy never reads
    let out = run_in(&repo, &["data/nodes/db01.example.com.yml"], None);
    assert!(
        out.contains("data/nodes/db01.example.com.yml:1:1: warning[H103/unreachable-data-file]"),
        "{out}"
    );
}

/// The contract: exit 2 when hieralint itself cannot do its job, an unreadable root included.
/// A root that exists but cannot be listed (or opened) was a finding (H008) and exit 1.
/// Permissions mean nothing to root, so as root the check runs as `nobody` (`setpriv`); the
/// test says so and passes over the case where neither is possible.
#[test]
fn an_unreadable_root_exits_2() {
    let dir = std::env::temp_dir().join(format!("hieralint-unreadable-{}", std::process::id()));
    let env = dir.join("env");
    std::fs::create_dir_all(env.join("data")).unwrap();
    std::fs::write(env.join("hiera.yaml"), "version: 5\n").unwrap();
    std::fs::write(env.join("data/common.yaml"), "a: 1\n").unwrap();
    std::fs::write(dir.join("f.yaml"), "a: 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    for p in [&dir, &env] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let setpriv = std::path::Path::new("/usr/bin/setpriv").exists();
    if as_root && !setpriv {
        eprintln!("skipped: running as root without setpriv, permissions cannot be denied");
        return;
    }
    let check = |root: &std::path::Path| {
        let mut c = if as_root {
            let mut c = Command::new("/usr/bin/setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
            c
        } else {
            Command::new(BIN)
        };
        let out = c
            .args(["check", "--format", "concise"])
            .arg(root)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // readable: checked (exit 0)
    assert_eq!(check(&env).0, Some(0));
    std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(dir.join("f.yaml"), std::fs::Permissions::from_mode(0o000)).unwrap();
    for root in [env.clone(), dir.join("f.yaml")] {
        let (code, stdout, stderr) = check(&root);
        assert_eq!(code, Some(2), "{}: {stdout}{stderr}", root.display());
        assert!(stderr.contains("cannot read"), "{stderr}");
        assert!(stderr.contains("Permission denied"), "{stderr}");
    }
    std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

//! `hieralint check` output when stderr is not a terminal: no progress bar bytes at all, even
//! when the bar's delay is zero; and the report does not depend on the number of threads.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_hieralint");

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/example-control-repo");
const FACTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/example-control-repo/facts"
);

fn check(envs: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("check")
        .arg(REPO)
        .args(["--format", "concise", "--color", "never"])
        .args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().expect("hieralint runs")
}

#[test]
fn piped_stderr_holds_no_progress_bytes() {
    // Delay 0: a bar would be drawn at once if stderr were taken for a terminal.
    let out = check(&[("HIERALINT_PROGRESS_DELAY_MS", "0")], &["--facts", FACTS]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains('\r'), "carriage return in {stderr:?}");
    assert!(!stderr.contains('\x1b'), "escape sequence in {stderr:?}");
    assert!(!stderr.contains("loading"), "{stderr:?}");
    assert!(!stderr.contains("checking"), "{stderr:?}");
    // The same bytes as a run with the default delay.
    let plain = check(&[], &["--facts", FACTS]);
    assert_eq!(out.stdout, plain.stdout);
    assert_eq!(out.stderr, plain.stderr);
    assert!(!out.stdout.is_empty(), "the fixture has findings");
}

#[test]
fn report_is_the_same_for_any_thread_count() {
    for args in [&["--facts", FACTS][..], &[][..]] {
        let one = check(&[("RAYON_NUM_THREADS", "1")], args);
        let four = check(&[("RAYON_NUM_THREADS", "4")], args);
        assert_eq!(one.stdout, four.stdout, "args {args:?}");
        assert_eq!(one.status.code(), four.status.code());
    }
}

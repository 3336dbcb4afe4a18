//! The editor case: `check::recheck_file` re-reads one changed file of a loaded project and
//! reports what the rules now find, without a new scan.

use std::path::{Path, PathBuf};

use hieralint::check::{self, CheckOptions};

/// A fresh environment under the system temp directory (removed on drop).
struct TempEnv(PathBuf);

impl TempEnv {
    fn new(name: &str) -> TempEnv {
        let dir =
            std::env::temp_dir().join(format!("hieralint-recheck-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("hiera.yaml"), GOOD_CONFIG).unwrap();
        std::fs::write(dir.join("data/common.yaml"), "---\nprofile::a: 1\n").unwrap();
        TempEnv(dir)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for TempEnv {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const GOOD_CONFIG: &str = "---\nversion: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n";
/// `paht` is not a level key: Puppet rejects the whole configuration (H101).
const BAD_CONFIG: &str = "---\nversion: 5\nhierarchy:\n  - name: common\n    paht: common.yaml\n";

fn opts(root: &Path) -> CheckOptions {
    CheckOptions {
        paths: vec![root.to_path_buf()],
        ..CheckOptions::default()
    }
}

/// The path of the project's file whose name ends in `suffix`, as the project names it.
fn loaded_path(project: &hieralint::project::Project, suffix: &str) -> PathBuf {
    project
        .files
        .iter()
        .find(|f| f.source.path.ends_with(suffix))
        .map(|f| f.source.path.clone())
        .unwrap()
}

/// (code, file name, line, column) of each diagnostic.
fn positions(ds: &[hieralint::diag::Diagnostic]) -> Vec<(&'static str, String, usize, usize)> {
    ds.iter()
        .map(|d| {
            let lc = d.primary.file.line_col(d.primary.span.start as usize);
            let name = d
                .primary
                .file
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (d.rule.code, name, lc.line, lc.column)
        })
        .collect()
}

#[test]
fn a_changed_file_is_reloaded_and_checked_again() {
    let env = TempEnv::new("changed");
    let o = opts(&env.0);
    let mut result = check::check(&o);
    assert!(
        result.diagnostics.is_empty(),
        "{:?}",
        positions(&result.diagnostics)
    );
    let cfg = loaded_path(&result.project, "hiera.yaml");

    std::fs::write(env.path("hiera.yaml"), BAD_CONFIG).unwrap();
    let ds = check::recheck_file(&mut result.project, &cfg, &o).unwrap();
    assert_eq!(
        positions(&ds),
        vec![("H101", "hiera.yaml".to_string(), 5, 5)],
        "the misspelt key, line 5 column 5"
    );
    // the project now holds the new text
    let file = result
        .project
        .files
        .iter()
        .find(|f| f.source.path == cfg)
        .unwrap();
    assert!(file.source.text.contains("paht"));

    std::fs::write(env.path("hiera.yaml"), GOOD_CONFIG).unwrap();
    let ds = check::recheck_file(&mut result.project, &cfg, &o).unwrap();
    assert!(ds.is_empty(), "{:?}", positions(&ds));
}

#[test]
fn a_file_the_project_does_not_hold_needs_a_new_scan() {
    let env = TempEnv::new("unknown");
    let o = opts(&env.0);
    let mut result = check::check(&o);
    let before = result.project.files.len();
    let ds = check::recheck_file(&mut result.project, &env.path("data/other.yaml"), &o);
    assert!(ds.is_none());
    assert_eq!(result.project.files.len(), before);
}

#[test]
fn a_deleted_file_is_reported_and_dropped_from_the_project() {
    let env = TempEnv::new("deleted");
    let o = opts(&env.0);
    let mut result = check::check(&o);
    let common = loaded_path(&result.project, "common.yaml");
    let before = result.project.files.len();
    std::fs::remove_file(&common).unwrap();
    let ds = check::recheck_file(&mut result.project, &common, &o).unwrap();
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0].rule.name, "unreadable-file");
    assert!(
        ds[0].message.starts_with("cannot read"),
        "{}",
        ds[0].message
    );
    assert_eq!(result.project.files.len(), before - 1);
    assert!(check::recheck_file(&mut result.project, &common, &o).is_none());
}

/// The project-wide rules see the reloaded file too: a key the engine looks up, missing before
/// the edit and defined by it, is no longer reported (the analysis built from the old text, and
/// what rules kept of the files, are forgotten).
#[test]
fn project_rules_see_the_reloaded_file() {
    let env = TempEnv::new("project-rules");
    let common = env.path("data/common.yaml");
    std::fs::write(
        &common,
        "---\nprofile::a: \"%{lookup('profile::missing')}\"\n",
    )
    .unwrap();
    let o = opts(&env.0);
    let mut result = check::check(&o);
    let codes = |ds: &[hieralint::diag::Diagnostic]| -> Vec<&'static str> {
        ds.iter().map(|d| d.rule.name).collect()
    };
    assert!(
        codes(&result.diagnostics).contains(&"interpolated-key-not-found"),
        "{:?}",
        positions(&result.diagnostics)
    );
    let path = loaded_path(&result.project, "common.yaml");
    // The missing key is now defined.
    std::fs::write(
        &common,
        "---\nprofile::a: \"%{lookup('profile::missing')}\"\nprofile::missing: here\n",
    )
    .unwrap();
    let ds = check::recheck_file(&mut result.project, &path, &o).unwrap();
    assert!(
        !codes(&ds).contains(&"interpolated-key-not-found"),
        "{:?}",
        positions(&ds)
    );
}

//! The language server's edit loop: one edit in a 1,500-file environment, then the re-check of
//! that environment (every rule, the changed file re-parsed, the others held in memory) and the
//! diagnostics to publish. Target: under 30 ms.
//!
//! Before criterion runs, a memory run prints the server's resident set size before and after
//! 10,000 edits (each re-checked, with a hover every 500 edits), read from /proc/self/status.
//!
//! `cargo bench --bench lsp` (`HIERALINT_BENCH_NO_MEMORY=1` skips the memory run). Numbers are
//! printed, never asserted.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{black_box, Criterion};
use lsp_types::{Position, Range, TextDocumentContentChangeEvent, Uri};

use hieralint::server::settings::InitOptions;
use hieralint::server::text::Encoding;
use hieralint::server::workspace::{Workspace, WorkspaceOptions};
use hieralint::server::{features, uri};

/// Writes an environment of `files` data files: nodes, roles and OS families under a
/// four-level hierarchy, every file with interpolations (facts, trusted data, lookups of common
/// keys).
fn generate(dir: &Path, files: usize) {
    let _ = std::fs::remove_dir_all(dir);
    for sub in ["data/nodes", "data/roles", "data/os"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(
        dir.join("hiera.yaml"),
        "---\nversion: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  \
         - name: nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  \
         - name: roles\n    path: \"roles/%{facts.role}.yaml\"\n  \
         - name: os\n    path: \"os/%{facts.os.family}.yaml\"\n  \
         - name: common\n    path: common.yaml\n",
    )
    .unwrap();
    let mut common =
        String::from("---\nlookup_options:\n  profile::base::packages:\n    merge: unique\n");
    for k in 0..50 {
        let _ = writeln!(common, "common::key_{k}: value {k} on %{{facts.os.family}}");
    }
    std::fs::write(dir.join("data/common.yaml"), common).unwrap();
    let roles = 40;
    let oses = ["Debian", "RedHat", "Suse", "Archlinux", "Gentoo"];
    for os in oses {
        std::fs::write(
            dir.join(format!("data/os/{os}.yaml")),
            format!("---\nprofile::base::packages:\n  - {os}-tools\ncommon::key_1: \"%{{lookup('common::key_2')}} for {os}\"\n"),
        )
        .unwrap();
    }
    for r in 0..roles {
        std::fs::write(
            dir.join(format!("data/roles/role{r}.yaml")),
            format!(
                "---\nprofile::role::name: role{r}\nprofile::base::packages:\n  - role{r}-pkg\n\
                 profile::role::motd: \"%{{lookup('common::key_{}')}} (%{{trusted.certname}})\"\n",
                r % 50
            ),
        )
        .unwrap();
    }
    let nodes = files.saturating_sub(1 + roles + oses.len());
    for n in 0..nodes {
        let mut t = String::from("---\n");
        for k in 0..10 {
            let _ = writeln!(
                t,
                "profile::node{n}::setting_{k}: \"%{{lookup('common::key_{}')}}/%{{facts.networking.hostname}}/{k}\"",
                (n + k) % 50
            );
        }
        let _ = writeln!(
            t,
            "profile::base::users:\n  user{n}:\n    uid: {}",
            1000 + n
        );
        std::fs::write(dir.join(format!("data/nodes/node{n}.example.com.yaml")), t).unwrap();
    }
}

fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Session {
    ws: Workspace,
    path: PathBuf,
    version: i32,
}

impl Session {
    fn open(env: &Path, file: &str) -> Session {
        let mut ws = Workspace::new(WorkspaceOptions {
            rules: hieralint::rules::registry().to_vec(),
            init: InitOptions::default(),
            encoding: Encoding::Utf16,
            roots: vec![env.to_path_buf()],
        });
        let path = env.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let u: Uri = uri::from_path(&path);
        ws.open(&path, u, text, 1);
        ws.check();
        Session {
            ws,
            path,
            version: 1,
        }
    }

    /// Types one character into the first value (alternately adding and removing it, so the
    /// text stays the same size), then re-checks: what the server does per keystroke.
    fn edit_and_check(&mut self) -> usize {
        self.version += 1;
        let at = Position::new(1, 40);
        let change = if self.version % 2 == 0 {
            TextDocumentContentChangeEvent {
                range: Some(Range::new(at, at)),
                range_length: None,
                text: "x".into(),
            }
        } else {
            TextDocumentContentChangeEvent {
                range: Some(Range::new(at, Position::new(1, 41))),
                range_length: None,
                text: String::new(),
            }
        };
        self.ws.change(&self.path, self.version, vec![change]);
        self.ws.check().len()
    }
}

fn memory_run(tmp: &Path) {
    let env = tmp.join("lsp-memory/production");
    generate(&env, 1500);
    let mut s = Session::open(&env, "data/nodes/node7.example.com.yaml");
    for _ in 0..200 {
        s.edit_and_check();
    }
    let before = rss_kib();
    let start = Instant::now();
    let edits = 10_000;
    let mut checkpoints = Vec::new();
    for i in 1..=edits {
        s.edit_and_check();
        if i % 500 == 0 {
            black_box(features::hover(&s.ws, &s.path, Position::new(1, 3)));
        }
        if i % 2_000 == 0 {
            checkpoints.push(format!("{}: {}", i, rss_kib().unwrap_or(0)));
        }
    }
    let elapsed = start.elapsed();
    println!(
        "memory: RSS {} KiB after warm-up; after n more edits (each re-checked, a hover every 500), KiB: {}; {:.2} ms per edit on average",
        before.map_or("?".into(), |v| v.to_string()),
        checkpoints.join(", "),
        elapsed.as_secs_f64() * 1000.0 / edits as f64
    );
}

fn main() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    if std::env::var_os("HIERALINT_BENCH_NO_MEMORY").is_none() {
        memory_run(&tmp);
    }
    let env = tmp.join("lsp-bench/production");
    generate(&env, 1500);
    let t = Instant::now();
    let mut s = Session::open(&env, "data/nodes/node7.example.com.yaml");
    println!(
        "open: first load and check of the 1,500-file environment: {:.1} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    let t = Instant::now();
    let h = features::hover(&s.ws, &s.path, Position::new(1, 3));
    println!(
        "hover after an edit (builds the engine and the data-implied nodes): {:.1} ms ({})",
        t.elapsed().as_secs_f64() * 1000.0,
        if h.is_some() { "answered" } else { "nothing" }
    );
    let mut c = Criterion::default().configure_from_args();
    c.bench_function("lsp: edit + re-check, 1,500-file environment", |b| {
        b.iter(|| black_box(s.edit_and_check()))
    });
    c.final_summary();
}

//! The language server's edit loop in a generated 1,500-file environment (target: a one-file
//! re-check in under 30 ms, memory bounded over 10,000 edits).
//!
//! 1. criterion, in process: one edit, then what the server does on its thread before it
//!    publishes (`Workspace::check_files`: the edited file re-parsed and its per-file phases,
//!    the other files' findings and the latest cross-file findings held in memory, then
//!    suppressions and levels, and the publications); the snapshot a project-phase run takes
//!    is timed once beside it.
//! 2. the real binary over stdio (`hieralint server`): for each edit (`didChange`), the time
//!    until the `publishDiagnostics` of that version arrives, while the project phases keep
//!    running in the background; then 10,000 more edits, each awaited, with the server's
//!    resident set size (`VmRSS` of /proc/<pid>/status) read every 2,000; then how long a
//!    cross-file finding takes to arrive.
//!
//! `cargo bench --bench lsp`; `HIERALINT_BENCH_PROFILE=1` instead prints where a full check's
//! time goes (analysis, lookups, each rule's project phase); `HIERALINT_BENCH_EDITS=n` changes
//! the 10,000. Numbers are printed, never asserted.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{black_box, Criterion};
use lsp_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use serde_json::{json, Value};

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
    /// text stays the same size), then re-checks as the server does before it publishes.
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
        self.ws.check_files().len()
    }
}

/// The real server, over stdio.
struct Server {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    rx: mpsc::Receiver<Value>,
}

/// One message from the server, framed by lsp-server (the crate the server itself uses; the
/// test suite, tests/lsp.rs, reads the framing independently).
fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let m = lsp_server::Message::read(r).ok()??;
    serde_json::to_value(m).ok()
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hieralint"))
            .arg("server")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(m) = read_message(&mut r) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        let mut s = Server { child, stdin, rx };
        let u = uri::from_path(root).as_str().to_string();
        s.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": std::process::id(), "rootUri": u,
            "workspaceFolders": [{"uri": u, "name": "production"}], "capabilities": {}}}),
        );
        s.wait_for(|m| m["id"] == 1);
        s.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        s
    }

    fn send(&mut self, v: Value) {
        let m: lsp_server::Message = serde_json::from_value(v).expect("a JSON-RPC message");
        m.write(&mut self.stdin).unwrap();
    }

    fn wait_for(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self
                .rx
                .recv_timeout(Duration::from_secs(300))
                .expect("the server answers");
            if want(&m) {
                return m;
            }
        }
    }

    fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

/// Edits over stdio, each awaited: latency of the per-edit publication, then memory.
fn over_stdio(env: &Path, edits: usize) {
    let mut srv = Server::start(env);
    let path = env.join("data/nodes/node7.example.com.yaml");
    let u = uri::from_path(&path).as_str().to_string();
    // A per-file finding (H005, `yes`) keeps the file's diagnostics non-empty, so every edit
    // is answered by a publication of its version.
    let text = format!(
        "{}profile::node7::enabled: yes\n",
        std::fs::read_to_string(&path).unwrap()
    );
    srv.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": u, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    let is_pub = |v: i64| {
        let u = u.clone();
        move |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == u.as_str()
                && m["params"]["version"] == v
        }
    };
    let t = Instant::now();
    srv.wait_for(is_pub(1));
    println!(
        "stdio: open to first diagnostics: {:.1} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut version = 1i64;
    let mut edit = |srv: &mut Server| -> Duration {
        version += 1;
        let change = if version % 2 == 0 {
            json!({"range": {"start": {"line": 1, "character": 40}, "end": {"line": 1, "character": 40}}, "text": "x"})
        } else {
            json!({"range": {"start": {"line": 1, "character": 40}, "end": {"line": 1, "character": 41}}, "text": ""})
        };
        let t = Instant::now();
        srv.send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": u, "version": version}, "contentChanges": [change]}}),
        );
        srv.wait_for(is_pub(version));
        t.elapsed()
    };
    let mut lat: Vec<Duration> = (0..300).map(|_| edit(&mut srv)).collect();
    lat.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "stdio: didChange to publishDiagnostics of that version, 300 edits: median {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        ms(lat[lat.len() / 2]),
        ms(lat[lat.len() * 95 / 100]),
        ms(lat[lat.len() - 1])
    );
    let before = srv.rss_kib();
    let start = Instant::now();
    let mut checkpoints = Vec::new();
    let mut slowest = Duration::ZERO;
    for i in 1..=edits {
        slowest = slowest.max(edit(&mut srv));
        if i % 2_000 == 0 || i == edits {
            checkpoints.push(format!("{i}: {}", srv.rss_kib().unwrap_or(0)));
        }
    }
    println!(
        "stdio: server RSS {} KiB after 300 edits; after n more edits (each awaited), KiB: {}; {:.2} ms per edit on average, slowest {:.1} ms",
        before.map_or("?".into(), |v| v.to_string()),
        checkpoints.join(", "),
        ms(start.elapsed()) / edits as f64,
        ms(slowest)
    );
    // A cross-file finding: a lookup of a key no file defines (H204, a project phase). The
    // time until it is published includes the run under way when the edit came.
    version += 1;
    let t = Instant::now();
    srv.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": u, "version": version}, "contentChanges": [{
            "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
            "text": "profile::node7::missing: \"%{lookup('nowhere::defined')}\"\n"}]}}),
    );
    srv.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == u.as_str()
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["code"] == "H204"))
    });
    println!(
        "stdio: edit to its cross-file finding (H204) published: {:.0} ms",
        ms(t.elapsed())
    );
    srv.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    srv.wait_for(|m| m["id"] == 2);
    srv.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = srv.child.wait();
}

/// Where a full check's time goes: the analysis (engine, nodes, groups), the lookups of every
/// group, then each rule's project phase alone (with the analysis already built).
fn profile(env: &Path) {
    let (project, _) = hieralint::scan::load_project(&[env.to_path_buf()]);
    let t = Instant::now();
    let a = project.analysis();
    let groups: usize = a.envs.iter().map(|e| e.groups.len()).sum();
    let nodes: usize = a.envs.iter().map(|e| e.nodes.len()).sum();
    println!(
        "profile: analysis {:.1} ms ({nodes} nodes, {groups} groups)",
        t.elapsed().as_secs_f64() * 1000.0
    );
    let t = Instant::now();
    for e in &a.envs {
        for g in &e.groups {
            black_box(g.outcomes(e).len());
        }
    }
    println!(
        "profile: every group's outcomes {:.1} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    for rule in hieralint::rules::registry() {
        let t = Instant::now();
        let n = hieralint::check::run_project_rules(&project, &[*rule]).len();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if ms > 1.0 {
            println!(
                "profile: {} project phase {ms:.1} ms ({n} findings)",
                rule.meta().code
            );
        }
    }
    let t = Instant::now();
    for f in &project.files {
        black_box(hieralint::check::run_file_rules(
            &project,
            f,
            hieralint::rules::registry(),
        ));
    }
    println!(
        "profile: per-file phases of every file {:.1} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
}

// The allocator the hieralint binary uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let env = tmp.join("lsp-bench/production");
    generate(&env, 1500);
    if std::env::var_os("HIERALINT_BENCH_PROFILE").is_some() {
        profile(&env);
        return;
    }
    let t = Instant::now();
    let mut s = Session::open(&env, "data/nodes/node7.example.com.yaml");
    println!(
        "open: first load and full check of the 1,500-file environment: {:.1} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    s.edit_and_check();
    let t = Instant::now();
    let jobs = s.ws.project_jobs();
    println!(
        "snapshot for a project-phase run: {:.2} ms ({} run)",
        t.elapsed().as_secs_f64() * 1000.0,
        jobs.len()
    );
    drop(jobs);
    let t = Instant::now();
    let h = features::hover(&s.ws, &s.path, Position::new(1, 3));
    println!(
        "hover after an edit (builds the engine and the data-implied nodes): {:.1} ms ({})",
        t.elapsed().as_secs_f64() * 1000.0,
        if h.is_some() { "answered" } else { "nothing" }
    );
    let mut c = Criterion::default().configure_from_args();
    c.bench_function(
        "lsp: edit + re-check before publishing, 1,500-file environment",
        |b| b.iter(|| black_box(s.edit_and_check())),
    );
    c.final_summary();
    drop(s);
    let edits = std::env::var("HIERALINT_BENCH_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    over_stdio(&env, edits);
}

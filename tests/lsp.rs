//! The language server (`hieralint server`), driven over stdio with real JSON-RPC messages, as
//! an editor drives it. Fixture: fixtures/lsp/env (copied to a temporary directory per test);
//! the values hovers show are the ones Puppet 7.23 gives (fixtures/lsp/puppet-answers.txt).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(60);

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/lsp/env")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A fresh copy of the fixture environment.
fn temp_env(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lsp-{name}-{}", std::process::id()))
        .join("production");
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&fixture(), &dir);
    dir
}

fn uri(p: &Path) -> String {
    hieralint::server::uri::from_path(p).as_str().to_string()
}

/// An editor's side of the connection.
struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for something else.
    pending: Vec<Value>,
    /// Requests the server sent us (answered with `null`).
    server_requests: Vec<Value>,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    /// Starts `hieralint server` in `root` and initializes it.
    fn start(root: &Path, init_options: Value, capabilities: Value) -> (Client, Value) {
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
        let mut c = Client {
            child,
            stdin,
            rx,
            next_id: 0,
            pending: Vec::new(),
            server_requests: Vec::new(),
        };
        let result = c.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": uri(root),
                "workspaceFolders": [{"uri": uri(root), "name": "production"}],
                "capabilities": capabilities,
                "initializationOptions": init_options,
            }),
        );
        c.notify("initialized", json!({}));
        (c, result)
    }

    fn send(&mut self, v: Value) {
        let body = serde_json::to_vec(&v).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(&body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message from the server, answering its requests on the way.
    fn recv(&mut self, deadline: Instant) -> Value {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .rx
                .recv_timeout(left)
                .expect("the server answers in time");
            if m.get("method").is_some() && m.get("id").is_some() {
                let id = m["id"].clone();
                self.server_requests.push(m);
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
                continue;
            }
            return m;
        }
    }

    /// Sends a request and returns its result (panics on an error response).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.request_raw(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    fn request_raw(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let m = self.recv(deadline);
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
            self.pending.push(m);
        }
    }

    /// The next `publishDiagnostics` for `file` (read or already received).
    fn diagnostics_for(&mut self, file: &Path) -> Value {
        let want = uri(file);
        let is_it = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == want
        };
        if let Some(i) = self.pending.iter().position(is_it) {
            return self.pending.remove(i)["params"].clone();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let m = self.recv(deadline);
            if is_it(&m) {
                return m["params"].clone();
            }
            self.pending.push(m);
        }
    }

    /// Reads `publishDiagnostics` for `file` until one satisfies `want` (cross-file findings
    /// come when the background project phases end, possibly after a first publication).
    fn diagnostics_until(&mut self, file: &Path, want: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let d = self.diagnostics_for(file);
            if want(&d) {
                return d;
            }
            assert!(Instant::now() < deadline, "no publication as expected: {d}");
        }
    }

    fn open(&mut self, path: &Path, version: i32) {
        let text = std::fs::read_to_string(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "yaml", "version": version, "text": text}}),
        );
    }

    fn change(&mut self, path: &Path, version: i32, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": changes}),
        );
    }

    fn at(path: &Path, line: u32, character: u32) -> Value {
        json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}})
    }

    fn hover(&mut self, path: &Path, line: u32, character: u32) -> Value {
        self.request("textDocument/hover", Client::at(path, line, character))
    }

    /// `shutdown`, `exit`, and the exit status.
    fn finish(mut self) -> ExitStatus {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        drop(self.stdin);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "the server exits after `exit`");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}})
}

fn location(path: &Path, r: Value) -> Value {
    json!({"uri": uri(path), "range": r})
}

fn with_facts() -> Value {
    json!({"facts": ["facts"]})
}

#[test]
fn initialize_negotiates_utf16_and_shutdown_exits_zero() {
    let env = temp_env("init");
    let (client, init) = Client::start(&env, json!({}), json!({}));
    let caps = &init["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert_eq!(caps["referencesProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "source.fixAll"])
    );
    assert_eq!(init["serverInfo"]["name"], "hieralint");
    assert_eq!(client.finish().code(), Some(0));
}

#[test]
fn exit_without_shutdown_exits_one() {
    let env = temp_env("exit1");
    let (mut client, _) = Client::start(&env, json!({}), json!({}));
    client.notify("exit", Value::Null);
    let status = client.child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn hover_on_a_key_gives_the_value_per_fact_set_and_the_merge() {
    let env = temp_env("hover-key");
    let common = env.join("data/common.yaml");
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&common, 1);
    // `profile::base::users` at line 5 (deep merge from lookup_options)
    let h = c.hover(&common, 5, 3);
    assert_eq!(h["range"], range(5, 0, 5, 20));
    assert_eq!(h["contents"]["kind"], "markdown");
    let md = h["contents"]["value"].as_str().unwrap();
    println!("{md}");
    assert!(md.starts_with("**`profile::base::users`**"), "{md}");
    // db01 (first fact set in file order) reads only common.yaml; web01 also its node file.
    let db = md.find("**db01.example.com**").expect(md);
    let web = md.find("**web01.example.com**").expect(md);
    let db_part = &md[db..web];
    let web_part = &md[web..];
    assert!(
        db_part.contains("merge: `deep` (lookup_options)"),
        "{db_part}"
    );
    assert!(
        db_part.contains("```yaml\nalice:\n  uid: 1001\n```"),
        "{db_part}"
    );
    assert!(!db_part.contains("bob"), "{db_part}");
    assert!(
        db_part.contains(&format!("from [data/common.yaml:6]({}#L6)", uri(&common))),
        "{db_part}"
    );
    assert!(
        web_part.contains("```yaml\nalice:\n  uid: 1001\nbob:\n  uid: 1002\n```"),
        "{web_part}"
    );
    assert!(
        web_part.contains("from [data/nodes/web01.example.com.yaml:2]"),
        "{web_part}"
    );
    assert!(web_part.contains(", [data/common.yaml:6]"), "{web_part}");
    // nothing under the cursor: no hover
    assert_eq!(c.hover(&common, 4, 0), Value::Null);
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn hover_on_a_token_counts_utf16_columns() {
    let env = temp_env("hover-utf16");
    let common = env.join("data/common.yaml");
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&common, 1);
    // Line 8: `…"Bienvenue é😀 %{facts.os.family} %{lookup('profile::base::domain')}"`; in
    // UTF-16 units the lookup token spans columns 55..89 (`é` is 1 unit, `😀` 2).
    let h = c.hover(&common, 8, 60);
    assert_eq!(h["range"], range(8, 55, 8, 89));
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(
        md.starts_with("**`%{lookup('profile::base::domain')}`** interpolates to"),
        "{md}"
    );
    assert!(
        md.contains("**db01.example.com**\n\n```yaml\nexample.com\n```"),
        "{md}"
    );
    assert!(
        md.contains("**web01.example.com**\n\n```yaml\nweb01.example.com\n```"),
        "{md}"
    );
    // a variable token
    let h = c.hover(&common, 8, 40);
    assert_eq!(h["range"], range(8, 36, 8, 54));
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("**db01.example.com**\n\n```yaml\nRedHat\n```"),
        "{md}"
    );
    assert!(
        md.contains("**web01.example.com**\n\n```yaml\nDebian\n```"),
        "{md}"
    );
    // a token of a hiera.yaml path
    let hiera = env.join("hiera.yaml");
    c.open(&hiera, 1);
    let h = c.hover(&hiera, 7, 20);
    assert_eq!(h["range"], range(7, 17, 7, 36));
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("**db01.example.com**\n\n```yaml\ndb01.example.com\n```"),
        "{md}"
    );
    // keys of hiera.yaml are not Hiera keys
    assert_eq!(c.hover(&hiera, 1, 2), Value::Null);
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn utf8_columns_when_the_client_offers_them() {
    let env = temp_env("hover-utf8");
    let common = env.join("data/common.yaml");
    let caps = json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}});
    let (mut c, init) = Client::start(&env, with_facts(), caps);
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    c.open(&common, 1);
    // the same token in bytes: 58..92
    let h = c.hover(&common, 8, 60);
    assert_eq!(h["range"], range(8, 58, 8, 92));
    // column 57 is inside the lookup token in UTF-16 units, but the end of the facts token in bytes
    assert_eq!(c.hover(&common, 8, 57)["range"], range(8, 39, 8, 57));
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn definition_goes_to_every_layer_and_level() {
    let env = temp_env("definition");
    let common = env.join("data/common.yaml");
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&common, 1);
    // from `%{alias('profile::base::ntp')}` (line 13): common.yaml and os/Debian.yaml
    let d = c.request("textDocument/definition", Client::at(&common, 13, 20));
    assert_eq!(
        d,
        json!([
            location(&common, range(11, 0, 11, 18)),
            location(&env.join("data/os/Debian.yaml"), range(1, 0, 1, 18)),
        ])
    );
    // from the key `ntp::servers`: the environment's data and the ntp module's data
    let d = c.request("textDocument/definition", Client::at(&common, 13, 2));
    assert_eq!(
        d,
        json!([
            location(&common, range(13, 0, 13, 12)),
            location(
                &env.join("modules/ntp/data/common.yaml"),
                range(1, 0, 1, 12)
            ),
        ])
    );
    // from a key under lookup_options: the key it configures
    let d = c.request("textDocument/definition", Client::at(&common, 2, 4));
    assert_eq!(
        d,
        json!([
            location(&common, range(5, 0, 5, 20)),
            location(
                &env.join("data/nodes/web01.example.com.yaml"),
                range(1, 0, 1, 20)
            ),
        ])
    );
    // a variable token defines nothing
    let d = c.request("textDocument/definition", Client::at(&common, 8, 40));
    assert_eq!(d, Value::Null);
    // from the module's own data file: the module is checked as part of its environment
    let module = env.join("modules/ntp/data/common.yaml");
    c.open(&module, 1);
    let d = c.request("textDocument/definition", Client::at(&module, 1, 3));
    assert_eq!(
        d,
        json!([
            location(&common, range(13, 0, 13, 12)),
            location(&module, range(1, 0, 1, 12)),
        ])
    );
    // and its keys hover with the environment's answer (environment data wins over the
    // module's: Puppet's layer order)
    let md = c.hover(&module, 1, 3)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        md.contains("**db01.example.com**\n\nmerge: `first` (no lookup_options entry)\n\n```yaml\n- 0.pool.ntp.org\n```"),
        "{md}"
    );
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn references_find_every_lookup_and_definition() {
    let env = temp_env("references");
    let common = env.join("data/common.yaml");
    let node = env.join("data/nodes/web01.example.com.yaml");
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&common, 1);
    let mut params = Client::at(&common, 9, 5);
    params["context"] = json!({"includeDeclaration": true});
    let r = c.request("textDocument/references", params.clone());
    assert_eq!(
        r,
        json!([
            location(&common, range(8, 55, 8, 89)),
            location(&common, range(9, 0, 9, 21)),
            location(&common, range(10, 26, 10, 60)),
            location(&node, range(4, 0, 4, 21)),
        ])
    );
    params["context"] = json!({"includeDeclaration": false});
    // from a token, without the definitions
    params["position"] = json!({"line": 10, "character": 30});
    let r = c.request("textDocument/references", params);
    assert_eq!(
        r,
        json!([
            location(&common, range(8, 55, 8, 89)),
            location(&common, range(10, 26, 10, 60)),
        ])
    );
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn edits_are_checked_with_the_unsaved_text_across_files() {
    let env = temp_env("edits");
    let hiera = env.join("hiera.yaml");
    let common = env.join("data/common.yaml");
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&common, 1);
    c.open(&hiera, 1);
    // Line 7 is `    path: "nodes/%{trusted.certname}.yaml"`: insert a method interpolation
    // after `nodes/` (column 17), preceded by multi-byte text, in two incremental changes.
    c.change(
        &hiera,
        2,
        json!([
            {"range": range(7, 17, 7, 17), "text": "%{lookup('x')}"},
            {"range": range(7, 17, 7, 17), "text": "é😀"},
        ]),
    );
    let d = c.diagnostics_for(&hiera);
    assert_eq!(d["version"], 2);
    let diags = d["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{d}");
    let diag = &diags[0];
    assert_eq!(diag["code"], "H102");
    assert_eq!(diag["severity"], 1);
    assert_eq!(diag["source"], "hieralint");
    assert_eq!(
        diag["codeDescription"]["href"],
        "https://github.com/hieralint/hieralint/blob/main/rules/interpolation-method-in-hiera-config.md"
    );
    println!("{diag}");
    // the token starts after `é😀` (3 UTF-16 units): columns 20..34
    assert_eq!(diag["range"], range(7, 20, 7, 34));
    assert!(
        diag["message"]
            .as_str()
            .unwrap()
            .contains("Interpolation using method syntax is not allowed"),
        "{diag}"
    );
    // The engine reads the unsaved hiera.yaml too: every lookup reaching that level fails.
    let h = c.hover(&common, 5, 3);
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(md.contains("the lookup fails"), "{md}");
    assert!(
        md.contains("Interpolation using method syntax is not allowed in this context"),
        "{md}"
    );
    // Undo both insertions: the diagnostic goes away.
    c.change(
        &hiera,
        3,
        json!([{"range": range(7, 17, 7, 34), "text": ""}]),
    );
    let d = c.diagnostics_for(&hiera);
    assert_eq!(d["version"], 3);
    assert_eq!(d["diagnostics"], json!([]));
    let md = c.hover(&common, 5, 3)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(md.contains("bob:\n  uid: 1002"), "{md}");
    // A whole-text change works too.
    c.change(
        &hiera,
        4,
        json!([{"text": "---\nversion: 5\nhierarchy:\n  - name: x\n    path: \"%{alias('y')}\"\n"}]),
    );
    let d = c.diagnostics_for(&hiera);
    assert_eq!(d["diagnostics"][0]["range"], range(4, 11, 4, 24));
    // Closing the buffer checks the file on disk again.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&hiera)}}),
    );
    c.hover(&common, 5, 3);
    let d = c.diagnostics_for(&hiera);
    assert_eq!(d["diagnostics"], json!([]));
    assert_eq!(c.finish().code(), Some(0));
}

/// A cross-file rule (H204: a lookup of a key no file read defines, a project phase) follows
/// the unsaved text of another file: defining the key in common.yaml's buffer clears the finding
/// in os/Debian.yaml, undefining it brings it back.
#[test]
fn cross_file_findings_follow_edits_of_other_files() {
    let env = temp_env("crossfile");
    let common = env.join("data/common.yaml");
    let debian = env.join("data/os/Debian.yaml");
    std::fs::write(
        &debian,
        "---\nprofile::base::ntp:\n  - \"%{lookup('profile::os::pool')}\"\n",
    )
    .unwrap();
    let (mut c, _) = Client::start(&env, json!({}), json!({}));
    c.open(&debian, 1);
    c.open(&common, 1);
    let codes = |d: &Value| -> Vec<String> {
        d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["code"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let d = c.diagnostics_until(&debian, |d| codes(d).contains(&"H204".to_string()));
    let h204 = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "H204")
        .unwrap()
        .clone();
    assert_eq!(h204["range"], range(2, 5, 2, 35));
    assert!(
        h204["message"]
            .as_str()
            .unwrap()
            .contains("looks up `profile::os::pool`, which has no value"),
        "{h204}"
    );
    // Define the key in common.yaml (unsaved; line 14 is past the end).
    c.change(
        &common,
        2,
        json!([{"range": range(14, 0, 14, 0), "text": "profile::os::pool: pool.example.com\n"}]),
    );
    let d = c.diagnostics_until(&debian, |d| !codes(d).contains(&"H204".to_string()));
    assert_eq!(d["diagnostics"], json!([]));
    // The file on disk still lacks it; the buffer is what counts. Undo: the finding is back.
    c.change(
        &common,
        3,
        json!([{"range": range(14, 0, 15, 0), "text": ""}]),
    );
    let d = c.diagnostics_until(&debian, |d| codes(d).contains(&"H204".to_string()));
    assert_eq!(d["version"], 1);
    assert_eq!(c.finish().code(), Some(0));
}

/// A project finding about a file the scan does not load (H407 at a module's metadata.json) is
/// published for that file, at the brace of the object that lacks keys.
#[test]
fn a_module_puppet_does_not_load_is_reported_at_its_metadata() {
    let env = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lsp-module-not-loaded-{}", std::process::id()))
        .join("production");
    let _ = std::fs::remove_dir_all(&env);
    copy_dir(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/rules/module-not-loaded/missing-keys"),
        &env,
    );
    let data = env.join("modules/ntp/data/common.yaml");
    let metadata = env.join("modules/ntp/metadata.json");
    let (mut c, _) = Client::start(&env, json!({}), json!({}));
    c.open(&data, 1);
    let d = c.diagnostics_until(&metadata, |d| {
        d["diagnostics"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["code"] == "H407"))
    });
    let h407 = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "H407")
        .unwrap()
        .clone();
    assert_eq!(h407["range"], range(0, 0, 0, 1));
    assert!(
        h407["message"]
            .as_str()
            .unwrap()
            .contains("Puppet does not load module `ntp`"),
        "{h407}"
    );
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn configuration_and_fact_sets_are_reloaded_when_they_change_on_disk() {
    let env = temp_env("reload");
    let common = env.join("data/common.yaml");
    let caps = json!({"workspace": {"didChangeWatchedFiles": {
        "dynamicRegistration": true, "relativePatternSupport": true}}});
    let (mut c, _) = Client::start(&env, json!({}), caps);
    c.open(&common, 1);
    // Without fact sets: the node with no facts (it reads common.yaml only).
    let md = c.hover(&common, 5, 3)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(md.contains("_No fact sets configured"), "{md}");
    assert!(md.contains("**no facts**"), "{md}");
    assert!(!md.contains("bob"), "{md}");
    // In a node's file: also the node its name implies (`trusted.certname` = web01.example.com).
    let node = env.join("data/nodes/web01.example.com.yaml");
    c.open(&node, 1);
    let md = c.hover(&node, 1, 3)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    let implied = md
        .find("**implied by data/nodes/web01.example.com.yaml**")
        .expect(&md);
    assert!(
        md[implied..].contains("alice:\n  uid: 1001\nbob:\n  uid: 1002"),
        "{md}"
    );
    assert!(!md[..implied].contains("bob"), "{md}");
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&node)}}),
    );
    // The server asked to watch the configuration files.
    let first = c.server_requests[0].clone();
    assert_eq!(first["method"], "client/registerCapability");
    let reg = &first["params"]["registrations"][0];
    assert_eq!(reg["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<&Value> = reg["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| &w["globPattern"])
        .collect();
    assert!(globs.contains(&&json!("**/hiera.yaml")), "{globs:?}");
    assert!(globs.contains(&&json!("**/.hieralint.yaml")), "{globs:?}");

    // A configuration file appears: its fact sets apply, and are watched.
    std::fs::write(env.join(".hieralint.yaml"), "facts: facts\npuppet: 7\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&env.join(".hieralint.yaml")), "type": 1}]}),
    );
    let md = c.hover(&common, 5, 3)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!md.contains("_No fact sets configured"), "{md}");
    assert!(md.contains("**web01.example.com**"), "{md}");
    let methods: Vec<&Value> = c.server_requests.iter().map(|r| &r["method"]).collect();
    assert_eq!(
        methods,
        [
            "client/registerCapability",
            "client/unregisterCapability",
            "client/registerCapability"
        ]
    );
    assert_eq!(
        c.server_requests[1]["params"]["unregisterations"][0]["id"],
        reg["id"]
    );
    let watchers =
        &c.server_requests[2]["params"]["registrations"][0]["registerOptions"]["watchers"];
    assert!(
        watchers
            .as_array()
            .unwrap()
            .contains(&json!({"globPattern": {
                "baseUri": uri(&env.join("facts")),
                "pattern": "**/*.{json,yaml,yml}"
            }})),
        "{watchers}"
    );

    // A fact set changes: web01 moves to RedHat, like db01.
    std::fs::write(
        env.join("facts/web01.json"),
        r#"{"clientcert": "web01.example.com", "fqdn": "web01.example.com", "hostname": "web01", "domain": "example.com", "os": {"family": "RedHat"}}"#,
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&env.join("facts/web01.json")), "type": 2}]}),
    );
    let md = c.hover(&common, 8, 40)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        md.contains("**db01.example.com, web01.example.com**\n\n```yaml\nRedHat\n```"),
        "{md}"
    );

    // A fact file that does not parse: a diagnostic on it.
    let broken = env.join("facts/broken.json");
    std::fs::write(&broken, "{\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&broken), "type": 1}]}),
    );
    let d = c.diagnostics_for(&broken);
    assert_eq!(d["diagnostics"][0]["code"], "H905");
    assert_eq!(d["diagnostics"][0]["range"], range(1, 0, 1, 0));
    std::fs::remove_file(&broken).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&broken), "type": 3}]}),
    );
    assert_eq!(c.diagnostics_for(&broken)["diagnostics"], json!([]));

    // A data file that is not open changes on disk: it is read again.
    let node = env.join("data/nodes/web01.example.com.yaml");
    std::fs::write(
        &node,
        "---\nprofile::base::users:\n  carol:\n    uid: 1003\n",
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&node), "type": 2}]}),
    );
    let md = c.hover(&common, 5, 3)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(md.contains("carol:\n  uid: 1003"), "{md}");
    assert!(!md.contains("bob"), "{md}");

    // hiera.yaml changes on disk (not open): the environment is loaded again.
    let hiera = env.join("hiera.yaml");
    let text = std::fs::read_to_string(&hiera).unwrap();
    std::fs::write(
        &hiera,
        text.replace("nodes/%{trusted.certname}", "nodes/%{scope('x')}"),
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&hiera), "type": 2}]}),
    );
    let d = c.diagnostics_for(&hiera);
    assert_eq!(d["version"], Value::Null);
    assert_eq!(d["diagnostics"][0]["code"], "H102");
    assert_eq!(d["diagnostics"][0]["range"], range(7, 17, 7, 30));
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn configuration_and_inline_suppressions_apply_as_in_check() {
    let env = temp_env("settings");
    let config = env.join(".hieralint.yaml");
    std::fs::write(
        &config,
        "rules:\n  yaml11-implicit-type: error\n  bogus-rule: warn\n",
    )
    .unwrap();
    let file = env.join("data/os/RedHat.yaml");
    std::fs::write(
        &file,
        "---\nflag: on # hieralint: ignore[yaml11-implicit-type] meant as a boolean\nother: off\n",
    )
    .unwrap();
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&file, 1);
    // the unknown rule in the configuration is reported on the configuration file
    let d = c.diagnostics_for(&config);
    assert_eq!(d["diagnostics"][0]["code"], "H903");
    assert_eq!(d["diagnostics"][0]["range"], range(2, 2, 2, 12));
    // the level from the configuration, and the inline suppression on line 1
    let d = c.diagnostics_for(&file);
    let diags = d["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{d}");
    assert_eq!(diags[0]["code"], "H005");
    assert_eq!(diags[0]["severity"], 1);
    assert_eq!(diags[0]["range"], range(2, 7, 2, 10));
    // removing the directive while typing brings the finding back
    c.change(&file, 2, json!([{"range": range(1, 8, 1, 69), "text": ""}]));
    let d = c.diagnostics_for(&file);
    let lines: Vec<&Value> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["range"]["start"]["line"])
        .collect();
    assert_eq!(lines, [1, 2], "{d}");
    // `rules: {yaml11-implicit-type: off}` turns the rule off once the file changes on disk
    std::fs::write(&config, "rules:\n  yaml11-implicit-type: off\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&config), "type": 2}]}),
    );
    assert_eq!(c.diagnostics_for(&file)["diagnostics"], json!([]));
    assert_eq!(c.diagnostics_for(&config)["diagnostics"], json!([]));
    assert_eq!(c.finish().code(), Some(0));
}

#[test]
fn a_file_outside_any_environment_is_checked_alone() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lsp-loose-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("loose.yaml");
    std::fs::write(&file, "---\nflag: on\n").unwrap();
    let (mut c, _) = Client::start(&dir, json!({}), json!({}));
    c.open(&file, 1);
    let d = c.diagnostics_for(&file);
    assert_eq!(d["diagnostics"][0]["code"], "H005");
    assert_eq!(d["diagnostics"][0]["range"], range(1, 6, 1, 8));
    // a buffer that is not on disk yet
    let new = dir.join("new.yaml");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&new), "languageId": "yaml", "version": 1,
               "text": "a: 1\na: 2\n"}}),
    );
    let d = c.diagnostics_for(&new);
    assert_eq!(d["diagnostics"][0]["code"], "H002", "{d}");
    // closing it clears its diagnostics
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&new)}}),
    );
    assert_eq!(c.diagnostics_for(&new)["diagnostics"], json!([]));
    assert_eq!(c.finish().code(), Some(0));
}

/// A rule for the in-process test below: plain `on` (fixed to `true`, the same data) and plain
/// `yes` (with a wrong fix, `'yes'`, that changes the data and must not be offered).
mod plain_on {
    use hieralint::diag::{Diagnostic, Fix};
    use hieralint::project::{LoadedFile, Project};
    use hieralint::rules::{Category, Rule, RuleMeta, Sink};
    use hieralint::value::{Node, NodeKind, ScalarStyle};

    pub static META: RuleMeta = RuleMeta {
        code: "T001",
        name: "test-plain-on",
        category: Category::Style,
        summary: "a plain `on` or `yes`",
        doc: "",
        suppressible: true,
    };

    pub struct PlainOn;

    impl Rule for PlainOn {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check_data_file(&self, _: &Project, file: &LoadedFile, sink: &mut Sink) {
            let mut stack: Vec<&Node> = file.doc.root.iter().collect();
            while let Some(n) = stack.pop() {
                match &n.kind {
                    NodeKind::Scalar(s) if s.style == ScalarStyle::Plain => {
                        let (replacement, title) = match &*s.text {
                            "on" => ("true", "Write `true`"),
                            "yes" => ("'yes'", "Quote `yes`"),
                            _ => continue,
                        };
                        sink.report(
                            Diagnostic::new(&META, &file.source, n.span, "a plain boolean word")
                                .with_fix(Fix {
                                    span: n.span,
                                    replacement: replacement.into(),
                                    title: title.into(),
                                }),
                        );
                    }
                    NodeKind::Scalar(_) => {}
                    NodeKind::Seq(items) => stack.extend(items),
                    NodeKind::Map(m) => stack.extend(m.entries.iter().map(|e| &e.value)),
                }
            }
        }
    }
}

/// Code actions, through the server's message loop in this process (so that a rule with a fix
/// can be plugged in): real JSON-RPC messages over an in-memory connection.
#[test]
fn code_actions_offer_only_fixes_that_keep_the_data() {
    use lsp_server::{Connection, Message, Notification, Request, RequestId};

    let env = temp_env("actions");
    let file = env.join("data/os/Debian.yaml");
    std::fs::write(
        &file,
        "---\nprofile::base::ntp:\n  - x\n# é😀\nflag: on\nother: yes\nthird: on\n",
    )
    .unwrap();
    let (server, client) = Connection::memory();
    let handle =
        std::thread::spawn(move || hieralint::server::serve(&server, vec![&plain_on::PlainOn]));
    let mut id = 0;
    let mut request = |method: &str, params: Value| -> Value {
        id += 1;
        client
            .sender
            .send(Message::Request(Request::new(
                RequestId::from(id),
                method.to_string(),
                params,
            )))
            .unwrap();
        loop {
            match client.receiver.recv_timeout(TIMEOUT).unwrap() {
                Message::Response(r) if r.id == RequestId::from(id) => {
                    return r.response_result.expect("a successful response");
                }
                _ => {}
            }
        }
    };
    request(
        "initialize",
        json!({"capabilities": {}, "rootUri": uri(&env)}),
    );
    let notify = |method: &str, params: Value| {
        client
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .unwrap();
    };
    notify("initialized", json!({}));
    let text = std::fs::read_to_string(&file).unwrap();
    notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&file), "languageId": "yaml", "version": 1, "text": text}}),
    );
    let actions_at = |request: &mut dyn FnMut(&str, Value) -> Value, r: Value, only: Value| {
        let mut context = json!({"diagnostics": []});
        if !only.is_null() {
            context["only"] = only;
        }
        request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri(&file)}, "range": r, "context": context}),
        )
    };
    let actions = actions_at(&mut request, range(4, 7, 4, 7), json!(["quickfix"]));
    assert_eq!(actions.as_array().unwrap().len(), 1, "{actions}");
    assert_eq!(actions[0]["title"], "Write `true`");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["isPreferred"], true);
    assert_eq!(
        actions[0]["edit"],
        json!({"changes": {uri(&file): [{"range": range(4, 6, 4, 8), "newText": "true"}]}})
    );
    assert_eq!(actions[0]["diagnostics"][0]["code"], "T001");
    // `'yes'` is a String where `yes` was a Boolean: that fix is not offered
    let none = actions_at(&mut request, range(5, 8, 5, 8), json!(["quickfix"]));
    assert_eq!(none, json!([]));
    // nothing fixable on line 1, nothing of other kinds
    assert_eq!(
        actions_at(&mut request, range(1, 0, 1, 3), json!(["quickfix"])),
        json!([])
    );
    // without `only`: the quick fix, and (two safe fixes in the file) the fix-all action
    let menu = actions_at(&mut request, range(4, 7, 4, 7), Value::Null);
    let kinds: Vec<&Value> = menu
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["kind"])
        .collect();
    assert_eq!(kinds, ["quickfix", "source.fixAll"]);
    assert_eq!(
        actions_at(&mut request, range(4, 7, 4, 7), json!(["refactor"])),
        json!([])
    );
    // all of the file's safe fixes at once, when asked for `source` actions
    let all = actions_at(&mut request, range(0, 0, 0, 0), json!(["source"]));
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    assert_eq!(all[0]["kind"], "source.fixAll");
    assert_eq!(
        all[0]["edit"],
        json!({"changes": {uri(&file): [{"range": range(0, 0, 7, 0),
            "newText": "---\nprofile::base::ntp:\n  - x\n# é😀\nflag: true\nother: yes\nthird: true\n"}]}})
    );
    // After an edit that moves it (a multi-byte prefix on the line), the fix follows.
    notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&file), "version": 2},
               "contentChanges": [{"range": range(4, 0, 4, 0), "text": "x😀: 1\n"}]}),
    );
    let actions = actions_at(&mut request, range(5, 0, 5, 8), json!(["quickfix"]));
    assert_eq!(
        actions[0]["edit"],
        json!({"changes": {uri(&file): [{"range": range(5, 6, 5, 8), "newText": "true"}]}})
    );
    request("shutdown", Value::Null);
    notify("exit", Value::Null);
    assert_eq!(handle.join().unwrap(), Ok(true));
}

#[test]
fn code_actions_offer_the_rules_fixes_over_stdio() {
    let env = temp_env("actions-stdio");
    let file = env.join("data/os/RedHat.yaml");
    std::fs::write(&file, "---\nurl: http://%{facts.os.family}/é😀\nflag: on\n").unwrap();
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&file, 1);
    let d = c.diagnostics_for(&file);
    println!("{d}");
    let codes: Vec<&Value> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["code"])
        .collect();
    assert_eq!(codes, ["H006", "H005"]);
    // the whole value, in UTF-16 columns (`é` 1 unit, `😀` 2)
    assert_eq!(d["diagnostics"][0]["range"], range(1, 5, 1, 34));
    assert_eq!(d["diagnostics"][1]["range"], range(2, 6, 2, 8));
    let params = |r: Value, only: Value| {
        json!({"textDocument": {"uri": uri(&file)}, "range": r,
               "context": {"diagnostics": [], "only": only}})
    };
    let a = c.request(
        "textDocument/codeAction",
        params(range(1, 10, 1, 10), json!(["quickfix"])),
    );
    println!("{a}");
    assert_eq!(a.as_array().unwrap().len(), 1, "{a}");
    assert_eq!(a[0]["kind"], "quickfix");
    assert_eq!(a[0]["diagnostics"][0]["code"], "H006");
    let edit = a[0]["edit"]["changes"][uri(&file)].clone();
    assert_eq!(
        edit,
        json!([{"range": range(1, 5, 1, 34), "newText": "'http://%{facts.os.family}/é😀'"}])
    );
    let all = c.request(
        "textDocument/codeAction",
        params(range(0, 0, 0, 0), json!(["source.fixAll"])),
    );
    assert_eq!(
        all[0]["edit"]["changes"][uri(&file)][0]["newText"],
        "---\nurl: 'http://%{facts.os.family}/é😀'\nflag: true\n"
    );
    // The editor applies the quick fix: that diagnostic goes, the other stays.
    c.change(
        &file,
        2,
        json!([{"range": edit[0]["range"], "text": edit[0]["newText"]}]),
    );
    let d = c.diagnostics_for(&file);
    assert_eq!(d["version"], 2);
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 1, "{d}");
    assert_eq!(d["diagnostics"][0]["code"], "H005");
    assert_eq!(c.finish().code(), Some(0));
}

/// The Neovim configuration of the README (and docs/editors.md), for real: headless Neovim starts
/// `hieralint server` for a hiera.yaml and receives its diagnostics. Skipped (with a notice)
/// when `nvim` is not installed.
#[test]
fn neovim_reports_diagnostics() {
    let version = match Command::new("nvim").arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string(),
        _ => {
            println!("SKIPPED neovim_reports_diagnostics: `nvim` is not installed");
            return;
        }
    };
    let env = temp_env("nvim");
    let work = env.parent().unwrap().to_path_buf();
    let hiera = env.join("hiera.yaml");
    let text = std::fs::read_to_string(&hiera).unwrap();
    // A method interpolation after multi-byte text: Neovim converts our UTF-16 columns to
    // byte columns, so the byte column it reports checks that conversion end to end.
    std::fs::write(
        &hiera,
        text.replace("nodes/%{trusted.certname}", "nodes/é😀%{lookup('x')}"),
    )
    .unwrap();

    // The README's snippet, which docs/editors.md repeats word for word.
    let marked = |file: &str| -> String {
        let text =
            std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
        text.split("<!-- nvim-config:start -->")
            .nth(1)
            .and_then(|s| s.split("<!-- nvim-config:end -->").next())
            .unwrap_or_else(|| panic!("{file} marks the Neovim configuration"))
            .to_string()
    };
    let block = marked("README.md");
    assert_eq!(
        block,
        marked("docs/editors.md"),
        "README.md and docs/editors.md give the same Neovim configuration"
    );
    let lua = block
        .trim()
        .strip_prefix("```lua")
        .and_then(|s| s.strip_suffix("```"))
        .expect("the Neovim configuration is a lua block");
    let out = work.join("nvim-diagnostics.json");
    let _ = std::fs::remove_file(&out);
    let harness = format!(
        r#"{lua}
-- test harness: wait for the diagnostics of the file given on the command line, save them
vim.api.nvim_create_autocmd('VimEnter', {{
  callback = function()
    local got = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
    local items = {{}}
    for _, d in ipairs(vim.diagnostic.get(0)) do
      local lsp = d.user_data and d.user_data.lsp or {{}}
      table.insert(items, {{
        lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
        severity = d.severity, message = d.message, source = d.source,
        code = d.code or lsp.code,
      }})
    end
    local f = io.open('{out}', 'w')
    f:write(vim.fn.json_encode({{ got = got, diagnostics = items }}))
    f:close()
    vim.cmd('qa!')
  end,
}})
"#,
        out = out.display()
    );
    let init = work.join("init.lua");
    std::fs::write(&init, harness).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_hieralint")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let xdg = work.join("xdg");
    let mut child = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(&init)
        .arg(&hiera)
        .current_dir(&env)
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", xdg.join("config"))
        .env("XDG_DATA_HOME", xdg.join("data"))
        .env("XDG_STATE_HOME", xdg.join("state"))
        .env("XDG_CACHE_HOME", xdg.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{version} did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{version} wrote nothing: {e}")),
    )
    .unwrap();
    println!("{version}: {result}");
    assert_eq!(result["got"], true, "{result}");
    let d = &result["diagnostics"][0];
    assert_eq!(
        result["diagnostics"].as_array().unwrap().len(),
        1,
        "{result}"
    );
    assert_eq!(d["code"], "H102");
    assert_eq!(d["source"], "hieralint");
    assert_eq!(d["severity"], 1);
    // `    path: "nodes/é😀%{lookup('x')}.yaml"`: the token is at bytes 23..37 of line 7
    assert_eq!((d["lnum"].as_u64(), d["col"].as_u64()), (Some(7), Some(23)));
    assert_eq!(
        (d["end_lnum"].as_u64(), d["end_col"].as_u64()),
        (Some(7), Some(37))
    );
    assert!(
        d["message"].as_str().unwrap().contains("calls `lookup()`"),
        "{d}"
    );
}

#[test]
fn bad_requests_get_errors_and_the_server_keeps_going() {
    let env = temp_env("robust");
    let common = env.join("data/common.yaml");
    let (mut c, _) = Client::start(&env, with_facts(), json!({}));
    c.open(&common, 1);
    let r = c.request_raw("textDocument/hover", json!({"textDocument": 3}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request_raw("textDocument/formatting", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // positions past the end of lines and of the text are clamped
    c.change(
        &common,
        2,
        json!([{"range": range(99, 5, 120, 0), "text": "\nextra: '%{lookup('profile::base::domain')}'\n"},
               {"range": range(0, 99, 0, 200), "text": ""}]),
    );
    // a file that is not a file URI, and one never opened: ignored
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "untitled:Untitled-1", "version": 1}, "contentChanges": [{"text": "x"}]}),
    );
    assert_eq!(
        c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "untitled:x"}, "position": {"line": 0, "character": 0}})
        ),
        Value::Null
    );
    // text that is not YAML at all, and hostile nesting
    let deep = format!("k: {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    c.change(&common, 3, json!([{"text": deep}]));
    assert_eq!(c.hover(&common, 0, 0)["range"], range(0, 0, 0, 1));
    c.change(&common, 4, json!([{"text": "\u{0}\u{feff}: [:\n\t{"}]));
    c.hover(&common, 0, 1);
    let mut refs = Client::at(&common, 0, 0);
    refs["context"] = json!({"includeDeclaration": true});
    c.request("textDocument/references", refs);
    // still answering
    c.change(
        &common,
        5,
        json!([{"text": "a: \"%{lookup('b')}\"\nb: 1\n"}]),
    );
    let d = c.request("textDocument/definition", Client::at(&common, 0, 8));
    assert_eq!(d, json!([location(&common, range(1, 0, 1, 1))]));
    assert_eq!(c.finish().code(), Some(0));
}

//! `hieralint server`: a Language Server Protocol server over stdio for hiera.yaml and Hiera
//! data (docs/editors.md).
//!
//! Synchronous, on rust-analyzer's `lsp-server` transport: one thread handles messages in
//! order (the rules still run in parallel). Edits are applied as they come; the check of the
//! edited environment runs when no further message is waiting (so a burst of keystrokes is
//! checked once) or before the next request, so every answer sees the latest text. The
//! per-file phases of the rules run on that thread, for the changed files only, and their
//! findings go out at once; the project phases (cross-file rules, which take seconds on a
//! 1,500-file environment) run over a snapshot of the project on a pool of their own (so they
//! never hold up the per-file work), and their findings are published when they end. A small
//! environment's project phases end within [`PROJECT_WAIT`], and everything goes out together.
//!
//! * [`workspace`]: buffers, environments held in memory, the check and what to publish;
//! * [`features`]: hover, definition, references, code actions;
//! * [`locate`]: what is under the cursor; [`text`]: positions and edits; [`uri`]: file URIs;
//! * [`settings`]: fact sets and Puppet version from `initializationOptions`/`.hieralint.yaml`.

pub mod features;
pub mod locate;
pub mod settings;
pub mod text;
pub mod uri;
pub mod workspace;

use std::collections::{BTreeSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, GotoDefinition, HoverRequest, References, RegisterCapability, Request as _,
    UnregisterCapability,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, FileChangeType, FileSystemWatcher,
    GlobPattern, GotoDefinitionParams, GotoDefinitionResponse, HoverParams,
    HoverProviderCapability, InitializeParams, InitializeResult, OneOf, PositionEncodingKind,
    PublishDiagnosticsParams, ReferenceParams, Registration, RegistrationParams, RelativePattern,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Unregistration, UnregistrationParams,
};

use crate::rules::{self, Rule};

use settings::InitOptions;
use text::Encoding;
use workspace::{ProjectDone, Publication, Workspace, WorkspaceOptions};

/// How long edits may wait for a burst of further edits before they are checked.
const MAX_COALESCE: Duration = Duration::from_millis(100);
/// How long a check waits for the project phases before it publishes without them (only when
/// the environment's last project-phase run took no longer: otherwise it publishes at once).
const PROJECT_WAIT: Duration = Duration::from_millis(50);

/// Runs the server on stdin/stdout with every rule; the process exit status.
pub fn run_stdio() -> i32 {
    let (conn, io) = Connection::stdio();
    let result = serve(&conn, rules::registry().to_vec());
    drop(conn);
    let joined = io.join();
    match result {
        // LSP: exit status 0 when `shutdown` came before `exit`, 1 otherwise.
        Ok(true) => match joined {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("hieralint server: {e}");
                1
            }
        },
        Ok(false) => 1,
        Err(e) => {
            eprintln!("hieralint server: {e}");
            1
        }
    }
}

/// Serves one client on `conn` with these rules, from `initialize` to `exit` (or until the
/// client goes away). Returns whether `shutdown` was received before the end.
pub fn serve(conn: &Connection, rules: Vec<&'static dyn Rule>) -> Result<bool, String> {
    let (id, params) = conn.initialize_start().map_err(|e| e.to_string())?;
    let init: InitializeParams = match serde_json::from_value(params) {
        Ok(p) => p,
        Err(e) => {
            let msg = format!("invalid initialize parameters: {e}");
            let _ = conn
                .sender
                .send(Response::new_err(id, ErrorCode::InvalidParams as i32, msg.clone()).into());
            return Err(msg);
        }
    };
    let encoding = negotiate_encoding(&init);
    let roots = workspace_roots(&init);
    let base = roots
        .first()
        .cloned()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    let init_opts = InitOptions::from_json(init.initialization_options.as_ref(), &base);
    let result = InitializeResult {
        capabilities: capabilities(encoding),
        server_info: Some(ServerInfo {
            name: "hieralint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| e.to_string())?;
    conn.initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let watch = init
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref());
    let (done_tx, done_rx) = crossbeam_channel::unbounded();
    let mut server = Server {
        conn,
        ws: Workspace::new(WorkspaceOptions {
            rules,
            init: init_opts,
            encoding,
            roots,
        }),
        dynamic_watch: watch.and_then(|w| w.dynamic_registration) == Some(true),
        relative_patterns: watch.and_then(|w| w.relative_pattern_support) == Some(true),
        watching: None,
        next_id: 0,
        shutdown: false,
        dirty_since: None,
        done_tx,
        done_rx,
        pool: project_pool(),
    };
    server.update_watchers();
    server.run()
}

/// The pool the project phases run on: all cores but one (at least one thread), so that the
/// message loop and the per-file phases, which use rayon's global pool, are not queued behind a
/// long cross-file run. `None` if the threads cannot be started (the phases then run inline).
fn project_pool() -> Option<rayon::ThreadPool> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::ThreadPoolBuilder::new()
        .num_threads(cores.saturating_sub(1).max(1))
        .thread_name(|i| format!("hieralint-project-{i}"))
        .build()
        .map_err(|e| eprintln!("hieralint server: cannot start the project-phase pool: {e}"))
        .ok()
}

/// UTF-8 columns when the client offers them (cheaper, and exact for our byte spans); the
/// protocol's default, UTF-16, otherwise.
fn negotiate_encoding(init: &InitializeParams) -> Encoding {
    let offered = init
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    if offered.is_some_and(|v| v.contains(&PositionEncodingKind::UTF8)) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

#[allow(deprecated)]
fn workspace_roots(init: &InitializeParams) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = init
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| uri::to_path(&f.uri))
        .collect();
    if roots.is_empty() {
        if let Some(p) = init.root_uri.as_ref().and_then(uri::to_path) {
            roots.push(p);
        } else if let Some(p) = init.root_path.as_ref() {
            roots.push(PathBuf::from(p));
        }
    }
    roots
}

fn capabilities(enc: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match enc {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            // Every kind `code_actions` returns: a client that filters on this list (VS Code's
            // `editor.codeActionsOnSave` does) would otherwise never ask for the fix-all.
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::SOURCE_FIX_ALL,
            ]),
            ..Default::default()
        })),
        ..Default::default()
    }
}

struct Server<'c> {
    conn: &'c Connection,
    ws: Workspace,
    dynamic_watch: bool,
    relative_patterns: bool,
    /// The registration in force (its id) and the fact paths it watches.
    watching: Option<(String, BTreeSet<PathBuf>)>,
    next_id: u64,
    shutdown: bool,
    /// When the first edit not yet checked arrived.
    dirty_since: Option<Instant>,
    /// Where project-phase runs report.
    done_tx: crossbeam_channel::Sender<ProjectDone>,
    done_rx: crossbeam_channel::Receiver<ProjectDone>,
    /// Where project-phase runs run.
    pool: Option<rayon::ThreadPool>,
}

enum Flow {
    Continue,
    Exit,
}

impl Server<'_> {
    fn run(&mut self) -> Result<bool, String> {
        let mut queue: VecDeque<Message> = VecDeque::new();
        loop {
            let msg = match queue.pop_front() {
                Some(m) => Some(m),
                None => crossbeam_channel::select! {
                    recv(self.conn.receiver) -> m => match m {
                        Ok(m) => Some(m),
                        // The client went away without `exit`.
                        Err(_) => return Ok(false),
                    },
                    recv(self.done_rx) -> done => {
                        if let Ok(done) = done {
                            self.ws.project_done(done);
                        }
                        None
                    }
                },
            };
            if let Some(msg) = msg {
                if matches!(msg, Message::Request(_)) {
                    self.flush();
                }
                if let Flow::Exit = self.handle(msg) {
                    return Ok(self.shutdown);
                }
            }
            if self.ws.is_dirty() || self.ws.needs_project_run() {
                let since = *self.dirty_since.get_or_insert_with(Instant::now);
                if queue.is_empty() {
                    if let Ok(m) = self.conn.receiver.try_recv() {
                        queue.push_back(m);
                    }
                }
                if queue.is_empty() || since.elapsed() >= MAX_COALESCE {
                    self.flush();
                }
            }
        }
    }

    fn send(&self, msg: Message) {
        // A failed send means the client is gone; the receive loop ends on its own then.
        let _ = self.conn.sender.send(msg);
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params).into());
    }

    fn request<R: lsp_types::request::Request>(&mut self, params: R::Params) {
        self.next_id += 1;
        let id = RequestId::from(format!("hieralint-{}", self.next_id));
        self.send(Request::new(id, R::METHOD.to_string(), params).into());
    }

    /// Checks what changed and publishes: the project phases (cross-file rules) start on the
    /// project pool, the per-file phases run here. When the environment's project phases are
    /// quick (their last run took at most [`PROJECT_WAIT`]), this waits that long for them so
    /// that everything goes out at once; otherwise the per-file findings go out now and the
    /// project phases' when they end (see `run`).
    fn flush(&mut self) {
        self.dirty_since = None;
        let jobs = self.ws.project_jobs();
        let mut wait_for = 0;
        for job in jobs {
            let quick = job.expected().is_none_or(|t| t <= PROJECT_WAIT);
            match &self.pool {
                Some(pool) => {
                    let tx = self.done_tx.clone();
                    pool.spawn(move || {
                        let _ = tx.send(job.run());
                    });
                    if quick {
                        wait_for += 1;
                    }
                }
                None => {
                    let done = job.run();
                    self.ws.project_done(done);
                }
            }
        }
        if wait_for > 0 {
            let deadline = Instant::now() + PROJECT_WAIT;
            while wait_for > 0 {
                match self.done_rx.recv_deadline(deadline) {
                    Ok(done) => {
                        self.ws.project_done(done);
                        wait_for -= 1;
                    }
                    Err(_) => break,
                }
            }
        }
        if self.ws.is_dirty() {
            let ws = &mut self.ws;
            match catch_unwind(AssertUnwindSafe(|| ws.check_files())) {
                Ok(pubs) => self.publish(pubs),
                Err(_) => {
                    eprintln!("hieralint server: internal error while checking (see above)")
                }
            }
        }
        self.update_watchers();
    }

    fn publish(&self, pubs: Vec<Publication>) {
        for p in pubs {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
                uri: p.uri,
                diagnostics: p.diagnostics,
                version: p.version,
            });
        }
    }

    /// Registers file watchers for hiera.yaml, .hieralint.yaml, environment.conf, metadata.json,
    /// data files and the fact set paths in use, again whenever the fact set paths change.
    fn update_watchers(&mut self) {
        if !self.dynamic_watch {
            return;
        }
        let facts = self.ws.fact_paths();
        if self.watching.as_ref().is_some_and(|(_, f)| *f == facts) {
            return;
        }
        if let Some((id, _)) = self.watching.take() {
            self.request::<UnregisterCapability>(UnregistrationParams {
                unregisterations: vec![Unregistration {
                    id,
                    method: DidChangeWatchedFiles::METHOD.to_string(),
                }],
            });
        }
        let mut watchers: Vec<FileSystemWatcher> = [
            "**/hiera.yaml",
            "**/.hieralint.yaml",
            "**/environment.conf",
            "**/metadata.json",
            "**/*.{yaml,yml,json,eyaml,conf}",
        ]
        .iter()
        .map(|g| FileSystemWatcher {
            glob_pattern: GlobPattern::String(g.to_string()),
            kind: None,
        })
        .collect();
        for f in &facts {
            let (base, pattern) = if f.is_file() {
                (
                    f.parent().map(PathBuf::from).unwrap_or_default(),
                    f.file_name()
                        .map(|n| n.to_string_lossy().to_string())
                        .unwrap_or_default(),
                )
            } else {
                (f.clone(), "**/*.{json,yaml,yml}".to_string())
            };
            let glob_pattern = if self.relative_patterns {
                GlobPattern::Relative(RelativePattern {
                    base_uri: OneOf::Right(uri::from_path(&base)),
                    pattern,
                })
            } else {
                GlobPattern::String(format!("{}/{pattern}", base.display()))
            };
            watchers.push(FileSystemWatcher {
                glob_pattern,
                kind: None,
            });
        }
        self.next_id += 1;
        let id = format!("hieralint-watch-{}", self.next_id);
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        self.request::<RegisterCapability>(RegistrationParams {
            registrations: vec![Registration {
                id: id.clone(),
                method: DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(options).ok(),
            }],
        });
        self.watching = Some((id, facts));
    }

    fn handle(&mut self, msg: Message) -> Flow {
        match msg {
            Message::Request(req) => {
                if self.shutdown {
                    self.send(
                        Response::new_err(
                            req.id,
                            ErrorCode::InvalidRequest as i32,
                            "the server is shutting down".to_string(),
                        )
                        .into(),
                    );
                    return Flow::Continue;
                }
                if req.method == lsp_types::request::Shutdown::METHOD {
                    self.shutdown = true;
                    self.send(Response::new_ok(req.id, ()).into());
                    return Flow::Continue;
                }
                let id = req.id.clone();
                let method = req.method.clone();
                let response = match catch_unwind(AssertUnwindSafe(|| self.on_request(req))) {
                    Ok(r) => r,
                    Err(_) => Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        format!("hieralint failed while answering {method}"),
                    ),
                };
                self.send(response.into());
                Flow::Continue
            }
            Message::Notification(n) => {
                if n.method == lsp_types::notification::Exit::METHOD {
                    return Flow::Exit;
                }
                let method = n.method.clone();
                if catch_unwind(AssertUnwindSafe(|| self.on_notification(n))).is_err() {
                    eprintln!("hieralint server: internal error while handling {method}");
                }
                Flow::Continue
            }
            // Answers to our registrations: nothing to do.
            Message::Response(_) => Flow::Continue,
        }
    }

    fn on_request(&mut self, req: Request) -> Response {
        fn params<P: serde::de::DeserializeOwned>(req: &Request) -> Result<P, Box<Response>> {
            serde_json::from_value(req.params.clone()).map_err(|e| {
                Box::new(Response::new_err(
                    req.id.clone(),
                    ErrorCode::InvalidParams as i32,
                    format!("invalid parameters for {}: {e}", req.method),
                ))
            })
        }
        let id = req.id.clone();
        let ok = |v: serde_json::Value| Response::new_ok(id.clone(), v);
        let null = serde_json::Value::Null;
        match req.method.as_str() {
            HoverRequest::METHOD => {
                let p: HoverParams = match params(&req) {
                    Ok(p) => p,
                    Err(r) => return *r,
                };
                let d = &p.text_document_position_params;
                let h = uri::to_path(&d.text_document.uri)
                    .and_then(|path| features::hover(&self.ws, &path, d.position));
                ok(serde_json::to_value(h).unwrap_or(null))
            }
            GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = match params(&req) {
                    Ok(p) => p,
                    Err(r) => return *r,
                };
                let d = &p.text_document_position_params;
                let locs = uri::to_path(&d.text_document.uri)
                    .map(|path| features::definition(&self.ws, &path, d.position))
                    .unwrap_or_default();
                if locs.is_empty() {
                    ok(null)
                } else {
                    ok(serde_json::to_value(GotoDefinitionResponse::Array(locs)).unwrap_or(null))
                }
            }
            References::METHOD => {
                let p: ReferenceParams = match params(&req) {
                    Ok(p) => p,
                    Err(r) => return *r,
                };
                let d = &p.text_document_position;
                let locs = uri::to_path(&d.text_document.uri)
                    .map(|path| {
                        features::references(
                            &self.ws,
                            &path,
                            d.position,
                            p.context.include_declaration,
                        )
                    })
                    .unwrap_or_default();
                ok(serde_json::to_value(locs).unwrap_or(null))
            }
            CodeActionRequest::METHOD => {
                let p: CodeActionParams = match params(&req) {
                    Ok(p) => p,
                    Err(r) => return *r,
                };
                let actions = uri::to_path(&p.text_document.uri)
                    .map(|path| {
                        features::code_actions(&self.ws, &path, p.range, p.context.only.as_deref())
                    })
                    .unwrap_or_default();
                ok(serde_json::to_value(actions).unwrap_or(null))
            }
            _ => Response::new_err(
                req.id,
                ErrorCode::MethodNotFound as i32,
                format!("hieralint does not handle {}", req.method),
            ),
        }
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) {
                    let d = p.text_document;
                    if let Some(path) = uri::to_path(&d.uri) {
                        self.ws.open(&path, d.uri, d.text, d.version);
                    }
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) {
                    if let Some(path) = uri::to_path(&p.text_document.uri) {
                        self.ws
                            .change(&path, p.text_document.version, p.content_changes);
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) {
                    if let Some(path) = uri::to_path(&p.text_document.uri) {
                        self.ws.close(&path);
                    }
                }
            }
            DidSaveTextDocument::METHOD => {
                // Clients without file watchers still tell us about saves: a saved
                // hiera.yaml, configuration or fact file is a change on disk.
                if let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params) {
                    if let Some(path) = uri::to_path(&p.text_document.uri) {
                        self.ws.files_changed(&[(path, FileChangeType::CHANGED)]);
                    }
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                    let changes: Vec<(PathBuf, FileChangeType)> = p
                        .changes
                        .into_iter()
                        .filter_map(|c| uri::to_path(&c.uri).map(|path| (path, c.typ)))
                        .collect();
                    self.ws.files_changed(&changes);
                }
            }
            _ => {}
        }
    }
}

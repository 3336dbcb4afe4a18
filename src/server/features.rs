//! Hover, go to definition, find references and quick fixes, over the workspace's projects and
//! the lookup engine of their analysis (the same one the rules ask).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Hover, HoverContents, Location, MarkupContent,
    MarkupKind, Position, Range, TextEdit, WorkspaceEdit,
};

use crate::analysis::{EnvAnalysis, NodeCtx};
use crate::engine::{cli::render_yaml, LookupError, LookupRequest, LookupResult, MergeStrategy};
use crate::fix;
use crate::project::{FileRole, Layer, LoadedFile};
use crate::value::Value;

use super::locate::{self, Target};
use super::workspace::{Env, Workspace};

/// Fact sets shown one by one in a hover before the rest are summed up.
const MAX_GROUPS: usize = 12;
/// Lines of a rendered value shown in a hover.
const MAX_VALUE_LINES: usize = 30;

/// What is under the cursor, with the environment and file it is in.
fn target<'a>(
    ws: &'a Workspace,
    path: &Path,
    pos: Position,
) -> Option<(&'a Env, &'a LoadedFile, Target)> {
    let (env, file) = ws.file_of(path)?;
    let offset = ws.coords(&file.source).offset(pos);
    let t = locate::target_at(file, offset)?;
    Some((env, file, t))
}

/// `textDocument/hover`.
pub fn hover(ws: &Workspace, path: &Path, pos: Position) -> Option<Hover> {
    let (env, file, t) = target(ws, path, pos)?;
    let analysis = env.project.analysis();
    let ea = analysis.envs.iter().find(|e| e.root == env.root)?;
    let md = match &t {
        Target::Key { lookup, .. } => key_hover(ea, file, lookup),
        Target::Token {
            text, in_config, ..
        } => token_hover(ea, file, text, *in_config),
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: md,
        }),
        range: Some(ws.range_of(&file.source, t.span())),
    })
}

/// The nodes a hover speaks for: every fact set; without fact sets, the node with no facts and
/// the node the hovered file implies (if its name matches a hierarchy path).
fn hover_nodes<'a>(ea: &'a EnvAnalysis, file: &LoadedFile) -> Vec<&'a NodeCtx> {
    if ea.real_facts {
        return ea.nodes.iter().collect();
    }
    let rel = file
        .source
        .path
        .strip_prefix(&ea.root)
        .unwrap_or(&file.source.path)
        .display()
        .to_string();
    let implied_here = format!("implied by {rel}");
    ea.nodes
        .iter()
        .filter(|n| n.name == "implied: no variables" || n.name == implied_here)
        .collect()
}

fn preamble(ea: &EnvAnalysis, out: &mut String) {
    if !ea.real_facts {
        out.push_str(
            "_No fact sets configured (`facts` in the client's initializationOptions or in \
             `.hieralint.yaml`): values for a node without facts, and for the node this file's \
             name implies._\n\n",
        );
    }
}

fn node_label(n: &NodeCtx) -> String {
    match n.name.as_str() {
        "implied: no variables" => "no facts".to_string(),
        other => other.to_string(),
    }
}

/// The rendered value of a lookup or interpolation, shortened.
fn render_value(v: &Value, out: &mut String) {
    let yaml = render_yaml(v);
    // `puppet lookup`'s YAML without the document marker.
    let body = yaml
        .strip_prefix("---\n")
        .or_else(|| yaml.strip_prefix("--- "))
        .unwrap_or(&yaml);
    let lines: Vec<&str> = body.lines().collect();
    out.push_str("```yaml\n");
    for l in lines.iter().take(MAX_VALUE_LINES) {
        out.push_str(l);
        out.push('\n');
    }
    if lines.len() > MAX_VALUE_LINES {
        let _ = writeln!(out, "# … {} more lines", lines.len() - MAX_VALUE_LINES);
    }
    out.push_str("```\n");
}

/// The merge a lookup of the key uses, from its lookup_options (reference §4).
fn merge_text(r: Result<Option<Value>, LookupError>) -> String {
    match r {
        Ok(None) => "`first` (no lookup_options entry)".to_string(),
        Ok(Some(opts)) => match opts.as_hash().and_then(|h| h.get(&Value::string("merge"))) {
            None => "`first` (its lookup_options entry sets no merge)".to_string(),
            Some(m) => match MergeStrategy::parse(m) {
                Ok(ms) => match ms.options_wo_strategy() {
                    Some(o) => format!(
                        "`{}` with `{}` (lookup_options)",
                        ms.key(),
                        Value::hash(o).ruby_inspect()
                    ),
                    None => format!("`{}` (lookup_options)", ms.key()),
                },
                Err(e) => format!("invalid merge in lookup_options: {}", e.message),
            },
        },
        Err(e) => format!("lookup_options cannot be read: {}", e.message),
    }
}

/// `[data/common.yaml:3](file:///…#L3)` for a place in a file.
fn place_link(ea: &EnvAnalysis, file: &crate::span::SourceFile, offset: usize) -> String {
    let line = file.line_col(offset).line;
    let rel = file.path.strip_prefix(&ea.root).unwrap_or(&file.path);
    format!(
        "[{}:{}]({}#L{})",
        rel.display(),
        line,
        super::uri::from_path(&file.path).as_str(),
        line
    )
}

/// Groups nodes whose section of the hover would read the same, keeping the first-seen order.
fn grouped(sections: Vec<(String, String)>) -> Vec<(Vec<String>, String)> {
    let mut out: Vec<(Vec<String>, String)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (name, body) in sections {
        match index.get(&body) {
            Some(&i) => out[i].0.push(name),
            None => {
                index.insert(body.clone(), out.len());
                out.push((vec![name], body));
            }
        }
    }
    out
}

fn write_groups(groups: Vec<(Vec<String>, String)>, out: &mut String) {
    let total = groups.len();
    for (names, body) in groups.into_iter().take(MAX_GROUPS) {
        let _ = writeln!(out, "**{}**\n", names.join(", "));
        out.push_str(&body);
        out.push('\n');
    }
    if total > MAX_GROUPS {
        let _ = writeln!(out, "_… and {} more distinct answers_", total - MAX_GROUPS);
    }
}

fn key_hover(ea: &EnvAnalysis, file: &LoadedFile, lookup: &str) -> String {
    let mut out = format!("**`{lookup}`**\n\n");
    preamble(ea, &mut out);
    let mut sections = Vec::new();
    for n in hover_nodes(ea, file) {
        let session = ea.engine.session(n.scope.clone());
        let outcome = session.lookup(&LookupRequest::new(lookup));
        let mut body = format!(
            "merge: {}\n\n",
            merge_text(session.lookup_options_for(lookup))
        );
        match &outcome.result {
            LookupResult::Found(v) => {
                render_value(v, &mut body);
                if !outcome.provenance.is_empty() {
                    let places: Vec<String> = outcome
                        .provenance
                        .iter()
                        .map(|p| place_link(ea, &p.file, p.key_span.start as usize))
                        .collect();
                    let _ = writeln!(body, "\nfrom {}", places.join(", "));
                }
            }
            LookupResult::NotFound => body.push_str("not found\n"),
            LookupResult::Error(e) => {
                let _ = writeln!(body, "the lookup fails:\n```text\n{}\n```", e.message);
            }
        }
        for w in &outcome.warnings {
            let _ = writeln!(body, "\nwarning: {w}");
        }
        sections.push((node_label(n), body));
    }
    write_groups(grouped(sections), &mut out);
    out
}

fn token_hover(ea: &EnvAnalysis, file: &LoadedFile, text: &str, in_config: bool) -> String {
    let mut out = format!("**`{text}`** interpolates to\n\n");
    preamble(ea, &mut out);
    let mut sections = Vec::new();
    for n in hover_nodes(ea, file) {
        let session = ea.engine.session(n.scope.clone());
        let (r, warnings) = session.interpolate(text, !in_config);
        let mut body = String::new();
        match r {
            Ok(v) => render_value(&v, &mut body),
            Err(e) => {
                let _ = writeln!(
                    body,
                    "the interpolation fails:\n```text\n{}\n```",
                    e.message
                );
            }
        }
        for w in &warnings {
            let _ = writeln!(body, "\nwarning: {w}");
        }
        sections.push((node_label(n), body));
    }
    write_groups(grouped(sections), &mut out);
    out
}

/// Whether a data file of `layer` can define `root`: environment and global data define any
/// key; a module's data only keys in its namespace (reference §2.3).
fn layer_defines(layer: &Layer, root: &str) -> bool {
    match layer {
        Layer::Module(m) => root.split_once("::").is_some_and(|(prefix, _)| prefix == m),
        _ => true,
    }
}

fn definitions(ws: &Workspace, env: &Env, root: &str) -> Vec<Location> {
    let mut out = Vec::new();
    for f in &env.project.files {
        if !matches!(f.role, FileRole::Data | FileRole::Loose) || !layer_defines(&f.layer, root) {
            continue;
        }
        for span in locate::root_definitions(f, root) {
            out.push(Location::new(
                ws.uri_for(&f.source.path),
                ws.range_of(&f.source, span),
            ));
        }
    }
    out
}

/// `textDocument/definition`: every definition of the key under the cursor (a key, or the key
/// a `lookup`/`alias`/`hiera` token looks up) in the data files of its environment.
pub fn definition(ws: &Workspace, path: &Path, pos: Position) -> Vec<Location> {
    let Some((env, _, t)) = target(ws, path, pos) else {
        return Vec::new();
    };
    match t.root_key() {
        Some(root) => definitions(ws, env, &root),
        None => Vec::new(),
    }
}

/// `textDocument/references`: every token that looks the key up, every lookup_options entry
/// that names it, and (with `include_declaration`) every definition.
pub fn references(
    ws: &Workspace,
    path: &Path,
    pos: Position,
    include_declaration: bool,
) -> Vec<Location> {
    let Some((env, _, t)) = target(ws, path, pos) else {
        return Vec::new();
    };
    let Some(root) = t.root_key() else {
        return Vec::new();
    };
    let mut found: Vec<(std::path::PathBuf, u32, Location)> = Vec::new();
    for f in &env.project.files {
        let loc = |span| Location::new(ws.uri_for(&f.source.path), ws.range_of(&f.source, span));
        for (span, token) in locate::all_tokens(f) {
            if token.lookup_key().and_then(locate::root_of).as_deref() == Some(root.as_str()) {
                found.push((f.source.path.clone(), span.start, loc(span)));
            }
        }
        if f.role == FileRole::Data {
            for span in locate::lookup_options_entries(f, &root) {
                found.push((f.source.path.clone(), span.start, loc(span)));
            }
        }
        if include_declaration
            && matches!(f.role, FileRole::Data | FileRole::Loose)
            && layer_defines(&f.layer, &root)
        {
            for span in locate::root_definitions(f, &root) {
                found.push((f.source.path.clone(), span.start, loc(span)));
            }
        }
    }
    found.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    found.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    found.into_iter().map(|(_, _, l)| l).collect()
}

fn touches(a: Range, b: Range) -> bool {
    let key = |p: Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

/// Whether the client wants actions of `kind` (LSP kinds are hierarchical: asking for `source`
/// includes `source.fixAll`).
fn wanted(only: Option<&[CodeActionKind]>, kind: &CodeActionKind) -> bool {
    only.is_none_or(|ks| {
        ks.iter().any(|k| {
            kind.as_str() == k.as_str()
                || kind
                    .as_str()
                    .strip_prefix(k.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    })
}

/// `textDocument/codeAction`: a quick fix for every diagnostic with a [`crate::diag::Fix`] whose
/// range touches the requested one, and `source.fixAll` for all of the file's fixes. As with
/// `hieralint check --fix`, a fix is offered only when the file gives Puppet the same data
/// after it ([`fix::preserves_data`]).
pub fn code_actions(
    ws: &Workspace,
    path: &Path,
    range: Range,
    only: Option<&[CodeActionKind]>,
) -> Vec<CodeActionOrCommand> {
    let Some((_, diags)) = ws.published_for(path) else {
        return Vec::new();
    };
    let safe = |d: &&crate::diag::Diagnostic| {
        d.fix.as_ref().is_some_and(|f| {
            let text = d.primary.file.text();
            let (after, applied, _) = fix::apply_to_text(text, &[f]);
            applied == 1 && fix::preserves_data(&d.primary.file.path, text, &after)
        })
    };
    let fixable: Vec<&crate::diag::Diagnostic> = diags.iter().filter(safe).collect();
    let mut out = Vec::new();
    if wanted(only, &CodeActionKind::QUICKFIX) {
        for d in &fixable {
            let Some(f) = &d.fix else { continue };
            let coords = ws.coords(&d.primary.file);
            if !touches(coords.range(d.primary.span), range) {
                continue;
            }
            let uri = ws.uri_for(&d.primary.file.path);
            let edit = TextEdit::new(coords.range(f.span), f.replacement.clone());
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: f.title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![ws.to_lsp(d, &coords)]),
                edit: Some(WorkspaceEdit::new(HashMap::from([(uri, vec![edit])]))),
                command: None,
                is_preferred: Some(true),
                disabled: None,
                data: None,
            }));
        }
    }
    // All of the file's fixes at once: offered in menus when there is more than one, and
    // whenever the client asks for `source.fixAll` (on save).
    let asked = only.is_some_and(|ks| !ks.is_empty());
    if wanted(only, &CodeActionKind::SOURCE_FIX_ALL) && (fixable.len() > 1 || asked) {
        let owned: Vec<crate::diag::Diagnostic> = fixable.iter().map(|d| (*d).clone()).collect();
        let (plans, _) = fix::plan_checked(&owned);
        for ff in plans.into_iter().filter(|ff| ff.file.path == path) {
            let coords = ws.coords(&ff.file);
            let whole = Range::new(coords.position(0), coords.position(ff.file.text().len()));
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Fix all hieralint problems in this file ({})", ff.applied),
                kind: Some(CodeActionKind::SOURCE_FIX_ALL),
                diagnostics: None,
                edit: Some(WorkspaceEdit::new(HashMap::from([(
                    ws.uri_for(&ff.file.path),
                    vec![TextEdit::new(whole, ff.fixed)],
                )]))),
                command: None,
                is_preferred: None,
                disabled: None,
                data: None,
            }));
        }
    }
    out
}

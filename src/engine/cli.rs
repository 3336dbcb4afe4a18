//! `hieralint lookup`: `puppet lookup` without Puppet (reference §8), plus a batch mode.
//!
//! ```text
//! hieralint lookup [KEY...] [--codedir DIR] [--environment NAME] [--facts FILE] [--node NAME]
//!     [--hiera-config FILE] [--merge first|unique|hash|deep] [--knock-out-prefix P]
//!     [--sort-merged-arrays] [--merge-hash-arrays] [--default VALUE] [--explain]
//!     [--render-as s|json|yaml] [--puppet 7|8] [--keys-file FILE --format jsonl]
//! ```
//!
//! Without `--codedir` the current directory is the environment; with it, the environment is
//! `<codedir>/environments/<environment>` (default `production`). Output and exit codes follow
//! `puppet lookup`: the rendered value and 0; 1 when nothing is found or the lookup fails; with
//! `--explain`, the explanation and 0. Usage errors exit 2 with Puppet's messages. The batch mode
//! prints one JSON line per key of `--keys-file`, in order, and exits 1 if any key was not found
//! or failed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    Engine, EngineOptions, EnvironmentSpec, LookupRequest, LookupResult, PuppetVersion, Scope,
    Trusted,
};
use crate::loader;
use crate::span::SourceFile;
use crate::value::{Hash, Value};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct LookupArgs {
    /// The keys to look up (the first one found wins)
    pub keys: Vec<String>,
    /// Puppet's codedir; the environment is `<codedir>/environments/<environment>`
    #[arg(long, value_name = "DIR")]
    pub codedir: Option<PathBuf>,
    /// The environment name
    #[arg(long, value_name = "NAME", default_value = "production")]
    pub environment: String,
    /// Facts (JSON or YAML); a `trusted` hash sets trusted data and the node name, a
    /// `server_facts` hash sets `$server_facts`
    #[arg(long, value_name = "FILE")]
    pub facts: Option<PathBuf>,
    /// The node name (certname) when the facts do not give one
    #[arg(long, value_name = "NAME")]
    pub node: Option<String>,
    /// The global hiera.yaml (default: `<codedir>/hiera.yaml` when it exists)
    #[arg(long = "hiera-config", value_name = "FILE")]
    pub hiera_config: Option<PathBuf>,
    /// The merge strategy: first, unique, hash or deep
    #[arg(long, value_name = "STRATEGY")]
    pub merge: Option<String>,
    /// With `--merge deep`: the knockout prefix
    #[arg(long = "knock-out-prefix", value_name = "PREFIX")]
    pub knock_out_prefix: Option<String>,
    /// With `--merge deep`: sort merged arrays
    #[arg(long = "sort-merged-arrays")]
    pub sort_merged_arrays: bool,
    /// With `--merge deep`: merge arrays of hashes element by element
    #[arg(long = "merge-hash-arrays")]
    pub merge_hash_arrays: bool,
    /// The value (a string) to return when nothing is found
    #[arg(long, value_name = "VALUE")]
    pub default: Option<String>,
    /// Explain how the value was found
    #[arg(long)]
    pub explain: bool,
    /// Output format: s, json or yaml (default: yaml, or s with --explain)
    #[arg(long = "render-as", value_name = "FORMAT")]
    pub render_as: Option<String>,
    /// The Puppet version to model where 7 and 8 differ
    // Puppet 8 by default, as `check` and the issue's contract have it; Puppet 7.23 answers
    // (what fixtures/conformance records) need `--puppet 7` (reference §11: strict undefined
    // variables, non-hash data files).
    #[arg(long, value_name = "7|8", default_value_t = 8, value_parser = clap::value_parser!(u8).range(7..=8))]
    pub puppet: u8,
    /// Look up every key of this file (one a line), each on its own
    #[arg(long = "keys-file", value_name = "FILE")]
    pub keys_file: Option<PathBuf>,
    /// Batch output format (with --keys-file): jsonl
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

const RUN_HELP: &str = "Run 'puppet lookup --help' for more details";

fn usage(msg: &str) -> i32 {
    let _ = writeln!(std::io::stderr(), "Error: Could not run: {msg}");
    2
}

/// Runs `hieralint lookup`; returns the exit code.
pub fn run(args: &LookupArgs) -> i32 {
    // Buffered: a batch of keys printed one `write` per line (stdout is line-buffered). Flushed
    // before returning, so what was answered is out before any usage message.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let r = run_to(args, &mut out);
    let _ = out.flush();
    match r {
        Ok(code) => code,
        Err(Usage(m)) => usage(&m),
    }
}

/// A usage error (exit 2), with Puppet's message.
#[derive(Debug)]
pub struct Usage(pub String);

/// [`run`], writing to `out` (for tests).
pub fn run_to(args: &LookupArgs, out: &mut dyn Write) -> Result<i32, Usage> {
    // 0 (`LookupArgs::default()`) is the default, as in `check`: Puppet 8.
    let puppet = if args.puppet == 7 {
        PuppetVersion::V7
    } else {
        PuppetVersion::V8
    };
    if (args.sort_merged_arrays || args.merge_hash_arrays || args.knock_out_prefix.is_some())
        && args.merge.as_deref() != Some("deep")
    {
        return Err(Usage(format!(
            "The options --knock-out-prefix, --sort-merged-arrays, and --merge-hash-arrays are only available with '--merge deep'\n{RUN_HELP}"
        )));
    }
    let merge = match args.merge.as_deref() {
        None => None,
        Some("deep") => {
            let mut h = Hash::default();
            h.insert(Value::string("strategy"), Value::string("deep"));
            h.insert(
                Value::string("sort_merged_arrays"),
                Value::Bool(args.sort_merged_arrays),
            );
            h.insert(
                Value::string("merge_hash_arrays"),
                Value::Bool(args.merge_hash_arrays),
            );
            if let Some(p) = &args.knock_out_prefix {
                h.insert(Value::string("knockout_prefix"), Value::string(p.as_str()));
            }
            Some(Value::hash(h))
        }
        Some(m @ ("first" | "unique" | "hash")) => {
            let mut h = Hash::default();
            h.insert(Value::string("strategy"), Value::string(m));
            Some(Value::hash(h))
        }
        Some(_) => {
            return Err(Usage(format!(
                "The --merge option only accepts 'first', 'hash', 'unique', or 'deep'\n{RUN_HELP}"
            )))
        }
    };
    let batch = args.keys_file.is_some();
    let keys: Vec<String> = match &args.keys_file {
        Some(f) => std::fs::read_to_string(f)
            .map_err(|e| Usage(format!("Could not read {}: {e}", f.display())))?
            .lines()
            .map(|l| l.trim_end_matches('\r').to_string())
            .filter(|l| !l.trim().is_empty())
            .collect(),
        None => args.keys.clone(),
    };
    if keys.is_empty() && !batch {
        return Err(Usage("No keys were given to lookup.".into()));
    }
    if batch {
        match args.format.as_deref() {
            None | Some("jsonl") => {}
            Some(f) => return Err(Usage(format!("Unknown batch format '{f}' (only jsonl)"))),
        }
    }
    let format = args.render_as.clone().unwrap_or_else(|| {
        if args.explain {
            "s".into()
        } else {
            "yaml".into()
        }
    });
    if !matches!(format.as_str(), "s" | "json" | "yaml") {
        return Err(Usage(format!("Unknown rendering format '{format}'")));
    }

    let (facts, trusted_v, server_facts) = match &args.facts {
        Some(f) => read_facts(f)?,
        None => (Hash::default(), None, None),
    };
    let trusted = Trusted::for_facts(
        trusted_v.as_ref(),
        &facts,
        args.node.as_deref(),
        "localhost",
    );

    let spec = match &args.codedir {
        Some(c) => {
            let global = args
                .hiera_config
                .clone()
                .or_else(|| Some(c.join("hiera.yaml")).filter(|p| p.is_file()));
            EnvironmentSpec {
                name: args.environment.clone(),
                dir: c.join("environments").join(&args.environment),
                basemodulepath: vec![c.join("modules")],
                global_hiera_config: global,
            }
        }
        None => {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            EnvironmentSpec {
                name: args.environment.clone(),
                dir: cwd,
                basemodulepath: Vec::new(),
                global_hiera_config: args.hiera_config.clone(),
            }
        }
    };
    let engine = Engine::on_disk(spec, EngineOptions::for_puppet(puppet));
    let scope = Arc::new(Scope::for_node(
        &facts,
        &trusted,
        server_facts.as_ref(),
        &args.environment,
    ));
    let default = args.default.as_deref().map(Value::string);

    // What Puppet logs while it looks up (undefined variables under Puppet 7, data files that
    // are not hashes, deprecations) goes to standard error as `puppet lookup` prints it, each
    // once per process (`Session::lookup`'s `warn_once`): one session for every key of a batch,
    // as one Puppet process looks them all up.
    let warn = |o: &crate::engine::LookupOutcome| {
        let mut err = std::io::stderr().lock();
        for w in &o.warnings {
            // `warn_once` (undefined variables) adds where the warning came from, which a
            // lookup never knows (recorded: fixtures/one-compile/undefined-variable-once).
            let location = if super::lookup::undefined_variable_named(w).is_some() {
                "\n   (file & line not available)"
            } else {
                ""
            };
            let _ = writeln!(err, "Warning: {w}{location}");
        }
    };
    if batch {
        let mut code = 0;
        let session = engine.session(scope.clone());
        for key in &keys {
            let req = LookupRequest::new(key)
                .merge(merge.clone())
                .default_value(default.clone());
            let o = session.lookup(&req);
            warn(&o);
            let mut m = serde_json::Map::new();
            m.insert("key".into(), serde_json::Value::String(key.clone()));
            match &o.result {
                LookupResult::Found(v) => {
                    m.insert("value".into(), v.to_json());
                }
                LookupResult::NotFound => {
                    code = 1;
                    m.insert("not_found".into(), serde_json::Value::Bool(true));
                }
                LookupResult::Error(e) => {
                    code = 1;
                    m.insert("error".into(), serde_json::Value::String(e.message.clone()));
                }
            }
            let _ = writeln!(out, "{}", serde_json::Value::Object(m));
        }
        return Ok(code);
    }

    let session = engine.session(scope);
    let req = LookupRequest {
        keys: keys.clone(),
        merge,
        default,
        explain: args.explain,
    };
    let o = session.lookup(&req);
    warn(&o);
    if args.explain {
        if let LookupResult::Error(e) = &o.result {
            if !e.kind.is_lookup_error() {
                let _ = writeln!(std::io::stderr(), "Error: Could not run: {}", e.message);
                return Ok(1);
            }
        }
        let mut ex = o.explain.unwrap_or_default();
        if matches!(o.result, LookupResult::NotFound) {
            // `Lookup.lookup` fails with this LookupError, which the CLI appends.
            ex.reset_to(0);
            ex.accept_text(not_found_message(&keys));
        }
        let text = match format.as_str() {
            "s" => ex.explain(),
            "json" => format!("{}\n", ex.to_json()),
            _ => render_yaml(&ruby_symbols(&ex.to_json(), false)),
        };
        let _ = write!(out, "{text}");
        if !text.ends_with('\n') {
            let _ = writeln!(out);
        }
        return Ok(0);
    }
    match &o.result {
        LookupResult::Found(v) => {
            let text = match format.as_str() {
                "s" => format!("{}\n", v.to_ruby_s()),
                "json" => format!("{}\n", v.to_json()),
                _ => render_yaml(v),
            };
            let _ = write!(out, "{text}");
            Ok(0)
        }
        LookupResult::NotFound => {
            let msg = not_found_message(&keys);
            // puppet lookup prints nothing on stdout for a LookupError; say why on stderr.
            let _ = writeln!(std::io::stderr(), "Error: {msg}");
            Ok(1)
        }
        LookupResult::Error(e) => {
            let _ = writeln!(std::io::stderr(), "Error: Could not run: {}", e.message);
            Ok(1)
        }
    }
}

/// `Lookup.fail_lookup`.
fn not_found_message(keys: &[String]) -> String {
    if keys.len() == 1 {
        format!(
            "Function lookup() did not find a value for the name '{}'",
            keys[0]
        )
    } else {
        format!(
            "Function lookup() did not find a value for any of the names [{}]",
            keys.iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The explain hash as Ruby has it (`to_hash`): symbol keys, and symbols for the `type`,
/// `event` and `merge` values, which `to_yaml` prints as `:name`.
fn ruby_symbols(j: &serde_json::Value, symbol_value: bool) -> Value {
    match j {
        serde_json::Value::Object(m) => Value::hash(
            m.iter()
                .map(|(k, v)| {
                    let sym = matches!(k.as_str(), "type" | "event" | "merge");
                    (Value::Symbol(k.as_str().into()), ruby_symbols(v, sym))
                })
                .collect(),
        ),
        serde_json::Value::Array(a) => {
            Value::array(a.iter().map(|v| ruby_symbols(v, false)).collect())
        }
        serde_json::Value::String(s) if symbol_value => Value::Symbol(s.as_str().into()),
        other => Value::from_json(other),
    }
}

/// Reads `--facts` like `puppet lookup`: `.json` as JSON, `.yaml`/`.yml` as YAML, anything else
/// JSON then YAML. Returns the facts, the `trusted` and `server_facts` entries.
fn read_facts(path: &Path) -> Result<(Hash, Option<Value>, Option<Hash>), Usage> {
    let bytes = std::fs::read(path)
        .map_err(|e| Usage(format!("Could not read {}: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&bytes);
    let p = path.to_string_lossy().into_owned();
    let as_json = || -> Option<Value> {
        serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .map(|j| Value::from_json(&j))
    };
    let as_yaml = || -> Option<Value> {
        let src = SourceFile::new(path, text.as_ref());
        let doc = loader::yaml::load(&src);
        if doc.fatal_issue().is_some() {
            return None;
        }
        doc.root
            .as_ref()
            .map(|n| super::data::symkeys_to_string(&n.to_value()))
    };
    let v = if p.ends_with(".json") {
        as_json()
    } else if p.ends_with(".yaml") || p.ends_with(".yml") {
        as_yaml()
    } else {
        as_json().or_else(as_yaml)
    };
    let Some(Value::Hash(h)) = v else {
        return Err(Usage(format!(
            "Incorrectly formatted data in {p} given via the --facts flag (only accepts yaml and json files)"
        )));
    };
    let trusted_facts = ["hostname", "domain", "fqdn", "clientcert"];
    let has = |k: &str| h.contains_key(&Value::string(k));
    if trusted_facts.iter().any(|k| has(k)) && !trusted_facts.iter().all(|k| has(k)) {
        return Err(Usage(format!(
            "When overriding any of the hostname,domain,fqdn,clientcert facts with {p} given via the --facts flag, they must all be overridden."
        )));
    }
    let trusted = h.get(&Value::string("trusted")).cloned();
    let server = h
        .get(&Value::string("server_facts"))
        .and_then(|v| v.as_hash())
        .cloned();
    let facts: Hash = h
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), Some("trusted" | "server_facts")))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok((facts, trusted, server))
}

// ---------------------------------------------------------------------------------------------
// YAML output like Ruby's `to_yaml` (Psych 4 + libyaml), which `puppet lookup` prints.

/// `value.to_yaml`.
pub fn render_yaml(v: &Value) -> String {
    let mut out = String::from("---");
    match v {
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            emit_seq(&mut out, a, 0);
        }
        Value::Hash(h) if !h.is_empty() => {
            out.push('\n');
            emit_map(&mut out, h, 0);
        }
        other => {
            let s = scalar(other, 0);
            if s.is_empty() {
                out.push('\n');
            } else {
                out.push(' ');
                out.push_str(&s);
                out.push('\n');
            }
        }
    }
    out
}

fn pad(n: usize) -> String {
    " ".repeat(n)
}

fn emit_seq(out: &mut String, a: &[Value], indent: usize) {
    for v in a {
        out.push_str(&pad(indent));
        out.push('-');
        match v {
            Value::Array(x) if !x.is_empty() => {
                // Nested sequences start on the same line.
                out.push(' ');
                let mut inner = String::new();
                emit_seq(&mut inner, x, indent + 2);
                out.push_str(inner.trim_start());
            }
            Value::Hash(h) if !h.is_empty() => {
                out.push(' ');
                let mut inner = String::new();
                emit_map(&mut inner, h, indent + 2);
                out.push_str(inner.trim_start());
            }
            other => {
                let s = scalar(other, indent + 2);
                if !s.is_empty() {
                    out.push(' ');
                    out.push_str(&s);
                }
                out.push('\n');
            }
        }
    }
}

fn emit_map(out: &mut String, h: &Hash, indent: usize) {
    for (k, v) in h.iter() {
        out.push_str(&pad(indent));
        let ks = match k {
            Value::Array(_) | Value::Hash(_) => {
                format!("? {}", scalar(&Value::string(k.to_ruby_s()), indent))
            }
            other => scalar(other, indent),
        };
        out.push_str(&ks);
        out.push(':');
        match v {
            Value::Array(x) if !x.is_empty() => {
                out.push('\n');
                emit_seq(out, x, indent);
            }
            Value::Hash(x) if !x.is_empty() => {
                out.push('\n');
                emit_map(out, x, indent + 2);
            }
            other => {
                let s = scalar(other, indent + 2);
                if !s.is_empty() {
                    out.push(' ');
                    out.push_str(&s);
                }
                out.push('\n');
            }
        }
    }
}

fn scalar(v: &Value, indent: usize) -> String {
    match v {
        Value::Undef => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::BigInt(i) => i.to_string(),
        Value::Sensitive(_) => yaml_string(crate::value::SENSITIVE_TEXT, indent),
        Value::Float(f) if f.is_nan() => ".nan".into(),
        Value::Float(f) if f.is_infinite() => {
            if *f > 0.0 {
                ".inf".into()
            } else {
                "-.inf".into()
            }
        }
        Value::Float(f) => crate::value::ruby_float_to_s(*f),
        Value::Symbol(s) => format!(":{s}"),
        Value::Array(_) => "[]".into(),
        Value::Hash(_) => "{}".into(),
        Value::String(s) => yaml_string(s, indent),
    }
}

fn double_quoted(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '\r' => o.push_str("\\r"),
            '\u{1b}' => o.push_str("\\e"),
            '\0' => o.push_str("\\0"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                o.push_str(&format!("\\x{:02X}", c as u32))
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Psych's `visit_String` style choice, then libyaml's check that a plain scalar is allowed.
fn yaml_string(s: &str, indent: usize) -> String {
    // Multi-line (a newline before the end): literal block.
    let body = s.strip_suffix('\n').unwrap_or(s);
    if body.contains('\n') {
        let chomp = if s.ends_with("\n\n") {
            "+"
        } else if s.ends_with('\n') {
            ""
        } else {
            "-"
        };
        let mut o = format!("|{chomp}");
        for line in body.split('\n') {
            o.push('\n');
            if !line.is_empty() {
                o.push_str(&pad(indent.max(2)));
                o.push_str(line);
            }
        }
        return o;
    }
    if s == "y" || s == "n" {
        return double_quoted(s);
    }
    let first_word = s
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    if !s.is_empty() && !first_word && !s.contains('"') {
        return double_quoted(s);
    }
    if s.chars().any(|c| (c as u32) < 0x20 || c as u32 == 0x7f) {
        return double_quoted(s);
    }
    let arc: Arc<str> = Arc::from(s);
    let typed = loader::psych::tokenize(&arc).resolution.is_some();
    let octal_like = s.starts_with('0')
        && s[1..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .any(|c| c == '8' || c == '9');
    if s.is_empty() || typed || octal_like {
        return single_quoted(s);
    }
    // libyaml: no plain scalar with leading/trailing spaces, `: `, ` #`, or a leading indicator.
    let bad_plain = s.starts_with(' ')
        || s.ends_with(' ')
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%',
            '@', '`',
        ]);
    if bad_plain {
        return single_quoted(s);
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_like_psych() {
        // Recorded with Ruby 3.1 `to_yaml`.
        let s = |x: &str| render_yaml(&Value::string(x));
        assert_eq!(render_yaml(&Value::Undef), "---\n");
        assert_eq!(s("foo"), "--- foo\n");
        assert_eq!(s(""), "--- ''\n");
        assert_eq!(s("a: b"), "--- 'a: b'\n");
        assert_eq!(s("#x"), "--- \"#x\"\n");
        assert_eq!(s("1"), "--- '1'\n");
        assert_eq!(s("null"), "--- 'null'\n");
        assert_eq!(s("~"), "--- \"~\"\n");
        assert_eq!(s("08"), "--- '08'\n");
        assert_eq!(s("a\nb"), "--- |-\n  a\n  b\n");
        assert_eq!(s("yes"), "--- 'yes'\n");
        assert_eq!(s("trail "), "--- 'trail '\n");
        assert_eq!(s("a:b"), "--- a:b\n");
        assert_eq!(s("é"), "--- é\n");
        assert_eq!(render_yaml(&Value::Integer(1)), "--- 1\n");
        assert_eq!(render_yaml(&Value::Float(1e20)), "--- 1.0e+20\n");
        let j: serde_json::Value =
            serde_json::from_str(r#"{"a":null,"b":[],"c":{},"d":[[1,2],{"x":1}],"y":"n"}"#)
                .unwrap();
        assert_eq!(
            render_yaml(&Value::from_json(&j)),
            "---\na:\nb: []\nc: {}\nd:\n- - 1\n  - 2\n- x: 1\n\"y\": \"n\"\n"
        );
    }
}

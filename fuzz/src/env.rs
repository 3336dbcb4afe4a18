//! A structure-aware generator of small Hiera environments for the `check_env` target: a
//! hiera.yaml with 1-4 levels of paths, globs, mapped paths and interpolations, and 1-5 data
//! files (YAML, JSON, HOCON, eyaml) with keys, values, interpolations and `lookup_options`, drawn
//! mostly from a small vocabulary so that levels, files, keys and interpolations meet often
//! (chains, cycles, merges), with some raw bytes mixed in.
//!
//! Nothing generated escapes the environment's parent directory: file paths are sanitised, and
//! location strings never start with `/` (absolute datadirs and `/` are covered by
//! `tests/hostile.rs`, where walking a large tree is the point).

use std::fmt::Write as _;
use std::path::Path;

use arbitrary::{Arbitrary, Result, Unstructured};

/// Names used for keys, path parts and fact values.
const WORDS: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "common",
    "nodes",
    "os",
    "RedHat",
    "web01",
    "x::y",
    "m::k",
    "lookup_options",
    "a.b",
    "'a.b'",
    "0",
    "1",
    "data",
    "",
    " ",
    "%",
    "-",
];

fn word(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 8)? {
        // Something outside the vocabulary (short, printable or not).
        let s: String = u.arbitrary()?;
        return Ok(s.chars().take(12).collect());
    }
    Ok(u.choose(WORDS)?.to_string())
}

/// A key name from the vocabulary (keys must collide often to build chains).
fn key(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 16)? {
        return word(u);
    }
    Ok(
        u.choose(&["a", "b", "c", "d", "x::y", "m::k", "a.b", "b.0", "c.x"])?
            .to_string(),
    )
}

/// One `%{...}` expression.
fn interpolation(u: &mut Unstructured, allow_methods: bool) -> Result<String> {
    let n = if allow_methods { 12 } else { 7 };
    Ok(match u.int_in_range(0..=n)? {
        0 => "%{facts.os.family}".into(),
        1 => "%{trusted.certname}".into(),
        2 => "%{::environment}".into(),
        3 => format!("%{{facts.{}}}", word(u)?),
        4 => format!("%{{{}}}", word(u)?),
        5 => "%{}".into(),
        6 => "%{facts.list.1}".into(),
        7 => format!("%{{lookup('{}')}}", key(u)?),
        8 => format!("%{{hiera(\"{}\")}}", key(u)?),
        9 => format!("%{{alias('{}')}}", key(u)?),
        10 => format!("%{{scope('{}')}}", word(u)?),
        11 => "%{literal('%')}".into(),
        _ => format!("%{{{}('{}')}}", word(u)?, key(u)?),
    })
}

/// A string of literal words and interpolations.
fn interpolated_string(u: &mut Unstructured, allow_methods: bool) -> Result<String> {
    let mut s = String::new();
    for _ in 0..u.int_in_range(0..=3)? {
        if u.ratio(1, 2)? {
            s.push_str(&interpolation(u, allow_methods)?);
        } else {
            s.push_str(&word(u)?);
        }
    }
    Ok(s)
}

/// A relative location (path or glob) inside the datadir.
fn location(u: &mut Unstructured, glob: bool) -> Result<String> {
    let mut s = String::new();
    let parts = u.int_in_range(1..=4)?;
    for i in 0..parts {
        if i > 0 {
            s.push('/');
        }
        let max = if glob { 8 } else { 4 };
        match u.int_in_range(0..=max)? {
            0 | 1 => s.push_str(&word(u)?),
            2 => s.push_str(&interpolation(u, false)?),
            3 => s.push_str(".."),
            4 => s.push('.'),
            5 => s.push('*'),
            6 => s.push_str("**"),
            7 => s.push_str("{a,b,common}"),
            _ => s.push_str("[a-z]?"),
        }
    }
    if u.ratio(2, 3)? {
        s.push_str(u.choose(&[".yaml", ".json", ".conf", ".eyaml", ".yml", ""])?);
    }
    // Never absolute: walking `/` is a hostile-suite case, not a fuzzing one.
    Ok(s.trim_start_matches('/').to_string())
}

/// YAML/JSON/HOCON all read a JSON string literal the same way.
fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A leaf value, rendered as a JSON literal (valid in all three formats).
fn leaf(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=9)? {
        0..=4 => quote(&interpolated_string(u, true)?),
        5 => u.int_in_range(-3i64..=3)?.to_string(),
        6 => u.choose(&["true", "false", "null"])?.to_string(),
        7 => u.choose(&["1.5", "-0.0", "1e3"])?.to_string(),
        8 => quote(&format!("--{}", word(u)?)),
        _ => quote(&word(u)?),
    })
}

/// A value nested at most `depth` containers deep, as a JSON text.
fn value(u: &mut Unstructured, depth: u32) -> Result<String> {
    if depth == 0 || u.ratio(3, 5)? {
        return leaf(u);
    }
    let n = u.int_in_range(0..=3)?;
    let mut items = Vec::new();
    if u.ratio(1, 2)? {
        for _ in 0..n {
            items.push(value(u, depth - 1)?);
        }
        Ok(format!("[{}]", items.join(", ")))
    } else {
        for _ in 0..n {
            items.push(format!("{}: {}", quote(&key(u)?), value(u, depth - 1)?));
        }
        Ok(format!("{{{}}}", items.join(", ")))
    }
}

/// A `lookup_options` hash.
fn lookup_options(u: &mut Unstructured) -> Result<String> {
    let mut entries = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let pattern = if u.ratio(1, 4)? {
            quote(u.choose(&["^a.*", "^(b|c)$", "^[", "x::.*"])?)
        } else {
            quote(&key(u)?)
        };
        let merge = match u.int_in_range(0..=7)? {
            0 => quote("first"),
            1 => quote("unique"),
            2 => quote("hash"),
            3 => quote("deep"),
            4 => r#"{"strategy": "deep", "knockout_prefix": "--", "sort_merged_arrays": true, "merge_hash_arrays": true}"#.into(),
            5 => quote(&word(u)?),
            6 => r#"{"strategy": "unique"}"#.into(),
            _ => "{}".into(),
        };
        let mut opts = format!("\"merge\": {merge}");
        if u.ratio(1, 4)? {
            let t = u.choose(&["Array", "Sensitive", "Hash", "Integer", "Foo[", "String"])?;
            write!(opts, ", \"convert_to\": {}", quote(t)).ok();
        }
        entries.push(format!("{pattern}: {{{opts}}}"));
    }
    Ok(format!("{{{}}}", entries.join(", ")))
}

/// A data file: its path relative to the environment and its bytes.
#[derive(Debug)]
pub struct DataFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// A generated environment: hiera.yaml's text and the data files.
#[derive(Debug)]
pub struct Env {
    pub hiera_yaml: String,
    pub files: Vec<DataFile>,
    /// Keys worth looking up.
    pub keys: Vec<String>,
}

fn hierarchy_level(u: &mut Unstructured, i: usize) -> Result<String> {
    let mut s = format!("  - name: {}\n", quote(&format!("level {i}")));
    if u.ratio(1, 4)? {
        writeln!(s, "    datadir: {}", quote(&location(u, false)?)).ok();
    }
    match u.int_in_range(0..=6)? {
        0 => writeln!(s, "    path: {}", quote(&location(u, false)?)),
        1 => {
            let a = location(u, false)?;
            let b = location(u, false)?;
            writeln!(s, "    paths: [{}, {}]", quote(&a), quote(&b))
        }
        2 => writeln!(s, "    glob: {}", quote(&location(u, true)?)),
        3 => writeln!(s, "    globs: [{}]", quote(&location(u, true)?)),
        4 => writeln!(
            s,
            "    mapped_paths: [{}, x, {}]",
            quote(u.choose(&["facts.list", "facts.os", "trusted.certname", "nope"])?),
            quote(&format!("{}/%{{x}}.yaml", word(u)?))
        ),
        5 => writeln!(s, "    uri: {}", quote(&location(u, false)?)),
        _ => Ok(()),
    }
    .ok();
    match u.int_in_range(0..=6)? {
        0 => s.push_str("    data_hash: json_data\n"),
        1 => s.push_str("    data_hash: hocon_data\n"),
        2 => s.push_str(
            "    lookup_key: eyaml_lookup_key\n    options:\n      pkcs7_private_key: k.pem\n",
        ),
        3 => s.push_str("    data_dig: nope\n"),
        _ => {}
    }
    if u.ratio(1, 8)? {
        writeln!(s, "    {}: {}", word(u)?, leaf(u)?).ok();
    }
    Ok(s)
}

impl<'a> Arbitrary<'a> for Env {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mut y = String::from("---\n");
        match u.int_in_range(0..=15)? {
            0 => y.push_str("version: 4\n"),
            1 => y.push_str("version: 3\n"),
            2 => {}
            _ => y.push_str("version: 5\n"),
        }
        if u.ratio(1, 2)? {
            y.push_str("defaults:\n");
            writeln!(
                y,
                "  datadir: {}",
                quote(u.choose(&["data", "..", ".", "data/%{::environment}", "nope"])?)
            )
            .ok();
            writeln!(
                y,
                "  data_hash: {}",
                u.choose(&["yaml_data", "json_data", "hocon_data", "nope"])?
            )
            .ok();
        }
        y.push_str("hierarchy:\n");
        for i in 0..u.int_in_range(1..=4)? {
            y.push_str(&hierarchy_level(u, i)?);
        }
        if u.ratio(1, 16)? {
            // A raw tail (broken YAML, odd keys).
            let tail: String = u.arbitrary()?;
            y.push_str(&tail.chars().take(64).collect::<String>());
        }

        let mut files = Vec::new();
        for _ in 0..u.int_in_range(1..=5)? {
            let dir = *u.choose(&[
                "data",
                "data/nodes",
                "data/os",
                "data/a",
                "data/production",
                ".",
            ])?;
            let stem = *u.choose(&["common", "web01", "RedHat", "a", "b", "x"])?;
            let ext = *u.choose(&["yaml", "json", "conf", "eyaml", "yml"])?;
            let path = format!("{dir}/{stem}.{ext}");
            let bytes = if u.ratio(1, 10)? {
                let raw: &[u8] = u.arbitrary()?;
                raw.iter().copied().take(256).collect()
            } else {
                let mut entries = Vec::new();
                for _ in 0..u.int_in_range(0..=5)? {
                    entries.push((quote(&key(u)?), value(u, 2)?));
                }
                if u.ratio(1, 3)? {
                    entries.push((quote("lookup_options"), lookup_options(u)?));
                }
                match ext {
                    "json" => format!(
                        "{{{}}}",
                        entries
                            .iter()
                            .map(|(k, v)| format!("{k}: {v}"))
                            .collect::<Vec<_>>()
                            .join(",\n")
                    ),
                    "conf" => entries.iter().map(|(k, v)| format!("{k}: {v}\n")).collect(),
                    _ => {
                        let mut t = String::from("---\n");
                        for (k, v) in &entries {
                            writeln!(t, "{k}: {v}").ok();
                        }
                        t
                    }
                }
                .into_bytes()
            };
            files.push(DataFile { path, bytes });
        }
        let mut keys: Vec<String> = [
            "a",
            "b",
            "c",
            "d",
            "x::y",
            "m::k",
            "a.b",
            "b.0",
            "lookup_options",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if u.ratio(1, 4)? {
            keys.push(word(u)?);
        }
        Ok(Env {
            hiera_yaml: y,
            files,
            keys,
        })
    }
}

impl Env {
    /// Writes the environment into `dir` (which must exist and be empty).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::write(dir.join("hiera.yaml"), &self.hiera_yaml)?;
        for f in &self.files {
            let p = dir.join(&f.path);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(p, &f.bytes)?;
        }
        Ok(())
    }
}

//! Writes a synthetic control repo for benchmarks (see `corpus.rs` and docs/benchmarks.md).
//!
//! ```text
//! cargo run --release --example gen_corpus -- --files 1500 --facts 100 --seed 1 --out DIR
//! cargo run --release --example gen_corpus -- --files 1500 --facts 1000 --cache-dir target/bench-corpus
//! ```
//!
//! With `--cache-dir BASE` the corpus goes to `BASE/<files,facts,seed,version>/` unless a
//! complete copy is already there (the one `cargo bench` uses), and that path is printed on
//! stdout.

mod corpus;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: gen_corpus --out DIR [--files N (1500)] [--facts N (100)] [--seed N (1)] \
                     [--facterdb DIR (/work/shared/facts/facterdb-4.5)]";

fn main() -> ExitCode {
    let mut cfg = corpus::Config::new(1500, 100, 1);
    let mut out: Option<PathBuf> = None;
    let mut cache: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let parsed: Result<(), String> = match a.as_str() {
            "--files" => value("--files").and_then(|v| {
                v.parse()
                    .map(|n| cfg.files = n)
                    .map_err(|e| format!("--files: {e}"))
            }),
            "--facts" => value("--facts").and_then(|v| {
                v.parse()
                    .map(|n| cfg.facts = n)
                    .map_err(|e| format!("--facts: {e}"))
            }),
            "--seed" => value("--seed").and_then(|v| {
                v.parse()
                    .map(|n| cfg.seed = n)
                    .map_err(|e| format!("--seed: {e}"))
            }),
            "--facterdb" => value("--facterdb").map(|v| cfg.facterdb = PathBuf::from(v)),
            "--out" => value("--out").map(|v| out = Some(PathBuf::from(v))),
            "--cache-dir" => value("--cache-dir").map(|v| cache = Some(PathBuf::from(v))),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => Err(format!("unknown argument `{other}`")),
        };
        if let Err(e) = parsed {
            eprintln!("gen_corpus: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    if let Some(base) = cache {
        let made = std::fs::create_dir_all(&base).and_then(|()| corpus::ensure_cached(&cfg, &base));
        return match made {
            Ok(dir) => {
                println!("{}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("gen_corpus: cannot write under {}: {e}", base.display());
                ExitCode::FAILURE
            }
        };
    }
    let Some(out) = out else {
        eprintln!("gen_corpus: --out or --cache-dir is required\n{USAGE}");
        return ExitCode::from(2);
    };
    let started = std::time::Instant::now();
    match corpus::generate(&cfg, &out) {
        Ok(s) => {
            eprintln!(
                "gen_corpus: wrote {} hiera files ({:.1} MB, {} top-level keys, {} of {} strings \
                 interpolated), {} nodes ({} JSON), {} roles, {} sites, {} modules, {} fact sets \
                 ({} match a node file), {} seeded defects (DEFECTS.tsv) to {} in {:.2?}",
                s.hiera_files,
                s.data_bytes as f64 / 1e6,
                s.top_level_keys,
                s.interpolated_strings,
                s.strings,
                s.nodes,
                s.node_files_json,
                s.roles,
                s.sites,
                s.modules,
                s.fact_sets,
                s.fact_sets_matching_a_node,
                s.defects,
                out.display(),
                started.elapsed()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_corpus: cannot write {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

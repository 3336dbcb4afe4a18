//! The benchmark suite of issue #5 (docs/benchmarks.md): load-and-parse, full check without and
//! with fact sets, the one-file re-check of a warm process, fact-set loading, and lookups per
//! second through the engine, on control
//! repos written by the corpus generator (examples/gen_corpus) and cached under
//! `target/bench-corpus/`.
//!
//! Everything goes through the public pipeline (`scan::load_project`, `check::check`,
//! `check::recheck_file`, `Engine::session(..).lookup(..)`), so later work on the rules, the engine and fact-set evaluation shows up
//! here without changing this file.
//!
//! `cargo bench --bench check` runs all groups on the 1.5k, 5k and 15k-file corpora;
//! `HIERALINT_BENCH_SIZES=1500 cargo bench --bench check -- load` runs one group on one size.
//! `HIERALINT_BENCH_CPU=1` measures process CPU time (user+system, all threads) instead of wall
//! time, under group names starting with `cpu/`: on a machine shared with other work, wall time
//! mostly measures the neighbours.

#[path = "../examples/gen_corpus/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};

use hieralint::check::{self, CheckOptions};
use hieralint::scan;

/// Fact sets written with each corpus (the largest count a group uses).
const FACT_SETS: usize = 1000;
const SEED: u64 = 1;

fn sizes() -> Vec<usize> {
    std::env::var("HIERALINT_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| vec![1500, 5000, 15000])
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// The cached corpus for `files`, generated on first use.
fn corpus(files: usize) -> PathBuf {
    let cfg = corpus::Config::new(files, FACT_SETS, SEED);
    let base = target_dir().join("bench-corpus");
    std::fs::create_dir_all(&base).expect("create target/bench-corpus");
    corpus::ensure_cached(&cfg, &base).expect("generate the benchmark corpus")
}

/// The first `n` fact-set files of a corpus, by name.
fn fact_files(dir: &Path, n: usize) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("facts"))
        .expect("corpus facts/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    v.sort();
    v.truncate(n);
    assert_eq!(v.len(), n, "the corpus has {FACT_SETS} fact sets");
    v
}

fn options(dir: &Path, facts: Vec<PathBuf>) -> CheckOptions {
    CheckOptions {
        paths: vec![dir.to_path_buf()],
        facts,
        ..CheckOptions::default()
    }
}

/// Bytes of the files a scan loads (for MB/s figures).
fn loaded_bytes(dir: &Path) -> u64 {
    let (project, _) = scan::load_project(&[dir.to_path_buf()]);
    project
        .files
        .iter()
        .map(|f| f.source.text.len() as u64)
        .sum()
}

/// Process CPU time: user and system time of every thread of this process.
struct CpuTime;

fn cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        cpu_now()
    }
    fn end(&self, started: Duration) -> Duration {
        cpu_now().saturating_sub(started)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // nanoseconds, shown like wall time
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

/// A measurement budget that keeps `cargo bench` in minutes on a shared 2-core machine.
fn tune<M: Measurement>(group: &mut BenchmarkGroup<'_, M>, files: usize) {
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(if files >= 10_000 { 6 } else { 3 }));
}

/// Discovery, reading and parsing every file: the floor a check cannot go below.
fn load_and_parse<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    let mut group = c.benchmark_group(format!("{prefix}load"));
    for files in sizes() {
        let dir = corpus(files);
        tune(&mut group, files);
        group.throughput(Throughput::Bytes(loaded_bytes(&dir)));
        group.bench_with_input(BenchmarkId::from_parameter(files), &dir, |b, dir| {
            b.iter(|| scan::load_project(std::slice::from_ref(dir)))
        });
    }
    group.finish();
}

/// `hieralint check DIR` without facts (the data-implied mode), in-process.
fn check_without_facts<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    let mut group = c.benchmark_group(format!("{prefix}check"));
    for files in sizes() {
        let dir = corpus(files);
        tune(&mut group, files);
        group.throughput(Throughput::Bytes(loaded_bytes(&dir)));
        let opts = options(&dir, Vec::new());
        group.bench_with_input(BenchmarkId::from_parameter(files), &opts, |b, o| {
            b.iter(|| check::check(o))
        });
    }
    group.finish();
}

/// `hieralint check DIR --facts F...`: the fact-set counts of the issue on the smallest corpus
/// (growth in fact sets), and 1,000 fact sets on every corpus (growth in files; the 15k x 1,000
/// case is the 5 s target).
fn check_with_facts<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    let mut group = c.benchmark_group(format!("{prefix}check-facts"));
    let sizes = sizes();
    for &files in &sizes {
        let dir = corpus(files);
        tune(&mut group, files);
        let counts: &[usize] = if files == sizes[0] {
            &[10, 100, 1000]
        } else {
            &[1000]
        };
        for &n in counts {
            let opts = options(&dir, fact_files(&dir, n));
            group.bench_with_input(
                BenchmarkId::from_parameter(format!("{files}x{n}")),
                &opts,
                |b, o| b.iter(|| check::check(o)),
            );
        }
    }
    group.finish();
}

/// The engine-backed analysis the fact-set rules share (`analysis::analyze`: one engine per
/// environment, every fact set's hierarchy resolved, fact sets that read the same files grouped).
/// `check` builds it on first use by a rule, so this group measures the fact-set cost ahead of
/// the rules that will use it. Fact-set counts as in `check-facts`; `0` is the data-implied mode
/// (no `--facts`).
fn analysis_groups<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    use hieralint::engine::PuppetVersion;

    let mut group = c.benchmark_group(format!("{prefix}analysis"));
    let sizes = sizes();
    for &files in &sizes {
        let dir = corpus(files);
        tune(&mut group, files);
        let (project, _) = scan::load_project(std::slice::from_ref(&dir));
        let counts: &[usize] = if files == sizes[0] {
            &[0, 10, 100, 1000]
        } else {
            &[0, 1000]
        };
        for &n in counts {
            let (sets, errors) = hieralint::facts::load_fact_sets(&fact_files(&dir, n));
            assert!(errors.is_empty(), "{errors:?}");
            group.bench_function(BenchmarkId::from_parameter(format!("{files}x{n}")), |b| {
                b.iter(|| hieralint::analysis::analyze(&project, &sets, PuppetVersion::V8))
            });
        }
    }
    group.finish();
}

/// The editor case: a warm process holds the loaded project; one file changes; re-read it and
/// re-run the rules. The largest file (common.yaml) and a typical node file.
fn recheck_one_file<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    let mut group = c.benchmark_group(format!("{prefix}recheck"));
    for files in sizes() {
        let dir = corpus(files);
        tune(&mut group, files);
        let opts = options(&dir, Vec::new());
        let mut project = check::check(&opts).project;
        let common = dir.join("data/common.yaml");
        let node = project
            .files
            .iter()
            .map(|f| f.source.path.clone())
            .find(|p| p.starts_with(dir.join("data/nodes")))
            .expect("a node file");
        for (what, path) in [("common", common), ("node", node)] {
            assert!(
                check::recheck_file(&mut project, &path, &opts).is_some(),
                "{} is part of the project",
                path.display()
            );
            group.bench_function(BenchmarkId::new(what, files), |b| {
                b.iter(|| check::recheck_file(&mut project, &path, &opts))
            });
        }
    }
    group.finish();
}

/// Reading 1,000 fact sets (facter 4 JSON, ~10 kB each): a fixed cost of every run with facts.
fn load_facts<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    let mut group = c.benchmark_group(format!("{prefix}facts-load"));
    let dir = corpus(sizes()[0]);
    tune(&mut group, 0);
    for n in [100, 1000] {
        let files = fact_files(&dir, n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &files, |b, f| {
            b.iter(|| hieralint::facts::load_fact_sets(f))
        });
    }
    group.finish();
}

/// Lookups per second through the engine (`Engine::session(..).lookup(..)`), one node (the
/// corpus' first fact set), every key of the corpus' lookup-keys.txt (the keys
/// tools/bench/peers.sh gives Puppet's batch oracle). `cold`: a new Engine each time, so the
/// data files the hierarchy reaches are read and parsed, as in the oracle's one pass; `warm`: the
/// Engine (its parsed-file and hiera.yaml caches) is kept and each pass opens a new Session, as a
/// long-running process (an editor, a check over many nodes) does.
fn lookups<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    use hieralint::engine::{
        Engine, EngineOptions, EnvironmentSpec, LookupRequest, PuppetVersion, Scope, Trusted,
    };
    use hieralint::value::Hash;

    let mut group = c.benchmark_group(format!("{prefix}lookup"));
    for files in sizes() {
        let dir = corpus(files);
        tune(&mut group, files);
        let keys: Vec<String> = std::fs::read_to_string(dir.join("lookup-keys.txt"))
            .expect("lookup-keys.txt")
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        let (sets, errors) = hieralint::facts::load_fact_sets(&fact_files(&dir, 1));
        assert!(errors.is_empty(), "{errors:?}");
        let fs = &sets[0];
        let empty = Hash::default();
        let scope = std::sync::Arc::new(Scope::for_node(
            fs.facts.as_hash().unwrap_or(&empty),
            &Trusted::from_value(&fs.trusted),
            fs.server_facts.as_ref().and_then(|v| v.as_hash()),
            "production",
        ));
        // Puppet 7's defaults, as the oracle runs
        let engine = || {
            Engine::on_disk(
                EnvironmentSpec::standalone(&dir, "production"),
                EngineOptions::for_puppet(PuppetVersion::V7),
            )
        };
        let requests: Vec<LookupRequest> = keys.iter().map(|k| LookupRequest::new(k)).collect();
        let pass = |e: &Engine| {
            let session = e.session(scope.clone());
            requests
                .iter()
                .filter(|r| session.lookup(r).value().is_some())
                .count()
        };
        let warm = engine();
        let found = pass(&warm);
        assert!(
            found * 10 >= keys.len() * 9,
            "most keys are found ({found} of {})",
            keys.len()
        );
        group.throughput(Throughput::Elements(keys.len() as u64));
        group.bench_function(BenchmarkId::new("cold", files), |b| {
            b.iter(|| pass(&engine()))
        });
        group.bench_function(BenchmarkId::new("warm", files), |b| b.iter(|| pass(&warm)));
    }
    group.finish();
}

fn run_all<M: Measurement>(c: &mut Criterion<M>, prefix: &str) {
    load_and_parse(c, prefix);
    check_without_facts(c, prefix);
    check_with_facts(c, prefix);
    analysis_groups(c, prefix);
    recheck_one_file(c, prefix);
    load_facts(c, prefix);
    lookups(c, prefix);
}

// The allocator the hieralint binary uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::var_os("HIERALINT_BENCH_CPU").is_some_and(|v| !v.is_empty() && v != "0") {
        let mut c = Criterion::default()
            .with_measurement(CpuTime)
            .configure_from_args();
        run_all(&mut c, "cpu/");
        c.final_summary();
    } else {
        let mut c = Criterion::default().configure_from_args();
        run_all(&mut c, "");
        c.final_summary();
    }
}

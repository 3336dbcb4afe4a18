//! Phase timestamps for performance work: with `HIERALINT_TIMINGS=1` in the environment, `check`
//! prints how long each phase of the run took (walk and plan, load, file rules, analysis,
//! project rules, output) to standard error. Off, a mark costs one atomic load.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static ON: OnceLock<bool> = OnceLock::new();
static MARKS: Mutex<Vec<(&'static str, Instant, f64, f64)>> = Mutex::new(Vec::new());
static START: OnceLock<Instant> = OnceLock::new();
/// How long each rule ran, summed over its calls (file rules run once per file; rules run in
/// parallel: the times overlap).
static RULES: Mutex<Vec<(&'static str, f64)>> = Mutex::new(Vec::new());

fn on() -> bool {
    *ON.get_or_init(|| std::env::var_os("HIERALINT_TIMINGS").is_some_and(|v| v != "0"))
}

/// Notes when the run started (the first thing `main` does).
pub fn start() {
    START.get_or_init(Instant::now);
}

/// The process's CPU time so far (user and system, every thread), in milliseconds.
fn cpu_ms() -> f64 {
    #[cfg(unix)]
    {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } == 0 {
            let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
            return ms(u.ru_utime) + ms(u.ru_stime);
        }
    }
    0.0
}

/// The process's resident memory now, in MiB (Linux; 0 elsewhere). Fresh pages are zeroed by
/// the kernel when first touched, a cost perf shows as a large share of a run's CPU.
fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |pages| pages * 4096.0 / (1024.0 * 1024.0))
}

/// Records that the phase named `what` ends now, with the CPU time spent so far (a phase's
/// CPU time over its wall time says how parallel it ran) and the resident memory.
pub fn mark(what: &'static str) {
    if on() {
        let cpu = cpu_ms();
        let rss = rss_mib();
        if let Ok(mut m) = MARKS.lock() {
            m.push((what, Instant::now(), cpu, rss));
        }
    }
}

/// Runs `f`, adding its time to the rule `name`'s when timings are on.
pub fn rule<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    if !on() {
        return f();
    }
    let t = Instant::now();
    let out = f();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if let Ok(mut r) = RULES.lock() {
        match r.iter_mut().find(|(n, _)| *n == name) {
            Some((_, total)) => *total += ms,
            None => r.push((name, ms)),
        }
    }
    out
}

/// Writes the phases recorded since [`start`] to standard error, one line each, then each
/// rule's own time (summed over files for the file rules), longest first.
pub fn report() {
    if !on() {
        return;
    }
    let Some(&start) = START.get() else { return };
    let Ok(m) = MARKS.lock() else { return };
    let mut prev = start;
    let mut prev_cpu = 0.0;
    for (what, t, cpu, rss) in m.iter() {
        eprintln!(
            "hieralint timing: {what:<14} {:>8.2} ms (at {:>8.2} ms), cpu {:>8.2} ms, rss {rss:>6.1} MiB",
            t.duration_since(prev).as_secs_f64() * 1e3,
            t.duration_since(start).as_secs_f64() * 1e3,
            cpu - prev_cpu
        );
        prev = *t;
        prev_cpu = *cpu;
    }
    if let Ok(mut r) = RULES.lock() {
        r.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        // Rules without a project phase return at once: not listed.
        for (name, ms) in r.iter().filter(|(_, ms)| *ms >= 0.01) {
            eprintln!("hieralint timing:   rule {name:<28} {ms:>8.2} ms");
        }
    }
}

//! Phase timestamps for performance work: with `HIERALINT_TIMINGS=1` in the environment, `check`
//! prints how long each phase of the run took (walk and plan, load, file rules, analysis,
//! project rules, output) to standard error. Off, a mark costs one atomic load.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static ON: OnceLock<bool> = OnceLock::new();
static MARKS: Mutex<Vec<(&'static str, Instant)>> = Mutex::new(Vec::new());
static START: OnceLock<Instant> = OnceLock::new();

fn on() -> bool {
    *ON.get_or_init(|| std::env::var_os("HIERALINT_TIMINGS").is_some_and(|v| v != "0"))
}

/// Notes when the run started (the first thing `main` does).
pub fn start() {
    START.get_or_init(Instant::now);
}

/// Records that the phase named `what` ends now.
pub fn mark(what: &'static str) {
    if on() {
        if let Ok(mut m) = MARKS.lock() {
            m.push((what, Instant::now()));
        }
    }
}

/// Writes the phases recorded since [`start`] to standard error, one line each.
pub fn report() {
    if !on() {
        return;
    }
    let Some(&start) = START.get() else { return };
    let Ok(m) = MARKS.lock() else { return };
    let mut prev = start;
    for (what, t) in m.iter() {
        eprintln!(
            "hieralint timing: {what:<14} {:>8.2} ms (at {:>8.2} ms)",
            t.duration_since(prev).as_secs_f64() * 1e3,
            t.duration_since(start).as_secs_f64() * 1e3
        );
        prev = *t;
    }
}

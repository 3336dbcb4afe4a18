//! The progress bar of long `hieralint check` runs, on stderr (issue 5): drawn only when stderr
//! is a terminal and the run has lasted longer than [`DELAY`], and cleared when the run ends.
//! Redirected or piped output never holds progress bytes, and a quick run (a pre-commit hook)
//! never flickers a bar.
//!
//! The command line installs a reporter ([`install`]) for the run; the scanner and the rule
//! phases report their work through [`phase`] and [`inc`], which do nothing when no reporter is
//! installed (the library, the language server, tests).

use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before the bar appears.
pub const DELAY: Duration = Duration::from_millis(700);

/// [`DELAY`], or `HIERALINT_PROGRESS_DELAY_MS` (the tests set 0 to show the bar at once).
fn delay() -> Duration {
    std::env::var("HIERALINT_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(DELAY, Duration::from_millis)
}

static CURRENT: RwLock<Option<Arc<ProgressBar>>> = RwLock::new(None);

/// Whether a run should ever draw a bar: only on a terminal, and never in quiet runs.
pub fn wanted(stderr_is_terminal: bool, quiet: bool) -> bool {
    stderr_is_terminal && !quiet
}

/// The reporter of one run; dropping it clears the bar and uninstalls it.
pub struct Guard {
    bar: Arc<ProgressBar>,
    stop: Option<Sender<()>>,
    waiter: Option<std::thread::JoinHandle<()>>,
}

/// Installs the reporter of a run. With `draw` false (stderr is not a terminal) the bar stays
/// hidden for the whole run; otherwise it is drawn on stderr once the run has lasted [`DELAY`].
pub fn install(draw: bool) -> Guard {
    let bar = Arc::new(ProgressBar::with_draw_target(
        Some(0),
        ProgressDrawTarget::hidden(),
    ));
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {msg:9} [{bar:30}] {pos}/{len} ({elapsed})")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    if let Ok(mut c) = CURRENT.write() {
        *c = Some(bar.clone());
    }
    let (stop, waiter) = if draw {
        let (tx, rx) = channel::<()>();
        let shown = bar.clone();
        let waiter = std::thread::spawn(move || {
            // A message or a hang-up means the run ended first: nothing is drawn.
            if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(delay()) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
            }
        });
        (Some(tx), Some(waiter))
    } else {
        (None, None)
    };
    Guard { bar, stop, waiter }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(mut c) = CURRENT.write() {
            *c = None;
        }
        // Hang up, then wait for the waiter so that it cannot draw after the run's output.
        drop(self.stop.take());
        if let Some(w) = self.waiter.take() {
            let _ = w.join();
        }
        self.bar.finish_and_clear();
    }
}

fn current() -> Option<Arc<ProgressBar>> {
    CURRENT.read().ok().and_then(|c| c.clone())
}

/// Starts a phase of `len` units of work (`loading` files, `checking` files and rules).
pub fn phase(name: &'static str, len: usize) {
    if let Some(bar) = current() {
        bar.set_message(name);
        bar.set_length(len as u64);
        bar.set_position(0);
    }
}

/// One more unit of the current phase done.
pub fn inc() {
    // Read the slot without cloning the Arc: this runs once per file and per rule.
    if let Ok(c) = CURRENT.read() {
        if let Some(bar) = c.as_ref() {
            bar.inc(1);
        }
    }
}

/// Serialises the tests that install a reporter (it is process-wide).
#[cfg(test)]
pub(crate) static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_terminals_and_not_quiet() {
        assert!(wanted(true, false));
        assert!(!wanted(false, false));
        assert!(!wanted(true, true));
    }

    #[test]
    fn hidden_reporter_counts_and_uninstalls() {
        let _l = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let g = install(false);
        phase("loading", 3);
        inc();
        inc();
        let bar = current().expect("installed");
        assert_eq!(bar.position(), 2);
        assert_eq!(bar.length(), Some(3));
        assert!(bar.is_hidden());
        drop(g);
        assert!(current().is_none());
        // Without a reporter, reporting is a no-op.
        phase("checking", 1);
        inc();
    }

    #[test]
    fn a_run_shorter_than_the_delay_draws_nothing() {
        let _l = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let g = install(true);
        let bar = current().expect("installed");
        phase("checking", 1);
        inc();
        drop(g);
        // The waiter was hung up on before DELAY: the draw target stayed hidden.
        assert!(bar.is_hidden());
    }
}

//! What the differential checks of the engine's shared caches compare of a lookup: the value
//! or error, the warnings in order, and the provenance (file and key position). One text, so
//! that two outcomes agree exactly when their descriptions are equal. Used by the
//! `shared_sessions` target and by `tests/engine_shared.rs` and `tests/real_repos.rs`
//! (included there with `#[path]`).

use hieralint::engine::LookupOutcome;

/// The comparable description of `o`.
pub fn describe(o: &LookupOutcome) -> String {
    let files: Vec<String> = o
        .provenance
        .iter()
        .map(|p| format!("{}:{}", p.file.path.display(), p.key_span.start))
        .collect();
    format!("{:?} | {:?} | {:?}", o.result, o.warnings, files)
}

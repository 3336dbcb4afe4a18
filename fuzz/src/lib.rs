//! Shared code of the hieralint fuzz targets: the loader invariants (also used by
//! `tests/hostile.rs`), the structure-aware environment generator of `check_env`, and the
//! description of a lookup outcome the differential checks compare (also used by
//! `tests/engine_shared.rs` and `tests/real_repos.rs`).

pub mod env;
pub mod invariants;
pub mod outcome;

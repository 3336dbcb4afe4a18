//! Shared code of the hieralint fuzz targets: the loader invariants (also used by
//! `tests/hostile.rs`) and the structure-aware environment generator of `check_env`.

pub mod env;
pub mod invariants;

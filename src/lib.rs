//! hieralint: a fast Hiera data linter and static analyzer for Puppet.
//!
//! The crate is laid out by stage: [`loader`] reads YAML/JSON/HOCON into spanned trees with
//! Puppet's reader semantics, [`config`] models hiera.yaml, [`engine`] answers lookups exactly as
//! Puppet does, [`rules`] turns all of that into [`diag::Diagnostic`]s, and [`render`] prints them.

pub mod analysis;
pub mod baseline;
pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod engine;
pub mod facts;
pub mod fingerprint;
pub mod fix;
pub mod gate;
pub mod interp;
pub mod limits;
pub mod loader;
pub mod paths;
pub mod progress;
pub mod project;
pub mod render;
pub mod rules;
pub mod run;
pub mod scan;
pub mod server;
pub mod settings;
pub mod span;
pub mod suppress;
pub mod timing;
pub mod value;
pub mod value_span;

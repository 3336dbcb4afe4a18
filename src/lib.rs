//! hieralint: a fast Hiera data linter and static analyzer for Puppet.
//!
//! The crate is laid out by stage: [`loader`] reads YAML/JSON/HOCON into spanned trees with
//! Puppet's reader semantics, [`config`] models hiera.yaml, [`engine`] answers lookups exactly as
//! Puppet does, [`rules`] turns all of that into [`diag::Diagnostic`]s, and [`render`] prints them.

pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod engine;
pub mod interp;
pub mod limits;
pub mod loader;
pub mod project;
pub mod render;
pub mod rules;
pub mod scan;
pub mod span;
pub mod value;

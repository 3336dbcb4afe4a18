//! The lookup engine, exact to Puppet: layers, hierarchies, backends, lookup_options, merges,
//! interpolation, dotted keys and explain.

pub mod error;
pub mod merge;
pub mod ruby;
pub mod types;
pub mod explain;
pub mod scope;

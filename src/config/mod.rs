//! The hiera.yaml model: versions 5, 4 and 3, every field spanned, and Puppet's validation.
//!
//! [`model`] holds the types the engine reads; [`error`] the problems found. Parsing and
//! validation are being built (see `parse`).

pub mod error;
pub mod schema;
pub mod model;

pub use error::{ConfigError, ConfigErrorKind, When};
pub use model::*;

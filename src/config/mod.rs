//! The hiera.yaml model: versions 5, 4 and 3, every field spanned, and Puppet's validation.
//! TODO(#2): being built.

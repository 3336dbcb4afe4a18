//! The lookup engine, exact to Puppet: layers, hierarchies, backends, lookup_options, merges,
//! interpolation, dotted keys and explain. TODO(#3): being built.

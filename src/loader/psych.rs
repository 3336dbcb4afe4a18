//! Psych (YAML 1.1) plain scalar resolution. TODO(#2): being built.

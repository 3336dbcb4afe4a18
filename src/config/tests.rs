//! Unit tests of the hiera.yaml model on hand-built trees (the YAML loader is tested elsewhere).

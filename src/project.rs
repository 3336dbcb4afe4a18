//! The project being checked: its files, loaded once, and what each file is for.
//!
//! The scanner discovers environments and modules and loads every hiera.yaml and data file into
//! a [`Project`]; rules and the engine read it. Files are shared (`Arc`) so diagnostics can point
//! into any of them.

use std::path::PathBuf;
use std::sync::Arc;

use std::sync::OnceLock;

use crate::config::{self, ConfigError, HieraConfig};
use crate::loader::Document;
use crate::span::SourceFile;

/// Which Hiera layer a file belongs to (reference §2).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    Global,
    Environment,
    /// A module, by name (the directory name on the modulepath).
    Module(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRole {
    HieraConfig,
    Data,
    /// Files the user named that are neither (checked for syntax only).
    Loose,
}

/// A file of the project, loaded.
#[derive(Debug)]
pub struct LoadedFile {
    pub source: Arc<SourceFile>,
    pub doc: Document,
    pub role: FileRole,
    pub layer: Layer,
    /// The environment directory this file belongs to (absent for loose files).
    pub env_root: Option<PathBuf>,
    /// The hiera.yaml model, parsed on first use (hiera.yaml files only).
    pub config: OnceLock<(Option<HieraConfig>, Vec<ConfigError>)>,
}

impl LoadedFile {
    pub fn new(
        source: Arc<SourceFile>,
        doc: Document,
        role: FileRole,
        layer: Layer,
        env_root: Option<PathBuf>,
    ) -> LoadedFile {
        LoadedFile {
            source,
            doc,
            role,
            layer,
            env_root,
            config: OnceLock::new(),
        }
    }

    /// The parsed hiera.yaml model and Puppet's validation errors (empty for other files).
    pub fn hiera_config(&self) -> &(Option<HieraConfig>, Vec<ConfigError>) {
        self.config.get_or_init(|| {
            if self.role == FileRole::HieraConfig {
                config::parse(&self.source, &self.doc, &self.layer)
            } else {
                (None, Vec::new())
            }
        })
    }

    pub fn module_name(&self) -> Option<&str> {
        match &self.layer {
            Layer::Module(m) => Some(m),
            _ => None,
        }
    }
}

/// Everything one run checks.
#[derive(Debug, Default)]
pub struct Project {
    pub files: Vec<LoadedFile>,
}

//! Bounds that keep time and memory finite on any input (docs/limits.md).
//!
//! Hieralint runs on repositories it did not write, in hooks and CI gates that must not hang:
//! every construct whose cost can grow faster than the file that holds it (alias expansion,
//! nesting, interpolation that doubles a string per level, chains of lookups, globs) has a limit
//! here. Hitting one is never silent: the loader reports a [`LoadIssueKind::Limit`] issue at the
//! construct, the scanner a [`ScanError`], the engine a lookup error naming the limit. The
//! defaults are far beyond anything a real repository needs; configuration may change them
//! ([`Limits`] is plain data).
//!
//! Some bounds are not here because they are not hieralint's: JSON's nesting limit of 100 is
//! Ruby json's `max_nesting`, which Puppet hits too (`loader::json`); and the HOCON loader's
//! recursion bounds are tied to the stack of its own thread (`loader::hocon`).
//!
//! [`LoadIssueKind::Limit`]: crate::loader::LoadIssueKind::Limit
//! [`ScanError`]: crate::scan::ScanError

/// The limits of one run. `Limits::default()` is what hieralint uses unless configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest file the scanner reads, in bytes; a bigger file gets an `unreadable-file`
    /// diagnostic and is not loaded. Default 64 MiB.
    pub max_file_bytes: u64,
    /// Most data and hiera.yaml files one run loads; the rest get one diagnostic. Default
    /// 1,000,000.
    pub max_files: usize,
    /// Deepest nesting of YAML collections (counting what aliases expand to). Default (and
    /// ceiling, see [`Limits::YAML_DEPTH_CEILING`]) 1,000.
    pub yaml_max_depth: usize,
    /// Most nodes that YAML alias expansion may produce in one document (the "billion laughs"
    /// defence: Psych shares one object per anchor, hieralint copies to keep spans), and most
    /// nodes a HOCON value may hold beyond what its file holds (substitutions copy values).
    /// Default 1,000,000.
    pub max_expanded_nodes: usize,
    /// Longest string one interpolation may produce, in bytes (a chain of keys each
    /// interpolating the next twice doubles per level); for HOCON, most string bytes a value
    /// may hold beyond the file's size (`b = ${a}${a}` doubles too). Default 16 MiB.
    pub max_interpolated_bytes: usize,
    /// Most nested lookups through interpolation (`%{lookup('a')}` in `a`'s value looking up `b`,
    /// which interpolates `c`...). Default 200.
    pub max_lookup_depth: usize,
    /// Most lookups one top-level lookup may trigger through interpolation, at any depth (what
    /// bounds the time of a 2^n chain). Default 100,000.
    pub max_sub_lookups: usize,
    /// Most paths one hierarchy `glob` may produce (after brace expansion). Default 100,000.
    pub max_glob_results: usize,
    /// Most directory entries one glob may visit (a `**` under a huge tree). Default 1,000,000.
    pub max_glob_visits: usize,
    /// Most alternatives brace expansion (`{a,b}{c,d}...`) may produce. Default 10,000.
    pub max_glob_alternatives: usize,
    /// Most bytes the engine holds read from files the check did not load itself (a hierarchy
    /// path or glob reaching outside the checked tree, `/*/**`; everything `hieralint lookup`
    /// reads). Default 1 GiB.
    pub max_read_bytes: u64,
}

impl Limits {
    /// The YAML loader builds its tree with an explicit stack, but dropping, cloning and
    /// converting the tree recurse; 1,000 levels are proven safe on a 2 MiB thread in a debug
    /// build (tests/hostile.rs), so a configured `yaml_max_depth` above it is lowered to it.
    pub const YAML_DEPTH_CEILING: usize = 1_000;

    /// The YAML nesting limit in effect (configured value, capped at the ceiling, at least 1).
    pub fn yaml_depth(&self) -> usize {
        self.yaml_max_depth.clamp(1, Self::YAML_DEPTH_CEILING)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 64 * 1024 * 1024,
            max_files: 1_000_000,
            yaml_max_depth: 1_000,
            max_expanded_nodes: 1_000_000,
            max_interpolated_bytes: 16 * 1024 * 1024,
            max_lookup_depth: 200,
            max_sub_lookups: 100_000,
            max_glob_results: 100_000,
            max_glob_visits: 1_000_000,
            max_glob_alternatives: 10_000,
            max_read_bytes: 1 << 30,
        }
    }
}

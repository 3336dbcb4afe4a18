//! Resolved hierarchy levels shared between sessions.
//!
//! Puppet resolves a layer's hierarchy once per compile (`HieraConfigV5#
//! create_configured_data_providers`): every level's `datadir`, paths, globs, mapped paths and
//! options are interpolated against the node's scope and every location is tested for
//! existence. hieralint runs thousands of sessions on one engine (one per fact set or
//! data-implied node, and again in every engine-backed rule), and most levels (`common.yaml`,
//! a role or OS level, a glob over team files, every module's levels) read no variable, or read
//! variables that many nodes share. So the engine keeps each level's resolution with the scope
//! variables it read (what reading them gave, as [`Probe`]s), the warnings Puppet logged and the
//! interpolations it counted, and a session whose scope gives the same answers to the same reads
//! reuses it. The answer is the same as resolving again: the resolution is a function of the
//! configuration (held here), those reads and the file system, which an engine does not see
//! change before [`super::Engine::invalidate`] (which empties this cache).

use std::hash::{Hash as _, Hasher};
use std::sync::{Arc, RwLock};

use super::error::LookupError;
use super::layer::LayerConfig;
use super::lookup::{probe, Probe, ResolvedEntry};
use super::scope::{Scope, VarLookup};
use super::vfs::{FastMap, Fnv};

/// A level of a configuration: the configuration's address, which of its entry lists (regular
/// or `default_hierarchy`: the list's address) and the index in it.
pub(crate) type LevelId = (usize, usize, usize);

/// One resolution of a level.
pub(crate) struct CachedLevel {
    /// Scope reads and what they gave, in the order made.
    pub reads: Vec<(Arc<str>, Probe)>,
    /// Warnings logged while resolving, in order.
    pub warnings: Vec<String>,
    /// Interpolations counted against `max_sub_lookups`.
    pub sub_lookups: usize,
    pub result: Result<Option<ResolvedEntry>, LookupError>,
}

/// Values computed for a scope (a level's resolution, a lookup's outcome), found again for
/// any scope whose reads give the same answers: by the list of expressions read, then by a
/// hash of what reading them gave, so that finding one costs a probe per expression, whatever
/// the number of scopes cached.
pub(crate) struct ByReads<T> {
    lists: Vec<(Vec<Arc<str>>, ByAnswers<T>)>,
}

/// Values whose reads gave answers with the same hash.
type ByAnswers<T> = FastMap<u64, Vec<T>>;

impl<T> Default for ByReads<T> {
    fn default() -> Self {
        ByReads { lists: Vec::new() }
    }
}

/// Most distinct lists of expressions (they differ only when a read's answer changes which
/// later expressions are read, as a mapped path or an undefined variable can).
const MAX_READ_LISTS: usize = 16;

impl<T> ByReads<T> {
    /// A value whose reads `scope` answers alike and that `accept` takes.
    pub fn find(
        &self,
        scope: &Scope,
        reads: impl Fn(&T) -> &[(Arc<str>, Probe)],
        accept: impl Fn(&T) -> bool,
    ) -> Option<&T> {
        self.find_by(&mut |e| probe(scope, e), reads, accept)
    }

    /// [`ByReads::find`] with the scope's answers given by `prober` (which may remember them).
    pub fn find_by(
        &self,
        prober: &mut dyn FnMut(&Arc<str>) -> Probe,
        reads: impl Fn(&T) -> &[(Arc<str>, Probe)],
        accept: impl Fn(&T) -> bool,
    ) -> Option<&T> {
        // One buffer for every list's answers (a level holds one list, or a few), kept by the
        // thread between calls: a buffer per call was an allocation per level of every
        // hierarchy resolved (eight per data-implied node).
        thread_local! {
            static PROBES: std::cell::Cell<Vec<Probe>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let mut probes = PROBES.with(std::cell::Cell::take);
        let mut found = None;
        for (exprs, by_hash) in &self.lists {
            probes.clear();
            probes.extend(exprs.iter().map(&mut *prober));
            let Some(candidates) = by_hash.get(&hash_probes(probes.iter())) else {
                continue;
            };
            if let Some(c) = candidates
                .iter()
                .find(|c| reads(c).iter().map(|(_, p)| p).eq(probes.iter()) && accept(c))
            {
                found = Some(c);
                break;
            }
        }
        probes.clear();
        PROBES.with(|b| b.set(probes));
        found
    }

    /// Adds `value`, whose reads `key` describes; false when it was not kept (too many lists,
    /// or `same(kept, &value)` holds for a value already there).
    pub fn insert(&mut self, key: ReadKey, value: T, same: impl Fn(&T, &T) -> bool) -> bool {
        let slot = match self.lists.iter().position(|(e, _)| *e == key.exprs) {
            Some(i) => i,
            None if self.lists.len() < MAX_READ_LISTS => {
                self.lists.push((key.exprs, FastMap::default()));
                self.lists.len() - 1
            }
            None => return false,
        };
        let list = self.lists[slot].1.entry(key.hash).or_default();
        if list.iter().any(|c| same(c, &value)) {
            return false;
        }
        list.push(value);
        true
    }
}

/// What finds a value among those of a [`ByReads`]: the expressions its computation read and a
/// hash of what they gave. Made before the cache is locked: a thread inserting holds every
/// other thread's lookups of the cache off while it works under the write lock.
pub(crate) struct ReadKey {
    exprs: Vec<Arc<str>>,
    hash: u64,
}

impl ReadKey {
    pub fn of(reads: &[(Arc<str>, Probe)]) -> ReadKey {
        ReadKey {
            exprs: reads.iter().map(|(e, _)| e.clone()).collect(),
            hash: hash_probes(reads.iter().map(|(_, p)| p)),
        }
    }
}

/// What a scope gave for the expressions probed so far, for a caller that probes the same few
/// again (a hierarchy's levels and modules read the same few variables).
#[derive(Default)]
pub(crate) struct ProbeMemo {
    answers: Vec<(Arc<str>, Probe)>,
}

impl ProbeMemo {
    pub fn probe(&mut self, scope: &Scope, e: &Arc<str>) -> Probe {
        match self.slot(scope, e, Some(e)) {
            Ok(i) => self.answers[i].1.clone(),
            Err(p) => p,
        }
    }

    /// [`ProbeMemo::probe`], with `e` as an `Arc` (the memo's own when it holds `e`): a
    /// resolution records each read its interpolations make, and the level cache probed the
    /// same expressions just before (a probe and an allocation per read spared).
    pub fn probe_arc(&mut self, scope: &Scope, e: &str) -> (Arc<str>, Probe) {
        match self.slot(scope, e, None) {
            Ok(i) => self.answers[i].clone(),
            Err(p) => (e.into(), p),
        }
    }

    /// Where the memo holds `e`'s answer (probed now if it was not held), or the answer when
    /// the memo is full. `arc`: `e` as an `Arc` the memo may keep (the level cache's own);
    /// without it the memo makes one.
    fn slot(&mut self, scope: &Scope, e: &str, arc: Option<&Arc<str>>) -> Result<usize, Probe> {
        if let Some(i) = self.answers.iter().position(|(x, _)| **x == *e) {
            return Ok(i);
        }
        let p = probe(scope, e);
        // A few expressions repeat; a scan of many would cost more than probing again.
        if self.answers.len() < 16 {
            if self.answers.is_empty() {
                // Room for the few a hierarchy reads, once.
                self.answers.reserve(8);
            }
            let e = arc.cloned().unwrap_or_else(|| e.into());
            self.answers.push((e, p));
            return Ok(self.answers.len() - 1);
        }
        Err(p)
    }
}

/// The resolutions of one level.
struct Variants {
    /// Held so that the configuration's address cannot be reused while its levels are cached.
    _config: Arc<LayerConfig>,
    resolutions: ByReads<Arc<CachedLevel>>,
    count: usize,
}

/// Most resolutions kept per level (one per distinct value of what it reads). A level that
/// reads `trusted.certname` has one per node: past this many, it is resolved again when a
/// session needs it rather than kept. Keeping each of them (13,900 at 15k files without facts:
/// the resolution, its locations and its reads, about 0.5 KB each, three levels per node) held
/// 20 MB for the rare session that resolves the same node again; the instructions are the
/// same either way (inserting them cost what resolving them again in those sessions costs:
/// docs/benchmarks.md, session 18). A level reading a role, a site or an OS stays under it.
const MAX_LEVEL_VARIANTS: usize = 64;

/// Most resolutions kept per module layer, and module blocks: a module layer or block that
/// reads a per-node variable is rare, and one not kept makes its hierarchy hold every module
/// level as its own (what the block spares), so these keep (nearly) all.
const MAX_VARIANTS: usize = 1 << 16;

#[derive(Default)]
pub(crate) struct LevelCache {
    map: RwLock<FastMap<LevelId, Variants>>,
}

fn hash_probes<'a>(probes: impl Iterator<Item = &'a Probe>) -> u64 {
    let mut h = Fnv::default();
    for p in probes {
        match p {
            Probe::Root(VarLookup::Found(v)) => {
                0u8.hash(&mut h);
                v.hash(&mut h);
            }
            Probe::Root(VarLookup::BuiltIn) => 1u8.hash(&mut h),
            Probe::Root(VarLookup::Undefined { name, reason }) => {
                2u8.hash(&mut h);
                name.hash(&mut h);
                reason.hash(&mut h);
            }
            Probe::Value(v) => {
                3u8.hash(&mut h);
                v.hash(&mut h);
            }
            Probe::Error => 4u8.hash(&mut h),
        }
    }
    h.finish()
}

/// Adds `value`, whose reads `key` describes, to a cache entry's resolutions (`count` of them,
/// at most `max`: [`MAX_LEVEL_VARIANTS`] or [`MAX_VARIANTS`]).
fn insert_variant<T>(
    variants: &mut ByReads<Arc<T>>,
    count: &mut usize,
    max: usize,
    key: ReadKey,
    value: Arc<T>,
    reads_of: impl Fn(&T) -> &[(Arc<str>, Probe)],
) {
    if *count >= max {
        return;
    }
    // Two threads may resolve the same thing for equal scopes at once: one is kept (equal
    // reads in the same list and hash bucket are equal answers).
    let same = |kept: &Arc<T>, new: &Arc<T>| {
        reads_of(kept)
            .iter()
            .map(|(_, p)| p)
            .eq(reads_of(new).iter().map(|(_, p)| p))
    };
    if variants.insert(key, value, same) {
        *count += 1;
    }
}

impl LevelCache {
    /// A resolution of `id` made for a scope whose answers (given by `prober`, which may
    /// remember them: a hierarchy's levels read the same few expressions) are the same and
    /// that `take` accepts, handed to `f` while the cache is held for reading; `state` goes to
    /// `f`, or back to the caller when nothing was found, with whether the level keeps no
    /// more resolutions (the caller then does not offer its own: a level reading
    /// `trusted.certname` is resolved once per data-implied node). The resolution is not cloned out:
    /// its reference count is shared by every thread resolving the same level, and two threads
    /// counting on one cache line made the data-implied nodes' hierarchies cost twice the CPU
    /// on two threads that they cost on one (1.5k corpus: 15.7 ms on one thread, 28-34 ms on
    /// two, in as much wall time; 20-22 ms and 10-11 ms wall with this).
    pub fn with_found<T, S>(
        &self,
        id: LevelId,
        prober: &mut dyn FnMut(&Arc<str>) -> Probe,
        take: impl Fn(&CachedLevel) -> bool,
        state: S,
        f: impl FnOnce(&CachedLevel, S) -> T,
    ) -> Result<T, (S, bool)> {
        let Ok(map) = self.map.read() else {
            return Err((state, true));
        };
        let Some(variants) = map.get(&id) else {
            return Err((state, false));
        };
        // A level that keeps no more resolutions reads a per-node variable (a node file's
        // `trusted.certname`): a scope among the first it kept is rare, and resolving that
        // scope again gives the same resolution, so its resolutions are not searched (a probe
        // hash and a map miss per node level, three per data-implied node at 15k files).
        if variants.count >= MAX_LEVEL_VARIANTS {
            return Err((state, true));
        }
        match variants
            .resolutions
            .find_by(prober, |c| &c.reads, |_| true)
            .filter(|c| take(c))
        {
            Some(found) => Ok(f(found, state)),
            None => Err((state, variants.count >= MAX_LEVEL_VARIANTS)),
        }
    }

    pub fn insert(&self, id: LevelId, config: &Arc<LayerConfig>, level: CachedLevel) {
        // Made before the write lock, which holds every other thread's lookups off (three
        // inserts per data-implied node).
        let key = ReadKey::of(&level.reads);
        let level = Arc::new(level);
        let Ok(mut map) = self.map.write() else {
            return;
        };
        let v = map.entry(id).or_insert_with(|| Variants {
            _config: config.clone(),
            resolutions: ByReads::default(),
            count: 0,
        });
        insert_variant(
            &mut v.resolutions,
            &mut v.count,
            MAX_LEVEL_VARIANTS,
            key,
            level,
            |c| &c.reads,
        );
    }

    pub fn clear(&self) {
        if let Ok(mut m) = self.map.write() {
            m.clear();
        }
    }
}

/// One module layer's hierarchy resolved for a scope ([`super::lookup::Cx::resolved_levels`]
/// for that layer): its levels (or the error Puppet raises for the layer), the warnings logged
/// while creating its provider and while resolving its levels, the interpolations counted, and
/// the scope reads its levels made. Like a level, a layer resolves alike for every scope that
/// answers those reads alike: creating the provider reads no variable (the module's
/// metadata.json and hiera.yaml), and each level is a function of its reads.
pub(crate) struct CachedLayer {
    pub module: String,
    pub reads: Vec<(Arc<str>, Probe)>,
    pub provider_warnings: Vec<String>,
    pub level_warnings: Vec<String>,
    pub sub_lookups: usize,
    pub levels: Vec<Arc<super::lookup::ResolvedLevel>>,
    pub error: Option<LookupError>,
}

/// The module layers resolved by hierarchy resolutions that start afresh (grouping nodes,
/// a session's fingerprint), by module name: resolving a node's hierarchy costs one probe per
/// module whose levels read nothing that differs between nodes, instead of creating the
/// module's provider and resolving each level (a modulepath holds hundreds of modules, and the
/// analysis resolves one hierarchy per node file).
#[derive(Default)]
pub(crate) struct LayerCache {
    map: RwLock<FastMap<String, LayerVariants>>,
    /// Every module layer at once, for a scope whose reads find each of them cached: one
    /// probe of the variables they read instead of a lookup per module (a modulepath holds
    /// hundreds of modules, and a 15k-file repository has ten thousand data-implied nodes).
    blocks: RwLock<(ByReads<Arc<ModuleBlock>>, usize)>,
}

/// The module layers of a hierarchy, in module order, as found in the cache for a scope, and
/// the reads (each expression once) that found them: a scope answering those reads alike
/// finds each of these layers (each layer's reads are among them), so it takes them as they
/// are.
pub(crate) struct ModuleBlock {
    pub reads: Vec<(Arc<str>, Probe)>,
    pub layers: Vec<Arc<CachedLayer>>,
    /// Every layer's levels, in module order, shared by the hierarchies that take the block
    /// ([`super::Levels`]): one reference count per node instead of one per module level
    /// (500 per node at 15k files, contended between threads).
    pub levels: Arc<super::SharedLevels>,
    /// The interpolations all the layers' levels counted.
    pub sub_lookups: usize,
    /// Every layer's provider warnings, level warnings and error, in module order: what a
    /// hierarchy taking the block logs and reports, without visiting each layer (two passes
    /// over 250 layers for each of 13,900 data-implied nodes at 15k files, nearly always to
    /// find nothing).
    pub provider_warnings: Vec<String>,
    pub level_warnings: Vec<String>,
    pub errors: Vec<(String, LookupError)>,
}

/// A module's cached resolutions, and how many.
type LayerVariants = (ByReads<Arc<CachedLayer>>, usize);

impl LayerCache {
    /// Runs `f` with a finder of cached layers for `scope` (`finder(module)`), the cache held
    /// for reading once for a whole hierarchy's modules. What `scope` gives for an expression
    /// is probed once: modules' hierarchies tend to read the same few variables.
    pub fn with<T>(
        &self,
        scope: &Scope,
        f: impl FnOnce(&mut dyn FnMut(&str) -> Option<Arc<CachedLayer>>) -> T,
    ) -> T {
        let Ok(map) = self.map.read() else {
            return f(&mut |_: &str| None);
        };
        let mut memo = ProbeMemo::default();
        let mut prober = |e: &Arc<str>| memo.probe(scope, e);
        f(&mut |module: &str| {
            map.get(module)?
                .0
                .find_by(&mut prober, |c| &c.reads, |_| true)
                .cloned()
        })
    }

    /// The module layers cached together for a scope that reads like `scope`.
    pub fn block(&self, scope: &Scope) -> Option<Arc<ModuleBlock>> {
        let blocks = self.blocks.read().ok()?;
        blocks.0.find(scope, |b| &b.reads, |_| true).cloned()
    }

    /// Keeps `layers` (every module's, in module order, each found in this cache for one
    /// scope) as a block found by the union of their reads.
    pub fn insert_block(&self, layers: Vec<Arc<CachedLayer>>) {
        let mut reads: Vec<(Arc<str>, Probe)> = Vec::new();
        for l in &layers {
            for (e, p) in &l.reads {
                // One scope answered them all: an expression read by two layers gave both
                // the same answer.
                if !reads.iter().any(|(x, _)| x == e) {
                    reads.push((e.clone(), p.clone()));
                }
            }
        }
        let key = ReadKey::of(&reads);
        let block = Arc::new(ModuleBlock {
            reads,
            levels: Arc::new(super::SharedLevels::new(
                layers
                    .iter()
                    .flat_map(|l| l.levels.iter().cloned())
                    .collect(),
            )),
            sub_lookups: layers.iter().map(|l| l.sub_lookups).sum(),
            provider_warnings: layers
                .iter()
                .flat_map(|l| l.provider_warnings.iter().cloned())
                .collect(),
            level_warnings: layers
                .iter()
                .flat_map(|l| l.level_warnings.iter().cloned())
                .collect(),
            errors: layers
                .iter()
                .filter_map(|l| Some((l.module.clone(), l.error.clone()?)))
                .collect(),
            layers,
        });
        let Ok(mut blocks) = self.blocks.write() else {
            return;
        };
        let (variants, count) = &mut *blocks;
        insert_variant(variants, count, MAX_VARIANTS, key, block, |b| &b.reads);
    }

    pub fn insert(&self, module: &str, layer: CachedLayer) {
        let key = ReadKey::of(&layer.reads);
        let layer = Arc::new(layer);
        let Ok(mut map) = self.map.write() else {
            return;
        };
        let (variants, count) = map.entry(module.to_string()).or_default();
        insert_variant(variants, count, MAX_VARIANTS, key, layer, |c| &c.reads);
    }

    pub fn clear(&self) {
        if let Ok(mut m) = self.map.write() {
            m.clear();
        }
        if let Ok(mut b) = self.blocks.write() {
            *b = Default::default();
        }
    }
}

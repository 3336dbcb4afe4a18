//! File access for the engine: a [`Vfs`] trait (so the checker and the language server can serve
//! files from memory and overlay unsaved buffers), the real file system with a read cache, and
//! Ruby's `Dir.glob` (reference §1.5).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::limits::Limits;
use crate::span::SourceFile;

/// What the engine needs from a file system. Implementations must be cheap to call repeatedly:
/// the engine asks for the same paths for every fact set.
pub trait Vfs: Send + Sync {
    /// The text of a regular file, or `None` when it does not exist or cannot be read. The same
    /// `Arc` must be returned while the content is unchanged: the engine caches parsed files by
    /// pointer identity.
    fn read(&self, path: &Path) -> Option<Arc<SourceFile>>;
    /// Ruby `Pathname#exist?`: a file or a directory.
    fn exists(&self, path: &Path) -> bool;
    /// [`Vfs::exists`], with the [`text_id`] of the file when finding it gave that too (a file
    /// system holding its files' texts finds both in one lookup): `None` when it is not known
    /// (the caller asks [`Vfs::read`] when it needs it).
    fn exists_with_id(&self, path: &Path) -> (bool, Option<usize>) {
        (self.exists(path), None)
    }
    fn is_dir(&self, path: &Path) -> bool;
    /// The names of a directory's entries (without `.` and `..`) and whether each is a
    /// directory; `None` when `path` is not a readable directory.
    fn read_dir(&self, path: &Path) -> Option<Vec<(String, bool)>>;
    /// The document `source` (what [`Vfs::read`] gave for `path`) parses to in `format`, when
    /// the caller already holds it: the engine then skips its own parse. `None` (the default)
    /// makes the engine parse.
    fn document(
        &self,
        _path: &Path,
        _source: &Arc<SourceFile>,
        _format: crate::loader::Format,
    ) -> Option<Arc<crate::loader::Document>> {
        None
    }

    /// [`Vfs::read`] and then [`Vfs::document`] of what it gave: a file system that holds
    /// both finds the file once (the analysis's file system looked each data file up twice
    /// per first load, 13,900 node files at 15k files).
    #[allow(clippy::type_complexity)]
    fn read_document(
        &self,
        path: &Path,
        format: crate::loader::Format,
    ) -> Option<(Arc<SourceFile>, Option<Arc<crate::loader::Document>>)> {
        let source = self.read(path)?;
        let doc = self.document(path, &source, format);
        Some((source, doc))
    }

    /// The shared parse of the hiera.yaml `source` (what [`Vfs::read`] gave for `path`), when
    /// the caller holds one made from that text read as YAML (made once for all its readers;
    /// the engine uses it only when it was made for the layer it reads the file as). `None`
    /// (the default) makes the engine parse.
    fn shared_config(
        &self,
        _path: &Path,
        _source: &Arc<SourceFile>,
    ) -> Option<Arc<crate::config::SharedParse>> {
        None
    }

    /// Whether `path` is a symbolic link (Ruby's `**/` does not descend into linked
    /// directories). File systems without links keep the default.
    fn is_symlink(&self, _path: &Path) -> bool {
        false
    }

    /// Bounds the bytes this file system holds read ([`Limits::max_read_bytes`]): set by the
    /// engine from its limits. File systems that read nothing from disk keep the default.
    ///
    /// [`Limits::max_read_bytes`]: crate::limits::Limits::max_read_bytes
    fn set_read_budget(&self, _bytes: u64) {}

    /// Whether [`Vfs::read`] gave nothing for `path` because the read budget was spent.
    fn refused(&self, _path: &Path) -> bool {
        false
    }

    /// A number that changes whenever the answers above may have changed (an overlay set or
    /// cleared, cached reads forgotten). The engine drops what it derived from the file system
    /// (resolved levels, shared outcomes) when it changes. A file system that never changes
    /// under an engine keeps the default.
    fn generation(&self) -> u64 {
        0
    }
}

/// The identity of the text `vfs` gives for `path` (0 when there is none): equal while the
/// text is unchanged ([`Vfs::read`] returns the same `Arc`), for the engine's fingerprints and
/// data signatures.
pub(crate) fn text_id(vfs: &dyn Vfs, path: &Path) -> usize {
    vfs.read(path).map_or(0, |f| Arc::as_ptr(&f) as usize)
}

type DirEntries = Vec<(String, bool)>;

/// FNV-1a: a fast hash for the engine's path-keyed caches (SipHash over path components is
/// measurable when every fact set asks for the same paths).
#[derive(Default, Clone, Copy)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// The engine's hash maps: foldhash's fixed-seed hasher (keys are the repository's own paths
/// and data; Fnv's byte-at-a-time loop and SipHash were both measurable on long paths).
pub type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A set hashed as [`FastMap`].
pub type FastSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

/// A path as a hash-map key: equal when the `Path`s are (component by component, so `a//b`
/// and `a/b` are one key), hashed from its bytes when they are already in the form its
/// components spell (the usual case) and from that form otherwise. `Path`'s own `Hash` walks
/// the bytes looking for separators and hashes each component: it was 5% of a check of a
/// 1.5k-file repository, whose engine looks the project's files up by path.
#[derive(Clone, Debug)]
pub struct PathKey(pub PathBuf);

/// A borrowed path to look a [`PathKey`] up with (no copy of the path).
pub struct PathRef<'a>(pub &'a Path);

/// Maps keyed by [`PathKey`], looked up with [`PathRef`].
pub type PathMap<V> = hashbrown::HashMap<PathKey, V, foldhash::fast::FixedState>;

/// The hash a [`PathMap`] files `p` under: for tables that find an entry by a path the entry
/// holds itself (a `SourceFile`'s), rather than by a copy of it as a key.
pub fn path_hash(p: &Path) -> u64 {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::default().hash_one(PathRef(p))
}

/// Files' texts with a value each, found by the path the text holds (as a [`PathMap`] finds
/// them, without a copy of every path as a key: at 15k files each such copy was 1.5 MiB made for
/// every check).
pub struct SourceTable<V>(hashbrown::HashTable<(Arc<SourceFile>, V)>);

impl<V> SourceTable<V> {
    pub fn with_capacity(n: usize) -> Self {
        SourceTable(hashbrown::HashTable::with_capacity(n))
    }

    /// Files `value` under `source`'s path; as collecting (path, value) pairs into a map, a
    /// file whose path equals an earlier one's (as paths compare) takes its place.
    pub fn insert(&mut self, source: Arc<SourceFile>, value: V) {
        let h = path_hash(&source.path);
        match self.0.find_mut(h, |(f, _)| f.path == source.path) {
            Some(slot) => *slot = (source, value),
            None => {
                self.0
                    .insert_unique(h, (source, value), |(f, _)| path_hash(&f.path));
            }
        }
    }

    pub fn get(&self, path: &Path) -> Option<&(Arc<SourceFile>, V)> {
        self.0.find(path_hash(path), |(f, _)| f.path == *path)
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.get(path).is_some()
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &(Arc<SourceFile>, V)> {
        self.0.iter()
    }
}

impl PartialEq for PathKey {
    fn eq(&self, other: &PathKey) -> bool {
        self.0 == other.0
    }
}

impl Eq for PathKey {}

impl std::hash::Hash for PathKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        hash_path(&self.0, h);
    }
}

impl std::hash::Hash for PathRef<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        hash_path(self.0, h);
    }
}

impl hashbrown::Equivalent<PathKey> for PathRef<'_> {
    fn equivalent(&self, key: &PathKey) -> bool {
        self.0 == key.0.as_path()
    }
}

/// Hashes what identifies `p` as `Path` equality sees it: the bytes of the path its
/// components spell ([`crate::paths::spells_components`] says when those are its own).
#[cfg(unix)]
fn hash_path<H: std::hash::Hasher>(p: &Path, h: &mut H) {
    use std::os::unix::ffi::OsStrExt as _;
    let b = p.as_os_str().as_bytes();
    let plain = crate::paths::spells_components(b);
    if plain {
        h.write(b);
    } else {
        let spelled: PathBuf = p.components().collect();
        h.write(spelled.as_os_str().as_bytes());
    }
    h.write_u8(0xff);
}

#[cfg(not(unix))]
fn hash_path<H: std::hash::Hasher>(p: &Path, h: &mut H) {
    std::hash::Hash::hash(p, h);
}

/// The real file system, with reads cached and an overlay of in-memory buffers.
pub struct FsVfs {
    overlay: RwLock<PathMap<Arc<SourceFile>>>,
    cache: RwLock<PathMap<Option<Arc<SourceFile>>>>,
    dirs: RwLock<PathMap<Option<Arc<DirEntries>>>>,
    /// `stat` results: (exists, is a directory).
    stats: RwLock<PathMap<Stat>>,
    /// Per directory: how many of its entries were `stat`ed, then the names it lists, which
    /// answer "does not exist" without a `stat` ([`FsVfs::listed_absent`]).
    listings: RwLock<PathMap<Listing>>,
    /// Bumped by every change of the overlay and every invalidation ([`Vfs::generation`]).
    generation: std::sync::atomic::AtomicU64,
    /// The largest file read ([`crate::limits::Limits::max_file_bytes`]; its default if unset).
    max_file_bytes: Option<u64>,
    /// The bytes of the files held read, and the most allowed
    /// ([`crate::limits::Limits::max_read_bytes`]; unbounded until the engine sets it).
    read_total: std::sync::atomic::AtomicU64,
    read_budget: std::sync::atomic::AtomicU64,
    /// Files not read because the budget was spent.
    refused: RwLock<FastSet<PathBuf>>,
}

impl Default for FsVfs {
    fn default() -> Self {
        FsVfs {
            overlay: Default::default(),
            cache: Default::default(),
            dirs: Default::default(),
            stats: Default::default(),
            listings: Default::default(),
            generation: Default::default(),
            max_file_bytes: None,
            read_total: Default::default(),
            read_budget: std::sync::atomic::AtomicU64::new(u64::MAX),
            refused: Default::default(),
        }
    }
}

impl FsVfs {
    pub fn new() -> FsVfs {
        FsVfs::default()
    }

    /// Reads no file larger than `max` bytes (the project's `max_file_bytes`, as the scanner).
    pub fn with_max_file_bytes(mut self, max: u64) -> FsVfs {
        self.max_file_bytes = Some(max);
        self
    }

    fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes
            .unwrap_or_else(|| crate::limits::Limits::default().max_file_bytes)
    }

    /// Serves `text` for `path` instead of the disk content (an unsaved editor buffer).
    pub fn set_overlay(&self, path: impl Into<PathBuf>, text: &str) {
        let path = path.into();
        let file = Arc::new(SourceFile::from_bytes(path.clone(), text.as_bytes()));
        if let Ok(mut o) = self.overlay.write() {
            o.insert(PathKey(path), file);
        }
        self.bump();
    }

    fn bump(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn clear_overlay(&self, path: &Path) {
        if let Ok(mut o) = self.overlay.write() {
            o.remove(&PathRef(path));
        }
        self.bump();
    }

    /// Forgets cached reads (after files changed on disk).
    pub fn invalidate(&self, path: Option<&Path>) {
        self.bump();
        if let (Ok(mut c), Ok(mut d), Ok(mut st), Ok(mut l)) = (
            self.cache.write(),
            self.dirs.write(),
            self.stats.write(),
            self.listings.write(),
        ) {
            use std::sync::atomic::Ordering;
            if let Ok(mut r) = self.refused.write() {
                r.clear();
            }
            match path {
                Some(p) => {
                    if let Some(Some(f)) = c.remove(&PathRef(p)) {
                        let n = f.text().len() as u64;
                        let _ = self.read_total.fetch_update(
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                            |t| Some(t.saturating_sub(n)),
                        );
                    }
                    d.remove(&PathRef(p));
                    st.remove(&PathRef(p));
                    l.remove(&PathRef(p));
                    if let Some(parent) = p.parent() {
                        d.remove(&PathRef(parent));
                        l.remove(&PathRef(parent));
                    }
                }
                None => {
                    c.clear();
                    self.read_total.store(0, Ordering::Relaxed);
                    d.clear();
                    st.clear();
                    l.clear();
                }
            }
        }
    }

    /// True when `path` certainly does not exist because its directory, listed once, holds no
    /// entry of that name. A hierarchy level interpolated for each node asks for one path per
    /// node in the same directory (`nodes/<certname>.json`), most of them absent: 2,600 failing
    /// `statx` calls in a 1.5k-file check. The listing is read once a directory has had
    /// [`LIST_AFTER`] of its entries `stat`ed. Only the negative answer is taken from it (a
    /// listed name is still `stat`ed: a dangling link, a permission), only for plainly spelt
    /// paths (no `.`/`..` or empty components), and only on Linux, whose file systems compare
    /// names exactly (macOS's are case-insensitive by default: `Foo.yaml` exists when
    /// `foo.yaml` is listed).
    fn listed_absent(&self, path: &Path) -> bool {
        #[cfg(target_os = "linux")]
        {
            // `stat` asked the listing first ([`FsVfs::listing_answer`]): the directory is not
            // listed yet, so this `stat` counts towards listing it.
            let Some((parent, name)) = spelled_parent_and_name(path) else {
                return false;
            };
            let Ok(mut m) = self.listings.write() else {
                return false;
            };
            let entry = m
                .entry(PathKey(parent.to_path_buf()))
                .or_insert(Listing::Counting(0));
            if let Listing::Counting(n) = entry {
                *n += 1;
                if *n >= LIST_AFTER {
                    *entry = match std::fs::read_dir(parent) {
                        Ok(rd) => {
                            let mut names = FastSet::default();
                            for e in rd {
                                match e {
                                    Ok(e) => {
                                        names.insert(e.file_name());
                                    }
                                    // A listing that fails midway answers nothing.
                                    Err(_) => return false,
                                }
                            }
                            Listing::Names(names)
                        }
                        Err(_) => Listing::Unlisted,
                    };
                }
            }
            return entry.absent(name) == Some(true);
        }
        #[allow(unreachable_code)]
        {
            let _ = path;
            false
        }
    }

    /// What the listing of `path`'s directory, if it was listed, says of `path`
    /// ([`Listing::absent`]), without counting a `stat` towards listing it.
    #[cfg(target_os = "linux")]
    fn listing_answer(&self, path: &Path) -> Option<bool> {
        let (parent, name) = spelled_parent_and_name(path)?;
        self.listings
            .read()
            .ok()?
            .get(&PathRef(parent))?
            .absent(name)
    }

    #[cfg(not(target_os = "linux"))]
    fn listing_answer(&self, _path: &Path) -> Option<bool> {
        None
    }

    fn stat(&self, path: &Path) -> Stat {
        // An absent entry of a listed directory (most of the node files a hierarchy asks
        // for: `nodes/<certname>.json`) is told by the listing alone; asking the stats map
        // first only missed (about 400 instructions per absent node file at 15k files).
        let listed = self.listing_answer(path);
        if listed == Some(true) {
            return Stat::default();
        }
        if let Some(s) = self
            .stats
            .read()
            .ok()
            .and_then(|m| m.get(&PathRef(path)).copied())
        {
            return s;
        }
        if listed.is_none() && self.listed_absent(path) {
            return Stat::default();
        }
        let s = match std::fs::metadata(path) {
            Ok(m) => Stat {
                exists: true,
                dir: m.is_dir(),
                regular: m.is_file(),
            },
            Err(_) => Stat::default(),
        };
        if let Ok(mut m) = self.stats.write() {
            m.insert(PathKey(path.to_path_buf()), s);
        }
        s
    }
}

/// `(path.parent(), path.file_name())` of a path whose bytes spell its components
/// ([`crate::paths::spells_components`]), from the bytes: both walk the components back from
/// the end, twice per probe of a missing file. `None` when there is no parent directory or no
/// name (`a`, `/`).
/// The parent and file name of a path spelled as its components (no `.` or `..` after a
/// separator, no empty component: its name is a plain one), for the directory listings.
#[cfg(target_os = "linux")]
fn spelled_parent_and_name(path: &Path) -> Option<(&Path, &std::ffi::OsStr)> {
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = path.as_os_str().as_bytes();
    if !crate::paths::spells_components(bytes) {
        return None;
    }
    split_spelled(bytes)
}

#[cfg(target_os = "linux")]
fn split_spelled(bytes: &[u8]) -> Option<(&Path, &std::ffi::OsStr)> {
    use std::os::unix::ffi::OsStrExt as _;
    let cut = memchr::memrchr(b'/', bytes)?;
    let parent: &[u8] = if cut == 0 { b"/" } else { &bytes[..cut] };
    let name = &bytes[cut + 1..];
    (!name.is_empty()).then(|| {
        (
            Path::new(std::ffi::OsStr::from_bytes(parent)),
            std::ffi::OsStr::from_bytes(name),
        )
    })
}

/// How many entries of one directory are `stat`ed before its listing is read.
#[cfg(target_os = "linux")]
const LIST_AFTER: u32 = 8;

/// A directory's names, once listed ([`FsVfs::listed_absent`]).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Listing {
    /// Entries `stat`ed so far.
    Counting(u32),
    /// The names it held when listed.
    Names(FastSet<std::ffi::OsString>),
    /// It could not be listed: every entry is `stat`ed.
    Unlisted,
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl Listing {
    /// `Some(true)`: no entry is named `name`; `Some(false)`: one is, or the directory could
    /// not be listed (`stat` decides); `None`: not listed yet.
    fn absent(&self, name: &std::ffi::OsStr) -> Option<bool> {
        match self {
            Listing::Names(n) => Some(!n.contains(name)),
            Listing::Unlisted => Some(false),
            Listing::Counting(_) => None,
        }
    }
}

/// What `metadata` said of a path (following links), cached.
#[derive(Clone, Copy, Default)]
struct Stat {
    exists: bool,
    dir: bool,
    /// A regular file: the only kind that is read (not a FIFO or device, which block).
    regular: bool,
}

impl Vfs for FsVfs {
    fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn read(&self, path: &Path) -> Option<Arc<SourceFile>> {
        if let Some(f) = self
            .overlay
            .read()
            .ok()
            .and_then(|o| o.get(&PathRef(path)).cloned())
        {
            return Some(f);
        }
        if let Some(hit) = self
            .cache
            .read()
            .ok()
            .and_then(|c| c.get(&PathRef(path)).cloned())
        {
            return hit;
        }
        // Only regular files are read: a hierarchy (or a fuzzed one) may point into /dev, and
        // reading /dev/console or a FIFO blocks forever (found by the check_env fuzz target). What
        // Puppet does there was not recorded; such a file gives no data here, and the scanner
        // reports it (`cannot read: not a regular file`). Read as the scanner reads: without
        // blocking (a `/proc/*` glob reached `/proc/kmsg`, which `stat` calls regular and whose
        // read waits for kernel messages: a hang found by the check_env fuzz target) and no
        // further than the file size limit.
        let loaded = if self.stat(path).regular {
            // What is held read is bounded as a whole too ([`Limits::max_read_bytes`]): a glob
            // such as `/*/**` (the check_env fuzz target made one) matches every file under `/`,
            // each within the file size limit. Past the budget a file is not read, and the
            // lookup reading it fails with a limit error (`Vfs::refused`). Two threads may each
            // pass the test before either adds its file: the excess is one file per thread.
            //
            // [`Limits::max_read_bytes`]: crate::limits::Limits::max_read_bytes
            use std::sync::atomic::Ordering;
            if self.read_total.load(Ordering::Relaxed) >= self.read_budget.load(Ordering::Relaxed) {
                if let Ok(mut r) = self.refused.write() {
                    r.insert(path.to_path_buf());
                }
                return None;
            }
            crate::paths::read_regular(path, self.max_file_bytes())
                .ok()
                .map(|bytes| {
                    self.read_total
                        .fetch_add(bytes.len() as u64, Ordering::Relaxed);
                    Arc::new(SourceFile::from_bytes(path.to_path_buf(), &bytes))
                })
        } else {
            None
        };
        if let Ok(mut c) = self.cache.write() {
            c.insert(PathKey(path.to_path_buf()), loaded.clone());
        }
        loaded
    }

    fn exists(&self, path: &Path) -> bool {
        self.overlay
            .read()
            .is_ok_and(|o| o.contains_key(&PathRef(path)))
            || self.stat(path).exists
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.stat(path).dir
    }

    fn is_symlink(&self, path: &Path) -> bool {
        path.is_symlink()
    }

    fn set_read_budget(&self, bytes: u64) {
        self.read_budget
            .store(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    fn refused(&self, path: &Path) -> bool {
        self.refused.read().is_ok_and(|r| r.contains(path))
    }

    fn read_dir(&self, path: &Path) -> Option<Vec<(String, bool)>> {
        if let Some(hit) = self
            .dirs
            .read()
            .ok()
            .and_then(|d| d.get(&PathRef(path)).cloned())
        {
            return hit.map(|v| (*v).clone());
        }
        let entries = std::fs::read_dir(path).ok().map(|rd| {
            let mut v: Vec<(String, bool)> = rd
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    // `is_dir` follows symlinks, as Ruby's glob does for its matches.
                    let is_dir = e.path().is_dir();
                    Some((name, is_dir))
                })
                .collect();
            if let Ok(o) = self.overlay.read() {
                for PathKey(p) in o.keys() {
                    if p.parent() == Some(path) {
                        if let Some(n) = p.file_name().and_then(|n| n.to_str()) {
                            if !v.iter().any(|(x, _)| x == n) {
                                v.push((n.to_string(), false));
                            }
                        }
                    }
                }
            }
            Arc::new(v)
        });
        if let Ok(mut d) = self.dirs.write() {
            d.insert(PathKey(path.to_path_buf()), entries.clone());
        }
        entries.map(|v| (*v).clone())
    }
}

/// Ruby `Pathname#+`: an absolute right side replaces the left; `..` and `.` are kept as
/// written (Pathname cleans only the joint).
pub fn pathname_join(base: &Path, rel: &str) -> PathBuf {
    if rel.starts_with('/') {
        return PathBuf::from(rel);
    }
    // The usual `nodes/web01.yaml`: only plain components, pushed at once into a buffer of
    // the final size (the walk below re-parsed the components and grew the buffer per
    // component; one join per location of every level resolved).
    #[cfg(unix)]
    if !rel.is_empty()
        && !matches!(rel, "." | "..")
        && !rel.starts_with("./")
        && !rel.starts_with("../")
        && crate::paths::spells_components(rel.as_bytes())
    {
        let mut out = PathBuf::with_capacity(base.as_os_str().len() + 1 + rel.len());
        out.push(base);
        out.push(rel);
        return out;
    }
    pathname_join_walk(base, rel)
}

/// [`pathname_join`] component by component (any relative path).
fn pathname_join_walk(base: &Path, rel: &str) -> PathBuf {
    let mut out = base.to_path_buf();
    for comp in Path::new(rel).components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                // Pathname#+ resolves `..` against the base lexically.
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::Normal(c) => out.push(c),
            Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Ruby Dir.glob (Ruby 3.1 dir.c `glob_helper`), sorted results.

#[derive(Clone, Debug, PartialEq)]
enum Seg {
    /// No wildcard: matched by name (backslash escapes removed).
    Plain(String),
    /// A pattern with `*`, `?` or `[...]`.
    Magic(String),
    /// `**` followed by more segments: zero or more directories (not dot directories).
    Recursive,
}

/// Expands `{a,b}` alternatives as Ruby's `ruby_brace_expand`: the first top-level brace group,
/// each alternative in order, recursively. Unbounded: see [`brace_expand_limited`].
pub fn brace_expand(pattern: &str) -> Vec<String> {
    brace_expand_limited(pattern, usize::MAX).unwrap_or_default()
}

/// [`brace_expand`] producing at most `max` alternatives (`None` beyond: `{a,b}` twenty times
/// is a million patterns). Depth-first with an explicit stack, in Ruby's order, so a pattern
/// with thousands of groups cannot overflow the stack either.
pub fn brace_expand_limited(pattern: &str, max: usize) -> Option<Vec<String>> {
    let mut out = Vec::new();
    // Patterns still to expand, the next one last.
    let mut todo = vec![pattern.to_string()];
    while let Some(p) = todo.pop() {
        match brace_split(&p) {
            None => {
                if out.len() >= max {
                    return None;
                }
                out.push(p);
            }
            Some(alts) => {
                // Every pending pattern yields at least one alternative.
                if out.len() + todo.len() + alts.len() > max {
                    return None;
                }
                todo.extend(alts.into_iter().rev());
            }
        }
    }
    Some(out)
}

/// The alternatives of the first top-level brace group of `pattern`, each with the prefix and
/// suffix around the group; `None` when there is no complete group.
fn brace_split(pattern: &str) -> Option<Vec<String>> {
    let b = pattern.as_bytes();
    let mut depth = 0usize;
    let mut lbrace = None;
    let mut rbrace = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'{' => {
                if depth == 0 {
                    lbrace = Some(i);
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    rbrace = Some(i);
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let (Some(l), Some(r)) = (lbrace, rbrace) else {
        return None;
    };
    let prefix = &pattern[..l];
    let suffix = &pattern[r + 1..];
    let inner = &pattern[l + 1..r];
    let mut alts = Vec::new();
    let ib = inner.as_bytes();
    let (mut d, mut start, mut j) = (0usize, 0usize, 0usize);
    while j < ib.len() {
        match ib[j] {
            b'\\' => {
                j += 2;
                continue;
            }
            b'{' => d += 1,
            b'}' => d = d.saturating_sub(1),
            b',' if d == 0 => {
                alts.push(&inner[start..j]);
                start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    alts.push(&inner[start.min(inner.len())..]);
    Some(
        alts.into_iter()
            .map(|a| format!("{prefix}{a}{suffix}"))
            .collect(),
    )
}

fn has_magic(seg: &str) -> bool {
    let b = seg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'*' | b'?' | b'[' => return true,
            _ => i += 1,
        }
    }
    false
}

fn unescape(seg: &str) -> String {
    let mut out = String::with_capacity(seg.len());
    let mut it = seg.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `File.fnmatch(pattern, name, FNM_PATHNAME)` for one path segment (no `/` in either): `*`,
/// `?`, `[set]`/`[!set]`/`[^set]` with ranges, `\` escapes, and a leading `.` in `name` only
/// matched by a literal `.`.
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    // The usual shapes without the general matcher (two char vectors per call: 2% of a check
    // that places every data file against every level): a literal, `*` and `*<literal>`.
    let special = |s: &str| s.bytes().any(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'));
    if !special(pattern) {
        return pattern == name;
    }
    if let Some(tail) = pattern.strip_prefix('*') {
        if !special(tail) {
            return !name.starts_with('.') && name.ends_with(tail);
        }
    }
    // `<literal>?*<literal>`: what a hierarchy path with a `%{...}` hole becomes when data files
    // are placed against it (`rules::reach`): the head, at least one character, the tail. A
    // leading `.` of the name is only matched by the head's own.
    if let Some((head, tail)) = pattern.split_once("?*") {
        if !special(head) && !special(tail) {
            return name.len() > head.len() + tail.len()
                && name.starts_with(head)
                && name.ends_with(tail)
                && (!head.is_empty() || !name.starts_with('.'));
        }
    }
    fnmatch_general(pattern, name)
}

/// [`fnmatch`] for any pattern.
fn fnmatch_general(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    if n.first() == Some(&'.') && p.first() != Some(&'.') {
        // `\.` is a literal dot too.
        if !(p.first() == Some(&'\\') && p.get(1) == Some(&'.')) {
            return false;
        }
    }
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    while pi < p.len() && p[pi] == '*' {
                        pi += 1;
                    }
                    star = Some((pi, ni));
                    continue;
                }
                '?' if ni < n.len() => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' if ni < n.len() => {
                    if let Some((matched, next)) = match_class(&p, pi, n[ni]) {
                        if matched {
                            pi = next;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        // An unterminated `[` is a literal.
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && ni < n.len() && n[ni] == p[pi + 1] => {
                    pi += 2;
                    ni += 1;
                    continue;
                }
                '\\' if pi + 1 < p.len() => {}
                c if c != '?' && c != '[' && ni < n.len() && n[ni] == c => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        } else if ni == n.len() {
            return true;
        }
        // Mismatch: backtrack to the last star.
        match star {
            Some((sp, sn)) if sn < n.len() => {
                star = Some((sp, sn + 1));
                pi = sp;
                ni = sn + 1;
            }
            _ => return false,
        }
    }
}

/// Matches `c` against the class starting at `p[i] == '['`; returns (matched, index after `]`).
fn match_class(p: &[char], i: usize, c: char) -> Option<(bool, usize)> {
    let mut j = i + 1;
    let negate = matches!(p.get(j), Some('!' | '^'));
    if negate {
        j += 1;
    }
    let mut matched = false;
    let mut first = true;
    while j < p.len() {
        if p[j] == ']' && !first {
            return Some((matched != negate, j + 1));
        }
        first = false;
        let mut lo = p[j];
        if lo == '\\' && j + 1 < p.len() {
            j += 1;
            lo = p[j];
        }
        if j + 2 < p.len() && p[j + 1] == '-' && p[j + 2] != ']' {
            let mut hi = p[j + 2];
            let mut adv = 3;
            if hi == '\\' && j + 3 < p.len() {
                hi = p[j + 3];
                adv = 4;
            }
            if lo <= c && c <= hi {
                matched = true;
            }
            j += adv;
        } else {
            if lo == c {
                matched = true;
            }
            j += 1;
        }
    }
    None
}

fn segments(pattern: &str) -> (PathBuf, Vec<Seg>) {
    let (root, rest) = match pattern.strip_prefix('/') {
        Some(r) => (PathBuf::from("/"), r),
        None => (PathBuf::from("."), pattern),
    };
    let parts: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let n = parts.len();
    let segs = parts
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if *s == "**" && i + 1 < n {
                Seg::Recursive
            } else if has_magic(s) {
                Seg::Magic((*s).to_string())
            } else {
                Seg::Plain(unescape(s))
            }
        })
        .collect();
    (root, segs)
}

/// Deepest directory nesting a glob descends into (the walk recurses once per level).
const GLOB_MAX_DEPTH: usize = 64;

/// A glob stopped at a limit (the message says which); see docs/limits.md.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobLimit(pub String);

/// The bounds of one glob and what it has used.
struct GlobBudget<'l> {
    limits: &'l Limits,
    visits: usize,
    results: usize,
    hit: Option<GlobLimit>,
}

impl GlobBudget<'_> {
    fn stop(&mut self, what: String) {
        self.hit.get_or_insert(GlobLimit(what));
    }
}

/// Ruby `Dir.glob(pattern)` (Ruby ≥ 3.0: sorted, byte-wise, directory by directory; brace
/// alternatives in their written order). Returns matching paths, files and directories.
///
/// Bounded by `limits` (brace alternatives, directory entries visited, results) and by a
/// nesting depth of 64 directories: a `**` over `/`, a symbolic-link loop or `{a,b}` repeated
/// stop with a [`GlobLimit`] instead of running away. Ruby has no such bounds.
pub fn ruby_glob(vfs: &dyn Vfs, pattern: &str, limits: &Limits) -> Result<Vec<PathBuf>, GlobLimit> {
    let mut out = Vec::new();
    let Some(alts) = brace_expand_limited(pattern, limits.max_glob_alternatives) else {
        return Err(GlobLimit(format!(
            "glob `{pattern}` expands to more than {} brace alternatives (limit \
             `max_glob_alternatives`)",
            limits.max_glob_alternatives
        )));
    };
    let mut budget = GlobBudget {
        limits,
        visits: 0,
        results: 0,
        hit: None,
    };
    for alt in alts {
        let (root, segs) = segments(&alt);
        let relative = !alt.starts_with('/');
        let mut found = Vec::new();
        helper(vfs, &root, &segs, &[0], &mut found, 0, &mut budget);
        if let Some(hit) = budget.hit.take() {
            return Err(GlobLimit(format!("glob `{pattern}`: {}", hit.0)));
        }
        for p in found {
            // Relative patterns give relative paths, without the `./` we walked from. Only
            // those two bytes go: Ruby's `Dir.glob` keeps the pattern's literal parts as
            // written, so `./data/*.yaml` gives `./data/a.yaml` and `data/./x/*.yaml` gives
            // `data/./x/a.yaml` (recorded with Ruby 3.1, see `glob_keeps_what_the_pattern_wrote`).
            // `Path::strip_prefix` would normalize those `.` components away, and a glob
            // level's locations would no longer name the files a `path` level names.
            let p = if relative {
                use std::os::unix::ffi::OsStrExt;
                match p.as_os_str().as_bytes().strip_prefix(b"./") {
                    Some(rest) => PathBuf::from(std::ffi::OsStr::from_bytes(rest)),
                    None => p,
                }
            } else {
                p
            };
            out.push(p);
        }
    }
    Ok(out)
}

fn helper(
    vfs: &dyn Vfs,
    path: &Path,
    segs: &[Seg],
    pats: &[usize],
    out: &mut Vec<PathBuf>,
    depth: usize,
    budget: &mut GlobBudget,
) {
    if budget.hit.is_some() {
        return;
    }
    if depth > GLOB_MAX_DEPTH {
        budget.stop(format!(
            "descends more than {GLOB_MAX_DEPTH} directories deep (at `{}`)",
            path.display()
        ));
        return;
    }
    let mut match_all = false;
    let mut magical = false;
    let mut recursive = false;
    let mut plain: Vec<usize> = Vec::new();
    for &p0 in pats {
        let mut p = p0;
        if segs.get(p) == Some(&Seg::Recursive) {
            recursive = true;
            p += 1;
        }
        match segs.get(p) {
            None => match_all = true,
            Some(Seg::Plain(_)) => plain.push(p),
            Some(Seg::Magic(_)) => magical = true,
            Some(Seg::Recursive) => recursive = true,
        }
    }
    if match_all && vfs.exists(path) {
        budget.results += 1;
        if budget.results > budget.limits.max_glob_results {
            let max = budget.limits.max_glob_results;
            budget.stop(format!(
                "matches more than {max} paths (limit `max_glob_results`)"
            ));
            return;
        }
        out.push(path.to_path_buf());
    }
    if magical || recursive {
        let Some(mut entries) = vfs.read_dir(path) else {
            return;
        };
        budget.visits = budget.visits.saturating_add(entries.len());
        if budget.visits > budget.limits.max_glob_visits {
            let max = budget.limits.max_glob_visits;
            budget.stop(format!(
                "visits more than {max} directory entries (limit `max_glob_visits`)"
            ));
            return;
        }
        entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        for (name, is_dir) in entries {
            if name == "." || name == ".." {
                continue;
            }
            let mut next: Vec<usize> = Vec::new();
            // `**/` goes down real directories only, not links to directories (recorded with
            // Ruby 3.1: `data/**/*.yaml` with `data/loop -> data` finds `data/a.yaml` once;
            // `data/*/a.yaml` and `data/**/loop/a.yaml` do follow the link).
            let mut descend: Option<bool> = None;
            for &p0 in pats {
                let mut p = p0;
                if segs.get(p) == Some(&Seg::Recursive) {
                    if is_dir
                        && !name.starts_with('.')
                        && *descend.get_or_insert_with(|| !vfs.is_symlink(&path.join(&name)))
                    {
                        next.push(p);
                    }
                    p += 1;
                }
                let hit = match segs.get(p) {
                    Some(Seg::Plain(s)) => *s == name,
                    Some(Seg::Magic(m)) => fnmatch(m, &name),
                    _ => false,
                };
                if hit {
                    next.push(p + 1);
                }
            }
            if !next.is_empty() {
                next.dedup();
                helper(vfs, &path.join(&name), segs, &next, out, depth + 1, budget);
                if budget.hit.is_some() {
                    return;
                }
            }
        }
    } else if !plain.is_empty() {
        let mut seen: Vec<&str> = Vec::new();
        for &p in &plain {
            let Some(Seg::Plain(name)) = segs.get(p) else {
                continue;
            };
            if seen.contains(&name.as_str()) {
                continue;
            }
            seen.push(name);
            let next: Vec<usize> = plain
                .iter()
                .filter(|&&q| matches!(segs.get(q), Some(Seg::Plain(n)) if n == name))
                .map(|q| q + 1)
                .collect();
            let child = path.join(name);
            // Intermediate plain segments must be directories.
            if next.iter().any(|&q| q < segs.len()) && !vfs.is_dir(&child) {
                if next.contains(&segs.len()) && vfs.exists(&child) {
                    out.push(child);
                }
                continue;
            }
            helper(vfs, &child, segs, &next, out, depth + 1, budget);
            if budget.hit.is_some() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    /// Existence answered from a directory's listing agrees with the file system: absent
    /// names, present files, directories, links (to a file, dangling), names differing in case
    /// only, odd spellings; and a file created afterwards is seen once its path is invalidated.
    #[cfg(target_os = "linux")]
    #[test]
    fn existence_from_listings_agrees_with_stat() {
        use std::os::unix::fs::symlink;
        let d = std::env::temp_dir().join(format!("hieralint-vfs-list-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("nodes/sub")).unwrap();
        for n in ["a.yaml", "b.json", "Mixed.yaml"] {
            std::fs::write(d.join("nodes").join(n), "x: 1\n").unwrap();
        }
        symlink(d.join("nodes/a.yaml"), d.join("nodes/link.yaml")).unwrap();
        symlink(d.join("nodes/gone.yaml"), d.join("nodes/dangling.yaml")).unwrap();
        let vfs = FsVfs::new();
        let mut asked = Vec::new();
        for i in 0..30 {
            asked.push(d.join(format!("nodes/host{i}.json")));
        }
        for n in [
            "a.yaml",
            "b.json",
            "Mixed.yaml",
            "mixed.yaml",
            "A.yaml",
            "link.yaml",
            "dangling.yaml",
            "sub",
            "sub/",
            "sub/.",
            "./a.yaml",
            "sub/../a.yaml",
            "..",
            ".",
            "nope/x.yaml",
            "a.yaml/x",
        ] {
            asked.push(d.join("nodes").join(n));
        }
        for p in &asked {
            assert_eq!(vfs.exists(p), p.exists(), "{}", p.display());
        }
        // The answers came from the listing (a snapshot, like every cached stat): a file created
        // since, never asked for, is absent until its path is invalidated.
        let later = d.join("nodes/later.json");
        std::fs::write(&later, "{}").unwrap();
        assert!(!vfs.exists(&later));
        vfs.invalidate(Some(&later));
        assert!(vfs.exists(&later));
        assert!(!vfs.exists(&d.join("nodes/host4.json")));
        let new = d.join("nodes/host3.json");
        std::fs::write(&new, "{}").unwrap();
        vfs.invalidate(None);
        assert!(vfs.exists(&new));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Paths equal as `Path`s hash alike and find each other in a [`PathMap`]; others do not
    /// collide in these cases.
    #[test]
    fn path_keys_hash_as_paths_compare() {
        use std::hash::BuildHasher as _;
        let spellings = [
            "/r/data/a.yaml",
            "/r//data/a.yaml",
            "/r/./data/a.yaml",
            "/r/data/./a.yaml",
            "/r/data/a.yaml/",
            "/r/data/a.yaml/.",
            "/r/data//a.yaml//",
            "//r/data/a.yaml",
            "/r/data/b.yaml",
            "/r/data/../data/a.yaml",
            "r/data/a.yaml",
            "./r/data/a.yaml",
            "././r/data/a.yaml",
            "/",
            "//",
            "/.",
            ".",
            "",
            "a",
            "./a",
            "a/",
        ];
        let state = foldhash::fast::FixedState::default();
        let mut map: PathMap<usize> = PathMap::default();
        for (i, s) in spellings.iter().enumerate() {
            map.entry(PathKey(PathBuf::from(s))).or_insert(i);
        }
        for a in &spellings {
            for b in &spellings {
                let (pa, pb) = (Path::new(a), Path::new(b));
                let (ha, hb) = (
                    state.hash_one(PathRef(pa)),
                    state.hash_one(PathKey(pb.into())),
                );
                assert_eq!(pa == pb, ha == hb, "{a:?} vs {b:?}");
            }
            // Found under the first spelling equal to it.
            let first = spellings.iter().position(|b| Path::new(b) == Path::new(a));
            assert_eq!(map.get(&PathRef(Path::new(a))).copied(), first, "{a:?}");
        }
    }

    /// An in-memory file system for tests.
    struct Mem {
        files: Vec<PathBuf>,
    }

    impl Vfs for Mem {
        fn read(&self, _: &Path) -> Option<Arc<SourceFile>> {
            None
        }
        fn exists(&self, p: &Path) -> bool {
            self.files.iter().any(|f| f == p) || self.is_dir(p)
        }
        fn is_dir(&self, p: &Path) -> bool {
            self.files.iter().any(|f| f.starts_with(p) && f != p)
        }
        fn read_dir(&self, p: &Path) -> Option<Vec<(String, bool)>> {
            if !self.is_dir(p) {
                return None;
            }
            let mut v: Vec<(String, bool)> = Vec::new();
            for f in &self.files {
                if let Ok(rest) = f.strip_prefix(p) {
                    let mut comps = rest.components();
                    if let Some(first) = comps.next() {
                        let name = first.as_os_str().to_string_lossy().to_string();
                        let is_dir = comps.next().is_some();
                        if !v.iter().any(|(n, _)| *n == name) {
                            v.push((name, is_dir));
                        }
                    }
                }
            }
            v.reverse();
            Some(v)
        }
    }

    fn mem(files: &[&str]) -> Mem {
        Mem {
            files: files.iter().map(PathBuf::from).collect(),
        }
    }

    fn glob(m: &Mem, p: &str) -> Vec<String> {
        ruby_glob(m, p, &Limits::default())
            .expect("within limits")
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn glob_like_ruby() {
        // Recorded: locations/globs (Ruby 3.1).
        let m = mem(&[
            "/d/a.yaml",
            "/d/C.yaml",
            "/d/.hidden.yaml",
            "/d/dir.yaml/x",
            "/d/rec/top.yaml",
            "/d/rec/sub/a.yaml",
            "/d/rec/sub/deeper/x.yaml",
            "/d/br/web.yaml",
            "/d/br/ams.yaml",
            "/d/q1.yaml",
        ]);
        assert_eq!(
            glob(&m, "/d/*.yaml"),
            vec!["/d/C.yaml", "/d/a.yaml", "/d/dir.yaml", "/d/q1.yaml"]
        );
        assert_eq!(
            glob(&m, "/d/rec/**/*.yaml"),
            vec![
                "/d/rec/sub/a.yaml",
                "/d/rec/sub/deeper/x.yaml",
                "/d/rec/top.yaml"
            ]
        );
        assert_eq!(
            glob(&m, "/d/br/{web,ams}.yaml"),
            vec!["/d/br/web.yaml", "/d/br/ams.yaml"]
        );
        assert_eq!(glob(&m, "/d/q?.yaml"), vec!["/d/q1.yaml"]);
        assert_eq!(glob(&m, "/d/[aC].yaml"), vec!["/d/C.yaml", "/d/a.yaml"]);
        assert_eq!(glob(&m, "/d/.h*"), vec!["/d/.hidden.yaml"]);
        assert_eq!(glob(&m, "/d/a.yaml"), vec!["/d/a.yaml"]);
        assert!(glob(&m, "/d/nope/*.yaml").is_empty());
    }

    #[test]
    fn glob_keeps_what_the_pattern_wrote() {
        // Recorded with Ruby 3.1 in a directory holding data/teams/billing.yaml:
        //   Dir.glob("./data/teams/b*.yaml")  => ["./data/teams/billing.yaml"]
        //   Dir.glob("data/./teams/b*.yaml")  => ["data/./teams/billing.yaml"]
        //   Dir.glob("data/teams/b*.yaml")    => ["data/teams/billing.yaml"]
        // An environment checked as `.` has locations `./data/...`: a glob level must name
        // its files as a `path` level does.
        let m = mem(&["./data/teams/billing.yaml", "./data/teams/web.yaml"]);
        assert_eq!(
            glob(&m, "./data/teams/b*.yaml"),
            vec!["./data/teams/billing.yaml"]
        );
        assert_eq!(
            glob(&m, "data/./teams/b*.yaml"),
            vec!["data/./teams/billing.yaml"]
        );
        assert_eq!(
            glob(&m, "data/teams/b*.yaml"),
            vec!["data/teams/billing.yaml"]
        );
        assert_eq!(
            glob(&m, "./data/{teams}/*.yaml"),
            vec!["./data/teams/billing.yaml", "./data/teams/web.yaml"]
        );
    }

    #[test]
    fn pathname_join_shortcut_joins_as_the_walk() {
        for base in ["/r/env", "/r/env/", "", "/", "rel/dir", "/r/a/../b"] {
            for rel in [
                "nodes/web01.yaml",
                "common.yaml",
                ".hidden/x.yaml",
                "..x/y",
                "a/./b",
                "a//b",
                "./a",
                "../a",
                "a/..",
                ".",
                "..",
                "",
                "a/",
                "é/ü.yaml",
                "a/.b",
            ] {
                assert_eq!(
                    pathname_join(Path::new(base), rel),
                    pathname_join_walk(Path::new(base), rel),
                    "{base:?} + {rel:?}"
                );
                // The same bytes, not only equal components.
                assert_eq!(
                    pathname_join(Path::new(base), rel).as_os_str(),
                    pathname_join_walk(Path::new(base), rel).as_os_str(),
                    "{base:?} + {rel:?}"
                );
            }
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn split_spelled_is_parent_and_file_name() {
        for p in [
            "/a",
            "/a/b.yaml",
            "a/b",
            "./a",
            "/r/data/nodes/web01.yaml",
            "é/ü",
        ] {
            assert!(crate::paths::spells_components(p.as_bytes()));
            let path = Path::new(p);
            let want = path.parent().zip(path.file_name());
            assert_eq!(split_spelled(p.as_bytes()), want, "{p:?}");
        }
        for p in ["a", "/", ""] {
            assert_eq!(split_spelled(p.as_bytes()), None, "{p:?}");
            let path = Path::new(p);
            // std: no parent (`/`, empty) or an empty one (`a`), which the caller refuses too.
            assert!(
                path.parent().is_none_or(|q| q.as_os_str().is_empty()),
                "{p:?}"
            );
        }
    }

    #[test]
    fn fnmatch_shortcuts_answer_as_the_general_matcher() {
        let patterns = [
            "common.yaml",
            "*.yaml",
            "*",
            "*e",
            "*.",
            ".*",
            "*.yml",
            "nodes",
            "a?c",
            "[ab]c",
            "\\*.yaml",
            "*\\.yaml",
            "é.yaml",
            "*é",
            "",
            "**",
            "*.yaml*",
            "?*.yaml",
            "?*",
            "web?*.yaml",
            ".?*",
            "?*é",
            "é?*",
            "x?*?*",
            "?*[ab]",
        ];
        let names = [
            "common.yaml",
            "x.yaml",
            ".hidden.yaml",
            "yaml",
            ".yaml",
            "abc",
            "bc",
            "",
            ".",
            "node",
            "nodes",
            "*.yaml",
            "é.yaml",
            "xé",
            "ε.yaml",
            "common.yml",
            "web.yaml",
            "web1.yaml",
            "x",
            "xé",
            "éé",
            "..yaml",
            "a.yaml",
        ];
        for p in patterns {
            for n in names {
                assert_eq!(fnmatch(p, n), fnmatch_general(p, n), "{p:?} {n:?}");
            }
        }
    }

    #[test]
    fn fnmatch_rules() {
        assert!(fnmatch("*.yaml", "a.yaml"));
        assert!(!fnmatch("*.yaml", ".a.yaml"));
        assert!(fnmatch(".*", ".a"));
        assert!(fnmatch("[!b]x", "ax"));
        assert!(!fnmatch("[!b]x", "bx"));
        assert!(fnmatch("[a-c]", "b"));
        assert!(fnmatch("a\\*", "a*"));
        assert!(!fnmatch("a\\*", "ab"));
        assert!(fnmatch("*a*b", "xaxxb"));
    }

    #[test]
    fn braces_expand_in_order() {
        assert_eq!(brace_expand("a{b,c{d,e}}f"), vec!["abf", "acdf", "acef"]);
        assert_eq!(brace_expand("x"), vec!["x"]);
    }

    #[test]
    fn pathname_plus() {
        assert_eq!(
            pathname_join(Path::new("/e"), "data"),
            PathBuf::from("/e/data")
        );
        assert_eq!(
            pathname_join(Path::new("/e"), "/abs"),
            PathBuf::from("/abs")
        );
        assert_eq!(
            pathname_join(Path::new("/e/x"), "../d"),
            PathBuf::from("/e/d")
        );
    }
}

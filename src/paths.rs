//! Path helpers shared by the CI formats, the baseline, the config file and the scanner:
//! lexical normalisation, the repository root, and repo-relative spelling with `/` separators.

use std::path::{Component, Path, PathBuf};

/// Removes `.` components and folds `..` into its parent, without touching the file system
/// (symbolic links are not resolved, so `a/../b` is `b` even if `a` is a link).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else if !matches!(
                    out.components().next_back(),
                    Some(Component::RootDir | Component::Prefix(_))
                ) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The absolute, normalised form of `p` (relative paths are taken from the current directory).
pub fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        normalize(p)
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        normalize(&cwd.join(p))
    }
}

/// The key under which a path is compared with another: absolute and normalised, and with
/// symbolic links resolved when the path exists (so `/tmp/x` and `/private/tmp/x` agree).
pub fn identity(p: &Path) -> PathBuf {
    let abs = absolute(p);
    if let Ok(c) = std::fs::canonicalize(&abs) {
        return c;
    }
    // a file that does not exist (an unsaved buffer): canonicalise its directory
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => match std::fs::canonicalize(dir) {
            Ok(d) => d.join(name),
            Err(_) => abs,
        },
        _ => abs,
    }
}

/// The repository root that CI formats and baselines make paths relative to: the nearest
/// ancestor of the current directory holding `.git` (a directory, or a file in a worktree), else
/// the current directory itself. CI systems check out the repository root as the working
/// directory, and GitHub code scanning resolves `%SRCROOT%` against it.
pub fn repo_root() -> PathBuf {
    let cwd = identity(Path::new("."));
    for dir in cwd.ancestors() {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
    }
    cwd
}

/// `p` relative to `root`, with `/` separators, when `p` is inside `root`; `None` otherwise.
pub fn relative_to(p: &Path, root: &Path) -> Option<String> {
    let id = identity(p);
    let rel = id.strip_prefix(root).ok()?;
    Some(slashed(rel))
}

/// A path spelled with `/` separators.
pub fn slashed(p: &Path) -> String {
    let mut out = String::new();
    for c in p.components() {
        match c {
            Component::RootDir => out.push('/'),
            Component::Prefix(pre) => out.push_str(&pre.as_os_str().to_string_lossy()),
            other => {
                if !out.is_empty() && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    out
}

/// How a path is written in a CI report: repo-relative when inside `root`, else absolute.
pub fn report_path(p: &Path, root: &Path) -> String {
    relative_to(p, root).unwrap_or_else(|| slashed(&identity(p)))
}

/// Whether the path written `b` is spelled as its components spell it back (what `Path`'s
/// equality compares): no empty component (`//`), no trailing separator (`/` aside), no `.`
/// after a separator. `/.hidden` and `/..` also answer false, which only sends such paths
/// (rare) to the slower component walk. Every path-keyed map hashes through this
/// (`engine::vfs::PathKey`), 58k times in a 1.5k-file check: two `memmem` searches cost 245
/// instructions a call there, one `memchr` per separator twice that, eight bytes at a time
/// more too (session 14); sixteen bytes at a time with SSE2 ([`has_separator_pair`]) cost
/// a quarter (session 15).
#[cfg(unix)]
pub fn spells_components(b: &[u8]) -> bool {
    (b.len() <= 1 || !b.ends_with(b"/")) && !has_separator_pair(b)
}

/// Whether `b` holds `//` or `/.`.
#[inline]
pub fn has_separator_pair(b: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if b.len() >= 17 {
        return sse2::has_separator_pair(b);
    }
    has_separator_pair_bytewise(b)
}

/// [`has_separator_pair`] a byte at a time: short paths, other targets, and the tests' model.
fn has_separator_pair_bytewise(b: &[u8]) -> bool {
    b.windows(2)
        .any(|w| w[0] == b'/' && (w[1] == b'/' || w[1] == b'.'))
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// [`super::has_separator_pair`] for `b` of 17 bytes or more: the 16 windows starting at
    /// `i` compared at once (a `/` at `i + k` and a `/` or `.` at `i + k + 1`); the last
    /// block overlaps the one before it rather than leaving a tail.
    pub(super) fn has_separator_pair(b: &[u8]) -> bool {
        debug_assert!(b.len() >= 17);
        let last = b.len() - 17;
        let mut i = 0;
        loop {
            let at = i.min(last);
            if block(&b[at..at + 17]) {
                return true;
            }
            if at == last {
                return false;
            }
            i += 16;
        }
    }

    #[inline]
    fn block(w: &[u8]) -> bool {
        assert!(w.len() >= 17);
        // SAFETY: SSE2 is part of the x86_64 baseline; both unaligned 16-byte loads read
        // inside `w` (bytes 0..16 and 1..17), whose length was just checked.
        unsafe {
            let here = _mm_loadu_si128(w.as_ptr().cast::<__m128i>());
            let next = _mm_loadu_si128(w.as_ptr().add(1).cast::<__m128i>());
            let slash = _mm_cmpeq_epi8(here, _mm_set1_epi8(b'/' as i8));
            let follows = _mm_or_si128(
                _mm_cmpeq_epi8(next, _mm_set1_epi8(b'/' as i8)),
                _mm_cmpeq_epi8(next, _mm_set1_epi8(b'.' as i8)),
            );
            _mm_movemask_epi8(_mm_and_si128(slash, follows)) != 0
        }
    }
}

/// `p.strip_prefix(base)`, answered from the bytes when `p` is `base`, a `/` and a plain
/// remainder (the usual case: paths the walk joined under a root); otherwise by
/// [`Path::strip_prefix`], which compares component by component (a tenth of the time spent
/// matching hierarchy templates against file paths).
pub fn strip_prefix<'a>(p: &'a Path, base: &Path) -> Option<&'a Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let (pb, bb) = (p.as_os_str().as_bytes(), base.as_os_str().as_bytes());
        if let Some(rest) = pb.strip_prefix(bb).and_then(|r| r.strip_prefix(b"/")) {
            // A remainder Path::strip_prefix gives back unchanged: spelled as its components,
            // and not empty, `.`, or starting with a separator or `./` (which it trims).
            let plain = !bb.is_empty()
                && !bb.ends_with(b"/")
                && !rest.is_empty()
                && rest != b"."
                && !rest.starts_with(b"/")
                && !rest.starts_with(b"./")
                && spells_components(rest);
            if plain {
                return Some(Path::new(std::ffi::OsStr::from_bytes(rest)));
            }
        }
    }
    p.strip_prefix(base).ok()
}

/// Opens `path` for reading without blocking: `O_NONBLOCK` makes the open of a FIFO return at once
/// (it would wait for a writer) and `O_NOCTTY` keeps a terminal from becoming ours. Reads of a
/// regular file on a disk ignore `O_NONBLOCK`; a procfs file that would wait (`/proc/kmsg`, which
/// `stat` calls regular) fails with `WouldBlock` instead. Callers read only regular files (they
/// check the type of what was opened).
pub fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    o.open(path)
}

/// Why [`read_regular`] read nothing.
#[derive(Debug)]
pub enum Unread {
    Io(std::io::Error),
    /// A FIFO, device or directory: reading one may block forever.
    NotRegular,
    /// Larger than the bound given.
    TooLarge,
}

/// The bytes of the regular file at `path`, at most `max`: opened without blocking
/// ([`open_nonblocking`]), its type and size taken from what was opened (`fstat`, no second walk
/// of the path), read no further than `max + 1` bytes (a file that grew, or a procfs file whose
/// size says nothing: `/proc/kcore` says 128 TiB). The scanner and the engine's file system read
/// through this.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, Unread> {
    use std::io::Read as _;
    let file = open_nonblocking(path).map_err(Unread::Io)?;
    let meta = file.metadata().map_err(Unread::Io)?;
    if !meta.is_file() {
        return Err(Unread::NotRegular);
    }
    if meta.len() > max {
        return Err(Unread::TooLarge);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > max {
        return Err(Unread::TooLarge);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When it answers true, the bytes are what `Path`'s components spell back (the promise
    /// `engine::vfs::hash_path` hashes on); the cases it must refuse are refused.
    #[cfg(unix)]
    #[test]
    fn spells_components_only_when_the_components_spell_the_bytes() {
        use std::os::unix::ffi::OsStrExt as _;
        for p in [
            "",
            "/",
            "a",
            "/a",
            "a/b",
            "/r/data/nodes/web01.yaml",
            "a//b",
            "a/./b",
            "a/.",
            "a/",
            "/a/",
            "//",
            "./a",
            "a/../b",
            "a/.hidden",
            "a/b.c/d",
            "é/ü.yaml",
            "a/b//",
        ] {
            let spelled: PathBuf = Path::new(p).components().collect();
            let same = spelled.as_os_str().as_bytes() == p.as_bytes();
            if spells_components(p.as_bytes()) {
                assert!(same, "{p:?} spells {spelled:?}");
            }
        }
        for p in [
            "a//b",
            "a/./b",
            "a/",
            "/a/",
            "//",
            "a/.",
            "a/.hidden",
            "x/..",
        ] {
            assert!(!spells_components(p.as_bytes()), "{p:?}");
        }
        for p in ["/", "a", "/r/data/nodes/web01.yaml", "a/b.c/d", ""] {
            assert!(spells_components(p.as_bytes()), "{p:?}");
        }
    }

    #[test]
    fn separator_pairs_found_at_every_offset_and_length() {
        // Every length across the 16-byte blocks and their overlapping last block, with the
        // pair (or a near miss) at every position: the vector search answers as the bytewise.
        for len in 0..60usize {
            for pos in 0..len {
                for pair in [&b"//"[..], b"/.", b"./", b"/a", b"a/", b"/"] {
                    let mut v = vec![b'x'; len];
                    for (k, &c) in pair.iter().enumerate() {
                        if pos + k < len {
                            v[pos + k] = c;
                        }
                    }
                    assert_eq!(
                        super::has_separator_pair(&v),
                        super::has_separator_pair_bytewise(&v),
                        "{:?}",
                        String::from_utf8_lossy(&v)
                    );
                }
            }
        }
        let long = "/r/env/production/data/nodes/web01.example.com.yaml";
        assert!(!super::has_separator_pair(long.as_bytes()));
        assert!(super::has_separator_pair(format!("{long}/.x").as_bytes()));
        assert!(super::has_separator_pair(format!("/.{long}").as_bytes()));
        assert!(super::has_separator_pair(
            long.replace("/nodes", "//nodes").as_bytes()
        ));
    }

    #[test]
    fn strip_prefix_answers_as_std() {
        let paths = [
            "/r/data/a.yaml",
            "/r/data/x/b.yaml",
            "/r/data",
            "/r/data/",
            "/r/data//a.yaml",
            "/r/data/./a.yaml",
            "/r/data/a/./b.yaml",
            "/r/data/a//b.yaml",
            "/r/data/a/",
            "/r/data/a/.",
            "/r/data/.",
            "/r/datax/a.yaml",
            "/r//data/a.yaml",
            "/r/./data/a.yaml",
            "r/data/a.yaml",
            "/r/data/../a.yaml",
            "/r/data/.hidden",
            "/r/data/a.b/../c",
        ];
        let bases = [
            "/r/data",
            "/r/data/",
            "/r//data",
            "/r/./data",
            "/r",
            "/",
            "",
            "r/data",
        ];
        for p in paths {
            for b in bases {
                // Compared as bytes: Path's equality would let `a/` equal `a`.
                assert_eq!(
                    strip_prefix(Path::new(p), Path::new(b)).map(Path::as_os_str),
                    Path::new(p).strip_prefix(b).ok().map(Path::as_os_str),
                    "{p} minus {b}"
                );
            }
        }
    }

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(normalize(Path::new("./a/./b/../c")), PathBuf::from("a/c"));
        assert_eq!(normalize(Path::new("../a")), PathBuf::from("../a"));
        assert_eq!(normalize(Path::new("/../a")), PathBuf::from("/a"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
    }

    #[test]
    fn relative_spelling_uses_slashes() {
        let root = identity(Path::new("."));
        assert_eq!(
            relative_to(Path::new("./x/y.yaml"), &root).as_deref(),
            Some("x/y.yaml")
        );
        assert_eq!(relative_to(Path::new("/"), &root.join("sub")), None);
        assert_eq!(slashed(Path::new("/a/b")), "/a/b");
        assert_eq!(slashed(Path::new("a/./b")), "a/b");
    }
}

//! `file://` URIs ↔ paths (RFC 8089 with percent-encoding, as editors send them).

use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

/// The local path a `file:` URI names (`file:///p`, `file://localhost/p`), percent-decoded and
/// lexically normalized; `None` for other schemes, hosts, or a path that is not absolute.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let scheme_end = s.find(':')?;
    if !s[..scheme_end].eq_ignore_ascii_case("file") {
        return None;
    }
    let rest = s[scheme_end + 1..].strip_prefix("//")?;
    let path = if rest.starts_with('/') {
        rest
    } else {
        let slash = rest.find('/')?;
        if !rest[..slash].eq_ignore_ascii_case("localhost") {
            return None;
        }
        &rest[slash..]
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let bytes = percent_decode(path)?;
    let p = bytes_to_path(bytes)?;
    p.is_absolute().then(|| normalize(&p))
}

/// The `file://` URI of an absolute path: every byte other than RFC 3986's unreserved
/// characters and `/` is percent-encoded (what VS Code and Neovim produce).
pub fn from_path(path: &Path) -> Uri {
    let mut s = String::from("file://");
    for &b in path_bytes(path).iter() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).unwrap_or_else(|_| {
        // Unreachable for the characters above; keep a valid URI rather than panic.
        Uri::from_str("file:///").expect("constant URI parses")
    })
}

/// Removes `.` components and resolves `..` lexically (editors send absolute paths; symlinks are
/// left alone, as the editor sees them).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(unix)]
fn bytes_to_path(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn bytes_to_path(bytes: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(bytes).ok().map(PathBuf::from)
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(p.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(p.to_string_lossy().replace('\\', "/").into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        Uri::from_str(s).unwrap()
    }

    #[test]
    fn round_trips_with_encoding() {
        let p = Path::new("/tmp/a dir/ü#x.yaml");
        let u = from_path(p);
        assert_eq!(u.as_str(), "file:///tmp/a%20dir/%C3%BC%23x.yaml");
        assert_eq!(to_path(&u).unwrap(), p);
    }

    #[test]
    fn accepts_localhost_and_normalizes() {
        assert_eq!(
            to_path(&uri("file://localhost/etc/./x/../hiera.yaml")).unwrap(),
            Path::new("/etc/hiera.yaml")
        );
        assert_eq!(
            to_path(&uri("FILE:///a/b%3Ac")).unwrap(),
            Path::new("/a/b:c")
        );
        assert_eq!(to_path(&uri("file://server/share/x")), None);
        assert_eq!(to_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(to_path(&uri("file:relative/x")), None);
    }
}

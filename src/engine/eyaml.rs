//! hiera-eyaml 3.3 values (`ENC[...]` blocks) as `eyaml_lookup_key` decrypts them (reference
//! §6.4): the token scan, the encryptor dispatch, the key files and hiera-eyaml's errors. The
//! PKCS7 decryption itself is in [`super::pkcs7`]; a value hieralint cannot decrypt (another
//! cipher than AES-CBC, a BER encoding, a key given by environment variable) is an
//! [`ErrorKind::Unsupported`] error that says so — never a made-up value.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use super::pkcs7::{Keys, Pkcs7Error};

use super::error::{ErrorKind, LookupError};
use crate::value::{Hash, Value};

/// One `ENC[scheme,cipher]` block of a string (`EncHieraTokenType`:
/// `/ENC\[(\w+,)?([a-zA-Z0-9+\/ =\n]+?)\]/`).
#[derive(Debug, PartialEq)]
pub struct EncBlock {
    pub scheme: Option<String>,
    pub cipher: String,
    pub range: std::ops::Range<usize>,
}

/// The encrypted blocks of a value string.
pub fn blocks(s: &str) -> Vec<EncBlock> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(off) = s[from..].find("ENC[") {
        let start = from + off;
        let mut i = start + 4;
        // optional `\w+,`
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        let mut scheme = None;
        if j > i && b.get(j) == Some(&b',') {
            scheme = Some(s[i..j].to_string());
            i = j + 1;
        }
        let body_start = i;
        let mut k = body_start;
        while k < b.len()
            && (b[k].is_ascii_alphanumeric() || matches!(b[k], b'+' | b'/' | b' ' | b'=' | b'\n'))
        {
            k += 1;
        }
        if k > body_start && b.get(k) == Some(&b']') {
            out.push(EncBlock {
                scheme,
                cipher: s[body_start..k].to_string(),
                range: start..k + 1,
            });
            from = k + 1;
        } else {
            from = start + 4;
        }
    }
    out
}

fn option<'a>(opts: &'a Hash, name: &str) -> Option<&'a Value> {
    opts.get(&Value::string(name)).filter(|v| !v.is_undef())
}

/// Decrypts the string `data` found under `key` in `path` with the hierarchy `options`.
pub fn decrypt(data: &str, opts: &Hash, key: &str, path: &Path) -> Result<Value, LookupError> {
    let wrap = |msg: &str| {
        LookupError::lookup(format!(
            "hiera-eyaml backend error decrypting {data} when looking up {key} in {}. Error was {msg}",
            path.display()
        ))
    };
    let blocks = blocks(data);
    if blocks.is_empty() {
        return Ok(Value::string(data));
    }
    let mut keys: Option<Arc<LoadedKeys>> = None;
    let mut plain = String::with_capacity(data.len());
    let mut last = 0;
    for block in &blocks {
        plain.push_str(&data[last..block.range.start]);
        last = block.range.end;
        let scheme = block.scheme.clone().unwrap_or_else(|| "PKCS7".to_string());
        if scheme != "PKCS7" {
            // hiera-eyaml requires the encryptor plugin by name.
            return Err(LookupError::new(
                ErrorKind::Load,
                format!(
                    "cannot load such file -- hiera/backend/eyaml/encryptors/{}",
                    scheme.to_lowercase()
                ),
            ));
        }
        if keys.is_none() {
            keys = Some(load_keys(opts, path).map_err(|m| wrap(&m))?);
        }
        let Some(k) = keys.as_ref() else {
            continue;
        };
        match decrypt_cached(&block.cipher, k) {
            Ok(bytes) => plain.push_str(&String::from_utf8_lossy(&bytes)),
            Err(Pkcs7Error::OpenSsl(m)) => return Err(wrap(&m)),
            Err(Pkcs7Error::Unsupported(m)) => {
                return Err(LookupError::new(
                    ErrorKind::Unsupported,
                    format!("hieralint cannot decrypt {key} in {}: {m}", path.display()),
                ))
            }
        }
    }
    plain.push_str(&data[last..]);
    // `tokens.map(&:to_plain_text).join.chomp`
    if plain.ends_with("\r\n") {
        plain.truncate(plain.len() - 2);
    } else if plain.ends_with('\n') || plain.ends_with('\r') {
        plain.pop();
    }
    Ok(Value::string(plain))
}

type DecryptCache = Mutex<HashMap<(u64, String), Result<Vec<u8>, Pkcs7Error>>>;

/// Decryptions by keys and ciphertext: every fact set decrypts the same secrets, and RSA is the
/// slowest thing the engine does.
static DECRYPTED: LazyLock<DecryptCache> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// A level's keys as read, numbered so that decryptions are cached per reading.
struct LoadedKeys {
    id: u64,
    keys: Keys,
}

/// Parsed keys by private and public key file paths.
type KeyCache = Mutex<HashMap<(PathBuf, Option<PathBuf>), Arc<LoadedKeys>>>;
static KEYS: LazyLock<KeyCache> = LazyLock::new(|| Mutex::new(HashMap::new()));
static NEXT_KEYS_ID: AtomicU64 = AtomicU64::new(0);

fn decrypt_cached(cipher: &str, keys: &LoadedKeys) -> Result<Vec<u8>, Pkcs7Error> {
    let k = (keys.id, cipher.to_string());
    if let Some(r) = DECRYPTED.lock().ok().and_then(|m| m.get(&k).cloned()) {
        return r;
    }
    let r = super::pkcs7::decrypt(cipher, &keys.keys);
    if let Ok(mut m) = DECRYPTED.lock() {
        if m.len() > 65_536 {
            m.clear();
        }
        m.insert(k, r.clone());
    }
    r
}

/// hiera-eyaml's PKCS7 key checks and reads (in its order): both options defined, the private
/// key file read and parsed, the public key file read and parsed as a certificate.
fn load_keys(opts: &Hash, path: &Path) -> Result<Arc<LoadedKeys>, String> {
    let public_key = option(opts, "pkcs7_public_key");
    let private_key = option(opts, "pkcs7_private_key");
    if public_key.is_none() && option(opts, "pkcs7_public_key_env_var").is_none() {
        return Err("pkcs7_public_key is not defined".into());
    }
    if private_key.is_none() && option(opts, "pkcs7_private_key_env_var").is_none() {
        return Err("pkcs7_private_key is not defined".into());
    }
    // Key paths are relative to Puppet's working directory; hieralint uses the environment
    // directory (where the recorded cases run `puppet lookup` from).
    let resolve = |v: &Value| {
        let p = v.to_ruby_s();
        let full = if Path::new(&p).is_absolute() {
            Path::new(&p).to_path_buf()
        } else {
            path_env_root(path).join(&p)
        };
        (p, full)
    };
    let read = |(shown, full): &(String, PathBuf)| {
        std::fs::read(full).map_err(|_| format!("No such file or directory @ rb_sysopen - {shown}"))
    };
    let private = private_key.ok_or(
        "the private key comes from an environment variable, which hieralint does not read",
    )?;
    let private = resolve(private);
    // A public key given only by `pkcs7_public_key_env_var` is not read: decryption then goes
    // without a certificate.
    let public = public_key.map(resolve);
    let cache_key = (private.1.clone(), public.as_ref().map(|p| p.1.clone()));
    let cached = KEYS.lock().ok().and_then(|m| m.get(&cache_key).cloned());
    if let Some(keys) = cached {
        if private.1.is_file() && public.as_ref().is_none_or(|p| p.1.is_file()) {
            return Ok(keys);
        }
    }
    let private_key = super::pkcs7::read_private_key(&read(&private)?)?;
    let certificate = match &public {
        Some(p) => Some(super::pkcs7::read_certificate(&read(p)?)?),
        None => None,
    };
    let keys = Arc::new(LoadedKeys {
        id: NEXT_KEYS_ID.fetch_add(1, Ordering::Relaxed),
        keys: Keys {
            private: private_key,
            certificate,
        },
    });
    if let Ok(mut m) = KEYS.lock() {
        m.insert(cache_key, keys.clone());
    }
    Ok(keys)
}

/// The directory eyaml key paths are resolved against: the environment directory, found as the
/// parent of the data directory tree (the first ancestor holding a hiera.yaml).
fn path_env_root(data_path: &Path) -> std::path::PathBuf {
    let mut p = data_path.parent();
    while let Some(d) = p {
        if d.join("hiera.yaml").is_file() {
            return d.to_path_buf();
        }
        p = d.parent();
    }
    data_path.parent().unwrap_or(Path::new(".")).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_blocks() {
        let b = blocks("pw: ENC[PKCS7,abc=] and ENC[GPG,x]");
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].scheme.as_deref(), Some("PKCS7"));
        assert_eq!(b[0].cipher, "abc=");
        assert_eq!(b[1].scheme.as_deref(), Some("GPG"));
        assert!(blocks("ENC[]").is_empty());
    }

    #[test]
    fn unknown_scheme_is_a_load_error() {
        let e = decrypt(
            "ENC[GPG,abcd]",
            &Hash::default(),
            "k",
            Path::new("/x.eyaml"),
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Load);
        assert_eq!(
            e.message,
            "cannot load such file -- hiera/backend/eyaml/encryptors/gpg"
        );
        let e = decrypt(
            "ENC[PKCS7,abcd]",
            &Hash::default(),
            "k",
            Path::new("/x.eyaml"),
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "hiera-eyaml backend error decrypting ENC[PKCS7,abcd] when looking up k in /x.eyaml. Error was pkcs7_public_key is not defined"
        );
    }
}

//! hiera-eyaml 3.3 values (`ENC[...]` blocks) as `eyaml_lookup_key` decrypts them (reference
//! §6.4): the token scan, the encryptor dispatch and hiera-eyaml's errors.
//!
//! hieralint does not decrypt PKCS7 ciphertexts: an encrypted value whose keys are in place is
//! reported as an [`ErrorKind::Unsupported`] error that says so — never a made-up value. The
//! failures Puppet reports before any decryption (a missing key option, a key file that does not
//! exist, a ciphertext that is not PKCS7, an encryptor that is not installed) are reproduced.

use std::path::Path;

use base64::Engine as _;

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
    if let Some(block) = blocks(data).into_iter().next() {
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
        let public_key = option(opts, "pkcs7_public_key");
        let private_key = option(opts, "pkcs7_private_key");
        if public_key.is_none() && option(opts, "pkcs7_public_key_env_var").is_none() {
            return Err(wrap("pkcs7_public_key is not defined"));
        }
        if private_key.is_none() && option(opts, "pkcs7_private_key_env_var").is_none() {
            return Err(wrap("pkcs7_private_key is not defined"));
        }
        // Key paths are relative to Puppet's working directory; hieralint uses the
        // environment directory (where `puppet lookup` is usually run from).
        for k in [private_key, public_key].into_iter().flatten() {
            let p = k.to_ruby_s();
            let full = if Path::new(&p).is_absolute() {
                Path::new(&p).to_path_buf()
            } else {
                path_env_root(path).join(&p)
            };
            if !full.is_file() {
                return Err(wrap(&format!(
                    "No such file or directory @ rb_sysopen - {p}"
                )));
            }
        }
        let compact: String = block
            .cipher
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(compact.as_bytes())
            .unwrap_or_default();
        if der.len() < 2 || der[0] != 0x30 {
            return Err(wrap("Could not parse the PKCS7: no start line"));
        }
        return Err(LookupError::new(
            ErrorKind::Unsupported,
            format!(
                "hieralint does not decrypt eyaml values: {key} in {} is encrypted (ENC[PKCS7,...])",
                path.display()
            ),
        ));
    }
    Ok(Value::string(data))
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
        let e = decrypt("ENC[GPG,abcd]", &Hash::new(), "k", Path::new("/x.eyaml")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Load);
        assert_eq!(
            e.message,
            "cannot load such file -- hiera/backend/eyaml/encryptors/gpg"
        );
        let e = decrypt("ENC[PKCS7,abcd]", &Hash::new(), "k", Path::new("/x.eyaml")).unwrap_err();
        assert_eq!(
            e.message,
            "hiera-eyaml backend error decrypting ENC[PKCS7,abcd] when looking up k in /x.eyaml. Error was pkcs7_public_key is not defined"
        );
    }
}

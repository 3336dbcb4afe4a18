//! hiera-eyaml's PKCS7 decryption (`Encryptors::Pkcs7.decrypt`: `OpenSSL::PKey::RSA.new`,
//! `OpenSSL::X509::Certificate.new`, `OpenSSL::PKCS7.new(der).decrypt(key, cert)`) on RustCrypto
//! crates: `der` (derived PKCS #7 structures over `cms`'s CMS types) parses the EnvelopedData,
//! `x509-cert` (through `cms`) the certificate, `rsa` the key and its PKCS #1 v1.5 decryption,
//! `aes` + `cbc` the content. What is ours is the PEM armor, the order of OpenSSL 3.0's checks
//! and its words for each failure, all recorded from the real thing in
//! `fixtures/engine/pkcs7/vectors.jsonl` (`tools/oracle/record-pkcs7-vectors.rb`) and
//! `fixtures/conformance/eyaml/key-files`. Decryption is unblinded (`rsa`'s `decrypt`): a linter
//! reading files offline has no timing oracle to protect.

use aes::{Aes128, Aes192, Aes256};
use base64::Engine as _;
use cbc::cipher::{block_padding::Pkcs7, BlockCipherDecrypt, BlockModeDecrypt, KeyIvInit};
use cms::cert::x509::Certificate as X509Certificate;
use cms::cert::IssuerAndSerialNumber;
use cms::enveloped_data::EncryptedContentInfo;
use const_oid::db::{rfc5911, rfc5912, rfc8410};
use const_oid::ObjectIdentifier;
use der::asn1::{AnyRef, IntRef, OctetStringRef};
use der::{Decode, Encode, Reader, Sequence, SliceReader, Tag, Tagged};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::spki::AlgorithmIdentifierRef;
use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Encrypt, RsaPrivateKey};

/// Why a decryption failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pkcs7Error {
    /// Puppet's (OpenSSL's or Ruby's) message, which hiera-eyaml appends to its own.
    OpenSsl(String),
    /// A valid construct hieralint does not implement (another cipher, a BER encoding).
    Unsupported(String),
}

fn openssl(message: &str) -> Pkcs7Error {
    Pkcs7Error::OpenSsl(message.to_string())
}

/// `OpenSSL::PKCS7.new` on bytes that are not a PKCS7 (the PEM attempt's error is the one shown).
const PARSE_ERROR: &str = "Could not parse the PKCS7: no start line";
/// OpenSSL's `PKCS7_R_DECRYPT_ERROR`: the last error when `PKCS7_dataDecode` gives up (no
/// recipient for the certificate, no content, unusable cipher parameters).
const DECRYPT_ERROR: &str = "decrypt error";
/// The content decryption failed (wrong key: OpenSSL then decrypts with a random key, and the
/// padding check fails).
const BAD_DECRYPT: &str = "bad decrypt";

// ---------------------------------------------------------------------------------------------
// PEM armor, read as OpenSSL's PEM reader does

struct PemBlock {
    label: String,
    /// `Proc-Type: 4,ENCRYPTED` (a legacy pass-phrase-protected key).
    encrypted: bool,
    /// The body, or `None` when it is not base64.
    der: Option<Vec<u8>>,
}

/// The PEM blocks of `text`: a `-----BEGIN X-----` line starts one only at the start of a line
/// (an indented key is not read: `key-private-indented`), bodies may be wrapped at any width and
/// end in CRLF, text around the blocks is skipped (`key-private-leading-text`, `-after-cert`).
/// This is the armor, not cryptography: `pem-rfc7468` wants RFC 7468's strict layout (64 columns,
/// nothing before the block), which OpenSSL does not.
fn pem_blocks(text: &str) -> Vec<PemBlock> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(label) = line
            .trim_end()
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            continue;
        };
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        let mut encrypted = false;
        let mut closed = false;
        for line in lines.by_ref() {
            let line = line.trim_end();
            if line.starts_with(&end) {
                closed = true;
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                // RFC 1421 headers (`Proc-Type`, `DEK-Info`) precede the body.
                encrypted |= name.trim() == "Proc-Type" && value.contains("ENCRYPTED");
                continue;
            }
            body.extend(line.chars().filter(|c| !c.is_whitespace()));
        }
        if !closed {
            break;
        }
        let der = base64::engine::general_purpose::STANDARD
            .decode(body.as_bytes())
            .ok();
        out.push(PemBlock {
            label: label.to_string(),
            encrypted,
            der,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The private key (`OpenSSL::PKey::RSA.new`)

/// The key file's key, as `OpenSSL::PKey::RSA.new` reads it.
pub enum PrivateKey {
    Rsa(Box<RsaPrivateKey>),
    /// An RSA public key: it loads, and decryption then fails with `private key is needed`.
    PublicOnly,
}

/// OpenSSL's short names of the key types `OpenSSL::PKey::RSA.new` reads and then refuses with
/// `incorrect pkey type: NAME` (each recorded: `key-private-ed25519`, `key-private-dsa-pkcs8`, ...).
fn key_type_name(oid: ObjectIdentifier) -> Option<&'static str> {
    const DSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10040.4.1");
    Some(match oid {
        rfc5912::ID_EC_PUBLIC_KEY => "id-ecPublicKey",
        rfc5912::ID_RSASSA_PSS => "RSASSA-PSS",
        rfc8410::ID_ED_25519 => "ED25519",
        rfc8410::ID_ED_448 => "ED448",
        rfc8410::ID_X_25519 => "X25519",
        rfc8410::ID_X_448 => "X448",
        DSA => "DSA",
        _ => return None,
    })
}

fn incorrect_type(name: &str) -> Result<PrivateKey, String> {
    Err(format!("incorrect pkey type: {name}"))
}

/// A PKCS #8 `PrivateKeyInfo`: the RSA key, or the refusal of another key type.
fn from_pkcs8(der: &[u8]) -> Option<Result<PrivateKey, String>> {
    let info = rsa::pkcs8::PrivateKeyInfo::from_der(der).ok()?;
    if info.algorithm.oid == rfc5912::RSA_ENCRYPTION {
        let key = RsaPrivateKey::try_from(info).ok()?;
        return Some(Ok(PrivateKey::Rsa(Box::new(key))));
    }
    key_type_name(info.algorithm.oid).map(incorrect_type)
}

/// A `SubjectPublicKeyInfo`: an RSA public key, or the refusal of another key type.
fn from_spki(der: &[u8]) -> Option<Result<PrivateKey, String>> {
    let spki = rsa::pkcs8::SubjectPublicKeyInfoRef::from_der(der).ok()?;
    if spki.algorithm.oid == rfc5912::RSA_ENCRYPTION {
        return rsa::pkcs1::RsaPublicKey::from_der(spki.subject_public_key.raw_bytes())
            .ok()
            .map(|_| Ok(PrivateKey::PublicOnly));
    }
    key_type_name(spki.algorithm.oid).map(incorrect_type)
}

fn from_pkcs1(der: &[u8]) -> Option<Result<PrivateKey, String>> {
    let key = RsaPrivateKey::from_pkcs1_der(der).ok()?;
    Some(Ok(PrivateKey::Rsa(Box::new(key))))
}

fn from_pkcs1_public(der: &[u8]) -> Option<Result<PrivateKey, String>> {
    rsa::pkcs1::RsaPublicKey::from_der(der)
        .ok()
        .map(|_| Ok(PrivateKey::PublicOnly))
}

/// Reads the key file as `OpenSSL::PKey::RSA.new(File.read(path))`: the first PEM block that holds
/// a key, or else the whole file as DER. The error is Ruby's message.
pub fn read_private_key(file: &[u8]) -> Result<PrivateKey, String> {
    let neither = |why: &str| Err(format!("Neither PUB key nor PRIV key: {why}"));
    let blocks = pem_blocks(&String::from_utf8_lossy(file));
    if blocks.is_empty() {
        let der = [from_pkcs1, from_pkcs8, from_spki, from_pkcs1_public];
        return der
            .iter()
            .find_map(|read| read(file))
            .unwrap_or_else(|| neither("unsupported"));
    }
    // With no terminal to ask for a pass phrase, OpenSSL gives up on an encrypted key with these
    // reasons (`key-private-encrypted-pkcs8`, `key-private-encrypted-legacy`).
    let mut passphrase = None;
    for block in &blocks {
        let read: fn(&[u8]) -> Option<Result<PrivateKey, String>> = match block.label.as_str() {
            "RSA PRIVATE KEY" if block.encrypted => {
                passphrase = Some("bad password read");
                continue;
            }
            "ENCRYPTED PRIVATE KEY" => {
                passphrase = Some("unable to get passphrase");
                continue;
            }
            "RSA PRIVATE KEY" => from_pkcs1,
            "PRIVATE KEY" => from_pkcs8,
            "PUBLIC KEY" => from_spki,
            "RSA PUBLIC KEY" => from_pkcs1_public,
            // SEC1 and OpenSSL's traditional DSA form, whatever the body holds once it is DER
            // (`key-private-ec-sec1`, `key-private-dsa-traditional`).
            "EC PRIVATE KEY" => |der| {
                der::Document::from_der(der)
                    .ok()
                    .map(|_| incorrect_type("id-ecPublicKey"))
            },
            "DSA PRIVATE KEY" => |der| {
                der::Document::from_der(der)
                    .ok()
                    .map(|_| incorrect_type("DSA"))
            },
            _ => continue,
        };
        if let Some(result) = block.der.as_deref().and_then(read) {
            return result;
        }
    }
    neither(passphrase.unwrap_or("unsupported"))
}

// ---------------------------------------------------------------------------------------------
// The certificate (`OpenSSL::X509::Certificate.new`)

/// What `PKCS7_decrypt` uses of the public key file's certificate.
pub struct Certificate {
    /// DER of the issuer `Name` and the serial's value: the recipient is chosen by them.
    issuer: Vec<u8>,
    serial: Vec<u8>,
    /// The RSA modulus and exponent (`None` when the certificate's key is not RSA).
    rsa: Option<(Vec<u8>, Vec<u8>)>,
}

fn certificate_from_der(der: &[u8]) -> Option<Certificate> {
    let cert = X509Certificate::from_der(der).ok()?;
    let tbs = cert.tbs_certificate;
    let spki = &tbs.subject_public_key_info;
    let rsa = (spki.algorithm.oid == rfc5912::RSA_ENCRYPTION)
        .then(|| rsa::pkcs1::RsaPublicKey::from_der(spki.subject_public_key.raw_bytes()).ok())
        .flatten()
        .map(|k| {
            (
                k.modulus.as_bytes().to_vec(),
                k.public_exponent.as_bytes().to_vec(),
            )
        });
    Some(Certificate {
        issuer: tbs.issuer.to_der().ok()?,
        serial: tbs.serial_number.as_bytes().to_vec(),
        rsa,
    })
}

/// Reads the public key file as `OpenSSL::X509::Certificate.new(File.read(path))`: the first
/// `CERTIFICATE` (or `X509 CERTIFICATE`) PEM block, or else the whole file as DER. The error is
/// OpenSSL's (`cert-not-a-cert`, `cert-bad-base64`, `cert-bad-der`).
pub fn read_certificate(file: &[u8]) -> Result<Certificate, String> {
    let blocks = pem_blocks(&String::from_utf8_lossy(file));
    let Some(block) = blocks
        .iter()
        .find(|b| matches!(b.label.as_str(), "CERTIFICATE" | "X509 CERTIFICATE"))
    else {
        return certificate_from_der(file)
            .ok_or_else(|| "PEM_read_bio_X509: no start line".to_string());
    };
    let der = block
        .der
        .as_deref()
        .ok_or("PEM_read_bio_X509: bad base64 decode")?;
    certificate_from_der(der).ok_or_else(|| "PEM_read_bio_X509: ASN1 lib".to_string())
}

/// The keys of one hierarchy level: the private key and, when the public key option names a
/// file, its certificate.
pub struct Keys {
    pub private: PrivateKey,
    pub certificate: Option<Certificate>,
}

// ---------------------------------------------------------------------------------------------
// Decryption (`OpenSSL::PKCS7.new(der).decrypt(key, cert)`)

/// Whether a DER decoding failure may be a BER form that OpenSSL reads and `der` does not: an
/// indefinite length, a constructed string (`ber-constructed-content`), a length in more octets
/// than needed (`der` reports it as a bad length for the tag: `ber-long-length`).
fn maybe_ber(e: &der::Error) -> bool {
    matches!(
        e.kind(),
        der::ErrorKind::IndefiniteLength
            | der::ErrorKind::Noncanonical { .. }
            | der::ErrorKind::Overlength
            | der::ErrorKind::Length { .. }
    )
}

fn not_parsed(e: der::Error) -> Pkcs7Error {
    if maybe_ber(&e) {
        Pkcs7Error::Unsupported(format!(
            "the PKCS7 value is not DER ({e}); it may be BER, which OpenSSL reads and hieralint does not"
        ))
    } else {
        openssl(PARSE_ERROR)
    }
}

/// PKCS #7's ContentInfo (RFC 2315 §7), borrowing its content from the input (`cms`'s owns it).
#[derive(Sequence)]
struct ContentInfo<'a> {
    content_type: ObjectIdentifier,
    #[asn1(context_specific = "0")]
    content: AnyRef<'a>,
}

/// PKCS #7's EnvelopedData (RFC 2315 §10.1), the shape `OpenSSL::PKCS7` reads: CMS's
/// `originatorInfo` and `unprotectedAttrs` do not parse. The recipients stay a raw SET:
/// `cms`'s `SetOfVec` re-sorts them on decoding, and their order in the value decides which one
/// OpenSSL uses (`two-recipients-ours-second`).
#[derive(Sequence)]
struct EnvelopedData<'a> {
    /// Any INTEGER, as OpenSSL reads it.
    version: IntRef<'a>,
    recipient_infos: AnyRef<'a>,
    encrypted_content_info: EncryptedContentInfo,
}

/// PKCS #7's RecipientInfo (RFC 2315 §10.2): a CMS KeyTransRecipientInfo named by issuer and
/// serial number.
#[derive(Sequence)]
struct RecipientInfo<'a> {
    version: IntRef<'a>,
    issuer_and_serial_number: IssuerAndSerialNumber,
    key_encryption_algorithm: AlgorithmIdentifierRef<'a>,
    encrypted_key: OctetStringRef<'a>,
}

/// The recipients in the order the value lists them.
fn recipient_infos<'a>(set: &AnyRef<'a>) -> der::Result<Vec<RecipientInfo<'a>>> {
    if set.tag() != Tag::Set {
        return Err(set.tag().unexpected_error(Some(Tag::Set)));
    }
    let mut reader = SliceReader::new(set.value())?;
    let mut out = Vec::new();
    while !reader.is_finished() {
        out.push(RecipientInfo::decode(&mut reader)?);
    }
    Ok(out)
}

/// A parsed PKCS7: the EnvelopedData's recipients and encrypted content, or `None` for another
/// PKCS7 type.
struct Enveloped<'a> {
    recipients: Vec<RecipientInfo<'a>>,
    content: EncryptedContentInfo,
}

/// `OpenSSL::PKCS7.new`: one ContentInfo; bytes after it are ignored, as `d2i` does
/// (`trailing-bytes-after-der`).
fn parse(der: &[u8]) -> Result<Option<Enveloped<'_>>, Pkcs7Error> {
    let mut reader = SliceReader::new(der).map_err(|_| openssl(PARSE_ERROR))?;
    let info = ContentInfo::decode(&mut reader).map_err(not_parsed)?;
    if info.content_type != rfc5911::ID_ENVELOPED_DATA {
        // Another PKCS7 type: `decrypt` refuses it (`signed-data`).
        return Ok(None);
    }
    let env: EnvelopedData = info.content.decode_as().map_err(not_parsed)?;
    let recipients = recipient_infos(&env.recipient_infos).map_err(not_parsed)?;
    Ok(Some(Enveloped {
        recipients,
        content: env.encrypted_content_info,
    }))
}

fn aes_cbc<C>(cek: &[u8], iv: &[u8], data: &[u8]) -> Option<Vec<u8>>
where
    C: BlockCipherDecrypt,
    cbc::Decryptor<C>: KeyIvInit + BlockModeDecrypt,
{
    let decryptor = cbc::Decryptor::<C>::new_from_slices(cek, iv).ok()?;
    let mut buf = data.to_vec();
    let len = decryptor.decrypt_padded::<Pkcs7>(&mut buf).ok()?.len();
    buf.truncate(len);
    Some(buf)
}

/// Decrypts the base64 body of an `ENC[PKCS7,...]` block, checking what OpenSSL 3.0 checks in its
/// order (each step names the recorded vector that shows it).
pub fn decrypt(b64: &str, keys: &Keys) -> Result<Vec<u8>, Pkcs7Error> {
    // `Base64.decode64` skips what is not base64 (`wrapped-base64`, `spaces-in-base64`).
    let compact: String = b64
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(compact.trim_end_matches('='))
        })
        .map_err(|_| openssl(PARSE_ERROR))?;
    let env = parse(&der)?;

    // Ruby's `PKCS7#decrypt` wants a private key before it calls OpenSSL
    // (`public-key-only-and-signed-data`).
    let PrivateKey::Rsa(key) = &keys.private else {
        return Err(openssl("private key is needed"));
    };
    let Some(env) = env else {
        return Err(openssl("wrong content type"));
    };
    let cert = keys.certificate.as_ref();
    // `X509_check_private_key` (`cert-of-another-issuer`, `cert-mismatch-and-signed-data`).
    if let Some(cert) = cert {
        let ours = (key.n().to_bytes_be(), key.e().to_bytes_be());
        if cert.rsa.as_ref() != Some(&ours) {
            return Err(openssl("private key does not match certificate"));
        }
    }
    let eci = &env.content;
    let content = eci
        .encrypted_content
        .as_ref()
        .ok_or_else(|| openssl(DECRYPT_ERROR))?; // `no-encrypted-content`

    // With a certificate, only the first recipient with its issuer and serial is tried
    // (`two-recipients-ours-second`, `other-issuer-and-serial`); without one, each in turn.
    let encrypted_keys: Vec<&[u8]> = match cert {
        Some(cert) => {
            let matching = env
                .recipients
                .iter()
                .find(|ri| {
                    let ias = &ri.issuer_and_serial_number;
                    ias.serial_number.as_bytes() == cert.serial.as_slice()
                        && ias.issuer.to_der().is_ok_and(|d| d == cert.issuer)
                })
                .ok_or_else(|| openssl(DECRYPT_ERROR))?;
            vec![matching.encrypted_key.as_bytes()]
        }
        None => env
            .recipients
            .iter()
            .map(|ri| ri.encrypted_key.as_bytes())
            .collect(),
    };

    let alg = &eci.content_enc_alg;
    let key_len = match alg.oid {
        rfc5911::ID_AES_128_CBC => 16,
        rfc5911::ID_AES_192_CBC => 24,
        rfc5911::ID_AES_256_CBC => 32,
        // OpenSSL decrypts other ciphers (`des-ede3-cbc`); hiera-eyaml always writes AES-256-CBC.
        oid => {
            let name = const_oid::db::DB
                .by_oid(&oid)
                .unwrap_or("an unknown cipher");
            return Err(Pkcs7Error::Unsupported(format!(
                "the value is encrypted with {name} ({oid}), not AES-CBC"
            )));
        }
    };
    // The IV: absent parameters leave it zero (`iv-missing-multi-block`); anything but a 16-byte
    // OCTET STRING stops OpenSSL (`iv-wrong-length`, `iv-not-an-octet-string`).
    let iv = match &alg.parameters {
        None => vec![0u8; 16],
        Some(p) if p.tag() == Tag::OctetString && p.value().len() == 16 => p.value().to_vec(),
        Some(_) => return Err(openssl(DECRYPT_ERROR)),
    };
    let cek = encrypted_keys
        .iter()
        .find_map(|ek| key.decrypt(Pkcs1v15Encrypt, ek).ok())
        .ok_or_else(|| openssl(BAD_DECRYPT))?; // `wrong-key`, `rsa-oaep-recipient`
    let plain = match key_len {
        16 => aes_cbc::<Aes128>(&cek, &iv, content.as_bytes()),
        24 => aes_cbc::<Aes192>(&cek, &iv, content.as_bytes()),
        _ => aes_cbc::<Aes256>(&cek, &iv, content.as_bytes()),
    };
    plain.ok_or_else(|| openssl(BAD_DECRYPT)) // `tampered-last-block`
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/engine/pkcs7")
    }

    /// Ruby's answer for a vector: the plaintext, or the error message.
    type Answer = Result<Vec<u8>, String>;

    fn vectors() -> Vec<(String, String, String, String, Answer)> {
        let text = std::fs::read_to_string(dir().join("vectors.jsonl")).expect("vectors");
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("json");
                let s = |k: &str| v[k].as_str().map(str::to_string);
                let answer = match s("plaintext_base64") {
                    Some(p) => Ok(base64::engine::general_purpose::STANDARD
                        .decode(p)
                        .expect("b64")),
                    None => Err(s("error").expect("error")),
                };
                (
                    s("name").expect("name"),
                    s("private_key").expect("private_key"),
                    s("public_key").expect("public_key"),
                    s("ciphertext").expect("ciphertext"),
                    answer,
                )
            })
            .collect()
    }

    /// What hieralint answers, in the vectors' terms: key and certificate errors first (hiera-eyaml
    /// reads both files before it parses the ciphertext), then the decryption.
    fn ours(private: &str, public: &str, ciphertext: &str) -> Result<Answer, String> {
        let read = |f: &str| std::fs::read(dir().join("keys").join(f)).expect("key file");
        let keys = (|| {
            Ok(Keys {
                private: read_private_key(&read(private))?,
                certificate: Some(read_certificate(&read(public))?),
            })
        })();
        let keys = match keys {
            Ok(k) => k,
            Err(m) => return Ok(Err(m)),
        };
        match decrypt(ciphertext, &keys) {
            Ok(p) => Ok(Ok(p)),
            Err(Pkcs7Error::OpenSsl(m)) => Ok(Err(m)),
            Err(Pkcs7Error::Unsupported(m)) => Err(m),
        }
    }

    /// Where hieralint knowingly gives no answer though Puppet decrypts or fails: each says why.
    const UNSUPPORTED: &[(&str, &str)] = &[
        (
            "des-ede3-cbc",
            "with des-ede3-cbc (1.2.840.113549.3.7), not AES-CBC",
        ),
        (
            "unknown-cipher-oid",
            "with an unknown cipher (1.2.3.4.5), not AES-CBC",
        ),
        ("ber-constructed-content", "may be BER"),
        ("ber-long-length", "may be BER"),
    ];

    #[test]
    fn every_recorded_vector_agrees_with_hiera_eyaml() {
        let vectors = vectors();
        assert!(vectors.len() >= 60, "{} vectors", vectors.len());
        let mut unsupported = 0;
        for (name, private, public, ciphertext, want) in vectors {
            let got = ours(&private, &public, &ciphertext);
            if let Some((_, why)) = UNSUPPORTED.iter().find(|(n, _)| *n == name) {
                let msg = got.expect_err(&name);
                assert!(msg.contains(why), "{name}: {msg}");
                unsupported += 1;
            } else {
                assert_eq!(got, Ok(want), "{name}");
            }
        }
        assert_eq!(unsupported, UNSUPPORTED.len());
    }

    #[test]
    fn without_a_certificate_every_recipient_is_tried() {
        // The public key given by `pkcs7_public_key_env_var`, which hieralint does not read:
        // OpenSSL's `PKCS7_decrypt` with no certificate tries each recipient in turn.
        let read = |f: &str| std::fs::read(dir().join("keys").join(f)).expect("key file");
        let keys = Keys {
            private: read_private_key(&read("private.pem")).expect("key"),
            certificate: None,
        };
        let v = vectors();
        let find = |n: &str| v.iter().find(|x| x.0 == n).expect(n).3.clone();
        assert_eq!(
            decrypt(&find("two-recipients-ours-second"), &keys),
            Ok(b"two recipients".to_vec())
        );
        assert_eq!(
            decrypt(&find("wrong-key"), &keys),
            Err(openssl("bad decrypt"))
        );
    }

    #[test]
    fn pem_blocks_skip_text_and_accept_any_width() {
        let b = pem_blocks("junk\n-----BEGIN A B-----\r\nAAEC\r\nAw==\r\n-----END A B-----\r\n  -----BEGIN C-----\nAA==\n-----END C-----\n-----BEGIN D-----\nAA==\n");
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].label, "A B");
        assert_eq!(b[0].der.as_deref(), Some(&[0u8, 1, 2, 3][..]));
        assert!(!b[0].encrypted);
    }

    #[test]
    fn garbage_never_panics() {
        let key = Keys {
            private: PrivateKey::PublicOnly,
            certificate: None,
        };
        for s in [
            "",
            "=",
            "MA==",
            "MAA=",
            "MIIB",
            "oA==",
            "////",
            "MIAwgAYJKoZIhvcNAQcDoIA=",
        ] {
            assert!(decrypt(s, &key).is_err(), "{s}");
        }
        assert!(read_private_key(b"\xff\x00-----BEGIN RSA PRIVATE KEY-----\n").is_err());
        assert!(read_certificate(b"\x30\x80").is_err());
    }
}

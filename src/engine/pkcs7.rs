//! Just enough cryptography to decrypt hiera-eyaml's PKCS7 values with the repository's keys:
//! DER, PEM, RSA (PKCS #1 v1.5 decryption) and AES-CBC, as OpenSSL's `PKCS7_decrypt` does for
//! an EnvelopedData with one RSA recipient. Failures are reported with OpenSSL's words as
//! hiera-eyaml shows them (`Could not parse the PKCS7: no start line`, `bad decrypt`).

use base64::Engine as _;

/// Why a decryption failed, in OpenSSL's words (hiera-eyaml appends them to its message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pkcs7Error {
    /// Puppet/OpenSSL's message.
    OpenSsl(String),
    /// A valid construct hieralint does not implement (another cipher, another key type).
    Unsupported(String),
}

fn parse_error() -> Pkcs7Error {
    Pkcs7Error::OpenSsl("Could not parse the PKCS7: no start line".into())
}

fn bad_decrypt() -> Pkcs7Error {
    Pkcs7Error::OpenSsl("bad decrypt".into())
}

// ---------------------------------------------------------------------------------------------
// DER

struct Tlv<'a> {
    tag: u8,
    content: &'a [u8],
}

fn read_tlv(b: &[u8]) -> Option<(Tlv<'_>, &[u8])> {
    let tag = *b.first()?;
    let l0 = *b.get(1)?;
    let (len, hdr) = if l0 < 0x80 {
        (l0 as usize, 2)
    } else {
        let n = (l0 & 0x7f) as usize;
        if n == 0 || n > 4 || b.len() < 2 + n {
            return None;
        }
        let mut len = 0usize;
        for &x in &b[2..2 + n] {
            len = (len << 8) | x as usize;
        }
        (len, 2 + n)
    };
    let end = hdr.checked_add(len)?;
    if end > b.len() {
        return None;
    }
    Some((
        Tlv {
            tag,
            content: &b[hdr..end],
        },
        &b[end..],
    ))
}

fn expect(b: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (t, rest) = read_tlv(b)?;
    (t.tag == tag).then_some((t.content, rest))
}

fn children(mut b: &[u8]) -> Option<Vec<Tlv<'_>>> {
    let mut v = Vec::new();
    while !b.is_empty() {
        let (t, rest) = read_tlv(b)?;
        v.push(t);
        b = rest;
    }
    Some(v)
}

const OID_ENVELOPED: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x03];
const OID_AES128_CBC: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x02];
const OID_AES192_CBC: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x16];
const OID_AES256_CBC: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a];

struct Enveloped {
    encrypted_keys: Vec<Vec<u8>>,
    cipher_oid: Vec<u8>,
    iv: Vec<u8>,
    content: Vec<u8>,
}

fn parse_enveloped(der: &[u8]) -> Option<Enveloped> {
    let (ci, _) = expect(der, 0x30)?;
    let (oid, rest) = expect(ci, 0x06)?;
    if oid != OID_ENVELOPED {
        return None;
    }
    let (explicit, _) = expect(rest, 0xa0)?;
    let (env, _) = expect(explicit, 0x30)?;
    let parts = children(env)?;
    // version, recipientInfos (SET), encryptedContentInfo
    let ris = parts.get(1).filter(|t| t.tag == 0x31)?;
    let mut encrypted_keys = Vec::new();
    for ri in children(ris.content)? {
        let f = children(ri.content)?;
        let ek = f.iter().find(|t| t.tag == 0x04)?;
        encrypted_keys.push(ek.content.to_vec());
    }
    let eci = parts.get(2).filter(|t| t.tag == 0x30)?;
    let e = children(eci.content)?;
    let alg = children(e.get(1)?.content)?;
    let cipher_oid = alg.first().filter(|t| t.tag == 0x06)?.content.to_vec();
    let iv = alg.get(1).filter(|t| t.tag == 0x04)?.content.to_vec();
    let ec = e.get(2)?;
    let content = match ec.tag {
        0x80 => ec.content.to_vec(),
        0xa0 => {
            let mut v = Vec::new();
            for c in children(ec.content)? {
                v.extend_from_slice(c.content);
            }
            v
        }
        _ => return None,
    };
    Some(Enveloped {
        encrypted_keys,
        cipher_oid,
        iv,
        content,
    })
}

// ---------------------------------------------------------------------------------------------
// PEM and keys

/// The DER bodies of the PEM blocks labelled `label` in `text`.
fn pem_blocks(text: &str, label: &str) -> Vec<Vec<u8>> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&begin) {
        let after = &rest[i + begin.len()..];
        let Some(j) = after.find(&end) else { break };
        let b64: String = after[..j].chars().filter(|c| !c.is_whitespace()).collect();
        if let Ok(d) = base64::engine::general_purpose::STANDARD.decode(b64.as_bytes()) {
            out.push(d);
        }
        rest = &after[j + end.len()..];
    }
    out
}

/// An RSA private key: modulus and private exponent.
pub struct RsaKey {
    n: Vec<u32>,
    d: Vec<u32>,
    size: usize,
}

fn rsa_from_pkcs1(der: &[u8]) -> Option<RsaKey> {
    let (seq, _) = expect(der, 0x30)?;
    let f = children(seq)?;
    let int = |i: usize| f.get(i).filter(|t| t.tag == 0x02).map(|t| t.content);
    let n = int(1)?;
    let d = int(3)?;
    let n_bytes: Vec<u8> = n.iter().skip_while(|&&b| b == 0).copied().collect();
    Some(RsaKey {
        size: n_bytes.len(),
        n: from_be(&n_bytes),
        d: from_be(d),
    })
}

/// Reads an RSA private key from PEM (PKCS #1 `RSA PRIVATE KEY` or PKCS #8 `PRIVATE KEY`).
pub fn read_private_key(pem: &str) -> Option<RsaKey> {
    if let Some(der) = pem_blocks(pem, "RSA PRIVATE KEY").into_iter().next() {
        return rsa_from_pkcs1(&der);
    }
    let der = pem_blocks(pem, "PRIVATE KEY").into_iter().next()?;
    let (seq, _) = expect(&der, 0x30)?;
    let f = children(seq)?;
    let inner = f.iter().find(|t| t.tag == 0x04)?;
    rsa_from_pkcs1(inner.content)
}

// ---------------------------------------------------------------------------------------------
// Big numbers (little-endian u32 limbs) and Montgomery exponentiation

fn from_be(b: &[u8]) -> Vec<u32> {
    let mut v: Vec<u32> = b
        .rchunks(4)
        .map(|c| {
            let mut x = 0u32;
            for &byte in c {
                x = (x << 8) | byte as u32;
            }
            x
        })
        .collect();
    while v.len() > 1 && v.last() == Some(&0) {
        v.pop();
    }
    if v.is_empty() {
        v.push(0);
    }
    v
}

fn to_be(a: &[u32], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    for (i, limb) in a.iter().enumerate() {
        for k in 0..4 {
            let pos = i * 4 + k;
            if pos < len {
                out[len - 1 - pos] = (limb >> (8 * k)) as u8;
            }
        }
    }
    out
}

fn geq(a: &[u32], b: &[u32]) -> bool {
    for i in (0..a.len().max(b.len())).rev() {
        let (x, y) = (*a.get(i).unwrap_or(&0), *b.get(i).unwrap_or(&0));
        if x != y {
            return x > y;
        }
    }
    true
}

// The borrow walks `a` and `b` in step, `b` possibly shorter: an index reads clearest.
#[allow(clippy::needless_range_loop)]
fn sub_in_place(a: &mut [u32], b: &[u32]) {
    let mut borrow = 0i64;
    for (i, limb) in a.iter_mut().enumerate() {
        let x = *limb as i64 - *b.get(i).unwrap_or(&0) as i64 - borrow;
        if x < 0 {
            *limb = (x + (1i64 << 32)) as u32;
            borrow = 1;
        } else {
            *limb = x as u32;
            borrow = 0;
        }
    }
}

struct Mont<'a> {
    n: &'a [u32],
    s: usize,
    n0inv: u32,
}

impl Mont<'_> {
    fn new(n: &[u32]) -> Mont<'_> {
        let n0 = n[0];
        let mut inv: u32 = 1;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(n0.wrapping_mul(inv)));
        }
        Mont {
            n,
            s: n.len(),
            n0inv: inv.wrapping_neg(),
        }
    }

    /// a * b * R^-1 mod n (CIOS).
    // The carries walk `t`, `a` and `b` by index, as the algorithm is written.
    #[allow(clippy::needless_range_loop)]
    fn mul(&self, a: &[u32], b: &[u32]) -> Vec<u32> {
        let s = self.s;
        let mut t = vec![0u32; s + 2];
        for i in 0..s {
            let ai = *a.get(i).unwrap_or(&0) as u64;
            let mut c = 0u64;
            for (j, tj) in t.iter_mut().enumerate().take(s) {
                let x = *tj as u64 + ai * (*b.get(j).unwrap_or(&0) as u64) + c;
                *tj = x as u32;
                c = x >> 32;
            }
            let x = t[s] as u64 + c;
            t[s] = x as u32;
            t[s + 1] = (x >> 32) as u32;
            let m = t[0].wrapping_mul(self.n0inv) as u64;
            let x = t[0] as u64 + m * self.n[0] as u64;
            let mut c = x >> 32;
            for j in 1..s {
                let x = t[j] as u64 + m * self.n[j] as u64 + c;
                t[j - 1] = x as u32;
                c = x >> 32;
            }
            let x = t[s] as u64 + c;
            t[s - 1] = x as u32;
            t[s] = t[s + 1] + (x >> 32) as u32;
            t[s + 1] = 0;
        }
        let mut r: Vec<u32> = t[..=s].to_vec();
        if geq(&r, self.n) {
            sub_in_place(&mut r, self.n);
        }
        r.truncate(s);
        r
    }

    /// R^2 mod n, by doubling.
    fn r2(&self) -> Vec<u32> {
        let mut x = vec![0u32; self.s + 1];
        x[0] = 1;
        for _ in 0..(64 * self.s) {
            let mut carry = 0u32;
            for limb in x.iter_mut() {
                let nc = *limb >> 31;
                *limb = (*limb << 1) | carry;
                carry = nc;
            }
            if geq(&x, self.n) {
                sub_in_place(&mut x, self.n);
            }
        }
        x.truncate(self.s);
        x
    }

    fn pow(&self, base: &[u32], exp: &[u32]) -> Vec<u32> {
        let r2 = self.r2();
        let one = {
            let mut v = vec![0u32; self.s];
            v[0] = 1;
            v
        };
        let b = self.mul(base, &r2);
        let mut acc = self.mul(&one, &r2);
        for i in (0..exp.len()).rev() {
            for bit in (0..32).rev() {
                acc = self.mul(&acc, &acc);
                if (exp[i] >> bit) & 1 == 1 {
                    acc = self.mul(&acc, &b);
                }
            }
        }
        self.mul(&acc, &one)
    }
}

fn rsa_decrypt_pkcs1(key: &RsaKey, c: &[u8]) -> Option<Vec<u8>> {
    if key.n.is_empty() || key.n[0] & 1 == 0 || c.len() > key.size {
        return None;
    }
    let cv = from_be(c);
    if geq(&cv, &key.n) {
        return None;
    }
    let m = Mont::new(&key.n).pow(&cv, &key.d);
    let em = to_be(&m, key.size);
    // EM = 0x00 || 0x02 || PS (≥ 8 non-zero bytes) || 0x00 || M
    if em.len() < 11 || em[0] != 0 || em[1] != 2 {
        return None;
    }
    let sep = em[2..].iter().position(|&b| b == 0)? + 2;
    if sep < 10 {
        return None;
    }
    Some(em[sep + 1..].to_vec())
}

// ---------------------------------------------------------------------------------------------
// AES (FIPS 197) decryption, CBC mode

const SBOX: [u8; 256] = {
    let mut s = [0u8; 256];
    // Build the S-box from the multiplicative inverse and the affine transform.
    let mut p: u8 = 1;
    let mut q: u8 = 1;
    loop {
        // p * 3
        p = p ^ (p << 1) ^ (if p & 0x80 != 0 { 0x1b } else { 0 });
        // q / 3
        q ^= q << 1;
        q ^= q << 2;
        q ^= q << 4;
        if q & 0x80 != 0 {
            q ^= 0x09;
        }
        let x = q ^ q.rotate_left(1) ^ q.rotate_left(2) ^ q.rotate_left(3) ^ q.rotate_left(4);
        s[p as usize] = x ^ 0x63;
        if p == 1 {
            break;
        }
    }
    s[0] = 0x63;
    s
};

const INV_SBOX: [u8; 256] = {
    let mut inv = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        inv[SBOX[i] as usize] = i as u8;
        i += 1;
    }
    inv
};

fn xtime(x: u8) -> u8 {
    (x << 1) ^ if x & 0x80 != 0 { 0x1b } else { 0 }
}

fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

fn expand_key(key: &[u8]) -> Vec<[u8; 16]> {
    let nk = key.len() / 4;
    let nr = nk + 6;
    let mut w: Vec<[u8; 4]> = key.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    let mut rcon: u8 = 1;
    for i in nk..4 * (nr + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = [t[1], t[2], t[3], t[0]];
            for b in t.iter_mut() {
                *b = SBOX[*b as usize];
            }
            t[0] ^= rcon;
            rcon = xtime(rcon);
        } else if nk > 6 && i % nk == 4 {
            for b in t.iter_mut() {
                *b = SBOX[*b as usize];
            }
        }
        let prev = w[i - nk];
        w.push([
            prev[0] ^ t[0],
            prev[1] ^ t[1],
            prev[2] ^ t[2],
            prev[3] ^ t[3],
        ]);
    }
    w.chunks(4)
        .map(|c| {
            let mut k = [0u8; 16];
            for (j, word) in c.iter().enumerate() {
                k[4 * j..4 * j + 4].copy_from_slice(word);
            }
            k
        })
        .collect()
}

fn decrypt_block(rk: &[[u8; 16]], block: &[u8; 16]) -> [u8; 16] {
    let nr = rk.len() - 1;
    let mut s = *block;
    for (x, k) in s.iter_mut().zip(rk[nr].iter()) {
        *x ^= k;
    }
    for round in (0..nr).rev() {
        // InvShiftRows (state is column-major: s[r + 4c])
        let t = s;
        for r in 1..4 {
            for c in 0..4 {
                s[r + 4 * ((c + r) % 4)] = t[r + 4 * c];
            }
        }
        for x in s.iter_mut() {
            *x = INV_SBOX[*x as usize];
        }
        for (x, k) in s.iter_mut().zip(rk[round].iter()) {
            *x ^= k;
        }
        if round > 0 {
            for c in 0..4 {
                let a = [s[4 * c], s[4 * c + 1], s[4 * c + 2], s[4 * c + 3]];
                s[4 * c] = gmul(a[0], 14) ^ gmul(a[1], 11) ^ gmul(a[2], 13) ^ gmul(a[3], 9);
                s[4 * c + 1] = gmul(a[0], 9) ^ gmul(a[1], 14) ^ gmul(a[2], 11) ^ gmul(a[3], 13);
                s[4 * c + 2] = gmul(a[0], 13) ^ gmul(a[1], 9) ^ gmul(a[2], 14) ^ gmul(a[3], 11);
                s[4 * c + 3] = gmul(a[0], 11) ^ gmul(a[1], 13) ^ gmul(a[2], 9) ^ gmul(a[3], 14);
            }
        }
    }
    s
}

fn aes_cbc_decrypt(key: &[u8], iv: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    if !matches!(key.len(), 16 | 24 | 32)
        || iv.len() != 16
        || data.is_empty()
        || data.len() % 16 != 0
    {
        return None;
    }
    let rk = expand_key(key);
    let mut prev: [u8; 16] = iv.try_into().ok()?;
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks(16) {
        let block: [u8; 16] = chunk.try_into().ok()?;
        let d = decrypt_block(&rk, &block);
        for i in 0..16 {
            out.push(d[i] ^ prev[i]);
        }
        prev = block;
    }
    // PKCS #7 padding
    let pad = *out.last()? as usize;
    if pad == 0 || pad > 16 || out[out.len() - pad..].iter().any(|&b| b as usize != pad) {
        return None;
    }
    out.truncate(out.len() - pad);
    Some(out)
}

/// Decrypts the base64 body of an `ENC[PKCS7,...]` block with `key`.
pub fn decrypt(b64: &str, key: &RsaKey) -> Result<Vec<u8>, Pkcs7Error> {
    let compact: String = b64
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(compact.trim_end_matches('='))
        })
        .map_err(|_| parse_error())?;
    let env = parse_enveloped(&der).ok_or_else(parse_error)?;
    let key_len = match env.cipher_oid.as_slice() {
        OID_AES256_CBC => 32,
        OID_AES192_CBC => 24,
        OID_AES128_CBC => 16,
        _ => {
            return Err(Pkcs7Error::Unsupported(
                "the value is encrypted with a cipher other than AES-CBC".into(),
            ))
        }
    };
    for ek in &env.encrypted_keys {
        if let Some(cek) = rsa_decrypt_pkcs1(key, ek) {
            if cek.len() != key_len {
                return Err(bad_decrypt());
            }
            return aes_cbc_decrypt(&cek, &env.iv, &env.content).ok_or_else(bad_decrypt);
        }
    }
    Err(bad_decrypt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_known_answer() {
        // FIPS 197 appendix C.3 (AES-256), one block through CBC with a zero IV: the
        // plaintext plus a full padding block cannot be checked here, so test the block cipher.
        let key: Vec<u8> = (0u8..32).collect();
        let ct: [u8; 16] = [
            0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49,
            0x60, 0x89,
        ];
        let rk = expand_key(&key);
        let pt = decrypt_block(&rk, &ct);
        let want: Vec<u8> = (0u8..16).map(|i| i * 0x11).collect();
        assert_eq!(pt.to_vec(), want);
    }

    #[test]
    fn modexp_small() {
        // 4^13 mod 497 = 445
        let n = from_be(&[0x01, 0xf1]);
        let r = Mont::new(&n).pow(&from_be(&[4]), &from_be(&[13]));
        assert_eq!(to_be(&r, 2), vec![0x01, 0xbd]);
    }

    #[test]
    fn garbage_is_a_parse_error() {
        let key = RsaKey {
            n: vec![3],
            d: vec![1],
            size: 1,
        };
        assert_eq!(
            decrypt("notbase64", &key).unwrap_err(),
            Pkcs7Error::OpenSsl("Could not parse the PKCS7: no start line".into())
        );
    }
}

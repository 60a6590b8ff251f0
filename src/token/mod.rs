//! Secrets and tokens: random values, their storage hashes, Django-format password
//! hashes and HS256 JWTs. Pure functions; no HTTP and no SQL here.

pub mod jwt;
pub mod password;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};

/// `n` random bytes from the operating system, URL-safe base64 without padding.
pub fn random_string(n: usize) -> String {
    let mut buf = vec![0u8; n];
    // SystemRandom only fails when the OS has no entropy source at all; there is no
    // safe fallback, and an all-zero secret must never be used.
    if SystemRandom::new().fill(&mut buf).is_err() {
        tracing::error!("the operating system's random source failed");
        std::process::abort();
    }
    URL_SAFE_NO_PAD.encode(buf)
}

/// A new opaque token (access token, refresh token, code, session id): 32 random bytes.
pub fn new_token() -> String {
    random_string(32)
}

/// The storage hash of a long random value (tokens, codes, client secrets). SHA-256 is
/// enough for values with 256 bits of entropy; no slow hash is needed (SPEC §4).
pub fn storage_hash(value: &str) -> [u8; 32] {
    let d = ring::digest::digest(&ring::digest::SHA256, value.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

/// Constant-time equality of two byte strings.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    // ring has no public constant-time compare; fold over every byte instead of
    // returning at the first difference. Lengths are not secret here (fixed-size hashes).
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_strings_are_long_and_distinct() {
        let a = new_token();
        let b = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }

    #[test]
    fn storage_hash_is_sha256() {
        // SHA-256("abc"), FIPS 180-2 B.1
        let h = storage_hash("abc");
        assert_eq!(h[..4], [0xba, 0x78, 0x16, 0xbf]);
    }

    #[test]
    fn constant_time_eq_compares() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}

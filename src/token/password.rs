//! Django-format password hashes: `pbkdf2_sha256$<iterations>$<salt>$<base64 hash>`
//! with PBKDF2-HMAC-SHA256 from ring. Hashes with any iteration count up to
//! [`MAX_ITERATIONS`] verify, so users imported from a Django site keep their passwords
//! (Django used 36,000 to 600,000 over the years); [`check`] says when a hash should be
//! replaced by one at hearth's own cost, and spends that cost on every wrong guess.

use std::num::NonZeroU32;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::pbkdf2;

/// Iterations for new hashes (Django 5.x uses more; 600000 is OWASP's 2023 floor for
/// PBKDF2-HMAC-SHA256 and what SPEC §4 asks).
pub const DEFAULT_ITERATIONS: u32 = 600_000;
/// Most iterations a stored hash may ask for: more is no valid hash (refused by the
/// importer, reported by `hearth check`, never verified). An imported 120M-iteration
/// hash made each guess at it cost minutes of CPU (issue 27, Medium 7).
pub const MAX_ITERATIONS: u32 = 2_000_000;
const ALGORITHM: &str = "pbkdf2_sha256";
const KEY_LEN: usize = 32;

/// Hashes `password` with a fresh random salt.
pub fn hash(password: &str, iterations: u32) -> String {
    // Django salts are 22 characters from [a-zA-Z0-9]; ours are URL-safe base64 minus
    // the two symbols, which Django accepts as well (it only splits on '$').
    let salt: String =
        super::random_string(24).chars().filter(char::is_ascii_alphanumeric).take(22).collect();
    hash_with_salt(password, &salt, iterations)
}

fn hash_with_salt(password: &str, salt: &str, iterations: u32) -> String {
    let iters = NonZeroU32::new(iterations).unwrap_or(NonZeroU32::MIN);
    let mut out = [0u8; KEY_LEN];
    pbkdf2::derive(
        pbkdf2::PBKDF2_HMAC_SHA256,
        iters,
        salt.as_bytes(),
        password.as_bytes(),
        &mut out,
    );
    format!("{ALGORITHM}${iterations}${salt}${}", STANDARD.encode(out))
}

/// Whether `encoded` is a hash this module can verify.
pub fn is_valid_hash(encoded: &str) -> bool {
    parse(encoded).is_some()
}

fn parse(encoded: &str) -> Option<(NonZeroU32, &str, Vec<u8>)> {
    let mut parts = encoded.split('$');
    let (alg, iters, salt, hash) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if alg != ALGORITHM || parts.next().is_some() || salt.is_empty() {
        return None;
    }
    let iters = NonZeroU32::new(iters.parse().ok()?).filter(|n| n.get() <= MAX_ITERATIONS)?;
    let hash = STANDARD.decode(hash).ok()?;
    if hash.is_empty() {
        return None;
    }
    Some((iters, salt, hash))
}

/// Checks `password` against a stored hash in constant time (ring's `pbkdf2::verify`).
/// A malformed hash never matches.
pub fn verify(password: &str, encoded: &str) -> bool {
    match parse(encoded) {
        Some((iters, salt, expected)) => pbkdf2::verify(
            pbkdf2::PBKDF2_HMAC_SHA256,
            iters,
            salt.as_bytes(),
            password.as_bytes(),
            &expected,
        )
        .is_ok(),
        None => false,
    }
}

/// What a password check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// The password is right, and the hash is at hearth's own cost.
    Right,
    /// The password is right, but the hash has another iteration count: store
    /// [`hash`]`(password, DEFAULT_ITERATIONS)` in its place.
    RightRehash,
    /// Wrong password (or a malformed hash).
    Wrong,
}

/// Checks `password` against a stored hash as [`verify`] does, and costs at least the
/// standard work ([`DEFAULT_ITERATIONS`]) whatever the answer: a wrong guess at a hash
/// with fewer iterations also runs [`dummy_verify`], so the time of an answer does not
/// tell which users have weak hashes (a 1,000-iteration user answered in 3.5 ms, the
/// others in 480 ms); a right one is rehashed by the caller, at the same cost.
pub fn check(password: &str, encoded: &str) -> Checked {
    let iterations = parse(encoded).map_or(0, |(n, _, _)| n.get());
    if verify(password, encoded) {
        if iterations == DEFAULT_ITERATIONS { Checked::Right } else { Checked::RightRehash }
    } else {
        if iterations < DEFAULT_ITERATIONS {
            dummy_verify(password);
        }
        Checked::Wrong
    }
}

/// A hash to spend the same work on when the username does not exist, so that timing
/// does not tell which usernames exist.
pub fn dummy_verify(password: &str) {
    // The dummy hash is computed once: hashing it on every call would spend twice the
    // work of a real check and so tell unknown usernames apart by timing.
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let dummy = DUMMY.get_or_init(|| hash_with_salt("", "hearthdummysalt", DEFAULT_ITERATIONS));
    let _ = verify(password, dummy);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn django_known_answer() {
        // What Django's PBKDF2PasswordHasher (hashlib.pbkdf2_hmac) encodes for password
        // "hearth", salt "seasalt1234", 1000 iterations.
        let django = "pbkdf2_sha256$1000$seasalt1234$jBDdGsGENB62UuRQcZMCu3TOrj3OU1a+qSSLI6qfg90=";
        assert_eq!(hash_with_salt("hearth", "seasalt1234", 1000), django);
        let h = django;
        assert!(verify("hearth", h));
        assert!(!verify("Hearth", h));
    }

    #[test]
    fn rfc7914_pbkdf2_sha256_vector() {
        // RFC 7914 §11: PBKDF2-HMAC-SHA256, P="passwd", S="salt", c=1, dkLen=64; the first
        // 32 bytes are what a 32-byte derivation gives.
        let h = hash_with_salt("passwd", "salt", 1);
        let b64 = h.rsplit('$').next().unwrap_or_default();
        let bytes = STANDARD.decode(b64).unwrap_or_default();
        assert_eq!(bytes[..8], [0x55, 0xac, 0x04, 0x6e, 0x56, 0xe3, 0x08, 0x9f]);
    }

    #[test]
    fn other_iteration_counts_verify() {
        let h = hash("s3cret", 1200);
        assert!(h.starts_with("pbkdf2_sha256$1200$"));
        assert!(verify("s3cret", &h));
    }

    #[test]
    fn iteration_counts_over_the_maximum_are_no_hash() {
        let at = hash_with_salt("pw", "salt", 1);
        let over = at.replacen("$1$", &format!("${}$", MAX_ITERATIONS + 1), 1);
        assert!(!is_valid_hash(&over), "{over}");
        assert!(!verify("pw", &over), "never verified: the check would cost too much");
        assert_eq!(check("pw", &over), Checked::Wrong);
        let huge = at.replacen("$1$", "$4294967295$", 1);
        assert!(!is_valid_hash(&huge));
        let max = at.replacen("$1$", &format!("${MAX_ITERATIONS}$"), 1);
        assert!(is_valid_hash(&max));
    }

    #[test]
    fn weak_hashes_are_rehashed_and_cost_the_standard_work_when_wrong() {
        let weak = hash("pw", 1000);
        assert_eq!(check("pw", &weak), Checked::RightRehash);
        let standard = hash("pw", DEFAULT_ITERATIONS);
        assert_eq!(check("pw", &standard), Checked::Right);
        assert_eq!(check("nope", &standard), Checked::Wrong);
        // a wrong guess at the weak hash takes about as long as one at a standard hash
        // (no timing oracle; before, 1,000 iterations answered 600 times sooner). Load
        // only makes a run slower, so the standard time is the least of three runs.
        let t = crate::clock::instant();
        assert_eq!(check("nope", &weak), Checked::Wrong);
        let weak_wrong = t.elapsed();
        let standard_wrong = (0..3)
            .map(|_| {
                let t = crate::clock::instant();
                let _ = verify("nope", &standard);
                t.elapsed()
            })
            .min()
            .unwrap_or_default();
        assert!(
            weak_wrong * 2 > standard_wrong,
            "a wrong guess at a weak hash took {weak_wrong:?}, at a standard one {standard_wrong:?}"
        );
    }

    #[test]
    fn malformed_hashes_never_match() {
        for bad in [
            "",
            "md5$1$a$b",
            "pbkdf2_sha256$0$salt$aGFzaA==",
            "pbkdf2_sha256$x$salt$aGFzaA==",
            "pbkdf2_sha256$10$$aGFzaA==",
            "pbkdf2_sha256$10$salt$!!",
            "pbkdf2_sha256$10$salt$aGFzaA==$x",
        ] {
            assert!(!verify("x", bad), "{bad}");
            assert!(!is_valid_hash(bad), "{bad}");
        }
    }
}

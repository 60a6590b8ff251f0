//! PKCE (RFC 7636): `S256` and `plain` code challenges.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A challenge method (RFC 7636 §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `BASE64URL(SHA256(ASCII(code_verifier)))`.
    S256,
    /// The verifier itself.
    Plain,
}

impl Method {
    /// Parses `code_challenge_method`; absent means `plain` (RFC 7636 §4.3).
    pub fn parse(s: Option<&str>) -> Option<Method> {
        match s {
            None | Some("plain") => Some(Method::Plain),
            Some("S256") => Some(Method::S256),
            Some(_) => None,
        }
    }

    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::S256 => "S256",
            Method::Plain => "plain",
        }
    }
}

/// A verifier or challenge: 43 to 128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
pub fn well_formed(s: &str) -> bool {
    (43..=128).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Whether `verifier` matches the stored challenge (RFC 7636 §4.6), compared in
/// constant time.
pub fn verify(method: Method, challenge: &str, verifier: &str) -> bool {
    if !well_formed(verifier) {
        return false;
    }
    let computed = match method {
        Method::S256 => {
            URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes()))
        }
        Method::Plain => verifier.to_owned(),
    };
    crate::token::constant_time_eq(computed.as_bytes(), challenge.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(verify(Method::S256, challenge, verifier));
        assert!(!verify(Method::Plain, challenge, verifier));
        assert!(!verify(Method::S256, challenge, &verifier.replace('d', "e")));
    }

    #[test]
    fn plain_and_format() {
        let v = "a".repeat(43);
        assert!(verify(Method::Plain, &v, &v));
        assert!(!verify(Method::Plain, "short", "short"));
        assert!(!well_formed(&"a".repeat(129)));
        assert!(!well_formed(&format!("{}+", "a".repeat(43))));
        assert_eq!(Method::parse(None), Some(Method::Plain));
        assert_eq!(Method::parse(Some("S256")), Some(Method::S256));
        assert_eq!(Method::parse(Some("s256")), None);
    }
}

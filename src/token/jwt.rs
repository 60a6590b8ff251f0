//! HS256 JSON Web Tokens (RFC 7519) as SPEC §4 and SEED-API.md define them: header
//! `{"alg":"HS256","typ":"JWT"}`, claims `user_id`, `token_type`, `exp`, `iat`, `jti`,
//! optional `ext_id`. HMAC-SHA256 keyed with the UTF-8 bytes of the shared secret,
//! checked in constant time by `ring::hmac::verify`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Longest token accepted (SPEC §6).
pub const MAX_LEN: usize = 8 * 1024;
/// How far `iat` may lie in the future (clock skew between hearth and the minting service).
pub const MAX_IAT_SKEW_SECS: i64 = 60;

/// The claims of a JWT access token, after verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessClaims {
    /// The hearth user id.
    pub user_id: i64,
    /// Always `"access"`.
    pub token_type: String,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
    /// Issued at, seconds since the epoch.
    pub iat: i64,
    /// Unique token id (revocation key).
    pub jti: String,
    /// The user's id in an external service, when the token carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ext_id: Option<Value>,
}

/// Why a token was refused. Never shown to clients in detail (they get 401).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JwtError {
    /// Not three base64url parts, bad JSON, or too long.
    Malformed,
    /// `alg` missing or not HS256, `typ` present and not JWT, or an extension hearth
    /// does not implement (`crit`, `b64` other than true).
    BadHeader,
    /// Signature does not verify under any accepted key.
    BadSignature,
    /// At or after `exp`.
    Expired,
    /// `iat` too far in the future.
    IssuedInFuture,
    /// A required claim is missing or has the wrong JSON type.
    BadClaims,
}

/// One secret that may sign tokens.
pub struct Key(hmac::Key);

impl Key {
    /// The HMAC key for a shared secret string (its UTF-8 bytes).
    pub fn new(secret: &str) -> Self {
        Key(hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes()))
    }

    /// A key for another purpose than signing JWTs, derived from this one
    /// (HMAC-SHA256 of `purpose` under this key): a MAC made with it can never be taken
    /// for a JWT signature, nor the other way round, and it rotates with the secret.
    pub fn derive(&self, purpose: &str) -> hmac::Key {
        hmac::Key::new(hmac::HMAC_SHA256, hmac::sign(&self.0, purpose.as_bytes()).as_ref())
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(<redacted>)")
    }
}

/// Signs claims with `key` (header `{"alg":"HS256","typ":"JWT"}`).
pub fn encode(claims: &AccessClaims, key: &Key) -> String {
    let header = HEADER;
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).unwrap_or_default());
    let signing_input = format!("{header}.{payload}");
    let sig = hmac::sign(&key.0, signing_input.as_bytes());
    format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
}

/// A new access JWT for `user_id`, valid `ttl` seconds from `now` (seconds), signed
/// with `secret` (`hearth jwt mint`, and a verified sign-up's first sign-in).
pub fn mint(user_id: i64, ext_id: Option<Value>, now: i64, ttl: i64, secret: &str) -> String {
    let claims = AccessClaims {
        user_id,
        token_type: "access".into(),
        exp: now + ttl,
        iat: now,
        jti: crate::token::random_string(16),
        ext_id,
    };
    encode(&claims, &Key::new(secret))
}

/// Does this look like a JWT (three dot-separated parts) rather than an opaque token?
pub fn looks_like_jwt(token: &str) -> bool {
    token.bytes().filter(|&b| b == b'.').count() == 2
}

/// Checks the structure, header and signature (under any of `keys`) and returns the
/// payload as JSON. This is what `verify_token` checks, plus `exp`/`iat` via
/// [`check_times`].
pub fn verify_signature(
    token: &str,
    keys: &[&Key],
) -> Result<serde_json::Map<String, Value>, JwtError> {
    match decode_json(signed_payload(token, keys)?)? {
        Value::Object(m) => Ok(m),
        _ => Err(JwtError::Malformed),
    }
}

/// Checks the structure, header and signature (under any of `keys`); the payload, still
/// base64url-encoded.
fn signed_payload<'t>(token: &'t str, keys: &[&Key]) -> Result<&'t str, JwtError> {
    if token.len() > MAX_LEN {
        return Err(JwtError::Malformed);
    }
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    if h != HEADER {
        check_header(h)?;
    }
    let sig = URL_SAFE_NO_PAD.decode(s).map_err(|_| JwtError::Malformed)?;
    let signing_input = &token[..h.len() + 1 + p.len()];
    if !keys.iter().any(|k| hmac::verify(&k.0, signing_input.as_bytes(), &sig).is_ok()) {
        return Err(JwtError::BadSignature);
    }
    Ok(p)
}

/// The header hearth signs with, `{"alg":"HS256","typ":"JWT"}` encoded: a token that
/// carries it needs no header decoded ([`check_header`] accepts it).
const HEADER: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";

/// Checks a token's header (RFC 7515): HS256, of type JWT when typed, no extension.
fn check_header(h: &str) -> Result<(), JwtError> {
    let header: Value = decode_json(h)?;
    if header.get("alg").and_then(Value::as_str) != Some("HS256") {
        return Err(JwtError::BadHeader);
    }
    match header.get("typ") {
        None => {}
        Some(Value::String(t)) if t.eq_ignore_ascii_case("JWT") => {}
        Some(_) => return Err(JwtError::BadHeader),
    }
    // RFC 7515 §4.1.11: a recipient must refuse a token whose `crit` lists an
    // extension it does not understand, and hearth understands none; RFC 7797's
    // `b64: false` (an unencoded payload) would change what the signature covers
    if header.get("crit").is_some() || header.get("b64").is_some_and(|b| b != &Value::Bool(true)) {
        return Err(JwtError::BadHeader);
    }
    Ok(())
}

fn decode_json(part: &str) -> Result<Value, JwtError> {
    let bytes = URL_SAFE_NO_PAD.decode(part).map_err(|_| JwtError::Malformed)?;
    serde_json::from_slice(&bytes).map_err(|_| JwtError::Malformed)
}

/// Rejects a token at or after `exp`, or with `iat` more than a minute ahead of `now`.
/// Both must be JSON numbers (NumericDate, RFC 7519 §2: fractions allowed).
pub fn check_times(
    payload: &serde_json::Map<String, Value>,
    now_secs: i64,
) -> Result<(i64, i64), JwtError> {
    let exp = payload.get("exp").and_then(Value::as_f64).ok_or(JwtError::BadClaims)?;
    let iat = payload.get("iat").and_then(Value::as_f64).ok_or(JwtError::BadClaims)?;
    times(exp, iat, now_secs)
}

/// [`check_times`] of the two numbers.
fn times(exp: f64, iat: f64, now_secs: i64) -> Result<(i64, i64), JwtError> {
    #[expect(clippy::cast_precision_loss, reason = "seconds since the epoch fit an f64 exactly")]
    let now = now_secs as f64;
    if now >= exp {
        return Err(JwtError::Expired);
    }
    if iat > now + MAX_IAT_SKEW_SECS as f64 {
        return Err(JwtError::IssuedInFuture);
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "NumericDate rounded down to whole seconds"
    )]
    Ok((exp.floor() as i64, iat.floor() as i64))
}

/// An access token's claims read straight into their types, without a JSON tree (every
/// authenticated request reads one): what [`verify_access`] tries first. A payload it
/// does not read (a claim of another type, a duplicate, an escaped string) is read
/// again as a JSON object, which gives the precise error, or the claims the object
/// holds, as before.
#[derive(Deserialize)]
struct Typed<'a> {
    user_id: i64,
    token_type: &'a str,
    exp: f64,
    iat: f64,
    jti: &'a str,
    #[serde(default, deserialize_with = "present")]
    ext_id: Option<Value>,
}

/// A claim that is there, `null` included (`Some(Value::Null)`), as `Map::get` sees it.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Typed<'_> {
    fn claims(self, now_secs: i64) -> Result<AccessClaims, JwtError> {
        let (exp, iat) = times(self.exp, self.iat, now_secs)?;
        if self.token_type != "access" || self.jti.is_empty() {
            return Err(JwtError::BadClaims);
        }
        Ok(AccessClaims {
            user_id: self.user_id,
            token_type: "access".into(),
            exp,
            iat,
            jti: self.jti.to_owned(),
            ext_id: self.ext_id,
        })
    }
}

/// Full verification of an access token: signature, times, and the claim types of
/// SPEC §4 (`user_id` a JSON integer, `token_type` "access", non-empty string `jti`).
pub fn verify_access(token: &str, keys: &[&Key], now_secs: i64) -> Result<AccessClaims, JwtError> {
    let payload = signed_payload(token, keys)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload).map_err(|_| JwtError::Malformed)?;
    // (a derived struct would also read a JSON array: objects only)
    let object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if object && let Ok(typed) = serde_json::from_slice::<Typed<'_>>(&bytes) {
        return typed.claims(now_secs);
    }
    let payload = match serde_json::from_slice(&bytes).map_err(|_| JwtError::Malformed)? {
        Value::Object(m) => m,
        _ => return Err(JwtError::Malformed),
    };
    let (exp, iat) = check_times(&payload, now_secs)?;
    let user_id = match payload.get("user_id") {
        Some(Value::Number(n)) if n.is_i64() => n.as_i64().ok_or(JwtError::BadClaims)?,
        _ => return Err(JwtError::BadClaims),
    };
    if payload.get("token_type").and_then(Value::as_str) != Some("access") {
        return Err(JwtError::BadClaims);
    }
    let jti = match payload.get("jti") {
        Some(Value::String(j)) if !j.is_empty() => j.clone(),
        _ => return Err(JwtError::BadClaims),
    };
    Ok(AccessClaims {
        user_id,
        token_type: "access".into(),
        exp,
        iat,
        jti,
        ext_id: payload.get("ext_id").cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key::new("a-shared-secret-of-at-least-32-bytes!!")
    }

    /// The header taken without decoding is the one hearth signs with, and the full
    /// check accepts it: the shortcut changes no answer.
    #[test]
    fn the_header_taken_as_is_is_the_signed_one() {
        assert_eq!(HEADER, URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#));
        assert!(check_header(HEADER).is_ok());
    }

    fn claims(now: i64) -> AccessClaims {
        AccessClaims {
            user_id: 7,
            token_type: "access".into(),
            exp: now + 60,
            iat: now,
            jti: "j1".into(),
            ext_id: None,
        }
    }

    fn raw(header: &str, payload: &str, k: &Key) -> String {
        let input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header), URL_SAFE_NO_PAD.encode(payload));
        let sig = hmac::sign(&k.0, input.as_bytes());
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
    }

    #[test]
    fn rfc7515_appendix_a1_signature() {
        // RFC 7515 A.1: the key is given as a JWK octet string; the signing input and
        // the expected signature are from the RFC.
        let k = URL_SAFE_NO_PAD
            .decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")
            .unwrap_or_default();
        let key = hmac::Key::new(hmac::HMAC_SHA256, &k);
        let input = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ";
        let sig = URL_SAFE_NO_PAD.encode(hmac::sign(&key, input.as_bytes()).as_ref());
        assert_eq!(sig, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
        // and our verifier accepts that token when its times are current
        let token = format!("{input}.{sig}");
        let payload = verify_signature(&token, &[&Key(key)]);
        assert!(payload.is_ok());
    }

    #[test]
    fn round_trip() {
        let t = encode(&claims(1000), &key());
        assert!(looks_like_jwt(&t));
        assert_eq!(verify_access(&t, &[&key()], 1000), Ok(claims(1000)));
    }

    #[test]
    fn expiry_is_exclusive_and_iat_skew_bounded() {
        let t = encode(&claims(1000), &key());
        assert_eq!(verify_access(&t, &[&key()], 1059).map(|c| c.user_id), Ok(7));
        assert_eq!(verify_access(&t, &[&key()], 1060), Err(JwtError::Expired));
        let mut c = claims(1000);
        c.iat = 1061;
        c.exp = 2000;
        let t = encode(&c, &key());
        assert_eq!(verify_access(&t, &[&key()], 1000), Err(JwtError::IssuedInFuture));
        c.iat = 1060;
        let t = encode(&c, &key());
        assert!(verify_access(&t, &[&key()], 1000).is_ok());
    }

    #[test]
    fn wrong_key_is_rejected_and_any_accepted_key_works() {
        let t = encode(&claims(0), &key());
        let other = Key::new("another-secret-another-secret-xxxxxx");
        assert_eq!(verify_access(&t, &[&other], 0), Err(JwtError::BadSignature));
        assert!(verify_access(&t, &[&other, &key()], 0).is_ok());
    }

    #[test]
    fn algorithms_other_than_hs256_are_rejected() {
        let k = key();
        let p = r#"{"user_id":7,"token_type":"access","exp":100,"iat":0,"jti":"x"}"#;
        for h in [
            r#"{"alg":"none","typ":"JWT"}"#,
            r#"{"alg":"HS512","typ":"JWT"}"#,
            r#"{"alg":"RS256","typ":"JWT"}"#,
            r#"{"typ":"JWT"}"#,
            r#"{"alg":"HS256","typ":"JWS"}"#,
        ] {
            assert_eq!(verify_access(&raw(h, p, &k), &[&k], 0), Err(JwtError::BadHeader), "{h}");
        }
        // alg none with an empty signature
        let unsigned = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(p)
        );
        assert!(verify_access(&unsigned, &[&k], 0).is_err());
        // missing typ is fine
        assert!(verify_access(&raw(r#"{"alg":"HS256"}"#, p, &k), &[&k], 0).is_ok());
    }

    /// Issue 27, Low 12 (RFC 7515 §4.1.11, RFC 7797): extensions hearth does not
    /// implement make the token invalid, however well signed.
    #[test]
    fn critical_extensions_and_unencoded_payloads_are_rejected() {
        let k = key();
        let p = r#"{"user_id":7,"token_type":"access","exp":100,"iat":0,"jti":"x"}"#;
        for h in [
            r#"{"alg":"HS256","typ":"JWT","crit":["exp"],"exp":1}"#,
            r#"{"alg":"HS256","crit":["b64"],"b64":false}"#,
            r#"{"alg":"HS256","b64":false}"#,
            r#"{"alg":"HS256","crit":[]}"#,
            r#"{"alg":"HS256","b64":"false"}"#,
        ] {
            let t = raw(h, p, &k);
            assert_eq!(verify_access(&t, &[&k], 0), Err(JwtError::BadHeader), "{h}");
            assert_eq!(verify_signature(&t, &[&k]).err(), Some(JwtError::BadHeader), "{h}");
        }
        // b64: true is the default, said out loud
        assert!(verify_access(&raw(r#"{"alg":"HS256","b64":true}"#, p, &k), &[&k], 0).is_ok());
    }

    #[test]
    fn claim_types_are_strict() {
        let k = key();
        let h = r#"{"alg":"HS256","typ":"JWT"}"#;
        for p in [
            r#"{"user_id":"7","token_type":"access","exp":100,"iat":0,"jti":"x"}"#,
            r#"{"user_id":7.5,"token_type":"access","exp":100,"iat":0,"jti":"x"}"#,
            r#"{"user_id":7,"token_type":"refresh","exp":100,"iat":0,"jti":"x"}"#,
            r#"{"user_id":7,"token_type":"access","exp":100,"iat":0,"jti":""}"#,
            r#"{"user_id":7,"token_type":"access","exp":100,"iat":0}"#,
            r#"{"user_id":7,"token_type":"access","iat":0,"jti":"x"}"#,
            r#"{"user_id":7,"token_type":"access","exp":"100","iat":0,"jti":"x"}"#,
        ] {
            assert_eq!(verify_access(&raw(h, p, &k), &[&k], 0), Err(JwtError::BadClaims), "{p}");
        }
    }

    /// The typed reading gives what the JSON object gives: escaped strings, a repeated
    /// claim (the last counts), a null `ext_id`; an array is no payload.
    #[test]
    fn the_typed_reading_agrees_with_the_object() {
        let k = key();
        let h = r#"{"alg":"HS256","typ":"JWT"}"#;
        let ok = |p: &str| verify_access(&raw(h, p, &k), &[&k], 0);
        let c = ok(r#"{"user_id":7,"token_type":"acc\u0065ss","exp":100,"iat":0,"jti":"x\"y"}"#);
        assert_eq!(c.map(|c| (c.user_id, c.jti)), Ok((7, "x\"y".to_owned())));
        let c =
            ok(r#"{"user_id":7,"user_id":8,"token_type":"access","exp":100,"iat":0,"jti":"x"}"#);
        assert_eq!(c.map(|c| c.user_id), Ok(8));
        let c = ok(
            r#"{"user_id":7,"token_type":"access","exp":100.5,"iat":0,"jti":"x","ext_id":null}"#,
        );
        assert_eq!(c.map(|c| (c.exp, c.ext_id)), Ok((100, Some(Value::Null))));
        let c = ok(
            r#"{"user_id":7,"token_type":"access","exp":100,"iat":0,"jti":"x","ext_id":{"a":[1]}}"#,
        );
        assert_eq!(c.map(|c| c.ext_id), Ok(Some(serde_json::json!({"a": [1]}))));
        assert_eq!(ok(r#"[7,"access",100,0,"x"]"#), Err(JwtError::Malformed));
        assert_eq!(
            ok(r#" {"user_id":7,"token_type":"access","exp":0,"iat":0,"jti":"x"}"#),
            Err(JwtError::Expired)
        );
    }

    #[test]
    fn malformed_tokens() {
        let k = key();
        for t in ["", "a.b", "a.b.c.d", "!!.!!.!!", "e30.e30.e30"] {
            assert!(verify_access(t, &[&k], 0).is_err(), "{t}");
        }
        let long = format!("{}.{}.x", "a".repeat(MAX_LEN), "b");
        assert_eq!(verify_access(&long, &[&k], 0), Err(JwtError::Malformed));
    }
}

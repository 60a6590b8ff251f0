//! Browser sessions and CSRF tokens of the OAuth pages. The session cookie holds a
//! random token stored only as its SHA-256; each session has its own CSRF token. The
//! login form, which comes before any session, uses a signed double submit (issue 27,
//! Low 14): the cookie holds a random nonce, and the form's field is an HMAC of that
//! nonce and the client address (as the limits count it, [`crate::limits::AddrKey`])
//! under a key derived from the JWT secret. A pair a client made up (cookie and field
//! equal, as a plain double submit accepted) never verifies, and a pair the server
//! minted for another browser fails from another address. Over https the cookie is
//! `__Host-hearth_csrf` (`Secure`, `Path=/`, no `Domain`): no sibling subdomain and no
//! plain-http page can plant it. `__Host-` requires `Secure`, which a browser only
//! stores from an https origin, so over plain http (a loopback or test server) it is
//! `hearth_csrf`.
//! Cookies are built and parsed by hand: `HttpOnly`, `SameSite=Lax`, `Path=/`, and
//! `Secure` when the public URL is https.

use std::net::IpAddr;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;
use warp::http::HeaderMap;
use warp::http::header::COOKIE;

use crate::clock::{SECOND, Timestamp};
use crate::db::sessions::Session;
use crate::http::Req;
use crate::token;
use crate::token::jwt::Key;

/// The session cookie.
pub const SESSION_COOKIE: &str = "hearth_session";
/// The CSRF cookie of the login form over plain http.
pub const CSRF_COOKIE: &str = "hearth_csrf";
/// The CSRF cookie of the login form over https (RFC 6265bis §4.1.3.2).
pub const CSRF_COOKIE_HOST: &str = "__Host-hearth_csrf";
/// What the login form's CSRF key is derived for ([`crate::token::jwt::Key::derive`]).
const CSRF_PURPOSE: &str = "hearth login form csrf v1";
/// How long a browser stays signed in.
pub const SESSION_TTL: Timestamp = 12 * 3600 * SECOND;
/// How long the login form's CSRF cookie lives.
const CSRF_TTL_SECS: i64 = 3600;

/// The value of a cookie sent with the request.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim_matches('"').to_owned())
        .filter(|v| !v.is_empty())
}

/// A `Set-Cookie` value; `max_age` 0 deletes the cookie.
pub fn set_cookie(name: &str, value: &str, max_age: i64, secure: bool) -> String {
    format!(
        "{name}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The session cookie for a new session.
pub fn session_cookie(value: &str, secure: bool) -> String {
    set_cookie(SESSION_COOKIE, value, SESSION_TTL / SECOND, secure)
}

/// The login form's CSRF cookie name: `__Host-` over https (see the module doc).
pub fn csrf_cookie_name(https: bool) -> &'static str {
    if https { CSRF_COOKIE_HOST } else { CSRF_COOKIE }
}

/// What the login form's field signs: the cookie's nonce and the client address.
fn login_csrf_input(nonce: &str, client: IpAddr) -> String {
    format!("{nonce}|{}", crate::limits::AddrKey::of(client).ip())
}

/// The login form's CSRF field for the browser sending `headers` from `client`: the
/// HMAC of its cookie's nonce (a new one, with the `Set-Cookie` that stores it, when it
/// has none) and the client address, under the current JWT key.
pub fn login_csrf(
    headers: &HeaderMap,
    https: bool,
    client: IpAddr,
    keys: &[&Key],
) -> (String, Option<String>) {
    let name = csrf_cookie_name(https);
    let (nonce, set) = match cookie(headers, name).filter(|c| c.len() == 43) {
        Some(c) => (c, None),
        None => {
            let c = token::new_token();
            let set = set_cookie(name, &c, CSRF_TTL_SECS, https);
            (c, Some(set))
        }
    };
    // no key (never: `init` makes one) gives a field that never verifies
    let field = keys.first().map_or_else(String::new, |k| {
        let tag = hmac::sign(&k.derive(CSRF_PURPOSE), login_csrf_input(&nonce, client).as_bytes());
        URL_SAFE_NO_PAD.encode(tag.as_ref())
    });
    (field, set)
}

/// Whether a login form's posted CSRF field is the HMAC of the request's cookie nonce
/// and client address under one of the accepted JWT keys (constant time).
pub fn login_csrf_ok(
    headers: &HeaderMap,
    https: bool,
    client: IpAddr,
    keys: &[&Key],
    posted: Option<&str>,
) -> bool {
    let Some(nonce) = cookie(headers, csrf_cookie_name(https)).filter(|c| c.len() == 43) else {
        return false;
    };
    let Some(tag) = posted.and_then(|p| URL_SAFE_NO_PAD.decode(p).ok()) else {
        return false;
    };
    let input = login_csrf_input(&nonce, client);
    keys.iter().any(|k| hmac::verify(&k.derive(CSRF_PURPOSE), input.as_bytes(), &tag).is_ok())
}

/// Whether a posted CSRF token equals the expected one (constant time).
pub fn csrf_ok(expected: &str, posted: Option<&str>) -> bool {
    posted.is_some_and(|p| {
        !p.is_empty() && token::constant_time_eq(expected.as_bytes(), p.as_bytes())
    })
}

/// The request's live session, with its cookie hash.
pub async fn current(req: &Req) -> Result<Option<([u8; 32], Session)>, crate::db::DbError> {
    let Some(value) = cookie(&req.headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    let hash = token::storage_hash(&value);
    let now = req.state.clock.now();
    let s = req
        .state
        .db
        .read(move |c| crate::db::sessions::get(c, &hash, now).map_err(crate::db::DbError::from))
        .await?;
    Ok(s.map(|s| (hash, s)))
}

/// Opens a session for `user_id`; returns the `Set-Cookie` value.
pub async fn open(req: &Req, user_id: i64) -> Result<String, crate::db::DbError> {
    let value = token::new_token();
    let hash = token::storage_hash(&value);
    let csrf = token::new_token();
    let now = req.state.clock.now();
    req.state
        .db
        .write(move |tx| {
            crate::db::sessions::insert(tx, &hash, user_id, &csrf, now, now + SESSION_TTL)
                .map_err(crate::db::DbError::from)
        })
        .await?;
    Ok(session_cookie(&value, req.state.config.https()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warp::http::HeaderValue;

    #[test]
    fn cookies_parse_and_build() {
        let mut h = HeaderMap::new();
        h.insert(COOKIE, HeaderValue::from_static("a=1; hearth_session=xyz; b=2"));
        assert_eq!(cookie(&h, SESSION_COOKIE).as_deref(), Some("xyz"));
        assert_eq!(cookie(&h, "missing"), None);
        assert_eq!(
            set_cookie("n", "v", 60, true),
            "n=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure"
        );
        assert!(!set_cookie("n", "v", 60, false).contains("Secure"));
    }

    fn with_cookie(name: &str, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(&format!("{name}={value}")) {
            h.insert(COOKIE, v);
        }
        h
    }

    /// The nonce a `Set-Cookie` value stores.
    fn nonce(set: Option<&String>) -> String {
        set.and_then(|c| c.split(';').next())
            .and_then(|kv| kv.split_once('='))
            .map(|(_, v)| v.to_owned())
            .unwrap_or_default()
    }

    #[test]
    fn the_login_field_is_signed_and_bound_to_the_address() {
        let (old, key) = (Key::new("old secret"), Key::new("current secret"));
        let keys = [&key, &old];
        let ann: IpAddr = IpAddr::from([192, 0, 2, 1]);
        let (field, set) = login_csrf(&HeaderMap::new(), false, ann, &keys);
        let set = set.unwrap_or_default();
        assert!(set.starts_with("hearth_csrf=") && !set.contains("Secure"), "{set}");
        let h = with_cookie(CSRF_COOKIE, &nonce(Some(&set)));
        assert!(login_csrf_ok(&h, false, ann, &keys, Some(&field)));
        // the page again: the same cookie, the same field, no new cookie
        assert_eq!(login_csrf(&h, false, ann, &keys), (field.clone(), None));
        // made-up pairs, as a plain double submit took them
        let made_up = token::new_token();
        let forged = with_cookie(CSRF_COOKIE, &made_up);
        assert!(!login_csrf_ok(&forged, false, ann, &keys, Some(&made_up)));
        assert!(!login_csrf_ok(&h, false, ann, &keys, Some(&nonce(Some(&set)))));
        assert!(!login_csrf_ok(&h, false, ann, &keys, Some("")));
        assert!(!login_csrf_ok(&h, false, ann, &keys, None));
        assert!(!login_csrf_ok(&HeaderMap::new(), false, ann, &keys, Some(&field)));
        // minted for another address (another browser's pair, planted)
        assert!(!login_csrf_ok(&h, false, IpAddr::from([192, 0, 2, 2]), &keys, Some(&field)));
        // ...but the same IPv6 /64 is the same client
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap_or(ann);
        let (f6, _) = login_csrf(&h, false, v6("2001:db8::1"), &keys);
        assert!(login_csrf_ok(&h, false, v6("2001:db8::ffff"), &keys, Some(&f6)));
        // a key rotated out of the accepted set no longer verifies; one in grace does
        assert!(!login_csrf_ok(&h, false, ann, &[&old], Some(&field)));
        let (by_old, _) = login_csrf(&h, false, ann, &[&old]);
        assert!(login_csrf_ok(&h, false, ann, &keys, Some(&by_old)));
        // no key at all: nothing verifies
        let (none, _) = login_csrf(&h, false, ann, &[]);
        assert!(!login_csrf_ok(&h, false, ann, &[], Some(&none)));
    }

    #[test]
    fn over_https_the_cookie_is_host_prefixed() {
        let key = Key::new("s");
        let ann: IpAddr = IpAddr::from([192, 0, 2, 1]);
        let (field, set) = login_csrf(&HeaderMap::new(), true, ann, &[&key]);
        let set = set.unwrap_or_default();
        assert!(set.starts_with("__Host-hearth_csrf="), "{set}");
        assert!(set.contains("; Path=/") && set.contains("; Secure") && !set.contains("Domain"));
        // the unprefixed name (which a subdomain could set) is not read over https
        let plain = with_cookie(CSRF_COOKIE, &nonce(Some(&set)));
        assert!(!login_csrf_ok(&plain, true, ann, &[&key], Some(&field)));
        let host = with_cookie(CSRF_COOKIE_HOST, &nonce(Some(&set)));
        assert!(login_csrf_ok(&host, true, ann, &[&key], Some(&field)));
    }

    #[test]
    fn csrf_compare() {
        assert!(csrf_ok("abc", Some("abc")));
        assert!(!csrf_ok("abc", Some("abd")));
        assert!(!csrf_ok("abc", None));
        assert!(!csrf_ok("", Some("")));
    }
}

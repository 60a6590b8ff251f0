//! Browser sessions and CSRF tokens of the OAuth pages. The session cookie holds a
//! random token stored only as its SHA-256; each session has its own CSRF token. The
//! login form, which comes before any session, uses a double-submit CSRF cookie.
//! Cookies are built and parsed by hand: `HttpOnly`, `SameSite=Lax`, `Path=/`, and
//! `Secure` when the public URL is https.

use warp::http::HeaderMap;
use warp::http::header::COOKIE;

use crate::clock::{SECOND, Timestamp};
use crate::db::sessions::Session;
use crate::http::Req;
use crate::token;

/// The session cookie.
pub const SESSION_COOKIE: &str = "hearth_session";
/// The CSRF cookie of the login form.
pub const CSRF_COOKIE: &str = "hearth_csrf";
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

/// The login form's CSRF token: the one in the cookie, or a new one with the
/// `Set-Cookie` that stores it.
pub fn login_csrf(headers: &HeaderMap, secure: bool) -> (String, Option<String>) {
    match cookie(headers, CSRF_COOKIE).filter(|c| c.len() == 43) {
        Some(c) => (c, None),
        None => {
            let c = token::new_token();
            let set = set_cookie(CSRF_COOKIE, &c, CSRF_TTL_SECS, secure);
            (c, Some(set))
        }
    }
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

    #[test]
    fn csrf_compare() {
        assert!(csrf_ok("abc", Some("abc")));
        assert!(!csrf_ok("abc", Some("abd")));
        assert!(!csrf_ok("abc", None));
        assert!(!csrf_ok("", Some("")));
    }
}

//! OAuth 2.0 authorization server (`/oauth/...`, RFC 6749, RFC 7009, RFC 7636, RFC 9700)
//! and its browser pages (`/accounts/...`). One module per concern: the authorization
//! endpoint, the token endpoint (one module per grant), revocation, the login pages,
//! the error codes, the password checks and the session/CSRF cookies (the brute-force
//! limiter itself is in [`crate::limits::login`]).

pub mod authorize;
pub mod client;
pub mod errors;
pub mod login;
pub mod pages;
pub mod password;
pub mod pkce;
pub mod redirect;
pub mod revoke;
pub mod scope;
pub mod session;
pub mod token;

use std::net::IpAddr;

use warp::http::{HeaderMap, HeaderValue, header};

use crate::http::Req;
use crate::http::route::{Auth, Endpoint};

/// The endpoints of this module. They are public and take the raw request: the OAuth
/// handlers authenticate clients and browsers themselves and answer with their own
/// errors (RFC 6749 JSON, or HTML pages), so they sit below `api` and its `Call`.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = authorize::endpoints();
    all.extend(token::endpoints());
    all.extend(revoke::endpoints());
    all.extend(login::endpoints());
    all
}

/// A `POST` endpoint of the RFC 6749 JSON protocol (token, revocation): its errors are
/// answered as [`errors::OAuthError`] bodies.
fn json_endpoint<F, Fut>(path: &'static str, operation_id: &'static str, handler: F) -> Endpoint
where
    F: Fn(Req) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<warp::reply::Response, errors::OAuthError>>
        + Send
        + 'static,
{
    let method = warp::http::Method::POST;
    Endpoint::new(method, path, Auth::None, operation_id, move |req, _| {
        let answer = handler(req);
        async move { answer.await.unwrap_or_else(|e| e.to_response()) }
    })
}

/// `Cache-Control: no-store` (and the HTTP/1.0 `Pragma`) on every OAuth response that
/// carries a token, a code or a page (RFC 6749 §5.1).
pub fn no_store(h: &mut HeaderMap) {
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}

/// The client address the brute-force limit counts (SPEC §4; see
/// [`crate::config::Config::client_addr`]).
pub fn client_addr(req: &Req) -> IpAddr {
    req.client_addr()
}

/// The first parameter among `names` that appears more than once (RFC 6749 §3.1, §3.2:
/// parameters must not be repeated).
pub fn repeated<'a>(q: &crate::http::query::Query, names: &[&'a str]) -> Option<&'a str> {
    q.repeated_among(names)
}

/// A redirect (`302` or `303`) that is never cached, with cookies to set.
pub fn redirect_to(
    status: warp::http::StatusCode,
    location: &str,
    cookies: &[String],
) -> warp::reply::Response {
    let mut resp = crate::http::empty(status);
    let h = resp.headers_mut();
    match HeaderValue::from_str(location) {
        Ok(v) => {
            h.insert(header::LOCATION, v);
        }
        Err(_) => return crate::http::empty(warp::http::StatusCode::INTERNAL_SERVER_ERROR),
    }
    no_store(h);
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            h.append(header::SET_COOKIE, v);
        }
    }
    resp
}

/// The page for an unexpected failure (the cause is logged, never shown).
pub fn internal_page(cause: impl std::fmt::Display) -> warp::reply::Response {
    tracing::error!(%cause, "internal error");
    pages::error(
        warp::http::StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        "Something went wrong on our side. Please try again.",
    )
    .into_response()
}

/// The name of the CSRF field of every form.
pub const CSRF_FIELD: &str = "csrfmiddlewaretoken";

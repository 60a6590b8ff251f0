//! CORS (SPEC §7): which pages on other origins may call hearth from a browser. One
//! layer around every response, not a filter per route: the server asks [`Cors::check`]
//! before a request reaches the routes and hands the response to [`Finish::apply`], so
//! errors (401, 404, 405, 413, 429, 503, whoever produced them) carry the same headers
//! as successes and a browser app can read them.
//!
//! A preflight is answered here, from the endpoint declaration: its
//! `Access-Control-Allow-Methods` is the path's `Allow` list ([`Router::allow`], the list
//! a 405 names). A path the declaration does not know is 404, except under `/api/v2/`
//! (SPEC §7, turn 3): there an allowed origin's preflight is 204 with every method hearth
//! serves, so that the page reads the API's own 404 that follows instead of a CORS
//! failure. A preflight never reaches a handler, so it needs no authentication.

use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use warp::reply::Response;

use super::route::Router;
use crate::config::CorsOrigins;
use crate::error::ApiError;

/// The methods of a preflight on an unknown `/api/v2/` path: every method an endpoint
/// of hearth's may have.
const ANY_METHOD: &str = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

/// The headers every allowed preflight lists, whatever the request asks for.
const ALWAYS_ALLOWED: [&str; 3] = ["Authorization", "Content-Type", "X-Request-Id"];
/// What an allowed response lets the page's script read besides the safelisted headers.
const EXPOSED: &str = "X-Request-Id, Retry-After, WWW-Authenticate";
/// Seconds a browser may cache a preflight answer.
const MAX_AGE: &str = "600";
/// Requested header names echoed at most (the rest are not allowed), and their length:
/// a 10 KB `Access-Control-Request-Headers` costs a bounded answer.
const MAX_EXTRA_HEADERS: usize = 16;
const MAX_HEADER_NAME: usize = 64;

/// Header names a preflight never allows: credentials (hearth authenticates with bearer
/// tokens, never cookies) and the names the Fetch standard forbids scripts to set.
const NEVER_ALLOWED: [&str; 20] = [
    "cookie",
    "cookie2",
    "set-cookie",
    "host",
    "origin",
    "referer",
    "connection",
    "keep-alive",
    "content-length",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "via",
    "expect",
    "date",
    "dnt",
    "access-control-request-headers",
    "access-control-request-method",
    "accept-charset",
];

/// The CORS policy of a running server.
#[derive(Debug, Clone)]
pub struct Cors {
    origins: CorsOrigins,
    router: Router,
}

/// What [`Cors::check`] decided before the routes see the request.
pub enum Checked {
    /// The answer, already made (a preflight): the routes are not asked.
    Answer(Response),
    /// Let the routes answer, then pass their response to [`Finish::apply`].
    Pass(Finish),
}

/// How a response to a request that went through the routes is finished.
pub struct Finish {
    /// `Vary: Origin` (CORS is configured and the path is one CORS covers).
    vary: bool,
    /// `Access-Control-Allow-Origin` for an allowed origin.
    allow_origin: Option<HeaderValue>,
}

impl Cors {
    /// The policy for `origins`, with the method lists of `router`.
    pub fn new(origins: CorsOrigins, router: Router) -> Self {
        Cors { origins, router }
    }

    /// Decides about a request from its method, path and headers.
    pub fn check(&self, method: &Method, path: &str, headers: &HeaderMap) -> Checked {
        if !covers(path) {
            return Checked::Pass(Finish::untouched());
        }
        let vary = self.origins.is_configured();
        let origin = single(headers, header::ORIGIN);
        let allow_origin =
            origin.filter(|o| self.origins.allows(o.as_bytes())).map(|o| match self.origins {
                CorsOrigins::Any => HeaderValue::from_static("*"),
                _ => o.clone(),
            });
        let is_preflight = method == Method::OPTIONS
            && headers.contains_key(header::ORIGIN)
            && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
        if !is_preflight {
            return Checked::Pass(Finish { vary, allow_origin });
        }
        let allow_headers = allow_headers(headers);
        Checked::Answer(match self.router.allow(path) {
            Some(methods) => preflight(vary, allow_origin.as_ref(), &methods, &allow_headers),
            // an unknown API path: the browser must get to read its 404
            None if path.starts_with("/api/v2/") => {
                preflight(vary, allow_origin.as_ref(), ANY_METHOD, &allow_headers)
            }
            // elsewhere: the 404 any other method gets
            None => Finish { vary, allow_origin }.apply(ApiError::NotFound.to_response()),
        })
    }
}

impl Finish {
    /// A response left as the routes made it.
    fn untouched() -> Self {
        Finish { vary: false, allow_origin: None }
    }

    /// Adds the CORS headers to the routes' response.
    pub fn apply(self, mut resp: Response) -> Response {
        let headers = resp.headers_mut();
        if self.vary {
            headers.append(header::VARY, HeaderValue::from_static("Origin"));
        }
        if let Some(origin) = self.allow_origin {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers
                .insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
        }
        resp
    }
}

/// Whether CORS applies to `path`: the API, the token and revocation endpoints (a
/// single-page app exchanges its PKCE code and refreshes from the browser), static
/// files and media. Never the authorization endpoint or `/accounts/`: page navigations.
fn covers(path: &str) -> bool {
    path.starts_with("/api/v2/")
        || path == "/oauth/token/"
        || path == "/oauth/revoke_token/"
        || path.starts_with("/static/")
        || path.starts_with("/media/")
}

/// A header sent exactly once (a repeated `Origin` is no origin).
fn single(headers: &HeaderMap, name: header::HeaderName) -> Option<&HeaderValue> {
    let mut all = headers.get_all(name).iter();
    let first = all.next()?;
    all.next().is_none().then_some(first)
}

/// The answer to a preflight on a known path: 204 with the path's methods for an
/// allowed origin, 403 with the JSON error body and no CORS headers otherwise.
fn preflight(
    vary: bool,
    allow_origin: Option<&HeaderValue>,
    methods: &str,
    allow_headers: &HeaderValue,
) -> Response {
    let mut resp = match allow_origin {
        Some(_) => super::empty(StatusCode::NO_CONTENT),
        None => ApiError::OriginNotAllowed.to_response(),
    };
    let headers = resp.headers_mut();
    if vary {
        headers.append(
            header::VARY,
            HeaderValue::from_static("Origin, Access-Control-Request-Headers"),
        );
    }
    let Some(origin) = allow_origin else {
        return resp;
    };
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    if let Ok(m) = HeaderValue::from_str(methods) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, m);
    }
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, allow_headers.clone());
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    resp
}

/// `Access-Control-Allow-Headers`: the three hearth reads, and the requested names that
/// are safe to allow (well-formed, short, not a credential or forbidden name), at most
/// [`MAX_EXTRA_HEADERS`] of them.
fn allow_headers(headers: &HeaderMap) -> HeaderValue {
    let mut out: Vec<String> = ALWAYS_ALLOWED.iter().map(|h| (*h).to_owned()).collect();
    let mut extra = 0;
    let requested = headers
        .get_all(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','));
    for name in requested {
        if extra == MAX_EXTRA_HEADERS {
            break;
        }
        let name = name.trim().to_ascii_lowercase();
        if !is_safe_name(&name) || out.iter().any(|o| o.eq_ignore_ascii_case(&name)) {
            continue;
        }
        out.push(name);
        extra += 1;
    }
    // every name is ASCII token characters joined by ", ": always a valid value
    HeaderValue::from_str(&out.join(", "))
        .unwrap_or_else(|_| HeaderValue::from_static("Authorization, Content-Type, X-Request-Id"))
}

/// A header name (RFC 9110 token) that a page may be allowed to send.
fn is_safe_name(name: &str) -> bool {
    let token = !name.is_empty()
        && name.len() <= MAX_HEADER_NAME
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    token
        && !NEVER_ALLOWED.contains(&name)
        && !name.starts_with("proxy-")
        && !name.starts_with("sec-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requested(list: &str) -> String {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(list) {
            h.insert(header::ACCESS_CONTROL_REQUEST_HEADERS, v);
        }
        allow_headers(&h).to_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn requested_headers_are_filtered_and_bounded() {
        assert_eq!(requested(""), "Authorization, Content-Type, X-Request-Id");
        assert_eq!(
            requested("authorization, X-Custom ,content-type,accept-language"),
            "Authorization, Content-Type, X-Request-Id, x-custom, accept-language"
        );
        for bad in [
            "cookie",
            "Cookie",
            "set-cookie",
            "proxy-authorization",
            "sec-fetch-mode",
            "host",
            "x bad",
            "x\"y",
        ] {
            assert_eq!(requested(bad), "Authorization, Content-Type, X-Request-Id", "{bad}");
        }
        let long = "a".repeat(MAX_HEADER_NAME + 1);
        assert_eq!(requested(&long), "Authorization, Content-Type, X-Request-Id");
        // 10 KB of names: sixteen are echoed, and never the cookie hidden among them
        let many: Vec<String> = (0..1500).map(|i| format!("x-h{i}")).collect();
        let list = format!("cookie,{}", many.join(","));
        assert!(list.len() > 10_000);
        let answer = requested(&list);
        assert_eq!(answer.split(", ").count(), 3 + MAX_EXTRA_HEADERS);
        assert!(!answer.contains("cookie"));
    }

    #[test]
    fn covered_paths() {
        for p in [
            "/api/v2/user/me/",
            "/api/v2/nowhere/",
            "/oauth/token/",
            "/oauth/revoke_token/",
            "/static/x.png",
            "/media/course/1/a.png",
        ] {
            assert!(covers(p), "{p}");
        }
        for p in [
            "/oauth/authorize",
            "/oauth/authorize/",
            "/oauth/token",
            "/accounts/login/",
            "/api/v2",
            "/healthz",
            "/livez",
            "/",
        ] {
            assert!(!covers(p), "{p}");
        }
    }
}

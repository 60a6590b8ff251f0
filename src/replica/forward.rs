//! The reverse proxy a replica forwards with (SPEC §9): hyper's client, one pool of
//! keep-alive connections to the primary. The request goes as it came (method, path,
//! query, headers, body streamed) with `X-Forwarded-For` appended and the hop header
//! [`HOP`] added; hop-by-hop headers are dropped both ways (RFC 9110 §7.6.1); the
//! primary's answer comes back as it is.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::json;
use warp::Reply;
use warp::http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode, Uri, header};
use warp::reply::Response;

/// Added to every request a replica forwards; a replica never forwards a request that
/// carries it, so two nodes that each take the other for the primary answer 508 at
/// once instead of passing a request back and forth.
pub const HOP: &str = "x-hearth-forwarded-by";
/// The primary's position after a request (SPEC §9).
pub const POSITION: HeaderName = HeaderName::from_static("x-hearth-position");
/// How long the primary gets to connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the primary gets to start answering a forwarded request.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a request was not forwarded.
#[derive(Debug)]
pub enum ForwardError {
    /// The primary could not be reached, or did not answer in time.
    Unreachable(String),
}

impl std::fmt::Display for ForwardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ForwardError::Unreachable(e) => write!(f, "the primary cannot be reached: {e}"),
        }
    }
}

type Body = BoxBody<Bytes, hyper::Error>;

/// hyper's client for the primary.
#[derive(Clone, Debug)]
pub struct Client {
    inner: hyper_util::client::legacy::Client<HttpConnector, Body>,
    /// This node, as the hop header names it.
    me: HeaderValue,
}

/// Parses `--primary-url`: `http://host:port`, no path (https needs a TLS proxy in
/// front of the primary: the link between nodes is a private network or a tunnel).
pub fn parse_primary_url(s: &str) -> Result<String, String> {
    let t = s.trim_end_matches('/');
    let uri: Uri = t.parse().map_err(|_| format!("primary URL {s:?} is not a URL"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!(
            "primary URL {s:?} must be http://host:port (the link between nodes is a private network; put TLS in a tunnel)"
        ));
    }
    if uri.authority().is_none() || !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err(format!("primary URL {s:?} must be http://host:port with no path"));
    }
    Ok(t.to_owned())
}

impl Client {
    /// A client; `me` names this node in the hop header.
    pub fn new(me: &str) -> Self {
        let mut http = HttpConnector::new();
        http.set_connect_timeout(Some(CONNECT_TIMEOUT));
        http.set_nodelay(true);
        let inner = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .set_host(false)
            .build(http);
        Client {
            inner,
            me: HeaderValue::from_str(me).unwrap_or(HeaderValue::from_static("replica")),
        }
    }

    /// Forwards `req` (from the TCP peer `peer`) to `primary`.
    pub async fn forward(
        &self,
        primary: &str,
        req: Request<Incoming>,
        peer: Option<IpAddr>,
    ) -> Result<Response, ForwardError> {
        let (parts, body) = req.into_parts();
        let body = body.boxed();
        self.send(primary, parts, body, peer).await
    }

    /// Forwards a GET or HEAD whose body was not kept (reads take none).
    pub async fn forward_bodiless(
        &self,
        primary: &str,
        parts: warp::http::request::Parts,
        peer: Option<IpAddr>,
    ) -> Result<Response, ForwardError> {
        let body = http_body_util::Empty::<Bytes>::new().map_err(|never| match never {}).boxed();
        self.send(primary, parts, body, peer).await
    }

    async fn send(
        &self,
        primary: &str,
        mut parts: warp::http::request::Parts,
        body: Body,
        peer: Option<IpAddr>,
    ) -> Result<Response, ForwardError> {
        let pq = parts.uri.path_and_query().map_or("/", warp::http::uri::PathAndQuery::as_str);
        parts.uri = format!("{primary}{pq}")
            .parse()
            .map_err(|e| ForwardError::Unreachable(format!("bad URL: {e}")))?;
        strip_hop_by_hop(&mut parts.headers);
        if let Some(ip) = peer {
            append_forwarded_for(&mut parts.headers, ip);
        }
        if !parts.headers.contains_key(header::HOST)
            && let Some(a) = parts.uri.authority()
            && let Ok(v) = HeaderValue::from_str(a.as_str())
        {
            parts.headers.insert(header::HOST, v);
        }
        parts.headers.insert(HOP, self.me.clone());
        parts.extensions = warp::http::Extensions::new();
        let req = Request::from_parts(parts, body);
        let resp = tokio::time::timeout(ANSWER_TIMEOUT, self.inner.request(req))
            .await
            .map_err(|_| ForwardError::Unreachable("no answer in time".into()))?
            .map_err(|e| ForwardError::Unreachable(error_chain(&e)))?;
        let (mut parts, body) = resp.into_parts();
        strip_hop_by_hop(&mut parts.headers);
        let stream = http_body_util::BodyDataStream::new(body);
        let body = warp::reply::stream(stream).into_response().into_body();
        Ok(Response::from_parts(parts, body))
    }

    /// The primary's position, from `GET /livez` (None from a primary that sends none).
    pub async fn position(&self, primary: &str) -> Result<Option<i64>, ForwardError> {
        let uri: Uri = format!("{primary}/livez")
            .parse()
            .map_err(|e| ForwardError::Unreachable(format!("bad URL: {e}")))?;
        let mut req = Request::new(
            http_body_util::Empty::<Bytes>::new().map_err(|never| match never {}).boxed(),
        );
        *req.uri_mut() = uri;
        if let Some(a) = req.uri().authority().map(|a| a.as_str().to_owned())
            && let Ok(v) = HeaderValue::from_str(&a)
        {
            req.headers_mut().insert(header::HOST, v);
        }
        req.headers_mut().insert(HOP, self.me.clone());
        let resp = self
            .inner
            .request(req)
            .await
            .map_err(|e| ForwardError::Unreachable(error_chain(&e)))?;
        if !resp.status().is_success() {
            return Err(ForwardError::Unreachable(format!(
                "GET /livez answered {}",
                resp.status()
            )));
        }
        let at = position_of(resp.headers());
        // drain the body so the connection goes back to the pool
        let _ = resp.into_body().collect().await;
        Ok(at)
    }
}

/// The `X-Hearth-Position` of a response.
pub fn position_of(headers: &HeaderMap) -> Option<i64> {
    headers.get(POSITION)?.to_str().ok()?.trim().parse().ok()
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

/// Drops the headers that concern one connection only, and any the `Connection`
/// header names.
fn strip_hop_by_hop(h: &mut HeaderMap) {
    let named: Vec<HeaderName> = h
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|n| HeaderName::from_bytes(n.trim().as_bytes()).ok())
        .collect();
    for n in named {
        h.remove(n);
    }
    for n in [
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    ] {
        h.remove(n);
    }
}

/// Appends `ip` to `X-Forwarded-For` (one header, comma-separated).
fn append_forwarded_for(h: &mut HeaderMap, ip: IpAddr) {
    let before: Vec<String> = h
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect();
    let ip = crate::config::canonical(ip);
    let value =
        if before.is_empty() { ip.to_string() } else { format!("{}, {ip}", before.join(", ")) };
    if let Ok(v) = HeaderValue::from_str(&value) {
        h.insert("x-forwarded-for", v);
    }
}

/// 503 `service_unavailable` with `Retry-After`: the primary cannot take the request.
pub fn unavailable(why: &str) -> Response {
    let message = "The primary cannot be reached; try again shortly.";
    let mut r = crate::http::json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({ "detail": message, "errors": [{ "code": "service_unavailable", "message": message }] }),
    );
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    tracing::warn!(why, "answered 503: the primary cannot be reached");
    r
}

/// 508 `loop_detected`: a request that another node already forwarded would be
/// forwarded again (two replicas that each take the other for the primary).
pub fn loop_detected(from: Option<&HeaderValue>) -> Response {
    let message = "This request was forwarded by another hearth replica and would be forwarded again: check --primary-url on the replicas.";
    tracing::warn!(
        from = from.and_then(|v| v.to_str().ok()).unwrap_or("-"),
        "forwarding loop: --primary-url names a replica"
    );
    crate::http::json_response(
        StatusCode::LOOP_DETECTED,
        &json!({ "detail": message, "errors": [{ "code": "loop_detected", "message": message }] }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primary_urls() {
        assert_eq!(parse_primary_url("http://10.0.0.1:8080/"), Ok("http://10.0.0.1:8080".into()));
        assert!(parse_primary_url("https://x:1").is_err());
        assert!(parse_primary_url("http://x:1/api").is_err());
        assert!(parse_primary_url("x:1").is_err());
        assert!(parse_primary_url("http://x:1/?a=b").is_err());
    }

    #[test]
    fn forwarded_for_is_appended_and_hop_headers_dropped() {
        let mut h = HeaderMap::new();
        append_forwarded_for(&mut h, "203.0.113.5".parse().unwrap_or(IpAddr::from([0; 4])));
        assert_eq!(h["x-forwarded-for"], "203.0.113.5");
        h.append("x-forwarded-for", HeaderValue::from_static("6.6.6.6"));
        append_forwarded_for(&mut h, "::ffff:10.0.0.2".parse().unwrap_or(IpAddr::from([0; 4])));
        assert_eq!(h["x-forwarded-for"], "203.0.113.5, 6.6.6.6, 10.0.0.2");
        h.insert("connection", HeaderValue::from_static("close, x-private"));
        h.insert("x-private", HeaderValue::from_static("1"));
        h.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        h.insert("authorization", HeaderValue::from_static("Bearer t"));
        strip_hop_by_hop(&mut h);
        assert!(h.get("connection").is_none() && h.get("x-private").is_none());
        assert!(h.get("keep-alive").is_none());
        assert_eq!(h["authorization"], "Bearer t", "end-to-end headers stay");
    }

    #[test]
    fn positions_parse() {
        let mut h = HeaderMap::new();
        assert_eq!(position_of(&h), None);
        h.insert(POSITION, HeaderValue::from_static("42"));
        assert_eq!(position_of(&h), Some(42));
        h.insert(POSITION, HeaderValue::from_static("x"));
        assert_eq!(position_of(&h), None);
    }
}

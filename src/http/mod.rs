//! HTTP plumbing only: the request context every handler receives, the router as
//! hyper's service, body limits, query parsing, pagination, bearer credentials, static
//! files. No SQL here.

pub mod auth;
pub mod body;
pub mod cors;
pub mod form;
pub mod pagination;
pub mod query;
pub mod query_params;
pub mod route;
pub mod service;
pub mod statics;

use std::net::SocketAddr;

use serde::Serialize;
use warp::http::{HeaderMap, Method, StatusCode};
use warp::reply::Response;

pub use crate::reply::{JSON, bytes_response, empty};
use crate::state::AppState;

/// The peer address of the TCP connection, put in the request extensions by the server.
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

/// What a handler knows about its request: extracted by infallible filters only, so
/// that once a path matched nothing can backtrack into another route.
pub struct Req {
    /// Shared state.
    pub state: AppState,
    /// The method.
    pub method: Method,
    /// The path as sent.
    pub path: String,
    /// The raw query string (may be empty).
    pub query: String,
    /// The request headers.
    pub headers: HeaderMap,
    /// The TCP peer.
    pub peer: Option<SocketAddr>,
    /// The body, not yet read.
    pub body: body::Body,
}

impl Req {
    /// The parsed query string: 400 ([`crate::error::ApiError::TooManyParameters`])
    /// over [`crate::config::MAX_PARAMS`] parameters, counted before decoding.
    pub fn query(&self) -> Result<query::Query, crate::error::ApiError> {
        query::Query::parse_at_most(&self.query, crate::config::MAX_PARAMS)
    }

    /// The bearer credentials of this request (not yet checked against the database).
    pub fn credentials(&self) -> auth::Credentials {
        auth::Credentials::from_headers(&self.headers, &self.state)
    }

    /// The client's address: the TCP peer, or what trusted proxies say it is (SPEC §4).
    pub fn client_addr(&self) -> std::net::IpAddr {
        client_addr(&self.state, self.peer, &self.headers)
    }

    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// `X-Forwarded-For`, named once (a name given as text is parsed at each use).
pub const X_FORWARDED_FOR: warp::http::HeaderName =
    warp::http::HeaderName::from_static("x-forwarded-for");

/// The client's address of a request ([`Req::client_addr`]).
pub fn client_addr(
    state: &AppState,
    peer: Option<SocketAddr>,
    headers: &HeaderMap,
) -> std::net::IpAddr {
    let peer = peer.map_or(std::net::IpAddr::from([0, 0, 0, 0]), |p| p.ip());
    let forwarded = headers.get_all(X_FORWARDED_FOR).into_iter().filter_map(|v| v.to_str().ok());
    state.config.client_addr(peer, forwarded)
}

impl Req {
    /// The context of `req` for its handler: its parts moved, not copied, and its body
    /// not yet read ([`body::Body::incoming`], with the server's limits).
    pub fn new(state: AppState, req: warp::http::Request<hyper::body::Incoming>) -> Req {
        let (parts, incoming) = req.into_parts();
        let peer = parts.extensions.get::<PeerAddr>().map(|p| p.0);
        let done = parts.extensions.get::<body::HeadersDone>().map(|d| d.0);
        let config = &state.config;
        let mut body = body::Body::incoming(
            incoming,
            done,
            &state.body_budget,
            config.body_timeout,
            config.min_body_rate,
        );
        if !body::declares_none(&parts.headers) {
            // whose share of the memory budget the body counts in
            body.owned_by(crate::limits::AddrKey::of(client_addr(&state, peer, &parts.headers)));
        }
        Req {
            method: parts.method,
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().unwrap_or_default().to_owned(),
            headers: parts.headers,
            peer,
            body,
            state,
        }
    }
}

/// A JSON response.
pub fn json_response<T: Serialize + ?Sized>(status: StatusCode, body: &T) -> Response {
    // most bodies fit in 4 KiB, a page of users in a few grows (to_vec starts at 128 bytes)
    let mut bytes = Vec::with_capacity(4096);
    match serde_json::to_writer(&mut bytes, body) {
        Ok(()) => bytes_response(status, JSON, bytes),
        Err(e) => crate::error::ApiError::internal(format!("serialize: {e}")).to_response(),
    }
}

/// 200 with a JSON body.
pub fn ok<T: Serialize + ?Sized>(body: &T) -> Response {
    json_response(StatusCode::OK, body)
}

/// Turns a handler's result into the response.
pub fn respond(r: Result<Response, crate::error::ApiError>) -> Response {
    r.unwrap_or_else(|e| e.to_response())
}

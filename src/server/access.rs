//! The access log and the request metrics (SPEC §7): one INFO line a request, target
//! `hearth::access`, and the counters and histograms of every answered request.
//!
//! The route is the endpoint's template (the router's [`Matched`] in the response's
//! extensions), or [`telemetry::UNMATCHED`]; the path is logged without its query
//! string (query strings may carry secrets); the client address follows SPEC §4's
//! trusted-proxy rules; the user id comes from the handler's [`Caller`] extension.
//! Strings a client chose (path, user agent) are logged as quoted strings in text and
//! as JSON strings in JSON, so they cannot forge fields of their own.

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use hyper::body::Incoming;
use warp::http::{HeaderValue, Method, Request, header};

use crate::config::Config;
use crate::http::route::{Caller, Matched};
use crate::telemetry;

/// Requests answered since the process started (what `memory` watches).
pub(super) fn answered() -> u64 {
    telemetry::tally::answered()
}

/// What is known of a request when it arrives.
pub(super) struct Access {
    id: HeaderValue,
    method: Method,
    path: String,
    client: IpAddr,
    user_agent: Option<HeaderValue>,
    began: Instant,
}

impl Access {
    /// Notes the request (its id is already chosen).
    pub(super) fn new(
        req: &Request<Incoming>,
        id: HeaderValue,
        peer: SocketAddr,
        config: &Config,
    ) -> Access {
        let forwarded = req
            .headers()
            .get_all(crate::http::X_FORWARDED_FOR)
            .into_iter()
            .filter_map(|v| v.to_str().ok());
        Access {
            id,
            method: req.method().clone(),
            path: req.uri().path().to_owned(),
            client: config.client_addr(peer.ip(), forwarded),
            user_agent: req.headers().get(header::USER_AGENT).cloned(),
            began: crate::clock::instant(),
        }
    }

    /// The client address (SPEC §4's rules), as the line logs it.
    pub(super) fn client(&self) -> IpAddr {
        self.client
    }

    /// When the request arrived.
    pub(super) fn began(&self) -> Instant {
        self.began
    }

    /// Logs and counts the answered request; answers when that was.
    pub(super) fn finish<B: hyper::body::Body>(self, resp: &warp::http::Response<B>) -> Instant {
        let now = crate::clock::instant();
        let took = now.saturating_duration_since(self.began);
        let route = resp.extensions().get::<Matched>().map_or(telemetry::UNMATCHED, |m| m.path);
        let status = resp.status().as_u16();
        telemetry::http_request(route, telemetry::method_label(self.method.as_str()), status, took);
        let user_id = resp.extensions().get::<Caller>().map(|c| c.0);
        let bytes = resp.body().size_hint().exact().or_else(|| {
            resp.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse().ok())
        });
        let line = crate::logs::access::Fields {
            request_id: self.id.to_str().unwrap_or("-"),
            method: self.method.as_str(),
            route,
            path: self.path.as_str(),
            status,
            duration_ms: telemetry::millis(took),
            client: self.client,
            user_id,
            bytes,
            user_agent: self.user_agent.as_ref().and_then(|v| v.to_str().ok()),
        };
        if !crate::logs::access::write(&line, crate::clock::wall()) {
            crate::logs::access::emit(&line);
        }
        now
    }
}

/// One connection counted in `hearth_http_connections_open` until dropped.
pub(super) struct Open(());

impl Open {
    pub(super) fn count() -> Open {
        metrics::gauge!(telemetry::HTTP_CONNECTIONS).increment(1.0);
        Open(())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        metrics::gauge!(telemetry::HTTP_CONNECTIONS).decrement(1.0);
    }
}

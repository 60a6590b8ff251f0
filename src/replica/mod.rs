//! Read replicas (SPEC §9): the layer in front of the API that every request passes.
//!
//! On the primary it only labels answers: `X-Hearth-Role: primary` and
//! `X-Hearth-Position` (the replication position after this process's last write, so
//! at least that of the write a response answers).
//!
//! On a replica (`serve --read-replica`) it decides where a request is answered:
//! - forwarded to the primary ([`forward`]): every endpoint the declaration marks as
//!   writing (`Endpoint::writes`, found with the same [`Router`] the API routes with),
//!   and everything under `/oauth/` and `/accounts/` (logins, consent, tokens);
//! - a read by a token that wrote through this replica less than 5 s ago, while the
//!   copy does not hold that write yet ([`pending`]): forwarded too (read-your-writes);
//! - every other request is answered from the local copy; when that answer is 401 to
//!   a request with an opaque bearer token (one the primary issued a moment ago), the
//!   request is asked of the primary instead, and the local 401 stands only when the
//!   primary cannot be reached (JWTs are judged locally: the secret and the revoked
//!   list are replicated data);
//! - unknown paths and wrong methods are answered locally (404, 405).
//!
//! A forwarded request carries [`forward::HOP`]; a replica that would forward a request
//! carrying it answers 508 instead, so a loop between misconfigured replicas ends at
//! once. If the primary cannot be reached, forwarded requests are answered 503
//! `service_unavailable` and reads go on from the copy.

pub mod follow;
pub mod forward;
pub mod pending;

use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::BoxFuture;
use hyper::body::Incoming;
use tower_service::Service;
use warp::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use warp::reply::Response;

use crate::http::PeerAddr;
use crate::http::route::{Found, Router};
use crate::role::{ReplicaStatus, Role};
use crate::state::AppState;

/// The header naming who answered.
pub const ROLE: HeaderName = HeaderName::from_static("x-hearth-role");

/// What every connection's service shares.
struct Shared {
    state: AppState,
    router: Router,
    /// The `GET` endpoints that write (none outside OAuth today): a read is checked
    /// against these few instead of the whole list.
    writing_gets: Router,
    client: forward::Client,
    pending: pending::Pending,
}

/// The replication layer of one server: wraps each connection's service
/// ([`Node::wrap`]) and runs the background checks until dropped.
pub struct Node {
    shared: Arc<Shared>,
    _task: Option<AbortOnDrop>,
}

impl Node {
    /// Starts the layer for `state`; `me` names this node in the hop header (its
    /// listen address). On a replica this starts [`follow::run`]; on a primary, a task
    /// that picks up the positions of writes by other processes (the CLI).
    pub fn start(state: &AppState, me: &str) -> Node {
        let client = forward::Client::new(me);
        let task = match state.role() {
            Role::Replica(status) => {
                tokio::spawn(follow::run(state.db.clone(), Arc::clone(status), client.clone()))
            }
            Role::Primary => {
                let db = state.db.clone();
                tokio::spawn(async move {
                    let mut tick = tokio::time::interval(crate::state::KEY_RELOAD);
                    loop {
                        tick.tick().await;
                        if let Err(e) = db.current_position().await {
                            tracing::debug!(error = %e, "reading the replication position failed");
                        }
                    }
                })
            }
        };
        Node {
            shared: Arc::new(Shared {
                state: state.clone(),
                router: crate::api::router().clone(),
                writing_gets: writing_gets(crate::api::router()),
                client,
                pending: pending::Pending::default(),
            }),
            _task: Some(AbortOnDrop(task)),
        }
    }

    /// `inner` (the API's service for one connection) behind this layer.
    pub fn wrap<S>(&self, inner: S) -> Layered<S> {
        Layered { inner, conn: Arc::new(Arc::clone(&self.shared)) }
    }
}

/// A connection's service behind the replication layer. `conn` is the connection's
/// own handle on the shared layer: a request's clone of it counts in this
/// connection's `Arc` alone, not in one that every core writes (issue 34).
pub struct Layered<S> {
    inner: S,
    #[expect(
        clippy::redundant_allocation,
        reason = "the outer Arc is the connection's own count (see above)"
    )]
    conn: Arc<Arc<Shared>>,
}

impl<S> Service<Request<Incoming>> for Layered<S>
where
    S: Service<Request<Incoming>, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Incoming>) -> Self::Future {
        let conn = Arc::clone(&self.conn);
        match conn.state.role() {
            Role::Primary => {
                let routed = self.inner.call(req);
                Box::pin(async move { Ok(primary(routed, &conn).await) })
            }
            Role::Replica(status) => {
                let (inner, status) = (self.inner.clone(), Arc::clone(status));
                Box::pin(async move { Ok(replica(inner, &conn, &status, req).await) })
            }
        }
    }
}

async fn primary(
    routed: impl Future<Output = Result<Response, Infallible>>,
    shared: &Shared,
) -> Response {
    let mut resp = match routed.await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let h = resp.headers_mut();
    h.insert(ROLE, HeaderValue::from_static("primary"));
    h.insert(forward::POSITION, HeaderValue::from(shared.state.db.last_position()));
    resp
}

/// `Authorization: Bearer <token>`, the token.
fn bearer(h: &HeaderMap) -> Option<String> {
    let v = h.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_owned())
}

/// Whether a replica forwards a request to `path` with `method` whatever its token.
/// `writing_gets` holds the `GET` endpoints of `router` that write.
fn always_forwarded(router: &Router, writing_gets: &Router, method: &Method, path: &str) -> bool {
    if path.starts_with("/oauth/") || path.starts_with("/accounts/") {
        return true;
    }
    let router =
        if method == Method::GET || method == Method::HEAD { writing_gets } else { router };
    matches!(router.find(method, path), Found::Endpoint(e, _) if e.writes)
}

fn labelled(mut resp: Response, role: &'static str) -> Response {
    resp.headers_mut().entry(ROLE).or_insert(HeaderValue::from_static(role));
    resp
}

/// A request without its body, to ask the primary after a local answer.
fn bodiless(req: &Request<Incoming>) -> warp::http::request::Parts {
    let mut copy = Request::new(());
    *copy.method_mut() = req.method().clone();
    *copy.uri_mut() = req.uri().clone();
    *copy.version_mut() = req.version();
    *copy.headers_mut() = req.headers().clone();
    copy.into_parts().0
}

async fn replica<S>(
    mut inner: S,
    shared: &Shared,
    status: &ReplicaStatus,
    req: Request<Incoming>,
) -> Response
where
    S: Service<Request<Incoming>, Response = Response, Error = Infallible>,
{
    let primary_url = status.primary_url.as_str();
    let peer: Option<IpAddr> = req.extensions().get::<PeerAddr>().map(|p| p.0.ip());
    let token = bearer(req.headers());
    let hop = req.headers().get(forward::HOP).cloned();
    let method = req.method().clone();

    if always_forwarded(&shared.router, &shared.writing_gets, &method, req.uri().path()) {
        if hop.is_some() {
            return labelled(forward::loop_detected(hop.as_ref()), "replica");
        }
        return match shared.client.forward(primary_url, req, peer).await {
            Ok(resp) => {
                if let (Some(t), Some(at)) = (&token, forward::position_of(resp.headers()))
                    && method != Method::GET
                    && method != Method::HEAD
                {
                    shared.pending.wrote(t, at, crate::clock::instant());
                }
                labelled(resp, "primary")
            }
            Err(e) => labelled(forward::unavailable(&e.to_string()), "replica"),
        };
    }

    // a read: by a token whose write the copy may not hold yet?
    if let (Some(t), None) = (&token, &hop)
        && let Some(want) = shared.pending.waiting(t, crate::clock::instant())
    {
        let have =
            shared.state.db.current_position().await.unwrap_or_else(|_| status.local_position());
        if have >= want {
            shared.pending.caught_up(t);
        } else if let Ok(resp) =
            shared.client.forward_bodiless(primary_url, bodiless(&req), peer).await
        {
            return labelled(resp, "primary");
        }
    }

    // only opaque tokens: a JWT is checked with the replicated secret and revocations,
    // so a replica refuses a revoked or forged one itself
    let opaque = token.as_deref().is_some_and(|t| t.split('.').count() != 3);
    let retry = (opaque && hop.is_none()).then(|| bodiless(&req));
    let mut resp = match inner.call(req).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    // nothing is written here: a 500, or a storage fault's 503, is a read of the copy
    // that failed, which is a fault of the copy, answered 503 saying so while it is
    // checked (issue 28)
    let read_failed = resp.status() == StatusCode::INTERNAL_SERVER_ERROR
        || resp.extensions().get::<crate::error::StorageFaulted>().is_some();
    if read_failed && let Some(e) = shared.state.db.copy_read_failed() {
        resp = crate::error::ApiError::from(e).to_response();
    }
    if resp.status() == StatusCode::UNAUTHORIZED
        && let Some(parts) = retry
    {
        // a token (or user) the copy does not know yet: the primary may
        match shared.client.forward_bodiless(primary_url, parts, peer).await {
            Ok(from_primary) => return labelled(from_primary, "primary"),
            Err(e) => {
                tracing::debug!(error = %e, "could not ask the primary about a token; answering from the copy")
            }
        }
    }
    labelled(resp, "replica")
}

/// Parses a duration: `5s`, `500ms`, `2m`, or a number of seconds.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let (num, unit) =
        t.find(|c: char| !c.is_ascii_digit() && c != '.').map_or((t, "s"), |i| t.split_at(i));
    let n: f64 = num.parse().map_err(|_| format!("{s:?} is not a duration (e.g. 5s, 500ms)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        _ => return Err(format!("{s:?} is not a duration (e.g. 5s, 500ms)")),
    };
    if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
        return Err(format!("{s:?} must be between 0 and 24 hours"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// A spawned task that ends when this is dropped (the replica's probe and follower).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The `GET` endpoints of `router` that write (always forwarded to the primary).
fn writing_gets(router: &Router) -> Router {
    Router::new(
        router.endpoints().filter(|e| e.method == Method::GET && e.writes).cloned().collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_requests_are_forwarded_comes_from_the_declaration() {
        let r = crate::api::router().clone();
        let gets = writing_gets(&r);
        let fwd = |m: Method, p: &str| always_forwarded(&r, &gets, &m, p);
        assert!(fwd(Method::POST, "/api/v2/course/"));
        assert!(fwd(Method::PATCH, "/api/v2/course/1/"));
        assert!(fwd(Method::DELETE, "/api/v2/course/1/"));
        assert!(!fwd(Method::GET, "/api/v2/course/1/"));
        assert!(!fwd(Method::GET, "/api/v2/user/me/"));
        assert!(!fwd(Method::HEAD, "/api/v2/user/me/"));
        assert!(fwd(Method::POST, "/oauth/token/"));
        assert!(fwd(Method::GET, "/oauth/authorize/"));
        assert!(fwd(Method::GET, "/accounts/login/"));
        // unknown paths and methods: answered locally
        assert!(!fwd(Method::POST, "/nowhere/"));
        assert!(!fwd(Method::PUT, "/api/v2/course/"));
        // every endpoint that writes is forwarded, and every GET that is not marked
        // as writing is not
        for e in r.endpoints() {
            let path = e
                .path
                .replace("{id}", "1")
                .replace("{section_id}", "1")
                .replace("{lesson_id}", "1")
                .replace("{*path}", "a.png");
            if !path.contains('{') {
                assert_eq!(
                    fwd(e.method.clone(), &path),
                    e.writes || path.starts_with("/oauth/") || path.starts_with("/accounts/"),
                    "{e:?}"
                );
            }
        }
    }

    #[test]
    fn durations() {
        use std::time::Duration;
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        for bad in ["", "s", "5h", "-1s", "1e9", "x"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bearer_tokens() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer abc"));
        assert_eq!(bearer(&h).as_deref(), Some("abc"));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("bearer  abc "));
        assert_eq!(bearer(&h).as_deref(), Some("abc"));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&h), None);
    }
}

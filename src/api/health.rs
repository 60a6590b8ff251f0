//! Health (SPEC §3): `GET /livez` (the process answers; no database, so it is also the
//! benchmark's ceiling route), `GET /healthz` (the database answers reads; `writable`
//! says whether it takes writes) and `GET /readyz` (reads and writes work and the
//! server is not shutting down: what a load balancer should route by).

use serde_json::json;
use warp::Filter;
use warp::http::{Method, StatusCode};

use crate::error::ApiError;
use crate::http::{Req, Route, json_response, method_not_allowed, no_slash, ok, request};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    healthz(state.clone())
        .or(readyz(state))
        .unify()
        .or(livez())
        .unify()
        .boxed()
}

/// `GET /livez`: 200 `{"status":"ok"}` while the process serves requests.
fn livez() -> Route {
    warp::path!("livez")
        .and(no_slash())
        .and(warp::method())
        .map(|m: Method| {
            if m != Method::GET && m != Method::HEAD {
                return method_not_allowed("GET, HEAD");
            }
            ok(&json!({ "status": "ok" }))
        })
        .boxed()
}

/// `GET /healthz`: 200 `{"status":"ok","writable":…}` when the database answers reads,
/// 503 otherwise.
fn healthz(state: AppState) -> Route {
    warp::path!("healthz")
        .and(no_slash())
        .and(request(state))
        .then(|req: Req| check(req, |reads, _writable, _stopping| reads))
        .boxed()
}

/// `GET /readyz`: 200 only when reads and writes work and the server is not shutting
/// down; 503 with `"status":"unavailable"` otherwise.
fn readyz(state: AppState) -> Route {
    warp::path!("readyz")
        .and(no_slash())
        .and(request(state))
        .then(|req: Req| {
            check(req, |reads, writable, stopping| {
                reads && writable && !stopping
            })
        })
        .boxed()
}

/// Answers a health check: `ready` says from what is known whether it is 200.
async fn check(req: Req, ready: fn(bool, bool, bool) -> bool) -> warp::reply::Response {
    if req.method != Method::GET && req.method != Method::HEAD {
        return method_not_allowed("GET, HEAD");
    }
    let (reads, writable) = probe(&req).await;
    answer(ready(reads, writable, req.state.stopping()), writable)
}

/// Whether a read works, and whether the database takes writes (re-probed while it
/// does not).
async fn probe(req: &Req) -> (bool, bool) {
    let reads = req
        .state
        .db
        .read(|c| crate::db::ping(c).map_err(ApiError::from))
        .await;
    if let Err(e) = &reads {
        tracing::error!(error = ?e, "health check: the database does not answer reads");
    }
    (reads.is_ok(), req.state.db.check_writable().await)
}

fn answer(ready: bool, writable: bool) -> warp::reply::Response {
    if ready {
        ok(&json!({ "status": "ok", "writable": writable }))
    } else {
        json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({ "status": "unavailable", "writable": writable }),
        )
    }
}

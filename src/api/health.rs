//! Health (SPEC §3): `GET /livez` (the process answers; no database, so it is also the
//! benchmark's ceiling route), `GET /healthz` (the database answers reads; `writable`
//! says whether it takes writes) and `GET /readyz` (reads and writes work and the
//! server is not shutting down: what a load balancer should route by).

use serde_json::json;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, anonymous};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{JSON, bytes_response, json_response, ok};
use crate::state::AppState;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        anonymous(Method::GET, "/livez", "getLiveness", livez),
        anonymous(Method::GET, "/healthz", "getHealth", |c| {
            check(c, |reads, _writable, _stopping| reads)
        }),
        anonymous(Method::GET, "/readyz", "getReadiness", readyz),
    ]
}

/// `GET /readyz`: on a primary, reads and writes work and the server is not stopping;
/// on a read replica (SPEC §9), reads work, the primary answers and the copy lags at
/// most `--max-lag`.
async fn readyz(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    match call.state().role() {
        crate::role::Role::Primary => {
            let state = call.state();
            let held = state.db.writes_held();
            let (reads, writable) = probe(state).await;
            let ready = reads && writable && !held && !state.stopping();
            // says why: writes wait for Litestream (SPEC §9)
            Ok(answer(ready, writable, held.then(|| ("replication", "behind".to_owned()))))
        }
        crate::role::Role::Replica(status) => {
            let state = call.state();
            let (reads, writable) = probe(state).await;
            let ready = reads && status.ready() && !state.stopping();
            Ok(answer(ready, writable, copy_fault(state)))
        }
    }
}

/// What is wrong with a read replica's copy, for a 503's body (issue 28).
fn copy_fault(state: &AppState) -> Option<(&'static str, String)> {
    state.db.copy_fault().map(|f| ("copy", f.to_string()))
}

/// `GET /livez`: 200 `{"status":"ok"}` while the process serves requests.
/// The body is a constant: nothing is built or serialized for the probe that load
/// balancers call most.
async fn livez(_call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    Ok(bytes_response(StatusCode::OK, JSON, bytes::Bytes::from_static(br#"{"status":"ok"}"#)))
}

/// `GET /healthz` (200 `{"status":"ok","writable":…}` when the database answers reads,
/// 503 otherwise) and `GET /readyz` (200 only when reads and writes work and the server
/// is not shutting down; 503 with `"status":"unavailable"` otherwise): `ready` says from
/// what is known whether it is 200. No caller is resolved: a bearer token is ignored.
async fn check(
    call: Call<Option<Principal>>,
    ready: fn(bool, bool, bool) -> bool,
) -> Result<Response, ApiError> {
    let state = call.state();
    let (reads, writable) = probe(state).await;
    Ok(answer(ready(reads, writable, state.stopping()), writable, copy_fault(state)))
}

/// Whether a read works, and whether the database takes writes (re-probed while it
/// does not).
async fn probe(state: &AppState) -> (bool, bool) {
    let reads = state.db.read(|c| crate::db::ping(c).map_err(ApiError::from)).await;
    match &reads {
        // a replica's copy that cannot be served: logged once when that began
        Err(ApiError::Unavailable(crate::error::Unavailable::Copy(_))) | Ok(()) => {}
        Err(e) => tracing::error!(error = ?e, "health check: the database does not answer reads"),
    }
    (reads.is_ok(), state.db.check_writable().await)
}

/// The answer: 200, or 503 with `why` (a field and its value) when it is known.
fn answer(ready: bool, writable: bool, why: Option<(&'static str, String)>) -> Response {
    if ready {
        ok(&json!({ "status": "ok", "writable": writable }))
    } else {
        let mut body = json!({ "status": "unavailable", "writable": writable });
        if let (Some((field, value)), Some(o)) = (why, body.as_object_mut()) {
            o.insert(field.to_owned(), json!(value));
        }
        json_response(StatusCode::SERVICE_UNAVAILABLE, &body)
    }
}

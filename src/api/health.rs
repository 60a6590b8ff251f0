//! `GET /healthz` (readiness: the database answers) and `GET /livez` (liveness: the
//! process answers; no database query, so it is also the benchmark's ceiling route).

use serde_json::json;
use warp::Filter;
use warp::http::{Method, StatusCode};

use crate::error::ApiError;
use crate::http::{Route, json_response, method_not_allowed, no_slash, ok, request, respond};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    healthz(state).or(livez()).unify().boxed()
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

/// `GET /healthz`: 200 `{"status":"ok"}` when the database answers, 503 otherwise.
fn healthz(state: AppState) -> Route {
    warp::path!("healthz")
        .and(no_slash())
        .and(request(state))
        .then(|req: crate::http::Req| async move {
            if req.method != Method::GET && req.method != Method::HEAD {
                return method_not_allowed("GET, HEAD");
            }
            let alive = req
                .state
                .db
                .read(|c| {
                    c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))
                        .map_err(ApiError::from)
                })
                .await;
            match alive {
                Ok(_) => ok(&json!({ "status": "ok" })),
                Err(e) => {
                    tracing::error!(error = ?e, "health check failed");
                    respond(Ok(json_response(
                        StatusCode::SERVICE_UNAVAILABLE,
                        &json!({ "status": "unavailable" }),
                    )))
                }
            }
        })
        .boxed()
}

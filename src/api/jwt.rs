//! `/api/v2/jwt/...`: JWT verification.

use serde_json::Value;
use warp::Filter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::error::ApiError;
use crate::http::{Req, Route, empty, method_not_allowed, request, respond, slash};
use crate::state::AppState;
use crate::token::jwt;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    verify_token(state)
}

/// `POST /api/v2/jwt/verify_token/`
fn verify_token(state: AppState) -> Route {
    warp::path!("api" / "v2" / "jwt" / "verify_token")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            match req.method {
                Method::POST => respond(verify(req).await),
                _ => method_not_allowed("POST"),
            }
        })
        .boxed()
}

/// 200 when the token is well formed, HS256, signed with the current or a grace-period
/// secret, unexpired and not revoked; 401 otherwise (both without a body). It does not
/// look at `user_id`, `ext_id` or `token_type` (SPEC §4).
async fn verify(mut req: Req) -> Result<Response, ApiError> {
    // no authentication: the body is what is checked
    req.body.public();
    let body: Value = crate::http::body::json(req.body, &req.headers).await?;
    let Some(token) = body.get("token").and_then(Value::as_str) else {
        return Err(ApiError::field(
            "token",
            "required",
            "A JSON object with a string token is required.",
        ));
    };
    let now = req.state.clock.now();
    let keys = req.state.jwt_keys();
    let payload = match jwt::verify_signature(token, &keys.accepted(now)) {
        Ok(p) => p,
        Err(_) => return Ok(empty(StatusCode::UNAUTHORIZED)),
    };
    if jwt::check_times(&payload, now.div_euclid(crate::clock::SECOND)).is_err() {
        return Ok(empty(StatusCode::UNAUTHORIZED));
    }
    if let Some(jti) = payload.get("jti").and_then(Value::as_str)
        && req.state.jti_revoked(jti, now)
    {
        return Ok(empty(StatusCode::UNAUTHORIZED));
    }
    Ok(empty(StatusCode::OK))
}

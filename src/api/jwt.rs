//! `/api/v2/jwt/...`: JWT verification.

use serde_json::Value;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, anonymous};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::empty;
use crate::http::route::Endpoint;
use crate::token::jwt;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        anonymous(Method::POST, "/api/v2/jwt/verify_token/", "jwtVerifyToken", verify)
            .read_only()
            .body_limit(VERIFY_TOKEN_LIMIT)
            .body::<VerifyToken>(),
    ]
}

/// The body of `verify_token`.
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = VerifyTokenRequest)]
struct VerifyToken {
    /// A JWT access token (at most 8 KiB). Missing or not a string: 400 required.
    token: String,
}

impl VerifyToken {
    fn parse(body: &Value) -> Result<VerifyToken, ApiError> {
        let Some(token) = body.get("token").and_then(Value::as_str) else {
            return Err(ApiError::field(
                "token",
                "required",
                "A JSON object with a string token is required.",
            ));
        };
        Ok(VerifyToken { token: token.to_owned() })
    }
}

/// Largest `verify_token` body: a JWT is at most 8 KiB (SPEC §6), so `{"token": ...}`
/// fits in twice that with room for whitespace; an anonymous client cannot reserve a
/// JSON body's megabyte of the memory budget here.
pub const VERIFY_TOKEN_LIMIT: usize = 16 * 1024;

/// `POST /api/v2/jwt/verify_token/`: 200 when the token is well formed, HS256, signed with the current or a grace-period
/// secret, unexpired and not revoked; 401 otherwise (both without a body). It does not
/// look at `user_id`, `ext_id` or `token_type` (SPEC §4).
async fn verify(mut call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    // no authentication (a bearer token is not even looked at): the body is what is
    // checked
    call.req.body.public();
    let body: Value = call.json().await?;
    let token = VerifyToken::parse(&body)?.token;
    let token = token.as_str();
    let now = call.now;
    let keys = call.state().jwt_keys();
    let payload = match jwt::verify_signature(token, &keys.accepted(now)) {
        Ok(p) => p,
        Err(_) => return Ok(empty(StatusCode::UNAUTHORIZED)),
    };
    if jwt::check_times(&payload, now.div_euclid(crate::clock::SECOND)).is_err() {
        return Ok(empty(StatusCode::UNAUTHORIZED));
    }
    if let Some(jti) = payload.get("jti").and_then(Value::as_str)
        && call.state().jti_revoked(jti, now)
    {
        return Ok(empty(StatusCode::UNAUTHORIZED));
    }
    Ok(empty(StatusCode::OK))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented body is the one read.
    #[test]
    fn every_documented_field_is_read() {
        let unread = crate::model::field::unread_properties::<VerifyToken>(|m| {
            match VerifyToken::parse(&Value::Object(m.clone())) {
                Err(ApiError::Invalid(e)) => e,
                _ => Vec::new(),
            }
        });
        assert!(unread.is_empty(), "{unread:?}");
    }
}

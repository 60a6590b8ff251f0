//! Bearer credentials (SPEC §4): `Authorization: Bearer <token>` with an opaque OAuth
//! access token or an HS256 JWT. This is the cheap part, done on the async thread:
//! parsing, the JWT's HMAC and times. The database part (is the token known, revoked,
//! its user alive) belongs to the handlers, in `api::auth`, inside the handler's own
//! database call, so an authenticated read costs one blocking hop.

use warp::http::HeaderMap;
use warp::http::header::AUTHORIZATION;

use crate::error::ApiError;
use crate::state::AppState;
use crate::token::jwt::{self, AccessClaims};

/// What the request presented.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// No bearer token.
    Anonymous,
    /// A JWT whose signature and times verified.
    Jwt(AccessClaims),
    /// An opaque token, by its storage hash.
    Opaque([u8; 32]),
    /// A bearer token that can never be valid (malformed, bad signature, expired...).
    Invalid,
}

impl Credentials {
    /// Reads and pre-checks the `Authorization` header.
    pub fn from_headers(headers: &HeaderMap, state: &AppState) -> Self {
        let Some(value) = headers.get(AUTHORIZATION) else {
            return Credentials::Anonymous;
        };
        let Ok(value) = value.to_str() else {
            return Credentials::Invalid;
        };
        let mut parts = value.trim().splitn(2, ' ');
        let scheme = parts.next().unwrap_or("");
        if !scheme.eq_ignore_ascii_case("bearer") {
            // another scheme (Basic, ...) is not a bearer token: DRF ignores it too
            return Credentials::Anonymous;
        }
        let token = parts.next().unwrap_or("").trim();
        Self::from_token(token, state)
    }

    /// Pre-checks a bearer token.
    pub fn from_token(token: &str, state: &AppState) -> Self {
        if token.is_empty() || token.len() > jwt::MAX_LEN {
            return Credentials::Invalid;
        }
        if jwt::looks_like_jwt(token) {
            let now = state.clock.now();
            let keys = state.jwt_keys();
            match jwt::verify_access(
                token,
                &keys.accepted(now),
                now.div_euclid(crate::clock::SECOND),
            ) {
                Ok(claims) => Credentials::Jwt(claims),
                Err(_) => Credentials::Invalid,
            }
        } else {
            Credentials::Opaque(crate::token::storage_hash(token))
        }
    }
}

/// An authenticated caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Principal {
    /// The user.
    pub user_id: i64,
    /// Staff flag.
    pub is_staff: bool,
    /// Whether the token has the `write` scope (JWTs always do).
    pub can_write: bool,
}

impl Principal {
    /// 403 `insufficient_scope` unless the token may write.
    pub fn require_write(self) -> Result<Principal, ApiError> {
        if self.can_write { Ok(self) } else { Err(ApiError::InsufficientScope) }
    }
}

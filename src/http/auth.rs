//! Bearer authentication (SPEC §4): `Authorization: Bearer <token>` with an opaque
//! OAuth access token or an HS256 JWT. The cheap part (parsing, the JWT's HMAC and
//! times) happens on the async thread; [`resolve`] then does the database part inside
//! the handler's own database call, so an authenticated read costs one blocking hop.

use rusqlite::Connection;
use warp::http::HeaderMap;
use warp::http::header::AUTHORIZATION;

use crate::clock::Timestamp;
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
        if self.can_write {
            Ok(self)
        } else {
            Err(ApiError::InsufficientScope)
        }
    }
}

/// Resolves credentials against the database: `Ok(None)` for an anonymous request,
/// 401 `authentication_failed` for any token that is not (or no longer) valid:
/// unknown, expired, revoked, or belonging to a deleted user.
pub fn resolve(
    conn: &Connection,
    creds: &Credentials,
    now: Timestamp,
) -> Result<Option<Principal>, ApiError> {
    match creds {
        Credentials::Anonymous => Ok(None),
        Credentials::Invalid => Err(ApiError::AuthenticationFailed),
        Credentials::Jwt(claims) => {
            if crate::db::jwt::is_revoked(conn, &claims.jti)? {
                return Err(ApiError::AuthenticationFailed);
            }
            match crate::db::users::live_staff_flag(conn, claims.user_id)? {
                Some(is_staff) => Ok(Some(Principal {
                    user_id: claims.user_id,
                    is_staff,
                    can_write: true,
                })),
                None => Err(ApiError::AuthenticationFailed),
            }
        }
        Credentials::Opaque(hash) => {
            match crate::db::tokens::access_token_owner(conn, hash, now)? {
                Some(o) => Ok(Some(Principal {
                    user_id: o.user_id,
                    is_staff: o.is_staff,
                    can_write: o.can_write,
                })),
                None => Err(ApiError::AuthenticationFailed),
            }
        }
    }
}

/// Authorises reading the body of a protected write route (SPEC §3: an anonymous or
/// bad-token request is answered 401 without reading its body). What needs no
/// database is checked here: no token, a malformed, badly signed, expired or revoked
/// JWT. An opaque token is looked up (with its scope) before a body is read, unless
/// the request has no body to read. The handler still authenticates inside its own
/// database call, as before; this only decides whether the body may be read.
pub async fn before_body(req: &mut crate::http::Req) -> Result<(), ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    match &creds {
        Credentials::Anonymous => return Err(ApiError::NotAuthenticated),
        Credentials::Invalid => return Err(ApiError::AuthenticationFailed),
        Credentials::Jwt(claims) => {
            if req.state.jti_revoked(&claims.jti, now) {
                return Err(ApiError::AuthenticationFailed);
            }
        }
        Credentials::Opaque(_) if crate::http::body::declares_none(&req.headers) => {}
        Credentials::Opaque(_) => {
            req.state
                .db
                .read(move |c| require_write(c, &creds, now))
                .await?;
        }
    }
    req.body.unlock();
    Ok(())
}

/// [`resolve`], requiring a caller (401 `not_authenticated` for anonymous requests).
pub fn require(
    conn: &Connection,
    creds: &Credentials,
    now: Timestamp,
) -> Result<Principal, ApiError> {
    resolve(conn, creds, now)?.ok_or(ApiError::NotAuthenticated)
}

/// [`require`] plus the `write` scope.
pub fn require_write(
    conn: &Connection,
    creds: &Credentials,
    now: Timestamp,
) -> Result<Principal, ApiError> {
    require(conn, creds, now)?.require_write()
}

/// For reads marked (CA) in SPEC §5: when the preference
/// `configurations.content_availability` is false, anonymous callers get 401.
pub fn resolve_ca(
    conn: &Connection,
    creds: &Credentials,
    now: Timestamp,
) -> Result<Option<Principal>, ApiError> {
    let who = resolve(conn, creds, now)?;
    if who.is_none()
        && !crate::db::prefs::get_bool(conn, "configurations", "content_availability", true)?
    {
        return Err(ApiError::NotAuthenticated);
    }
    Ok(who)
}

//! Authentication against the database (SPEC §4): the handler's half of bearer
//! authentication. [`crate::http::auth::Credentials`] were parsed and pre-checked on
//! the async thread; here they are resolved inside the handler's own database call, so
//! an authenticated read costs one blocking hop.

use rusqlite::Connection;

use crate::clock::Timestamp;
use crate::db;
use crate::error::ApiError;
use crate::http::Req;
use crate::http::auth::{Credentials, Principal};
use crate::http::body::declares_none;

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
            match db::jwt::live_unrevoked_staff_flag(conn, claims.user_id, &claims.jti)? {
                Some(is_staff) => {
                    Ok(Some(Principal { user_id: claims.user_id, is_staff, can_write: true }))
                }
                None => Err(ApiError::AuthenticationFailed),
            }
        }
        Credentials::Opaque(hash) => match db::tokens::access_token_owner(conn, hash, now)? {
            Some(o) => Ok(Some(Principal {
                user_id: o.user_id,
                is_staff: o.is_staff,
                can_write: o.can_write,
            })),
            None => Err(ApiError::AuthenticationFailed),
        },
    }
}

/// Authorises reading the body of a protected write route (SPEC §3: an anonymous or
/// bad-token request is answered 401 without reading its body). What needs no
/// database is checked here: no token, a malformed, badly signed, expired or revoked
/// JWT. An opaque token is looked up (with its scope) before a body is read, unless
/// the request has no body to read. The handler still authenticates inside its own
/// database call, as before; this only decides whether the body may be read.
pub async fn before_body(req: &mut Req) -> Result<(), ApiError> {
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
        Credentials::Opaque(_) if declares_none(&req.headers) => {}
        Credentials::Opaque(_) => {
            req.state.db.read(move |c| require_write(c, &creds, now)).await?;
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
        && !db::preferences::get_bool(conn, "configurations", "content_availability", true)?
    {
        return Err(ApiError::NotAuthenticated);
    }
    Ok(who)
}

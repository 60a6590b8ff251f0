//! The bodiless toggles (SPEC §5, §8): following a user or a category, hiding a user.
//! A POST with no body turns the caller's relation to `{id}` on, or off when it is
//! on, and answers 204; a GET asks whether the relation is on.

use rusqlite::{Connection, Transaction};
use serde_json::json;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, user};
use crate::clock::Timestamp;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, ok};

/// Runs `apply(tx, caller, id, now)` in the handler's write transaction once the body
/// is known to be empty (read now, judged after authentication: an anonymous call is
/// 401 whatever its body); 204.
pub(crate) async fn toggle<F>(mut call: Call<Principal>, apply: F) -> Result<Response, ApiError>
where
    F: FnOnce(&Transaction<'_>, i64, i64, Timestamp) -> Result<(), ApiError> + Send + 'static,
{
    call.before_body().await?;
    let (id, now) = (call.id(), call.now);
    let no_body = call.no_body().await;
    call.write(move |tx, who| {
        no_body?;
        apply(tx, who.user_id, id, now)
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// A toggle's target user: another one than the caller (`refusal` names the mistake,
/// 400 on `user`) and live (404).
pub(crate) fn other_live_user(
    tx: &Transaction<'_>,
    caller: i64,
    id: i64,
    refusal: &'static str,
) -> Result<(), ApiError> {
    if id == caller {
        return Err(ApiError::field("user", "invalid", refusal));
    }
    if !crate::db::users::is_live(tx, id)? {
        return Err(ApiError::NotFound);
    }
    Ok(())
}

/// A question about the caller and user `{id}` (`GET /api/v2/user/{id}/is_followed/`,
/// `.../connection_status/` and the like, auth): `answer(c, caller, id)`; 404 when
/// `{id}` is no live user.
pub(crate) async fn question<F>(call: Call<Principal>, answer: F) -> Result<Response, ApiError>
where
    F: Fn(&Connection, i64, i64) -> rusqlite::Result<serde_json::Value> + Send + 'static,
{
    let id = call.id();
    let json = call
        .read(move |c, who| {
            if !crate::db::users::is_live(c, id)? {
                return Err(ApiError::NotFound);
            }
            Ok(answer(c, who.user_id, id)?)
        })
        .await?;
    Ok(ok(&json))
}

/// The two questions about a relation between users, one each way, as `(path,
/// operationId)`: `towards` asks whether the caller holds it towards `{id}`, `from`
/// whether `{id}` holds it towards the caller. Each answers `{KEY: bool}`, KEY the
/// path's last segment (`is_followed`, `is_follower`...).
pub(crate) fn both_ways(
    towards: (&'static str, &'static str),
    from: (&'static str, &'static str),
    holds: fn(&Connection, i64, i64) -> rusqlite::Result<bool>,
) -> [Endpoint; 2] {
    let key = |path: &'static str| path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
    let (to_key, from_key) = (key(towards.0), key(from.0));
    [
        user(Method::GET, towards.0, towards.1, move |c| {
            question(c, move |c, caller, id| Ok(json!({ to_key: holds(c, caller, id)? })))
        }),
        user(Method::GET, from.0, from.1, move |c| {
            question(c, move |c, caller, id| Ok(json!({ from_key: holds(c, id, caller)? })))
        }),
    ]
}

//! `POST /api/v2/{discussion,post,status}/{id}/suspend/` (auth, write) and `GET
//! .../suspended/` (auth): a member stops the notifications about one item, and turns
//! them back on, from the kit's contribution menu and notification list
//! (`UserSuspendContributionNotification`). Contribution JSON's `suspended` says which
//! way it is for the caller.

use serde_json::json;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::votes::visible_item;
use crate::db::notification_offs as store;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::route::Endpoint;
use crate::model::contribution::Kind;

/// The endpoints of this module: for each kind of item, the switch and its state.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = Vec::new();
    for (kind, suspend, suspended, op, check) in [
        (
            Kind::Discussion,
            "/api/v2/discussion/{id}/suspend/",
            "/api/v2/discussion/{id}/suspended/",
            "suspendDiscussionNotifications",
            "discussionNotificationsSuspended",
        ),
        (
            Kind::Post,
            "/api/v2/post/{id}/suspend/",
            "/api/v2/post/{id}/suspended/",
            "suspendPostNotifications",
            "postNotificationsSuspended",
        ),
        (
            Kind::Status,
            "/api/v2/status/{id}/suspend/",
            "/api/v2/status/{id}/suspended/",
            "suspendStatusNotifications",
            "statusNotificationsSuspended",
        ),
    ] {
        all.push(write(Method::POST, suspend, op, move |c| toggle(kind, c)));
        all.push(user(Method::GET, suspended, check, move |c| state(kind, c)));
    }
    all
}

/// Stops the caller's notifications about the item, or turns them back on: 204 (the
/// shared bodiless toggle). Its JSON's `suspended` tells which (the kit flips its own
/// copy).
async fn toggle(kind: Kind, call: Call<Principal>) -> Result<Response, ApiError> {
    crate::api::toggle::toggle(call, move |tx, caller, id, now| {
        let m = live_item(tx, kind, id, caller)?;
        store::toggle(tx, caller, m.pk, now)?;
        Ok(())
    })
    .await
}

/// The live item `id` of `kind` the caller may see (404 otherwise).
fn live_item(
    c: &rusqlite::Connection,
    kind: Kind,
    id: i64,
    caller: i64,
) -> Result<crate::db::contributions::Meta, ApiError> {
    let m = visible_item(c, kind, id, Some(caller))?;
    if m.deleted {
        return Err(ApiError::NotFound);
    }
    Ok(m)
}

/// `{"suspended": bool}`: whether the caller stopped the item's notifications.
async fn state(kind: Kind, call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let m = live_item(c, kind, id, who.user_id)?;
            Ok::<_, ApiError>(json!({ "suspended": store::is_off(c, who.user_id, m.pk)? }))
        })
        .await?;
    Ok(ok(&json))
}

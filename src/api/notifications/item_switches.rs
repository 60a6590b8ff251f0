//! A member's switches on one item, from the kit's cards (SPEC §10 notifications):
//! - `POST /api/v2/{discussion,post,status}/{id}/suspend/` (auth, write) stops the
//!   notifications about the item, and turns them back on (`GET .../suspended/`, auth,
//!   tells which: the kit's contribution menu, `UserSuspendContributionNotification`);
//! - `POST .../follow/` (auth, write) follows the item, and stops (`FollowContribution`,
//!   the bookmark button on a card): a follower is told of new comments on it.
//!
//! Contribution JSON's `suspended`, `followed` and `follower_count` say how they stand.

use serde_json::json;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::votes::visible_item;
use crate::db::{item_follows, notification_offs};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::route::Endpoint;
use crate::model::contribution::Kind;

/// One kind's paths and operation ids: the switches, then the state of the first.
struct Paths {
    kind: Kind,
    suspend: (&'static str, &'static str),
    suspended: (&'static str, &'static str),
    follow: (&'static str, &'static str),
}

const PATHS: [Paths; 3] = [
    Paths {
        kind: Kind::Discussion,
        suspend: ("/api/v2/discussion/{id}/suspend/", "suspendDiscussionNotifications"),
        suspended: ("/api/v2/discussion/{id}/suspended/", "discussionNotificationsSuspended"),
        follow: ("/api/v2/discussion/{id}/follow/", "followDiscussion"),
    },
    Paths {
        kind: Kind::Post,
        suspend: ("/api/v2/post/{id}/suspend/", "suspendPostNotifications"),
        suspended: ("/api/v2/post/{id}/suspended/", "postNotificationsSuspended"),
        follow: ("/api/v2/post/{id}/follow/", "followPost"),
    },
    Paths {
        kind: Kind::Status,
        suspend: ("/api/v2/status/{id}/suspend/", "suspendStatusNotifications"),
        suspended: ("/api/v2/status/{id}/suspended/", "statusNotificationsSuspended"),
        follow: ("/api/v2/status/{id}/follow/", "followStatus"),
    },
];

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = Vec::new();
    for p in PATHS {
        let kind = p.kind;
        all.push(write(Method::POST, p.suspend.0, p.suspend.1, move |c| {
            toggle(kind, c, notification_offs::toggle)
        }));
        all.push(user(Method::GET, p.suspended.0, p.suspended.1, move |c| suspended(kind, c)));
        all.push(write(Method::POST, p.follow.0, p.follow.1, move |c| {
            toggle(kind, c, item_follows::toggle)
        }));
    }
    all
}

/// Flips the caller's switch `flip` on the item: 204 (the shared bodiless toggle; the
/// kit flips its own copy of the item).
async fn toggle(
    kind: Kind,
    call: Call<Principal>,
    flip: fn(&rusqlite::Connection, i64, i64, crate::clock::Timestamp) -> rusqlite::Result<bool>,
) -> Result<Response, ApiError> {
    crate::api::toggle::toggle(call, move |tx, caller, id, now| {
        let m = live_item(tx, kind, id, caller)?;
        flip(tx, caller, m.pk, now)?;
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
async fn suspended(kind: Kind, call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let m = live_item(c, kind, id, who.user_id)?;
            let off = notification_offs::is_off(c, who.user_id, m.pk)?;
            Ok::<_, ApiError>(json!({ "suspended": off }))
        })
        .await?;
    Ok(ok(&json))
}

//! What the kit asks about one member besides their profile (SPEC §10 People):
//! `GET /api/v2/user/{id}/counters/` (`SCUserCounterType`) and, for the caller,
//! `GET /api/v2/user/me/permission/` (`SCUserPermissionType`).

use serde_json::json;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca, user};
use crate::db::preferences::get_bool;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::route::Endpoint;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        ca(Method::GET, "/api/v2/user/{id}/counters/", "getUserCounters", counters),
        user(Method::GET, "/api/v2/user/me/permission/", "getCurrentUserPermission", permission),
    ]
}

/// `GET /api/v2/user/{id}/counters/` (CA): a live member's counters, each a column kept
/// exact by its writes (statuses: counted from the member's live statuses). The
/// connection requests are the member's own business: shown to themselves only (0 to
/// others).
async fn counters(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let u = crate::db::users::get(c, id)?.filter(|u| !u.deleted).ok_or(ApiError::NotFound)?;
            let (connections, sent, received) =
                crate::db::connections::counters(c, id)?.unwrap_or_default();
            let own = who.is_some_and(|w| w.user_id == id);
            let statuses: i64 = c
                .prepare_cached(
                    "SELECT count(*) FROM contribution INDEXED BY contribution_author_feed
                     WHERE author_id = ?1 AND target_pk IS NULL AND deleted = 0 AND kind = 'status'",
                )?
                .query_row([id], |r| r.get(0))?;
            Ok::<_, ApiError>(json!({
                "categories": u.categories_counter,
                "discussions": u.discussions_counter,
                "polls": u.polls_counter,
                "posts": u.posts_counter,
                "statuses": statuses,
                "followings": u.followings_counter,
                "followers": u.followers_counter,
                "connection_requests_sent_counter": if own { sent } else { 0 },
                "connection_requests_received_counter": if own { received } else { 0 },
                "connections_counter": connections,
            }))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/user/me/permission/` (auth): what the caller may do here, as hearth
/// enforces it: publishing (every member, unless `configurations.post_only_staff_enabled`
/// keeps it to staff), following (`configurations.follow_enabled`) and connections
/// (`configurations.connection_enabled`); polls, groups and locating posts are not
/// served yet (false).
async fn permission(call: Call<Principal>) -> Result<Response, ApiError> {
    let json = call
        .read(|c, who| {
            let staff = who.is_staff;
            let post = staff || !get_bool(c, "configurations", "post_only_staff_enabled", false)?;
            let connections = crate::db::connections::enabled(c)?;
            Ok::<_, ApiError>(json!({
                "create_contribute": post,
                "create_poll": false,
                "create_group": false,
                "locate_post": false,
                "create_post": post,
                "create_post_with_category": post,
                "follow_user": get_bool(c, "configurations", "follow_enabled", true)?,
                "request_connection": connections,
                "accept_connection": connections,
            }))
        })
        .await?;
    Ok(ok(&json))
}

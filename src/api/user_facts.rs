//! What the kit asks about one member besides their profile (SPEC §10 People):
//! `GET /api/v2/user/{id}/counters/` (`SCUserCounterType`) and, for the caller,
//! `GET /api/v2/user/me/permission/` (`SCUserPermissionType`).

use rusqlite::Connection;
use serde_json::json;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca, user};
use crate::db::preferences::{Bools, Latest};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::route::Endpoint;
use crate::model::user::Permission;

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

/// `GET /api/v2/user/me/permission/` (auth): [`permission_of`] the caller.
async fn permission(call: Call<Principal>) -> Result<Response, ApiError> {
    let now = call.now;
    let latest = std::sync::Arc::clone(&call.state().permission_prefs);
    let json = call
        .read(move |c, who| {
            let blocked = crate::db::user_blocks::is_blocked(c, who.user_id, now)?;
            permission_of(c, who, blocked, &latest)
        })
        .await?;
    Ok(ok(&json))
}

/// What `who` may do, as the writes enforce it (each flag is the rule of the write it
/// names; tests/api/community/permission.rs holds each flag to its write): publishing
/// (every member, unless `configurations.post_only_staff_enabled` keeps it to staff),
/// polls (`addons.polls_enabled`, staff always), groups and events (when on, unless
/// their `*_only_staff_enabled` keeps them to staff), courses (the same),
/// following and connections; live streams and locating posts are not served (false).
/// A member staff `blocked` may do none of them (`Call::write` refuses their writes).
/// The preferences are read in one statement, and kept in the server's state while
/// their version stays (`db::preferences::Latest`; `GET /user/me/` shows it too).
pub fn permission_of(
    c: &Connection,
    who: Principal,
    blocked: bool,
    latest: &Latest<9>,
) -> Result<Permission, ApiError> {
    if blocked {
        return Ok(Permission::NONE);
    }
    static PREFERENCES: Bools<9> = Bools::new([
        ("configurations", "post_only_staff_enabled", false),
        ("addons", "polls_enabled", false),
        ("configurations", "groups_enabled", false),
        ("configurations", "groups_only_staff_enabled", false),
        ("configurations", "events_enabled", false),
        ("configurations", "events_only_staff_enabled", false),
        ("configurations", "courses_only_staff_enabled", false),
        ("configurations", "follow_enabled", true),
        ("configurations", "connection_enabled", false),
    ]);
    let [
        post_only_staff,
        polls,
        groups,
        groups_only_staff,
        events,
        events_only_staff,
        courses_only_staff,
        follow,
        connections,
    ] = PREFERENCES.read_latest(c, latest)?;
    let staff = who.is_staff;
    let post = staff || !post_only_staff;
    Ok(Permission {
        create_contribute: post,
        create_poll: post && (staff || polls),
        create_group: groups && (staff || !groups_only_staff),
        create_event: events && (staff || !events_only_staff),
        create_course: staff || !courses_only_staff,
        create_live_stream: false,
        locate_post: false,
        create_post: post,
        create_post_with_category: post,
        follow_user: follow,
        request_connection: connections,
        accept_connection: connections,
    })
}

//! A group's membership (the course members' statuses and machinery, `db::members`
//! with `Roster::Group`, and `api::members`): subscribe, leave, remove, status,
//! invitations, requests, member lists, and the users an admin may invite. Each
//! change that concerns someone else notifies them (`db::notifications`' group types).

use rusqlite::Connection;
use serde_json::json;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::{enabled, managed_group, visible_group};
use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::members::{Removal, UserPrefix, admins, pre_write, users_page};
use crate::clock::Timestamp;
use crate::db::groups::is_member;
use crate::db::members::{self, Roster};
use crate::db::notifications::{Type, forget_group, notify_group};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, ok};
use crate::model::group::{GroupPrivacy, JoinStatus, SubscriptionStatus};

/// What the shared invitation handlers (`api::members`) need of groups.
static INVITATIONS: crate::api::members::Invitations = crate::api::members::Invitations {
    roster: Roster::Group,
    seen: |c, id, who| visible_group(c, id, Some(who)).map(|_| ()),
    managed: |c, id, who| managed_group(c, id, who).map(|_| ()),
    invited: Type::GroupInvite,
    added: Type::GroupAdded,
    requested: Type::GroupRequest,
    notify: crate::db::notifications::notify_group,
    forget: crate::db::notifications::forget_group,
};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    const SUBSCRIBE: &str = "/api/v2/group/{id}/subscribe/";
    const INVITE: &str = "/api/v2/group/{id}/invite/";
    vec![
        ca(Method::GET, SUBSCRIBE, "listGroupMembers", list_members).paged(),
        write(Method::POST, SUBSCRIBE, "subscribeToGroup", subscribe),
        write(Method::DELETE, SUBSCRIBE, "unsubscribeFromGroup", |c| {
            crate::api::members::leave(&INVITATIONS, c)
        })
        .query::<Removal>(),
        ca(Method::GET, "/api/v2/group/{id}/status/", "getGroupSubscriptionStatus", status),
        user(Method::GET, INVITE, "listGroupInvitedUsers", |c| {
            crate::api::members::managed_list(&INVITATIONS, c, JoinStatus::Invited)
        })
        .paged(),
        write(Method::POST, INVITE, "inviteOrAcceptGroupUsers", |c| {
            crate::api::members::invite_users(&INVITATIONS, c)
        })
        .body::<crate::api::members::UserIds>(),
        user(Method::GET, "/api/v2/group/{id}/request_subscribe/", "listGroupRequests", |c| {
            crate::api::members::managed_list(&INVITATIONS, c, JoinStatus::Requested)
        })
        .paged(),
        user(Method::GET, "/api/v2/group/{id}/user/", "suggestGroupUsers", |c| suggest(c, true))
            .list::<UserPrefix>(),
        user(Method::GET, "/api/v2/group/user/", "suggestNewGroupUsers", |c| suggest(c, false))
            .list::<UserPrefix>(),
    ]
}

/// Notifies the creator and admins of group `id` (the actor excepted) of `kind`.
fn notify_admins(
    tx: &Connection,
    id: i64,
    actor: i64,
    kind: Type,
    now: Timestamp,
) -> Result<(), ApiError> {
    for admin in admins(tx, Roster::Group, id)? {
        notify_group(tx, admin, actor, kind, id, now)?;
    }
    Ok(())
}

/// `POST /api/v2/group/{id}/subscribe/`: a public group → subscribed; a private one →
/// requested (its admins are notified); an invited user joins (its admins are
/// notified); a member or a requester keeps their status. 204.
async fn subscribe(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    call.no_body().await?;
    call.write(move |tx, who| {
        let (g, status) = visible_group(tx, id, Some(who))?;
        let (next, tell) = match (status, g.privacy) {
            (Some(JoinStatus::Invited), _) => (JoinStatus::Joined, Some(Type::GroupAccept)),
            (Some(_), _) => return Ok(()),
            (None, GroupPrivacy::Public) => (JoinStatus::Joined, None),
            (None, GroupPrivacy::Private) => (JoinStatus::Requested, Some(Type::GroupRequest)),
        };
        members::set(tx, Roster::Group, id, who.user_id, next, now)?;
        if status == Some(JoinStatus::Invited) {
            forget_group(tx, id, Type::GroupInvite, Some(who.user_id), None)?;
        }
        if let Some(kind) = tell {
            notify_admins(tx, id, who.user_id, kind, now)?;
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/group/{id}/status/` (CA) → `{"status": subscription status or null}`.
async fn status(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let (_, status) = visible_group(c, id, who)?;
            Ok::<_, ApiError>(json!({ "status": status.map(SubscriptionStatus::of) }))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/group/{id}/subscribe/` (CA): the members (creator, admins, subscribed),
/// in the order they came: everyone who sees a public group, the members of a
/// private one (403 for others).
async fn list_members(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let (g, status) = visible_group(c, id, who)?;
        if g.privacy == GroupPrivacy::Private && !is_member(status) {
            return Err(ApiError::PermissionDenied);
        }
        let (page, viewer) = (Page::from_query(q)?, who.map(|w| w.user_id));
        users_page(c, Roster::Group, id, &JoinStatus::MEMBERS, page, viewer, &base)
    })
    .await
}

/// `GET /api/v2/group/{id}/user/?search=` (anyone who sees the group: the kit's
/// GroupInviteButton asks on every group page) and `GET /api/v2/group/user/?search=`
/// (a group being made): live users whose username starts with `search`, by
/// username, without the caller; for a member of the group, also without its members,
/// invited users and requesters (what a member may know: others get the plain list,
/// which says nothing of a private group's members).
async fn suggest(call: Call<Principal>, of_group: bool) -> Result<Response, ApiError> {
    let (id, base) = (of_group.then(|| call.id()), call.base());
    list_page(&call, move |c, who, q| {
        enabled(c)?;
        let mut id = id;
        if let Some(g) = id {
            let (_, status) = visible_group(c, g, Some(who))?;
            if !is_member(status) {
                id = None;
            }
        }
        crate::api::members::suggestions(c, Roster::Group, id, who, q, &base)
    })
    .await
}

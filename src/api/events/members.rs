//! An event's membership (the course and group statuses and machinery, `db::members`
//! with `Roster::Event`, and `api::members`) and each member's answer: subscribe,
//! leave, remove, going and not going, status, invitations (made, listed, withdrawn),
//! requests, member lists, and the users an admin may invite. Each change that
//! concerns someone else notifies them (`db::notifications`' event types).

use rusqlite::Connection;
use serde_json::json;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::{enabled, managed_event, visible_event};
use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::members::{
    Removal, UserIds, UserPrefix, admins, pre_write, required_users, users_page,
};
use crate::clock::Timestamp;
use crate::db::events::{self as db, shows_members};
use crate::db::members::{self, Roster};
use crate::db::notifications::{Type, forget_event, notify_event};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, ok};
use crate::model::event::{EventPrivacy, EventStatus, JoinStatus};

/// What the shared invitation handlers (`api::members`) need of events.
static INVITATIONS: crate::api::members::Invitations = crate::api::members::Invitations {
    roster: Roster::Event,
    seen: |c, id, who| visible_event(c, id, Some(who)).map(|_| ()),
    managed: |c, id, who| managed_event(c, id, who).map(|_| ()),
    invited: Type::EventInvite,
    added: Type::EventAdded,
    requested: Type::EventRequest,
    notify: crate::db::notifications::notify_event,
    forget: crate::db::notifications::forget_event,
};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    const SUBSCRIBE: &str = "/api/v2/event/{id}/subscribe/";
    const GOING: &str = "/api/v2/event/{id}/going/";
    const NOT_GOING: &str = "/api/v2/event/{id}/not_going/";
    const INVITE: &str = "/api/v2/event/{id}/invite/";
    vec![
        ca(Method::GET, SUBSCRIBE, "listEventMembers", list_members).paged(),
        write(Method::POST, SUBSCRIBE, "subscribeToEvent", subscribe),
        write(Method::DELETE, SUBSCRIBE, "unsubscribeFromEvent", |c| {
            crate::api::members::leave(&INVITATIONS, c)
        })
        .query::<Removal>(),
        ca(Method::GET, GOING, "listEventGoing", |c| list_answered(c, true)).paged(),
        write(Method::POST, GOING, "goToEvent", |c| answer(c, Some(true))),
        write(Method::DELETE, GOING, "removeGoingToEvent", |c| take_back(c, true)),
        ca(Method::GET, NOT_GOING, "listEventNotGoing", |c| list_answered(c, false)).paged(),
        write(Method::POST, NOT_GOING, "notGoingToEvent", |c| answer(c, Some(false))),
        write(Method::DELETE, NOT_GOING, "removeNotGoingToEvent", |c| take_back(c, false)),
        ca(Method::GET, "/api/v2/event/{id}/status/", "getEventSubscriptionStatus", status),
        user(Method::GET, INVITE, "listEventInvitedUsers", |c| {
            crate::api::members::managed_list(&INVITATIONS, c, JoinStatus::Invited)
        })
        .paged(),
        write(Method::POST, INVITE, "inviteOrAcceptEventUsers", |c| {
            crate::api::members::invite_users(&INVITATIONS, c)
        })
        .body::<UserIds>(),
        write(Method::DELETE, INVITE, "withdrawEventInvitations", withdraw).body::<UserIds>(),
        user(Method::GET, "/api/v2/event/{id}/request_subscribe/", "listEventRequests", |c| {
            crate::api::members::managed_list(&INVITATIONS, c, JoinStatus::Requested)
        })
        .paged(),
        user(Method::GET, "/api/v2/event/{id}/user/", "suggestEventUsers", |c| suggest(c, true))
            .list::<UserPrefix>(),
        user(Method::GET, "/api/v2/event/user/", "suggestNewEventUsers", |c| suggest(c, false))
            .list::<UserPrefix>(),
    ]
}

/// Notifies the creator and admins of event `id` (the actor excepted) of `kind`.
fn notify_admins(
    tx: &Connection,
    id: i64,
    actor: i64,
    kind: Type,
    now: Timestamp,
) -> Result<(), ApiError> {
    for admin in admins(tx, Roster::Event, id)? {
        notify_event(tx, admin, actor, kind, id, now)?;
    }
    Ok(())
}

/// The caller joins event `id` as far as its status and the event's privacy allow:
/// an invited user joins (the invitation answered; its admins notified); on a public
/// event, anyone joins; on a private one, a stranger asks (its admins notified).
/// Members and requesters keep their status. Returns the status after.
fn join(tx: &Connection, id: i64, who: Principal, now: Timestamp) -> Result<JoinStatus, ApiError> {
    let (e, status) = visible_event(tx, id, Some(who))?;
    let (next, tell) = match (status.map(|s| s.0), e.privacy) {
        (Some(JoinStatus::Invited), _) => (JoinStatus::Joined, Type::EventAccept),
        (Some(s), _) => return Ok(s),
        (None, EventPrivacy::Public) => {
            members::set(tx, Roster::Event, id, who.user_id, JoinStatus::Joined, now)?;
            return Ok(JoinStatus::Joined);
        }
        (None, EventPrivacy::Private) => (JoinStatus::Requested, Type::EventRequest),
    };
    members::set(tx, Roster::Event, id, who.user_id, next, now)?;
    if next == JoinStatus::Joined {
        forget_event(tx, id, Type::EventInvite, Some(who.user_id), None)?;
    }
    notify_admins(tx, id, who.user_id, tell, now)?;
    Ok(next)
}

/// `POST /api/v2/event/{id}/subscribe/`: a public event → subscribed; a private one →
/// requested; an invited user joins; a member or a requester keeps their status. 204.
async fn subscribe(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    call.no_body().await?;
    call.write(move |tx, who| join(tx, id, who, now).map(|_| ())).await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `POST going/` and `POST not_going/`: the caller's answer. A member answers; an
/// invited user joins and answers; on a public event anyone joins and answers; on a
/// private one a stranger or a requester may not (403: ask with `subscribe/`). 204.
async fn answer(mut call: Call<Principal>, going: Option<bool>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    call.no_body().await?;
    call.write(move |tx, who| {
        let (e, status) = visible_event(tx, id, Some(who))?;
        let may = db::is_member(status)
            || status.map(|s| s.0) == Some(JoinStatus::Invited)
            || (status.is_none() && e.privacy == EventPrivacy::Public);
        if !may {
            return Err(ApiError::PermissionDenied);
        }
        join(tx, id, who, now)?;
        db::answer(tx, id, who.user_id, going)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `DELETE going/` and `DELETE not_going/`: takes back that answer (a member stays a
/// member, without an answer); anything else changes nothing. 204.
async fn take_back(mut call: Call<Principal>, going: bool) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let id = call.id();
    call.no_body().await?;
    call.write(move |tx, who| {
        let (_, status) = visible_event(tx, id, Some(who))?;
        if status.and_then(|s| s.1) == Some(going) {
            db::answer(tx, id, who.user_id, None)?;
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/event/{id}/status/` (CA) → `{"status": subscription status or null}`.
async fn status(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let (_, status) = visible_event(c, id, who)?;
            Ok::<_, ApiError>(json!({ "status": status.map(|(s, g)| EventStatus::of(s, g)) }))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/event/{id}/subscribe/` (CA): the members (creator, admins, subscribed),
/// in the order they came: everyone who sees a public event, the members of a
/// private one (403 for others).
async fn list_members(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let (e, status) = visible_event(c, id, who)?;
        if !shows_members(&e, status) {
            return Err(ApiError::PermissionDenied);
        }
        let (page, viewer) = (Page::from_query(q)?, who.map(|w| w.user_id));
        users_page(c, Roster::Event, id, &JoinStatus::MEMBERS, page, viewer, &base)
    })
    .await
}

/// `GET going/` and `GET not_going/` (CA): the members who gave that answer, in the
/// order they came; who may see them as [`list_members`].
async fn list_answered(call: Call<Option<Principal>>, going: bool) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let (e, status) = visible_event(c, id, who)?;
        if !shows_members(&e, status) {
            return Err(ApiError::PermissionDenied);
        }
        let page = Page::from_query(q)?;
        let (count, users) = db::answered(c, id, going, page.limit, page.offset)?;
        let viewer = who.map(|w| w.user_id);
        Ok((page, count, crate::api::people::users_json(c, users, viewer, &base)?))
    })
    .await
}

/// `DELETE /api/v2/event/{id}/invite/` `{"users": [ids]}` (creator and admins):
/// withdraws the invitations of those invited (others keep their status; their
/// invitation notifications go). 204.
async fn withdraw(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let id = call.id();
    let body = call.object().await?;
    let (UserIds { users }, errors) = UserIds::parse(&body);
    drop(body);
    call.write(move |tx, who| {
        managed_event(tx, id, who)?;
        let users = required_users(tx, users, errors, "users")?;
        let before = members::statuses(tx, Roster::Event, id, &users)?;
        members::withdraw(tx, Roster::Event, id, &users)?;
        for u in users {
            if before.get(&u) == Some(&JoinStatus::Invited) {
                forget_event(tx, id, Type::EventInvite, Some(u), None)?;
            }
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/event/{id}/user/?search=` (anyone who sees the event) and
/// `GET /api/v2/event/user/?search=` (an event being made): live users whose username
/// starts with `search`, by username, without the caller; for a member of the event,
/// also without its members, invited users and requesters (others get the plain
/// list, which says nothing of a private event's members).
async fn suggest(call: Call<Principal>, of_event: bool) -> Result<Response, ApiError> {
    let (id, base) = (of_event.then(|| call.id()), call.base());
    list_page(&call, move |c, who, q| {
        enabled(c)?;
        let mut id = id;
        if let Some(e) = id {
            let (_, status) = visible_event(c, e, Some(who))?;
            if !db::is_member(status) {
                id = None;
            }
        }
        crate::api::members::suggestions(c, Roster::Event, id, who, q, &base)
    })
    .await
}

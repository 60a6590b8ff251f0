//! Connections (friendship, SPEC §10 People; `db::connections`): requests and their
//! answers, the lists, the statuses the kit's friendship buttons read. The actions are
//! refused (403) while `configurations.connection_enabled` is off; the reads answer
//! what there is.

use rusqlite::{Connection, Transaction};
use serde_json::{Map, Value, json};
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::people::{Relations, users_json};
use crate::api::toggle::{other_live_user, question};
use crate::clock::{Timestamp, rfc3339};
use crate::db::connections::{self, Outcome, Refused, Requests};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::PublicUrl;
use crate::model::connection::{Request, RequestJson, StatusJson};

/// An action on the pair (caller, `{id}`), in the caller's write transaction.
type Action = fn(&Transaction<'_>, i64, i64, Timestamp) -> Outcome;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let actions: [(&'static str, &'static str, Action); 6] = [
        ("/api/v2/user/{id}/connection/request/", "userRequestConnection", |tx, me, id, now| {
            connections::request(tx, me, id, now)
        }),
        (
            "/api/v2/user/{id}/connection/accept/",
            "userAcceptRequestConnection",
            |tx, me, id, now| connections::accept(tx, me, id, now),
        ),
        (
            "/api/v2/user/{id}/connection/reject/",
            "userRejectConnectionRequest",
            |tx, me, id, now| connections::set_rejected(tx, me, id, true, now),
        ),
        (
            "/api/v2/user/{id}/connection/cancel_reject/",
            "userCancelRejectConnectionRequest",
            |tx, me, id, now| connections::set_rejected(tx, me, id, false, now),
        ),
        (
            "/api/v2/user/{id}/connection/cancel_request/",
            "userCancelRequestConnection",
            |tx, me, id, _| connections::cancel_request(tx, me, id),
        ),
        ("/api/v2/user/{id}/connection/remove/", "userRemoveConnection", |tx, me, id, _| {
            connections::remove(tx, me, id)
        }),
    ];
    let mut all: Vec<Endpoint> = actions
        .into_iter()
        .map(|(path, op, action)| write(Method::POST, path, op, move |c| act(c, action)))
        .collect();
    all.extend([
        write(
            Method::POST,
            "/api/v2/user/{id}/connection_requests/mark_seen/",
            "userMarkSeenConnectionRequest",
            |c| act(c, |tx, me, id, now| connections::mark_seen(tx, me, id, now)),
        ),
        user(
            Method::GET,
            "/api/v2/user/{id}/connection_status/",
            "checkUserConnectionStatus",
            |c| {
                question(c, |c, me, id| {
                    Ok(json!(StatusJson::from(connections::status(c, me, id)?)))
                })
            },
        ),
        user(Method::GET, "/api/v2/user/{id}/is_connection/", "checkUserConnection", |c| {
            question(c, |c, me, id| {
                Ok(json!({ "is_connection": connections::is_connected(c, me, id)? }))
            })
        }),
        ca(Method::GET, "/api/v2/user/{id}/connections/", "getUserConnections", list_connections)
            .paged(),
        user(Method::GET, "/api/v2/user/connection/requests/", "getUserConnectionRequests", |c| {
            list_requests(c, Requests::Received)
        })
        .paged(),
        user(
            Method::GET,
            "/api/v2/user/connection/requests_sent/",
            "getUserRequestConnectionsSent",
            |c| list_requests(c, Requests::Sent),
        )
        .paged(),
        write(
            Method::POST,
            "/api/v2/user/connection/statuses/",
            "getUserConnectionStatuses",
            statuses,
        )
        .body::<UserIds>(),
    ]);
    all
}

/// A connection action (auth, write, no body): refused while connections are off
/// (403), for the caller itself (400) or a user who is not live (404), and where the
/// pair is not in a state it applies to (400 on `user`; 403 for a user who hides the
/// caller). Answers the caller's status towards `{id}` afterwards.
async fn act(mut call: Call<Principal>, action: Action) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now) = (call.id(), call.now);
    let no_body = call.no_body().await;
    let status = call
        .write(move |tx, who| {
            no_body?;
            if !connections::enabled(tx)? {
                return Err(ApiError::PermissionDenied);
            }
            other_live_user(tx, who.user_id, id, "You cannot connect with yourself.")?;
            match action(tx, who.user_id, id, now)? {
                Ok(status) => Ok(status),
                Err(Refused::Hidden) => Err(ApiError::PermissionDenied),
                Err(why) => Err(ApiError::field("user", "invalid", why.message())),
            }
        })
        .await?;
    Ok(ok(&StatusJson::from(status)))
}

/// `GET /api/v2/user/{id}/connections/` (CA): `{id}`'s connections, newest first.
async fn list_connections(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let (count, _, _) = connections::counters(c, id)?.ok_or(ApiError::NotFound)?;
        let users = connections::page(c, id, page.limit, page.offset)?;
        let results = users_json(c, users, who.map(|p| p.user_id), &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/user/connection/requests/` and `.../requests_sent/` (auth): the
/// caller's requests, newest first: received and not rejected, or sent (whose
/// `rejected` is always null: a sender is not told).
async fn list_requests(call: Call<Principal>, which: Requests) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let (_, sent, received) =
            connections::counters(c, who.user_id)?.ok_or(ApiError::AuthenticationFailed)?;
        let count = match which {
            Requests::Received => received,
            Requests::Sent => sent,
        };
        let rows = connections::requests(c, who.user_id, which, page.limit, page.offset)?;
        let relations = Relations::load(c)?;
        let mut results = Vec::with_capacity(rows.len());
        for r in rows {
            results.push(request_json(c, &r, who.user_id, which, relations, &base)?);
        }
        Ok((page, count, results))
    })
    .await
}

/// One request's JSON as `viewer` (one of its two users) sees it.
fn request_json(
    c: &Connection,
    r: &Request,
    viewer: i64,
    which: Requests,
    relations: Relations,
    base: &PublicUrl,
) -> Result<RequestJson, ApiError> {
    let user = |id: i64| -> Result<_, ApiError> {
        let u = crate::db::users::get(c, id)?.ok_or(ApiError::NotFound)?;
        let status = relations.of(c, Some(viewer), id)?;
        let tags = crate::db::users::tags(c, id)?;
        Ok(u.to_json(base, status, tags))
    };
    Ok(RequestJson {
        id: r.id,
        from_user: user(r.from_user)?,
        to_user: user(r.to_user)?,
        created: rfc3339(r.created_at),
        rejected: r.rejected_at.filter(|_| which == Requests::Received).map(rfc3339),
        viewed: r.viewed_at.map(rfc3339),
    })
}

/// `POST /api/v2/user/connection/statuses/` (auth, write scope, though it only reads:
/// every POST of the API needs it): `{"users": [ids]}`, a list of at most
/// [`crate::model::ids::MAX_ITEMS`] ids (SPEC §3), answers `{"connection_statuses":
/// {"id": status}}` for each (null where there is none, which the kit caches too).
async fn statuses(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    // a bad body is refused once the caller is known (401 before 400); `read` may run
    // its closure twice, so the refusal is taken out of a cell
    let (users, refusal) = match call.object().await.and_then(|b| UserIds::parse(&b)) {
        Ok(UserIds { users }) => (users, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let refusal = std::sync::Mutex::new(refusal);
    let json = call
        .read(move |c, who| {
            if let Some(e) = refusal.lock().ok().and_then(|mut r| r.take()) {
                return Err(e);
            }
            let mut out = Map::new();
            for &id in &users {
                let status = connections::status(c, who.user_id, id)?;
                out.insert(id.to_string(), json!(status.map(|s| s.as_str())));
            }
            Ok::<_, ApiError>(json!({ "connection_statuses": out }))
        })
        .await?;
    Ok(ok(&json))
}

/// The body of a `statuses/` request (`UserIdList`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = UserIdList, description = "The users to answer for; any other key is 400.")]
struct UserIds {
    /// Required: at most 1000 user ids (integers or numeric strings; 400 max_length
    /// beyond, invalid on another item); each is answered once.
    #[schema(max_items = 1000)]
    users: Vec<i64>,
}

impl UserIds {
    /// The `users` list of a `statuses/` body (nothing else may be in it).
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        if let Some(e) = crate::model::field::FieldError::first_unknown(body, &["users"]) {
            return Err(ApiError::Invalid(vec![e]));
        }
        let Some(Value::Array(items)) = body.get("users") else {
            return Err(ApiError::field("users", "required", "A list of user ids is required."));
        };
        crate::model::ids::from_values(items)
            .map(|users| UserIds { users: crate::model::ids::dedup(users) })
            .map_err(|e| ApiError::Invalid(vec![e.on("users", "Each item must be a user id.")]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_each};

    #[test]
    fn every_documented_field_is_read() {
        let unread = unread_properties_each::<UserIds>(|m| invalid_fields(UserIds::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
    }
}

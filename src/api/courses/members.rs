//! Course membership: join, leave, status, invitations, requests, roles, member lists.

use rusqlite::Connection;
use serde_json::Value;
use warp::Filter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::{course_json, managed_course, member_statuses, visible_course};
use crate::api::auth;
use crate::db::course_members as members;
use crate::error::ApiError;
use crate::http::pagination::{Page, envelope};
use crate::http::{Req, Route, empty, method_not_allowed, ok, request, respond, slash};
use crate::model::course::MemberJson;
use crate::model::field::FieldError;
use crate::model::ids::{self, ListError};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    join(state.clone())
        .or(status(state.clone()))
        .unify()
        .or(invite(state.clone()))
        .unify()
        .or(request_join(state.clone()))
        .unify()
        .or(role(state))
        .unify()
        .boxed()
}

/// `GET|POST|DELETE /api/v2/course/{id}/join/`
fn join(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "join")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list(id, req, None).await),
                Method::POST => respond(join_course(id, req).await),
                Method::DELETE => respond(leave(id, req).await),
                _ => method_not_allowed("GET, HEAD, POST, DELETE"),
            }
        })
        .boxed()
}

/// `GET /api/v2/course/{id}/status/`
fn status(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "status")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(get_status(id, req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// `GET|POST|DELETE /api/v2/course/{id}/invite/` (GET, the invited users, is not in
/// SPEC: the SDK's `getCourseInvitedUsers` calls it)
fn invite(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "invite")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list(id, req, Some("invited")).await),
                Method::POST => respond(invite_users(id, req, true).await),
                Method::DELETE => respond(invite_users(id, req, false).await),
                _ => method_not_allowed("GET, HEAD, POST, DELETE"),
            }
        })
        .boxed()
}

/// `GET /api/v2/course/{id}/request_join/`
fn request_join(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "request_join")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list(id, req, Some("requested")).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// `POST /api/v2/course/{id}/role/`
fn role(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "role")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::POST => respond(set_roles(id, req).await),
                _ => method_not_allowed("POST"),
            }
        })
        .boxed()
}

/// 401/403 (scope) before anything about the body.
async fn pre_write(req: &mut Req) -> Result<(), ApiError> {
    let now = req.state.clock.now();
    let creds = req.credentials();
    let who = req
        .state
        .db
        .read(move |c| auth::require_write(c, &creds, now))
        .await?;
    req.body.authorised(&who);
    Ok(())
}

/// `POST /api/v2/course/{id}/join/`: open → joined; private → requested (an invited
/// user joins); secret → joined for an invited user (others do not see it: 404).
/// Members and managers keep their status. 200 with the course.
async fn join_course(id: i64, mut req: Req) -> Result<Response, ApiError> {
    pre_write(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    crate::http::body::none(req.body, &req.headers).await?;
    let json = req
        .state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            let (course, status) = visible_course(tx, id, Some(who))?;
            let next = match (status.as_deref(), course.privacy.as_str()) {
                (Some("creator" | "manager" | "joined"), _) => None,
                (Some("invited"), _) => Some("joined"),
                (_, "open") => Some("joined"),
                (Some("requested"), _) => None,
                (None, "private") => Some("requested"),
                // a draft or a secret course the caller manages or was invited to is
                // handled above; anything else is invisible and already 404
                _ => return Err(ApiError::NotFound),
            };
            let status = match next {
                Some(s) => {
                    members::set(tx, id, who.user_id, s, now)?;
                    Some(s.to_owned())
                }
                None => status,
            };
            course_json(tx, &course, Some(who.user_id), status, &base)
        })
        .await?;
    Ok(ok(&json))
}

/// `DELETE /api/v2/course/{id}/join/`: leave, withdraw a request or decline an
/// invitation; 204 (also when the caller had no status). The creator cannot leave.
async fn leave(id: i64, mut req: Req) -> Result<Response, ApiError> {
    pre_write(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    crate::http::body::none(req.body, &req.headers).await?;
    req.state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            let (_, status) = visible_course(tx, id, Some(who))?;
            if status.as_deref() == Some("creator") {
                return Err(ApiError::PermissionDenied);
            }
            members::remove(tx, id, who.user_id)?;
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/course/{id}/status/` (CA) → `{"status": join_status or null}`.
async fn get_status(id: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            let (_, status) = visible_course(c, id, who)?;
            Ok::<_, ApiError>(serde_json::json!({ "status": status }))
        })
        .await?;
    Ok(ok(&json))
}

/// The member list (`join/`, `statuses` filter), or the users of one fixed status
/// (`request_join/`: requested; `invite/`: invited): creator and managers only.
async fn list(id: i64, req: Req, fixed: Option<&'static str>) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let q = req.query();
    let page_base = base.at(&req.path);
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::require(c, &creds, now)?;
            managed_course(c, id, who)?;
            let statuses = if let Some(f) = fixed {
                vec![f]
            } else {
                member_statuses(&q)?
            };
            let page = Page::from_query(&q)?;
            let (count, rows) = members::list(c, id, &statuses, page.limit, page.offset)?;
            let results: Vec<MemberJson> = rows
                .into_iter()
                .map(|(u, s)| MemberJson {
                    user: u.minimal(&base),
                    join_status: s,
                })
                .collect();
            Ok::<_, ApiError>(envelope(&page_base, &q, page, count, results))
        })
        .await?;
    Ok(ok(&json))
}

/// A list of user ids in a body field (a lone id counts as a list of one), read before
/// the write transaction: absent → None; more than [`ids::MAX_ITEMS`] → `max_length`;
/// repeats collapse. Whether the users exist is the transaction's question.
fn user_list(
    body: &serde_json::Map<String, Value>,
    field: &'static str,
    errors: &mut Vec<FieldError>,
) -> Option<Vec<i64>> {
    let parsed = match body.get(field)? {
        Value::Array(items) => ids::from_values(items),
        v @ (Value::Number(_) | Value::String(_)) => ids::id_value(v)
            .map(|id| vec![id])
            .ok_or(ListError::NotAnId),
        _ => {
            errors.push(FieldError::new(
                field,
                "invalid",
                "Expected a list of user ids.",
            ));
            return None;
        }
    };
    match parsed {
        Ok(list) => Some(ids::dedup(list)),
        Err(ListError::TooMany) => {
            errors.push(ids::too_many(field));
            None
        }
        Err(ListError::NotAnId) => {
            errors.push(FieldError::new(
                field,
                "invalid",
                "Each user must be an integer id (a number or a numeric string).",
            ));
            None
        }
    }
}

/// The error on `field` when `users` names one that is not a live user (one query).
fn missing_user(
    c: &Connection,
    users: &[i64],
    field: &'static str,
) -> Result<Option<FieldError>, ApiError> {
    Ok(members::first_non_user(c, users)?.map(|bad| {
        FieldError::new(
            field,
            "invalid",
            format!("Invalid pk \"{bad}\" - object does not exist."),
        )
    }))
}

/// `POST /api/v2/course/{id}/invite/` (invite; accept requests) and `DELETE` (withdraw
/// invitations) with `{"users": [ids]}`. 204.
async fn invite_users(id: i64, mut req: Req, add: bool) -> Result<Response, ApiError> {
    pre_write(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let body = read_object(req.body, &req.headers).await?;
    let mut errors = Vec::new();
    let users = user_list(&body, "users", &mut errors);
    drop(body);
    req.state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            managed_course(tx, id, who)?;
            let users = match users {
                Some(u) if !u.is_empty() => u,
                Some(_) if errors.is_empty() => {
                    return Err(ApiError::field(
                        "users",
                        "required",
                        "Give at least one user id.",
                    ));
                }
                None if errors.is_empty() => {
                    return Err(ApiError::Invalid(vec![FieldError::required("users")]));
                }
                _ => return Err(ApiError::Invalid(errors)),
            };
            if let Some(e) = missing_user(tx, &users, "users")? {
                return Err(ApiError::Invalid(vec![e]));
            }
            let statuses = members::statuses(tx, id, &users)?;
            for u in users {
                match (add, statuses.get(&u).map(String::as_str)) {
                    (true, None) => members::set(tx, id, u, "invited", now)?,
                    (true, Some("requested")) => members::set(tx, id, u, "joined", now)?,
                    (false, Some("invited")) => members::remove(tx, id, u)?,
                    // inviting a member, or withdrawing what is not an invitation,
                    // changes nothing
                    _ => {}
                }
            }
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// The lists of a role body and the status each gives (None: leave the course).
const ROLES: [(&str, Option<&str>); 3] = [
    ("managers", Some("manager")),
    ("joined", Some("joined")),
    ("unjoined", None),
];

/// `POST /api/v2/course/{id}/role/` `{"managers": [ids], "joined": [ids], "unjoined":
/// [ids]}`: members become managers, plain members, or leave. 204.
async fn set_roles(id: i64, mut req: Req) -> Result<Response, ApiError> {
    pre_write(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let body = read_object(req.body, &req.headers).await?;
    let mut errors = Vec::new();
    let lists: Vec<(&'static str, Option<&'static str>, Vec<i64>)> = ROLES
        .into_iter()
        .filter_map(|(field, to)| user_list(&body, field, &mut errors).map(|u| (field, to, u)))
        .collect();
    drop(body);
    req.state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            managed_course(tx, id, who)?;
            let mut errors = errors;
            let mut changes: Vec<(i64, Option<&'static str>)> = Vec::new();
            let any = lists.iter().any(|(_, _, users)| !users.is_empty());
            for (field, to, users) in &lists {
                if let Some(e) = missing_user(tx, users, field)? {
                    errors.push(e);
                    continue;
                }
                let statuses = members::statuses(tx, id, users)?;
                for u in users {
                    match statuses.get(u).map(String::as_str) {
                        Some("creator") => {
                            errors.push(FieldError::new(
                                *field,
                                "invalid",
                                "The creator's status cannot change.",
                            ));
                            break;
                        }
                        Some("manager" | "joined") => changes.push((*u, *to)),
                        _ => {
                            errors.push(FieldError::new(
                                *field,
                                "invalid",
                                format!("User {u} is not a member of this course."),
                            ));
                            break;
                        }
                    }
                }
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            if !any {
                return Err(ApiError::field(
                    "non_field_errors",
                    "required",
                    "Give at least one user in managers, joined or unjoined.",
                ));
            }
            for (u, to) in changes {
                match to {
                    Some(s) => members::set(tx, id, u, s, now)?,
                    None => members::remove(tx, id, u)?,
                }
            }
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

async fn read_object(
    body: crate::http::body::Body,
    headers: &warp::http::HeaderMap,
) -> Result<serde_json::Map<String, Value>, ApiError> {
    match crate::http::body::json::<Value>(body, headers).await? {
        Value::Object(m) => Ok(m),
        _ => Err(ApiError::ParseError("expected a JSON object".into())),
    }
}

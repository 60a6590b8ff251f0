//! Membership bodies and checks that courses and groups share (SPEC §5 "Courses",
//! §10 "Groups"): the auth-before-body step of their writes, the user lists a body
//! names, and the check that those users exist. The statuses themselves are
//! [`crate::db::members`].

use rusqlite::Connection;
use serde_json::Value;

use crate::api::call::Call;
use crate::db::members::{self, Roster};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::model::course::JoinStatus;
use crate::model::field::FieldError;
use crate::model::ids::{self, ListError};

/// 401/403 (scope) before anything about the body.
pub async fn pre_write(call: &mut Call<Principal>) -> Result<(), ApiError> {
    let who = call.read(|_, who| Ok(who)).await?;
    call.req.body.authorised(&who);
    Ok(())
}

/// A list of user ids in a body field (a lone id counts as a list of one), read before
/// the write transaction: absent → None; more than [`ids::MAX_ITEMS`] → `max_length`;
/// repeats collapse. Whether the users exist is the transaction's question.
pub fn user_list(
    body: &serde_json::Map<String, Value>,
    field: &'static str,
    errors: &mut Vec<FieldError>,
) -> Option<Vec<i64>> {
    let parsed = match body.get(field)? {
        Value::Array(items) => ids::from_values(items),
        v @ (Value::Number(_) | Value::String(_)) => {
            ids::id_value(v).map(|id| vec![id]).ok_or(ListError::NotAnId)
        }
        _ => {
            errors.push(FieldError::new(field, "invalid", "Expected a list of user ids."));
            return None;
        }
    };
    let not_an_id = "Each user must be an integer id (a number or a numeric string).";
    parsed.map(ids::dedup).map_err(|e| errors.push(e.on(field, not_an_id))).ok()
}

/// The error on `field` when `users` names one that is not a live user (one query).
pub fn missing_user(
    c: &Connection,
    users: &[i64],
    field: &'static str,
) -> Result<Option<FieldError>, ApiError> {
    Ok(members::first_non_user(c, users)?.map(|bad| {
        FieldError::new(field, "invalid", format!("Invalid pk \"{bad}\" - object does not exist."))
    }))
}

/// The users of a required, non-empty list field read by [`user_list`] (with the
/// errors found reading it), each a live user: else 400.
pub fn required_users(
    c: &Connection,
    users: Option<Vec<i64>>,
    errors: Vec<FieldError>,
    field: &'static str,
) -> Result<Vec<i64>, ApiError> {
    let users = match users {
        Some(u) if !u.is_empty() => u,
        Some(_) if errors.is_empty() => {
            return Err(ApiError::field(field, "required", "Give at least one user id."));
        }
        None if errors.is_empty() => {
            return Err(ApiError::Invalid(vec![FieldError::required(field)]));
        }
        _ => return Err(ApiError::Invalid(errors)),
    };
    if let Some(e) = missing_user(c, &users, field)? {
        return Err(ApiError::Invalid(vec![e]));
    }
    Ok(users)
}

/// The `?user=N` of a `DELETE subscribe/` (an admin removing N): absent → None; not an
/// integer → 400 on `user`.
pub fn target_user(call: &Call<Principal>) -> Result<Option<i64>, ApiError> {
    match call.query()?.get("user") {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| ApiError::field("user", "invalid", "A valid integer is required.")),
    }
}

/// The creator and admins of `of`'s `id` (at most 100), whom its requests and
/// acceptances notify.
pub fn admins(c: &Connection, of: Roster, id: i64) -> Result<Vec<i64>, ApiError> {
    let statuses = [JoinStatus::Creator, JoinStatus::Manager];
    let (_, admins) = members::list(c, of, id, &statuses, 100, 0)?;
    Ok(admins.into_iter().map(|(u, _)| u.id).collect())
}

/// One page of the users of `of`'s `id` whose status is in `statuses`, as User Minimal
/// (the member, invited and requester lists).
pub fn users_page(
    c: &Connection,
    of: Roster,
    id: i64,
    statuses: &[JoinStatus],
    page: crate::http::pagination::Page,
    base: &crate::model::PublicUrl,
) -> Result<(crate::http::pagination::Page, i64, Vec<crate::model::user::UserMinimal>), ApiError> {
    let (count, rows) = members::list(c, of, id, statuses, page.limit, page.offset)?;
    Ok((page, count, rows.into_iter().map(|(u, _)| u.minimal(base)).collect()))
}

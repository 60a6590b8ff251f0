//! Membership bodies and checks that courses and groups share (SPEC §5 "Courses",
//! §10 "Groups"): the auth-before-body step of their writes, the user lists a body
//! names, and the check that those users exist; and for the areas with invitations
//! (groups, events: [`Invitations`]) the invitation handlers themselves. The statuses
//! are [`crate::db::members`].

use rusqlite::Connection;
use serde_json::Value;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::api::call::Call;
use crate::api::listing::list_page;
use crate::clock::Timestamp;
use crate::db::members::{self, Roster};
use crate::db::notifications::Type;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::empty;
use crate::http::pagination::Page;
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

/// The body of an invitation write, `{"users": [ids]}` (`POST`/`DELETE …/invite/` of
/// groups and events), read before the write transaction with [`user_list`]; its schema
/// is those writes' documented request body (`UserIds`).
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(as = UserIds, description = "The users an invitation write names. Unknown fields are ignored.")]
pub struct UserIds {
    /// User ids (integers or numeric strings; a lone id counts as a list of one, repeats
    /// collapse), at least one (400 required on users when absent or empty); an id that
    /// is no live user is 400 invalid. At most 1000 items (400 max_length).
    #[schema(nullable = false, required = true, max_items = 1000)]
    pub users: Option<Vec<i64>>,
}

impl UserIds {
    /// Reads `users` as [`user_list`] does: the list (None when absent) and its errors;
    /// [`required_users`] then needs it non-empty and each a live user.
    pub fn parse(body: &serde_json::Map<String, Value>) -> (Self, Vec<FieldError>) {
        let mut errors = Vec::new();
        let users = user_list(body, "users", &mut errors);
        (UserIds { users }, errors)
    }
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

crate::query_params! {
    /// Whom a `DELETE .../subscribe/` removes.
    pub struct Removal {
        /// The user to remove (the creator and admins); absent: the caller leaves. Not an
        /// integer (empty included): 400.
        #[param(value_type = Option<i64>)]
        user: Option<String>,
    }
}

/// One page of the users `who` may invite to `of`'s `id` ([`UserPrefix`]'s `search`):
/// live users whose username starts with it, by username, without the caller and,
/// with `id`, without anyone with a status there (`None`: a plain list of users, for a
/// caller who may not know the members).
pub fn suggestions(
    c: &Connection,
    of: Roster,
    id: Option<i64>,
    who: Principal,
    q: &crate::http::query::Query,
    base: &crate::model::PublicUrl,
) -> Result<(Page, i64, Vec<crate::model::user::UserJson>), ApiError> {
    let page = Page::from_query(q)?;
    let prefix = UserPrefix::read(q)?.search.unwrap_or_default().trim().to_owned();
    let (count, users) =
        members::suggested_users(c, of, id, who.user_id, &prefix, page.limit, page.offset)?;
    let results = crate::api::people::users_json(c, users, Some(who.user_id), base)?;
    Ok((page, count, results))
}

crate::query_params! {
    /// The users a group's or an event's member may invite.
    pub struct UserPrefix {
        /// The start of a username, case-insensitively (empty: every user).
        search: Option<String>,
    }
}

/// The `?user=N` of a `DELETE subscribe/` (an admin removing N): absent → None; not an
/// integer → 400 on `user`.
pub fn target_user(call: &Call<Principal>) -> Result<Option<i64>, ApiError> {
    match Removal::read(&call.query()?)?.user.as_deref() {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| ApiError::field("user", "invalid", "A valid integer is required.")),
    }
}

/// Whether the caller may make an item in the group or event `id` (body field
/// `field`), from what looking it up as the caller gave: its status there when the
/// caller sees it (`is_member` says whether that is a member's), 404 when not; any
/// other error is passed on. Not a member: the field error on `field`.
pub fn member_of<S>(
    seen: Result<S, ApiError>,
    is_member: impl FnOnce(S) -> bool,
    field: &str,
    id: i64,
) -> Result<Result<(), FieldError>, ApiError> {
    let member = match seen {
        Ok(status) => is_member(status),
        Err(ApiError::NotFound) => false,
        Err(e) => return Err(e),
    };
    Ok(if member {
        Ok(())
    } else {
        Err(FieldError::new(
            field,
            "invalid",
            format!("No {field} with id {id} of which you are a member."),
        ))
    })
}

/// The creator and admins of `of`'s `id` (at most 100), whom its requests and
/// acceptances notify.
pub fn admins(c: &Connection, of: Roster, id: i64) -> Result<Vec<i64>, ApiError> {
    let statuses = [JoinStatus::Creator, JoinStatus::Manager];
    let (_, admins) = members::list(c, of, id, &statuses, 100, 0)?;
    Ok(admins.into_iter().map(|(u, _)| u.id).collect())
}

/// One page of the users of `of`'s `id` whose status is in `statuses` (the member,
/// invited and requester lists of groups and events), as User JSON for `viewer`: the
/// kit's user cards there read a member's `description` or `followers_counter`.
pub fn users_page(
    c: &Connection,
    of: Roster,
    id: i64,
    statuses: &[JoinStatus],
    page: crate::http::pagination::Page,
    viewer: Option<i64>,
    base: &crate::model::PublicUrl,
) -> Result<(crate::http::pagination::Page, i64, Vec<crate::model::user::UserJson>), ApiError> {
    let (count, rows) = members::list(c, of, id, statuses, page.limit, page.offset)?;
    let users = rows.into_iter().map(|(u, _)| u).collect();
    Ok((page, count, super::people::users_json(c, users, viewer, base)?))
}

/// What an area with invitations and requests (groups, events) plugs into the shared
/// handlers below: its roster, who manages an item, and its notification types.
pub struct Invitations {
    pub roster: Roster,
    /// 404 unless `who` may see item `id` (and the area is on).
    pub seen: fn(&Connection, i64, Principal) -> Result<(), ApiError>,
    /// 403 unless `who` manages item `id` (404 when it may not see it).
    pub managed: fn(&Connection, i64, Principal) -> Result<(), ApiError>,
    /// The types of an invitation, of a requester accepted, and of a request.
    pub invited: Type,
    pub added: Type,
    pub requested: Type,
    /// Notifies `user` that `actor` did `kind` about item `id`.
    pub notify: Notify,
    /// Takes out the notifications of `kind` about item `id` (to a recipient, by an
    /// actor).
    pub forget: Forget,
}

/// `(conn, user, actor, kind, id, now)`: `db::notifications::notify_group` and its
/// event twin.
pub type Notify = fn(&Connection, i64, i64, Type, i64, Timestamp) -> rusqlite::Result<()>;
/// `(conn, id, kind, recipient, actor)`: `db::notifications::forget_group` and its
/// event twin.
pub type Forget = fn(&Connection, i64, Type, Option<i64>, Option<i64>) -> rusqlite::Result<()>;

/// `GET …/invite/` (invited users) and `GET …/request_subscribe/` (requesters): for
/// the item's creator and admins only.
pub async fn managed_list(
    area: &'static Invitations,
    call: Call<Principal>,
    fixed: JoinStatus,
) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        (area.managed)(c, id, who)?;
        users_page(c, area.roster, id, &[fixed], Page::from_query(q)?, Some(who.user_id), &base)
    })
    .await
}

/// `POST …/invite/` `{"users": [ids]}` (creator and admins): invites users with no
/// status (notified: the area's `invited` type) and accepts requesters (notified:
/// `added`, their request's notification taken out); members keep their status. 204.
pub async fn invite_users(
    area: &'static Invitations,
    mut call: Call<Principal>,
) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    let body = call.object().await?;
    let (UserIds { users }, errors) = UserIds::parse(&body);
    drop(body);
    call.write(move |tx, who| {
        (area.managed)(tx, id, who)?;
        let users = required_users(tx, users, errors, "users")?;
        for (u, s) in members::invite(tx, area.roster, id, &users, now)? {
            let kind = if s == JoinStatus::Invited { area.invited } else { area.added };
            if kind == area.added {
                (area.forget)(tx, id, area.requested, None, Some(u))?;
            }
            (area.notify)(tx, u, who.user_id, kind, id, now)?;
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `DELETE …/subscribe/`: leave (or withdraw a request, or decline an invitation); the
/// creator cannot leave (403). With `?user=N`, an admin removes user N (a member, an
/// invited user or a requester; the creator never: 400). An invitation or a request
/// that ends takes its notification along. 204.
pub async fn leave(
    area: &'static Invitations,
    mut call: Call<Principal>,
) -> Result<Response, ApiError> {
    pre_write(&mut call).await?;
    let id = call.id();
    let target = target_user(&call)?;
    call.no_body().await?;
    call.write(move |tx, who| {
        match target {
            Some(u) if u != who.user_id => (area.managed)(tx, id, who)?,
            _ => (area.seen)(tx, id, who)?,
        }
        let user = target.unwrap_or(who.user_id);
        match members::status(tx, area.roster, id, user)? {
            Some(JoinStatus::Creator) if user != who.user_id => {
                return Err(ApiError::field("user", "invalid", "The creator cannot be removed."));
            }
            Some(JoinStatus::Creator) => return Err(ApiError::PermissionDenied),
            Some(JoinStatus::Invited) => (area.forget)(tx, id, area.invited, Some(user), None)?,
            Some(JoinStatus::Requested) => (area.forget)(tx, id, area.requested, None, Some(user))?,
            _ => {}
        }
        members::remove(tx, area.roster, id, user)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// An item with members (a group, an event) as its community's switches judge it:
/// `area` names it ("group", "event") and its preferences
/// (`configurations.{area}s_private_enabled`, `_visibility_enabled`).
pub struct Switched {
    pub area: &'static str,
    /// The item before the change (`is_new`: there is none yet).
    pub is_new: bool,
    pub private: bool,
    pub visible: bool,
}

impl Switched {
    /// The rules of the community's switches, added to `errors`: a private item or a
    /// hidden one only where the community has them, and a private item never made
    /// public again (`wants_private`, `wants_visible`: what the body asks).
    pub fn check(
        &self,
        c: &Connection,
        wants_private: Option<bool>,
        wants_visible: Option<bool>,
        errors: &mut Vec<FieldError>,
    ) -> Result<(), ApiError> {
        let on = |switch: &str| {
            crate::db::preferences::get_bool(
                c,
                "configurations",
                &format!("{}s_{switch}_enabled", self.area),
                false,
            )
        };
        let area = self.area;
        match wants_private {
            Some(true) if !self.private && !on("private")? => errors.push(FieldError::new(
                "privacy",
                "invalid_choice",
                format!(
                    "Private {area}s are off in this community (configurations.{area}s_private_enabled)."
                ),
            )),
            Some(false) if !self.is_new && self.private => errors.push(FieldError::new(
                "privacy",
                "invalid",
                format!("A private {area} cannot become public."),
            )),
            _ => {}
        }
        if wants_visible == Some(false) && self.visible && !on("visibility")? {
            errors.push(FieldError::new(
                "visible",
                "invalid",
                format!(
                    "Hidden {area}s are off in this community (configurations.{area}s_visibility_enabled)."
                ),
            ));
        }
        Ok(())
    }
}

/// 404 unless the community has `area` on (`configurations.{area}s_enabled`: every
/// route of a group or an event is 404 while it is off).
pub fn area_on(c: &Connection, area: &str) -> Result<(), ApiError> {
    let key = format!("{area}s_enabled");
    if crate::db::preferences::get_bool(c, "configurations", &key, false)? {
        Ok(())
    } else {
        Err(ApiError::NotFound)
    }
}

/// 403 unless `who` may create items of `area` (`configurations.{area}s_only_staff_enabled`
/// keeps it to staff).
pub fn may_create(c: &Connection, area: &str, who: Principal) -> Result<(), ApiError> {
    let only_staff = crate::db::preferences::get_bool(
        c,
        "configurations",
        &format!("{area}s_only_staff_enabled"),
        false,
    )?;
    if only_staff && !who.is_staff { Err(ApiError::PermissionDenied) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented body is the one the parser reads.
    #[test]
    fn every_documented_field_of_user_ids_is_read() {
        let unread = crate::model::field::unread_properties::<UserIds>(|m| UserIds::parse(m).1);
        assert!(unread.is_empty(), "{unread:?}");
    }
}

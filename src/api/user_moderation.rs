//! `/api/v2/moderation/user/...` (SPEC §10 People: suspension of users): staff block a
//! member for some days or until they lift it, and list the members blocked. What a
//! blocked member may still do is decided where every write passes
//! (`api::call::BLOCKED_MAY`); `/user/me/` tells the member (`status: "b"`).

use rusqlite::Connection;
use serde_json::{Map, Value, json};
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, staff, user};
use crate::api::listing::list_page;
use crate::clock::{SECOND, rfc3339};
use crate::db::user_blocks::{self, Block, MAX_DAYS, until};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::PublicUrl;
use crate::model::field::FieldError;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/moderation/user/", "usersForModeration", blocked)
            .list::<BlockKind>(),
        staff(Method::PATCH, "/api/v2/moderation/user/{id}/", "moderateUser", moderate)
            .body_limit(1024)
            .query::<BlockLength>()
            .body::<UserStatus>(),
    ]
}

/// `SCUserModerationType`: the member's User JSON with the block's start, length in
/// days (null: until lifted) and end.
fn moderation_json(
    c: &Connection,
    b: Option<Block>,
    id: i64,
    base: &PublicUrl,
) -> Result<Value, ApiError> {
    let u = crate::db::users::get(c, id)?.ok_or(ApiError::NotFound)?;
    let mut j = serde_json::to_value(u.to_json(base, None, crate::db::users::tags(c, id)?))
        .map_err(ApiError::internal)?;
    let days = b.and_then(|b| b.until.map(|until| (until - b.blocked_at) / (86_400 * SECOND)));
    j["blocked_at"] = json!(b.map(|b| rfc3339(b.blocked_at)));
    j["days_blocked"] = json!(days);
    j["expire_at"] = json!(b.and_then(|b| b.until).map(rfc3339));
    Ok(j)
}

crate::query_params! {
    /// Which blocks the list of blocked members keeps.
    struct BlockKind {
        /// days: the blocks with an end; forever: those until lifted (empty or absent:
        /// both). Another word is 400 `invalid_choice`.
        #[param(schema_with = block_kinds)]
        days_blocked: Option<String>,
    }
}

fn block_kinds() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["days", "forever"])
}

/// The list's `days_blocked`: `Some(true)` for the blocks until lifted, `Some(false)`
/// for those with an end, `None` for both.
fn block_kind(v: Option<&str>) -> Result<Option<bool>, ApiError> {
    match v {
        None | Some("") => Ok(None),
        Some("forever") => Ok(Some(true)),
        Some("days") => Ok(Some(false)),
        Some(_) => Err(ApiError::field(
            "days_blocked",
            "invalid_choice",
            "days_blocked is \"days\" or \"forever\".",
        )),
    }
}

crate::query_params! {
    /// How long a block lasts.
    struct BlockLength {
        /// The length in days of the block that `{"status": "b"}` sets, 1 to 3650 (empty,
        /// absent or `forever`: until lifted); anything else is 400 `invalid`, also when
        /// lifting.
        days_blocked: Option<String>,
    }
}

/// `GET /api/v2/moderation/user/` (staff; `?days_blocked=days|forever`): the members
/// blocked now or before (a block that ended stays listed until lifted), the most
/// recently blocked first, as `SCUserModerationType`. An index walk.
async fn blocked(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        if !who.is_staff {
            return Err(ApiError::PermissionDenied);
        }
        let page = Page::from_query(q)?;
        let forever = block_kind(BlockKind::read(q)?.days_blocked.as_deref())?;
        let count = user_blocks::count(c, forever, crate::http::pagination::MAX_OFFSET)?;
        let mut results = Vec::new();
        for b in user_blocks::list(c, forever, page.limit, page.offset)? {
            results.push(moderation_json(c, Some(b), b.user_id, &base)?);
        }
        Ok((page, count, results))
    })
    .await
}

/// The body of a member's moderation (`UserModeration`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = UserModeration,
    description = "Block or unblock the member (for how long: the days_blocked parameter). Any other key is 400."
)]
struct UserStatus {
    /// `status` (described by [`status_field`]): true for "b".
    #[schema(rename = "status", schema_with = status_field, required = true)]
    block: bool,
}

/// `status`: "a" or "b".
fn status_field() -> utoipa::openapi::schema::Object {
    let mut o = crate::model::field::one_of(&["a", "b"]);
    o.description = Some(
        "Required: \"b\" blocks (not staff, not oneself: 400), \"a\" (approved) lifts a block; \
         400 invalid_choice otherwise."
            .into(),
    );
    o
}

impl UserStatus {
    /// The keys the body may hold (refused by the handler before the query is read).
    const FIELDS: &[&str] = &["status"];

    /// `status`: 400 required when missing or no string, invalid_choice on another.
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let block = match body.get("status").and_then(Value::as_str) {
            Some("b") => true,
            Some("a") => false,
            None => return Err(ApiError::field("status", "required", "This field is required.")),
            Some(_) => {
                return Err(ApiError::field(
                    "status",
                    "invalid_choice",
                    "status is \"a\" (approved) or \"b\" (blocked).",
                ));
            }
        };
        Ok(UserStatus { block })
    }
}

/// `PATCH /api/v2/moderation/user/{id}/?days_blocked=N` (staff): `{"status": "b"}`
/// blocks the member for N days (1 to [`MAX_DAYS`]; without it, until lifted),
/// replacing a block in force; `{"status": "a"}` lifts it. Staff members and oneself
/// cannot be blocked (400 on `status`: take staff away first). 200 with the member's
/// `SCUserModerationType`.
async fn moderate(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    let body = body?;
    if let Some(e) = FieldError::first_unknown(&body, UserStatus::FIELDS) {
        return Err(ApiError::Invalid(vec![e]));
    }
    let days = match BlockLength::read(&call.query()?)?.days_blocked.as_deref() {
        None | Some("" | "forever") => None,
        Some(d) => {
            Some(d.parse::<i64>().ok().filter(|d| (1..=MAX_DAYS).contains(d)).ok_or_else(|| {
                ApiError::field(
                    "days_blocked",
                    "invalid",
                    format!("days_blocked is a number of days from 1 to {MAX_DAYS}."),
                )
            })?)
        }
    };
    let UserStatus { block } = UserStatus::parse(&body)?;
    let (id, now, base) = (call.id(), call.now, call.base());
    if block && id == who.user_id {
        return Err(ApiError::field("status", "invalid", "You cannot block yourself."));
    }
    let until = until(now, days);
    let j = call
        .write(move |tx, _| {
            let target = crate::db::users::get(tx, id)?.ok_or(ApiError::NotFound)?;
            if block && target.is_staff {
                return Err(ApiError::field(
                    "status",
                    "invalid",
                    "Staff members cannot be blocked: take staff away first.",
                ));
            }
            let found = if block {
                user_blocks::block(tx, id, now, until)?
            } else {
                user_blocks::lift(tx, id)?
            };
            if !found {
                return Err(ApiError::NotFound);
            }
            moderation_json(tx, user_blocks::of(tx, id)?, id, &base)
        })
        .await?;
    Ok(ok(&j))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first fault only (the unknown keys are refused by the handler before).
    #[test]
    fn every_documented_field_is_read() {
        use crate::model::field::{invalid_fields, unread_properties_each};
        let unread = unread_properties_each::<UserStatus>(|m| invalid_fields(UserStatus::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
        for s in ["a", "b"] {
            let body = serde_json::json!({ "status": s });
            assert!(body.as_object().is_some_and(|b| UserStatus::parse(b).is_ok()), "{s}");
        }
    }

    /// The documented choices are the ones the list takes.
    #[test]
    fn every_documented_block_kind_parses() {
        assert_eq!(block_kind(Some("days")).ok(), Some(Some(false)));
        assert_eq!(block_kind(Some("forever")).ok(), Some(Some(true)));
        assert!(block_kind(Some("always")).is_err());
        let doc = serde_json::to_value(block_kinds()).unwrap_or_default();
        assert_eq!(doc["enum"], serde_json::json!(["days", "forever"]));
    }
}

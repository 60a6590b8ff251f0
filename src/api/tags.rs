//! `/api/v2/tag/...` and `/api/v2/user/tag/tags_to_address_a_contribution/` (SPEC §10
//! People, "Tags (user tags, addressing)"): staff create, edit and assign user tags
//! (every `/tag/` route is staff-only, as the platform's "all endpoints require admin
//! role"); a member's profile shows their visible tags; discussions and posts may be
//! addressed to the tags their author may address with.

use rusqlite::Connection;
use serde_json::{Map, Value};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, staff, user};
use crate::api::listing::list_page;
use crate::db::tags::{self as store, Filter};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{json_response, ok};
use crate::model::contribution::Kind;
use crate::model::field::FieldError;
use crate::model::tag::{Tag, TagAssign, TagInput};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/tag/", "listTags", list).list::<TagFilters>(),
        staff(Method::POST, "/api/v2/tag/", "createTag", create)
            .body_limit(4096)
            .body::<TagInput>(),
        user(Method::GET, "/api/v2/tag/user/search/", "searchUserTags", list).list::<TagFilters>(),
        user(Method::GET, "/api/v2/tag/{id}/", "getTag", get),
        staff(Method::PATCH, "/api/v2/tag/{id}/", "patchTag", |c| update(c, false))
            .body_limit(4096)
            .body::<TagInput>(),
        staff(Method::PUT, "/api/v2/tag/{id}/", "updateTag", |c| update(c, true))
            .body_limit(4096)
            .body::<TagInput>(),
        staff(Method::POST, "/api/v2/tag/{id}/assign/", "assignTag", assign)
            .body_limit(1024)
            .body::<TagAssign>(),
        user(
            Method::GET,
            "/api/v2/user/tag/tags_to_address_a_contribution/",
            "userTagsToAddressContribution",
            addressable,
        ),
    ]
}

fn staff_only(who: &Principal) -> Result<(), ApiError> {
    if who.is_staff { Ok(()) } else { Err(ApiError::PermissionDenied) }
}

crate::query_params! {
    /// The filters of the tag list (booleans: true, false, 1 or 0 in any case, else 400).
    struct TagFilters {
        /// A part of the name (ASCII letters case-insensitively).
        search: Option<String>,
        /// Only the active (true) or inactive (false) tags.
        active: Option<bool>,
        /// Only the deleted (true) or live (false) tags.
        deleted: Option<bool>,
        /// Only the tags members see (true) or do not see (false) on the profiles of those
        /// who hold them.
        visible: Option<bool>,
        /// Only the tags with (true) or without (false) a visibility boost (kept as staff
        /// set it; hearth ranks nothing by it).
        visibility_boost: Option<bool>,
    }
}

/// `GET /api/v2/tag/` and `/tag/user/search/` (staff): tags by id; `search` (a part
/// of the name), `active`, `deleted`, `visible`, `visibility_boost` narrow the list.
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    list_page(&call, |c, who, q| {
        staff_only(&who)?;
        let page = Page::from_query(q)?;
        let p = TagFilters::read(q)?;
        let f = Filter {
            search: p.search.filter(|s| !s.is_empty()),
            active: p.active,
            deleted: p.deleted,
            visible: p.visible,
            visibility_boost: p.visibility_boost,
        };
        let (count, tags) = store::page(c, &f, page.limit, page.offset)?;
        Ok((page, count, tags.iter().map(Tag::to_json).collect()))
    })
    .await
}

/// `GET /api/v2/tag/{id}/` (staff): one tag, deleted ones included.
async fn get(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            staff_only(&who)?;
            Ok::<_, ApiError>(store::get(c, id)?.ok_or(ApiError::NotFound)?.to_json())
        })
        .await?;
    Ok(ok(&json))
}

fn name_free(c: &Connection, t: &Tag) -> Result<(), ApiError> {
    if store::named(c, &t.name, t.id)?.is_some() {
        return Err(ApiError::field("name", "unique", "A tag with this name already exists."));
    }
    Ok(())
}

/// `POST /api/v2/tag/` (staff): 201 with the new tag; `name` required and unique
/// (case-insensitively).
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let now = call.now;
    let input = call.json::<Map<String, Value>>().await.map(|b| TagInput::parse(&b, true));
    let json = call
        .write(move |tx, _who| {
            let input = input?.map_err(ApiError::Invalid)?;
            let mut tag = input.new_tag(now);
            name_free(tx, &tag)?;
            tag.id = store::insert(tx, &tag, None)?;
            Ok::<_, ApiError>(tag.to_json())
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `PATCH` / `PUT /api/v2/tag/{id}/` (staff): changes the fields given (PUT needs
/// `name`); `deleted: true` deletes the tag (it leaves profiles and addressing).
async fn update(mut call: Call<Principal>, whole: bool) -> Result<Response, ApiError> {
    call.before_body().await?;
    let id = call.id();
    let input = call.json::<Map<String, Value>>().await.map(|b| TagInput::parse(&b, whole));
    let json = call
        .write(move |tx, _who| {
            let input = input?.map_err(ApiError::Invalid)?;
            let tag = input.apply(store::get(tx, id)?.ok_or(ApiError::NotFound)?);
            name_free(tx, &tag)?;
            store::update(tx, &tag)?;
            Ok::<_, ApiError>(tag.to_json())
        })
        .await?;
    Ok(ok(&json))
}

/// `POST /api/v2/tag/{id}/assign/` (staff): `{"user": N}` gives member N the tag (again:
/// nothing changes). `category` is 400: hearth keeps user tags only. A deleted tag is
/// 404. 200 with the tag.
async fn assign(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let id = call.id();
    let body = call.object().await;
    let json = call
        .write(move |tx, _who| {
            let TagAssign { user, .. } =
                TagAssign::parse(&body?).map_err(|e| ApiError::Invalid(vec![e]))?;
            let tag = store::get(tx, id)?.filter(|t| !t.deleted).ok_or(ApiError::NotFound)?;
            if crate::db::users::get(tx, user)?.is_none_or(|u| u.deleted) {
                return Err(ApiError::field(
                    "user",
                    "invalid",
                    format!("Invalid pk \"{user}\" - object does not exist."),
                ));
            }
            store::assign(tx, id, user)?;
            Ok::<_, ApiError>(tag.to_json())
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/user/tag/tags_to_address_a_contribution/` (auth): the tags the caller
/// may address a discussion or post to, as a plain array (what the kit's composer maps
/// over): staff every active tag, a member the active tags they hold
/// ([`store::addressable`]). An addressed item is shown only to its author, staff and
/// the holders of one of its tags (`db::tags::addressing_shown`).
async fn addressable(call: Call<Principal>) -> Result<Response, ApiError> {
    let json = call
        .read(|c, who| {
            let tags = store::addressable(c, who.user_id, who.is_staff)?;
            Ok::<_, ApiError>(tags.iter().map(Tag::to_json).collect::<Vec<_>>())
        })
        .await?;
    Ok(ok(&json))
}

/// The field errors of an item's addressing (400 on `addressing`): a tag the author may
/// not address to ([`store::addressable`]; on an edit, the tags the item is addressed to
/// already, `kept`, stay allowed), or none at all for a discussion or a post outside
/// groups and events while `configurations.post_addressing_required_enabled` is on.
pub(crate) fn addressing_errors(
    tx: &Connection,
    kind: Kind,
    addressing: &[i64],
    in_space: bool,
    who: &Principal,
    kept: &[i64],
) -> Result<Option<FieldError>, ApiError> {
    if !matches!(kind, Kind::Discussion | Kind::Post) {
        return Ok(None);
    }
    if addressing.is_empty() {
        let required = crate::db::preferences::get_bool(
            tx,
            "configurations",
            "post_addressing_required_enabled",
            false,
        )?;
        return Ok((required && !in_space).then(|| {
            FieldError::new("addressing", "required", "Address the item to at least one tag.")
        }));
    }
    let added: Vec<i64> = addressing.iter().copied().filter(|t| !kept.contains(t)).collect();
    Ok(store::first_unaddressable(tx, who.user_id, who.is_staff, &added)?.map(|t| {
        FieldError::new(
            "addressing",
            "invalid",
            format!("Invalid pk \"{t}\" - object does not exist or may not be addressed to."),
        )
    }))
}

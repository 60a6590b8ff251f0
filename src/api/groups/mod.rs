//! `/api/v2/group/...` (SPEC §10 "Groups, events and private messages"): groups (this
//! file), their membership ([`members`]) and their feed. On while the preference
//! `configurations.groups_enabled` is true: every group route is 404 while it is off.
//! Who sees a group and what is in it is `db::groups`' two rules.

mod members;

use rusqlite::Connection;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::upload;
use crate::clock::Timestamp;
use crate::db::feed::Feed;
use crate::db::groups as db;
use crate::db::members::{Roster, invite};
use crate::db::notifications::{Type, notify_group};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::images::Squares;
use crate::model::PublicUrl;
use crate::model::field::FieldError;
use crate::model::group::{
    COVER_FIELD, COVER_SIDE, Group, GroupInput, GroupJson, GroupPrivacy, IMAGE_FIELD, JoinStatus,
};

/// The endpoints of this module and its submodule.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/group/", "listMyGroups", list_mine).paged(),
        write(Method::POST, "/api/v2/group/", "createGroup", create).body::<GroupInput>(),
        ca(Method::GET, "/api/v2/group/search/", "searchGroups", search).list::<GroupSearch>(),
        ca(Method::GET, "/api/v2/group/{id}/", "getGroup", get),
        write(Method::PUT, "/api/v2/group/{id}/", "replaceGroup", |c| update(c, true))
            .body::<GroupInput>(),
        write(Method::PATCH, "/api/v2/group/{id}/", "updateGroup", |c| update(c, false))
            .body::<GroupInput>(),
        write(Method::DELETE, "/api/v2/group/{id}/", "deleteGroup", delete),
        ca(Method::GET, "/api/v2/group/{id}/feed/", "getGroupFeed", feed).paged(),
        ca(Method::GET, "/api/v2/user/{id}/groups/", "listUserGroups", user_groups).paged(),
    ]
    .into_iter()
    .chain(members::endpoints())
    .collect()
}

/// 404 unless groups are on (`configurations.groups_enabled`).
pub(crate) fn enabled(c: &Connection) -> Result<(), ApiError> {
    crate::api::members::area_on(c, "group")
}

/// Group `id` and the caller's status in it, when groups are on and the caller may see
/// it (404 otherwise, SPEC §3).
pub(crate) fn visible_group(
    c: &Connection,
    id: i64,
    who: Option<Principal>,
) -> Result<(Group, Option<JoinStatus>), ApiError> {
    enabled(c)?;
    db::seen(c, id, who.map(|w| w.user_id))?.ok_or(ApiError::NotFound)
}

/// [`visible_group`] for what only its creator and admins may do: 403 for others.
pub(crate) fn managed_group(
    c: &Connection,
    id: i64,
    who: Principal,
) -> Result<(Group, Option<JoinStatus>), ApiError> {
    let (g, status) = visible_group(c, id, Some(who))?;
    if crate::model::course::manages(status) {
        Ok((g, status))
    } else {
        Err(ApiError::PermissionDenied)
    }
}

/// Whether `who` may make an item in group `id`: groups on, the group visible to it and
/// it a member; else the error on the body's `group` field.
pub(crate) fn member_of(
    c: &Connection,
    id: i64,
    who: Principal,
) -> Result<Result<(), FieldError>, ApiError> {
    let seen = visible_group(c, id, Some(who));
    crate::api::members::member_of(seen, |(_, status)| db::is_member(status), "group", id)
}

/// A group's JSON for a caller whose status is `status`.
pub(crate) fn group_json(
    c: &Connection,
    g: &Group,
    status: Option<JoinStatus>,
    base: &PublicUrl,
) -> Result<GroupJson, ApiError> {
    let creator = crate::db::users::get(c, g.created_by)?
        .ok_or_else(|| ApiError::internal(format!("group {} has no creator", g.id)))?;
    Ok(g.to_json(base, status, creator.minimal(base)))
}

/// The JSON of the groups of `ids` (visible ones), in order, as `viewer` sees them.
fn groups_json(
    c: &Connection,
    ids: &[i64],
    viewer: Option<i64>,
    base: &PublicUrl,
) -> Result<Vec<GroupJson>, ApiError> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some((g, status)) = db::seen(c, *id, viewer)? {
            out.push(group_json(c, &g, status, base)?);
        }
    }
    Ok(out)
}

/// `GET /api/v2/group/{id}/` (CA).
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    let json = call
        .read(move |c, who| {
            let (g, status) = visible_group(c, id, who)?;
            group_json(c, &g, status, &base)
        })
        .await?;
    Ok(ok(&json))
}

/// The rules that need the database or the preferences, added to `errors`: a unique
/// name, private groups and hidden groups only where the community has them, and a
/// private group never made public again. `g` is the group before the change (id 0
/// when new).
fn check_against_db(
    c: &Connection,
    input: &GroupInput,
    g: &Group,
    errors: &mut Vec<FieldError>,
) -> Result<(), ApiError> {
    if let Some(name) = &input.name
        && !name.is_empty()
        && db::name_taken(c, name, g.id)?
    {
        errors.push(FieldError::new("name", "unique", "A group with this name already exists."));
    }
    let switched = crate::api::members::Switched {
        area: "group",
        is_new: g.id == 0,
        private: g.privacy == GroupPrivacy::Private,
        visible: g.visible,
    };
    switched.check(c, input.privacy.map(|p| p == GroupPrivacy::Private), input.visible, errors)
}

/// 403 unless the caller may create groups (`groups_only_staff_enabled`).
fn may_create(c: &Connection, who: Principal) -> Result<(), ApiError> {
    enabled(c)?;
    crate::api::members::may_create(c, "group", who)
}

/// A group body, read once `who` may send it: the input, the problems found without
/// the database, and the squares of the avatar and of the cover.
async fn group_body(
    call: &mut Call<Principal>,
    who: &Principal,
    full: bool,
) -> Result<(GroupInput, Vec<FieldError>, Option<Squares>, Option<Squares>), ApiError> {
    call.req.body.authorised(who);
    let (map, mut files, held) = upload::read_files(
        call.take_body(),
        &call.req.headers,
        &["invite_users"],
        &[IMAGE_FIELD, COVER_FIELD],
    )
    .await?;
    let (input, mut errors) = GroupInput::parse(&map, full);
    let budget = &call.state().body_budget;
    let cover = files.pop().flatten();
    let image = files.pop().flatten();
    // the avatar first; the body's memory stays held until the cover (the last) is made
    let image = image.map(|bytes| upload::Upload { bytes, held: None });
    let image = upload::process_image(image, IMAGE_FIELD, budget, &mut errors).await?;
    let cover = cover.map(|bytes| upload::Upload { bytes, held });
    let cover = upload::process_image(cover, COVER_FIELD, budget, &mut errors).await?;
    Ok((input, errors, image, cover))
}

/// Stores the images of a body (new squares, or back to the defaults).
fn apply_images(
    tx: &Connection,
    g: &mut Group,
    input: &GroupInput,
    image: Option<&Squares>,
    cover: Option<&Squares>,
    now: Timestamp,
) -> Result<(), ApiError> {
    if let Some(sq) = image {
        g.image_key = Some(db::store_image(tx, g.id, "image", sq, None, now)?);
    } else if input.clear_image && g.image_key.is_some() {
        db::drop_image(tx, g.id, "image")?;
        g.image_key = None;
    }
    if let Some(sq) = cover {
        g.cover_key = Some(db::store_image(tx, g.id, "cover", sq, Some(COVER_SIDE), now)?);
    } else if input.clear_cover && g.cover_key.is_some() {
        db::drop_image(tx, g.id, "cover")?;
        g.cover_key = None;
    }
    Ok(())
}

/// `POST /api/v2/group/`: the kit's form (multipart: `name`, `description`, `privacy`,
/// `visible`, `image_original`, `emotional_image_original`, `invite_users[n]`) or JSON.
/// 201; the caller is its creator and admin; the invited users are notified.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (now, base) = (call.now, call.base());
    let who = call.read(move |c, who| may_create(c, who).map(|()| who)).await?;
    let (input, mut errors, image, cover) = group_body(&mut call, &who, true).await?;
    let id = call
        .write(move |tx, who| {
            may_create(tx, who)?;
            let mut g = Group::new(who.user_id, now);
            check_against_db(tx, &input, &g, &mut errors)?;
            let invited = input.invite_users.clone().unwrap_or_default();
            if let Some(e) = crate::api::members::missing_user(tx, &invited, "invite_users")? {
                errors.push(e);
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            input.apply(&mut g);
            let base_slug = crate::model::slug::slugify(&g.name, "group");
            g.slug = crate::model::slug::unique(&base_slug, |s| db::slug_taken(tx, s, 0))?;
            g.id = db::create(tx, &g)?;
            apply_images(tx, &mut g, &input, image.as_ref(), cover.as_ref(), now)?;
            db::update(tx, &g)?;
            for (u, status) in invite(tx, Roster::Group, g.id, &invited, now)? {
                if status == JoinStatus::Invited {
                    notify_group(tx, u, who.user_id, Type::GroupInvite, g.id, now)?;
                }
            }
            Ok::<_, ApiError>(g.id)
        })
        .await?;
    let user = who.user_id;
    let json = call.answer(move |c| as_read(c, id, user, &base)).await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `PUT|PATCH /api/v2/group/{id}/` (creator and admins; `full`: PUT, `name`
/// required). The kit's avatar and cover dialogs PATCH one image.
async fn update(mut call: Call<Principal>, full: bool) -> Result<Response, ApiError> {
    let (id, now, base) = (call.id(), call.now, call.base());
    let who = call.read(move |c, who| managed_group(c, id, who).map(|_| who)).await?;
    let (input, mut errors, image, cover) = group_body(&mut call, &who, full).await?;
    call.write(move |tx, who| {
        let (mut g, _) = managed_group(tx, id, who)?;
        check_against_db(tx, &input, &g, &mut errors)?;
        if !errors.is_empty() {
            return Err(ApiError::Invalid(errors));
        }
        input.apply(&mut g);
        apply_images(tx, &mut g, &input, image.as_ref(), cover.as_ref(), now)?;
        db::update(tx, &g)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    let user = who.user_id;
    let json = call.answer(move |c| as_read(c, id, user, &base)).await?;
    Ok(ok(&json))
}

/// The answer to a group's create or update: the group as `user` reads it (read once
/// the write committed, `Call::answer`).
fn as_read(c: &Connection, id: i64, user: i64, base: &PublicUrl) -> Result<GroupJson, ApiError> {
    let (g, status) = db::seen(c, id, Some(user))?.ok_or(ApiError::NotFound)?;
    group_json(c, &g, status, base)
}

/// `DELETE /api/v2/group/{id}/`: creator only; the group and what was made in it are
/// no longer shown to anyone. 204.
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let id = call.id();
    let no_body = call.no_body().await;
    call.write(move |tx, who| {
        no_body?;
        let (mut g, status) = visible_group(tx, id, Some(who))?;
        if status != Some(JoinStatus::Creator) {
            return Err(ApiError::PermissionDenied);
        }
        g.deleted = true;
        db::update(tx, &g)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

crate::query_params! {
    /// The group search's filter.
    struct GroupSearch {
        /// A substring of the name or the description (case-insensitively).
        search: Option<String>,
    }
}

/// `GET /api/v2/group/search/` (CA): the groups the caller may see, newest first;
/// `search` narrows to a name or description containing it.
async fn search(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        enabled(c)?;
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        let search = GroupSearch::read(q)?.search;
        let text = search.as_deref().filter(|t| !t.trim().is_empty());
        let (count, ids) = db::search(c, viewer, text, page.limit, page.offset)?;
        Ok((page, count, groups_json(c, &ids, viewer, &base)?))
    })
    .await
}

/// `GET /api/v2/group/` (auth): the caller's groups (creator, admin, subscribed),
/// newest membership first.
async fn list_mine(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        enabled(c)?;
        let page = Page::from_query(q)?;
        let (count, ids) = db::user_groups(
            c,
            who.user_id,
            &JoinStatus::MEMBERS,
            Some(who.user_id),
            page.limit,
            page.offset,
        )?;
        Ok((page, count, groups_json(c, &ids, Some(who.user_id), &base)?))
    })
    .await
}

/// `GET /api/v2/user/{id}/groups/` (CA): the groups a live user is a member of that the
/// caller may see, newest membership first.
async fn user_groups(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        enabled(c)?;
        if !crate::db::users::is_live(c, id)? {
            return Err(ApiError::NotFound);
        }
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        let (count, ids) =
            db::user_groups(c, id, &JoinStatus::MEMBERS, viewer, page.limit, page.offset)?;
        Ok((page, count, groups_json(c, &ids, viewer, &base)?))
    })
    .await
}

/// `GET /api/v2/group/{id}/feed/` (CA): the group's items (`db::feed`'s group feed),
/// for those who may see them: everyone for a public group, its members for a private
/// one (403 for others who see the group).
async fn feed(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    crate::api::feed::serve(call, move |c, viewer| {
        let (g, status) = db::seen(c, id, viewer)
            .map_err(ApiError::from)
            .and_then(|s| enabled(c).map(|()| s))?
            .ok_or(ApiError::NotFound)?;
        if g.privacy == GroupPrivacy::Private && !db::is_member(status) {
            return Err(ApiError::PermissionDenied);
        }
        Ok(Feed::Group(id))
    })
    .await
}

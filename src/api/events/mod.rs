//! `/api/v2/event/...` (SPEC §10 "Groups, events and private messages"): events (this
//! file), their lists ([`lists`]) and their membership and answers ([`members`]). On
//! while the preference `configurations.events_enabled` is true: every event route is
//! 404 while it is off. Who sees an event and what is in it is `db::events`' rules.

mod gallery;
mod lists;
mod members;

use rusqlite::Connection;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, write};
use crate::api::upload;
use crate::clock::Timestamp;
use crate::db::events::{self as db, Status};
use crate::db::members::{Roster, invite};
use crate::db::notifications::{Type, notify_event};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::images::Squares;
use crate::model::PublicUrl;
use crate::model::event::{Event, EventInput, EventJson, EventPrivacy, IMAGE_FIELD, JoinStatus};
use crate::model::field::FieldError;

/// The endpoints of this module and its submodules.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::POST, "/api/v2/event/", "createEvent", create).body::<EventInput>(),
        ca(Method::GET, "/api/v2/event/{id}/", "getEvent", get),
        write(Method::PUT, "/api/v2/event/{id}/", "replaceEvent", |c| update(c, true))
            .body::<EventInput>(),
        write(Method::PATCH, "/api/v2/event/{id}/", "updateEvent", |c| update(c, false))
            .body::<EventInput>(),
        write(Method::DELETE, "/api/v2/event/{id}/", "deleteEvent", delete),
        write(Method::POST, "/api/v2/event/{id}/hide/", "hideEvent", |c| show(c, false)),
        write(Method::POST, "/api/v2/event/{id}/show/", "showEvent", |c| show(c, true)),
        ca(Method::GET, "/api/v2/event/{id}/feed/", "getEventFeed", feed).paged(),
    ]
    .into_iter()
    .chain(gallery::endpoints())
    .chain(lists::endpoints())
    .chain(members::endpoints())
    .collect()
}

/// 404 unless events are on (`configurations.events_enabled`).
pub(crate) fn enabled(c: &Connection) -> Result<(), ApiError> {
    crate::api::members::area_on(c, "event")
}

/// Event `id` and the caller's status in it, when events are on and the caller may see
/// it (404 otherwise, SPEC §3).
pub(crate) fn visible_event(
    c: &Connection,
    id: i64,
    who: Option<Principal>,
) -> Result<(Event, Option<Status>), ApiError> {
    enabled(c)?;
    db::seen(c, id, who.map(|w| w.user_id))?.ok_or(ApiError::NotFound)
}

/// [`visible_event`] for what only its creator and admins may do: 403 for others.
pub(crate) fn managed_event(
    c: &Connection,
    id: i64,
    who: Principal,
) -> Result<(Event, Option<Status>), ApiError> {
    let (e, status) = visible_event(c, id, Some(who))?;
    if crate::model::course::manages(status.map(|s| s.0)) {
        Ok((e, status))
    } else {
        Err(ApiError::PermissionDenied)
    }
}

/// Whether `who` may make an item in event `id` (a discussion or post with `event`):
/// a member of an event it sees (its creator, a manager, or joined, whatever its
/// answer); otherwise the field error on `event`.
pub(crate) fn member_of(
    c: &Connection,
    id: i64,
    who: Principal,
) -> Result<Result<(), FieldError>, ApiError> {
    let seen = visible_event(c, id, Some(who));
    crate::api::members::member_of(seen, |(_, status)| db::is_member(status), "event", id)
}

/// `GET /api/v2/event/{id}/feed/` (CA): the items made in the event (`db::feed`'s
/// event feed), newest activity first, for those who may see them: everyone who sees
/// a public event, the members of a private one (403 for others who see the event).
async fn feed(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    crate::api::feed::serve(call, move |c, viewer| {
        enabled(c)?;
        let (e, status) = db::seen(c, id, viewer)?.ok_or(ApiError::NotFound)?;
        if e.privacy == EventPrivacy::Private && !db::is_member(status) {
            return Err(ApiError::PermissionDenied);
        }
        Ok(crate::db::feed::Feed::Event(id))
    })
    .await
}

/// An event's JSON at `now` for a caller whose status is `status`.
pub(crate) fn event_json(
    c: &Connection,
    e: &Event,
    status: Option<Status>,
    base: &PublicUrl,
    now: Timestamp,
) -> Result<EventJson, ApiError> {
    let creator = crate::db::users::get(c, e.created_by)?
        .ok_or_else(|| ApiError::internal(format!("event {} has no creator", e.id)))?;
    Ok(e.to_json(base, now, status, creator.minimal(base)))
}

/// The JSON of the events of `ids` (visible ones), in order, as `viewer` sees them.
pub(crate) fn events_json(
    c: &Connection,
    ids: &[i64],
    viewer: Option<i64>,
    base: &PublicUrl,
    now: Timestamp,
) -> Result<Vec<EventJson>, ApiError> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some((e, status)) = db::seen(c, *id, viewer)? {
            out.push(event_json(c, &e, status, base, now)?);
        }
    }
    Ok(out)
}

/// `GET /api/v2/event/{id}/` (CA).
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, now) = (call.id(), call.base(), call.now);
    let json = call
        .read(move |c, who| {
            let (e, status) = visible_event(c, id, who)?;
            event_json(c, &e, status, &base, now)
        })
        .await?;
    Ok(ok(&json))
}

/// The rules that need the preferences, added to `errors`: private and hidden events
/// only where the community has them, and a private event never made public again.
/// `e` is the event before the change (id 0 when new).
fn check_against_db(
    c: &Connection,
    input: &EventInput,
    e: &Event,
    errors: &mut Vec<FieldError>,
) -> Result<(), ApiError> {
    let switched = crate::api::members::Switched {
        area: "event",
        is_new: e.id == 0,
        private: e.privacy == EventPrivacy::Private,
        visible: e.visible,
    };
    switched.check(c, input.privacy.map(|p| p == EventPrivacy::Private), input.visible, errors)
}

/// 403 unless the caller may create events (`events_only_staff_enabled`).
fn may_create(c: &Connection, who: Principal) -> Result<(), ApiError> {
    enabled(c)?;
    crate::api::members::may_create(c, "event", who)
}

/// An event body, read once `who` may send it: the input, the problems found without
/// the database, and the squares of the image.
async fn event_body(
    call: &mut Call<Principal>,
    who: &Principal,
    full: bool,
) -> Result<(EventInput, Vec<FieldError>, Option<Squares>), ApiError> {
    call.req.body.authorised(who);
    let (map, mut files, held) =
        upload::read_files(call.take_body(), &call.req.headers, &["invite_users"], &[IMAGE_FIELD])
            .await?;
    let (input, mut errors) = EventInput::parse(&map, full);
    let image = files.pop().flatten().map(|bytes| upload::Upload { bytes, held });
    let budget = &call.state().body_budget;
    let image = upload::process_image(image, IMAGE_FIELD, budget, &mut errors).await?;
    Ok((input, errors, image))
}

/// Stores the image of a body (new squares, or back to the default).
fn apply_image(
    tx: &Connection,
    e: &mut Event,
    input: &EventInput,
    image: Option<&Squares>,
    now: Timestamp,
) -> Result<(), ApiError> {
    if let Some(sq) = image {
        e.image_key = Some(db::store_image(tx, e.id, sq, now)?);
    } else if input.clear_image && e.image_key.is_some() {
        db::drop_image(tx, e.id)?;
        e.image_key = None;
    }
    Ok(())
}

/// `POST /api/v2/event/`: the kit's form (multipart: `name`, `description`,
/// `start_date`, `end_date`, `recurring`, `location`, `link` or `geolocation` with
/// `geolocation_lat`/`_lng`, `privacy`, `visible`, `image_original`; hearth also takes
/// `timezone` and `invite_users`) or JSON. 201; the caller is its creator and admin,
/// going; the invited users are notified.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (now, base) = (call.now, call.base());
    let who = call.read(move |c, who| may_create(c, who).map(|()| who)).await?;
    let (input, mut errors, image) = event_body(&mut call, &who, true).await?;
    let id = call
        .write(move |tx, who| {
            may_create(tx, who)?;
            let mut e = Event::new(who.user_id, now);
            check_against_db(tx, &input, &e, &mut errors)?;
            let invited = input.invite_users.clone().unwrap_or_default();
            if let Some(err) = crate::api::members::missing_user(tx, &invited, "invite_users")? {
                errors.push(err);
            }
            if errors.is_empty() {
                errors = input.apply(&mut e);
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            let base_slug = crate::model::slug::slugify(&e.name, "event");
            e.slug = crate::model::slug::unique(&base_slug, |s| db::slug_taken(tx, s, 0))?;
            e.id = db::create(tx, &e, now)?;
            apply_image(tx, &mut e, &input, image.as_ref(), now)?;
            db::update(tx, &e, now)?;
            for (u, status) in invite(tx, Roster::Event, e.id, &invited, now)? {
                if status == JoinStatus::Invited {
                    notify_event(tx, u, who.user_id, Type::EventInvite, e.id, now)?;
                }
            }
            Ok::<_, ApiError>(e.id)
        })
        .await?;
    let user = who.user_id;
    let json = call.answer(move |c| as_read(c, id, user, &base, now)).await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `PUT|PATCH /api/v2/event/{id}/` (creator and admins; `full`: PUT, the create
/// body's required fields required).
async fn update(mut call: Call<Principal>, full: bool) -> Result<Response, ApiError> {
    let (id, now, base) = (call.id(), call.now, call.base());
    let who = call.read(move |c, who| managed_event(c, id, who).map(|_| who)).await?;
    let (input, mut errors, image) = event_body(&mut call, &who, full).await?;
    call.write(move |tx, who| {
        let (mut e, _) = managed_event(tx, id, who)?;
        check_against_db(tx, &input, &e, &mut errors)?;
        if errors.is_empty() {
            errors = input.apply(&mut e);
        }
        if !errors.is_empty() {
            return Err(ApiError::Invalid(errors));
        }
        apply_image(tx, &mut e, &input, image.as_ref(), now)?;
        db::update(tx, &e, now)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    let user = who.user_id;
    let json = call.answer(move |c| as_read(c, id, user, &base, now)).await?;
    Ok(ok(&json))
}

/// The answer to an event's create or update: the event as `user` reads it at `now`
/// (read once the write committed, `Call::answer`).
fn as_read(
    c: &Connection,
    id: i64,
    user: i64,
    base: &PublicUrl,
    now: Timestamp,
) -> Result<EventJson, ApiError> {
    let e = db::get(c, id)?.ok_or(ApiError::NotFound)?;
    event_json(c, &e, db::status(c, id, Some(user))?, base, now)
}

/// `DELETE /api/v2/event/{id}/`: creator only; the event is no longer shown to anyone
/// (nor the notifications about it). 204.
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now) = (call.id(), call.now);
    let no_body = call.no_body().await;
    call.write(move |tx, who| {
        no_body?;
        let (mut e, status) = visible_event(tx, id, Some(who))?;
        if status.map(|s| s.0) != Some(JoinStatus::Creator) {
            return Err(ApiError::PermissionDenied);
        }
        e.deleted = true;
        db::update(tx, &e, now)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `POST /api/v2/event/{id}/hide/` and `show/` (creator and admins): take the event
/// out of the lists, the search and the suggestions of everyone not in it, or put it
/// back (`show_on_feed`). 204.
async fn show(mut call: Call<Principal>, shown: bool) -> Result<Response, ApiError> {
    crate::api::members::pre_write(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    call.no_body().await?;
    call.write(move |tx, who| {
        let (mut e, _) = managed_event(tx, id, who)?;
        e.show_on_feed = shown;
        db::update(tx, &e, now)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

//! The caller's notifications (SPEC §10, `db::notifications`): the list the kit's
//! notification page and bell menu read (`SCNotificationAggregatedType`), the read
//! marks and the unseen count; and the broadcast banners ([`banners`]).

mod banners;
mod item_switches;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::db::notifications::{self, Type, list::Note};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::{Page, envelope};
use crate::http::route::Endpoint;
use crate::http::{empty, ok};
use crate::model::PublicUrl;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        // reading the list marks what it shows seen, as the hosted platform does (the
        // kit then takes what was new off its badge): a GET that writes (with a token
        // that may; a read-only token reads without marking)
        user(Method::GET, "/api/v2/notification/", "listNotifications", list).writes().paged(),
        write(Method::POST, "/api/v2/notification/read/", "markNotificationsRead", mark_read)
            .body::<Sids>(),
        user(Method::GET, "/api/v2/notification/unseen/count/", "countUnseenNotifications", unseen),
        user(Method::GET, "/api/v2/notification/banner/", "listBanners", banners::list).paged(),
        write(Method::POST, "/api/v2/notification/banner/read/", "markBannersRead", banners::read)
            .body::<banners::Ids>(),
        write(
            Method::POST,
            "/api/v2/notification/banner/dispose/",
            "disposeBanners",
            banners::dispose,
        )
        .body::<banners::Ids>(),
        user(
            Method::GET,
            "/api/v2/notification/banner/unseen/count/",
            "countUnseenBanners",
            banners::unseen,
        ),
        user(
            Method::GET,
            "/api/v2/notification/banner/undisposed/count/",
            "countUndisposedBanners",
            banners::undisposed,
        ),
    ]
    .into_iter()
    // a member's switches on one item: its notifications off, following it
    .chain(item_switches::endpoints())
    .collect()
}

/// The JSON of one notification (`SCNotificationType` and its type's fields).
pub(crate) fn note_json(n: &Note, base: &PublicUrl, now: crate::clock::Timestamp) -> Value {
    let mut o = Map::new();
    o.insert("sid".into(), json!(n.id.to_string()));
    o.insert("is_new".into(), json!(n.is_new));
    o.insert("type".into(), json!(n.kind.as_str()));
    o.insert("active_at".into(), json!(crate::clock::rfc3339(n.at)));
    let actor =
        serde_json::to_value(n.actor.to_json(base, None, Vec::new())).unwrap_or(Value::Null);
    let item = n.item.as_ref().map(|c| {
        (c.kind.as_str(), serde_json::to_value(c.to_json(base, now)).unwrap_or(Value::Null))
    });
    let comment = n
        .comment
        .as_ref()
        .map(|c| serde_json::to_value(c.to_json(base, now)).unwrap_or(Value::Null));
    match n.kind {
        Type::Comment | Type::NestedComment => {
            o.insert("comment".into(), comment.unwrap_or(Value::Null));
        }
        Type::Mention | Type::VoteUp => {
            match comment {
                Some(c) => {
                    o.insert("comment".into(), c);
                }
                None => {
                    if let Some((kind, v)) = item {
                        o.insert(kind.into(), v);
                    }
                }
            }
            if n.kind == Type::VoteUp {
                o.insert("user".into(), actor);
            }
        }
        Type::UserFollow => {
            o.insert("follower".into(), actor);
        }
        Type::ConnectionRequest => {
            o.insert("request_user".into(), actor);
        }
        Type::ConnectionAccept => {
            o.insert("accept_user".into(), actor);
        }
        // SCNotificationGroupActivityType: the actor and the group
        Type::GroupInvite | Type::GroupRequest | Type::GroupAccept | Type::GroupAdded => {
            let group = n
                .group
                .as_ref()
                .map(|g| serde_json::to_value(g.to_json(base)).unwrap_or(Value::Null));
            o.insert("group".into(), group.unwrap_or(Value::Null));
            o.insert("user".into(), actor);
        }
        // SCNotificationEventActivityType: the actor and the event
        Type::EventInvite | Type::EventRequest | Type::EventAccept | Type::EventAdded => {
            let event = n
                .event
                .as_ref()
                .map(|e| serde_json::to_value(e.to_json(base, now)).unwrap_or(Value::Null));
            o.insert("event".into(), event.unwrap_or(Value::Null));
            o.insert("user".into(), actor);
        }
        // the actor and the course (as the recipient sees it); a lesson comment's also
        // the comment, with the lesson and section the kit links to
        Type::CourseInvite
        | Type::CourseRequest
        | Type::CourseAccept
        | Type::CourseAdded
        | Type::CourseManager
        | Type::LessonComment => {
            let course = n.course.as_ref().and_then(|(v, categories)| {
                let creator = v.extras.creator.as_ref()?;
                let json = v.course.to_json(
                    base,
                    v.status,
                    creator.minimal(base),
                    categories.clone(),
                    v.extras.counts,
                );
                serde_json::to_value(json).ok()
            });
            o.insert("course".into(), course.unwrap_or(Value::Null));
            o.insert("user".into(), actor);
            if let Some((c, author)) = &n.lesson_comment {
                let mut json =
                    serde_json::to_value(c.to_json(author.as_ref().map(|u| u.minimal(base))))
                        .unwrap_or(Value::Null);
                if let Value::Object(m) = &mut json {
                    m.insert("lesson_id".into(), json!(c.lesson_id));
                    m.insert("section_id".into(), json!(c.section_id));
                    m.insert("lesson_name".into(), json!(c.lesson_name));
                }
                o.insert("comment".into(), json);
            }
        }
        // a moderator's decision: the contribution it was about (a comment under
        // `comment`, an item under its kind)
        // the message (`SCNotificationPrivateMessageType`) and, for the kit's live
        // handler, the recipient's snippet of its thread
        Type::PrivateMessage => {
            if let Some((m, snippet)) = &n.message {
                // a pair message's notification is its receiver's
                let viewer = m.receiver.as_ref().map_or(m.sender.id, |r| r.id);
                let message = serde_json::to_value(m.to_json(base, viewer)).unwrap_or(Value::Null);
                let snippet = snippet
                    .as_ref()
                    .map(|s| serde_json::to_value(s.to_json(base, viewer)).unwrap_or(Value::Null));
                o.insert("message".into(), message);
                o.insert("snippet".into(), snippet.unwrap_or(Value::Null));
            }
        }
        Type::DeletedFor(_) | Type::UndeletedFor | Type::CollapsedFor(_) => match comment {
            Some(c) => {
                o.insert("comment".into(), c);
            }
            None => {
                if let Some((kind, v)) = item {
                    o.insert(kind.into(), v);
                }
            }
        },
    }
    Value::Object(o)
}

/// The page's notifications, grouped as the kit shows them: notifications of the same
/// type about the same item that follow each other make one group, under that item.
fn groups(notes: &[Note], base: &PublicUrl, now: crate::clock::Timestamp) -> Vec<Value> {
    let mut out: Vec<(Option<i64>, Type, Value)> = Vec::new();
    for n in notes {
        let key = n.item.as_ref().map(|c| c.pk);
        // about people, not items: each its own group
        let about_items =
            !matches!(n.kind, Type::UserFollow | Type::ConnectionRequest | Type::ConnectionAccept);
        let joins = about_items
            && out.last().is_some_and(|(k, t, _)| *k == key && key.is_some() && *t == n.kind);
        if joins {
            if let Some((_, _, g)) = out.last_mut() {
                if let Some(a) = g["aggregated"].as_array_mut() {
                    a.push(note_json(n, base, now));
                }
                if n.is_new {
                    g["is_new"] = json!(true);
                }
            }
            continue;
        }
        let mut g = Map::new();
        g.insert("sid".into(), json!(format!("g{}", n.id)));
        g.insert("is_new".into(), json!(n.is_new));
        if let Some(c) = &n.item {
            g.insert(
                c.kind.as_str().into(),
                serde_json::to_value(c.to_json(base, now)).unwrap_or(Value::Null),
            );
        }
        g.insert("aggregated".into(), json!([note_json(n, base, now)]));
        out.push((key, n.kind, Value::Object(g)));
    }
    out.into_iter().map(|(_, _, g)| g).collect()
}

/// `GET /api/v2/notification/` (auth): the caller's notifications, newest first, in
/// groups; the page's notifications are marked seen (their `is_new` says whether they
/// were new before this read) unless the token is read-only.
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, q, now) = (call.base(), call.query()?, call.now);
    let url = base.at(&call.req.path);
    let json = call
        .write(move |tx, who| {
            let page = Page::from_query(&q)?;
            let (count, notes) =
                notifications::list::page(tx, who.user_id, page.limit, page.offset)?;
            if who.can_write {
                let ids: Vec<i64> = notes.iter().filter(|n| n.is_new).map(|n| n.id).collect();
                notifications::list::mark_seen(tx, who.user_id, &ids)?;
            }
            Ok::<_, ApiError>(envelope(&url, &q, page, count, groups(&notes, &base, now)))
        })
        .await?;
    Ok(ok(&json))
}

/// The body of `POST /api/v2/notification/read/`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NotificationMarks)]
struct Sids {
    /// The sids to mark seen (a group's sid marks the notification it starts with); at
    /// most 100 (400 max_length); one that is no notification's sid is 400.
    #[schema(max_items = 100)]
    sids: Vec<String>,
}

/// The most sids one mark takes.
pub const SIDS_MAX: usize = 100;

/// `POST /api/v2/notification/read/` (auth, write): `{"sids": [...]}` marks those of
/// the caller's notifications seen (a group's sid marks the notification it starts
/// with); others' and unknown sids change nothing; 204.
async fn mark_read(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.json::<Sids>().await;
    call.write(move |tx, who| {
        let sids = body?.sids;
        if sids.len() > SIDS_MAX {
            return Err(ApiError::field("sids", "max_length", format!("At most {SIDS_MAX} sids.")));
        }
        let mut ids = Vec::with_capacity(sids.len());
        for s in &sids {
            let id = s.strip_prefix('g').unwrap_or(s).parse::<i64>().map_err(|_| {
                ApiError::field("sids", "invalid", format!("{s:?} is not a notification's sid."))
            })?;
            ids.push(id);
        }
        notifications::list::mark_seen(tx, who.user_id, &ids)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/notification/unseen/count/` (auth): `{"count": n}`, the caller's
/// unseen notifications.
async fn unseen(call: Call<Principal>) -> Result<Response, ApiError> {
    let json = call
        .read(move |c, who| {
            Ok::<_, ApiError>(json!({ "count": notifications::unseen(c, who.user_id)? }))
        })
        .await?;
    Ok(ok(&json))
}

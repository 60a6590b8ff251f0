//! Events (SPEC §10 "Groups, events and private messages"): the `event` rows and the
//! privacy rules every read of an event goes through, each written once as SQL:
//!
//! - [`visible`]: who sees an event at all (its detail, notifications about it): the
//!   groups' rule ([`members::visible_sql`]): a live event that is public, or private
//!   and `visible`, or of which the viewer is a member, invited or a requester;
//! - [`listed`]: which of those the lists, the search and the suggestions show:
//!   also not hidden by its creator (`show_on_feed`), unless the viewer is in it;
//! - [`shows_members`]: who sees an event's members: everyone who sees a public event,
//!   the members of a private one.
//!
//! Memberships are [`super::members`] with [`Roster::Event`], plus each member's answer
//! (`going`): [`status`], [`answer`].

mod filters;
pub mod gallery;
mod list;
pub mod order;

pub use list::{Filters, Scope, page};
pub use order::refresh_keys;
use rusqlite::{Connection, OptionalExtension, params};

use super::members::{self, Roster};
use crate::clock::Timestamp;
use crate::model::event::{Event, EventPrivacy, JoinStatus};

/// The columns [`from_row`] reads, for an `event` aliased `e`.
const COLUMNS: &str = "e.id, e.name, e.slug, e.description, e.color, e.privacy, e.visible,
    e.start_at, e.end_at, e.timezone, e.recurring, e.location, e.geolocation,
    e.geolocation_lat, e.geolocation_lng, e.link, e.image_key, e.show_on_feed, e.created_at,
    e.created_by, e.deleted, e.subscribers_counter, e.goings_counter";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Event> {
    Ok(Event {
        id: r.get(0)?,
        name: r.get(1)?,
        slug: r.get(2)?,
        description: r.get(3)?,
        color: r.get(4)?,
        privacy: r.get(5)?,
        visible: r.get(6)?,
        start_at: r.get(7)?,
        end_at: r.get(8)?,
        timezone: r.get(9)?,
        recurring: r.get(10)?,
        location: r.get(11)?,
        geolocation: r.get(12)?,
        geolocation_lat: r.get(13)?,
        geolocation_lng: r.get(14)?,
        link: r.get(15)?,
        image_key: r.get(16)?,
        show_on_feed: r.get(17)?,
        created_at: r.get(18)?,
        created_by: r.get(19)?,
        deleted: r.get(20)?,
        subscribers_counter: r.get(21)?,
        goings_counter: r.get(22)?,
    })
}

/// A viewer's membership in an event and its answer (`Some(true)`: going).
pub type Status = (JoinStatus, Option<bool>);

/// The SQL condition that event `e` is one viewer `?{n}` may see (null: anonymous).
pub fn visible(n: u8) -> String {
    members::visible_sql(Roster::Event, "e", n)
}

/// The SQL condition that event `e` is one the lists and the search show viewer
/// `?{n}`: [`visible`], and not hidden by its creator unless the viewer is in it.
pub fn listed(n: u8) -> String {
    format!(
        "({} AND (e.show_on_feed = 1
          OR EXISTS (SELECT 1 FROM event_member lm WHERE lm.event_id = e.id AND lm.user_id = ?{n})))",
        visible(n)
    )
}

/// The SQL condition that item `c` (a contribution row) is one viewer `?{n}` may see
/// as far as its event goes: in no event, or in a live event that is public or of which
/// the viewer is a member (creator, manager or joined, whatever its answer). Joined
/// with the groups' rule by [`super::spaces::item_shown`].
pub fn item_shown(n: u8) -> String {
    format!(
        "(c.event_id IS NULL OR EXISTS (SELECT 1 FROM event ie WHERE ie.id = c.event_id
          AND ie.deleted = 0 AND (ie.privacy = 'public' OR EXISTS (SELECT 1 FROM event_member iem
            WHERE iem.event_id = ie.id AND iem.user_id = ?{n}
              AND iem.join_status IN ('creator', 'manager', 'joined')))))"
    )
}

/// Whether `status` makes a member (who sees a private event's members).
pub const fn is_member(status: Option<Status>) -> bool {
    matches!(status, Some((JoinStatus::Creator | JoinStatus::Manager | JoinStatus::Joined, _)))
}

/// Whether a viewer with `status` sees the members (and the going lists) of `e`.
pub fn shows_members(e: &Event, status: Option<Status>) -> bool {
    e.privacy == EventPrivacy::Public || is_member(status)
}

/// An event, deleted or not.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Event>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM event e WHERE e.id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// `user`'s membership in event `id` and its answer, if any.
pub fn status(conn: &Connection, id: i64, user: Option<i64>) -> rusqlite::Result<Option<Status>> {
    let Some(user) = user else { return Ok(None) };
    conn.prepare_cached(
        "SELECT join_status, going FROM event_member WHERE event_id = ?1 AND user_id = ?2",
    )?
    .query_row([id, user], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()
}

/// Event `id` and the viewer's status in it, when the viewer may see it ([`visible`]).
pub fn seen(
    conn: &Connection,
    id: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Option<(Event, Option<Status>)>> {
    let event = conn
        .prepare_cached(sql!("SELECT {COLUMNS} FROM event e WHERE e.id = ?2 AND {}", visible(1)))?
        .query_row(params![viewer, id], from_row)
        .optional()?;
    match event {
        Some(e) => Ok(Some((e, status(conn, id, viewer)?))),
        None => Ok(None),
    }
}

/// An event as `viewer` sees it beside a notification: the record, the viewer's
/// status and the creator (`None` when either is gone).
pub fn seen_by(
    conn: &Connection,
    id: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Option<crate::model::event::EventSeen>> {
    let Some(event) = get(conn, id)? else { return Ok(None) };
    let Some(creator) = super::users::get(conn, event.created_by)? else { return Ok(None) };
    let status = status(conn, id, viewer)?;
    Ok(Some(crate::model::event::EventSeen { event, status, creator }))
}

/// Whether another event has this slug.
pub fn slug_taken(conn: &Connection, slug: &str, except: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM event WHERE slug = ?1 AND id <> ?2")?
        .exists(params![slug, except])
}

/// Stores a new event (under `e.id` when not 0: an import), its order key at `now`
/// ([`order`]) and its creator's membership (going); returns its id.
pub fn create(conn: &Connection, e: &Event, now: Timestamp) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO event (id, name, slug, description, color, privacy, visible, start_at,
                            end_at, timezone, recurring, location, geolocation, geolocation_lat,
                            geolocation_lng, link, image_key, show_on_feed, created_at, created_by,
                            deleted)
         VALUES (NULLIF(?20, 0), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                 ?16, ?17, ?18, ?19, ?21)",
    )?
    .execute(params![
        e.name,
        e.slug,
        e.description,
        e.color,
        e.privacy,
        e.visible,
        e.start_at,
        e.end_at,
        e.timezone,
        e.recurring,
        e.location,
        e.geolocation,
        e.geolocation_lat,
        e.geolocation_lng,
        e.link,
        e.image_key,
        e.show_on_feed,
        e.created_at,
        e.created_by,
        e.id,
        e.deleted
    ])?;
    let id = conn.last_insert_rowid();
    order::store_key(conn, id, now)?;
    members::set(conn, Roster::Event, id, e.created_by, JoinStatus::Creator, e.created_at)?;
    answer(conn, id, e.created_by, Some(true))?;
    Ok(id)
}

/// Writes an event's editable fields back (the counters are the triggers') and its
/// order key at `now`.
pub fn update(conn: &Connection, e: &Event, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE event SET name = ?2, slug = ?3, description = ?4, color = ?5, privacy = ?6,
           visible = ?7, start_at = ?8, end_at = ?9, timezone = ?10, recurring = ?11,
           location = ?12, geolocation = ?13, geolocation_lat = ?14, geolocation_lng = ?15,
           link = ?16, image_key = ?17, show_on_feed = ?18, deleted = ?19
         WHERE id = ?1",
    )?
    .execute(params![
        e.id,
        e.name,
        e.slug,
        e.description,
        e.color,
        e.privacy,
        e.visible,
        e.start_at,
        e.end_at,
        e.timezone,
        e.recurring,
        e.location,
        e.geolocation,
        e.geolocation_lat,
        e.geolocation_lng,
        e.link,
        e.image_key,
        e.show_on_feed,
        e.deleted
    ])?;
    order::store_key(conn, e.id, now)
}

/// Sets a member's answer (`None`: no answer). Only members answer: a row of another
/// status is left as it is (the schema's CHECK would refuse it).
pub fn answer(conn: &Connection, id: i64, user: i64, going: Option<bool>) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE event_member SET going = ?3 WHERE event_id = ?1 AND user_id = ?2
         AND join_status IN ('creator', 'manager', 'joined')",
    )?
    .execute(params![id, user, going])?;
    Ok(())
}

/// Stores the squares of a new image under a fresh versioned key (the previous ones
/// dropped); returns the key.
pub fn store_image(
    conn: &Connection,
    event: i64,
    squares: &crate::images::Squares,
    now: Timestamp,
) -> rusqlite::Result<String> {
    super::media::store_squares(conn, &format!("event/{event}/image/"), squares, None, now)
}

/// Drops an event's stored image.
pub fn drop_image(conn: &Connection, event: i64) -> rusqlite::Result<()> {
    super::media::delete_prefix(conn, &format!("event/{event}/image/"))
}

/// One page of the members of event `id` who answered `going` (by when they came),
/// as User Minimal rows, and how many.
pub fn answered(
    conn: &Connection,
    id: i64,
    going: bool,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<crate::model::user::User>)> {
    let count = conn
        .prepare_cached(
            "SELECT count(*) FROM event_member m INDEXED BY event_member_going
             WHERE m.event_id = ?1 AND m.going = ?2",
        )?
        .query_row(params![id, going], |r| r.get(0))?;
    let users = conn
        .prepare_cached(sql!(
            "SELECT {} FROM event_member m INDEXED BY event_member_going
             JOIN user u ON u.id = m.user_id
             WHERE m.event_id = ?1 AND m.going = ?2
             ORDER BY m.created_at, m.user_id LIMIT ?3 OFFSET ?4",
            crate::db::users::qualified(crate::db::users::COLUMNS, "u")
        ))?
        .query_map(params![id, going, limit, offset], crate::db::users::from_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, users))
}

#[cfg(test)]
mod tests;

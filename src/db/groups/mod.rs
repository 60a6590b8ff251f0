//! Groups (SPEC §10 "Groups, events and private messages"): the `community_group`
//! rows, and the two privacy rules every read of a group or of what is in one goes
//! through, each written once as SQL:
//!
//! - [`visible`]: who sees a group at all (its detail, the lists, the search, the
//!   suggestions): a live group that is public, or private and `visible`, or of which
//!   the viewer is a member, invited or a requester;
//! - [`item_shown`]: who sees an item (discussion, post, comment) made in a group (its
//!   detail, votes, comments, the group feed, the search, notifications): items in no
//!   group, and items of a live group that is public or of which the viewer is a
//!   member (creator, admin or subscribed).
//!
//! Memberships are [`super::members`] with [`Roster::Group`].

mod people;

pub use people::{is_member, user_groups};
use rusqlite::{Connection, OptionalExtension, params};

use super::members::{self, Roster};
use crate::clock::Timestamp;
use crate::model::course::name_key;
use crate::model::group::{Group, GroupSeen, JoinStatus};

/// The columns [`from_row`] reads, for a `community_group` aliased `g`.
const COLUMNS: &str = "g.id, g.name, g.slug, g.description, g.color, g.privacy, g.visible,
    g.image_key, g.cover_key, g.created_at, g.created_by, g.deleted, g.subscribers_counter";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Group> {
    Ok(from_columns!(r => Group {
        id, name, slug, description, color, privacy, visible, image_key, cover_key,
        created_at, created_by, deleted, subscribers_counter
    }))
}

/// The statuses that make a member (who sees a private group's items and members).
const MEMBER: &str = "('creator', 'manager', 'joined')";

/// The SQL condition that group `g` is one viewer `?{n}` may see (null: anonymous).
pub fn visible(n: u8) -> String {
    members::visible_sql(Roster::Group, "g", n)
}

/// The SQL condition that item `c` (a contribution row) is one viewer `?{n}` may see
/// as far as its group goes: in no group, or in a live group that is public or of
/// which the viewer is a member.
pub fn item_shown(n: u8) -> String {
    format!(
        "(c.group_id IS NULL OR EXISTS (SELECT 1 FROM community_group ig WHERE ig.id = c.group_id
          AND ig.deleted = 0 AND (ig.privacy = 'public' OR EXISTS (SELECT 1 FROM group_member im
            WHERE im.group_id = ig.id AND im.user_id = ?{n} AND im.join_status IN {MEMBER}))))"
    )
}

/// A group, deleted or not.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Group>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM community_group g WHERE g.id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// Group `id` and the viewer's status in it, when the viewer may see it ([`visible`]).
pub fn seen(
    conn: &Connection,
    id: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Option<(Group, Option<JoinStatus>)>> {
    let group = conn
        .prepare_cached(sql!(
            "SELECT {COLUMNS} FROM community_group g WHERE g.id = ?2 AND {}",
            visible(1)
        ))?
        .query_row(params![viewer, id], from_row)
        .optional()?;
    match group {
        Some(g) => {
            let status = members::status_of(conn, Roster::Group, id, viewer)?;
            Ok(Some((g, status)))
        }
        None => Ok(None),
    }
}

/// A group as `viewer` sees it beside an item or a notification: the record, the
/// viewer's status and the creator (`None` when either is gone).
pub fn seen_by(
    conn: &Connection,
    id: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Option<GroupSeen>> {
    let Some(group) = get(conn, id)? else { return Ok(None) };
    let Some(creator) = super::users::get(conn, group.created_by)? else { return Ok(None) };
    let status = members::status_of(conn, Roster::Group, id, viewer)?;
    Ok(Some(GroupSeen { group, status, creator }))
}

/// Whether another live or deleted group than `except` has this name (compared
/// case-insensitively).
pub fn name_taken(conn: &Connection, name: &str, except: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM community_group WHERE name_key = ?1 AND id <> ?2")?
        .exists(params![name_key(name), except])
}

/// Whether another group has this slug.
pub fn slug_taken(conn: &Connection, slug: &str, except: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM community_group WHERE slug = ?1 AND id <> ?2")?
        .exists(params![slug, except])
}

/// Stores a new group and its creator's membership; returns its id.
pub fn create(conn: &Connection, g: &Group) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO community_group (name, name_key, slug, description, color, privacy, visible,
                                      image_key, cover_key, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        g.name,
        name_key(&g.name),
        g.slug,
        g.description,
        g.color,
        g.privacy,
        g.visible,
        g.image_key,
        g.cover_key,
        g.created_at,
        g.created_by
    ])?;
    let id = conn.last_insert_rowid();
    members::set(conn, Roster::Group, id, g.created_by, JoinStatus::Creator, g.created_at)?;
    Ok(id)
}

/// Writes a group's editable fields back (the counter is the triggers').
pub fn update(conn: &Connection, g: &Group) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE community_group SET name = ?2, name_key = ?3, slug = ?4, description = ?5,
           color = ?6, privacy = ?7, visible = ?8, image_key = ?9, cover_key = ?10, deleted = ?11
         WHERE id = ?1",
    )?
    .execute(params![
        g.id,
        g.name,
        name_key(&g.name),
        g.slug,
        g.description,
        g.color,
        g.privacy,
        g.visible,
        g.image_key,
        g.cover_key,
        g.deleted
    ])?;
    Ok(())
}

/// Stores the squares of a new avatar (`cover`: the cover's one square) under a fresh
/// versioned key and drops the previous ones; returns the key.
pub fn store_image(
    conn: &Connection,
    group: i64,
    what: &str,
    squares: &crate::images::Squares,
    only: Option<u32>,
    now: Timestamp,
) -> rusqlite::Result<String> {
    super::media::store_squares(conn, &format!("group/{group}/{what}/"), squares, only, now)
}

/// Drops a group's stored avatar or cover.
pub fn drop_image(conn: &Connection, group: i64, what: &str) -> rusqlite::Result<()> {
    super::media::delete_prefix(conn, &format!("group/{group}/{what}/"))
}

/// One page of the groups `viewer` may see whose name or description contains `text`
/// (case-insensitively; all when `None`), newest first, and how many there are.
pub fn search(
    conn: &Connection,
    viewer: Option<i64>,
    text: Option<&str>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let pattern = text.map(|t| {
        format!(
            "%{}%",
            t.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
        )
    });
    const MATCH: &str = "(?2 IS NULL OR lower(g.name) LIKE ?2 ESCAPE '\\'
        OR lower(g.description) LIKE ?2 ESCAPE '\\')";
    let count = conn
        .prepare_cached(sql!(
            "SELECT count(*) FROM community_group g INDEXED BY community_group_live
             WHERE g.deleted = 0 AND {} AND {MATCH}",
            visible(1)
        ))?
        .query_row(params![viewer, pattern], |r| r.get(0))?;
    let ids = conn
        .prepare_cached(sql!(
            "SELECT g.id FROM community_group g INDEXED BY community_group_live
             WHERE g.deleted = 0 AND {} AND {MATCH} ORDER BY g.id DESC LIMIT ?3 OFFSET ?4",
            visible(1)
        ))?
        .query_map(params![viewer, pattern, limit, offset], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok((count, ids))
}

#[cfg(test)]
mod tests;

//! Suggestions (SPEC §10, the kit's "who to follow", "categories to follow" and "polls"
//! widgets): the most followed live users and active categories the caller does not
//! follow yet, and the newest open polls it has not answered, at most [`WINDOW`] of
//! each. Users leave out the caller and those it hides. A suggestion walks
//! `user_popular` / the categories by followers / the polls newest first, skipping what
//! does not qualify: it costs the window plus what it skips.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::db::feed::not_hidden;
use crate::db::tags::addressing_shown;

/// The most suggestions of each kind.
pub const WINDOW: i64 = 100;

/// The ids of the users suggested to `user`, most followed first (ties by id).
pub fn users(conn: &Connection, user: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT u.id FROM user u INDEXED BY user_popular
         WHERE u.deleted = 0 AND u.id <> ?1
           AND NOT EXISTS (SELECT 1 FROM follow f WHERE f.follower = ?1 AND f.followed = u.id)
           AND NOT EXISTS (SELECT 1 FROM user_hide h WHERE h.user_id = ?1 AND h.hidden_id = u.id)
         ORDER BY u.followers_counter DESC, u.id LIMIT ?2",
    )?
    .query_map(params![user, WINDOW], |r| r.get(0))?
    .collect()
}

/// The ids of the active categories suggested to `user`, most followed first (ties by
/// id).
pub fn categories(conn: &Connection, user: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT c.id FROM category c
         WHERE c.active = 1 AND c.deleted = 0
           AND NOT EXISTS (SELECT 1 FROM category_follow f WHERE f.user_id = ?1 AND f.category_id = c.id)
         ORDER BY c.followers_counter DESC, c.id LIMIT ?2",
    )?
    .query_map(params![user, WINDOW], |r| r.get(0))?
    .collect()
}

/// The pks of the discussions and posts whose poll is suggested to `user` at `now`,
/// the newest item first: the poll is open (not closed, not expired), the caller did
/// not write the item nor vote in it, and the item is one explore shows the caller
/// (live, not collapsed by a moderator, in no group or event, its author not one the
/// caller hides, its addressing one the caller may see). The walk is the poll table's
/// own order (`CROSS JOIN` keeps the planner from starting at the items).
pub fn polls(conn: &Connection, user: i64, now: Timestamp) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(sql!(
        "SELECT p.contribution_pk FROM poll p
         CROSS JOIN contribution c ON c.pk = p.contribution_pk
         WHERE p.closed = 0 AND (p.expiration_at IS NULL OR p.expiration_at > ?2)
           AND c.deleted = 0 AND c.collapsed = 0 AND c.author_id <> ?1
           AND c.group_id IS NULL AND c.event_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM poll_vote v
                           WHERE v.contribution_pk = p.contribution_pk AND v.user_id = ?1)
           AND {} AND {}
         ORDER BY p.contribution_pk DESC LIMIT ?3",
        not_hidden(1),
        addressing_shown(1)
    ))?
    .query_map(params![user, now, WINDOW], |r| r.get(0))?
    .collect()
}

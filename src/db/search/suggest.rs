//! Suggestions (SPEC §10, the kit's "who to follow" and "categories to follow"
//! widgets): the most followed live users and active categories the caller does not
//! follow yet, at most [`WINDOW`] of them. Users leave out the caller and those it
//! hides. A suggestion walks `user_popular` / the categories by followers, skipping
//! what the caller follows: it costs the window plus what it skips.

use rusqlite::{Connection, params};

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

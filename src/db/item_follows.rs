//! Members following an item (`contribution_follow`, schema version 12; the kit's
//! bookmark button on a card): a follower is told of every new comment on it
//! ([`followers`], read by `db::notifications::written` when a comment is written). The item's
//! `follower_count` is kept by triggers; a member's follows end with their account.

use rusqlite::Connection;

use super::item_switches::{self, Switch};
use crate::clock::Timestamp;

/// Whether `user` follows item `pk`.
pub fn follows(conn: &Connection, user: i64, pk: i64) -> rusqlite::Result<bool> {
    item_switches::is_on(conn, Switch::Follow, user, pk)
}

/// `user` follows item `pk`, or stops when it does; whether it follows afterwards.
pub fn toggle(conn: &Connection, user: i64, pk: i64, now: Timestamp) -> rusqlite::Result<bool> {
    item_switches::toggle(conn, Switch::Follow, user, pk, now)
}

/// The members following item `pk`, by id.
pub fn followers(conn: &Connection, pk: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT user_id FROM contribution_follow WHERE contribution_pk = ?1 ORDER BY user_id",
    )?
    .query_map([pk], |r| r.get(0))?
    .collect()
}

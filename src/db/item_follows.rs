//! Members following an item (`contribution_follow`, schema version 12; the kit's
//! bookmark button on a card): a follower is told of every new comment on it
//! ([`followers`], read by `db::contributions` when a comment is written). The item's
//! `follower_count` is kept by triggers; a member's follows end with their account.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;

/// Whether `user` follows item `pk`.
pub fn follows(conn: &Connection, user: i64, pk: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT 1 FROM contribution_follow WHERE contribution_pk = ?1 AND user_id = ?2",
    )?
    .exists(params![pk, user])
}

/// `user` follows item `pk`, or stops when it does; whether it follows afterwards.
pub fn toggle(conn: &Connection, user: i64, pk: i64, now: Timestamp) -> rusqlite::Result<bool> {
    let removed = conn
        .prepare_cached(
            "DELETE FROM contribution_follow WHERE contribution_pk = ?1 AND user_id = ?2",
        )?
        .execute(params![pk, user])?;
    if removed > 0 {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO contribution_follow (contribution_pk, user_id, created_at) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![pk, user, now])?;
    Ok(true)
}

/// The members following item `pk`, by id.
pub fn followers(conn: &Connection, pk: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT user_id FROM contribution_follow WHERE contribution_pk = ?1 ORDER BY user_id",
    )?
    .query_map([pk], |r| r.get(0))?
    .collect()
}

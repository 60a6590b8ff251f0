//! What a user has seen of the feeds (`feed_seen`): `POST /api/v2/feed/read/` marks
//! items; an item is seen while its mark is at or after its last activity, so a new
//! comment makes it unseen again.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;

/// Marks item `pk` seen by `user` at `now`.
pub fn mark(conn: &Connection, user: i64, pk: i64, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO feed_seen (user_id, contribution_pk, seen_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (user_id, contribution_pk) DO UPDATE SET seen_at = max(seen_at, excluded.seen_at)",
    )?
    .execute(params![user, pk, now])?;
    Ok(())
}

/// Whether `user` has seen item `pk` since its last activity.
pub fn is_seen(conn: &Connection, user: i64, pk: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT 1 FROM feed_seen s JOIN contribution c ON c.pk = s.contribution_pk
         WHERE s.user_id = ?1 AND s.contribution_pk = ?2 AND s.seen_at >= c.last_activity_at",
    )?
    .exists([user, pk])
}

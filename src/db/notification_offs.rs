//! The items a member stopped hearing about (`contribution_notification_off`, schema
//! version 12; the kit's "Stop notifications for this contribution"): no notification
//! about such an item reaches them (comments, replies, votes, mentions), until they
//! turn it back on. Forgotten with the account.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;

/// Whether `user` stopped the notifications about item `pk`.
pub fn is_off(conn: &Connection, user: i64, pk: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT 1 FROM contribution_notification_off WHERE user_id = ?1 AND contribution_pk = ?2",
    )?
    .exists(params![user, pk])
}

/// Turns `user`'s notifications about item `pk` off, or back on when they are off;
/// whether they are off afterwards.
pub fn toggle(conn: &Connection, user: i64, pk: i64, now: Timestamp) -> rusqlite::Result<bool> {
    let removed = conn
        .prepare_cached(
            "DELETE FROM contribution_notification_off WHERE user_id = ?1 AND contribution_pk = ?2",
        )?
        .execute(params![user, pk])?;
    if removed > 0 {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO contribution_notification_off (user_id, contribution_pk, created_at)
         VALUES (?1, ?2, ?3)",
    )?
    .execute(params![user, pk, now])?;
    Ok(true)
}

//! Members whom staff blocked (SPEC §10 People; the platform's user `status: b`): the
//! block and its end on the user's row (`blocked_at`, `blocked_until`; no end: until
//! staff lift it). What a blocked member may not do is decided where every API write
//! passes (`api::call`); this module keeps the rows.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;

/// The longest block with an end, in days (ten years: longer is "until lifted").
pub const MAX_DAYS: i64 = 3650;

/// When a block of `days` from `now` ends (None: until lifted).
pub fn until(now: Timestamp, days: Option<i64>) -> Option<Timestamp> {
    days.map(|d| now + d * 86_400 * crate::clock::SECOND)
}

/// A member's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub user_id: i64,
    pub blocked_at: Timestamp,
    /// None: until staff lift it.
    pub until: Option<Timestamp>,
}

impl Block {
    /// Whether it holds at `now`.
    pub fn holds(&self, now: Timestamp) -> bool {
        self.until.is_none_or(|u| now < u)
    }
}

/// Whether `user_id` is blocked at `now` (a primary-key read: every refused write asks).
pub fn is_blocked(conn: &Connection, user_id: i64, now: Timestamp) -> rusqlite::Result<bool> {
    Ok(of(conn, user_id)?.is_some_and(|b| b.holds(now)))
}

/// The user's block, held or ended (None: never blocked, or lifted).
pub fn of(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<Block>> {
    conn.prepare_cached(
        "SELECT id, blocked_at, blocked_until FROM user WHERE id = ?1 AND blocked_at IS NOT NULL",
    )?
    .query_row([user_id], |r| {
        Ok(Block { user_id: r.get(0)?, blocked_at: r.get(1)?, until: r.get(2)? })
    })
    .optional()
}

/// Blocks a live user from `now` until `until` (None: until lifted); a block in force is
/// replaced. Returns false when there is no such live user.
pub fn block(
    conn: &Connection,
    user_id: i64,
    now: Timestamp,
    until: Option<Timestamp>,
) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached(
            "UPDATE user SET blocked_at = ?2, blocked_until = ?3 WHERE id = ?1 AND deleted = 0",
        )?
        .execute(params![user_id, now, until])?;
    Ok(n > 0)
}

/// Lifts a user's block (none: nothing changes). Returns false when there is no such
/// live user.
pub fn lift(conn: &Connection, user_id: i64) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached(
            "UPDATE user SET blocked_at = NULL, blocked_until = NULL WHERE id = ?1 AND deleted = 0",
        )?
        .execute([user_id])?;
    Ok(n > 0)
}

/// The blocked live users, the most recently blocked first: `forever` picks the blocks
/// without an end (true) or with one (false), None both. An index walk.
pub fn list(
    conn: &Connection,
    forever: Option<bool>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<Block>> {
    conn.prepare_cached(
        "SELECT id, blocked_at, blocked_until FROM user INDEXED BY user_blocked
         WHERE blocked_at IS NOT NULL AND deleted = 0
           AND (?1 IS NULL OR (blocked_until IS NULL) = ?1)
         ORDER BY blocked_at DESC, id DESC LIMIT ?2 OFFSET ?3",
    )?
    .query_map(params![forever, limit, offset], |r| {
        Ok(Block { user_id: r.get(0)?, blocked_at: r.get(1)?, until: r.get(2)? })
    })?
    .collect()
}

/// How many [`list`] holds, counted to `cap` at most.
pub fn count(conn: &Connection, forever: Option<bool>, cap: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT count(*) FROM (SELECT 1 FROM user INDEXED BY user_blocked
         WHERE blocked_at IS NOT NULL AND deleted = 0
           AND (?1 IS NULL OR (blocked_until IS NULL) = ?1) LIMIT ?2)",
    )?
    .query_row(params![forever, cap], |r| r.get(0))
}

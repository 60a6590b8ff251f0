//! The onboarding steps' state (`model::onboarding`): one row per step staff started or
//! completed.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::onboarding::Status;

/// Where step `id` stands.
pub fn status(conn: &Connection, id: i64) -> rusqlite::Result<Status> {
    let s: Option<String> = conn
        .prepare_cached("SELECT status FROM onboarding_step WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    Ok(Status::from_stored(s.as_deref()))
}

/// Marks step `id` started, unless it already is or was completed.
pub fn start(conn: &Connection, id: i64, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO onboarding_step (id, status, started_at) VALUES (?1, 'in_progress', ?2)",
    )?
    .execute(params![id, now])?;
    Ok(())
}

/// Marks step `id` completed (started now too if it was not); completing it again
/// keeps the first time.
pub fn complete(conn: &Connection, id: i64, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO onboarding_step (id, status, started_at, completed_at)
         VALUES (?1, 'completed', ?2, ?2)
         ON CONFLICT (id) DO UPDATE SET status = 'completed',
             completed_at = coalesce(completed_at, excluded.completed_at)",
    )?
    .execute(params![id, now])?;
    Ok(())
}

//! Browser login sessions of the OAuth pages (the cookie value stored as its SHA-256).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;

/// A live session.
#[derive(Debug, Clone)]
pub struct Session {
    /// The signed-in user.
    pub user_id: i64,
    /// The user's name (shown on the pages).
    pub username: String,
    /// The CSRF token of every form posted within this session.
    pub csrf: String,
}

/// Opens a session.
pub fn insert(
    conn: &Connection,
    hash: &[u8; 32],
    user_id: i64,
    csrf: &str,
    now: Timestamp,
    expires_at: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM login_session WHERE expires_at <= ?1")?.execute([now])?;
    conn.prepare_cached(
        "INSERT INTO login_session (hash, user_id, csrf, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![&hash[..], user_id, csrf, now, expires_at])?;
    Ok(())
}

/// The live session with this cookie hash (unexpired, its user not deleted).
pub fn get(
    conn: &Connection,
    hash: &[u8; 32],
    now: Timestamp,
) -> rusqlite::Result<Option<Session>> {
    conn.prepare_cached(
        "SELECT s.user_id, u.username, s.csrf FROM login_session s JOIN user u ON u.id = s.user_id
         WHERE s.hash = ?1 AND s.expires_at > ?2 AND u.deleted = 0",
    )?
    .query_row(params![&hash[..], now], |r| {
        Ok(from_columns!(r => Session { user_id, username, csrf }))
    })
    .optional()
}

/// Ends a session.
pub fn delete(conn: &Connection, hash: &[u8; 32]) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM login_session WHERE hash = ?1")?.execute([&hash[..]])?;
    Ok(())
}

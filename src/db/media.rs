//! Images stored in the database, served under `/media/`.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;

/// (content type, bytes) of a stored file.
pub fn get(conn: &Connection, path: &str) -> rusqlite::Result<Option<(String, Vec<u8>)>> {
    conn.prepare_cached("SELECT content_type, body FROM media WHERE path = ?1")?
        .query_row([path], |r| r.try_into())
        .optional()
}

/// Stores (or replaces) a file.
pub fn put(
    conn: &Connection,
    path: &str,
    content_type: &str,
    body: &[u8],
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO media (path, content_type, body, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (path) DO UPDATE SET content_type = excluded.content_type, body = excluded.body",
    )?
    .execute(params![path, content_type, body, now])?;
    Ok(())
}

/// Deletes every file under a prefix.
pub fn delete_prefix(conn: &Connection, prefix: &str) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM media WHERE substr(path, 1, length(?1)) = ?1", [prefix])?;
    Ok(())
}

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

/// Stores the squares of a new image under `prefix` (`group/7/image/`: a fresh
/// versioned key below it; `only`: the one side kept) and drops the previous ones;
/// returns the key (the media path with `-{side}` left out).
pub fn store_squares(
    conn: &Connection,
    prefix: &str,
    squares: &crate::images::Squares,
    only: Option<u32>,
    now: Timestamp,
) -> rusqlite::Result<String> {
    delete_prefix(conn, prefix)?;
    let key = format!(
        "{prefix}{}.{}",
        crate::token::random_string(8).to_ascii_lowercase().replace(['-', '_'], "x"),
        squares.extension
    );
    for sq in squares.squares.iter().filter(|s| only.is_none_or(|o| o == s.side)) {
        put(
            conn,
            &crate::model::course::media_path(&key, sq.side),
            squares.content_type,
            &sq.bytes,
            now,
        )?;
    }
    Ok(key)
}

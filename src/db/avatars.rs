//! A member's uploaded avatars (`model::avatar`): the rows, their images in `media`, and
//! which one is `user.avatar`.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::avatar::Avatar;

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Avatar> {
    Ok(Avatar { id: r.get(0)?, user_id: r.get(1)?, path: r.get(2)?, created_at: r.get(3)? })
}

/// How many avatars `user` keeps.
pub fn count(conn: &Connection, user: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT count(*) FROM user_avatar WHERE user_id = ?1")?
        .query_row([user], |r| r.get(0))
}

/// One page of `user`'s avatars, in upload order.
pub fn page(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<Avatar>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, user_id, path, created_at FROM user_avatar WHERE user_id = ?1
         ORDER BY id LIMIT ?2 OFFSET ?3",
    )?;
    let rows = stmt.query_map([user, limit, offset], row)?;
    rows.collect()
}

/// `user`'s avatar `id`, if it is theirs.
pub fn get(conn: &Connection, user: i64, id: i64) -> rusqlite::Result<Option<Avatar>> {
    conn.prepare_cached(
        "SELECT id, user_id, path, created_at FROM user_avatar WHERE id = ?1 AND user_id = ?2",
    )?
    .query_row([id, user], row)
    .optional()
}

/// `user`'s `avatar` path now (`""`: the default).
pub fn current(conn: &Connection, user: i64) -> rusqlite::Result<String> {
    conn.prepare_cached("SELECT avatar FROM user WHERE id = ?1")?
        .query_row([user], |r| r.get(0))
        .optional()
        .map(Option::unwrap_or_default)
}

/// Makes `path` (`""`: the default) `user`'s avatar.
pub fn set_current(conn: &Connection, user: i64, path: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE user SET avatar = ?2 WHERE id = ?1")?
        .execute(params![user, path])?;
    Ok(())
}

/// Adds an avatar of `user` with its image (`extension`, `content_type`, `bytes`) and
/// makes it the primary one.
pub fn add(
    conn: &Connection,
    user: i64,
    (extension, content_type, bytes): (&str, &str, &[u8]),
    now: Timestamp,
) -> rusqlite::Result<Avatar> {
    conn.prepare_cached("INSERT INTO user_avatar (user_id, path, created_at) VALUES (?1, '', ?2)")?
        .execute(params![user, now])?;
    let id = conn.last_insert_rowid();
    // a fresh name each time: `/media/` serves its files as immutable
    let nonce = crate::token::random_string(8).to_ascii_lowercase().replace(['-', '_'], "x");
    let key = format!("avatar/{user}/{id}-{nonce}.{extension}");
    super::media::put(conn, &key, content_type, bytes, now)?;
    let path = format!("/media/{key}");
    conn.prepare_cached("UPDATE user_avatar SET path = ?2 WHERE id = ?1")?
        .execute(params![id, path])?;
    set_current(conn, user, &path)?;
    Ok(Avatar { id, user_id: user, path, created_at: now })
}

/// Deletes `avatar` and its image. When it was `user`'s avatar, the newest remaining one
/// takes its place (none left: the default).
pub fn delete(conn: &Connection, avatar: &Avatar) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM user_avatar WHERE id = ?1")?.execute([avatar.id])?;
    if let Some(key) = avatar.path.strip_prefix("/media/") {
        conn.prepare_cached("DELETE FROM media WHERE path = ?1")?.execute([key])?;
    }
    if current(conn, avatar.user_id)? == avatar.path {
        let newest: Option<String> = conn
            .prepare_cached(
                "SELECT path FROM user_avatar WHERE user_id = ?1 ORDER BY id DESC LIMIT 1",
            )?
            .query_row([avatar.user_id], |r| r.get(0))
            .optional()?;
        set_current(conn, avatar.user_id, newest.as_deref().unwrap_or(""))?;
    }
    Ok(())
}

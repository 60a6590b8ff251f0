//! An event's photo gallery (SPEC §10 Events, the kit's `EventMediaWidget`): pictures
//! its managers added (`event_gallery`), newest first. Who reads it is the caller's
//! question (the event's items' rule).

use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::db::media_items;
use crate::model::media::{GALLERY_MAX, MediaItem};

/// A page of event `id`'s gallery, and how many pictures it has.
pub fn page(
    conn: &Connection,
    id: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<MediaItem>)> {
    let count = conn
        .prepare_cached("SELECT count(*) FROM event_gallery WHERE event_id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let ids: Vec<i64> = conn
        .prepare_cached(
            "SELECT media_id FROM event_gallery INDEXED BY event_gallery_newest
             WHERE event_id = ?1 ORDER BY added_at DESC, media_id DESC LIMIT ?2 OFFSET ?3",
        )?
        .query_map(params![id, limit, offset], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok((count, media_items::by_ids(conn, &ids)?))
}

/// Adds item `media` to event `id`'s gallery (again: nothing changes); false when the
/// gallery holds [`GALLERY_MAX`] pictures already.
pub fn add(conn: &Connection, id: i64, media: i64, now: Timestamp) -> rusqlite::Result<bool> {
    let count: i64 = conn
        .prepare_cached("SELECT count(*) FROM event_gallery WHERE event_id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let there = conn
        .prepare_cached("SELECT 1 FROM event_gallery WHERE event_id = ?1 AND media_id = ?2")?
        .exists([id, media])?;
    if there {
        return Ok(true);
    }
    if count >= GALLERY_MAX {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO event_gallery (event_id, media_id, added_at) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![id, media, now])?;
    Ok(true)
}

/// Takes items out of event `id`'s gallery (those not in it: nothing).
pub fn remove(conn: &Connection, id: i64, media: &[i64]) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare_cached("DELETE FROM event_gallery WHERE event_id = ?1 AND media_id = ?2")?;
    for m in media {
        stmt.execute([id, *m])?;
    }
    Ok(())
}

//! A private message's file (SPEC §10, the kit's uploader): sent whole or in chunks
//! (`pm_chunk`), made whole into `media` (served under `/media/pm/`), given a
//! thumbnail, then named by one message. A file belongs to its uploader until a message
//! carries it; its bytes go when the message is taken back.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::message::{FILE_MAX, File, PARTS_MAX, clean_filename, sniff};

/// Why an upload step was refused (each a 400 on a field, or 404 for a file that is not
/// the caller's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// No such file of the caller's (or it is whole already, for a chunk).
    Unknown,
    /// More than [`FILE_MAX`] bytes in all.
    TooLarge,
    /// A part index outside `0..PARTS_MAX`, or the parts do not make a whole file.
    Parts,
}

/// A file `owner` starts sending; its uuid.
pub fn create(conn: &Connection, owner: i64, now: Timestamp) -> rusqlite::Result<String> {
    let uuid = crate::token::random_string(16);
    conn.prepare_cached("INSERT INTO pm_file (uuid, owner_id, created_at) VALUES (?1, ?2, ?3)")?
        .execute(params![uuid, owner, now])?;
    Ok(uuid)
}

/// Whether `owner` is sending `uuid` and it is not whole yet.
fn open(conn: &Connection, owner: i64, uuid: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM pm_file WHERE uuid = ?1 AND owner_id = ?2 AND path IS NULL")?
        .exists(params![uuid, owner])
}

/// Stores chunk `part` of `owner`'s file `uuid` (a part sent again replaces itself).
pub fn add_chunk(
    conn: &Connection,
    owner: i64,
    uuid: &str,
    part: i64,
    bytes: &[u8],
) -> rusqlite::Result<Result<(), Refused>> {
    if !open(conn, owner, uuid)? {
        return Ok(Err(Refused::Unknown));
    }
    if !(0..PARTS_MAX).contains(&part) {
        return Ok(Err(Refused::Parts));
    }
    let others: i64 = conn
        .prepare_cached(
            "SELECT coalesce(sum(length(body)), 0) FROM pm_chunk WHERE uuid = ?1 AND part <> ?2",
        )?
        .query_row(params![uuid, part], |r| r.get(0))?;
    if others + i64::try_from(bytes.len()).unwrap_or(i64::MAX) > FILE_MAX {
        return Ok(Err(Refused::TooLarge));
    }
    conn.prepare_cached(
        "INSERT INTO pm_chunk (uuid, part, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (uuid, part) DO UPDATE SET body = excluded.body",
    )?
    .execute(params![uuid, part, bytes])?;
    Ok(Ok(()))
}

/// Makes `owner`'s file `uuid` whole from its chunks (parts `0..n`, each once; `parts`,
/// when the uploader says, must be `n`), its type from its bytes, under the name the
/// uploader gave; answers the file.
pub fn finish(
    conn: &Connection,
    owner: i64,
    uuid: &str,
    filename: &str,
    parts: Option<i64>,
    duration: Option<f64>,
    now: Timestamp,
) -> rusqlite::Result<Result<File, Refused>> {
    // a file sent in one piece is whole already (the kit still says it is done): its
    // name is what the uploader says now
    if usable(conn, owner, uuid)? {
        conn.prepare_cached(
            "UPDATE pm_file SET filename = ?2, duration = coalesce(?3, duration) WHERE uuid = ?1",
        )?
        .execute(params![uuid, clean_filename(filename), duration])?;
        return Ok(get(conn, uuid)?.ok_or(Refused::Unknown));
    }
    if !open(conn, owner, uuid)? {
        return Ok(Err(Refused::Unknown));
    }
    let chunks: Vec<(i64, Vec<u8>)> = conn
        .prepare_cached("SELECT part, body FROM pm_chunk WHERE uuid = ?1 ORDER BY part")?
        .query_map([uuid], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let n = i64::try_from(chunks.len()).unwrap_or(i64::MAX);
    let contiguous = chunks.iter().enumerate().all(|(i, (p, _))| i64::try_from(i) == Ok(*p));
    if n == 0 || !contiguous || parts.is_some_and(|p| p != n) {
        return Ok(Err(Refused::Parts));
    }
    let body: Vec<u8> = chunks.into_iter().flat_map(|(_, b)| b).collect();
    let mimetype = sniff(&body);
    let key = format!("pm/{uuid}");
    super::super::media::put(conn, &key, mimetype, &body, now)?;
    conn.prepare_cached("DELETE FROM pm_chunk WHERE uuid = ?1")?.execute([uuid])?;
    conn.prepare_cached(
        "UPDATE pm_file SET filename = ?2, mimetype = ?3, filesize = ?4, duration = ?5, path = ?6
         WHERE uuid = ?1",
    )?
    .execute(params![
        uuid,
        clean_filename(filename),
        mimetype,
        i64::try_from(body.len()).unwrap_or(i64::MAX),
        duration,
        format!("/media/{key}")
    ])?;
    Ok(get(conn, uuid)?.ok_or(Refused::Unknown))
}

/// Stores the thumbnail (an image already checked) of `owner`'s whole file `uuid`.
pub fn set_thumbnail(
    conn: &Connection,
    owner: i64,
    uuid: &str,
    bytes: &[u8],
    now: Timestamp,
) -> rusqlite::Result<Result<File, Refused>> {
    let whole = conn
        .prepare_cached(
            "SELECT 1 FROM pm_file WHERE uuid = ?1 AND owner_id = ?2 AND path IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM private_message m WHERE m.file_uuid = ?1)",
        )?
        .exists(params![uuid, owner])?;
    if !whole {
        return Ok(Err(Refused::Unknown));
    }
    // a fresh name each time: `/media/` serves its files as immutable
    let nonce = crate::token::random_string(6);
    let key = format!("pm/{uuid}-thumb-{nonce}");
    super::super::media::put(conn, &key, sniff(bytes), bytes, now)?;
    let old: Option<String> = conn
        .prepare_cached("SELECT thumbnail FROM pm_file WHERE uuid = ?1")?
        .query_row([uuid], |r| r.get(0))?;
    if let Some(old) = old.as_deref().and_then(|p| p.strip_prefix("/media/")) {
        conn.prepare_cached("DELETE FROM media WHERE path = ?1")?.execute([old])?;
    }
    conn.prepare_cached("UPDATE pm_file SET thumbnail = ?2 WHERE uuid = ?1")?
        .execute(params![uuid, format!("/media/{key}")])?;
    Ok(get(conn, uuid)?.ok_or(Refused::Unknown))
}

/// Whether `owner` may attach `uuid` to a message: theirs, whole, on no message yet.
pub fn usable(conn: &Connection, owner: i64, uuid: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT 1 FROM pm_file f WHERE f.uuid = ?1 AND f.owner_id = ?2 AND f.path IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM private_message m WHERE m.file_uuid = ?1)",
    )?
    .exists(params![uuid, owner])
}

/// File `uuid`.
pub fn get(conn: &Connection, uuid: &str) -> rusqlite::Result<Option<File>> {
    conn.prepare_cached(
        "SELECT uuid, filename, mimetype, filesize, duration, path, thumbnail
         FROM pm_file WHERE uuid = ?1",
    )?
    .query_row([uuid], |r| {
        Ok(File {
            uuid: r.get(0)?,
            filename: r.get(1)?,
            mimetype: r.get(2)?,
            filesize: r.get(3)?,
            duration: r.get(4)?,
            path: r.get(5)?,
            thumbnail: r.get(6)?,
        })
    })
    .optional()
}

/// Removes file `uuid` and its bytes (its message was taken back).
pub fn remove(conn: &Connection, uuid: &str) -> rusqlite::Result<()> {
    if let Some(f) = get(conn, uuid)? {
        for p in [f.path, f.thumbnail].into_iter().flatten() {
            if let Some(key) = p.strip_prefix("/media/") {
                conn.prepare_cached("DELETE FROM media WHERE path = ?1")?.execute([key])?;
            }
        }
    }
    conn.prepare_cached("DELETE FROM pm_file WHERE uuid = ?1")?.execute([uuid])?;
    Ok(())
}

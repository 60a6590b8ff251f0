//! Media items (SPEC §5 images, the kit's chunked uploader and Composer; `model::media`):
//! a picture, a link or a share. A picture comes in chunks, each starting where the bytes
//! received so far end, made whole once (`take_whole`: the bytes leave the database for
//! the image pipeline, outside any transaction), then stored in `media` with its
//! `media_item` row. An event's gallery ([`super::events::gallery`]) shows pictures;
//! removing one from a gallery keeps it its owner's. A discussion or a post shows media
//! (`contribution_media`, [`show_in`]); a share counts on the item it shares by the
//! triggers of `schema.sql`'s version 14.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::contribution::Kind;
use crate::model::media::{
    ChunkRange, LOOSE_MAX, MediaItem, OPEN_UPLOADS_MAX, UPLOAD_MAX, UPLOAD_TTL,
};

/// Why a chunk or a completion was refused (400 on a field, 429 for too many uploads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// No open upload of the caller's with that id (or it expired).
    Unknown,
    /// The chunk does not start where the bytes received so far end.
    Offset { expected: i64 },
    /// More than [`UPLOAD_MAX`] bytes, or more than the upload said it would have.
    TooLarge,
    /// Fewer bytes than the upload said it would have.
    Incomplete,
    /// [`OPEN_UPLOADS_MAX`] unfinished uploads already.
    TooMany,
}

/// An open upload after a chunk: its id, the bytes received, when it expires.
pub type Progress = (String, i64, Timestamp);

/// The columns of `media_item m` [`from_row`] reads, a share's item (its kind and id)
/// last.
const COLUMNS: &str = "m.id, m.owner_id, m.type, m.title, m.path, m.mimetype, m.width, m.height,
    m.size, m.created_at, m.url, (SELECT kind FROM contribution WHERE pk = m.shared_pk),
    (SELECT id FROM contribution WHERE pk = m.shared_pk)";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MediaItem> {
    let shared: (Option<Kind>, Option<i64>) = (r.get(11)?, r.get(12)?);
    Ok(MediaItem {
        id: r.get(0)?,
        owner_id: r.get(1)?,
        kind: r.get(2)?,
        title: r.get(3)?,
        path: r.get(4)?,
        mimetype: r.get(5)?,
        width: r.get(6)?,
        height: r.get(7)?,
        size: r.get(8)?,
        created_at: r.get(9)?,
        url: r.get(10)?,
        shared: shared.0.zip(shared.1),
    })
}

/// Adds a chunk to `owner`'s upload `id` (`None`: the first chunk of a new upload).
/// Expired uploads of the owner go first.
pub fn add_chunk(
    conn: &Connection,
    owner: i64,
    id: Option<&str>,
    range: ChunkRange,
    bytes: &[u8],
    now: Timestamp,
) -> rusqlite::Result<Result<Progress, Refused>> {
    conn.prepare_cached("DELETE FROM media_upload WHERE owner_id = ?1 AND created_at < ?2")?
        .execute(params![owner, now - UPLOAD_TTL])?;
    let len = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let (id, received, total, created) = match id {
        Some(id) => {
            let open = conn
                .prepare_cached(
                    "SELECT received, total, created_at FROM media_upload
                     WHERE id = ?1 AND owner_id = ?2",
                )?
                .query_row(params![id, owner], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?, r.get(2)?))
                })
                .optional()?;
            let Some((received, total, created)) = open else { return Ok(Err(Refused::Unknown)) };
            (id.to_owned(), received, total, created)
        }
        None => {
            let open: i64 = conn
                .prepare_cached("SELECT count(*) FROM media_upload WHERE owner_id = ?1")?
                .query_row([owner], |r| r.get(0))?;
            if open >= OPEN_UPLOADS_MAX {
                return Ok(Err(Refused::TooMany));
            }
            let id = crate::token::random_string(16);
            conn.prepare_cached(
                "INSERT INTO media_upload (id, owner_id, created_at) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![id, owner, now])?;
            (id, 0, None, now)
        }
    };
    if range.start != received {
        return Ok(Err(Refused::Offset { expected: received }));
    }
    let total = total.or(range.total);
    if received + len > total.unwrap_or(UPLOAD_MAX).min(UPLOAD_MAX) {
        return Ok(Err(Refused::TooLarge));
    }
    conn.prepare_cached("INSERT INTO media_chunk (upload_id, start, body) VALUES (?1, ?2, ?3)")?
        .execute(params![id, received, bytes])?;
    conn.prepare_cached("UPDATE media_upload SET received = ?2, total = ?3 WHERE id = ?1")?
        .execute(params![id, received + len, total])?;
    Ok(Ok((id, received + len, created + UPLOAD_TTL)))
}

/// The whole file of `owner`'s upload `id`, which ends the upload: its chunks in order.
pub fn take_whole(
    conn: &Connection,
    owner: i64,
    id: &str,
    now: Timestamp,
) -> rusqlite::Result<Result<Vec<u8>, Refused>> {
    let open = conn
        .prepare_cached(
            "SELECT received, total FROM media_upload
             WHERE id = ?1 AND owner_id = ?2 AND created_at >= ?3",
        )?
        .query_row(params![id, owner, now - UPLOAD_TTL], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
        })
        .optional()?;
    let Some((received, total)) = open else { return Ok(Err(Refused::Unknown)) };
    if received == 0 || total.is_some_and(|t| t != received) {
        return Ok(Err(Refused::Incomplete));
    }
    let mut body = Vec::with_capacity(usize::try_from(received).unwrap_or(0));
    let mut chunks =
        conn.prepare_cached("SELECT body FROM media_chunk WHERE upload_id = ?1 ORDER BY start")?;
    for chunk in chunks.query_map([id], |r| r.get::<_, Vec<u8>>(0))? {
        body.extend_from_slice(&chunk?);
    }
    conn.prepare_cached("DELETE FROM media_chunk WHERE upload_id = ?1")?.execute([id])?;
    conn.prepare_cached("DELETE FROM media_upload WHERE id = ?1")?.execute([id])?;
    Ok(Ok(body))
}

/// Stores a picture of `owner`'s as a new item; its id.
#[expect(clippy::too_many_arguments, reason = "one column each")]
pub fn create(
    conn: &Connection,
    owner: i64,
    extension: &str,
    content_type: &str,
    width: u32,
    height: u32,
    bytes: &[u8],
    now: Timestamp,
) -> rusqlite::Result<i64> {
    // an unguessable name: a private event's pictures are not found by counting
    let path = format!("m/{}.{extension}", crate::token::random_string(16));
    super::media::put(conn, &path, content_type, bytes, now)?;
    conn.prepare_cached(
        "INSERT INTO media_item (owner_id, type, path, mimetype, width, height, size, created_at)
         VALUES (?1, 'image', ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        owner,
        path,
        content_type,
        width,
        height,
        i64::try_from(bytes.len()).unwrap_or(i64::MAX),
        now
    ])?;
    Ok(conn.last_insert_rowid())
}

/// An item.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<MediaItem>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM media_item m WHERE m.id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// Items by id, in the order given (those that exist).
pub fn by_ids(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Vec<MediaItem>> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.extend(get(conn, *id)?);
    }
    Ok(out)
}

/// Deletes an item: out of every gallery and the item that showed it, its picture gone.
pub fn delete(conn: &Connection, item: &MediaItem) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM event_gallery WHERE media_id = ?1")?.execute([item.id])?;
    conn.prepare_cached("DELETE FROM contribution_media WHERE media_id = ?1")?
        .execute([item.id])?;
    conn.prepare_cached("DELETE FROM media_item WHERE id = ?1")?.execute([item.id])?;
    if !item.path.is_empty() {
        conn.prepare_cached("DELETE FROM media WHERE path = ?1")?.execute([&item.path])?;
    }
    Ok(())
}

/// Whether `viewer` may see `item`: its owner, anyone who may see the items of an
/// event whose gallery shows it (the events' rule, [`super::events::item_shown`]), or
/// anyone who may see the live discussion or post that shows it
/// ([`super::spaces::item_shown`]).
pub fn visible(conn: &Connection, item: &MediaItem, viewer: Option<i64>) -> rusqlite::Result<bool> {
    if viewer == Some(item.owner_id) {
        return Ok(true);
    }
    let sql = sql!(
        "SELECT 1 FROM event_gallery c WHERE c.media_id = ?2 AND {}",
        super::events::item_shown(1)
    );
    if conn.prepare_cached(sql)?.exists(params![viewer, item.id])? {
        return Ok(true);
    }
    let sql = sql!(
        "SELECT 1 FROM contribution_media m JOIN contribution c ON c.pk = m.contribution_pk
         WHERE m.media_id = ?2 AND c.deleted = 0 AND {}",
        super::spaces::item_shown(1)
    );
    conn.prepare_cached(sql)?.exists(params![viewer, item.id])
}

/// The media the item `pk` shows, in its order.
pub fn of_contribution(conn: &Connection, pk: i64) -> rusqlite::Result<Vec<MediaItem>> {
    let sql = sql!(
        "SELECT {} FROM contribution_media cm JOIN media_item m ON m.id = cm.media_id
         WHERE cm.contribution_pk = ?1 ORDER BY cm.position",
        COLUMNS
    );
    conn.prepare_cached(sql)?.query_map([pk], from_row)?.collect()
}

/// The first of `ids` that `owner` may not show in the item `pk` (`None`: an item
/// being made): not theirs, or shown by another item already.
pub fn not_showable(
    conn: &Connection,
    owner: i64,
    ids: &[i64],
    pk: Option<i64>,
) -> rusqlite::Result<Option<i64>> {
    let mut q = conn.prepare_cached(
        "SELECT 1 FROM media_item m WHERE m.id = ?1 AND m.owner_id = ?2
           AND NOT EXISTS (SELECT 1 FROM contribution_media cm
                           WHERE cm.media_id = m.id AND cm.contribution_pk IS NOT ?3)",
    )?;
    for id in ids {
        if !q.exists(params![id, owner, pk])? {
            return Ok(Some(*id));
        }
    }
    Ok(None)
}

/// Makes `ids` the media the item `pk` shows, in that order (those it showed before
/// and not now stay their owner's).
pub fn show_in(conn: &Connection, pk: i64, ids: &[i64]) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM contribution_media WHERE contribution_pk = ?1")?
        .execute([pk])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO contribution_media (contribution_pk, position, media_id) VALUES (?1, ?2, ?3)",
    )?;
    for (position, id) in ids.iter().enumerate() {
        insert.execute(params![pk, i64::try_from(position).unwrap_or(i64::MAX), id])?;
    }
    Ok(())
}

/// Whether `owner` may make another link or share: the links and shares of theirs that
/// no item shows and are older than a day go first, then fewer than [`LOOSE_MAX`] may
/// remain.
pub fn may_make_loose(conn: &Connection, owner: i64, now: Timestamp) -> rusqlite::Result<bool> {
    const LOOSE: &str = "owner_id = ?1 AND type <> 'image'
        AND NOT EXISTS (SELECT 1 FROM contribution_media cm WHERE cm.media_id = media_item.id)";
    conn.prepare_cached(sql!("DELETE FROM media_item WHERE {LOOSE} AND created_at < ?2"))?
        .execute(params![owner, now - UPLOAD_TTL])?;
    let n: i64 = conn
        .prepare_cached(sql!("SELECT count(*) FROM media_item WHERE {LOOSE}"))?
        .query_row([owner], |r| r.get(0))?;
    Ok(n < LOOSE_MAX)
}

/// Makes a link media of `owner`'s (`url` checked by [`crate::model::media::link`],
/// `title` its host); its id.
pub fn create_link(
    conn: &Connection,
    owner: i64,
    url: &str,
    title: &str,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO media_item (owner_id, type, title, path, mimetype, width, height, size, created_at, url)
         VALUES (?1, 'url', ?2, '', '', 0, 0, 0, ?3, ?4)",
    )?
    .execute(params![owner, title, now, url])?;
    Ok(conn.last_insert_rowid())
}

/// Makes a share media of `owner`'s: the item `shared_pk`; its id.
pub fn create_share(
    conn: &Connection,
    owner: i64,
    shared_pk: i64,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO media_item (owner_id, type, path, mimetype, width, height, size, created_at, shared_pk)
         VALUES (?1, 'share', '', '', 0, 0, 0, ?2, ?3)",
    )?
    .execute(params![owner, now, shared_pk])?;
    Ok(conn.last_insert_rowid())
}

/// The live discussions, posts and statuses with API id `id` (of `kind` when given):
/// their pks, kinds and whether everyone may see them. Items an older hearth numbered
/// per kind may share an id (`db::contributions::next_id`).
pub fn items_with_id(
    conn: &Connection,
    id: i64,
    kind: Option<Kind>,
) -> rusqlite::Result<Vec<(i64, Kind)>> {
    let kinds: Vec<Kind> = kind.map_or_else(|| Kind::TARGETS.to_vec(), |k| vec![k]);
    let mut q = conn.prepare_cached(
        "SELECT pk, kind FROM contribution WHERE kind = ?1 AND id = ?2 AND deleted = 0",
    )?;
    let mut out = Vec::new();
    for k in kinds {
        out.extend(
            q.query_row(params![k.as_str(), id], |r| Ok((r.get(0)?, r.get(1)?))).optional()?,
        );
    }
    Ok(out)
}

/// Of `ids`, the items the shares among them share (their pks), and whether there are
/// media besides.
pub fn shared_among(conn: &Connection, ids: &[i64]) -> rusqlite::Result<(Vec<i64>, bool)> {
    let mut q = conn.prepare_cached("SELECT shared_pk FROM media_item WHERE id = ?1")?;
    let (mut shared, mut others) = (Vec::new(), false);
    for id in ids {
        match q.query_row([id], |r| r.get::<_, Option<i64>>(0)).optional()? {
            Some(Some(pk)) => shared.push(pk),
            Some(None) => others = true,
            None => {}
        }
    }
    Ok((shared, others))
}

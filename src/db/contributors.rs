//! The contributors of a contribution (SPEC §8): the live users with a live comment on
//! it, each once, the one with the most recent comment first (ties by user id), less
//! the users the viewer hides; and, the same way, the users who shared it.

use rusqlite::{Connection, params};

use crate::model::user::User;

/// The commenters of contribution `pk` as `viewer` sees them: (count, page). The
/// comments come from the `contribution_comments` index (target, live, newest first).
pub fn page(
    conn: &Connection,
    pk: i64,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    const AUTHORS: &str = "SELECT k.author_id AS id, max(k.added_at) AS last FROM contribution k
         WHERE k.target_pk = ?1 AND k.deleted = 0 GROUP BY k.author_id";
    by_last(conn, AUTHORS, pk, viewer, limit, offset)
}

/// The users who shared contribution `pk` (a live item of theirs shows a share of it
/// that `viewer` may see), the most recent sharer first: (count, page). The shares come
/// from the `media_item_shared` index.
pub fn sharers(
    conn: &Connection,
    pk: i64,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let authors = format!(
        "SELECT c.author_id AS id, max(c.added_at) AS last FROM media_item m
         JOIN contribution_media cm ON cm.media_id = m.id
         JOIN contribution c ON c.pk = cm.contribution_pk
         WHERE m.shared_pk = ?1 AND c.deleted = 0 AND {} GROUP BY c.author_id",
        crate::db::spaces::item_shown(2)
    );
    by_last(conn, &authors, pk, viewer, limit, offset)
}

/// The live users of `authors` (a query of `id` and `last` over `?1`, the item, and `?2`,
/// the viewer), less those `viewer` hides, the latest `last` first, then by id.
fn by_last(
    conn: &Connection,
    authors: &str,
    pk: i64,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    const VISIBLE: &str = "u.deleted = 0
         AND (?2 IS NULL OR u.id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?2))";
    let count: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM ({authors}) a JOIN user u ON u.id = a.id WHERE {VISIBLE}"
        ))?
        .query_row(params![pk, viewer], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {} FROM ({authors}) a JOIN user u ON u.id = a.id WHERE {VISIBLE}
         ORDER BY a.last DESC, u.id LIMIT ?3 OFFSET ?4",
        crate::db::users::columns_as("u")
    ))?;
    let users = stmt
        .query_map(params![pk, viewer, limit, offset], crate::db::users::from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((count, users))
}

//! Broadcast banners (SPEC §10): made and deleted by staff (`hearth banner`), viewed
//! and dismissed by each member (`banner_state`). Staff make few, so a member's lists
//! and counts read every live banner.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::model::banner::Banner;

/// A new banner (already checked); its id.
pub fn create(conn: &Connection, b: &Banner) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO banner (title, body_text, link, link_text, open_in_new_tab, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        b.title,
        b.body_text,
        b.link,
        b.link_text,
        b.open_in_new_tab,
        b.created_at
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Deletes banner `id` (and every member's state of it); whether there was one.
pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    Ok(conn.prepare_cached("DELETE FROM banner WHERE id = ?1")?.execute([id])? > 0)
}

const COLUMNS: &str = "b.id, b.title, b.body_text, b.link, b.link_text, b.open_in_new_tab,
     b.created_at, s.viewed_at, s.disposed_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Banner> {
    Ok(from_columns!(r => Banner {
        id, title, body_text, link, link_text, open_in_new_tab, created_at, viewed_at, disposed_at
    }))
}

/// Every banner, newest first, as `user` sees it (`None`: as made).
pub fn all(conn: &Connection, user: Option<i64>) -> rusqlite::Result<Vec<Banner>> {
    conn.prepare_cached(sql!(
        "SELECT {COLUMNS} FROM banner b
         LEFT JOIN banner_state s ON s.banner_id = b.id AND s.user_id = ?1
         ORDER BY b.id DESC"
    ))?
    .query_map([user], from_row)?
    .collect()
}

/// The banners `user` has not dismissed, newest first.
pub fn undisposed(conn: &Connection, user: i64) -> rusqlite::Result<Vec<Banner>> {
    Ok(all(conn, Some(user))?.into_iter().filter(|b| b.disposed_at.is_none()).collect())
}

/// How many banners the user `?1` has neither seen nor dismissed: a query that
/// `users::own` also reads as one of its columns.
pub const UNSEEN: &str =
    "SELECT count(*) FROM banner b WHERE NOT EXISTS (SELECT 1 FROM banner_state s
       WHERE s.banner_id = b.id AND s.user_id = ?1
         AND (s.viewed_at IS NOT NULL OR s.disposed_at IS NOT NULL))";

/// How many banners `user` has neither seen nor dismissed ([`UNSEEN`]).
pub fn unseen(conn: &Connection, user: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(UNSEEN)?.query_row([user], |r| r.get(0))
}

/// What a member does to a banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Saw it.
    Viewed,
    /// Dismissed it (and so saw it).
    Disposed,
}

/// `user` marks banners `ids` (unknown ids change nothing; a mark is kept from its
/// first time).
pub fn mark(
    conn: &Connection,
    user: i64,
    ids: &[i64],
    mark: Mark,
    now: Timestamp,
) -> rusqlite::Result<()> {
    let sql = match mark {
        Mark::Viewed => {
            "INSERT INTO banner_state (user_id, banner_id, viewed_at)
             SELECT ?1, id, ?3 FROM banner WHERE id = ?2
             ON CONFLICT (user_id, banner_id) DO UPDATE SET viewed_at = coalesce(viewed_at, excluded.viewed_at)"
        }
        Mark::Disposed => {
            "INSERT INTO banner_state (user_id, banner_id, viewed_at, disposed_at)
             SELECT ?1, id, ?3, ?3 FROM banner WHERE id = ?2
             ON CONFLICT (user_id, banner_id) DO UPDATE SET
                 viewed_at = coalesce(viewed_at, excluded.viewed_at),
                 disposed_at = coalesce(disposed_at, excluded.disposed_at)"
        }
    };
    let mut stmt = conn.prepare_cached(sql)?;
    for id in ids {
        stmt.execute(params![user, id, now])?;
    }
    Ok(())
}

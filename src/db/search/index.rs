//! Keeping the full-text index of items (`search_item`, SPEC §10): a live top-level
//! item is in it, with its title and the plain text of its rich text (SPEC §5, from
//! [`crate::model::rich_text::plain`]), from the transaction that writes or restores it
//! (here: the text needs the renderer) to the one that deletes it (`schema.sql`'s
//! triggers take it out, so a delete by any path does). Users and categories are kept by `schema.sql`'s
//! triggers (their columns are their text). `hearth check` compares each index with
//! its rows (`db::check`).

use rusqlite::{Connection, params};

use crate::model::rich_text;

/// Puts item `pk` in the index (again), with its title and text.
pub fn add(conn: &Connection, pk: i64, title: Option<&str>, text: &str) -> rusqlite::Result<()> {
    remove(conn, pk)?;
    conn.prepare_cached("INSERT INTO search_item (rowid, title, body) VALUES (?1, ?2, ?3)")?
        .execute(params![pk, title.unwrap_or(""), rich_text::plain(text)])?;
    Ok(())
}

/// Takes item `pk` out of the index (a no-op when it is not there).
pub fn remove(conn: &Connection, pk: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM search_item WHERE rowid = ?1")?.execute([pk])?;
    Ok(())
}

/// Puts item `pk` in the index or takes it out, as its row now says (live top-level
/// items are in it): what a delete or a restore calls.
pub fn sync(conn: &Connection, pk: i64) -> rusqlite::Result<()> {
    let row: Option<(Option<String>, String, bool)> = conn
        .prepare_cached(
            "SELECT title, text, deleted = 0 AND target_pk IS NULL FROM contribution WHERE pk = ?1",
        )?
        .query_row([pk], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    match row {
        Some((title, text, true)) => add(conn, pk, title.as_deref(), &text),
        _ => remove(conn, pk),
    }
}

/// Builds the whole index from the rows (migration 9, `hearth check --repair`-style
/// rebuilds): users and categories as their triggers would, items a thousand a query
/// in pk order, so memory stays one batch whatever the table's size.
pub fn rebuild(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "DELETE FROM search_user; DELETE FROM search_category; DELETE FROM search_item;
         INSERT INTO search_user (rowid, username, real_name)
             SELECT id, username, real_name FROM user WHERE deleted = 0;
         INSERT INTO search_category (rowid, name)
             SELECT id, name FROM category WHERE deleted = 0 AND active = 1;",
    )?;
    let mut after = 0i64;
    loop {
        let batch: Vec<(i64, Option<String>, String)> = conn
            .prepare_cached(
                "SELECT pk, title, text FROM contribution
                 WHERE pk > ?1 AND target_pk IS NULL AND deleted = 0 ORDER BY pk LIMIT 1000",
            )?
            .query_map([after], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let Some(&(last, _, _)) = batch.last() else { return Ok(()) };
        let mut insert = conn
            .prepare_cached("INSERT INTO search_item (rowid, title, body) VALUES (?1, ?2, ?3)")?;
        for (pk, title, text) in &batch {
            insert.execute(params![pk, title.as_deref().unwrap_or(""), rich_text::plain(text)])?;
        }
        after = last;
    }
}

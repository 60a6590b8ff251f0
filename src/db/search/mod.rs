//! Full-text search (SPEC §10) on SQLite FTS5: users by username and real name, live
//! top-level items by title and plain text, categories by name. The indexes are kept in
//! the transactions that write their rows ([`index`], and `schema.sql`'s triggers).
//!
//! A search is a prefix search of every word typed (`ba` finds `barbara`: the
//! autocomplete's case), accents folded (`unicode61 remove_diacritics 2`). What the
//! caller may not see is left out inside the index walk, before anything is ranked:
//! deleted rows are never in an index, the users the caller hides and their items are
//! filtered there. Of what is left, the [`WINDOW`] newest matches are ranked by
//! relevance (FTS5's bm25), ties by recency: a search costs at most the window,
//! whatever the community's size, and counts at most the window.

pub mod index;
pub mod suggest;

use rusqlite::{Connection, params};

use crate::model::user::User;

/// The most matches a search ranks (and counts): the newest ones.
pub const WINDOW: i64 = 1000;

/// The most words a search takes (the rest are ignored).
const WORDS_MAX: usize = 8;

/// The FTS5 query for what a user typed: each word (letters and digits; anything
/// else separates words, as the tokenizer does) as a quoted prefix, all of them
/// required. `None` when nothing searchable was typed.
pub fn match_expr(typed: &str) -> Option<String> {
    let words: Vec<String> = typed
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(WORDS_MAX)
        .map(|w| format!("\"{w}\"*"))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The ids of one page of matches of `expr` in `table`, best first, and how many there
/// are (at most [`WINDOW`]). `visible` is the SQL condition on `s.rowid` that the
/// caller may see it (`?2` the viewer).
fn ranked(
    conn: &Connection,
    table: &str,
    visible: &str,
    expr: &str,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    // the window read once: its size is the count, its ranks order the page
    let mut window: Vec<(i64, f64)> = conn
        .prepare_cached(&format!(
            "SELECT s.rowid, s.rank FROM {table} s
             WHERE {table} MATCH ?1 AND {visible} ORDER BY s.rowid DESC LIMIT {WINDOW}"
        ))?
        .query_map(params![expr, viewer], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    // bm25's rank: lower is better; ties newest first
    window.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let count = window.len() as i64;
    let from = usize::try_from(offset).unwrap_or(usize::MAX).min(window.len());
    let to = from.saturating_add(usize::try_from(limit).unwrap_or(0)).min(window.len());
    Ok((count, window[from..to].iter().map(|(id, _)| *id).collect()))
}

/// Users the viewer does not hide (`?2`) — the user index's rows are live users only.
fn user_visible() -> &'static str {
    sql!("{}", super::hides::not_hidden_user("s.rowid", 2))
}

/// Live top-level items whose author the viewer does not hide, made in no group or
/// event, or in one whose items the viewer may see (`db::spaces::item_shown`).
fn item_visible() -> &'static str {
    sql!(
        "EXISTS (SELECT 1 FROM contribution c WHERE c.pk = s.rowid
     AND c.deleted = 0 AND c.target_pk IS NULL
     AND c.author_id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?2)
     AND {})",
        crate::db::spaces::item_shown(2)
    )
}

/// Categories: the index holds the live, active ones, which everyone sees (no viewer
/// is bound: `?2` is null).
const CATEGORY_VISIBLE: &str = "?2 IS NULL";

/// One page of the users matching `expr`, best first, and their count.
pub fn users(
    conn: &Connection,
    expr: &str,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let (count, ids) = ranked(conn, "search_user", user_visible(), expr, viewer, limit, offset)?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.extend(super::users::get(conn, id)?);
    }
    Ok((count, out))
}

/// One page of the pks of the items matching `expr`, best first, and their count.
pub fn items(
    conn: &Connection,
    expr: &str,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    ranked(conn, "search_item", item_visible(), expr, viewer, limit, offset)
}

/// One page of the ids of the categories matching `expr`, best first, and their count.
pub fn categories(
    conn: &Connection,
    expr: &str,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    ranked(conn, "search_category", CATEGORY_VISIBLE, expr, None, limit, offset)
}

#[cfg(test)]
mod tests;

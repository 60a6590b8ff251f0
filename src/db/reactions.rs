//! Reactions.

use rusqlite::{Connection, OptionalExtension, params};

use crate::model::reaction::Reaction;

/// Column list matching [`from_row`].
pub const COLUMNS: &str = "id, label, sentiment, image, active";

/// Maps a row selected with [`COLUMNS`].
pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Reaction> {
    Ok(from_columns!(r => Reaction { id, label, sentiment, image, active }))
}

/// The key that makes labels unique case-insensitively (`reaction.label_key`): the
/// Unicode lowercase, the folding usernames and course names use.
pub fn label_key(label: &str) -> String {
    label.to_lowercase()
}

/// Whether an insert or update failed because another reaction has the label (in any
/// case).
pub fn is_label_taken(e: &rusqlite::Error) -> bool {
    super::is_unique_violation(e) && e.to_string().contains("reaction.label_key")
}

/// All reactions by id.
pub fn list(conn: &Connection) -> rusqlite::Result<Vec<Reaction>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM reaction ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    rows.collect()
}

/// One reaction.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Reaction>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM reaction WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// Inserts a reaction (with `r.id` when positive, else a new id); returns its id. A
/// label taken in any case is a unique violation ([`is_label_taken`]).
pub fn insert(conn: &Connection, r: &Reaction) -> rusqlite::Result<i64> {
    let id = (r.id > 0).then_some(r.id);
    conn.prepare_cached(
        "INSERT INTO reaction (id, label, label_key, sentiment, image, active) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![id, r.label, label_key(&r.label), r.sentiment, r.image, r.active])?;
    Ok(conn.last_insert_rowid())
}

/// Inserts a reaction with its id, or replaces every field of the one with that id
/// (the importer's reaction line).
pub fn upsert(conn: &Connection, r: &Reaction) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO reaction (id, label, label_key, sentiment, image, active) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (id) DO UPDATE SET label = excluded.label, label_key = excluded.label_key,
             sentiment = excluded.sentiment, image = excluded.image, active = excluded.active",
    )?
    .execute(params![r.id, r.label, label_key(&r.label), r.sentiment, r.image, r.active])?;
    Ok(())
}

/// Replaces every field of an existing reaction.
pub fn update(conn: &Connection, r: &Reaction) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE reaction SET label = ?2, label_key = ?3, sentiment = ?4, image = ?5, active = ?6 WHERE id = ?1",
    )?
    .execute(params![r.id, r.label, label_key(&r.label), r.sentiment, r.image, r.active])?;
    Ok(())
}

/// What `GET /api/v2/reaction/search/` filters on (the label, and whether active).
pub type Filter = crate::model::listing::NameFilter;

/// One page of the matching reactions, by id, and how many match. The reaction table
/// is a short admin-kept list, so it is filtered here with full Unicode case folding
/// rather than SQLite's ASCII-only `lower()`.
pub fn search(
    conn: &Connection,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Reaction>)> {
    let all = f.apply(list(conn)?, |r| (r.label.as_str(), r.active));
    Ok(crate::model::listing::page(all, limit, offset))
}

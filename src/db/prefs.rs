//! Dynamic preferences.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::model::pref::PrefKind;

/// One preference row.
#[derive(Debug, Clone, PartialEq)]
pub struct Pref {
    /// Row id.
    pub id: i64,
    /// Section, e.g. `configurations`.
    pub section: String,
    /// Name within the section.
    pub name: String,
    /// Its type.
    pub kind: PrefKind,
    /// Its value, of `kind`.
    pub value: Value,
}

/// Column list matching [`from_row`].
pub const COLUMNS: &str = "id, section, name, kind, value";

/// Maps a row selected with [`COLUMNS`].
pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Pref> {
    let kind: String = r.get(3)?;
    let value: String = r.get(4)?;
    Ok(Pref {
        id: r.get(0)?,
        section: r.get(1)?,
        name: r.get(2)?,
        kind: PrefKind::parse(&kind).unwrap_or(PrefKind::String),
        value: serde_json::from_str(&value).unwrap_or(Value::Null),
    })
}

/// All preferences, optionally of one section, by id.
pub fn list(conn: &Connection, section: Option<&str>) -> rusqlite::Result<Vec<Pref>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM preference WHERE ?1 IS NULL OR section = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([section], from_row)?;
    rows.collect()
}

/// One preference by section and name.
pub fn get(conn: &Connection, section: &str, name: &str) -> rusqlite::Result<Option<Pref>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM preference WHERE section = ?1 AND name = ?2"
    ))?
    .query_row([section, name], from_row)
    .optional()
}

/// A boolean preference, or `default` when missing or not a boolean.
pub fn get_bool(
    conn: &Connection,
    section: &str,
    name: &str,
    default: bool,
) -> rusqlite::Result<bool> {
    Ok(get(conn, section, name)?
        .and_then(|p| p.value.as_bool())
        .unwrap_or(default))
}

/// Stores a value (already checked against the preference's type).
pub fn set(conn: &Connection, id: i64, value: &Value) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE preference SET value = ?2 WHERE id = ?1")?
        .execute(params![id, value.to_string()])?;
    Ok(())
}

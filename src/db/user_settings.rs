//! Per-user settings (SPEC §8): stored only once a user changes them; what a user
//! never changed has its default (`model::settings`).

use rusqlite::{Connection, params};

/// The settings `user` has changed: (name, value).
pub fn stored(conn: &Connection, user: i64) -> rusqlite::Result<Vec<(String, i64)>> {
    let mut stmt =
        conn.prepare_cached("SELECT name, value FROM user_setting WHERE user_id = ?1")?;
    let rows = stmt.query_map([user], |r| r.try_into())?;
    rows.collect()
}

/// Stores checked values for `user`.
pub fn set(conn: &Connection, user: i64, values: &[(&str, i64)]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO user_setting (user_id, name, value) VALUES (?1, ?2, ?3)
         ON CONFLICT (user_id, name) DO UPDATE SET value = excluded.value",
    )?;
    for (name, value) in values {
        stmt.execute(params![user, name, value])?;
    }
    Ok(())
}

//! Users hiding other users (SPEC §8): the toggle, the questions about it, the lists of
//! whom a user hides, and the test the contribution lists and contributors use to
//! leave the hidden users out.

use rusqlite::Connection;

use crate::clock::Timestamp;
use crate::db::users::Paged;
use crate::model::user::User;

/// The SQL condition that the user whose id is `column` is not one the viewer
/// (parameter `?{n}`) hides (SPEC §8): one definition for the user search and the
/// user lists. A null viewer hides nobody.
pub fn not_hidden_user(column: &str, n: u8) -> String {
    format!("{column} NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?{n})")
}

/// Whether `user` hides `hidden`.
pub fn is_hiding(conn: &Connection, user: i64, hidden: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user_hide WHERE user_id = ?1 AND hidden_id = ?2")?
        .exists([user, hidden])
}

/// Whether `user` hides anyone: when not, a list needs no filter at all.
pub fn hides_anyone(conn: &Connection, user: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user_hide WHERE user_id = ?1 LIMIT 1")?.exists([user])
}

/// `user` hides `hidden` (another live user), or shows it again when it already hides
/// it; answers whether it hides it now.
pub fn toggle(conn: &Connection, user: i64, hidden: i64, now: Timestamp) -> rusqlite::Result<bool> {
    super::pair::toggle_pair(
        conn,
        "DELETE FROM user_hide WHERE user_id = ?1 AND hidden_id = ?2 RETURNING 1",
        "INSERT INTO user_hide (user_id, hidden_id, created_at) VALUES (?1, ?2, ?3)",
        (user, hidden),
        now,
    )
}

/// The ids of the live users `user` hides, most recently hidden first.
pub fn hidden_ids(conn: &Connection, user: i64) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT h.hidden_id FROM user_hide h JOIN user u ON u.id = h.hidden_id
         WHERE h.user_id = ?1 AND u.deleted = 0 ORDER BY h.created_at DESC, h.hidden_id",
    )?;
    let ids = stmt.query_map([user], |r| r.get(0))?;
    ids.collect()
}

/// One page of the live users `user` hides, in [`hidden_ids`]'s order: (count, page).
pub fn hidden_page(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let columns = crate::db::users::columns_as("u");
    let hidden = Paged {
        columns: &columns,
        from: "FROM user_hide h JOIN user u ON u.id = h.hidden_id
               WHERE h.user_id = ?1 AND u.deleted = 0",
        order: "h.created_at DESC, h.hidden_id",
    };
    hidden.run(conn, &[&user], (limit, offset), crate::db::users::from_row)
}

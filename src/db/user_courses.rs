//! A user's courses as another caller sees them (SPEC §8): the courses in which user
//! `member` has one of `statuses`, among those the caller may see, by exactly the rule
//! of the course search ([`super::courses::VISIBLE`]).

use rusqlite::{Connection, params};

/// (count, ids) of one page, newest first (created_at, then id, descending).
pub fn page(
    conn: &Connection,
    caller: Option<i64>,
    member: i64,
    statuses: &[crate::model::course::JoinStatus],
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let statuses = serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into());
    // the search's visibility with neither its text (?2) nor its category (?3) filter
    let from = format!(
        "FROM course_member t JOIN course c ON c.id = t.course_id
         WHERE t.user_id = ?4 AND t.join_status IN (SELECT value FROM json_each(?5))
           AND {}",
        super::courses::VISIBLE
    );
    let none: Option<String> = None;
    let count: i64 = conn
        .prepare_cached(&format!("SELECT count(*) {from}"))?
        .query_row(params![caller, none, none, member, statuses], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT c.id {from} ORDER BY c.created_at DESC, c.id DESC LIMIT ?6 OFFSET ?7"
    ))?;
    let ids = stmt
        .query_map(params![caller, none, none, member, statuses, limit, offset], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok((count, ids))
}

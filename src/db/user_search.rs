//! Users by the start of their username (SPEC §10: the @-mention picker of the kit's
//! editors, `GET /api/v2/user/search/`): a range of the `username_key` index, so a page
//! costs its own rows whatever the community's size.

use rusqlite::{Connection, params};

use crate::model::user::{User, username_key};

/// The most a search counts: a short prefix may match much of a large community, and
/// a mention picker never pages that far.
pub const COUNT_CAP: i64 = 1000;

/// One page of live users whose username starts with `prefix` (case-insensitively),
/// by username, and how many there are (at most [`COUNT_CAP`]).
pub fn by_prefix(
    conn: &Connection,
    prefix: &str,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let low = username_key(prefix);
    // every key that starts with `low` sorts below `low` + the greatest character
    let high = format!("{low}\u{10FFFF}");
    let count = conn
        .prepare_cached(
            "SELECT count(*) FROM (SELECT 1 FROM user
             WHERE username_key >= ?1 AND username_key < ?2 AND deleted = 0 LIMIT ?3)",
        )?
        .query_row(params![low, high, COUNT_CAP], |r| r.get(0))?;
    let users = conn
        .prepare_cached(sql!(
            "SELECT {} FROM user WHERE username_key >= ?1 AND username_key < ?2 AND deleted = 0
             ORDER BY username_key LIMIT ?3 OFFSET ?4",
            super::users::COLUMNS
        ))?
        .query_map(params![low, high, limit, offset], super::users::from_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, users))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_prefix_is_an_index_range() {
        let conn = crate::db::migrate::test_db();
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT 1 FROM user WHERE username_key >= 'a' AND username_key < 'b' AND deleted = 0",
                [],
                |r| r.get(3),
            )
            .unwrap_or_default();
        assert!(
            plan.contains("USING INDEX") && plan.contains("username_key>? AND username_key<?"),
            "{plan}"
        );
    }
}

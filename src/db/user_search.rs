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
    by_prefix_for(conn, prefix, None, limit, offset)
}

/// [`by_prefix`] as `viewer` may pick them (the recipients of a private message): not
/// `viewer`, nor a user who hides `viewer` or whom `viewer` hides (SPEC §8).
pub fn by_prefix_for(
    conn: &Connection,
    prefix: &str,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let low = username_key(prefix);
    // every key that starts with `low` sorts below `low` + the greatest character
    let high = format!("{low}\u{10FFFF}");
    let count = conn
        .prepare_cached(sql!(
            "SELECT count(*) FROM (SELECT 1 FROM user u
             WHERE u.username_key >= ?1 AND u.username_key < ?2 AND u.deleted = 0 AND {PICKABLE}
             LIMIT ?3)"
        ))?
        .query_row(params![low, high, COUNT_CAP, viewer], |r| r.get(0))?;
    let users = conn
        .prepare_cached(sql!(
            "SELECT {} FROM user u
             WHERE u.username_key >= ?1 AND u.username_key < ?2 AND u.deleted = 0 AND {PICKABLE}
             ORDER BY u.username_key LIMIT ?3 OFFSET ?5",
            super::users::columns_as("u")
        ))?
        .query_map(params![low, high, limit, viewer, offset], super::users::from_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, users))
}

/// The users `?4` may pick: everyone for no viewer; else not the viewer, nor a user
/// hidden either way.
const PICKABLE: &str = "(?4 IS NULL OR (u.id <> ?4
    AND NOT EXISTS (SELECT 1 FROM user_hide h WHERE h.user_id = ?4 AND h.hidden_id = u.id)
    AND NOT EXISTS (SELECT 1 FROM user_hide h WHERE h.user_id = u.id AND h.hidden_id = ?4)))";

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

//! `contribution_tally`: how many live items of each kind there are, kept exact by
//! triggers on `contribution` in the writing transaction (issue 17). The newest-first
//! lists (`GET /api/v2/{discussion,post,status}/`) show that total on every page; it was
//! a `count(*)` over the kind's whole index, 0.3 ms at the default dataset and 2–4 ms
//! at ten times it, a third of the server's CPU in the mixed workload there. `hearth
//! check` compares it with a count.

use rusqlite::{Connection, OptionalExtension};

use crate::model::contribution::Kind;

/// Counts what a file already holds (the migration to version 5, after the table and
/// triggers of `schema.sql`).
pub const FILL: &str = "INSERT INTO contribution_tally (kind, live)
    SELECT kind, count(*) FROM contribution WHERE deleted = 0 GROUP BY kind";

/// Live items of `kind`.
pub fn live(conn: &Connection, kind: Kind) -> rusqlite::Result<i64> {
    Ok(conn
        .prepare_cached("SELECT live FROM contribution_tally WHERE kind = ?1")?
        .query_row([kind.as_str()], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Live items of `kind` made in groups or events (`contribution_space_tally`, kept by
/// its triggers): what the community-wide lists and feeds, which leave them to their
/// group's or event's feed, take off [`live`].
pub fn in_spaces(conn: &Connection, kind: Kind) -> rusqlite::Result<i64> {
    Ok(conn
        .prepare_cached("SELECT live FROM contribution_space_tally WHERE kind = ?1")?
        .query_row([kind.as_str()], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    fn counted(c: &Connection, kind: &str) -> i64 {
        c.query_row(
            "SELECT count(*) FROM contribution WHERE kind = ?1 AND deleted = 0",
            [kind],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn the_triggers_keep_each_kind_exact() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(include_str!("../../schema.sql")).unwrap();
        c.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'a', 'a', 0);",
        )
        .unwrap();
        let add = |pk: i64, kind: &str, deleted: i64| {
            c.execute(
                "INSERT INTO contribution (pk, kind, id, author_id, text, added_at, deleted)
                 VALUES (?1, ?2, ?1, 1, 't', 0, ?3)",
                rusqlite::params![pk, kind, deleted],
            )
            .unwrap();
        };
        for pk in 1..=5 {
            add(pk, "post", 0);
        }
        add(6, "post", 1);
        add(7, "discussion", 0);
        let check = |c: &Connection| {
            for (kind, k) in [("post", Kind::Post), ("discussion", Kind::Discussion)] {
                assert_eq!(live(c, k).unwrap(), counted(c, kind), "{kind}");
            }
            assert_eq!(live(c, Kind::Status).unwrap(), 0);
        };
        check(&c);
        assert_eq!(live(&c, Kind::Post).unwrap(), 5);
        // soft delete, restore, a no-op update, a hard delete of a live and a deleted row
        c.execute("UPDATE contribution SET deleted = 1 WHERE pk IN (1, 2)", []).unwrap();
        c.execute("UPDATE contribution SET deleted = 0 WHERE pk IN (2, 6)", []).unwrap();
        c.execute("UPDATE contribution SET deleted = 0, text = 'x' WHERE pk = 3", []).unwrap();
        c.execute("DELETE FROM contribution WHERE pk IN (4, 1)", []).unwrap();
        check(&c);
        assert_eq!(live(&c, Kind::Post).unwrap(), 4);
        // what the migration fills is what the triggers kept
        c.execute_batch("DELETE FROM contribution_tally").unwrap();
        c.execute_batch(FILL).unwrap();
        check(&c);
    }
}

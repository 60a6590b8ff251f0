//! The replication position (SPEC §9): a counter in the one row of `hearth_position`,
//! bumped inside every write transaction ([`crate::db::Db::write_blocking`]), so that it is
//! part of the data Litestream replicates. The primary tells clients the position
//! after their write (`X-Hearth-Position`); a read replica reads the same row from its
//! copy and knows it holds that write once its own position is at least as far.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::db::DbError;

/// Moves the position one step on, inside the caller's write transaction; returns the
/// new position.
pub fn bump(tx: &Connection) -> rusqlite::Result<i64> {
    tx.prepare_cached(
        "UPDATE hearth_position SET position = position + 1 WHERE id = 1 RETURNING position",
    )?
    .query_row([], |r| r.get(0))
}

/// The position of the database `c` reads (0 for a file with no row yet).
pub fn get(c: &Connection) -> rusqlite::Result<i64> {
    match c
        .prepare_cached("SELECT position FROM hearth_position WHERE id = 1")?
        .query_row([], |r| r.get(0))
    {
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(0),
        other => other,
    }
}

/// The position of the database file at `path`, read through a read-only connection
/// (`hearth verify-replica` reads the live file beside a running server and Litestream:
/// it must never write, and so never checkpoint, it).
pub fn of_file(path: &Path) -> Result<i64, DbError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    Ok(get(&conn)?)
}

/// Version 4 of the schema: the table and its one row (as `schema.sql` has them).
pub const CREATE: &str = "CREATE TABLE hearth_position (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL
);
INSERT INTO hearth_position (id, position) VALUES (1, 0);";

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn every_bump_moves_one_step_and_the_schema_has_the_same_table() {
        let c = Connection::open_in_memory().unwrap();
        crate::db::migrate::create(&c).unwrap();
        assert_eq!(get(&c).unwrap(), 0);
        assert_eq!(bump(&c).unwrap(), 1);
        assert_eq!(bump(&c).unwrap(), 2);
        assert_eq!(get(&c).unwrap(), 2);
        assert!(
            crate::db::migrate::SCHEMA.contains(CREATE),
            "schema.sql and the migration create the same table"
        );
        // one row only
        assert!(c.execute("INSERT INTO hearth_position (id, position) VALUES (2, 0)", []).is_err());
    }
}

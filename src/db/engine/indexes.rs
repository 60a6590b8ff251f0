//! Secondary indexes that a bulk load drops and rebuilds once at its end. Each drop is
//! recorded in `dropped_index` in the same transaction, so the indexes come back however
//! the load ends: when it finishes, or when the database is next opened
//! ([`crate::db::Db::open`] calls [`restore`]).

use rusqlite::{Connection, TransactionBehavior};

/// Drops `table`'s secondary indexes, in the caller's transaction, and records them in
/// `dropped_index` in the same transaction, so that they are rebuilt however the import
/// ends: by the importer's `finish`, or by [`restore`] when the database is next opened.
pub fn drop_secondary(conn: &Connection, table: &str) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL",
    )?;
    let indexes = stmt
        .query_map([table], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (name, sql) in indexes {
        conn.execute("INSERT INTO dropped_index (name, sql) VALUES (?1, ?2)", [&name, &sql])?;
        conn.execute_batch(&format!("DROP INDEX \"{}\"", name.replace('"', "\"\"")))?;
    }
    Ok(())
}

/// Builds every index an import dropped and has not rebuilt; returns how many. Cheap
/// when there are none, so every open of the database calls it.
pub fn restore(conn: &mut Connection) -> rusqlite::Result<usize> {
    let any: bool =
        conn.query_row("SELECT EXISTS (SELECT 1 FROM dropped_index)", [], |r| r.get(0))?;
    if !any {
        return Ok(0);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let dropped = tx
        .prepare("SELECT name, sql FROM dropped_index")?
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (name, sql) in &dropped {
        let exists: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?1)",
            [name],
            |r| r.get(0),
        )?;
        if !exists {
            tx.execute_batch(sql)?;
        }
        tx.execute("DELETE FROM dropped_index WHERE name = ?1", [name])?;
    }
    tx.commit()?;
    Ok(dropped.len())
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn dropped_indexes_are_recorded_in_the_same_transaction_and_restored() {
        let mut conn = crate::db::migrate::test_db();
        let count = |c: &Connection| -> i64 {
            c.query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'follow'",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        let before = count(&conn);
        assert_eq!(before, 2, "two secondary indexes");
        let tx = conn.transaction().unwrap();
        drop_secondary(&tx, "follow").unwrap();
        tx.rollback().unwrap();
        assert_eq!(count(&conn), before, "a rolled-back batch keeps its indexes");
        assert_eq!(restore(&mut conn).unwrap(), 0);
        let tx = conn.transaction().unwrap();
        drop_secondary(&tx, "follow").unwrap();
        tx.commit().unwrap();
        assert_eq!(count(&conn), 0);
        let recorded: i64 =
            conn.query_row("SELECT count(*) FROM dropped_index", [], |r| r.get(0)).unwrap();
        assert_eq!(recorded, 2);
        assert_eq!(restore(&mut conn).unwrap(), 2);
        assert_eq!(count(&conn), before);
        assert_eq!(restore(&mut conn).unwrap(), 0, "nothing left to do");
    }
}

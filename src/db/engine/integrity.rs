//! SQLite's own integrity check, as `hearth check` and `hearth restore` read it.

use rusqlite::Connection;

/// `PRAGMA integrity_check`: one line per problem SQLite finds (empty when it says
/// ok). SQLite may put several problems in one row, one per line, under a
/// `*** in database main ***` heading; each becomes its own line. Damage that stops
/// the check part way is a problem too, not an error: it is what the check is for.
pub fn integrity(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    refresh_fts(conn);
    let mut stmt = conn.prepare("PRAGMA integrity_check")?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    loop {
        match rows.next() {
            Ok(Some(row)) => {
                let text: String = row.get(0)?;
                out.extend(
                    text.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && *l != "ok" && !l.starts_with("***"))
                        .map(str::to_owned),
                );
            }
            Ok(None) => break,
            Err(e) => {
                out.push(format!("the check stopped: {e}"));
                break;
            }
        }
    }
    Ok(out)
}

/// Makes each FTS5 table of the file read its index's current structure. SQLite's FTS5
/// keeps a table's structure cached in the connection between transactions; the
/// integrity check of a connection whose last look at a table was an earlier integrity
/// check compared the current rows with that cached structure, and reported a checksum
/// mismatch for a whole index (seen on a reader after another connection's writes;
/// `db::search` tests). A full-text query re-reads the structure when the file changed.
/// Best effort: a file too damaged to answer is reported by the check itself.
fn refresh_fts(conn: &Connection) {
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema
             WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%'",
        )
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_default();
    for t in tables {
        let t = t.replace('"', "\"\"");
        let sql =
            format!("SELECT count(*) FROM (SELECT 1 FROM \"{t}\" WHERE \"{t}\" MATCH 'x' LIMIT 1)");
        let _ = conn.query_row(&sql, [], |_| Ok(()));
    }
}

//! SQLite's own integrity check, as `hearth check` and `hearth restore` read it.

use rusqlite::Connection;

/// `PRAGMA integrity_check`: one line per problem SQLite finds (empty when it says
/// ok). SQLite may put several problems in one row, one per line, under a
/// `*** in database main ***` heading; each becomes its own line. Damage that stops
/// the check part way is a problem too, not an error: it is what the check is for.
pub fn integrity(conn: &Connection) -> rusqlite::Result<Vec<String>> {
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

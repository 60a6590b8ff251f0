//! The schema: `schema.sql` embedded, its version in `PRAGMA user_version`, and the
//! steps that bring an older file up to date in place (never by dropping data).

use rusqlite::Connection;

use super::{APPLICATION_ID, DbError};

/// The whole schema of the current version.
pub const SCHEMA: &str = include_str!("../../schema.sql");

/// The schema version this binary writes.
pub const VERSION: i64 = 1;

/// Steps from version N to N+1, applied in order to older files. `MIGRATIONS[0]`
/// takes version 1 to 2, and so on. Each is one SQL batch run in the migration
/// transaction.
const MIGRATIONS: &[&str] = &[];

/// Creates the current schema in an empty database.
pub fn create(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(SCHEMA)?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    conn.pragma_update(None, "user_version", VERSION)?;
    Ok(())
}

/// Returns the schema version of a hearth database, or an error naming why the file is
/// not one (another SQLite file, not SQLite at all, or newer than this binary).
pub fn identify(conn: &Connection) -> Result<i64, DbError> {
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| DbError::NotHearth(format!("not a hearth database ({e})")))?;
    if app != APPLICATION_ID {
        return Err(DbError::NotHearth(
            "not a hearth database (another application's SQLite file)".into(),
        ));
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > VERSION {
        return Err(DbError::NotHearth(format!(
            "database schema version {version} is newer than this hearth ({VERSION}); upgrade hearth"
        )));
    }
    Ok(version)
}

/// Checks that the file is a hearth database and migrates it to [`VERSION`].
pub fn check_and_migrate(conn: &Connection) -> Result<(), DbError> {
    let mut version = identify(conn)?;
    while version < VERSION {
        let step = usize::try_from(version - 1)
            .ok()
            .and_then(|i| MIGRATIONS.get(i))
            .ok_or_else(|| {
                DbError::NotHearth(format!("no migration from schema version {version}"))
            })?;
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {step}; PRAGMA user_version = {}; COMMIT;",
            version + 1
        ))?;
        tracing::info!(from = version, to = version + 1, "migrated database schema");
        version += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_then_identify() -> Result<(), DbError> {
        let conn = Connection::open_in_memory()?;
        create(&conn)?;
        assert_eq!(identify(&conn)?, VERSION);
        Ok(())
    }

    #[test]
    fn foreign_sqlite_file_is_refused() -> Result<(), DbError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch("CREATE TABLE t (x)")?;
        assert!(matches!(identify(&conn), Err(DbError::NotHearth(_))));
        Ok(())
    }

    #[test]
    fn newer_file_is_refused() -> Result<(), DbError> {
        let conn = Connection::open_in_memory()?;
        create(&conn)?;
        conn.pragma_update(None, "user_version", VERSION + 1)?;
        assert!(matches!(identify(&conn), Err(DbError::NotHearth(_))));
        Ok(())
    }
}

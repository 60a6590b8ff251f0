//! `hearth init`.

use std::path::Path;

use super::{CliError, CliResult};
use crate::clock::Clock;
use crate::db::{self, DbError};

/// Creates the database, or says it already exists (exit 0); refuses other files.
pub fn run(path: &Path, clock: &Clock) -> CliResult {
    match db::create_if_missing(path, clock.now()) {
        Ok(true) => {
            println!("created {} (schema version {})", path.display(), db::migrate::VERSION);
            Ok(())
        }
        Ok(false) => {
            // opening migrates an older file in place
            db::Db::open(path)?;
            println!("{} is already a hearth database; nothing changed", path.display());
            Ok(())
        }
        Err(DbError::NotHearth(why)) => {
            Err(CliError(format!("refusing to initialise {}: {why}", path.display())))
        }
        Err(DbError::Sqlite(e)) => Err(CliError(format!(
            "refusing to initialise {}: not a hearth database ({e})",
            path.display()
        ))),
        Err(e) => Err(e.into()),
    }
}

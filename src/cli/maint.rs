//! `hearth backup` and `hearth check`.

use std::path::Path;

use super::{CliError, CliResult};
use crate::db::Db;

/// A consistent copy of the live database (`VACUUM INTO` reads one snapshot, so it is
/// safe while the server writes).
pub fn backup(db: &Db, dest: &Path) -> CliResult {
    if dest.exists() {
        return Err(CliError(format!(
            "{} already exists; choose a new file",
            dest.display()
        )));
    }
    let target = dest
        .to_str()
        .ok_or_else(|| CliError("the destination path is not UTF-8".into()))?
        .to_owned();
    db.read_blocking(|c| {
        c.execute("VACUUM INTO ?1", [&target])
            .map_err(CliError::from)
    })?;
    println!("backed up {} to {}", db.path().display(), dest.display());
    Ok(())
}

/// Integrity check plus hearth's invariants; an error (exit 1) when anything is wrong.
pub fn check(db: &Db) -> CliResult {
    let problems = db.read_blocking(|c| crate::db::check::run(c).map_err(CliError::from))?;
    if problems.is_empty() {
        println!("ok: integrity check passed and every invariant holds");
        return Ok(());
    }
    for p in &problems {
        println!("problem: {p}");
    }
    Err(CliError(format!("{} problem(s) found", problems.len())))
}

//! `hearth check`.

use rusqlite::Connection;

use super::{CliError, CliResult, plural, print_json};
use crate::db::Db;
use crate::db::apps;
use crate::db::check::Problem;
use crate::oauth::redirect;

/// Everything `hearth check` checks on the database `c` reads: SQLite's integrity
/// check, hearth's invariants, and the registered redirect URIs against SPEC §4's
/// rule. Empty when all is well. (`hearth verify-replica` runs the same on a restore.)
pub fn problems(c: &Connection) -> CliResult<Vec<Problem>> {
    let mut problems = crate::db::check::problems(c)?;
    for app in apps::list(c)? {
        for uri in &app.redirect_uris {
            if let Err(why) = redirect::check_registrable(uri) {
                problems.push(Problem {
                    check: "redirect_uris",
                    problem: format!("app {} ({}): {why}", app.client_id, app.name),
                    count: 1,
                });
            }
        }
    }
    Ok(problems)
}

/// Integrity check plus hearth's invariants, and the registered redirect URIs checked
/// against SPEC §4's rule; an error (exit 1) when anything is wrong. Text: one line per
/// problem; `--json`: a list of `{check, problem, count}` (`[]` when all is well).
pub fn check(db: &Db, as_json: bool) -> CliResult {
    let problems = db.read_blocking(problems)?;
    if as_json {
        print_json(&serde_json::to_value(&problems).map_err(|e| CliError(e.to_string()))?);
    } else if problems.is_empty() {
        println!("ok: integrity check passed and every invariant holds");
    } else {
        for p in &problems {
            println!("problem: {}", p.problem);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let n = u64::try_from(problems.len()).unwrap_or(u64::MAX);
        Err(CliError(format!(
            "{} found: {}",
            plural(n, "problem", "problems"),
            next_step(&problems)
        )))
    }
}

/// What to do about `problems`, in one sentence: a redirect URI is fixed by updating
/// its app; anything else in the file by going back to a backup that passes.
fn next_step(problems: &[Problem]) -> String {
    let uris = problems.iter().any(|p| p.check == "redirect_uris");
    let data = problems.iter().any(|p| p.check != "redirect_uris");
    let update =
        "give each app named a valid one with `hearth app update CLIENT_ID --redirect-uri URI`";
    let restore = "keep a copy of this file (`hearth backup DEST`), then `hearth restore` the latest backup that `hearth check` passes (docs/operations.md, \"Backups and restore\")";
    match (uris, data) {
        (true, false) => update.to_owned(),
        (true, true) => format!("{restore}; and {update}"),
        _ => restore.to_owned(),
    }
}

//! `hearth check`.

use rusqlite::Connection;

use super::{CliError, CliResult, print_json};
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
        Err(CliError(format!("{} problem(s) found", problems.len())))
    }
}

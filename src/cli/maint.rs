//! `hearth check`.

use super::{CliError, CliResult, print_json};
use crate::db::Db;
use crate::db::apps;
use crate::db::check::Problem;
use crate::oauth::redirect;

/// Integrity check plus hearth's invariants, and the registered redirect URIs checked
/// against SPEC §4's rule; an error (exit 1) when anything is wrong. Text: one line per
/// problem; `--json`: a list of `{check, problem, count}` (`[]` when all is well).
pub fn check(db: &Db, as_json: bool) -> CliResult {
    let problems = db.read_blocking(|c| {
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
        Ok::<_, CliError>(problems)
    })?;
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

//! `hearth pref ...`.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::db::Db;
use crate::db::preferences;
use crate::model::preference::Pref;

/// Preference subcommands.
#[derive(Debug, Subcommand)]
pub enum PrefCommand {
    /// List preferences.
    List {
        /// Only this section.
        #[arg(long)]
        section: Option<String>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Print one preference (SECTION.NAME).
    Get {
        /// SECTION.NAME
        key: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Set one preference; the value must fit its type (true/false, an integer, text).
    Set {
        /// SECTION.NAME
        key: String,
        /// The new value.
        value: String,
    },
}

fn pref_json(p: &Pref) -> serde_json::Value {
    json!({ "id": p.id, "section": p.section, "name": p.name, "type": p.kind.as_str(), "value": p.value })
}

fn split_key(key: &str) -> CliResult<(String, String)> {
    key.split_once('.')
        .filter(|(s, n)| !s.is_empty() && !n.is_empty())
        .map(|(s, n)| (s.to_owned(), n.to_owned()))
        .ok_or_else(|| CliError(format!("{key:?} is not SECTION.NAME")))
}

fn find(db: &Db, key: &str) -> CliResult<Pref> {
    let (s, n) = split_key(key)?;
    read(db, move |c| preferences::get(c, &s, &n).map_err(CliError::from))?
        .ok_or_else(|| CliError(format!("no preference {key:?}")))
}

/// Runs a `pref` subcommand.
pub fn run(db: &Db, cmd: PrefCommand) -> CliResult {
    match cmd {
        PrefCommand::List { section, json } => {
            let list = read(db, move |c| {
                preferences::list(c, section.as_deref()).map_err(CliError::from)
            })?;
            print_list(&list, json, pref_json, |p| {
                println!("{}.{} = {} ({})", p.section, p.name, p.value, p.kind.as_str());
            });
        }
        PrefCommand::Get { key, json } => {
            let p = find(db, &key)?;
            if json { print_json(&pref_json(&p)) } else { println!("{}", p.value) }
        }
        PrefCommand::Set { key, value } => {
            let p = find(db, &key)?;
            let v = p.kind.parse_text(&value).map_err(|e| CliError(format!("{key}: {e}")))?;
            let id = p.id;
            let stored = v.clone();
            write(db, move |tx| preferences::set(tx, id, &stored).map_err(CliError::from))?;
            println!("{key} = {v}");
        }
    }
    Ok(())
}

//! `hearth contact ...`: the contact requests members sent staff (SPEC §10, "Contact
//! us"), newest first.

use clap::Subcommand;

use super::{CliError, CliResult, print_list, read};
use crate::clock::rfc3339;
use crate::db::Db;
use crate::db::contact;
use crate::model::community::ContactRequest;

/// Contact request subcommands.
#[derive(Debug, Subcommand)]
pub enum ContactCommand {
    /// List the requests, newest first.
    List {
        /// At most this many.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i64).range(1..))]
        limit: i64,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

fn request_json(r: &ContactRequest) -> serde_json::Value {
    let mut v = serde_json::to_value(r.to_json()).unwrap_or_default();
    v["user"] = r.user_id.into();
    v
}

/// Runs a `contact` subcommand.
pub fn run(db: &Db, cmd: ContactCommand) -> CliResult {
    match cmd {
        ContactCommand::List { limit, json } => {
            let (_, all) = read(db, |c| contact::page(c, limit, 0).map_err(CliError::from))?;
            print_list(&all, json, request_json, |r| {
                let member = r.user_id.map(|u| format!(" (user {u})")).unwrap_or_default();
                let who = format!("{} {}", r.name, r.surname);
                println!(
                    "{:>4}  {}  {} <{}>{member}",
                    r.id,
                    rfc3339(r.created_at),
                    who.trim(),
                    r.email
                );
                for line in r.message.lines() {
                    println!("      {line}");
                }
            });
        }
    }
    Ok(())
}

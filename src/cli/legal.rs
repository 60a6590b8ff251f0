//! `hearth legal ...`: the legal pages staff keep (SPEC §10 People): revisions of the
//! terms (`tec`) and of the privacy policy, which members accept in the kit.

use std::path::PathBuf;

use clap::Subcommand;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::{Clock, parse_rfc3339, rfc3339};
use crate::db::Db;
use crate::db::legal;
use crate::model::legal::{BODY_MAX, POLICIES, Page, TITLE_MAX};

/// Legal page subcommands.
#[derive(Debug, Subcommand)]
pub enum LegalCommand {
    /// Add a revision of a policy; from its start, members are asked to accept it.
    Add {
        /// `tec` (terms and conditions) or `privacy`.
        #[arg(long)]
        policy: String,
        /// Its title (1–255 characters).
        #[arg(long)]
        title: String,
        /// A file with its text: HTML (kept through the rich-text sanitizer) or plain text.
        #[arg(long)]
        body_file: PathBuf,
        /// When it comes into force (RFC 3339); now when absent.
        #[arg(long)]
        valid_from: Option<String>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List the revisions, newest first.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `legal` subcommand.
pub fn run(db: &Db, cmd: LegalCommand, clock: &Clock) -> CliResult {
    match cmd {
        LegalCommand::Add { policy, title, body_file, valid_from, json } => {
            if !POLICIES.contains(&policy.as_str()) {
                return Err(CliError(format!("--policy {policy:?}: one of tec, privacy")));
            }
            let title = title.trim().to_owned();
            if title.is_empty() || title.chars().count() > TITLE_MAX {
                return Err(CliError(format!("--title must be 1 to {TITLE_MAX} characters")));
            }
            let body = std::fs::read_to_string(&body_file)
                .map_err(|e| CliError(format!("{}: {e}", body_file.display())))?;
            if body.len() > BODY_MAX {
                return Err(CliError(format!(
                    "{}: more than {BODY_MAX} bytes",
                    body_file.display()
                )));
            }
            let now = clock.now();
            let from = match valid_from {
                Some(t) => parse_rfc3339(&t).ok_or_else(|| {
                    CliError(format!("--valid-from {t:?} is not an RFC 3339 time"))
                })?,
                None => now,
            };
            let id = write(db, move |tx| Ok(legal::add(tx, &policy, &title, &body, from, now)?))?;
            let page = read(db, move |c| legal::get(c, id).map_err(CliError::from))?
                .ok_or_else(|| CliError(format!("legal page {id} vanished")))?;
            if json {
                print_json(
                    &serde_json::to_value(page.to_json(from <= now, None)).unwrap_or_default(),
                );
            } else {
                println!("added {} revision {id}, in force from {}", page.policy, rfc3339(from));
            }
        }
        LegalCommand::List { json } => {
            let (_, all) = read(db, |c| legal::page(c, None, i64::MAX, 0).map_err(CliError::from))?;
            print_list(
                &all,
                json,
                |p: &Page| serde_json::to_value(p.to_json(false, None)).unwrap_or_default(),
                |p| {
                    println!("{:>4}  {:<8} {}  {}", p.id, p.policy, rfc3339(p.valid_from), p.title);
                },
            );
        }
    }
    Ok(())
}

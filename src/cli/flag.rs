//! `hearth flag ...`: the moderation queue for staff at a terminal (SPEC §10 People):
//! the flagged contributions, the most recently flagged first, as the API's
//! `GET /api/v2/moderation/contribution/` lists them.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_list, read};
use crate::clock::rfc3339;
use crate::db::Db;
use crate::db::moderation::{self, Queued};

/// Flag subcommands.
#[derive(Debug, Subcommand)]
pub enum FlagCommand {
    /// List the flagged contributions, the most recently flagged first.
    List {
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: i64,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `flag` subcommand.
pub fn run(db: &Db, cmd: FlagCommand) -> CliResult {
    match cmd {
        FlagCommand::List { limit, json } => {
            let limit = limit.clamp(1, moderation::QUEUE_COUNT_CAP);
            let all = read(db, move |c| moderation::queued(c, limit).map_err(CliError::from))?;
            let to_json = |q: &Queued| {
                json!({
                    "contribution_type": q.kind.as_str(),
                    "id": q.id,
                    "author": q.author,
                    "flags": q.flags,
                    "last_flagged_at": q.state.last_flagged_at.map(rfc3339),
                    "moderation_status": q.state.status.as_str(),
                    "moderation_type": q.state.reason.map(crate::model::flag::Reason::number),
                })
            };
            print_list(&all, json, to_json, |q| {
                println!(
                    "{:<10} {:>6}  {:>3} flag(s)  {:<8} by {}  last {}",
                    q.kind.as_str(),
                    q.id,
                    q.flags,
                    q.state.status.as_str(),
                    q.author,
                    q.state.last_flagged_at.map(rfc3339).unwrap_or_default()
                );
            });
        }
    }
    Ok(())
}

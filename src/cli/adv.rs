//! `hearth adv ...`: the advs the UI kit's `CustomAdv` slots show (SPEC §10), kept by
//! staff; none by default.

use std::path::PathBuf;

use clap::Subcommand;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::custom_content::{self, AdvFilter};
use crate::model::custom_adv::{Adv, EMBED_MAX, NewAdv};

/// Adv subcommands.
#[derive(Debug, Subcommand)]
pub enum AdvCommand {
    /// List every adv, active or not.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Add an adv: an image, HTML, or both.
    Add {
        /// Its slot: BELOW_TOPBAR, BELOW_THE_POST, IN_POST_COMMENTS, RELATED_POSTS_COLUMN,
        /// TOOLS_COLUMN, IN_STREAM, ABOVE_THE_STREAM or ABOVE_THE_STREAM_CATEGORY.
        #[arg(long)]
        position: String,
        /// Its title (the image's alt text; at most 255 characters).
        #[arg(long)]
        title: Option<String>,
        /// Where it leads: an http(s) URL, or a path on the community's site.
        #[arg(long)]
        link: Option<String>,
        /// The banner's image: an http(s) URL, or a path on this server (/media/...).
        #[arg(long)]
        image: Option<String>,
        /// A file with HTML to show (kept through the rich-text sanitizer: no scripts).
        #[arg(long)]
        embed_file: Option<PathBuf>,
        /// Show it only on this category's pages (else on every page with its slot).
        #[arg(long)]
        category: Option<i64>,
        /// Add it switched off.
        #[arg(long)]
        inactive: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Switch an adv on.
    Activate {
        /// The adv's id (`hearth adv list` shows it).
        id: i64,
    },
    /// Switch an adv off (members no longer see it; it is kept).
    Deactivate {
        /// The adv's id.
        id: i64,
    },
    /// Remove an adv.
    Remove {
        /// The adv's id.
        id: i64,
    },
}

fn adv_json(a: &Adv) -> serde_json::Value {
    serde_json::to_value(a.to_json()).unwrap_or_default()
}

/// Runs an `adv` subcommand.
pub fn run(db: &Db, cmd: AdvCommand, clock: &Clock) -> CliResult {
    match cmd {
        AdvCommand::List { json } => {
            let f = AdvFilter { staff: true, ..AdvFilter::default() };
            let (_, all) =
                read(db, |c| custom_content::advs(c, &f, i64::MAX, 0).map_err(CliError::from))?;
            print_list(&all, json, adv_json, |a| {
                let state = if a.active { "active" } else { "inactive" };
                let category = a.category.map(|c| format!(" category {c}")).unwrap_or_default();
                println!(
                    "{:>4}  {:<26} {state:<8}{category}  {}",
                    a.id,
                    a.position,
                    a.title.as_deref().unwrap_or("")
                );
            });
        }
        AdvCommand::Add { position, title, link, image, embed_file, category, inactive, json } => {
            let embed_code = match embed_file {
                Some(path) => {
                    let code = std::fs::read_to_string(&path)
                        .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
                    if code.len() > EMBED_MAX {
                        return Err(CliError(format!(
                            "{}: more than {EMBED_MAX} bytes",
                            path.display()
                        )));
                    }
                    Some(code)
                }
                None => None,
            };
            let adv =
                NewAdv { position, title, link, image, embed_code, active: !inactive, category }
                    .check()
                    .map_err(CliError)?;
            let now = clock.now();
            let id = write(db, move |tx| {
                if let Some(c) = adv.category
                    && !crate::db::categories::exists(tx, c)?
                {
                    return Err(CliError(format!("no category with id {c}")));
                }
                Ok(custom_content::add_adv(tx, None, &adv, now, now)?)
            })?;
            let a = read(db, move |c| custom_content::adv(c, id).map_err(CliError::from))?
                .ok_or_else(|| CliError(format!("adv {id} vanished")))?;
            if json {
                print_json(&adv_json(&a));
            } else {
                println!("added adv {id} at {}", a.position);
            }
        }
        AdvCommand::Activate { id } | AdvCommand::Deactivate { id } => {
            let on = matches!(cmd, AdvCommand::Activate { .. });
            let now = clock.now();
            if !write(db, move |tx| Ok(custom_content::set_adv_active(tx, id, on, now)?))? {
                return Err(CliError(format!("no adv with id {id}")));
            }
            println!("adv {id} is {}", if on { "active" } else { "inactive" });
        }
        AdvCommand::Remove { id } => {
            if !write(db, move |tx| Ok(custom_content::remove_adv(tx, id)?))? {
                return Err(CliError(format!("no adv with id {id}")));
            }
            println!("removed adv {id}");
        }
    }
    Ok(())
}

//! `hearth banner ...`: broadcast banners, staff's messages to every member (SPEC §10).

use clap::Subcommand;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::banners;
use crate::model::banner::{self, Banner};

/// Banner subcommands.
#[derive(Debug, Subcommand)]
pub enum BannerCommand {
    /// Make a banner every member sees until they dismiss it.
    Create {
        /// Its title (plain text, 1–200 characters).
        #[arg(long)]
        title: String,
        /// Its text (plain text, at most 2000 characters).
        #[arg(long, default_value = "")]
        body: String,
        /// A link: an http(s) URL, or a path on the community's site (with --link-text).
        #[arg(long, default_value = "")]
        link: String,
        /// The link's text.
        #[arg(long, default_value = "")]
        link_text: String,
        /// Open the link in a new tab.
        #[arg(long)]
        new_tab: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List the banners.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Delete a banner (from every member's list).
    Delete {
        /// The banner's id (`hearth banner list` shows it).
        id: i64,
    },
}

/// Runs a `banner` subcommand.
pub fn run(db: &Db, cmd: BannerCommand, clock: &Clock) -> CliResult {
    match cmd {
        BannerCommand::Create { title, body, link, link_text, new_tab, json } => {
            banner::check(&title, &body, &link, &link_text).map_err(CliError)?;
            let b = Banner {
                id: 0,
                title: title.trim().to_owned(),
                body_text: body,
                link,
                link_text: link_text.trim().to_owned(),
                open_in_new_tab: new_tab,
                created_at: clock.now(),
                viewed_at: None,
                disposed_at: None,
            };
            let made = b.clone();
            let id = write(db, move |tx| Ok(banners::create(tx, &made)?))?;
            if json {
                print_json(&Banner { id, ..b }.to_json());
            } else {
                println!("created banner {id}");
            }
        }
        BannerCommand::List { json } => {
            let all = read(db, |c| banners::all(c, None).map_err(CliError::from))?;
            print_list(&all, json, Banner::to_json, |b| {
                println!("{:>4}  {}  {}", b.id, crate::clock::rfc3339(b.created_at), b.title);
            });
        }
        BannerCommand::Delete { id } => {
            if !write(db, move |tx| Ok(banners::delete(tx, id)?))? {
                return Err(CliError(format!("no banner {id} (`hearth banner list` shows them)")));
            }
            println!("deleted banner {id}");
        }
    }
    Ok(())
}

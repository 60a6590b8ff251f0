//! `hearth page ...`: the community's own pages (about us, rules...) that the UI kit
//! reads as custom pages (SPEC §10), kept by staff; none by default.

use std::path::PathBuf;

use clap::Subcommand;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::{Clock, parse_rfc3339, rfc3339};
use crate::db::Db;
use crate::db::custom_content::{self, NewPage, PageFilter};
use crate::model::custom_page::{self, BODY_MAX, Page};

/// Custom page subcommands.
#[derive(Debug, Subcommand)]
pub enum PageCommand {
    /// List every page, published or not.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Add a page.
    Add {
        /// Its title (1–255 characters).
        #[arg(long)]
        title: String,
        /// Its slug (lowercase letters, digits and dashes); made from the title when absent.
        #[arg(long)]
        slug: Option<String>,
        /// A file with its text: HTML (kept through the rich-text sanitizer) or plain text.
        #[arg(long)]
        body_file: PathBuf,
        /// When it is published from (RFC 3339); now when absent.
        #[arg(long)]
        valid_from: Option<String>,
        /// When it stops being published (RFC 3339); never when absent.
        #[arg(long)]
        valid_to: Option<String>,
        /// Add it switched off (unpublished).
        #[arg(long)]
        inactive: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Switch a page on (published inside its validity window).
    Activate {
        /// The page's id (`hearth page list` shows it).
        id: i64,
    },
    /// Switch a page off (unpublished; it is kept).
    Deactivate {
        /// The page's id.
        id: i64,
    },
    /// Remove a page.
    Remove {
        /// The page's id.
        id: i64,
    },
}

fn page_json(p: &Page) -> serde_json::Value {
    serde_json::to_value(p.to_json()).unwrap_or_default()
}

fn time(flag: &str, t: Option<String>) -> CliResult<Option<i64>> {
    t.map(|t| {
        parse_rfc3339(&t).ok_or_else(|| CliError(format!("{flag} {t:?} is not an RFC 3339 time")))
    })
    .transpose()
}

/// Runs a `page` subcommand.
pub fn run(db: &Db, cmd: PageCommand, clock: &Clock) -> CliResult {
    match cmd {
        PageCommand::List { json } => {
            let f = PageFilter { staff: true, ..PageFilter::default() };
            let (_, all) =
                read(db, |c| custom_content::pages(c, &f, i64::MAX, 0).map_err(CliError::from))?;
            let now = clock.now();
            print_list(&all, json, page_json, |p| {
                let state = if p.published(now) { "published" } else { "unpublished" };
                let to = p.valid_to.map(|t| format!(" to {}", rfc3339(t))).unwrap_or_default();
                println!(
                    "{:>4}  {:<12} {}  from {}{to}  {}",
                    p.id,
                    state,
                    p.slug,
                    rfc3339(p.valid_from),
                    p.title
                );
            });
        }
        PageCommand::Add { title, slug, body_file, valid_from, valid_to, inactive, json } => {
            let title = custom_page::check_title(&title).map_err(CliError)?;
            if let Some(s) = &slug {
                custom_page::check_slug(s).map_err(CliError)?;
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
            let from = time("--valid-from", valid_from)?.unwrap_or(now);
            let to = time("--valid-to", valid_to)?;
            if to.is_some_and(|t| t <= from) {
                return Err(CliError("--valid-to must be after --valid-from".into()));
            }
            let id = write(db, move |tx| {
                let slug = match slug {
                    Some(s) if custom_content::slug_taken(tx, &s)? => {
                        return Err(CliError(format!("a page already has the slug {s:?}")));
                    }
                    Some(s) => s,
                    None => crate::model::slug::unique(
                        &crate::model::slug::slugify(&title, "page"),
                        |s| custom_content::slug_taken(tx, s),
                    )?,
                };
                let p = NewPage {
                    id: None,
                    slug: &slug,
                    title: &title,
                    body: &body,
                    valid_from: from,
                    valid_to: to,
                    active: !inactive,
                    created_at: now,
                    updated_at: now,
                };
                Ok(custom_content::add_page(tx, &p)?)
            })?;
            let p = read(db, move |c| custom_content::page(c, id).map_err(CliError::from))?
                .ok_or_else(|| CliError(format!("page {id} vanished")))?;
            if json {
                print_json(&page_json(&p));
            } else {
                println!("added page {id}, {}", p.slug);
            }
        }
        PageCommand::Activate { id } | PageCommand::Deactivate { id } => {
            let on = matches!(cmd, PageCommand::Activate { .. });
            let now = clock.now();
            if !write(db, move |tx| Ok(custom_content::set_page_active(tx, id, on, now)?))? {
                return Err(CliError(format!("no page with id {id}")));
            }
            println!("page {id} is {}", if on { "active" } else { "inactive" });
        }
        PageCommand::Remove { id } => {
            if !write(db, move |tx| Ok(custom_content::remove_page(tx, id)?))? {
                return Err(CliError(format!("no page with id {id}")));
            }
            println!("removed page {id}");
        }
    }
    Ok(())
}

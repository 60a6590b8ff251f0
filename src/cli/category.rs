//! `hearth category ...`.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_json, read, write};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::categories;
use crate::model::slug;

/// Longest category name.
pub const NAME_MAX: usize = 255;

/// Category subcommands.
#[derive(Debug, Subcommand)]
pub enum CategoryCommand {
    /// Create a category.
    Create {
        /// Name (1–255 characters).
        #[arg(long)]
        name: String,
        /// Slug (lowercase letters, digits and single dashes); generated from the name
        /// when absent.
        #[arg(long)]
        slug: Option<String>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List categories.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `category` subcommand.
pub fn run(db: &Db, cmd: CategoryCommand, clock: &Clock) -> CliResult {
    match cmd {
        CategoryCommand::Create {
            name,
            slug: wanted,
            json,
        } => {
            let n = name.chars().count();
            if name.trim().is_empty() || n > NAME_MAX {
                return Err(CliError(format!(
                    "category name must be 1 to {NAME_MAX} characters"
                )));
            }
            if let Some(s) = &wanted
                && !slug::is_valid(s)
            {
                return Err(CliError(format!(
                    "slug {s:?} must be lowercase letters and digits in dash-separated words, at most {} characters",
                    slug::MAX_LEN
                )));
            }
            let now = clock.now();
            let nm = name.clone();
            let (id, s) = write(db, move |tx| {
                let s = match wanted {
                    Some(s) => {
                        if categories::slug_taken(tx, &s)? {
                            return Err(CliError(format!("slug {s:?} is already taken")));
                        }
                        s
                    }
                    None => slug::unique(&slug::slugify(&nm, "category"), |c| {
                        categories::slug_taken(tx, c)
                    })?,
                };
                Ok((categories::insert(tx, None, &nm, &s, now)?, s))
            })?;
            if json {
                print_json(&json!({ "id": id, "name": name, "slug": s }));
            } else {
                println!("created category {name} (id {id}, slug {s})");
            }
        }
        CategoryCommand::List { json } => {
            let list = read(db, |c| categories::list(c).map_err(CliError::from))?;
            if json {
                let v: Vec<_> = list
                    .iter()
                    .map(|c| json!({ "id": c.id, "name": c.name, "slug": c.slug, "active": c.active, "deleted": c.deleted }))
                    .collect();
                print_json(&serde_json::Value::Array(v));
            } else {
                for c in &list {
                    println!("{:>4}  {:<24} {}", c.id, c.slug, c.name);
                }
            }
        }
    }
    Ok(())
}

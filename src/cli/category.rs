//! `hearth category ...`.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, check_length, print_json, print_list, read, write};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::categories::{self, Taken};
use crate::model::category::Category;
use crate::model::slug;

/// Longest category name.
pub const NAME_MAX: usize = 255;

/// Category subcommands.
#[derive(Debug, Subcommand)]
pub enum CategoryCommand {
    /// Create a category.
    Create {
        /// Name (1–255 characters; unique case-insensitively).
        #[arg(long)]
        name: String,
        /// Slug (lowercase letters, digits and single dashes; unique); generated from
        /// the name when absent.
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
    /// Change a category; only the options given change.
    Update {
        /// Its id.
        id: i64,
        /// New name (1–255 characters; unique case-insensitively).
        #[arg(long)]
        name: Option<String>,
        /// New slug (lowercase letters, digits and single dashes; unique).
        #[arg(long)]
        slug: Option<String>,
        /// Offered to users or not.
        #[arg(long, value_name = "true|false", value_parser = crate::model::boolean::parse_arg)]
        active: Option<bool>,
        /// Position in the manual order.
        #[arg(long, allow_hyphen_values = true)]
        order: Option<i64>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

fn check_slug(s: &str) -> CliResult {
    if slug::is_valid(s) {
        Ok(())
    } else {
        Err(CliError(format!(
            "slug {s:?} must be lowercase letters and digits in dash-separated words, at most {} characters",
            slug::MAX_LEN
        )))
    }
}

/// A taken name or slug (in any case) as a clear line; other errors as they are.
fn taken_error(e: rusqlite::Error, name: &str, slug: &str) -> CliError {
    match categories::taken(&e) {
        Some(Taken::Name) => CliError(format!("a category named {name:?} already exists")),
        Some(Taken::Slug) => CliError(format!("slug {slug:?} is already taken")),
        _ => e.into(),
    }
}

fn category_json(c: &Category) -> serde_json::Value {
    json!({ "id": c.id, "name": c.name, "slug": c.slug, "active": c.active, "deleted": c.deleted, "order": c.order })
}

/// Runs a `category` subcommand.
pub fn run(db: &Db, cmd: CategoryCommand, clock: &Clock) -> CliResult {
    match cmd {
        CategoryCommand::Create { name, slug: wanted, json } => {
            check_length("category name", &name, NAME_MAX)?;
            if let Some(s) = &wanted {
                check_slug(s)?;
            }
            let now = clock.now();
            let nm = name.clone();
            let (id, s) = write(db, move |tx| {
                if categories::name_taken(tx, &nm, 0)? {
                    return Err(CliError(format!("a category named {nm:?} already exists")));
                }
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
                let id = categories::insert(tx, None, &nm, &s, now)
                    .map_err(|e| taken_error(e, &nm, &s))?;
                Ok((id, s))
            })?;
            if json {
                print_json(&json!({ "id": id, "name": name, "slug": s }));
            } else {
                println!("created category {name} (id {id}, slug {s})");
            }
        }
        CategoryCommand::List { json } => {
            let list = read(db, |c| categories::list(c).map_err(CliError::from))?;
            print_list(&list, json, category_json, |c| {
                println!("{:>4}  {:<24} {}", c.id, c.slug, c.name);
            });
        }
        CategoryCommand::Update { id, name, slug: new_slug, active, order, json } => {
            if name.is_none() && new_slug.is_none() && active.is_none() && order.is_none() {
                return Err(CliError(
                    "nothing to change: give --name, --slug, --active or --order".into(),
                ));
            }
            if let Some(n) = &name {
                check_length("category name", n, NAME_MAX)?;
            }
            if let Some(s) = &new_slug {
                check_slug(s)?;
            }
            let c = write(db, move |tx| {
                let mut c = categories::get(tx, id)?
                    .ok_or_else(|| CliError(format!("no category with id {id}")))?;
                if let Some(n) = name {
                    c.name = n;
                }
                if let Some(s) = new_slug {
                    c.slug = s;
                }
                if let Some(a) = active {
                    c.active = a;
                }
                if let Some(o) = order {
                    c.order = o;
                }
                categories::update(tx, &c).map_err(|e| taken_error(e, &c.name, &c.slug))?;
                Ok(c)
            })?;
            if json {
                print_json(&category_json(&c));
            } else {
                println!("updated category {} (id {}, slug {})", c.name, c.id, c.slug);
            }
        }
    }
    Ok(())
}

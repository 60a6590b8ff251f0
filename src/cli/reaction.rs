//! `hearth reaction ...`.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, check_length, print_json, print_list, read, write};
use crate::db::Db;
use crate::db::reactions;
use crate::model::reaction::Reaction;

/// Longest reaction label.
pub const LABEL_MAX: usize = 64;

/// Reaction subcommands.
#[derive(Debug, Subcommand)]
pub enum ReactionCommand {
    /// List reactions.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Add a reaction.
    Add {
        /// Label (1–64 characters; unique case-insensitively).
        #[arg(long)]
        label: String,
        /// Sentiment (-1 negative, 0 neutral, 1 positive; any integer is stored).
        #[arg(long, allow_hyphen_values = true)]
        sentiment: i64,
        /// Image URL (default: hearth's default reaction image).
        #[arg(long)]
        image: Option<String>,
        /// Create it inactive.
        #[arg(long)]
        inactive: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Change a reaction.
    Set {
        /// Its id.
        id: i64,
        /// New label.
        #[arg(long)]
        label: Option<String>,
        /// New sentiment.
        #[arg(long, allow_hyphen_values = true)]
        sentiment: Option<i64>,
        /// New image URL.
        #[arg(long)]
        image: Option<String>,
        /// Active or not.
        #[arg(long, value_name = "true|false", value_parser = crate::model::boolean::parse_arg)]
        active: Option<bool>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

fn reaction_json(r: &Reaction) -> serde_json::Value {
    json!({ "id": r.id, "label": r.label, "sentiment": r.sentiment, "image": r.image, "active": r.active })
}

fn print(r: &Reaction, as_json: bool) {
    if as_json {
        print_json(&reaction_json(r));
    } else {
        println!(
            "{:>3}  {:<12} sentiment {:>2}  {}",
            r.id,
            r.label,
            r.sentiment,
            if r.active { "active" } else { "inactive" }
        );
    }
}

/// The image the kit puts in an `<img>`: a link (`model::link`), never `javascript:`
/// or `data:`.
fn check_image(i: &str) -> CliResult {
    if crate::model::link::is_safe(i) {
        Ok(())
    } else {
        Err(CliError(format!(
            "image {i:?} is not a URL (an http(s) URL or a path that starts with /)"
        )))
    }
}

/// A taken label (in any case) as a clear line; other errors as they are.
fn label_error(e: rusqlite::Error, label: &str) -> CliError {
    if reactions::is_label_taken(&e) {
        CliError(format!("a reaction labelled {label:?} already exists"))
    } else {
        e.into()
    }
}

/// Runs a `reaction` subcommand.
pub fn run(db: &Db, cmd: ReactionCommand) -> CliResult {
    match cmd {
        ReactionCommand::List { json } => {
            let list = read(db, |c| reactions::list(c).map_err(CliError::from))?;
            print_list(&list, json, reaction_json, |r| print(r, false));
        }
        ReactionCommand::Add { label, sentiment, image, inactive, json } => {
            check_length("label", &label, LABEL_MAX)?;
            if let Some(i) = &image {
                check_image(i)?;
            }
            let mut r = Reaction { id: 0, label, sentiment, image, active: !inactive };
            let new = r.clone();
            r.id = write(db, move |tx| {
                reactions::insert(tx, &new).map_err(|e| label_error(e, &new.label))
            })?;
            print(&r, json);
        }
        ReactionCommand::Set { id, label, sentiment, image, active, json } => {
            let mut r = read(db, move |c| reactions::get(c, id).map_err(CliError::from))?
                .ok_or_else(|| CliError(format!("no reaction with id {id}")))?;
            if let Some(l) = label {
                check_length("label", &l, LABEL_MAX)?;
                r.label = l;
            }
            if let Some(s) = sentiment {
                r.sentiment = s;
            }
            if let Some(i) = image {
                check_image(&i)?;
                r.image = Some(i);
            }
            if let Some(a) = active {
                r.active = a;
            }
            let new = r.clone();
            write(db, move |tx| {
                reactions::update(tx, &new).map_err(|e| label_error(e, &new.label))
            })?;
            print(&r, json);
        }
    }
    Ok(())
}

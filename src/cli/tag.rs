//! `hearth tag ...`: the user tags staff keep (SPEC §10 People): list them with how
//! many members hold each, add one, give it to a member or take it back.

use clap::Subcommand;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::tags;
use crate::model::tag::{Tag, TagInput, check_color, check_description, check_name};

/// Tag subcommands.
#[derive(Debug, Subcommand)]
pub enum TagCommand {
    /// List the tags (deleted ones too), each with how many live members hold it.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Add a tag.
    Add {
        /// Its name (1–50 characters, unique).
        name: String,
        /// Its colour, #rrggbb.
        #[arg(long)]
        color: Option<String>,
        /// A short description (plain text).
        #[arg(long)]
        description: Option<String>,
        /// Keep it off members' profiles.
        #[arg(long)]
        hidden: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Give a member a tag.
    Assign {
        /// The tag's id or name.
        tag: String,
        /// The member's username.
        username: String,
    },
    /// Take a tag back from a member.
    Unassign {
        /// The tag's id or name.
        tag: String,
        /// The member's username.
        username: String,
    },
}

fn find(db: &Db, key: &str) -> CliResult<Tag> {
    let k = key.to_owned();
    read(db, move |c| {
        let id = match k.parse::<i64>() {
            Ok(id) => Some(id),
            Err(_) => tags::named(c, &k, 0)?,
        };
        Ok(match id {
            Some(id) => tags::get(c, id)?,
            None => None,
        })
    })?
    .ok_or_else(|| CliError(format!("no tag {key:?}")))
}

/// Runs a `tag` subcommand.
pub fn run(db: &Db, cmd: TagCommand, clock: &Clock) -> CliResult {
    let give = matches!(cmd, TagCommand::Assign { .. });
    match cmd {
        TagCommand::List { json } => {
            let rows = read(db, |c| {
                let (_, all) = tags::page(c, &tags::Filter::default(), i64::MAX, 0)?;
                all.into_iter()
                    .map(|t| Ok((tags::holders(c, t.id)?, t)))
                    .collect::<Result<Vec<_>, CliError>>()
            })?;
            print_list(
                &rows,
                json,
                |(n, t)| {
                    let mut j = serde_json::to_value(t.to_json()).unwrap_or_default();
                    j["holders"] = (*n).into();
                    j
                },
                |(n, t)| {
                    let mut flags = Vec::new();
                    for (on, word) in
                        [(!t.visible, "hidden"), (!t.active, "inactive"), (t.deleted, "deleted")]
                    {
                        if on {
                            flags.push(word);
                        }
                    }
                    println!(
                        "{:>4}  {}  {}  {n} members  {}",
                        t.id,
                        t.name,
                        t.color,
                        flags.join(",")
                    );
                },
            );
        }
        TagCommand::Add { name, color, description, hidden, json } => {
            let input = TagInput {
                name: Some(check_name(&name).map_err(CliError)?),
                color: color.as_deref().map(check_color).transpose().map_err(CliError)?,
                description: description
                    .as_deref()
                    .map(check_description)
                    .transpose()
                    .map_err(CliError)?,
                visible: Some(!hidden),
                ..TagInput::default()
            };
            let now = clock.now();
            let tag = write(db, move |tx| {
                let mut tag = input.new_tag(now);
                if tags::named(tx, &tag.name, 0)?.is_some() {
                    return Err(CliError(format!("a tag named {:?} already exists", tag.name)));
                }
                tag.id = tags::insert(tx, &tag, None)?;
                Ok(tag)
            })?;
            if json {
                print_json(&serde_json::to_value(tag.to_json()).unwrap_or_default());
            } else {
                println!("added tag {} ({})", tag.id, tag.name);
            }
        }
        TagCommand::Assign { tag, username } | TagCommand::Unassign { tag, username } => {
            let t = find(db, &tag)?;
            if give && t.deleted {
                return Err(CliError(format!("tag {} is deleted", t.id)));
            }
            let user = super::user::find_id(db, &username)?;
            let changed = write(db, move |tx| {
                Ok(if give {
                    tags::assign(tx, t.id, user)?
                } else {
                    tags::unassign(tx, t.id, user)?
                })
            })?;
            let what = match (give, changed) {
                (true, true) => "now holds",
                (true, false) => "already held",
                (false, true) => "no longer holds",
                (false, false) => "did not hold",
            };
            println!("{username} {what} tag {} ({})", t.id, t.name);
        }
    }
    Ok(())
}

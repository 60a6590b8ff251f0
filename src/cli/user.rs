//! `hearth user ...`.

use std::io::{BufRead, IsTerminal};

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_json, read, write};
use crate::clock::{Clock, rfc3339};
use crate::db::{self, Db, users};
use crate::model::user::validate_username;
use crate::token::password;

/// User subcommands.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user. The password comes from stdin (--password-stdin) or a terminal
    /// prompt, never from an argument; without either the user has no password and can
    /// only authenticate with JWTs minted by an external service.
    Create {
        /// 1–150 letters, digits and @.+-_ ; unique case-insensitively.
        #[arg(long)]
        username: String,
        /// Email address (unique).
        #[arg(long)]
        email: Option<String>,
        /// Display name.
        #[arg(long, default_value = "")]
        real_name: String,
        /// Staff member (may change preferences through the API).
        #[arg(long)]
        staff: bool,
        /// The user's id in an external service.
        #[arg(long)]
        ext_id: Option<String>,
        /// Read the password from stdin (one trailing newline stripped).
        #[arg(long)]
        password_stdin: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List live users.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Set a user's password (from stdin with --password-stdin, or a terminal prompt).
    SetPassword {
        /// The username.
        username: String,
        /// Read the password from stdin (one trailing newline stripped).
        #[arg(long)]
        password_stdin: bool,
    },
    /// Soft-delete a user; its tokens stop working.
    Delete {
        /// The username.
        username: String,
    },
}

/// Reads a password: from stdin with `--password-stdin`, else by prompting when stdin
/// is a terminal, else none.
fn read_password(from_stdin: bool, prompt: bool) -> CliResult<Option<String>> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        let pw = line
            .strip_suffix('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or(&line)
            .to_owned();
        if pw.is_empty() {
            return Err(CliError("the password read from stdin is empty".into()));
        }
        return Ok(Some(pw));
    }
    if prompt && std::io::stdin().is_terminal() {
        let pw = rpassword::prompt_password("Password (empty for none): ")?;
        if pw.is_empty() {
            return Ok(None);
        }
        let again = rpassword::prompt_password("Password again: ")?;
        if again != pw {
            return Err(CliError("the passwords do not match".into()));
        }
        return Ok(Some(pw));
    }
    Ok(None)
}

fn validate_email(e: &str) -> CliResult {
    let ok = e.len() <= 254
        && !e.chars().any(char::is_whitespace)
        && e.split_once('@').is_some_and(|(l, d)| {
            !l.is_empty()
                && d.contains('.')
                && !d.starts_with('.')
                && !d.ends_with('.')
                && !d.contains('@')
        });
    if ok {
        Ok(())
    } else {
        Err(CliError(format!("{e:?} is not a valid email address")))
    }
}

fn find_id(db: &Db, username: &str) -> CliResult<i64> {
    let u = username.to_owned();
    read(db, move |c| {
        users::by_username(c, &u).map_err(CliError::from)
    })?
    .map(|(u, _)| u.id)
    .ok_or_else(|| CliError(format!("no user named {username:?}")))
}

/// Runs a `user` subcommand.
pub fn run(db: &Db, cmd: UserCommand, clock: &Clock) -> CliResult {
    match cmd {
        UserCommand::Create {
            username,
            email,
            real_name,
            staff,
            ext_id,
            password_stdin,
            json,
        } => {
            validate_username(&username).map_err(CliError)?;
            if let Some(e) = &email {
                validate_email(e)?;
            }
            let pw = read_password(password_stdin, true)?;
            let hash = pw.map(|p| password::hash(&p, password::DEFAULT_ITERATIONS));
            let new = users::NewUser {
                id: None,
                username: username.clone(),
                email: email.clone(),
                real_name,
                password_hash: hash.clone(),
                is_staff: staff,
                ext_id,
                date_joined: clock.now(),
            };
            let id = write(db, move |tx| {
                users::insert(tx, &new).map_err(|e| {
                    if db::is_unique_violation(&e) {
                        let what = if e.to_string().contains("email") {
                            "email"
                        } else {
                            "username"
                        };
                        CliError(format!("that {what} is already taken"))
                    } else {
                        e.into()
                    }
                })
            })?;
            if json {
                print_json(
                    &json!({ "id": id, "username": username, "email": email, "is_staff": staff, "has_password": hash.is_some() }),
                );
            } else {
                println!(
                    "created user {username} (id {id}){}",
                    if hash.is_some() {
                        ""
                    } else {
                        " without a password"
                    }
                );
            }
        }
        UserCommand::List { json } => {
            let list = read(db, |c| users::list(c).map_err(CliError::from))?;
            if json {
                let v: Vec<_> = list
                    .iter()
                    .map(|u| json!({ "id": u.id, "username": u.username, "email": u.email, "real_name": u.real_name,
                        "is_staff": u.is_staff, "ext_id": u.ext_id, "date_joined": rfc3339(u.date_joined) }))
                    .collect();
                print_json(&serde_json::Value::Array(v));
            } else {
                for u in &list {
                    println!(
                        "{:>6}  {}{}",
                        u.id,
                        u.username,
                        if u.is_staff { "  (staff)" } else { "" }
                    );
                }
            }
        }
        UserCommand::SetPassword {
            username,
            password_stdin,
        } => {
            let id = find_id(db, &username)?;
            let pw = read_password(password_stdin, true)?.ok_or_else(|| {
                CliError("no password given (use --password-stdin or run on a terminal)".into())
            })?;
            let hash = password::hash(&pw, password::DEFAULT_ITERATIONS);
            write(db, move |tx| {
                users::set_password(tx, id, Some(&hash)).map_err(CliError::from)
            })?;
            println!("password of {username} changed");
        }
        UserCommand::Delete { username } => {
            let id = find_id(db, &username)?;
            write(db, move |tx| {
                users::soft_delete(tx, id).map_err(CliError::from)
            })?;
            println!("deleted user {username}; its tokens no longer work");
        }
    }
    Ok(())
}

//! `hearth user ...`.

use std::io::{BufRead, IsTerminal};

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::{Clock, rfc3339};
use crate::db::{self, Db, users};
use crate::model::user::{User, validate_username};
use crate::token::password;

/// User subcommands.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user. The password comes from stdin (--password-stdin) or a terminal
    /// prompt, never from an argument; --no-password makes a user that can only
    /// authenticate with JWTs minted by an external service. Without a terminal and
    /// without either flag the command refuses.
    Create {
        /// 1–150 letters, digits and @.+-_ ; unique case-insensitively.
        #[arg(long, allow_hyphen_values = true)]
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
        #[arg(long, conflicts_with = "no_password")]
        password_stdin: bool,
        /// Make a user without a password (JWT-only).
        #[arg(long)]
        no_password: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// List live users.
    List {
        /// Only the users whose registration awaits staff approval (sign-ups while
        /// the preference configurations.users_approval_enabled is on).
        #[arg(long)]
        awaiting_approval: bool,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Approve a user's registration: one who signed up while staff approve new
    /// members (configurations.users_approval_enabled) may sign in from now on.
    Approve {
        /// The username.
        #[arg(allow_hyphen_values = true)]
        username: String,
    },
    /// Show one live user.
    Show {
        /// The username (case-insensitive).
        #[arg(allow_hyphen_values = true)]
        username: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Set a user's password (from stdin with --password-stdin, or a terminal prompt);
    /// --no-password removes it. Without a terminal and without either flag the
    /// command refuses. Either way the user's OAuth tokens and sessions end.
    SetPassword {
        /// The username.
        #[arg(allow_hyphen_values = true)]
        username: String,
        /// Read the password from stdin (one trailing newline stripped).
        #[arg(long, conflicts_with = "no_password")]
        password_stdin: bool,
        /// Remove the password: the user then authenticates only with JWTs.
        #[arg(long)]
        no_password: bool,
    },
    /// Make a user staff (true) or not (false: the user's OAuth tokens and sessions
    /// end).
    SetStaff {
        /// The username.
        #[arg(allow_hyphen_values = true)]
        username: String,
        /// true or false.
        #[arg(value_name = "true|false", action = clap::ArgAction::Set, value_parser = crate::model::boolean::parse_arg)]
        staff: bool,
    },
    /// Soft-delete a user; its tokens stop working.
    Delete {
        /// The username.
        #[arg(allow_hyphen_values = true)]
        username: String,
    },
    /// Block a member (SPEC §10 People): they still sign in and read, but may not post,
    /// comment, vote, flag, follow or ask for connections until the block ends.
    Suspend {
        /// The username.
        #[arg(allow_hyphen_values = true)]
        username: String,
        /// Days the block lasts (1–3650); without it, until `hearth user unsuspend`.
        #[arg(long, value_parser = clap::value_parser!(i64).range(1..=crate::db::user_blocks::MAX_DAYS))]
        days: Option<i64>,
    },
    /// Lift a member's block.
    Unsuspend {
        /// The username.
        #[arg(allow_hyphen_values = true)]
        username: String,
    },
}

/// Where a password comes from (SPEC §2): stdin with `--password-stdin`, none with
/// `--no-password`, else a prompt on a terminal. Without a terminal and without either
/// flag the command refuses: a password piped in without `--password-stdin` is never
/// silently dropped.
fn read_password(from_stdin: bool, none: bool) -> CliResult<Option<String>> {
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
    if none {
        return Ok(None);
    }
    if !std::io::stdin().is_terminal() {
        return Err(CliError(
            "no password given and stdin is not a terminal: pass --password-stdin to read it from stdin, or --no-password for a user without one".into(),
        ));
    }
    let pw = rpassword::prompt_password("Password: ")?;
    if pw.is_empty() {
        return Err(CliError("empty password; use --no-password for a user without one".into()));
    }
    let again = rpassword::prompt_password("Password again: ")?;
    if again != pw {
        return Err(CliError("the passwords do not match".into()));
    }
    Ok(Some(pw))
}

fn validate_email(e: &str) -> CliResult {
    crate::model::user::validate_email(e).map_err(CliError)
}

fn find(db: &Db, username: &str) -> CliResult<(User, Option<String>)> {
    let u = username.to_owned();
    read(db, move |c| users::by_username(c, &u).map_err(CliError::from))?
        .ok_or_else(|| CliError(format!("no user named {username:?}")))
}

pub(super) fn find_id(db: &Db, username: &str) -> CliResult<i64> {
    Ok(find(db, username)?.0.id)
}

fn user_json(u: &User) -> serde_json::Value {
    json!({ "id": u.id, "username": u.username, "email": u.email, "real_name": u.real_name,
        "is_staff": u.is_staff, "ext_id": u.ext_id, "date_joined": rfc3339(u.date_joined),
        "reg_approved": u.reg_approved })
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
            no_password,
            json,
        } => {
            validate_username(&username).map_err(CliError)?;
            if let Some(e) = &email {
                validate_email(e)?;
            }
            let pw = read_password(password_stdin, no_password)?;
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
                        let what =
                            if e.to_string().contains("email") { "email" } else { "username" };
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
                    if hash.is_some() { "" } else { " without a password" }
                );
            }
        }
        UserCommand::List { awaiting_approval, json } => {
            let list = read(db, move |c| {
                if awaiting_approval { users::awaiting_approval(c) } else { users::list(c) }
                    .map_err(CliError::from)
            })?;
            print_list(&list, json, user_json, |u| {
                println!(
                    "{:>6}  {}{}{}",
                    u.id,
                    u.username,
                    if u.is_staff { "  (staff)" } else { "" },
                    if u.reg_approved { "" } else { "  (awaiting approval)" }
                );
            });
        }
        UserCommand::Approve { username } => {
            let (user, _) = find(db, &username)?;
            let name = user.username.clone();
            if user.reg_approved {
                println!("{name} is approved already; nothing changed");
            } else {
                write(db, move |tx| {
                    users::set_approved(tx, user.id, true).map_err(CliError::from)
                })?;
                println!("{name} is approved and may sign in");
            }
        }
        UserCommand::Show { username, json } => {
            let (u, hash) = find(db, &username)?;
            if json {
                let mut v = user_json(&u);
                v["has_password"] = json!(hash.is_some());
                print_json(&v);
            } else {
                println!("id:          {}", u.id);
                println!("username:    {}", u.username);
                println!("email:       {}", u.email.as_deref().unwrap_or(""));
                println!("real name:   {}", u.real_name);
                println!("staff:       {}", u.is_staff);
                println!("approved:    {}", u.reg_approved);
                println!("ext_id:      {}", u.ext_id.as_deref().unwrap_or(""));
                println!("password:    {}", if hash.is_some() { "set" } else { "none" });
                println!("date joined: {}", rfc3339(u.date_joined));
            }
        }
        UserCommand::SetPassword { username, password_stdin, no_password } => {
            let id = find_id(db, &username)?;
            let hash = read_password(password_stdin, no_password)?
                .map(|pw| password::hash(&pw, password::DEFAULT_ITERATIONS));
            let set = hash.is_some();
            write(db, move |tx| {
                users::set_password(tx, id, hash.as_deref()).map_err(CliError::from)
            })?;
            if set {
                println!("password of {username} changed; its OAuth tokens and sessions ended");
            } else {
                println!(
                    "password of {username} removed; its OAuth tokens and sessions ended, it authenticates only with JWTs"
                );
            }
        }
        UserCommand::SetStaff { username, staff } => {
            let id = find_id(db, &username)?;
            write(db, move |tx| users::set_staff(tx, id, staff).map_err(CliError::from))?;
            println!(
                "{username} is {}",
                if staff {
                    "now staff"
                } else {
                    "no longer staff; its OAuth tokens and sessions ended"
                }
            );
        }
        UserCommand::Suspend { username, days } => {
            let (user, _) = find(db, &username)?;
            if user.is_staff {
                return Err(CliError(format!(
                    "{username} is staff: take staff away first (hearth user set-staff {username} false)"
                )));
            }
            let now = clock.now();
            let until = crate::db::user_blocks::until(now, days);
            write(db, move |tx| {
                crate::db::user_blocks::block(tx, user.id, now, until).map_err(CliError::from)
            })?;
            match until {
                Some(t) => println!("{username} is blocked until {}", crate::clock::rfc3339(t)),
                None => println!("{username} is blocked until `hearth user unsuspend {username}`"),
            }
        }
        UserCommand::Unsuspend { username } => {
            let id = find_id(db, &username)?;
            write(db, move |tx| crate::db::user_blocks::lift(tx, id).map_err(CliError::from))?;
            println!("{username} is no longer blocked");
        }
        UserCommand::Delete { username } => {
            let id = find_id(db, &username)?;
            write(db, move |tx| users::soft_delete(tx, id).map_err(CliError::from))?;
            println!("deleted user {username}; its tokens no longer work");
        }
    }
    Ok(())
}

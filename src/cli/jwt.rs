//! `hearth jwt ...`.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_json, read, write};
use crate::clock::{Clock, SECOND, rfc3339};
use crate::db::{self, Db};
use crate::token::{self, jwt};

/// JWT subcommands.
#[derive(Debug, Subcommand)]
pub enum JwtCommand {
    /// Print the JWT shared secret (give it to the service that mints tokens).
    Secret {
        /// Make a new secret; the previous one stays valid for --grace seconds.
        #[arg(long)]
        rotate: bool,
        /// Seconds the previous secret stays valid after --rotate.
        #[arg(long, default_value_t = 86_400, requires = "rotate")]
        grace: u32,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Print a signed JWT access token for a user (tests and integrations).
    Mint {
        /// The user's id.
        #[arg(long)]
        user_id: i64,
        /// Lifetime in seconds.
        #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(i64).range(1..=10 * 365 * 86_400))]
        ttl: i64,
        /// An ext_id claim to include.
        #[arg(long)]
        ext_id: Option<String>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `jwt` subcommand.
pub fn run(db: &Db, cmd: JwtCommand, clock: &Clock) -> CliResult {
    match cmd {
        JwtCommand::Secret { rotate, grace, json } => {
            let now = clock.now();
            let grace_until = now + i64::from(grace) * SECOND;
            if rotate {
                let fresh = token::random_string(db::seed::JWT_SECRET_BYTES);
                write(db, move |tx| {
                    db::jwt::rotate(tx, &fresh, now, grace_until).map_err(CliError::from)
                })?;
            }
            let secret = read(db, |c| db::jwt::current_secret(c).map_err(CliError::from))?
                .ok_or_else(|| CliError("the database has no JWT secret".into()))?;
            if json {
                let mut v = json!({ "secret": secret });
                if rotate {
                    v["previous_valid_until"] = json!(rfc3339(grace_until));
                }
                print_json(&v);
            } else {
                println!("{secret}");
                if rotate {
                    eprintln!(
                        "rotated; tokens signed with the previous secret are accepted until {}",
                        rfc3339(grace_until)
                    );
                }
            }
        }
        JwtCommand::Mint { user_id, ttl, ext_id, json } => {
            let (secret, live) = read(db, move |c| {
                Ok((db::jwt::current_secret(c)?, db::users::is_live(c, user_id)?))
            })?;
            let secret = secret.ok_or_else(|| CliError("the database has no JWT secret".into()))?;
            if !live {
                return Err(CliError(format!("no live user with id {user_id}")));
            }
            let now = clock.now_secs();
            let t = jwt::mint(user_id, ext_id.map(serde_json::Value::String), now, ttl, &secret);
            if json {
                print_json(
                    &json!({ "token": t, "user_id": user_id, "expires_at": rfc3339((now + ttl) * SECOND) }),
                );
            } else {
                println!("{t}");
            }
        }
    }
    Ok(())
}

//! Password checks behind the brute-force limit (SPEC §4), shared by the login form and
//! the password grant. A throttled request spends no hashing; an unknown username
//! spends the same work as a known one and counts as a failure too.

use std::net::IpAddr;

use tracing::Instrument;

use crate::limits::login::LimitKey;
use crate::state::AppState;
use crate::telemetry::{self, security};

/// What a user whose registration awaits approval is told on signing in.
pub const AWAITING_APPROVAL: &str =
    "This account awaits approval by the community's staff: sign in once they have approved it.";

/// The outcome of a password check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The user id.
    Ok(i64),
    /// Wrong username or password.
    Wrong,
    /// The right password of a user whose registration awaits staff approval
    /// (`reg_approved` false, SPEC §10 People): no sign-in yet. Only a caller who knows
    /// the password learns it.
    AwaitingApproval,
    /// Too many failures: retry after this many seconds.
    Throttled(u64),
}

/// Checks `username`/`password`. The check runs in a task of its own: a client that
/// goes away while its password is hashed does not cancel the check, so it is counted
/// by what it found (a wrong password stays a failure; a right one is no failure),
/// never left as an unresolved reservation that would count against a legitimate user.
/// A failure is logged here as the `login_failed` security event and a refusal by the
/// limit as `throttled`, once each, for the login form and the password grant alike.
pub async fn check(
    state: &AppState,
    addr: IpAddr,
    username: &str,
    password: &str,
) -> Result<Outcome, crate::db::DbError> {
    let user_key = LimitKey::User(crate::model::user::username_key(username));
    let keys = [user_key.clone(), LimitKey::Addr(crate::limits::AddrKey::of(addr))];
    let reservation = match state.login_limiter.reserve(&keys, state.clock.now()) {
        Ok(r) => r,
        Err(secs) => {
            security::throttled(addr, username);
            return Ok(Outcome::Throttled(secs));
        }
    };
    let (state, name, pw) = (state.clone(), username.to_owned(), password.to_owned());
    tokio::spawn(
        async move {
            let outcome = verify(&state, name.clone(), pw).await;
            match &outcome {
                Ok(Outcome::Ok(_) | Outcome::AwaitingApproval) => {
                    telemetry::password_check(true);
                    reservation.succeeded(&user_key);
                }
                Ok(_) => {
                    telemetry::password_check(false);
                    security::login_failed(addr, &name);
                    reservation.failed();
                }
                Err(_) => reservation.failed(),
            }
            outcome
        }
        .instrument(tracing::Span::current()),
    )
    .await
    .map_err(|e| crate::db::DbError::Task(e.to_string()))?
}

/// The password check itself: at least the standard work whether or not the user
/// exists and whatever its hash's iteration count (`token::password::check`); a right
/// password under another count is rehashed at hearth's own before the answer.
async fn verify(state: &AppState, name: String, pw: String) -> Result<Outcome, crate::db::DbError> {
    use crate::token::password::{self, Checked};
    let found = state
        .db
        .read(move |c| crate::db::users::by_username(c, &name).map_err(crate::db::DbError::from))
        .await?;
    Ok(match found {
        Some((user, Some(hash))) => {
            let checked = state
                .hash_blocking(move || {
                    let checked = password::check(&pw, &hash);
                    let new = (checked == Checked::RightRehash)
                        .then(|| password::hash(&pw, password::DEFAULT_ITERATIONS));
                    (checked, new, hash)
                })
                .await;
            let right =
                if user.reg_approved { Outcome::Ok(user.id) } else { Outcome::AwaitingApproval };
            match checked {
                Some((Checked::Right, _, _)) => right,
                Some((Checked::RightRehash, Some(new), old)) => {
                    let id = user.id;
                    let stored = state
                        .db
                        .write(move |tx| {
                            crate::db::users::rehash(tx, id, &old, &new)
                                .map_err(crate::db::DbError::from)
                        })
                        .await;
                    // the sign-in stands either way: the next one tries again
                    if let Err(e) = stored {
                        tracing::warn!(error = %e, user_id = id, "could not store a rehashed password");
                    }
                    right
                }
                _ => Outcome::Wrong,
            }
        }
        // unknown user, or one without a password (JWT-only): same work, always wrong
        _ => {
            let _ = state.hash_blocking(move || crate::token::password::dummy_verify(&pw)).await;
            Outcome::Wrong
        }
    })
}

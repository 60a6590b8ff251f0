//! Password checks behind the brute-force limit (SPEC §4), shared by the login form and
//! the password grant. A throttled request spends no hashing; an unknown username
//! spends the same work as a known one and counts as a failure too.

use std::net::IpAddr;

use crate::oauth::limit::LimitKey;
use crate::state::AppState;

/// The outcome of a password check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The user id.
    Ok(i64),
    /// Wrong username or password.
    Wrong,
    /// Too many failures: retry after this many seconds.
    Throttled(u64),
}

/// Checks `username`/`password`.
pub async fn check(
    state: &AppState,
    addr: IpAddr,
    username: &str,
    password: &str,
) -> Result<Outcome, crate::db::DbError> {
    let user_key = LimitKey::User(crate::model::user::username_key(username));
    let keys = [user_key.clone(), LimitKey::Addr(addr)];
    let reservation = match state.login_limiter.reserve(&keys, state.clock.now()) {
        Ok(r) => r,
        Err(secs) => return Ok(Outcome::Throttled(secs)),
    };
    let name = username.to_owned();
    let found = state
        .db
        .read(move |c| crate::db::users::by_username(c, &name).map_err(crate::db::DbError::from))
        .await?;
    let pw = password.to_owned();
    let (id, ok) = match found {
        Some((user, Some(hash))) => {
            let ok = state
                .hash_blocking(move || crate::token::password::verify(&pw, &hash))
                .await
                .unwrap_or(false);
            (user.id, ok)
        }
        // unknown user, or one without a password (JWT-only): same work, always wrong
        _ => {
            let _ = state
                .hash_blocking(move || crate::token::password::dummy_verify(&pw))
                .await;
            (0, false)
        }
    };
    if ok {
        reservation.succeeded(&user_key);
        Ok(Outcome::Ok(id))
    } else {
        reservation.failed();
        Ok(Outcome::Wrong)
    }
}

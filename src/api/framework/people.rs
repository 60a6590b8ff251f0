//! User JSON for the lists of users §8 adds (voters, contributors, hidden users), as a
//! caller sees them: `connection_status` says whether the caller follows each one.

use rusqlite::Connection;

use crate::db;
use crate::error::ApiError;
use crate::model::PublicUrl;
use crate::model::user::{User, UserJson};

/// The User JSON of `users`, in their order, for `viewer`: one query for every user's
/// tags and one primary-key lookup a user for the follow status.
pub(crate) fn users_json(
    c: &Connection,
    users: Vec<User>,
    viewer: Option<i64>,
    base: &PublicUrl,
) -> Result<Vec<UserJson>, ApiError> {
    let ids: Vec<i64> = users.iter().map(|u| u.id).collect();
    let mut tags = db::follows::tags_of(c, &ids)?;
    let mut out = Vec::with_capacity(users.len());
    for u in users {
        let followed = match viewer {
            Some(v) => db::follows::is_following(c, v, u.id)?,
            None => false,
        };
        let t = tags.remove(&u.id).unwrap_or_default();
        out.push(u.to_json(base, followed, t));
    }
    Ok(out)
}

//! Identities elsewhere linked to members (`user_provider`, issue 32): what
//! `/api/v2/user/{id}/provider/` lists, staff add and members remove.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
pub use crate::model::user_provider::Association;

/// The most identities one member may have linked.
pub const MAX_PER_USER: i64 = 16;

/// `user`'s identities, by provider.
pub fn of_user(c: &Connection, user: i64) -> rusqlite::Result<Vec<Association>> {
    c.prepare_cached(
        "SELECT user_id, provider, ext_id, profile_url, show_in_profile, metadata
         FROM user_provider WHERE user_id = ?1 ORDER BY provider",
    )?
    .query_map([user], |r| {
        Ok(Association {
            user_id: r.get(0)?,
            provider: r.get(1)?,
            ext_id: r.get(2)?,
            profile_url: r.get(3)?,
            show_in_profile: r.get(4)?,
            metadata: r.get(5)?,
        })
    })?
    .collect()
}

/// Why an identity cannot be linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The member has one for this provider already.
    Linked,
    /// The external id is another member's (or this member's) already.
    Taken,
    /// The member has [`MAX_PER_USER`].
    Full,
}

/// Links `a`, unless [`Refused`].
pub fn insert(
    c: &Connection,
    a: &Association,
    now: Timestamp,
) -> rusqlite::Result<Result<(), Refused>> {
    let linked = c
        .prepare_cached("SELECT 1 FROM user_provider WHERE user_id = ?1 AND provider = ?2")?
        .exists(params![a.user_id, a.provider])?;
    if linked {
        return Ok(Err(Refused::Linked));
    }
    let taken = c
        .prepare_cached("SELECT user_id FROM user_provider WHERE provider = ?1 AND ext_id = ?2")?
        .query_row(params![a.provider, a.ext_id], |r| r.get::<_, i64>(0))
        .optional()?;
    if taken.is_some() {
        return Ok(Err(Refused::Taken));
    }
    let count: i64 = c
        .prepare_cached("SELECT count(*) FROM user_provider WHERE user_id = ?1")?
        .query_row([a.user_id], |r| r.get(0))?;
    if count >= MAX_PER_USER {
        return Ok(Err(Refused::Full));
    }
    c.prepare_cached(
        "INSERT INTO user_provider (user_id, provider, ext_id, profile_url, show_in_profile, metadata, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        a.user_id,
        a.provider,
        a.ext_id,
        a.profile_url,
        a.show_in_profile,
        a.metadata,
        now
    ])?;
    Ok(Ok(()))
}

/// Unlinks `user`'s identity at `provider`; whether there was one.
pub fn delete(c: &Connection, user: i64, provider: &str) -> rusqlite::Result<bool> {
    Ok(c.prepare_cached("DELETE FROM user_provider WHERE user_id = ?1 AND provider = ?2")?
        .execute(params![user, provider])?
        > 0)
}

/// A live member whose `ext_id` is `ext_id`, if any.
pub fn ext_id_owner(c: &Connection, ext_id: &str) -> rusqlite::Result<Option<i64>> {
    c.prepare_cached("SELECT id FROM user WHERE ext_id = ?1 AND deleted = 0 LIMIT 1")?
        .query_row([ext_id], |r| r.get(0))
        .optional()
}

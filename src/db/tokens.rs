//! OAuth access and refresh tokens, grants and codes (all stored as SHA-256 hashes).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;

/// Who an access token belongs to, when it is valid.
#[derive(Debug, Clone, Copy)]
pub struct TokenOwner {
    /// The user.
    pub user_id: i64,
    /// Staff flag of the user.
    pub is_staff: bool,
    /// Whether the token's scope includes `write`.
    pub can_write: bool,
}

/// Looks up a live access token by hash: not revoked, not expired, its grant not
/// revoked, its app and user existing and the user not deleted.
pub fn access_token_owner(
    conn: &Connection,
    hash: &[u8; 32],
    now: Timestamp,
) -> rusqlite::Result<Option<TokenOwner>> {
    conn.prepare_cached(
        "SELECT g.user_id, u.is_staff, t.scope FROM oauth_access_token t
         JOIN oauth_grant g ON g.id = t.grant_id
         JOIN user u ON u.id = g.user_id
         WHERE t.hash = ?1 AND t.revoked = 0 AND t.expires_at > ?2 AND g.revoked = 0 AND u.deleted = 0",
    )?
    .query_row(params![&hash[..], now], |r| {
        let scope: String = r.get(2)?;
        Ok(TokenOwner { user_id: r.get(0)?, is_staff: r.get(1)?, can_write: scope.split(' ').any(|s| s == "write") })
    })
    .optional()
}

/// Opens a grant (one authorization of `user_id` for `app_id`); returns its id.
pub fn insert_grant(
    conn: &Connection,
    app_id: i64,
    user_id: i64,
    scope: &str,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO oauth_grant (app_id, user_id, scope, created_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![app_id, user_id, scope, now])?;
    Ok(conn.last_insert_rowid())
}

/// Stores an access token (by hash) of a grant.
pub fn insert_access(
    conn: &Connection,
    hash: &[u8; 32],
    grant_id: i64,
    scope: &str,
    expires_at: Timestamp,
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO oauth_access_token (hash, grant_id, scope, expires_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![&hash[..], grant_id, scope, expires_at, now])?;
    Ok(())
}

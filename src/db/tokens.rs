//! OAuth access and refresh tokens, grants and codes (all stored as SHA-256 hashes).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::app::Authorization;

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
        Ok(from_columns!(r => TokenOwner { user_id, is_staff;
            can_write: scope.split(' ').any(|s| s == "write"),
        }))
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

/// Stores an authorization code (by hash): what `user_id` authorized `app_id` to do.
pub fn insert_code(
    conn: &Connection,
    hash: &[u8; 32],
    app_id: i64,
    user_id: i64,
    a: &Authorization,
    expires_at: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO oauth_code (hash, app_id, user_id, redirect_uri, scope, code_challenge,
                                 code_challenge_method, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        &hash[..],
        app_id,
        user_id,
        a.redirect_uri,
        a.scope,
        a.code_challenge,
        a.code_challenge_method,
        expires_at
    ])?;
    Ok(())
}

/// An authorization code as stored.
#[derive(Debug, Clone)]
pub struct CodeRow {
    pub app_id: i64,
    pub user_id: i64,
    pub authorization: Authorization,
    pub expires_at: Timestamp,
    /// The grant opened when the code was exchanged.
    pub grant_id: Option<i64>,
    pub used_at: Option<Timestamp>,
}

/// A code by hash.
pub fn code(conn: &Connection, hash: &[u8; 32]) -> rusqlite::Result<Option<CodeRow>> {
    conn.prepare_cached(
        "SELECT app_id, user_id, redirect_uri, scope, code_challenge, code_challenge_method,
                expires_at, grant_id, used_at FROM oauth_code WHERE hash = ?1",
    )?
    .query_row([&hash[..]], |r| {
        let (app_id, user_id, redirect_uri, scope, code_challenge, code_challenge_method) =
            (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?);
        Ok(CodeRow {
            app_id,
            user_id,
            authorization: Authorization {
                redirect_uri,
                scope,
                code_challenge,
                code_challenge_method,
            },
            expires_at: r.get(6)?,
            grant_id: r.get(7)?,
            used_at: r.get(8)?,
        })
    })
    .optional()
}

/// Marks a code used (and records the grant it opened, if any).
pub fn use_code(
    conn: &Connection,
    hash: &[u8; 32],
    grant_id: Option<i64>,
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE oauth_code SET used_at = ?2, grant_id = ?3 WHERE hash = ?1")?
        .execute(params![&hash[..], now, grant_id])?;
    Ok(())
}

/// Drops codes that expired before `now` (kept a while after use to detect reuse).
pub fn purge_codes(conn: &Connection, before: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM oauth_code WHERE expires_at < ?1")?.execute([before])?;
    Ok(())
}

/// Revokes a grant: every access and refresh token issued under it stops working.
pub fn revoke_grant(conn: &Connection, grant_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE oauth_grant SET revoked = 1 WHERE id = ?1")?.execute([grant_id])?;
    conn.prepare_cached("UPDATE oauth_access_token SET revoked = 1 WHERE grant_id = ?1")?
        .execute([grant_id])?;
    conn.prepare_cached("UPDATE oauth_refresh_token SET revoked = 1 WHERE grant_id = ?1")?
        .execute([grant_id])?;
    Ok(())
}

/// Stores a refresh token (by hash) beside the access token issued with it.
pub fn insert_refresh(
    conn: &Connection,
    hash: &[u8; 32],
    grant_id: i64,
    access_hash: &[u8; 32],
    scope: &str,
    expires_at: Timestamp,
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO oauth_refresh_token (hash, grant_id, access_hash, scope, expires_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![&hash[..], grant_id, &access_hash[..], scope, expires_at, now])?;
    Ok(())
}

/// A refresh token as stored, with its grant.
#[derive(Debug, Clone)]
pub struct RefreshRow {
    pub grant_id: i64,
    pub app_id: i64,
    pub user_id: i64,
    /// The scope the resource owner granted (the ceiling of any refresh).
    pub grant_scope: String,
    pub grant_revoked: bool,
    pub access_hash: Vec<u8>,
    pub expires_at: Timestamp,
    pub rotated_at: Option<Timestamp>,
    pub revoked: bool,
}

/// A refresh token by hash.
pub fn refresh(conn: &Connection, hash: &[u8; 32]) -> rusqlite::Result<Option<RefreshRow>> {
    conn.prepare_cached(
        "SELECT t.grant_id, g.app_id, g.user_id, g.scope, g.revoked, t.access_hash, t.expires_at,
                t.rotated_at, t.revoked
         FROM oauth_refresh_token t JOIN oauth_grant g ON g.id = t.grant_id WHERE t.hash = ?1",
    )?
    .query_row([&hash[..]], |r| {
        Ok(from_columns!(r => RefreshRow {
            grant_id, app_id, user_id, grant_scope, grant_revoked, access_hash, expires_at,
            rotated_at, revoked,
        }))
    })
    .optional()
}

/// Marks a refresh token rotated (exchanged) and revokes the access token issued with it.
pub fn rotate_refresh(
    conn: &Connection,
    hash: &[u8; 32],
    access_hash: &[u8],
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE oauth_refresh_token SET rotated_at = ?2 WHERE hash = ?1")?
        .execute(params![&hash[..], now])?;
    revoke_access(conn, access_hash)
}

/// Revokes one access token by hash.
pub fn revoke_access(conn: &Connection, hash: &[u8]) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE oauth_access_token SET revoked = 1 WHERE hash = ?1")?
        .execute([hash])?;
    Ok(())
}

/// Revokes a refresh token of `app_id` and the access token issued with it; `false`
/// when no such token belongs to that app (RFC 7009 §2.2: nothing changes).
pub fn revoke_refresh_of_app(
    conn: &Connection,
    hash: &[u8; 32],
    app_id: i64,
) -> rusqlite::Result<bool> {
    let access: Option<Vec<u8>> = conn
        .prepare_cached(
            "SELECT t.access_hash FROM oauth_refresh_token t JOIN oauth_grant g ON g.id = t.grant_id
             WHERE t.hash = ?1 AND g.app_id = ?2",
        )?
        .query_row(params![&hash[..], app_id], |r| r.get(0))
        .optional()?;
    let Some(access) = access else {
        return Ok(false);
    };
    conn.prepare_cached("UPDATE oauth_refresh_token SET revoked = 1 WHERE hash = ?1")?
        .execute([&hash[..]])?;
    revoke_access(conn, &access)?;
    Ok(true)
}

/// Revokes an access token of `app_id`; `false` when no such token belongs to that app.
pub fn revoke_access_of_app(
    conn: &Connection,
    hash: &[u8; 32],
    app_id: i64,
) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached(
            "UPDATE oauth_access_token SET revoked = 1
             WHERE hash = ?1 AND grant_id IN (SELECT id FROM oauth_grant WHERE app_id = ?2)",
        )?
        .execute(params![&hash[..], app_id])?;
    Ok(n > 0)
}

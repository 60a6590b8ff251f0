//! JWT shared secrets and revoked JWT ids.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;

/// One stored secret: the current one has no grace end; previous ones are accepted
/// until `grace_until`.
#[derive(Clone)]
pub struct SecretRow {
    /// Row id (higher is newer).
    pub id: i64,
    /// The shared secret string.
    pub secret: String,
    /// When it was made.
    pub created_at: Timestamp,
    /// For a previous secret: accepted until then.
    pub grace_until: Option<Timestamp>,
}

impl std::fmt::Debug for SecretRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretRow")
            .field("id", &self.id)
            .field("secret", &"<redacted>")
            .field("grace_until", &self.grace_until)
            .finish()
    }
}

/// Adds a secret row.
pub fn insert_secret(
    conn: &Connection,
    secret: &str,
    now: Timestamp,
    grace_until: Option<Timestamp>,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO jwt_secret (secret, created_at, grace_until) VALUES (?1, ?2, ?3)",
        params![secret, now, grace_until],
    )?;
    Ok(())
}

/// The secrets that verify tokens at `now`: the current one first, then previous ones
/// still in their grace period.
pub fn active_secrets(conn: &Connection, now: Timestamp) -> rusqlite::Result<Vec<SecretRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, secret, created_at, grace_until FROM jwt_secret
         WHERE grace_until IS NULL OR grace_until > ?1 ORDER BY id DESC",
    )?;
    let rows = stmt.query_map([now], |r| {
        Ok(from_columns!(r => SecretRow { id, secret, created_at, grace_until }))
    })?;
    rows.collect()
}

/// The current signing secret.
pub fn current_secret(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT secret FROM jwt_secret WHERE grace_until IS NULL ORDER BY id DESC LIMIT 1",
        [],
        |r| r.get(0),
    )
    .optional()
}

/// Makes `new_secret` current and keeps the previous current one valid until
/// `grace_until`.
pub fn rotate(
    conn: &Connection,
    new_secret: &str,
    now: Timestamp,
    grace_until: Timestamp,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE jwt_secret SET grace_until = ?1 WHERE grace_until IS NULL",
        [grace_until],
    )?;
    conn.execute("DELETE FROM jwt_secret WHERE grace_until <= ?1", [now])?;
    insert_secret(conn, new_secret, now, None)
}

/// `is_staff` of the live user a JWT names, `None` when that user is missing or
/// deleted or the JWT's id is revoked: what every JWT-authenticated request checks, in
/// one statement (it was two: one fewer step, reset and cache lookup a request).
pub fn live_unrevoked_staff_flag(
    conn: &Connection,
    user_id: i64,
    jti: &str,
) -> rusqlite::Result<Option<bool>> {
    conn.prepare_cached(
        "SELECT is_staff FROM user WHERE id = ?1 AND deleted = 0
         AND NOT EXISTS (SELECT 1 FROM revoked_jti WHERE jti = ?2)",
    )?
    .query_row(params![user_id, jti], |r| r.get(0))
    .optional()
}

/// Revokes a JWT id until its expiry; expired entries are purged on the way.
pub fn revoke(
    conn: &Connection,
    jti: &str,
    expires_at: Timestamp,
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM revoked_jti WHERE expires_at <= ?1", [now])?;
    conn.execute(
        "INSERT INTO revoked_jti (jti, expires_at) VALUES (?1, ?2)
         ON CONFLICT (jti) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)",
        params![jti, expires_at],
    )?;
    Ok(())
}

/// Every revoked JWT id that has not expired yet, with its expiry.
pub fn revoked_list(
    conn: &Connection,
    now: Timestamp,
) -> rusqlite::Result<Vec<(String, Timestamp)>> {
    let mut stmt =
        conn.prepare_cached("SELECT jti, expires_at FROM revoked_jti WHERE expires_at > ?1")?;
    let rows = stmt.query_map([now], |r| r.try_into())?;
    rows.collect()
}

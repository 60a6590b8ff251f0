//! The codes hearth mails (table `account_code`): a sign-up waiting for its address to
//! be proven, a password recovery, an address change. A code is stored as its SHA-256
//! and taken by deleting its row, so it works once; an expired one works never, and is
//! swept when the next code is made.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;

/// What a code is for (the `purpose` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Proves a new account's address; the account is made when it is used.
    Signup,
    /// Lets the owner of an address set a new password.
    Recover,
    /// Proves a member's new address.
    Email,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::Signup => "signup",
            Purpose::Recover => "recover",
            Purpose::Email => "email",
        }
    }
}

/// A code's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    /// The member it is for (recovery, address change).
    pub user_id: Option<i64>,
    /// The account to make (sign-up).
    pub username: Option<String>,
    /// The address the code was mailed to.
    pub email: String,
    /// The new account's password hash (sign-up).
    pub password: Option<String>,
}

/// Stores a code (by its hash) for `ttl`. A mail address has at most one open code of
/// each purpose (and a member one address change): the newest replaces the older ones,
/// so asking again never piles rows up. Expired codes are swept first.
pub fn put(
    conn: &Connection,
    hash: &[u8; 32],
    purpose: Purpose,
    code: &Code,
    now: Timestamp,
    ttl: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM account_code WHERE expires_at <= ?1")?.execute([now])?;
    conn.prepare_cached(
        "DELETE FROM account_code WHERE purpose = ?1 AND (email = ?2 COLLATE NOCASE OR user_id = ?3)",
    )?
    .execute(params![purpose.as_str(), code.email, code.user_id])?;
    conn.prepare_cached(
        "INSERT INTO account_code (code_hash, purpose, user_id, username, email, password, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        &hash[..],
        purpose.as_str(),
        code.user_id,
        code.username,
        code.email,
        code.password,
        now,
        now + ttl
    ])?;
    Ok(())
}

/// The open code with this hash and purpose, if it has not expired.
pub fn peek(
    conn: &Connection,
    hash: &[u8; 32],
    purpose: Purpose,
    now: Timestamp,
) -> rusqlite::Result<Option<Code>> {
    conn.prepare_cached(
        "SELECT user_id, username, email, password FROM account_code
         WHERE code_hash = ?1 AND purpose = ?2 AND expires_at > ?3",
    )?
    .query_row(params![&hash[..], purpose.as_str(), now], |r| {
        Ok(Code { user_id: r.get(0)?, username: r.get(1)?, email: r.get(2)?, password: r.get(3)? })
    })
    .optional()
}

/// Takes the open code with this hash and purpose: its row is gone after this, whether
/// or not what the caller does with it succeeds in the same transaction.
pub fn take(
    conn: &Connection,
    hash: &[u8; 32],
    purpose: Purpose,
    now: Timestamp,
) -> rusqlite::Result<Option<Code>> {
    let found = peek(conn, hash, purpose, now)?;
    if found.is_some() {
        conn.prepare_cached("DELETE FROM account_code WHERE code_hash = ?1")?
            .execute([&hash[..]])?;
    }
    Ok(found)
}

/// Ends every open code of a member (a password reset, a deleted account).
pub fn forget_user(conn: &Connection, user_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM account_code WHERE user_id = ?1")?.execute([user_id])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(email: &str) -> Code {
        Code { user_id: None, username: Some("ann".into()), email: email.into(), password: None }
    }

    #[test]
    fn a_code_works_once_and_not_after_it_expires() -> rusqlite::Result<()> {
        let c = crate::db::engine::migrate::test_db();
        let (a, b) = ([1u8; 32], [2u8; 32]);
        put(&c, &a, Purpose::Signup, &code("ann@example.org"), 100, 10)?;
        assert!(peek(&c, &a, Purpose::Recover, 105)?.is_none(), "another purpose");
        assert!(peek(&c, &a, Purpose::Signup, 110)?.is_none(), "expired");
        assert_eq!(take(&c, &a, Purpose::Signup, 105)?, Some(code("ann@example.org")));
        assert!(take(&c, &a, Purpose::Signup, 105)?.is_none(), "used");
        put(&c, &a, Purpose::Signup, &code("ann@example.org"), 200, 10)?;
        put(&c, &b, Purpose::Signup, &code("ANN@example.org"), 201, 10)?;
        assert!(peek(&c, &a, Purpose::Signup, 202)?.is_none(), "replaced by the newer");
        let rows: i64 = c.query_row("SELECT count(*) FROM account_code", [], |r| r.get(0))?;
        assert_eq!(rows, 1);
        Ok(())
    }
}

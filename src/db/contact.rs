//! Contact requests (`model::community`): what visitors and members send staff, kept
//! for `hearth contact list`; a member's go with their account.

use rusqlite::{Connection, params};

use crate::model::community::ContactRequest;

/// Staff addresses a request is mailed to, at most.
pub const STAFF_RECIPIENTS: i64 = 20;

/// Stores a request (fields already checked); it, with its id.
pub fn add(conn: &Connection, mut r: ContactRequest) -> rusqlite::Result<ContactRequest> {
    conn.prepare_cached(
        "INSERT INTO contact_request (user_id, name, surname, email, message, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![r.user_id, r.name, r.surname, r.email, r.message, r.created_at])?;
    r.id = conn.last_insert_rowid();
    Ok(r)
}

/// One page of the requests, newest first, and how many there are.
pub fn page(
    conn: &Connection,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<ContactRequest>)> {
    let count =
        conn.prepare_cached("SELECT count(*) FROM contact_request")?.query_row([], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(
            "SELECT id, user_id, name, surname, email, message, created_at FROM contact_request
             ORDER BY id DESC LIMIT ?1 OFFSET ?2",
        )?
        .query_map(params![limit, offset], |r| {
            Ok(from_columns!(r => ContactRequest { id, user_id, name, surname, email, message, created_at }))
        })?
        .collect::<Result<_, _>>()?;
    Ok((count, rows))
}

/// The addresses of staff accounts (live, with an address), the oldest accounts first,
/// at most [`STAFF_RECIPIENTS`]: whom a request is mailed to.
pub fn staff_addresses(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    conn.prepare_cached(
        "SELECT email FROM user WHERE is_staff = 1 AND deleted = 0 AND email IS NOT NULL AND email <> ''
         ORDER BY id LIMIT ?1",
    )?
    .query_map([STAFF_RECIPIENTS], |r| r.get(0))?
    .collect()
}

/// A member's address (None: no such live member, or none given).
pub fn member_address(conn: &Connection, user: i64) -> rusqlite::Result<Option<String>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached("SELECT email FROM user WHERE id = ?1 AND deleted = 0")?
        .query_row([user], |r| r.get::<_, Option<String>>(0))
        .optional()?
        .flatten()
        .filter(|e| !e.is_empty()))
}

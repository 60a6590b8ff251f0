//! Connections (friendship, SPEC §10 People): requests, answers and the connections
//! themselves, each change in the caller's write transaction with its notification.
//! The counters on `user` are kept by `schema.sql`'s triggers (`hearth check` recounts
//! them), so the lists' counts are column reads and their pages index walks.
//!
//! The state of a pair, seen by the caller: connected (a `connection` row each way);
//! sent (the caller's request exists, rejected or not: a sender is not told); received
//! (the other's request exists and the caller has not rejected it); or nothing.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::connection::{Request, Status};
use crate::model::user::User;

use super::notifications::{Cause, Type, forget, notify};

/// Whether connections are on: `configurations.connection_enabled` (off by default).
pub fn enabled(conn: &Connection) -> rusqlite::Result<bool> {
    super::preferences::get_bool(conn, "configurations", "connection_enabled", false)
}

/// Why an action was refused: the pair is not in a state the action applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The pair is connected already.
    Connected,
    /// The other user hides the caller: it takes no request from the caller.
    Hidden,
    /// There is no request of the kind the action answers.
    NoRequest,
    /// The request was rejected already (reject) or was not (cancel_reject).
    Rejected(bool),
    /// The pair is not connected.
    NotConnected,
}

impl Refused {
    /// What the client is told.
    pub const fn message(self) -> &'static str {
        match self {
            Refused::Connected => "You are already connected with this user.",
            Refused::Hidden => "This user does not take connection requests from you.",
            Refused::NoRequest => "There is no such connection request.",
            Refused::Rejected(true) => "This connection request was rejected already.",
            Refused::Rejected(false) => "This connection request was not rejected.",
            Refused::NotConnected => "You are not connected with this user.",
        }
    }
}

/// What an action returns: the caller's status afterwards, or why it did nothing.
pub type Outcome = rusqlite::Result<Result<Option<Status>, Refused>>;

/// Whether `a` and `b` are connected.
pub fn is_connected(conn: &Connection, a: i64, b: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM connection WHERE user_id = ?1 AND other_id = ?2")?
        .exists([a, b])
}

/// The request from `from` to `to`, if any.
pub fn request_between(conn: &Connection, from: i64, to: i64) -> rusqlite::Result<Option<Request>> {
    conn.prepare_cached(
        "SELECT id, from_user, to_user, created_at, rejected_at, viewed_at FROM connection_request
         WHERE from_user = ?1 AND to_user = ?2",
    )?
    .query_row([from, to], request_row)
    .optional()
}

fn request_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Request> {
    Ok(Request {
        id: r.get(0)?,
        from_user: r.get(1)?,
        to_user: r.get(2)?,
        created_at: r.get(3)?,
        rejected_at: r.get(4)?,
        viewed_at: r.get(5)?,
    })
}

/// `viewer`'s status towards `other`.
pub fn status(conn: &Connection, viewer: i64, other: i64) -> rusqlite::Result<Option<Status>> {
    if is_connected(conn, viewer, other)? {
        return Ok(Some(Status::Connected));
    }
    if request_between(conn, viewer, other)?.is_some() {
        return Ok(Some(Status::Sent));
    }
    Ok(request_between(conn, other, viewer)?
        .filter(|r| r.rejected_at.is_none())
        .map(|_| Status::Received))
}

/// The cause of a request's or an acceptance's notification.
fn cause(user: i64, actor: i64, kind: Type) -> Cause {
    Cause { user, actor, kind, item_pk: None, comment_pk: None }
}

/// `from` asks `to` (another live user, checked by the caller) for a connection. Asking
/// again is no change; asking one who asked you accepts their request.
pub fn request(conn: &Connection, from: i64, to: i64, now: Timestamp) -> Outcome {
    if is_connected(conn, from, to)? {
        return Ok(Err(Refused::Connected));
    }
    if super::hides::is_hiding(conn, to, from)? {
        return Ok(Err(Refused::Hidden));
    }
    if request_between(conn, from, to)?.is_some() {
        return Ok(Ok(Some(Status::Sent)));
    }
    if request_between(conn, to, from)?.is_some() {
        return accept(conn, from, to, now);
    }
    conn.prepare_cached(
        "INSERT INTO connection_request (from_user, to_user, created_at) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![from, to, now])?;
    notify(conn, cause(to, from, Type::ConnectionRequest), now)?;
    Ok(Ok(Some(Status::Sent)))
}

/// `from` takes back its request to `to`; the request's notification goes with it.
pub fn cancel_request(conn: &Connection, from: i64, to: i64) -> Outcome {
    if delete_request(conn, from, to)? == 0 {
        return Ok(Err(Refused::NoRequest));
    }
    forget(conn, cause(to, from, Type::ConnectionRequest))?;
    Ok(Ok(None))
}

fn delete_request(conn: &Connection, from: i64, to: i64) -> rusqlite::Result<usize> {
    conn.prepare_cached("DELETE FROM connection_request WHERE from_user = ?1 AND to_user = ?2")?
        .execute([from, to])
}

/// `me` accepts the request `other` sent (rejected or not: the receiver may change
/// its mind): the request becomes a connection and `other` is notified.
pub fn accept(conn: &Connection, me: i64, other: i64, now: Timestamp) -> Outcome {
    if delete_request(conn, other, me)? == 0 {
        return Ok(Err(Refused::NoRequest));
    }
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO connection (user_id, other_id, created_at) VALUES (?1, ?2, ?3)",
    )?;
    insert.execute(params![me, other, now])?;
    insert.execute(params![other, me, now])?;
    notify(conn, cause(other, me, Type::ConnectionAccept), now)?;
    Ok(Ok(Some(Status::Connected)))
}

/// `me` rejects (`rejected`) the request `other` sent, or takes the rejection back.
pub fn set_rejected(
    conn: &Connection,
    me: i64,
    other: i64,
    rejected: bool,
    now: Timestamp,
) -> Outcome {
    let Some(req) = request_between(conn, other, me)? else {
        return Ok(Err(Refused::NoRequest));
    };
    if req.rejected_at.is_some() == rejected {
        return Ok(Err(Refused::Rejected(rejected)));
    }
    conn.prepare_cached("UPDATE connection_request SET rejected_at = ?2 WHERE id = ?1")?
        .execute(params![req.id, rejected.then_some(now)])?;
    Ok(Ok((!rejected).then_some(Status::Received)))
}

/// `me` ends its connection with `other` (both sides go).
pub fn remove(conn: &Connection, me: i64, other: i64) -> Outcome {
    let gone = conn
        .prepare_cached(
            "DELETE FROM connection WHERE (user_id = ?1 AND other_id = ?2) OR (user_id = ?2 AND other_id = ?1)",
        )?
        .execute([me, other])?;
    if gone == 0 {
        return Ok(Err(Refused::NotConnected));
    }
    Ok(Ok(None))
}

/// `me` marks the request `other` sent seen (once: the first time is kept).
pub fn mark_seen(conn: &Connection, me: i64, other: i64, now: Timestamp) -> Outcome {
    let changed = conn
        .prepare_cached(
            "UPDATE connection_request SET viewed_at = coalesce(viewed_at, ?3)
             WHERE from_user = ?1 AND to_user = ?2",
        )?
        .execute(params![other, me, now])?;
    if changed == 0 {
        return Ok(Err(Refused::NoRequest));
    }
    Ok(Ok(Some(Status::Received)))
}

/// A live user's counters: (connections, requests sent, requests received and not
/// rejected); `None` for a missing or deleted user.
pub fn counters(conn: &Connection, id: i64) -> rusqlite::Result<Option<(i64, i64, i64)>> {
    conn.prepare_cached(
        "SELECT connections_counter, connection_requests_sent_counter, connection_requests_received_counter
         FROM user WHERE id = ?1 AND deleted = 0",
    )?
    .query_row([id], |r| r.try_into())
    .optional()
}

/// One page of `id`'s connections, newest first (a deleted user's connections end with
/// it, so every row is a live user).
pub fn page(conn: &Connection, id: i64, limit: i64, offset: i64) -> rusqlite::Result<Vec<User>> {
    let columns = super::users::columns_as("u");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {columns} FROM connection c JOIN user u ON u.id = c.other_id
         WHERE c.user_id = ?1 ORDER BY c.created_at DESC, c.other_id LIMIT ?2 OFFSET ?3"
    ))?;
    let rows = stmt.query_map([id, limit, offset], super::users::from_row)?;
    rows.collect()
}

/// Which requests a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requests {
    /// Those the user received and has not rejected.
    Received,
    /// Those the user sent (rejected or not).
    Sent,
}

/// One page of `id`'s requests, newest first.
pub fn requests(
    conn: &Connection,
    id: i64,
    which: Requests,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<Request>> {
    let filter = match which {
        Requests::Received => "to_user = ?1 AND rejected_at IS NULL",
        Requests::Sent => "from_user = ?1",
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, from_user, to_user, created_at, rejected_at, viewed_at FROM connection_request
         WHERE {filter} ORDER BY id DESC LIMIT ?2 OFFSET ?3"
    ))?;
    let rows = stmt.query_map([id, limit, offset], request_row)?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::engine::migrate::test_db;

    fn users(c: &Connection, n: i64) {
        for id in 1..=n {
            c.execute(
                "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?2, ?2, 0)",
                params![id, format!("u{id}")],
            )
            .unwrap_or_default();
        }
    }

    /// What `hearth check` finds wrong with connections (the test database has no JWT
    /// secret, which it would report too).
    fn connection_problems(c: &Connection) -> rusqlite::Result<Vec<String>> {
        let all = crate::db::engine::check::problems(c)?;
        Ok(all
            .into_iter()
            .filter(|p| p.check.starts_with("connection"))
            .map(|p| p.problem)
            .collect())
    }

    fn counters_of(c: &Connection, id: i64) -> (i64, i64, i64) {
        counters(c, id).ok().flatten().unwrap_or((-1, -1, -1))
    }

    #[test]
    fn a_request_answered_each_way_keeps_the_counters_and_the_statuses() -> rusqlite::Result<()> {
        let c = test_db();
        users(&c, 3);
        assert_eq!(request(&c, 1, 2, 10)?, Ok(Some(Status::Sent)));
        assert_eq!(request(&c, 1, 2, 11)?, Ok(Some(Status::Sent)), "asking again: no change");
        assert_eq!(
            (status(&c, 1, 2)?, status(&c, 2, 1)?),
            (Some(Status::Sent), Some(Status::Received))
        );
        assert_eq!((counters_of(&c, 1), counters_of(&c, 2)), ((0, 1, 0), (0, 0, 1)));
        // rejected: the receiver no longer sees it, the sender still does
        assert_eq!(set_rejected(&c, 2, 1, true, 12)?, Ok(None));
        assert_eq!(set_rejected(&c, 2, 1, true, 12)?, Err(Refused::Rejected(true)));
        assert_eq!((status(&c, 1, 2)?, status(&c, 2, 1)?), (Some(Status::Sent), None));
        assert_eq!(counters_of(&c, 2), (0, 0, 0));
        assert_eq!(set_rejected(&c, 2, 1, false, 13)?, Ok(Some(Status::Received)));
        assert_eq!(counters_of(&c, 2), (0, 0, 1));
        // accepted: connected both ways, the request gone
        assert_eq!(accept(&c, 2, 1, 14)?, Ok(Some(Status::Connected)));
        assert_eq!(accept(&c, 2, 1, 14)?, Err(Refused::NoRequest));
        assert_eq!(
            (status(&c, 1, 2)?, status(&c, 2, 1)?),
            (Some(Status::Connected), Some(Status::Connected))
        );
        assert_eq!((counters_of(&c, 1), counters_of(&c, 2)), ((1, 0, 0), (1, 0, 0)));
        assert_eq!(request(&c, 2, 1, 15)?, Err(Refused::Connected));
        assert_eq!(remove(&c, 1, 2)?, Ok(None));
        assert_eq!(remove(&c, 1, 2)?, Err(Refused::NotConnected));
        assert_eq!((counters_of(&c, 1), counters_of(&c, 2)), ((0, 0, 0), (0, 0, 0)));
        // asking one who asked you accepts
        request(&c, 3, 1, 16)?.ok();
        assert_eq!(request(&c, 1, 3, 17)?, Ok(Some(Status::Connected)));
        assert_eq!(connection_problems(&c)?, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn notifications_follow_requests_and_acceptances() -> rusqlite::Result<()> {
        let c = test_db();
        users(&c, 2);
        let kinds = |c: &Connection, user: i64| -> Vec<String> {
            let mut s =
                c.prepare("SELECT type FROM notification WHERE user_id = ?1 ORDER BY id").ok();
            s.as_mut()
                .and_then(|s| s.query_map([user], |r| r.get(0)).ok().map(|r| r.flatten().collect()))
                .unwrap_or_default()
        };
        request(&c, 1, 2, 1)?.ok();
        assert_eq!(kinds(&c, 2), ["connection_request"]);
        cancel_request(&c, 1, 2)?.ok();
        assert!(kinds(&c, 2).is_empty(), "a cancelled request takes its notification back");
        request(&c, 1, 2, 2)?.ok();
        accept(&c, 2, 1, 3)?.ok();
        assert_eq!(kinds(&c, 1), ["connection_accept"]);
        Ok(())
    }

    #[test]
    fn a_hiding_user_takes_no_request_and_a_deleted_user_leaves_no_connection()
    -> rusqlite::Result<()> {
        let c = test_db();
        users(&c, 3);
        crate::db::hides::toggle(&c, 2, 1, 1)?;
        assert_eq!(request(&c, 1, 2, 2)?, Err(Refused::Hidden));
        request(&c, 1, 3, 3)?.ok();
        request(&c, 2, 3, 3)?.ok();
        accept(&c, 3, 2, 4)?.ok();
        crate::db::users::soft_delete(&c, 3)?;
        assert_eq!((counters_of(&c, 1), counters_of(&c, 2)), ((0, 0, 0), (0, 0, 0)));
        assert_eq!(connection_problems(&c)?, Vec::<String>::new());
        // and `hearth check` sees a counter or a pair gone wrong
        c.execute("UPDATE user SET connection_requests_received_counter = 2 WHERE id = 1", [])?;
        c.execute("INSERT INTO connection (user_id, other_id, created_at) VALUES (1, 2, 0)", [])?;
        c.execute("UPDATE user SET connections_counter = 0 WHERE id = 1", [])?;
        assert_eq!(connection_problems(&c)?.len(), 3, "{:?}", connection_problems(&c)?);
        Ok(())
    }
}

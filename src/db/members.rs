//! Memberships: one row per (course, group or event, user) with its `join_status`, the
//! same statuses and rules for all (SPEC §5 "Courses", §10 "Groups, events"): a
//! [`Roster`] names whose members a call is about. Groups and events also share who
//! sees them ([`visible_sql`]). What the API does with them (invite, accept, roles)
//! is `api::framework::members`.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::course::JoinStatus;
use crate::model::user::User;

/// Whose memberships: a course's (`course_member`), a group's (`group_member`) or an
/// event's (`event_member`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Roster {
    Course,
    Group,
    Event,
}

/// The SQL condition that the group or event `{alias}` (a `community_group` or `event`
/// row) is one viewer `?{n}` may see (null: anonymous): a live one that is public, or
/// private and `visible`, or of which the viewer is a member, invited or a requester.
/// Groups' and events' one rule (`db::groups::visible`, `db::events::visible`).
pub fn visible_sql(of: Roster, alias: &str, n: u8) -> String {
    let (t, k) = match of {
        Roster::Course => ("course_member", "course_id"),
        Roster::Group => ("group_member", "group_id"),
        Roster::Event => ("event_member", "event_id"),
    };
    format!(
        "({alias}.deleted = 0 AND ({alias}.privacy = 'public' OR {alias}.visible = 1
          OR EXISTS (SELECT 1 FROM {t} vm WHERE vm.{k} = {alias}.id AND vm.user_id = ?{n})))"
    )
}

/// The statement `$sql` (with `{t}` the roster's table and `{k}` its key column) for
/// `$roster`, formatted once per roster and call site.
macro_rules! roster_sql {
    ($roster:expr, $($arg:tt)+) => {
        match $roster {
            Roster::Course => sql!($($arg)+, t = "course_member", k = "course_id"),
            Roster::Group => sql!($($arg)+, t = "group_member", k = "group_id"),
            Roster::Event => sql!($($arg)+, t = "event_member", k = "event_id"),
        }
    };
}

/// The status of `user` in `of`'s `id`, if any.
pub fn status(
    conn: &Connection,
    of: Roster,
    id: i64,
    user: i64,
) -> rusqlite::Result<Option<JoinStatus>> {
    conn.prepare_cached(roster_sql!(
        of,
        "SELECT join_status FROM {t} WHERE {k} = ?1 AND user_id = ?2"
    ))?
    .query_row([id, user], |r| r.get(0))
    .optional()
}

/// The statuses in `of`'s `id` of those of `users` who have one, in one query.
pub fn statuses(
    conn: &Connection,
    of: Roster,
    id: i64,
    users: &[i64],
) -> rusqlite::Result<HashMap<i64, JoinStatus>> {
    if users.is_empty() {
        return Ok(HashMap::new());
    }
    let list = serde_json::to_string(users).unwrap_or_else(|_| "[]".into());
    // CROSS JOIN keeps the list outside: one primary-key lookup per id, not a scan of
    // the list per member of a large course or group
    let mut stmt = conn.prepare_cached(roster_sql!(
        of,
        "SELECT m.user_id, m.join_status FROM json_each(?2) j
         CROSS JOIN {t} m ON m.{k} = ?1 AND m.user_id = j.value"
    ))?;
    let rows = stmt.query_map(params![id, list], |r| r.try_into())?;
    rows.collect()
}

/// The first of `ids` (in their order) that is not a live user, in one query however
/// long the list (the membership lists of a body name users that must exist).
pub fn first_non_user(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Option<i64>> {
    super::users::first_not_live(conn, super::users::Live::User, ids)
}

/// [`status`] for an optional caller.
pub fn status_of(
    conn: &Connection,
    of: Roster,
    id: i64,
    user: Option<i64>,
) -> rusqlite::Result<Option<JoinStatus>> {
    match user {
        Some(u) => status(conn, of, id, u),
        None => Ok(None),
    }
}

/// Sets (inserts or changes) a membership. A changed status keeps the row's
/// `created_at` (when the user first came).
pub fn set(
    conn: &Connection,
    of: Roster,
    id: i64,
    user: i64,
    join_status: JoinStatus,
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(roster_sql!(
        of,
        "INSERT INTO {t} ({k}, user_id, join_status, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT ({k}, user_id) DO UPDATE SET join_status = excluded.join_status"
    ))?
    .execute(params![id, user, join_status, now])?;
    Ok(())
}

/// Removes a membership (never the creator's: callers check).
pub fn remove(conn: &Connection, of: Roster, id: i64, user: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(roster_sql!(
        of,
        "DELETE FROM {t} WHERE {k} = ?1 AND user_id = ?2 AND join_status <> ?3"
    ))?
    .execute(params![id, user, JoinStatus::Creator])?;
    Ok(())
}

/// One page of the users of `of`'s `id` whose status is in `statuses`, in the order
/// they came (then by user id): (count, [(user, status)]), each user brief
/// ([`crate::db::users::BRIEF`]).
pub fn list(
    conn: &Connection,
    of: Roster,
    id: i64,
    statuses: &[JoinStatus],
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<(User, JoinStatus)>)> {
    let statuses = serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into());
    let count: i64 = conn
        .prepare_cached(roster_sql!(
            of,
            "SELECT count(*) FROM {t} m
             WHERE m.{k} = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))"
        ))?
        .query_row(params![id, statuses], |r| r.get(0))?;
    // each member's whole row: groups and events list them as User JSON
    let mut stmt = conn.prepare_cached(roster_sql!(
        of,
        "SELECT {cols}, m.join_status FROM {t} m JOIN user u ON u.id = m.user_id
         WHERE m.{k} = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))
         ORDER BY m.created_at, m.user_id LIMIT ?3 OFFSET ?4",
        cols = crate::db::users::qualified(crate::db::users::COLUMNS, "u")
    ))?;
    let n = crate::db::users::COLUMN_COUNT;
    let rows = stmt.query_map(params![id, statuses, limit, offset], |r| {
        Ok((crate::db::users::from_row(r)?, r.get(n)?))
    })?;
    Ok((count, rows.collect::<Result<_, _>>()?))
}

/// What an invitation does to each of `users` (known to be live users) in `of`'s `id`:
/// no status → `invited`; `requested` → `joined` (the request is accepted); anyone
/// else keeps their status. Returns the changes made, in the order of `users`.
pub fn invite(
    conn: &Connection,
    of: Roster,
    id: i64,
    users: &[i64],
    now: Timestamp,
) -> rusqlite::Result<Vec<(i64, JoinStatus)>> {
    let before = statuses(conn, of, id, users)?;
    let mut changes = Vec::new();
    for u in users {
        let next = match before.get(u) {
            None => JoinStatus::Invited,
            Some(JoinStatus::Requested) => JoinStatus::Joined,
            // inviting a member or an invited user changes nothing
            Some(_) => continue,
        };
        set(conn, of, id, *u, next, now)?;
        changes.push((*u, next));
    }
    Ok(changes)
}

/// Withdraws the invitations of those of `users` who are invited (others keep their
/// status).
pub fn withdraw(conn: &Connection, of: Roster, id: i64, users: &[i64]) -> rusqlite::Result<()> {
    let before = statuses(conn, of, id, users)?;
    for u in users {
        if before.get(u) == Some(&JoinStatus::Invited) {
            remove(conn, of, id, *u)?;
        }
    }
    Ok(())
}

/// The most a suggestion counts (as the mention picker's).
pub const COUNT_CAP: i64 = 1000;

/// One page of live users whose username starts with `prefix` (case-insensitively),
/// by username, leaving out `except` and, for a group or an event (`id`; none for one
/// being made), its members, invited users and requesters, and how many (up to
/// [`COUNT_CAP`]). A range of the `username_key` index: whom an admin may invite.
pub fn suggested_users(
    conn: &Connection,
    of: Roster,
    id: Option<i64>,
    except: i64,
    prefix: &str,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let low = crate::model::user::username_key(prefix);
    let high = format!("{low}\u{10FFFF}");
    let count = conn
        .prepare_cached(roster_sql!(
            of,
            "SELECT count(*) FROM (SELECT 1 FROM user WHERE username_key >= ?1 AND username_key < ?2
               AND deleted = 0 AND id <> ?3
               AND NOT EXISTS (SELECT 1 FROM {t} m WHERE m.{k} = ?4 AND m.user_id = user.id)
             LIMIT {COUNT_CAP})"
        ))?
        .query_row(params![low, high, except, id], |r| r.get(0))?;
    let users = conn
        .prepare_cached(roster_sql!(
            of,
            "SELECT {cols} FROM user WHERE username_key >= ?1 AND username_key < ?2
               AND deleted = 0 AND id <> ?3
               AND NOT EXISTS (SELECT 1 FROM {t} m WHERE m.{k} = ?4 AND m.user_id = user.id)
             ORDER BY username_key LIMIT ?5 OFFSET ?6",
            cols = crate::db::users::COLUMNS
        ))?
        .query_map(params![low, high, except, id, limit, offset], crate::db::users::from_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, users))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use rusqlite::types::ToSql;

    use super::*;
    use crate::model::course::{CourseType, Privacy};

    /// The model's enums and the schema's `CHECK` constraints name the same strings:
    /// every value is stored (and read back), nothing else is.
    #[test]
    fn the_course_enums_are_the_schema_choices() {
        let conn = crate::db::migrate::test_db();
        conn.execute(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'u', 'u', 0)",
            [],
        )
        .unwrap();
        let course = |id: i64, kind: &dyn ToSql, privacy: &dyn ToSql| {
            conn.execute(
                "INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by)
                 VALUES (?1, ?1, ?1, ?1, ?2, ?3, 0, 1)",
                params![id, kind, privacy],
            )
        };
        let mut id = 0;
        for kind in CourseType::ALL {
            for privacy in Privacy::ALL {
                id += 1;
                course(id, kind, privacy).unwrap();
                let back = crate::db::courses::get(&conn, id).unwrap().unwrap();
                assert_eq!((back.kind, back.privacy), (*kind, *privacy));
            }
        }
        assert!(course(100, &"weekly", &Privacy::Open).is_err());
        assert!(course(101, &CourseType::Structured, &"public").is_err());
        for (user, s) in (10..).zip(JoinStatus::ALL) {
            conn.execute(
                "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?1, ?1, 0)",
                [user],
            )
            .unwrap();
            set(&conn, Roster::Course, 1, user, *s, 0).unwrap();
            assert_eq!(status(&conn, Roster::Course, 1, user).unwrap(), Some(*s));
        }
        let bad = conn.execute(
            "INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (2, 1, 'owner', 0)",
            [],
        );
        assert!(bad.is_err());
        // the creator's row is the one `remove` never deletes
        set(&conn, Roster::Course, 2, 1, JoinStatus::Creator, 0).unwrap();
        remove(&conn, Roster::Course, 2, 1).unwrap();
        remove(&conn, Roster::Course, 1, 12).unwrap();
        assert_eq!(status(&conn, Roster::Course, 2, 1).unwrap(), Some(JoinStatus::Creator));
        assert_eq!(status(&conn, Roster::Course, 1, 12).unwrap(), None);
    }
}

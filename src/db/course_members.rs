//! Course memberships: one row per (course, user) with its `join_status`.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::course::JoinStatus;
use crate::model::user::User;

/// The status of `user` in `course`, if any.
pub fn status(conn: &Connection, course: i64, user: i64) -> rusqlite::Result<Option<JoinStatus>> {
    conn.prepare_cached(
        "SELECT join_status FROM course_member WHERE course_id = ?1 AND user_id = ?2",
    )?
    .query_row([course, user], |r| r.get(0))
    .optional()
}

/// The statuses in `course` of those of `users` who have one, in one query.
pub fn statuses(
    conn: &Connection,
    course: i64,
    users: &[i64],
) -> rusqlite::Result<HashMap<i64, JoinStatus>> {
    if users.is_empty() {
        return Ok(HashMap::new());
    }
    let list = serde_json::to_string(users).unwrap_or_else(|_| "[]".into());
    // CROSS JOIN keeps the list outside: one primary-key lookup per id, not a scan of
    // the list per member of a large course
    let mut stmt = conn.prepare_cached(
        "SELECT m.user_id, m.join_status FROM json_each(?2) j
         CROSS JOIN course_member m ON m.course_id = ?1 AND m.user_id = j.value",
    )?;
    let rows = stmt.query_map(params![course, list], |r| r.try_into())?;
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
    course: i64,
    user: Option<i64>,
) -> rusqlite::Result<Option<JoinStatus>> {
    match user {
        Some(u) => status(conn, course, u),
        None => Ok(None),
    }
}

/// Sets (inserts or changes) a membership. A changed status keeps the row's
/// `created_at` (when the user first came to the course).
pub fn set(
    conn: &Connection,
    course: i64,
    user: i64,
    join_status: JoinStatus,
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO course_member (course_id, user_id, join_status, created_at)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (course_id, user_id) DO UPDATE SET join_status = excluded.join_status",
    )?
    .execute(params![course, user, join_status, now])?;
    Ok(())
}

/// Removes a membership (never the creator's: callers check).
pub fn remove(conn: &Connection, course: i64, user: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM course_member WHERE course_id = ?1 AND user_id = ?2 AND join_status <> ?3",
    )?
    .execute(params![course, user, JoinStatus::Creator])?;
    Ok(())
}

/// One page of the users of a course whose status is in `statuses`, in the order they
/// came (then by user id): (count, [(user, status)]), each user brief
/// ([`crate::db::users::BRIEF`]).
pub fn list(
    conn: &Connection,
    course: i64,
    statuses: &[JoinStatus],
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<(User, JoinStatus)>)> {
    let statuses = serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into());
    let count: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM course_member m
             WHERE m.course_id = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))",
        )?
        .query_row(params![course, statuses], |r| r.get(0))?;
    // each member as their minimal JSON shows them
    let cols = crate::db::users::qualified(crate::db::users::BRIEF, "u");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {cols}, m.join_status FROM course_member m JOIN user u ON u.id = m.user_id
         WHERE m.course_id = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))
         ORDER BY m.created_at, m.user_id LIMIT ?3 OFFSET ?4"
    ))?;
    let n = crate::db::users::BRIEF.split(", ").count();
    let rows = stmt.query_map(params![course, statuses, limit, offset], |r| {
        Ok((crate::db::users::brief_at(r, 0)?, r.get(n)?))
    })?;
    Ok((count, rows.collect::<Result<_, _>>()?))
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
            set(&conn, 1, user, *s, 0).unwrap();
            assert_eq!(status(&conn, 1, user).unwrap(), Some(*s));
        }
        let bad = conn.execute(
            "INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (2, 1, 'owner', 0)",
            [],
        );
        assert!(bad.is_err());
        // the creator's row is the one `remove` never deletes
        set(&conn, 2, 1, JoinStatus::Creator, 0).unwrap();
        remove(&conn, 2, 1).unwrap();
        remove(&conn, 1, 12).unwrap();
        assert_eq!(status(&conn, 2, 1).unwrap(), Some(JoinStatus::Creator));
        assert_eq!(status(&conn, 1, 12).unwrap(), None);
    }
}

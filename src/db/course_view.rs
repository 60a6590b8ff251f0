//! What a course's JSON reads, in one statement: the record, the caller's status in
//! it, its creator, its counts (members, sections, lessons, the caller's completed
//! lessons) and its categories' ids (the categories themselves are read by id from the
//! short category table, [`super::categories::with_ids`]).
//!
//! `GET /api/v2/course/{id}/` read these with five statements (seven with two
//! categories), each a cache lookup, a bind, a step and a reset on top of its B-tree
//! descents; issue 17 measured those per-statement costs at about a third of the route's
//! SQLite time. [`view`] reads them all with one, [`extras`] the part a caller that
//! already holds the record still needs.

use rusqlite::{Connection, OptionalExtension, params};

use super::courses::{self, columns_as};
use super::users;
use crate::model::course::{Counts, Course, JoinStatus};
use crate::model::user::User;

/// A course as one caller sees it.
#[derive(Debug, Clone)]
pub struct View {
    pub course: Course,
    /// The caller's status in it (None: not a member, or anonymous).
    pub status: Option<JoinStatus>,
    pub extras: Extras,
}

/// What a course's JSON shows besides its record and the caller's status.
#[derive(Debug, Clone)]
pub struct Extras {
    /// The creator as their minimal JSON shows them ([`users::BRIEF`]: the other fields
    /// are left at their defaults); None when gone.
    pub creator: Option<User>,
    pub counts: Counts,
    /// Its categories' ids, ascending (`course.category_ids`, kept by triggers from
    /// `course_category`).
    pub category_ids: Vec<i64>,
}

/// The select list after the course's columns (or alone): the creator's brief columns
/// (user alias `u`, NULL when the creator is gone), then the four counts. `?1` is the course,
/// `?2` the caller (NULL: anonymous, who completed nothing). Each count is a scalar
/// subquery over an index (a derived table of the two lesson counts cost an ephemeral
/// table per run). The members are counted as the statuses that are not members: an
/// `IN` list of three constants is built into an ephemeral table on every run (SQLite
/// compares in place only up to two), and `join_status` can hold nothing else (its CHECK).
/// They are counted in the table's own key (`course_id, user_id`; `course_member` is
/// `WITHOUT ROWID`, so its key is the table), where the caller's status is also read:
/// one page for both. The planner would pick the narrower `course_member_status` index,
/// a second B-tree whose page, in a database larger than the page cache, is one more
/// read from the file per course (issue 17, at 10x the data).
fn extra_columns() -> String {
    format!(
        "{}, (SELECT count(*) FROM course_member INDEXED BY {MEMBER_KEY}
              WHERE course_id = ?1 AND join_status NOT IN ('invited', 'requested')),
           (SELECT count(*) FROM course_section WHERE course_id = ?1),
           (SELECT count(*) FROM course_section s JOIN course_lesson l
              ON l.section_id = s.id AND l.status = 'published'
            WHERE s.course_id = ?1),
           (SELECT count(*) FROM course_section s JOIN course_lesson l
              ON l.section_id = s.id AND l.status = 'published'
            JOIN course_lesson_completion k ON k.lesson_id = l.id AND k.user_id = ?2
            WHERE s.course_id = ?1)",
        users::qualified(users::BRIEF, "u")
    )
}

/// SQLite's name for the primary key of `course_member` (a `WITHOUT ROWID` table).
const MEMBER_KEY: &str = "sqlite_autoindex_course_member_1";

/// How many columns the creator's list names (the counts follow them).
const USER_COLUMNS: usize = 6;

/// Maps the creator, the counts and the category ids of a row selected with
/// [`extra_columns`] then the category ids, at `o`.
fn extras_at(r: &rusqlite::Row<'_>, o: usize) -> rusqlite::Result<Extras> {
    let creator = match r.get::<_, Option<i64>>(o)? {
        Some(_) => Some(users::brief_at(r, o)?),
        None => None,
    };
    let c = o + USER_COLUMNS;
    let counts = Counts {
        members: r.get(c)?,
        sections: r.get(c + 1)?,
        lessons: r.get(c + 2)?,
        completed: r.get(c + 3)?,
    };
    let ids = c + 4;
    let category_ids = serde_json::from_str(r.get_ref(ids)?.as_str()?).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(ids, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(Extras { creator, counts, category_ids })
}

/// Course `id` (deleted or not) as `user` sees it, in one statement; None when there is
/// no such course.
pub fn view(conn: &Connection, id: i64, user: Option<i64>) -> rusqlite::Result<Option<View>> {
    /// Where the status sits: right after the course's columns.
    const STATUS: usize = 19;
    conn.prepare_cached(view_sql())?
        .query_row(params![id, user], |r| {
            let extras = extras_at(r, STATUS + 1)?;
            Ok(View { course: courses::from_row(r)?, status: r.get(STATUS)?, extras })
        })
        .optional()
}

fn view_sql() -> &'static str {
    sql!(
        "SELECT {}, (SELECT join_status FROM course_member m
                     WHERE m.course_id = c.id AND m.user_id = ?2),
                {}, c.category_ids
         FROM course c LEFT JOIN user u ON u.id = c.created_by
         WHERE c.id = ?1",
        columns_as("c"),
        extra_columns()
    )
}

/// What a course's JSON needs besides the record the caller holds: its creator (brief,
/// None when gone), its counts for `user` and its category ids as the database has them
/// now (after a write in the same transaction too), in one statement.
pub fn extras(conn: &Connection, course: &Course, user: Option<i64>) -> rusqlite::Result<Extras> {
    conn.prepare_cached(extras_sql())?
        .query_row(params![course.id, user, course.created_by], |r| extras_at(r, 0))
}

fn extras_sql() -> &'static str {
    sql!(
        "SELECT {}, (SELECT category_ids FROM course WHERE id = ?1)
         FROM (SELECT ?3 AS id) x LEFT JOIN user u ON u.id = x.id",
        extra_columns()
    )
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use crate::db::users::BRIEF;

    /// Users 1–5; course 7 by user 1 in categories 2 and 1, with members 2 (manager),
    /// 3 (joined), 4 (requested), 5 (invited); two sections with 2 and 1 lessons, of which user 3
    /// completed 2 and user 2 one; course 8 by user 2, no members besides, no category,
    /// nothing in it.
    fn fixture() -> Connection {
        let conn = crate::db::migrate::test_db();
        conn.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined)
               VALUES (1, 'u1', 'u1', 0), (2, 'u2', 'u2', 0), (3, 'u3', 'u3', 0), (4, 'u4', 'u4', 0),
                      (5, 'u5', 'u5', 0);
             INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by)
               VALUES (7, 'Seven', 'seven', 'seven', 'self-paced', 'open', 5, 1),
                      (8, 'Eight', 'eight', 'eight', 'scheduled', 'private', 6, 2);
             INSERT INTO course_member (course_id, user_id, join_status, created_at)
               VALUES (7, 1, 'creator', 0), (7, 2, 'manager', 0), (7, 3, 'joined', 0),
                      (7, 4, 'requested', 0), (7, 5, 'invited', 0),
                      (8, 2, 'creator', 0);
             INSERT INTO category (id, name, name_key, slug, created_at)
               VALUES (1, 'c1', 'c1', 'c1', 0), (2, 'c2', 'c2', 'c2', 0);
             INSERT INTO course_section (id, course_id, name, created_at)
               VALUES (1, 7, 'a', 0), (2, 7, 'b', 0);
             INSERT INTO course_lesson (id, section_id, name, created_at, status)
               VALUES (1, 1, 'x', 0, 'published'), (2, 1, 'y', 0, 'published'),
                      (3, 2, 'z', 0, 'published'), (4, 2, 'draft', 0, 'draft');
             -- a draft counts for no one, its completion neither
             INSERT INTO course_lesson_completion (lesson_id, user_id, completed_at)
               VALUES (1, 3, 0), (3, 3, 0), (2, 2, 0), (4, 3, 0);",
        )
        .unwrap();
        courses::set_categories(&conn, 7, &[2, 1]).unwrap();
        conn
    }

    fn counts(members: i64, sections: i64, lessons: i64, completed: i64) -> Counts {
        Counts { members, sections, lessons, completed }
    }

    #[test]
    fn a_view_reads_the_record_the_callers_status_the_creator_and_the_counts() {
        let conn = fixture();
        conn.execute_batch(
            "UPDATE user SET real_name = 'R' || id, avatar = 'user/' || id || '.png',
                             community_badge = 1, followers_counter = 9",
        )
        .unwrap();
        let cases = [
            // (course, caller, status, creator, counts)
            (7, None, None, 1, counts(3, 2, 3, 0)),
            (7, Some(1), Some(JoinStatus::Creator), 1, counts(3, 2, 3, 0)),
            (7, Some(2), Some(JoinStatus::Manager), 1, counts(3, 2, 3, 1)),
            (7, Some(3), Some(JoinStatus::Joined), 1, counts(3, 2, 3, 2)),
            (7, Some(4), Some(JoinStatus::Requested), 1, counts(3, 2, 3, 0)),
            (8, Some(3), None, 2, counts(1, 0, 0, 0)),
            (8, Some(2), Some(JoinStatus::Creator), 2, counts(1, 0, 0, 0)),
        ];
        for (id, caller, status, creator, want) in cases {
            let v = view(&conn, id, caller).unwrap().unwrap();
            let at = format!("course {id} as {caller:?}");
            assert_eq!(v.course.id, id, "{at}");
            assert_eq!(v.course.created_by, creator, "{at}");
            assert_eq!(v.course.name, if id == 7 { "Seven" } else { "Eight" }, "{at}");
            assert_eq!(v.status, status, "{at}");
            assert_eq!(v.extras.creator.as_ref().unwrap().id, creator, "{at}");
            assert_eq!(v.extras.counts, want, "{at}");
            assert_eq!(v.extras.category_ids, if id == 7 { vec![1, 2] } else { vec![] }, "{at}");
            // extras agree with the view for a caller holding the record
            let held = extras(&conn, &v.course, caller).unwrap();
            assert_eq!(held.category_ids, v.extras.category_ids, "{at}");
            let (by, counted) = (held.creator.unwrap(), held.counts);
            assert_eq!(by.username, format!("u{creator}"), "{at}");
            // what the minimal JSON shows, and nothing read for nothing
            assert_eq!(v.extras.creator.as_ref().unwrap().username, by.username, "{at}");
            assert_eq!(by.real_name, format!("R{creator}"), "{at}");
            assert_eq!(by.avatar, format!("user/{creator}.png"), "{at}");
            assert!(by.community_badge && !by.deleted, "{at}");
            assert_eq!(by.followers_counter, 0, "{at}");
            assert_eq!(counted, want, "{at}");
        }
    }

    #[test]
    fn no_course_is_none_and_a_gone_creator_is_none_not_an_error() {
        let conn = fixture();
        assert!(view(&conn, 9, Some(1)).unwrap().is_none());
        conn.execute_batch("PRAGMA foreign_keys = OFF; DELETE FROM user WHERE id = 2;").unwrap();
        let v = view(&conn, 8, Some(3)).unwrap().unwrap();
        assert!(v.extras.creator.is_none());
        assert_eq!(v.extras.counts, counts(1, 0, 0, 0));
        assert!(extras(&conn, &v.course, None).unwrap().creator.is_none());
    }

    #[test]
    fn a_view_builds_no_ephemeral_table() {
        // each one is a B-tree opened, filled and closed on every course read (issue 17)
        let conn = fixture();
        assert_eq!(crate::db::migrate::ephemeral_tables(&conn, view_sql()), 0);
        assert_eq!(crate::db::migrate::ephemeral_tables(&conn, extras_sql()), 0);
    }

    #[test]
    fn members_are_counted_in_the_key_the_callers_status_is_read_from() {
        let conn = fixture();
        for sql in [view_sql(), extras_sql()] {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let mut rows = stmt.raw_query();
            let mut plan = Vec::new();
            while let Some(r) = rows.next().unwrap() {
                plan.push(r.get::<_, String>(3).unwrap());
            }
            let plan = plan.join("\n");
            assert!(!plan.contains("course_member_status"), "{plan}");
            assert!(
                plan.contains("SEARCH course_member USING PRIMARY KEY (course_id=?)"),
                "{plan}"
            );
        }
    }

    #[test]
    fn the_user_column_count_matches_the_user_column_list() {
        assert_eq!(BRIEF.split(", ").count(), USER_COLUMNS);
    }
}

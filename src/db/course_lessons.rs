//! A course's lessons (`course_lesson`, ordered by their section's `lessons_order`) and
//! the lessons each member completed (`course_lesson_completion`).

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::course::JoinStatus;
use crate::model::course_lesson::{Lesson, MemberProgress};

/// A lesson's columns but its text, its course's id among them (`l` the lesson, `s`
/// its section); [`lesson_row`] reads them followed by the text and html.
macro_rules! columns {
    () => {
        "l.id, s.course_id, l.section_id, l.name, l.type, l.status, l.comments_enabled,
         l.created_at, l.created_by"
    };
}

/// [`columns!`] with the text and html left empty: what lists read.
const BRIEF: &str = concat!(columns!(), ", '', ''");
/// [`columns!`] with the text and html.
const FULL: &str = concat!(columns!(), ", l.text, l.html");

fn lesson_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Lesson> {
    Ok(from_columns!(r => Lesson {
        id, course_id, section_id, name, kind, status, comments_enabled, created_at, created_by,
        text, html
    }))
}

/// Every lesson of a course, without their text, by id (the caller orders them).
pub fn of_course(conn: &Connection, course: i64) -> rusqlite::Result<Vec<Lesson>> {
    let mut stmt = conn.prepare_cached(sql!(
        "SELECT {BRIEF} FROM course_section s JOIN course_lesson l ON l.section_id = s.id
         WHERE s.course_id = ?1 ORDER BY l.id"
    ))?;
    let rows = stmt.query_map([course], lesson_row)?;
    rows.collect()
}

/// How many lessons a course has (drafts included).
pub fn count(conn: &Connection, course: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT count(*) FROM course_section s JOIN course_lesson l ON l.section_id = s.id
         WHERE s.course_id = ?1",
    )?
    .query_row([course], |r| r.get(0))
}

/// Lesson `id` of section `section` of course `course`, with its text.
pub fn get(
    conn: &Connection,
    course: i64,
    section: i64,
    id: i64,
) -> rusqlite::Result<Option<Lesson>> {
    conn.prepare_cached(sql!(
        "SELECT {FULL}
         FROM course_lesson l JOIN course_section s ON s.id = l.section_id
         WHERE l.id = ?3 AND l.section_id = ?2 AND s.course_id = ?1"
    ))?
    .query_row([course, section, id], lesson_row)
    .optional()
}

/// Adds a lesson (its id and course ignored); returns its id.
pub fn insert(conn: &Connection, l: &Lesson) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO course_lesson (section_id, name, created_at, type, status,
             comments_enabled, text, html, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        l.section_id,
        l.name,
        l.created_at,
        l.kind,
        l.status,
        l.comments_enabled,
        l.text,
        l.html,
        l.created_by
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Writes a lesson's fields.
pub fn update(conn: &Connection, l: &Lesson) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE course_lesson SET name = ?2, type = ?3, status = ?4, comments_enabled = ?5,
             text = ?6, html = ?7
         WHERE id = ?1",
    )?
    .execute(params![l.id, l.name, l.kind, l.status, l.comments_enabled, l.text, l.html])?;
    Ok(())
}

/// Deletes a lesson, its completions and its comments.
pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM course_lesson WHERE id = ?1")?.execute([id])?;
    Ok(())
}

/// The ids of the lessons of `course` that `user` completed.
pub fn completed(conn: &Connection, course: i64, user: i64) -> rusqlite::Result<HashSet<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT l.id FROM course_section s JOIN course_lesson l ON l.section_id = s.id
         JOIN course_lesson_completion k ON k.lesson_id = l.id AND k.user_id = ?2
         WHERE s.course_id = ?1",
    )?;
    let rows = stmt.query_map([course, user], |r| r.get(0))?;
    rows.collect()
}

/// Marks a lesson complete for `user` (again: unchanged).
pub fn complete(conn: &Connection, lesson: i64, user: i64, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO course_lesson_completion (lesson_id, user_id, completed_at)
         VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    )?
    .execute(params![lesson, user, now])?;
    Ok(())
}

/// Marks a lesson not complete for `user`.
pub fn incomplete(conn: &Connection, lesson: i64, user: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM course_lesson_completion WHERE lesson_id = ?1 AND user_id = ?2",
    )?
    .execute([lesson, user])?;
    Ok(())
}

/// The mean of the joined members' completion rates of `course`, in percent rounded
/// down (each rate is their completed published lessons over the published lessons):
/// the completions of the course's members counted once, over lessons × members.
pub fn average_completion(conn: &Connection, course: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT (SELECT count(*) FROM course_member m
                   JOIN course_section s ON s.course_id = m.course_id
                   JOIN course_lesson l ON l.section_id = s.id AND l.status = 'published'
                   JOIN course_lesson_completion k ON k.lesson_id = l.id AND k.user_id = m.user_id
                  WHERE m.course_id = ?1 AND m.join_status = 'joined'),
                (SELECT count(*) FROM course_member
                  WHERE course_id = ?1 AND join_status = 'joined'),
                (SELECT count(*) FROM course_section s
                   JOIN course_lesson l ON l.section_id = s.id AND l.status = 'published'
                  WHERE s.course_id = ?1)",
    )?
    .query_row([course], |r| {
        let (done, members, lessons): (i64, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let all = members.saturating_mul(lessons);
        Ok(if all > 0 { done.saturating_mul(100) / all } else { 0 })
    })
}

/// The members a dashboard page is taken from: `()` every one of the statuses (`?1` the
/// course, `?2` the statuses as a JSON array), `(by_name)` those whose username key is
/// in [?3, ?4).
macro_rules! members {
    () => {
        "FROM course_member m
         WHERE m.course_id = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))"
    };
    (by_name) => {
        "FROM course_member m JOIN user u ON u.id = m.user_id
         WHERE m.course_id = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))
           AND u.username_key >= ?3 AND u.username_key < ?4"
    };
}

/// A dashboard page: the page's members picked first (an inner query with the limit,
/// `?5`/`?6`), so that the progress is read for them only, not for every member the
/// offset skips; each member's progress from their own completions
/// (`course_lesson_completion_user`), kept to the course's published lessons.
fn progress_sql(by_name: bool) -> &'static str {
    macro_rules! page {
        ($($members:tt)*) => {
            sql!(
                "SELECT {}, u.date_joined, p.join_status, p.created_at,
                        (SELECT count(*) FROM course_lesson_completion k
                           JOIN course_lesson l ON l.id = k.lesson_id AND l.status = 'published'
                           JOIN course_section s ON s.id = l.section_id AND s.course_id = ?1
                          WHERE k.user_id = p.user_id),
                        (SELECT max(k.completed_at) FROM course_lesson_completion k
                           JOIN course_lesson l ON l.id = k.lesson_id
                           JOIN course_section s ON s.id = l.section_id AND s.course_id = ?1
                          WHERE k.user_id = p.user_id)
                 FROM (SELECT m.user_id, m.join_status, m.created_at {}
                       ORDER BY m.created_at, m.user_id LIMIT ?5 OFFSET ?6) p
                 JOIN user u ON u.id = p.user_id
                 ORDER BY p.created_at, p.user_id",
                super::users::qualified(super::users::BRIEF, "u"),
                members!($($members)*)
            )
        };
    }
    if by_name { page!(by_name) } else { page!() }
}

/// The members of `course` whose status is one of `statuses` (and whose username
/// starts with `prefix`, case-insensitively, when it is not empty), in the order they
/// came, with their progress ([`progress_sql`]): how many there are, and the page
/// `limit`/`offset` names.
pub fn progress(
    conn: &Connection,
    course: i64,
    statuses: &[JoinStatus],
    prefix: &str,
    (limit, offset): (i64, i64),
) -> rusqlite::Result<(i64, Vec<MemberProgress>)> {
    let statuses = serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into());
    let low = crate::model::user::username_key(prefix);
    let high = format!("{low}\u{10FFFF}");
    // without a prefix the username is no filter: the members' own index alone (the
    // page's statement then leaves ?3 and ?4 unused)
    let by_name = !low.is_empty();
    let count = if by_name {
        conn.prepare_cached(concat!("SELECT count(*) ", members!(by_name)))?
            .query_row(params![course, statuses, low, high], |r| r.get(0))?
    } else {
        conn.prepare_cached(concat!("SELECT count(*) ", members!()))?
            .query_row(params![course, statuses], |r| r.get(0))?
    };
    let mut stmt = conn.prepare_cached(progress_sql(by_name))?;
    let n = super::users::BRIEF.split(", ").count();
    let rows = stmt.query_map(params![course, statuses, low, high, limit, offset], |r| {
        let mut user = super::users::brief_at(r, 0)?;
        user.date_joined = r.get(n)?;
        Ok(MemberProgress {
            user,
            status: r.get(n + 1)?,
            joined_at: r.get(n + 2)?,
            completed: r.get(n + 3)?,
            last_active_at: r.get(n + 4)?,
        })
    })?;
    Ok((count, rows.collect::<rusqlite::Result<_>>()?))
}

/// How many published lessons a course has.
pub fn published(conn: &Connection, course: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT count(*) FROM course_section s
           JOIN course_lesson l ON l.section_id = s.id AND l.status = 'published'
          WHERE s.course_id = ?1",
    )?
    .query_row([course], |r| r.get(0))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    /// A dashboard page reads each member's progress from their own completions, and
    /// only for the page's members (the inner query holds the limit and offset).
    #[test]
    fn a_dashboard_page_reads_its_members_completions_by_the_users_index() {
        let conn = crate::db::migrate::test_db();
        for by_name in [false, true] {
            let mut stmt =
                conn.prepare(&format!("EXPLAIN QUERY PLAN {}", progress_sql(by_name))).unwrap();
            let mut rows = stmt.raw_query();
            let mut plan = Vec::new();
            while let Some(r) = rows.next().unwrap() {
                plan.push(r.get::<_, String>(3).unwrap());
            }
            let plan = plan.join("\n");
            assert!(plan.contains("course_lesson_completion_user (user_id=?)"), "{plan}");
            assert!(plan.contains("CO-ROUTINE p"), "{plan}");
            assert!(!plan.contains("SCAN k"), "{plan}");
        }
    }
}

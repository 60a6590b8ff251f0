//! Comments on a course's lessons (`course_lesson_comment`): flat, hard-deleted, counted
//! on their lesson (`course_lesson.comment_count`, kept by triggers), so a page of them
//! is an index range and its count one row.

use rusqlite::{Connection, OptionalExtension, params};

use super::users;
use crate::clock::Timestamp;
use crate::model::course_lesson::LessonComment;
use crate::model::user::User;

/// A comment and its author (brief: [`users::BRIEF`]; None when gone).
pub type Authored = (LessonComment, Option<User>);

/// A comment, where it was written (`c` the comment, `l` its lesson, `s` the lesson's
/// section, `co` the course), then its author's brief columns (`u`, NULL when gone).
fn select() -> &'static str {
    sql!(
        "SELECT c.id, c.lesson_id, c.course_id, c.text, c.html, c.created_at, c.created_by,
                co.slug, s.id, s.name, l.name, {}
         FROM course_lesson_comment c
         JOIN course_lesson l ON l.id = c.lesson_id
         JOIN course_section s ON s.id = l.section_id
         JOIN course co ON co.id = c.course_id
         LEFT JOIN user u ON u.id = c.created_by",
        users::qualified(users::BRIEF, "u")
    )
}

/// How many columns a comment takes before its author's.
const OWN_COLUMNS: usize = 11;

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Authored> {
    let comment = LessonComment {
        id: r.get(0)?,
        lesson_id: r.get(1)?,
        course_id: r.get(2)?,
        text: r.get(3)?,
        html: r.get(4)?,
        created_at: r.get(5)?,
        created_by: r.get(6)?,
        course_slug: r.get(7)?,
        section_id: r.get(8)?,
        section_name: r.get(9)?,
        lesson_name: r.get(10)?,
    };
    let author = match r.get::<_, Option<i64>>(OWN_COLUMNS)? {
        Some(_) => Some(users::brief_at(r, OWN_COLUMNS)?),
        None => None,
    };
    Ok((comment, author))
}

/// Comment `id` on lesson `lesson`, with its author.
pub fn get(conn: &Connection, lesson: i64, id: i64) -> rusqlite::Result<Option<Authored>> {
    conn.prepare_cached(sql!("{} WHERE c.id = ?2 AND c.lesson_id = ?1", select()))?
        .query_row([lesson, id], row)
        .optional()
}

/// Comment `id`, on whichever lesson, with its author.
pub fn by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<Authored>> {
    conn.prepare_cached(sql!("{} WHERE c.id = ?1", select()))?.query_row([id], row).optional()
}

/// A page of a lesson's comments, oldest first (`newest_first`: newest first), and how
/// many it has.
pub fn of_lesson(
    conn: &Connection,
    lesson: i64,
    newest_first: bool,
    (limit, offset): (i64, i64),
) -> rusqlite::Result<(i64, Vec<Authored>)> {
    let count = conn
        .prepare_cached("SELECT comment_count FROM course_lesson WHERE id = ?1")?
        .query_row([lesson], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    let sql = if newest_first {
        sql!("{} WHERE c.lesson_id = ?1 ORDER BY c.id DESC LIMIT ?2 OFFSET ?3", select())
    } else {
        sql!("{} WHERE c.lesson_id = ?1 ORDER BY c.id LIMIT ?2 OFFSET ?3", select())
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params![lesson, limit, offset], row)?;
    Ok((count, rows.collect::<rusqlite::Result<_>>()?))
}

/// A page of the comments on every lesson of a course, newest first, and how many
/// there are (the lessons' kept counts: a course has at most
/// [`crate::model::course_lesson::LESSONS_MAX`] lessons).
pub fn of_course(
    conn: &Connection,
    course: i64,
    (limit, offset): (i64, i64),
) -> rusqlite::Result<(i64, Vec<Authored>)> {
    let count = conn
        .prepare_cached(
            "SELECT coalesce(sum(l.comment_count), 0) FROM course_section s
             JOIN course_lesson l ON l.section_id = s.id WHERE s.course_id = ?1",
        )?
        .query_row([course], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(sql!(
        "{} WHERE c.course_id = ?1 ORDER BY c.id DESC LIMIT ?2 OFFSET ?3",
        select()
    ))?;
    let rows = stmt.query_map(params![course, limit, offset], row)?;
    Ok((count, rows.collect::<rusqlite::Result<_>>()?))
}

/// Adds a comment by `author` on `lesson` of `course`; returns its id.
pub fn insert(
    conn: &Connection,
    course: i64,
    lesson: i64,
    author: i64,
    (text, html): (&str, &str),
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO course_lesson_comment (lesson_id, course_id, text, html, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![lesson, course, text, html, now, author])?;
    Ok(conn.last_insert_rowid())
}

/// Replaces a comment's text.
pub fn edit(
    conn: &Connection,
    id: i64,
    (text, html): (&str, &str),
    now: Timestamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE course_lesson_comment SET text = ?2, html = ?3, updated_at = ?4 WHERE id = ?1",
    )?
    .execute(params![id, text, html, now])?;
    Ok(())
}

/// Deletes a comment.
pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM course_lesson_comment WHERE id = ?1")?.execute([id])?;
    Ok(())
}

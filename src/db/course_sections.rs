//! A course's sections: listed in the course's `sections_order`, renamed, removed.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::course::Section;

const SECTION_SELECT: &str = "SELECT s.id, s.course_id, s.name,
    (SELECT count(*) FROM course_lesson l WHERE l.section_id = s.id) FROM course_section s";

fn section_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Section> {
    Ok(from_columns!(r => Section { id, course_id, name, num_lessons }))
}

/// The sections of a course, by id.
pub fn sections(conn: &Connection, course: i64) -> rusqlite::Result<Vec<Section>> {
    let mut stmt =
        conn.prepare_cached(&format!("{SECTION_SELECT} WHERE s.course_id = ?1 ORDER BY s.id"))?;
    let rows = stmt.query_map([course], section_row)?;
    rows.collect()
}

/// One section of a course.
pub fn section(conn: &Connection, course: i64, id: i64) -> rusqlite::Result<Option<Section>> {
    conn.prepare_cached(&format!("{SECTION_SELECT} WHERE s.course_id = ?1 AND s.id = ?2"))?
        .query_row([course, id], section_row)
        .optional()
}

/// Adds a section; returns its id.
pub fn insert_section(
    conn: &Connection,
    course: i64,
    name: &str,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO course_section (course_id, name, created_at) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![course, name, now])?;
    Ok(conn.last_insert_rowid())
}

/// Renames a section.
pub fn rename_section(conn: &Connection, id: i64, name: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE course_section SET name = ?2 WHERE id = ?1")?
        .execute(params![id, name])?;
    Ok(())
}

/// Deletes a section and its lessons.
pub fn delete_section(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM course_section WHERE id = ?1")?.execute([id])?;
    Ok(())
}

//! A course's sections: listed in the course's `sections_order`, renamed, removed.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::course::Section;

/// A section with its count of published lessons.
const SECTION_SELECT: &str = "SELECT s.id, s.course_id, s.name, s.lessons_order,
    (SELECT count(*) FROM course_lesson l WHERE l.section_id = s.id AND l.status = 'published')
    FROM course_section s";

fn section_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Section> {
    let order = r.get_ref(3)?.as_str()?;
    let lessons_order = serde_json::from_str(order).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(3, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(Section {
        id: r.get(0)?,
        course_id: r.get(1)?,
        name: r.get(2)?,
        lessons_order,
        num_lessons: r.get(4)?,
    })
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

/// Sets a section's `lessons_order`.
pub fn set_lessons_order(conn: &Connection, id: i64, order: &[i64]) -> rusqlite::Result<()> {
    let json = serde_json::to_string(order).unwrap_or_else(|_| "[]".into());
    conn.prepare_cached("UPDATE course_section SET lessons_order = ?2 WHERE id = ?1")?
        .execute(params![id, json])?;
    Ok(())
}

/// Deletes a section and its lessons.
pub fn delete_section(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM course_section WHERE id = ?1")?.execute([id])?;
    Ok(())
}

//! Writers for course and contribution lines. They check what the schema does not
//! while an import runs (references, against [`Known`]: foreign keys are off) and
//! write the rows.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::model::course::{Course, JoinStatus};
use crate::model::import::{CourseLine, CourseMemberLine};
use crate::model::slug;

pub(super) fn pk_of(conn: &Connection, kind: &str, id: i64) -> Result<Option<i64>, LineError> {
    conn.prepare_cached("SELECT pk FROM contribution WHERE kind = ?1 AND id = ?2")
        .and_then(|mut s| s.query_row(params![kind, id], |r| r.get(0)).optional())
        .map_err(|e| sql_err(kind, &e))
}

/// A comment's pk and the pk of the item it is on.
pub(super) fn comment_target(
    conn: &Connection,
    id: i64,
) -> Result<Option<(i64, Option<i64>)>, LineError> {
    conn.prepare_cached("SELECT pk, target_pk FROM contribution WHERE kind = 'comment' AND id = ?1")
        .and_then(|mut s| s.query_row([id], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(|e| sql_err("comment", &e))
}

/// Inserts a contribution line's row with its text's rich-text forms, rendered by the
/// renderer the API's writes use (SPEC §5).
#[expect(clippy::too_many_arguments, reason = "one column each; a struct would only rename them")]
pub(super) fn insert_contribution(
    conn: &Connection,
    kind: &str,
    id: i64,
    author: i64,
    title: Option<String>,
    action: Option<String>,
    text: &str,
    at: Timestamp,
    deleted: bool,
    target: Option<i64>,
    parent: Option<i64>,
    space: Space,
) -> Result<i64, LineError> {
    let r = crate::model::rich_text::render(text);
    conn.prepare_cached(
        "INSERT INTO contribution (kind, id, author_id, title, action, text, added_at, deleted, target_pk, parent_pk,
                                   html, summary, summary_html, summary_truncated, last_activity_at, group_id,
                                   event_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?7, ?15, ?16)",
    )
    .and_then(|mut s| {
        s.execute(params![
            kind,
            id,
            author,
            title,
            action,
            text,
            at,
            deleted,
            target,
            parent,
            r.html,
            r.summary,
            r.stored_summary_html(),
            r.summary_truncated,
            space.group,
            space.event
        ])
    })
    .map_err(|e| sql_err(&format!("{kind} {id}"), &e))?;
    let pk = conn.last_insert_rowid();
    if target.is_none() && !deleted {
        crate::db::search::index::add(conn, pk, title.as_deref(), text)
            .map_err(|e| sql_err(&format!("{kind} {id}"), &e))?;
    }
    Ok(pk)
}

/// Where an item was made (a comment: its item's): a group, an event or neither.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Space {
    pub group: Option<i64>,
    pub event: Option<i64>,
}

impl Space {
    /// An item line's `group` and `event`, each checked to exist; a status and an item
    /// in both are refused.
    pub fn of_line(
        conn: &Connection,
        kind: &str,
        group: Option<i64>,
        event: Option<i64>,
    ) -> Result<Self, LineError> {
        if (group.is_some() || event.is_some()) && kind == "status" {
            return Err("a status is made in no group or event".into());
        }
        if group.is_some() && event.is_some() {
            return Err("an item is made in a group or in an event, not in both".into());
        }
        let exists = |table: &str, what: &str, id: Option<i64>| match id {
            None => Ok(None),
            Some(id) => {
                let found = conn
                    .prepare_cached(&format!("SELECT 1 FROM {table} WHERE id = ?1"))
                    .and_then(|mut s| s.exists([id]))
                    .map_err(|e| sql_err(what, &e))?;
                if found { Ok(Some(id)) } else { Err(format!("{what} {id} does not exist")) }
            }
        };
        Ok(Self {
            group: exists("community_group", "group", group)?,
            event: exists("event", "event", event)?,
        })
    }

    /// The space of contribution `pk` (a comment's item).
    pub fn of_item(conn: &Connection, pk: i64) -> Result<Self, LineError> {
        conn.prepare_cached("SELECT group_id, event_id FROM contribution WHERE pk = ?1")
            .and_then(|mut s| {
                s.query_row([pk], |r| Ok(Self { group: r.get(0)?, event: r.get(1)? }))
            })
            .map_err(|e| sql_err("comment", &e))
    }
}

/// Links contribution `pk` to categories the caller has checked.
pub(super) fn link_categories(conn: &Connection, pk: i64, ids: &[i64]) -> Result<(), LineError> {
    crate::db::contributions::link_categories(conn, pk, ids)
        .map_err(|e| sql_err("category link", &e))
}

/// A course line: the course, its creator member and its categories.
pub(super) fn course(
    conn: &Connection,
    known: &Known,
    c: CourseLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let n = c.name.chars().count();
    if c.name.trim().is_empty() || n > 255 {
        return Err("course name must be 1 to 255 characters".into());
    }
    let (kind, privacy) = c.choices()?;
    let at = c.created_at.unwrap_or(now);
    known.user(c.created_by, "created_by")?;
    known.categories(&c.categories, "course")?;
    let s = match c.slug {
        Some(s) if slug::is_valid(&s) => s,
        Some(s) => return Err(format!("slug {s:?} is not a valid slug")),
        None => slug::unique(&slug::slugify(&c.name, "course"), |x| {
            conn.prepare_cached("SELECT 1 FROM course WHERE slug = ?1")?.exists([x])
        })
        .map_err(|e| sql_err("course", &e))?,
    };
    // the API's create, so that both write the same rows the same way
    let course = Course {
        id: c.id,
        name: c.name,
        slug: s,
        description: c.description,
        kind,
        privacy,
        enforce_lessons_order: c.enforce_lessons_order,
        new_comment_notification_enabled: c.new_comment_notification_enabled,
        hide_member_count: c.hide_member_count,
        meta_title: c.meta_title,
        meta_description: c.meta_description,
        og_title: c.og_title,
        og_description: c.og_description,
        og_image: c.og_image,
        sections_order: Vec::new(),
        image_key: None,
        deleted: c.deleted,
        created_at: at,
        created_by: c.created_by,
    };
    crate::db::courses::create(conn, &course, Some(course.id), &c.categories)
        .map_err(|e| sql_err(&format!("course {} ({:?})", course.id, course.name), &e))?;
    Ok(())
}

/// A course membership other than the creator's (which comes from the course line).
pub(super) fn course_member(
    conn: &Connection,
    known: &Known,
    m: CourseMemberLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let status = m.status()?;
    known.user(m.user, "user")?;
    let creator: Option<i64> = conn
        .prepare_cached("SELECT created_by FROM course WHERE id = ?1")
        .and_then(|mut s| s.query_row([m.course], |r| r.get(0)).optional())
        .map_err(|e| sql_err("course_member", &e))?;
    let creator = creator.ok_or_else(|| format!("course {} does not exist", m.course))?;
    match (creator == m.user, status) {
        // the creator's membership comes from the course line
        (true, JoinStatus::Creator) => return Ok(()),
        (true, _) => return Err("the creator's join_status cannot change".into()),
        (false, JoinStatus::Creator) => {
            return Err("only the course's created_by can be its creator".into());
        }
        _ => {}
    }
    conn.prepare_cached(
        "INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![m.course, m.user, status, now]))
    .map_err(|e| sql_err("course_member", &e))?;
    Ok(())
}

//! Writers for the group records of SPEC §10 Groups: `group` (its creator becomes its
//! creator member) and `group_member`; discussions and posts name their `group`, and
//! comments take their item's. `schema.sql`'s triggers keep `subscribers_counter` and
//! the group tally, as for the API.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::model::group::{DESCRIPTION_MAX, GroupPrivacy, JoinStatus, NAME_MAX};
use crate::model::import::{GroupLine, GroupMemberLine};

/// A group line.
pub(super) fn group(
    conn: &Connection,
    known: &Known,
    g: GroupLine,
    now: Timestamp,
) -> Result<(), LineError> {
    known.user(g.created_by, "created_by")?;
    let name = g.name.trim();
    if name.is_empty() || name.chars().count() > NAME_MAX {
        return Err(format!("a group needs a name of 1 to {NAME_MAX} characters"));
    }
    if g.description.chars().count() > DESCRIPTION_MAX {
        return Err(format!("a group's description has at most {DESCRIPTION_MAX} characters"));
    }
    let privacy = match g.privacy.as_deref() {
        None => GroupPrivacy::Public,
        Some(p) => GroupPrivacy::parse(p)?,
    };
    let taken = |s: &str| super::super::groups::slug_taken(conn, s, g.id);
    let slug = crate::model::slug::unique(&crate::model::slug::slugify(name, "group"), taken)
        .map_err(|e| sql_err("group", &e))?;
    let at = g.created_at.unwrap_or(now);
    conn.prepare_cached(
        "INSERT INTO community_group (id, name, name_key, slug, description, color, privacy,
                                      visible, created_at, created_by, deleted)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )
    .and_then(|mut s| {
        s.execute(params![
            g.id,
            name,
            crate::model::course::name_key(name),
            slug,
            g.description,
            g.color,
            privacy,
            g.visible.unwrap_or(true),
            at,
            g.created_by,
            g.deleted
        ])
    })
    .map_err(|e| sql_err(&format!("group {}", g.id), &e))?;
    conn.prepare_cached(
        "INSERT INTO group_member (group_id, user_id, join_status, created_at) VALUES (?1, ?2, 'creator', ?3)",
    )
    .and_then(|mut s| s.execute(params![g.id, g.created_by, at]))
    .map_err(|e| sql_err("group_member", &e))?;
    Ok(())
}

/// A group member line: the creator's own comes from the group line.
pub(super) fn group_member(
    conn: &Connection,
    known: &Known,
    m: GroupMemberLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let status = JoinStatus::parse(&m.join_status)?;
    known.user(m.user, "user")?;
    let creator: Option<i64> = conn
        .prepare_cached("SELECT created_by FROM community_group WHERE id = ?1")
        .and_then(|mut s| s.query_row([m.group], |r| r.get(0)).optional())
        .map_err(|e| sql_err("group_member", &e))?;
    let creator = creator.ok_or_else(|| format!("group {} does not exist", m.group))?;
    match (creator == m.user, status) {
        (true, JoinStatus::Creator) => return Ok(()),
        (true, _) => return Err("the creator's join_status cannot change".into()),
        (false, JoinStatus::Creator) => {
            return Err("only the group's created_by can be its creator".into());
        }
        _ => {}
    }
    conn.prepare_cached(
        "INSERT INTO group_member (group_id, user_id, join_status, created_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![m.group, m.user, status, now]))
    .map_err(|e| sql_err("group_member", &e))?;
    Ok(())
}

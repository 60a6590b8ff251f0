//! The tag records of an import (SPEC §10 People): user tags with the API's rules,
//! and who holds them.

use rusqlite::Connection;

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::model::import::{TagLine, UserTagLine};

pub(super) fn tag(conn: &Connection, t: &TagLine, now: Timestamp) -> Result<(), LineError> {
    let tag = t.to_tag(now)?;
    if crate::db::tags::named(conn, &tag.name, tag.id).map_err(|e| sql_err("tag", &e))?.is_some() {
        return Err(format!("a tag named {:?} already exists", tag.name));
    }
    crate::db::tags::insert(conn, &tag, Some(tag.id)).map(drop).map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("tag {} already exists", tag.id)
        } else {
            sql_err("tag", &e)
        }
    })
}

pub(super) fn user_tag(conn: &Connection, known: &Known, t: &UserTagLine) -> Result<(), LineError> {
    known.user(t.user, "user")?;
    if crate::db::tags::get(conn, t.tag).map_err(|e| sql_err("user_tag", &e))?.is_none() {
        return Err(format!("tag {} does not exist", t.tag));
    }
    if !crate::db::tags::assign(conn, t.tag, t.user).map_err(|e| sql_err("user_tag", &e))? {
        return Err(format!("user {} already holds tag {}", t.user, t.tag));
    }
    Ok(())
}

//! The tag records of an import (SPEC §10 People): user tags with the API's rules,
//! and who holds them; and the identities elsewhere linked to users (issue 32).

use rusqlite::Connection;

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::db::user_providers::{self, Refused};
use crate::model::import::{TagLine, UserProviderLine, UserTagLine};

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

/// Whether a discussion's or post's `addressing` may be stored: only on those two
/// kinds, never with a group or an event (as the API), and only to tags that exist.
pub(super) fn addressing_of_line(
    conn: &Connection,
    kind: &str,
    in_space: bool,
    addressing: &[i64],
) -> Result<(), LineError> {
    if kind == "status" {
        return Err("only discussions and posts are addressed to tags".into());
    }
    if in_space {
        return Err("an item made in a group or an event is not addressed to tags".into());
    }
    for &tag in addressing {
        if crate::db::tags::get(conn, tag).map_err(|e| sql_err("addressing", &e))?.is_none() {
            return Err(format!("tag {tag} does not exist"));
        }
    }
    Ok(())
}

/// An identity linked to a user, by the API's rules (`POST /user/{id}/provider/`).
pub(super) fn user_provider(
    conn: &Connection,
    known: &Known,
    p: &UserProviderLine,
    now: Timestamp,
) -> Result<(), LineError> {
    known.user(p.user, "user")?;
    let a = p.to_association()?;
    let sql = |e: rusqlite::Error| sql_err("user_provider", &e);
    match user_providers::insert(conn, &a, p.created_at.unwrap_or(now)).map_err(sql)? {
        Ok(()) => Ok(()),
        Err(Refused::Linked) => {
            Err(format!("user {} has an identity at {} already", a.user_id, a.provider))
        }
        Err(Refused::Taken) => {
            Err(format!("{} id {:?} is linked to a user already", a.provider, a.ext_id))
        }
        Err(Refused::Full) => Err(format!(
            "user {} has {} linked identities already",
            a.user_id,
            user_providers::MAX_PER_USER
        )),
    }
}

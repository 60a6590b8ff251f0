//! Writers for the event records of SPEC §10 Events: `event` (the API's body and its
//! rules, `model::event::EventInput`; its creator becomes its creator member, going)
//! and `event_member` (with the member's answer). `schema.sql`'s triggers keep
//! `subscribers_counter` and `goings_counter`, as for the API.

use rusqlite::{Connection, OptionalExtension};

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::db::events;
use crate::db::members::{self, Roster};
use crate::model::event::{Event, EventInput, JoinStatus};
use crate::model::import::{EVENT_FIELDS, EventLine, EventMemberLine};

/// An event line.
pub(super) fn event(
    conn: &Connection,
    known: &Known,
    line: EventLine,
    now: Timestamp,
) -> Result<(), LineError> {
    known.user(line.created_by, "created_by")?;
    if let Some(other) = line.body.keys().find(|k| !EVENT_FIELDS.contains(&k.as_str())) {
        return Err(format!("unknown field `{other}` of an event"));
    }
    let (input, mut errors) = EventInput::parse(&line.body, true);
    let mut e = Event::new(line.created_by, line.created_at.unwrap_or(now));
    if errors.is_empty() {
        errors = input.apply(&mut e);
    }
    if let Some(f) = errors.first() {
        let why = f.messages.first().map(|m| m.message.as_str()).unwrap_or_default();
        return Err(format!("{}: {why}", f.field));
    }
    e.id = line.id;
    e.deleted = line.deleted;
    e.show_on_feed = line.show_on_feed.unwrap_or(true);
    let taken = |s: &str| events::slug_taken(conn, s, line.id);
    e.slug = crate::model::slug::unique(&crate::model::slug::slugify(&e.name, "event"), taken)
        .map_err(|err| sql_err("event", &err))?;
    events::create(conn, &e, now).map_err(|err| sql_err(&format!("event {}", line.id), &err))?;
    Ok(())
}

/// An event member line: the creator's own comes from the event line.
pub(super) fn event_member(
    conn: &Connection,
    known: &Known,
    m: EventMemberLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let status = JoinStatus::parse(&m.join_status)?;
    known.user(m.user, "user")?;
    let creator: Option<i64> = conn
        .prepare_cached("SELECT created_by FROM event WHERE id = ?1")
        .and_then(|mut s| s.query_row([m.event], |r| r.get(0)).optional())
        .map_err(|e| sql_err("event_member", &e))?;
    let creator = creator.ok_or_else(|| format!("event {} does not exist", m.event))?;
    match (creator == m.user, status) {
        (true, JoinStatus::Creator) if m.going.is_none() => return Ok(()),
        (true, JoinStatus::Creator) => {
            return events::answer(conn, m.event, m.user, m.going)
                .map_err(|e| sql_err("event_member", &e));
        }
        (true, _) => return Err("the creator's join_status cannot change".into()),
        (false, JoinStatus::Creator) => {
            return Err("only the event's created_by can be its creator".into());
        }
        (false, JoinStatus::Invited | JoinStatus::Requested) if m.going.is_some() => {
            return Err("only members answer going".into());
        }
        _ => {}
    }
    if members::status(conn, Roster::Event, m.event, m.user)
        .map_err(|e| sql_err("event_member", &e))?
        .is_some()
    {
        return Err(format!("event_member: user {} is already in event {}", m.user, m.event));
    }
    members::set(conn, Roster::Event, m.event, m.user, status, now)
        .and_then(|()| events::answer(conn, m.event, m.user, m.going))
        .map_err(|e| sql_err("event_member", &e))?;
    Ok(())
}

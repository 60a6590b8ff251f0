//! The lists' order, kept (issue 33): each event's key is stored on its row (`next_start`,
//! `next_end`, `prev_end`, `over`: schema.sql, version 11), computed in Rust
//! ([`key`]) by every write of its times ([`store_key`]) and moved on by a periodic job
//! on the writer ([`refresh_keys`], `server::spawn_event_keys`) once its occurrence has
//! ended; a write of the times that skips [`store_key`] leaves the key stale (the trigger
//! `event_key_stale`), never wrong.
//! A key computed at T is right at every later `now` as long as its occurrence has not
//! ended (`next_end > now`: "fresh"): the first occurrence ending after T that still
//! runs at `now` is also the first ending after `now`. The others ("stale": an
//! occurrence ended since the job last ran) are few and recomputed at `now` here.
//!
//! A page ([`walk`]) is the merge, in the lists' order, of
//! 1. the fresh keys to come or under way, by `(next_start, id)` (`event_next`), lazily:
//!    a page reads the rows up to its end, and one more;
//! 2. the stale keys (`event_stale`), recomputed and put where they now belong (in 1 or 3);
//! 3. the events that are over, by `(end_at DESC, id)` (`event_over`), lazily;
//!
//! so it reads O(offset + limit + stale) rows, plus the rows the SQL conditions skip
//! (events the viewer may not list, another location or creator, follows). A date filter
//! is checked exactly in Rust on each row of those walks, and narrows them in SQL by
//! necessary conditions: to come, only keys starting before the range's end, and for a
//! range that starts before now (today, this week, this month) then the recurring events
//! whose next occurrence is after the range but whose previous one ended in it
//! (`event_prev_end`, in the same order); over, only events ending after its start. Within
//! a range the walk reads the events to come that start before the range's end (for
//! `tomorrow` and `next_week`: also those of today or this week that the range leaves
//! out). `past` walks the events to come for the recurring ones (index only).
//!
//! The count is what the walk saw: exact when the list ends on this page (or before
//! it), else the lower bound `offset + limit + 1`, which is enough for `next` (the kit's
//! Events page scrolls on `next`; its widgets test `count > shown` and `count == 0`).

use jiff::tz::TimeZone;
use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Statement, params};

use super::filters::{Filters, Scope};
use crate::clock::Timestamp;
use crate::model::event::Recurrence;
use crate::model::event_time::{DateFilter, Schedule, zone};

/// An event's place in the lists' order at some time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The first occurrence ending after that time.
    pub next_start: Timestamp,
    pub next_end: Timestamp,
    /// The end of the occurrence before it, if any.
    pub prev_end: Option<Timestamp>,
    /// No occurrence ends after that time: the event is over (ordered by its end).
    pub over: bool,
}

/// `s`'s key at `at`.
pub fn key(s: &Schedule, at: Timestamp) -> Key {
    match s.nth_ending_after(at) {
        Some((k, (next_start, next_end))) => Key {
            next_start,
            next_end,
            prev_end: if k > 0 { s.nth(k - 1).map(|o| o.1) } else { None },
            over: false,
        },
        // over; or past the calendar's range, which the lists always put last
        None => Key { next_start: s.start, next_end: s.end, prev_end: None, over: true },
    }
}

fn schedule(start: Timestamp, end: Timestamp, tz: &str, recurring: Recurrence) -> Schedule {
    Schedule { start, end, zone: zone(tz).unwrap_or(TimeZone::UTC), recurring }
}

fn write_key(conn: &Connection, id: i64, k: Key) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE event SET next_start = ?2, next_end = ?3, prev_end = ?4, over = ?5 WHERE id = ?1",
    )?
    .execute(params![id, k.next_start, k.next_end, k.prev_end, k.over])?;
    Ok(())
}

/// Computes and stores event `id`'s key at `now` (after a write of its times).
pub fn store_key(conn: &Connection, id: i64, now: Timestamp) -> rusqlite::Result<()> {
    let row: Option<(Timestamp, Timestamp, String, Recurrence)> = conn
        .prepare_cached("SELECT start_at, end_at, timezone, recurring FROM event WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?;
    match row {
        Some((start, end, tz, rec)) => {
            write_key(conn, id, key(&schedule(start, end, &tz, rec), now))
        }
        None => Ok(()),
    }
}

/// The job: moves on up to `max` live keys that went stale by `now` (their occurrence
/// ended); returns how many it moved. Run on the writer every [`REFRESH_EVERY`].
pub fn refresh_keys(conn: &Connection, now: Timestamp, max: i64) -> rusqlite::Result<usize> {
    let stale: Vec<(i64, Timestamp, Timestamp, String, Recurrence)> = conn
        .prepare_cached(
            "SELECT id, start_at, end_at, timezone, recurring FROM event INDEXED BY event_stale
             WHERE deleted = 0 AND over = 0 AND next_end <= ?1 LIMIT ?2",
        )?
        .query_map(params![now, max], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?
        .collect::<Result<_, _>>()?;
    for (id, start, end, tz, rec) in &stale {
        write_key(conn, *id, key(&schedule(*start, *end, tz, *rec), now))?;
    }
    Ok(stale.len())
}

/// How often the server runs [`refresh_keys`].
pub const REFRESH_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// The most keys one run of the job moves (one write transaction).
pub const REFRESH_MAX: i64 = 5_000;

/// A place in the lists' order: to come by (next start, id), then over by (-end, id).
type Place = (bool, Timestamp, i64);

/// Binds the named parameters that `stmt` has of `args`.
fn bind(stmt: &mut Statement<'_>, args: &[(&str, &dyn ToSql)]) -> rusqlite::Result<()> {
    for (name, v) in args {
        if let Some(i) = stmt.parameter_index(name)? {
            stmt.raw_bind_parameter(i, v)?;
        }
    }
    Ok(())
}

/// The SQL conditions of a walk but the order's (`:viewer` the viewer): who may list it, the filters
/// (text aside: [`super::list`]) and the scope's (`All` or `NotIn`).
fn conditions(scope: &Scope, f: &Filters) -> String {
    let not_in = if *scope == Scope::NotIn {
        "AND NOT EXISTS (SELECT 1 FROM event_member sm WHERE sm.event_id = e.id AND sm.user_id = :viewer)"
    } else {
        ""
    };
    let follows = if f.follows {
        "AND EXISTS (SELECT 1 FROM follow f JOIN event_member fm ON fm.user_id = f.followed
               WHERE f.follower = :viewer AND fm.event_id = e.id
                 AND fm.join_status IN ('creator', 'manager', 'joined'))"
    } else {
        ""
    };
    format!(
        "{} AND (:location IS NULL OR e.location = :location)
         AND (:created_by IS NULL OR e.created_by = :created_by)
         AND (:except IS NULL OR e.id <> :except) {not_in} {follows}",
        // named: a `?1` after a first named parameter would share its slot
        super::listed(1).replace("?1", ":viewer")
    )
}

/// The stale keys (2).
fn stale_sql(cond: &str) -> String {
    format!(
        "SELECT e.id, e.start_at, e.end_at, e.timezone, e.recurring FROM event e INDEXED BY event_stale
         WHERE e.deleted = 0 AND e.over = 0 AND e.next_end <= :now AND {cond}"
    )
}

/// The recurring events after a range whose previous occurrence ended in it, in order
/// (1, after the range).
fn earlier_sql(cond: &str) -> String {
    format!(
        "SELECT e.id, e.next_start, e.start_at, e.end_at, e.recurring, e.timezone
         FROM event e INDEXED BY event_prev_end
         WHERE e.deleted = 0 AND e.over = 0 AND e.prev_end IS NOT NULL AND e.next_start >= :to
           AND e.prev_end > :from AND e.next_end > :now AND {cond}
         ORDER BY e.next_start, e.id"
    )
}

/// The fresh keys to come, in order (1).
fn upcoming_sql(cond: &str) -> String {
    format!(
        "SELECT e.id, e.next_start, e.start_at, e.end_at, e.recurring, e.timezone
         FROM event e INDEXED BY event_next
         WHERE e.deleted = 0 AND e.over = 0 AND e.next_end > :now
           AND (:to IS NULL OR e.next_start < :to)
           AND (:past = 0 OR (e.recurring <> 'never' AND e.end_at <= :now)) AND {cond}
         ORDER BY e.next_start, e.id"
    )
}

/// The events that are over, in order (3).
fn over_sql(cond: &str) -> String {
    format!(
        "SELECT e.id, e.end_at FROM event e INDEXED BY event_over
         WHERE e.over = 1 AND e.deleted = 0 AND (:from IS NULL OR e.end_at > :from)
           AND (:to IS NULL OR e.start_at < :to) AND {cond}
         ORDER BY e.end_at DESC, e.id"
    )
}

/// Every statement a walk may run, for the plan's test.
#[cfg(test)]
fn statements(scope: &Scope, f: &Filters) -> [String; 4] {
    let cond = conditions(scope, f);
    [stale_sql(&cond), earlier_sql(&cond), upcoming_sql(&cond), over_sql(&cond)]
}

/// One page of the ids of the events `viewer` may list in `scope` (`All` or `NotIn`)
/// that pass `f` (no text) at `now`, in the lists' order, and the count (see the module).
pub fn walk(
    conn: &Connection,
    viewer: Option<i64>,
    scope: &Scope,
    f: &Filters,
    now: Timestamp,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let (from, to) = f.date.map_or((None, None), |d| match d {
        DateFilter::Past => (None, None),
        _ => d.range(now, &f.zone),
    });
    let past = f.date == Some(DateFilter::Past);
    let passes = |s: &Schedule| f.date.is_none_or(|d| d.matches(s, now, &f.zone));
    let cond = conditions(scope, f);
    let args: [(&str, &dyn ToSql); 8] = [
        (":viewer", &viewer),
        (":location", &f.location),
        (":created_by", &f.created_by),
        (":except", &f.except),
        (":now", &now),
        (":from", &from),
        (":to", &to),
        (":past", &past),
    ];
    // 2: the stale keys, recomputed, each to its place
    let mut stale: Vec<Place> = Vec::new();
    let mut st = conn.prepare_cached(&stale_sql(&cond))?;
    bind(&mut st, &args)?;
    let mut rows = st.raw_query();
    while let Some(r) = rows.next()? {
        let s = schedule(r.get(1)?, r.get(2)?, &r.get::<_, String>(3)?, r.get(4)?);
        if passes(&s) {
            let k = key(&s, now);
            stale.push(if k.over {
                (true, -s.end, r.get(0)?)
            } else {
                (false, k.next_start, r.get(0)?)
            });
        }
    }
    drop(rows);
    stale.sort_unstable();
    let mut extra = stale.into_iter().peekable();
    let skip = usize::try_from(offset).unwrap_or(usize::MAX);
    let want = usize::try_from(limit).unwrap_or(0);
    let mut seen = 0usize;
    let mut ids = Vec::new();
    // what the merge emits in order; false once the page and one more are seen
    let mut emit = |id: i64| {
        seen += 1;
        if seen > skip && ids.len() < want {
            ids.push(id);
        }
        seen <= skip.saturating_add(want)
    };
    // 1: the fresh keys to come, merged with the recomputed ones to come; for a range
    // reaching back before now, then the recurring events whose next occurrence is past
    // the range but whose previous one ended in it (all after the first walk's rows)
    let mut walks = vec![upcoming_sql(&cond)];
    if from.is_some_and(|f| f < now) && to.is_some() {
        walks.push(earlier_sql(&cond));
    }
    let mut more = true;
    'upcoming: for sql in &walks {
        let mut st = conn.prepare_cached(sql)?;
        bind(&mut st, &args)?;
        let mut rows = st.raw_query();
        while let Some(r) = rows.next()? {
            let place: Place = (false, r.get(1)?, r.get(0)?);
            while let Some(x) = extra.next_if(|x| *x < place) {
                if !emit(x.2) {
                    more = false;
                    break 'upcoming;
                }
            }
            if f.date.is_some() {
                let s = schedule(r.get(2)?, r.get(3)?, &r.get::<_, String>(5)?, r.get(4)?);
                if !passes(&s) {
                    continue;
                }
            }
            if !emit(place.2) {
                more = false;
                break 'upcoming;
            }
        }
    }
    // 3: the events that are over, merged with the recomputed ones that are
    if more {
        let mut st = conn.prepare_cached(&over_sql(&cond))?;
        bind(&mut st, &args)?;
        let mut rows = st.raw_query();
        'over: while let Some(r) = rows.next()? {
            let place: Place = (true, -r.get::<_, Timestamp>(1)?, r.get(0)?);
            while let Some(x) = extra.next_if(|x| *x < place) {
                if !emit(x.2) {
                    more = false;
                    break 'over;
                }
            }
            if !emit(place.2) {
                more = false;
                break;
            }
        }
    }
    if more {
        for x in extra {
            if !emit(x.2) {
                more = false;
                break;
            }
        }
    }
    let count = if more { seen } else { skip.saturating_add(want).saturating_add(1) };
    Ok((i64::try_from(count).unwrap_or(i64::MAX), ids))
}

#[cfg(test)]
mod tests;

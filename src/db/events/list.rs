//! The lists of events (the search, a user's events, the suggestions), in one order:
//! events under way or to come first, the soonest next occurrence first (one under way
//! counts by its start); then the events that are over (only single events can be),
//! the latest end first; ties by id. The next occurrence depends on each event's
//! recurrence in its own zone (model::event_time).
//!
//! Two ways to a page ([`page`]):
//! - every event the viewer may list, or the suggestions, without a text: the order
//!   kept on the rows ([`super::order`]), a page reading about offset + limit rows, its
//!   count exact only when the list ends on the page (else `offset + limit + 1`);
//! - a member's events, a creator's (`event_creator`; the related events), or a text's
//!   matches (`search_event`, a trigram index: 3 characters or more; a shorter text
//!   still tests every event with LIKE): those events
//!   read whole ([`scan`]), narrowed in SQL by location, creator, membership and follows,
//!   then the date filter and the order computed here in Rust, and a page of ids with
//!   an exact count.

use jiff::tz::TimeZone;
use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::model::event::Recurrence;
use crate::model::event_time::{Schedule, zone};

pub use super::filters::{Filters, Scope};

/// A row of the walk: id and times.
type Row = (i64, Timestamp, Timestamp, String, Recurrence);

/// The fewest characters a text search finds through `search_event` (its trigrams).
const TRIGRAM: usize = 3;

/// One page of the ids of the events `viewer` may list in `scope` that pass
/// `filters` at `now`, in the lists' order, and how many pass: for every event
/// ([`Scope::All`]) and the suggestions without a text or a creator, the kept order's walk
/// ([`super::order::walk`]: O(page), a lower-bound count past the page); else the
/// events found (a member's, or a text's matches) ordered here, counted exactly.
pub fn page(
    conn: &Connection,
    viewer: Option<i64>,
    scope: &Scope,
    filters: &Filters,
    now: Timestamp,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let walk = filters.text.is_none() && filters.created_by.is_none();
    if walk && matches!(scope, Scope::All | Scope::NotIn) {
        return super::order::walk(conn, viewer, scope, filters, now, limit, offset);
    }
    scan(conn, viewer, scope, filters, now, limit, offset)
}

/// [`page`] by reading every event found and ordering them here.
pub(super) fn scan(
    conn: &Connection,
    viewer: Option<i64>,
    scope: &Scope,
    filters: &Filters,
    now: Timestamp,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    // a text of 3 characters or more: its matches in `search_event` (an FTS5 phrase:
    // a substring, case-insensitively); a shorter one: LIKE on every event
    let trigrams = filters.text.as_ref().is_some_and(|t| t.chars().count() >= TRIGRAM);
    let pattern = filters.text.as_ref().map(|t| {
        if trigrams {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            format!(
                "%{}%",
                t.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
            )
        }
    });
    // a creator's events through `event_creator`
    let creator = if filters.created_by.is_some() { "e.created_by = ?4" } else { "?4 IS NULL" };
    let text = if trigrams {
        "e.id IN (SELECT rowid FROM search_event WHERE search_event MATCH ?2)"
    } else {
        "(?2 IS NULL OR lower(e.name) LIKE ?2 ESCAPE '\\'
                       OR lower(e.description) LIKE ?2 ESCAPE '\\')"
    };
    let (join, user, statuses, going) = match scope {
        Scope::MemberOf { user, statuses, going } => (
            "JOIN event_member um INDEXED BY event_member_user ON um.user_id = ?6 AND um.event_id = e.id
               AND um.join_status IN (SELECT value FROM json_each(?7))",
            Some(*user),
            serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into()),
            *going,
        ),
        _ => ("", None, "[]".to_owned(), None),
    };
    // `um` exists only with a membership scope (every parameter is named either way)
    let answer = if user.is_some() {
        "(?5 IS NULL OR um.going = ?5)"
    } else {
        "(?5 IS NULL AND ?6 IS NULL AND ?7 IS NOT NULL)"
    };
    let not_in = if *scope == Scope::NotIn {
        "AND NOT EXISTS (SELECT 1 FROM event_member sm WHERE sm.event_id = e.id AND sm.user_id = ?1)"
    } else {
        ""
    };
    let follows = if filters.follows {
        "AND EXISTS (SELECT 1 FROM follow f JOIN event_member fm ON fm.user_id = f.followed
               WHERE f.follower = ?1 AND fm.event_id = e.id
                 AND fm.join_status IN ('creator', 'manager', 'joined'))"
    } else {
        ""
    };
    let sql = format!(
        "SELECT e.id, e.start_at, e.end_at, e.timezone, e.recurring FROM event e {join}
         WHERE {} AND {text}
           AND (?3 IS NULL OR e.location = ?3) AND {creator}
           AND (?8 IS NULL OR e.id <> ?8) AND {answer} {not_in} {follows}",
        super::listed(1)
    );
    let rows: Vec<Row> = conn
        .prepare_cached(&sql)?
        .query_map(
            params![
                viewer,
                pattern,
                filters.location,
                filters.created_by,
                going,
                user,
                statuses,
                filters.except
            ],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?
        .collect::<Result<_, _>>()?;
    let mut kept: Vec<((bool, i64), i64)> = rows
        .into_iter()
        .filter_map(|(id, start, end, tz, recurring)| {
            let s = Schedule { start, end, zone: zone(&tz).unwrap_or(TimeZone::UTC), recurring };
            if filters.date.is_some_and(|d| !d.matches(&s, now, &filters.zone)) {
                return None;
            }
            let key = match s.first_ending_after(now) {
                Some((next, _)) => (false, next),
                None => (true, -end),
            };
            Some((key, id))
        })
        .collect();
    kept.sort_unstable();
    let count = i64::try_from(kept.len()).unwrap_or(i64::MAX);
    let ids = kept
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(limit).unwrap_or(0))
        .map(|(_, id)| id)
        .collect();
    Ok((count, ids))
}

//! The feeds (SPEC §10): live top-level items (discussions, posts, statuses) by last
//! activity, newest first (ties: the later written first).
//!
//! - explore: every item (but those made in groups or events, which their group's or
//!   event's feed shows);
//! - an author's (a profile's feed) and a category's;
//! - home: the caller's own items and those of the users and categories it follows,
//!   merged ([`merge`]); when they run out, the explore items not already shown follow,
//!   so a page is never short while the community has more to show.
//!
//! Every feed leaves out what the caller may not see, by the rules the lists use:
//! deleted items, the items of authors it hides ([`not_hidden`]), and the items
//! addressed to tags it does not hold ([`addressing_shown`]; explore, an author's and a category's
//! feed hold no group's or event's items, which their own rules cover).
//!
//! Cost: a page walks an index in the feed's order (`contribution_feed`,
//! `contribution_author_feed`, `contribution_category_feed`, version 9), reading its
//! own rows and the offset before them; home reads a few rows from each source it
//! merges. Counts are kept totals (explore, home, a group's, an event's: version 11's
//! `items_counter`) less the hidden authors' items and the addressed items the viewer
//! may not see (a count of the community's addressed items), or a count capped at [`COUNT_CAP`]
//! (an author's, a category's): a page past the cap is refused by the pagination's
//! offset limit anyway.

pub mod activities;
mod merge;
pub mod seen;
pub mod trending;

use rusqlite::{Connection, OptionalExtension, params};

use crate::db::tags::addressing_shown;
use crate::model::contribution::Kind;
use crate::model::feed::Unit;

/// The most items an author's or a category's feed counts.
pub const COUNT_CAP: i64 = 10_000;

/// Which feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// Every live item.
    Explore,
    /// A user's home: theirs, the followed users', the followed categories', then explore.
    Home(i64),
    /// One category's items.
    Category(i64),
    /// One author's items.
    Author(i64),
    /// One group's items (SPEC §10 Groups): who may read it is the caller's question.
    Group(i64),
    /// One event's items (SPEC §10 Events): who may read it is the caller's question.
    Event(i64),
}

/// The SQL condition that item `c`'s author is not one the viewer (parameter `?{n}`)
/// hides (SPEC §8): one definition for the feeds, the search and the suggestions. A
/// null viewer hides nobody.
pub fn not_hidden(n: u8) -> String {
    format!("c.author_id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?{n})")
}

/// One page of a feed as `viewer` sees it: the pks of its items, in order, and how
/// many items the feed has.
pub fn page(
    conn: &Connection,
    feed: Feed,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    match feed {
        Feed::Explore => {
            let pks = conn
                .prepare_cached(sql!("{}", explore_sql()))?
                .query_map(params![viewer, limit, offset], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok((explore_count(conn, viewer)?, pks))
        }
        Feed::Home(user) => {
            let pks = merge::home(conn, user, limit, offset)?;
            Ok((explore_count(conn, Some(user))?, pks))
        }
        Feed::Author(key) | Feed::Category(key) | Feed::Group(key) | Feed::Event(key) => {
            let (from, pk, order) = match feed {
                Feed::Author(_) => author_sql(),
                Feed::Category(_) => category_sql(),
                Feed::Group(_) => group_sql(),
                _ => event_sql(),
            };
            let pks = conn
                .prepare_cached(&format!("SELECT {pk} {from} ORDER BY {order} LIMIT ?3 OFFSET ?4"))?
                .query_map(params![viewer, key, limit, offset], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let count = match feed {
                Feed::Group(_) => space_count(conn, Space::Group, key, viewer)?,
                Feed::Event(_) => space_count(conn, Space::Event, key, viewer)?,
                _ => conn
                    .prepare_cached(&format!(
                        "SELECT count(*) FROM (SELECT 1 {from} LIMIT {COUNT_CAP})"
                    ))?
                    .query_row(params![viewer, key], |r| r.get(0))?,
            };
            Ok((count, pks))
        }
    }
}

/// Explore's page (`?1` the viewer, `?2` the limit, `?3` the offset).
fn explore_sql() -> String {
    format!(
        "SELECT c.pk FROM contribution c INDEXED BY contribution_feed
         WHERE c.target_pk IS NULL AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
           AND {} AND {}
         ORDER BY c.last_activity_at DESC, c.pk DESC LIMIT ?2 OFFSET ?3",
        not_hidden(1),
        addressing_shown(1)
    )
}

/// An author's feed (`?1` the viewer, `?2` the author): its `FROM`, its pk column, its order.
fn author_sql() -> (&'static str, &'static str, &'static str) {
    let from = sql!(
        "FROM contribution c INDEXED BY contribution_author_feed
         WHERE c.author_id = ?2 AND c.target_pk IS NULL AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
           AND {} AND {}",
        not_hidden(1),
        addressing_shown(1)
    );
    (from, "c.pk", "c.last_activity_at DESC, c.pk DESC")
}

/// A category's feed (`?2` the category): its `FROM`, its pk column, its order.
fn category_sql() -> (&'static str, &'static str, &'static str) {
    let from = sql!(
        "FROM contribution_category cc INDEXED BY contribution_category_feed
         JOIN contribution c ON c.pk = cc.contribution_pk
         WHERE cc.category_id = ?2 AND c.target_pk IS NULL AND c.deleted = 0
           AND c.group_id IS NULL AND c.event_id IS NULL AND {} AND {}",
        not_hidden(1),
        addressing_shown(1)
    );
    (from, "cc.contribution_pk", "cc.last_activity_at DESC, cc.contribution_pk DESC")
}

/// A group's feed (`?2` the group): its `FROM`, its pk column, its order.
fn group_sql() -> (&'static str, &'static str, &'static str) {
    let from = sql!(
        "FROM contribution c INDEXED BY contribution_group_feed
         WHERE c.group_id = ?2 AND c.target_pk IS NULL AND c.deleted = 0 AND {}",
        not_hidden(1)
    );
    (from, "c.pk", "c.last_activity_at DESC, c.pk DESC")
}

/// An event's feed (`?2` the event): its `FROM`, its pk column, its order.
fn event_sql() -> (&'static str, &'static str, &'static str) {
    let from = sql!(
        "FROM contribution c INDEXED BY contribution_event_feed
         WHERE c.event_id = ?2 AND c.target_pk IS NULL AND c.deleted = 0 AND {}",
        not_hidden(1)
    );
    (from, "c.pk", "c.last_activity_at DESC, c.pk DESC")
}

/// A group or an event, whose feed count is kept on its row.
#[derive(Debug, Clone, Copy)]
enum Space {
    Group,
    Event,
}

/// How many items the feed of group or event `id` shows `viewer`: its kept
/// `items_counter` (version 11), less the live items there of the authors it hides
/// (counted from their own rows, as [`explore_count`] does).
fn space_count(
    conn: &Connection,
    space: Space,
    id: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<i64> {
    let (kept, hidden) = match space {
        Space::Group => (
            "SELECT items_counter FROM community_group WHERE id = ?1",
            "SELECT count(*) FROM user_hide h
             JOIN contribution c INDEXED BY contribution_author_feed
               ON c.author_id = h.hidden_id AND c.target_pk IS NULL AND c.deleted = 0
             WHERE h.user_id = ?1 AND c.group_id = ?2",
        ),
        Space::Event => (
            "SELECT items_counter FROM event WHERE id = ?1",
            "SELECT count(*) FROM user_hide h
             JOIN contribution c INDEXED BY contribution_author_feed
               ON c.author_id = h.hidden_id AND c.target_pk IS NULL AND c.deleted = 0
             WHERE h.user_id = ?1 AND c.event_id = ?2",
        ),
    };
    let total: i64 =
        conn.prepare_cached(kept)?.query_row([id], |r| r.get(0)).optional()?.unwrap_or(0);
    let hidden: i64 = match viewer {
        None => 0,
        Some(v) => conn.prepare_cached(hidden)?.query_row([v, id], |r| r.get(0))?,
    };
    Ok(total - hidden)
}

/// How many live items explore shows `viewer`: the kept totals of the three kinds,
/// less the live items of the authors it hides (counted from their own rows) and the
/// items addressed to tags it may not see ([`crate::db::tags::unseen_addressed`]).
pub fn explore_count(conn: &Connection, viewer: Option<i64>) -> rusqlite::Result<i64> {
    let mut total = 0;
    for kind in Kind::TARGETS {
        total += super::contribution_tally::live(conn, kind)?
            - super::contribution_tally::in_spaces(conn, kind)?;
    }
    let hidden: i64 = match viewer {
        None => 0,
        Some(v) => conn
            .prepare_cached(
                "SELECT count(*) FROM user_hide h
                 JOIN contribution c INDEXED BY contribution_author_feed
                   ON c.author_id = h.hidden_id AND c.target_pk IS NULL AND c.deleted = 0
                 WHERE h.user_id = ?1 AND c.group_id IS NULL AND c.event_id IS NULL",
            )?
            .query_row([v], |r| r.get(0))?,
    };
    Ok(total - hidden - crate::db::tags::unseen_addressed(conn, viewer, None)?)
}

/// The units of a page of items (pks in order) as `viewer` sees them: each item with
/// whether the viewer has seen it since its last activity, and its activities.
pub fn units(conn: &Connection, pks: &[i64], viewer: Option<i64>) -> rusqlite::Result<Vec<Unit>> {
    let items = super::contributions::by_pks(conn, pks, viewer)?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let seen = match viewer {
            Some(v) => seen::is_seen(conn, v, item.pk)?,
            None => false,
        };
        let activities = activities::of_item(conn, item.pk, viewer)?;
        out.push(Unit { item, seen, activities });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

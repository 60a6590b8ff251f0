//! Where an item (a discussion or a post, and the comments on it) was made: in a group,
//! in an event, or in neither (SPEC §10). Each space has its own rule for who sees its
//! items ([`super::groups::item_shown`], [`super::events::item_shown`]); this file
//! joins them once, for every read that shows items: detail, votes, comments, feeds,
//! search and notifications.

use rusqlite::{Connection, params};

/// The SQL condition that item `c` (a contribution row) is one viewer `?{n}` may see as
/// far as its group and its event go.
pub fn item_shown(n: u8) -> String {
    format!("({} AND {})", super::groups::item_shown(n), super::events::item_shown(n))
}

/// [`item_shown`] for one item: whether `viewer` may see an item made in `group` or
/// `event` (always, for an item in neither).
pub fn shows_item(
    conn: &Connection,
    group: Option<i64>,
    event: Option<i64>,
    viewer: Option<i64>,
) -> rusqlite::Result<bool> {
    if group.is_none() && event.is_none() {
        return Ok(true);
    }
    conn.prepare_cached(sql!(
        "SELECT {} FROM (SELECT ?2 AS group_id, ?3 AS event_id) c",
        item_shown(1)
    ))?
    .query_row(params![viewer, group, event], |r| r.get(0))
}

//! Where an item (a discussion or a post, and the comments on it) was made and whom it
//! was addressed to: in a group, in an event, or in neither (SPEC §10), and to tags or
//! to no one in particular. Each has its own rule for who sees the item
//! ([`super::groups::item_shown`], [`super::events::item_shown`],
//! [`super::tags::addressing_shown`]); this file joins them once, for every read that
//! shows items: detail, votes, comments, feeds, search and notifications.

use rusqlite::{Connection, OptionalExtension, params};

/// The SQL condition that item `c` (a contribution row) is one viewer `?{n}` may see
/// as far as its group, its event and its addressing go.
pub fn item_shown(n: u8) -> String {
    format!(
        "({} AND {} AND {})",
        super::groups::item_shown(n),
        super::events::item_shown(n),
        super::tags::addressing_shown(n)
    )
}

/// [`item_shown`] for one row: whether `viewer` may see contribution `pk` (a comment
/// answers for its item); an unknown pk is not shown.
pub fn shows_item(conn: &Connection, pk: i64, viewer: Option<i64>) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached(sql!("SELECT {} FROM contribution c WHERE c.pk = ?2", item_shown(1)))?
        .query_row(params![viewer, pk], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

//! Related items (SPEC §10, `GET /api/v2/{type}/{id}/related/`, the kit's "related"
//! widget on a post's page): the live discussions, posts and statuses that share a
//! category with an item, newest first, at most [`RELATED_MAX`] of them.
//!
//! Each of the item's categories gives its newest [`RELATED_MAX`] other live items
//! (a walk of `contribution_category_items` from its newest end), merged and
//! deduplicated here: the cost is the item's categories times the cap, whatever the
//! community's size. An item without categories has no related items.

use rusqlite::{Connection, params};

use super::contributions::{complete, from_row, select, viewer_sql};
use crate::model::contribution::Contribution;

/// The most related items an item has.
pub const RELATED_MAX: usize = 50;

/// How many of an item's categories are looked at (an item may have many).
const CATEGORIES_MAX: usize = 10;

/// All of an item's related items (at most [`RELATED_MAX`]) as `viewer` sees them
/// (without the items of authors it hides, nor the addressed items it may not see),
/// newest first.
pub fn related(
    conn: &Connection,
    pk: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Vec<Contribution>> {
    let categories: Vec<i64> = conn
        .prepare_cached("SELECT category_id FROM contribution_category WHERE contribution_pk = ?1 ORDER BY category_id LIMIT ?2")?
        .query_map(params![pk, CATEGORIES_MAX as i64], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let (hidden, who) = viewer_sql(conn, viewer, true)?;
    let mut stmt = conn.prepare_cached(&format!(
        "{} JOIN contribution_category cc ON cc.contribution_pk = c.pk
         WHERE cc.category_id = ?1 AND c.pk <> ?2 AND c.kind <> 'comment' AND c.deleted = 0
           AND c.group_id IS NULL AND c.event_id IS NULL {hidden}
         ORDER BY cc.contribution_pk DESC LIMIT ?3",
        select()
    ))?;
    let mut found: Vec<Contribution> = Vec::new();
    for cat in categories {
        // (?4 is not used: ?5 is the viewer of the hidden-authors clause)
        let rows =
            stmt.query_map(params![cat, pk, RELATED_MAX as i64, None::<i64>, who], from_row)?;
        for c in rows {
            let c = c?;
            if !found.iter().any(|f| f.pk == c.pk) {
                found.push(c);
            }
        }
    }
    // newest first across categories (ties: the later written)
    found.sort_by_key(|c| std::cmp::Reverse((c.added_at, c.pk)));
    found.truncate(RELATED_MAX);
    Ok(found)
}

/// Completes the items of a page of [`related`] for `viewer`.
pub fn complete_all(
    conn: &Connection,
    items: &mut [Contribution],
    viewer: Option<i64>,
) -> rusqlite::Result<()> {
    for c in items {
        complete(conn, c, viewer)?;
    }
    Ok(())
}

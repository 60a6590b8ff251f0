//! A feed unit's `activities` (SPEC §10, `SCFeedUnitActivityType`): the newest
//! comments and votes on an item, newest first, at most [`MAX`] (what the kit's
//! "relevant activities" shows before "show others"). Left out, as everywhere: deleted
//! comments, deleted users, and what the authors the viewer hides did. Follows of an
//! item and poll votes are not shown as activities (their counts are on the item).

use rusqlite::{Connection, params};

use crate::model::feed::{Activity, What};

/// The most activities a unit carries.
pub const MAX: usize = 5;

/// The activities of item `pk` as `viewer` sees them, newest first.
pub fn of_item(conn: &Connection, pk: i64, viewer: Option<i64>) -> rusqlite::Result<Vec<Activity>> {
    let take = MAX as i64;
    let comments: Vec<i64> = conn
        .prepare_cached(sql!(
            "SELECT c.pk FROM contribution c JOIN user u ON u.id = c.author_id
             WHERE c.target_pk = ?1 AND c.deleted = 0 AND u.deleted = 0 AND {}
             ORDER BY c.added_at DESC LIMIT ?3",
            super::not_hidden(2)
        ))?
        .query_map(params![pk, viewer, take], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut out: Vec<Activity> = super::super::contributions::by_pks(conn, &comments, viewer)?
        .into_iter()
        .map(|c| Activity {
            author: c.author.clone(),
            at: c.added_at,
            what: What::Comment(Box::new(c)),
        })
        .collect();
    let votes = conn
        .prepare_cached(sql!(
            "SELECT v.voted_at, {} FROM vote v INDEXED BY vote_newest JOIN user u ON u.id = v.user_id
             WHERE v.contribution_pk = ?1 AND u.deleted = 0
               AND v.user_id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?2)
             ORDER BY v.voted_at DESC LIMIT ?3",
            crate::db::users::qualified(crate::db::users::BRIEF, "u")
        ))?
        .query_map(params![pk, viewer, take], |r| {
            Ok(Activity { what: What::Vote, at: r.get(0)?, author: crate::db::users::brief_at(r, 1)? })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    out.extend(votes);
    out.sort_by_key(|a| std::cmp::Reverse(a.at));
    out.truncate(MAX);
    Ok(out)
}

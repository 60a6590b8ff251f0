//! Writers for the records SPEC §8 added to the import format: `vote` and
//! `category_follow`. Their counters (vote tallies, `categories_counter`, a category's
//! `followers_counter`) are queued in the batch's deltas like the others.

use rusqlite::{Connection, params};

use super::{Deltas, Known, LineError, content, sql_err};
use crate::clock::Timestamp;
use crate::model::import::{CategoryFollowLine, VoteLine};

/// A vote line: the item must exist (deleted or not: a vote on it is history), the
/// reaction too (active or not), and the user may not have voted it already.
pub(super) fn vote(
    conn: &Connection,
    known: &Known,
    deltas: &mut Deltas,
    v: VoteLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let (kind, id) = v.target()?;
    known.user(v.user, "user")?;
    let pk =
        content::pk_of(conn, kind, id)?.ok_or_else(|| format!("{kind} {id} does not exist"))?;
    let reaction_exists =
        crate::db::reactions::get(conn, v.reaction).map_err(|e| sql_err("vote", &e))?.is_some();
    if !reaction_exists {
        return Err(format!("reaction {} does not exist", v.reaction));
    }
    conn.prepare_cached(
        "INSERT INTO vote (contribution_pk, user_id, reaction_id, voted_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![pk, v.user, v.reaction, v.voted_at.unwrap_or(now)]))
    .map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("user {} already voted {kind} {id}", v.user)
        } else {
            sql_err("vote", &e)
        }
    })?;
    if !known.deleted_users.contains(&v.user) {
        *deltas.tallies.entry((pk, v.reaction)).or_default() += 1;
    }
    Ok(())
}

/// A category follow line: user and category must exist, the follow must be new.
pub(super) fn category_follow(
    conn: &Connection,
    known: &Known,
    deltas: &mut Deltas,
    f: CategoryFollowLine,
    now: Timestamp,
) -> Result<(), LineError> {
    known.user(f.user, "user")?;
    if !known.categories.contains(&f.category) {
        return Err(format!("category {} does not exist", f.category));
    }
    conn.prepare_cached(
        "INSERT INTO category_follow (user_id, category_id, created_at) VALUES (?1, ?2, ?3)",
    )
    .and_then(|mut s| s.execute(params![f.user, f.category, f.created_at.unwrap_or(now)]))
    .map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("user {} already follows category {}", f.user, f.category)
        } else {
            sql_err("category_follow", &e)
        }
    })?;
    deltas.user(f.user).categories += 1;
    if !known.deleted_users.contains(&f.user) {
        *deltas.category_followers.entry(f.category).or_default() += 1;
    }
    Ok(())
}

/// Applies the batch's vote tallies and category followers, in key order.
pub(super) fn apply(conn: &Connection, d: &mut Deltas) -> rusqlite::Result<()> {
    let mut tallies: Vec<((i64, i64), i64)> = std::mem::take(&mut d.tallies).into_iter().collect();
    tallies.sort_unstable();
    let mut stmt = conn.prepare_cached(
        "INSERT INTO vote_tally (contribution_pk, reaction_id, n) VALUES (?1, ?2, ?3)
         ON CONFLICT (contribution_pk, reaction_id) DO UPDATE SET n = n + excluded.n",
    )?;
    for ((pk, reaction), n) in tallies {
        stmt.execute([pk, reaction, n])?;
    }
    let mut followers: Vec<(i64, i64)> =
        std::mem::take(&mut d.category_followers).into_iter().collect();
    followers.sort_unstable();
    for (id, n) in followers {
        crate::db::users::add_to(conn, crate::db::users::Counter::CategoryFollowers, id, n)?;
    }
    Ok(())
}

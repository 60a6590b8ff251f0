//! Votes (SPEC §8): one reaction per user and contribution, toggled or replaced, and
//! the tallies a contribution's `vote_count` and `reactions_count` are read from. Every
//! change keeps `vote_tally` exact in the caller's transaction (`hearth check`
//! recomputes it): it counts the votes of live users, so deleting a user takes its
//! votes out (`db::users::soft_delete`).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::db::reactions;
use crate::model::reaction::Reaction;
use crate::model::user::User;
use crate::model::vote::Votes;

/// What a vote call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Voted {
    /// The caller had not voted: the vote is added.
    Added,
    /// The caller had voted with this reaction: the vote is removed.
    Removed,
    /// The caller had voted with another reaction: it is replaced.
    Replaced,
}

/// The reaction `user` voted `pk` with, if any.
pub fn reaction_of(conn: &Connection, pk: i64, user: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT reaction_id FROM vote WHERE contribution_pk = ?1 AND user_id = ?2")?
        .query_row([pk, user], |r| r.get(0))
        .optional()
}

fn tally(conn: &Connection, pk: i64, reaction: i64, delta: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO vote_tally (contribution_pk, reaction_id, n) VALUES (?1, ?2, ?3)
         ON CONFLICT (contribution_pk, reaction_id) DO UPDATE SET n = n + excluded.n",
    )?
    .execute([pk, reaction, delta])?;
    Ok(())
}

/// `user` (live) votes contribution `pk` with `reaction` (which exists): adds the
/// vote, removes it when it has that reaction already, replaces another reaction.
/// Run inside a write transaction.
pub fn toggle(
    conn: &Connection,
    pk: i64,
    user: i64,
    reaction: i64,
    now: Timestamp,
) -> rusqlite::Result<Voted> {
    let outcome = match reaction_of(conn, pk, user)? {
        None => {
            conn.prepare_cached(
                "INSERT INTO vote (contribution_pk, user_id, reaction_id, voted_at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![pk, user, reaction, now])?;
            tally(conn, pk, reaction, 1)?;
            Voted::Added
        }
        Some(had) if had == reaction => {
            conn.prepare_cached("DELETE FROM vote WHERE contribution_pk = ?1 AND user_id = ?2")?
                .execute([pk, user])?;
            tally(conn, pk, reaction, -1)?;
            Voted::Removed
        }
        Some(had) => {
            conn.prepare_cached(
                "UPDATE vote SET reaction_id = ?3, voted_at = ?4 WHERE contribution_pk = ?1 AND user_id = ?2",
            )?
            .execute(params![pk, user, reaction, now])?;
            tally(conn, pk, had, -1)?;
            tally(conn, pk, reaction, 1)?;
            Voted::Replaced
        }
    };
    notify_vote(conn, pk, user, outcome, now)?;
    Ok(outcome)
}

/// What contribution `pk` shows of its votes to `viewer`: the tally by reaction (count
/// descending, then reaction id; only reactions with votes) and the viewer's reaction.
pub fn votes_of(conn: &Connection, pk: i64, viewer: Option<i64>) -> rusqlite::Result<Votes> {
    let cols = crate::db::users::qualified(reactions::COLUMNS, "r");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {cols}, t.n FROM vote_tally t JOIN reaction r ON r.id = t.reaction_id
         WHERE t.contribution_pk = ?1 AND t.n > 0 ORDER BY t.n DESC, r.id"
    ))?;
    let tally = stmt
        .query_map([pk], |r| Ok((reactions::from_row(r)?, r.get(5)?)))?
        .collect::<Result<Vec<(Reaction, i64)>, _>>()?;
    let mine = match viewer {
        None => None,
        Some(v) => conn
            .prepare_cached(&format!(
                "SELECT {cols} FROM vote v JOIN reaction r ON r.id = v.reaction_id
                 WHERE v.contribution_pk = ?1 AND v.user_id = ?2"
            ))?
            .query_row([pk, v], reactions::from_row)
            .optional()?,
    };
    Ok(Votes { tally, mine })
}

/// How many live users voted `pk` (with `reaction`, when given): the count of
/// [`page`]'s list.
pub fn count(conn: &Connection, pk: i64, reaction: Option<i64>) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT COALESCE(sum(n), 0) FROM vote_tally
         WHERE contribution_pk = ?1 AND (?2 IS NULL OR reaction_id = ?2)",
    )?
    .query_row(params![pk, reaction], |r| r.get(0))
}

/// One page of the votes of live users on `pk` (only those with `reaction`, when
/// given), newest first, ties by user id: (user, reaction, voted_at). Each shape walks
/// its own index (`vote_newest`, `vote_reaction`), so neither sorts.
pub fn page(
    conn: &Connection,
    pk: i64,
    reaction: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<(User, Reaction, Timestamp)>> {
    let (rcols, ucols) =
        (crate::db::users::qualified(reactions::COLUMNS, "r"), crate::db::users::columns_as("u"));
    let filter = if reaction.is_some() { "AND v.reaction_id = ?4" } else { "AND ?4 IS NULL" };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {rcols}, {ucols}, v.voted_at FROM vote v
         JOIN user u ON u.id = v.user_id JOIN reaction r ON r.id = v.reaction_id
         WHERE v.contribution_pk = ?1 AND u.deleted = 0 {filter}
         ORDER BY v.voted_at DESC, v.user_id LIMIT ?2 OFFSET ?3"
    ))?;
    let n = crate::db::users::COLUMNS.split(", ").count();
    let rows = stmt.query_map(params![pk, limit, offset, reaction], |r| {
        Ok((crate::db::users::from_row_at(r, 5)?, reactions::from_row(r)?, r.get(5 + n)?))
    })?;
    rows.collect()
}

/// A vote notifies the author of what was voted (`vote_up`); taking it back takes the
/// notification out (SPEC §10).
fn notify_vote(
    conn: &Connection,
    pk: i64,
    user: i64,
    outcome: Voted,
    now: Timestamp,
) -> rusqlite::Result<()> {
    use super::notifications::{Cause, Type, forget, notify};
    let (author, target): (i64, Option<i64>) = conn
        .prepare_cached("SELECT author_id, target_pk FROM contribution WHERE pk = ?1")?
        .query_row([pk], |r| Ok((r.get(0)?, r.get(1)?)))?;
    // an item's vote is about the item; a comment's about the comment on its item
    let (item, comment) = match target {
        Some(item) => (Some(item), Some(pk)),
        None => (Some(pk), None),
    };
    let cause =
        Cause { user: author, actor: user, kind: Type::VoteUp, item_pk: item, comment_pk: comment };
    match outcome {
        Voted::Added => notify(conn, cause, now),
        Voted::Removed => forget(conn, cause),
        Voted::Replaced => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    fn db() -> Connection {
        let conn = crate::db::migrate::test_db();
        conn.execute_batch(
            "INSERT INTO reaction (id, label, label_key, sentiment) VALUES (1, 'like', 'like', 1), (2, 'love', 'love', 1);
             INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'a', 'a', 0), (2, 'b', 'b', 0);
             INSERT INTO contribution (pk, kind, id, author_id, added_at) VALUES (1, 'post', 1, 1, 0);",
        )
        .unwrap();
        conn
    }

    #[test]
    fn add_replace_remove_keep_the_tally() {
        let c = db();
        assert_eq!(toggle(&c, 1, 1, 1, 10).unwrap(), Voted::Added);
        assert_eq!(toggle(&c, 1, 2, 1, 11).unwrap(), Voted::Added);
        let v = votes_of(&c, 1, Some(1)).unwrap();
        assert_eq!(v.count(), 2);
        assert_eq!(v.mine.map(|r| r.id), Some(1));
        assert_eq!(toggle(&c, 1, 1, 2, 12).unwrap(), Voted::Replaced);
        let v = votes_of(&c, 1, Some(1)).unwrap();
        let tally: Vec<(i64, i64)> = v.tally.iter().map(|(r, n)| (r.id, *n)).collect();
        assert_eq!(tally, [(1, 1), (2, 1)], "ties by reaction id");
        assert_eq!(v.mine.map(|r| r.id), Some(2));
        assert_eq!(toggle(&c, 1, 1, 2, 13).unwrap(), Voted::Removed);
        assert_eq!(count(&c, 1, None).unwrap(), 1);
        assert_eq!(count(&c, 1, Some(2)).unwrap(), 0);
        assert_eq!(votes_of(&c, 1, Some(1)).unwrap().mine, None);
        assert_eq!(votes_of(&c, 1, None).unwrap().tally.len(), 1, "empty tallies are not shown");
        let p = page(&c, 1, None, 10, 0).unwrap();
        assert_eq!(p.iter().map(|(u, r, at)| (u.id, r.id, *at)).collect::<Vec<_>>(), [(2, 1, 11)]);
        assert!(page(&c, 1, Some(2), 10, 0).unwrap().is_empty());
        assert!(crate::db::check::problems(&c).unwrap().iter().all(|p| p.check != "vote_tally"));
    }
}

//! Polls (tables `poll`, `poll_choice`, `poll_vote`; SPEC §10 People): made with their
//! discussion or post, read with it, voted by members. `vote_count` and the authors'
//! `polls_counter` are kept by the schema's triggers; `hearth check` recounts both.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::{Timestamp, rfc3339};
use crate::model::poll::{ChoiceJson, PollInput, PollJson};

/// Stores the poll of item `pk` (in the item's own transaction).
pub fn insert(conn: &Connection, pk: i64, p: &PollInput, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO poll (contribution_pk, title, multiple_choices, expiration_at, added_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![pk, p.title, p.multiple_choices, p.expiration_at, now])?;
    let mut choice = conn.prepare_cached(
        "INSERT INTO poll_choice (contribution_pk, position, choice, added_at) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (i, c) in p.choices.iter().enumerate() {
        choice.execute(params![pk, i64::try_from(i).unwrap_or(i64::MAX), c, now])?;
    }
    Ok(())
}

/// The poll of item `pk` as `viewer` sees it (its choices marked `voted`), or None.
pub fn of(conn: &Connection, pk: i64, viewer: Option<i64>) -> rusqlite::Result<Option<PollJson>> {
    let head = conn
        .prepare_cached(
            "SELECT title, multiple_choices, expiration_at, closed, added_at FROM poll
             WHERE contribution_pk = ?1",
        )?
        .query_row([pk], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, bool>(1)?,
                r.get::<_, Option<Timestamp>>(2)?,
                r.get::<_, bool>(3)?,
                r.get::<_, Timestamp>(4)?,
            ))
        })
        .optional()?;
    let Some((title, multiple_choices, expiration_at, closed, added_at)) = head else {
        return Ok(None);
    };
    let choices = conn
        .prepare_cached(
            "SELECT c.id, c.choice, c.position, c.added_at, c.vote_count,
                    EXISTS (SELECT 1 FROM poll_vote v WHERE v.choice_id = c.id AND v.user_id = ?2)
             FROM poll_choice c WHERE c.contribution_pk = ?1 ORDER BY c.position",
        )?
        .query_map(params![pk, viewer], |r| {
            Ok(ChoiceJson {
                id: r.get(0)?,
                choice: r.get(1)?,
                order: r.get(2)?,
                added_at: rfc3339(r.get(3)?),
                deleted: false,
                vote_count: r.get(4)?,
                voted: r.get(5)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(PollJson {
        id: pk,
        title,
        multiple_choices,
        added_at: rfc3339(added_at),
        modified_at: rfc3339(added_at),
        closed,
        expiration_at: expiration_at.map(rfc3339),
        hidden: false,
        choices,
    }))
}

/// A poll's state for a vote: (multiple choices, open at `now`), or None without one.
pub fn state(conn: &Connection, pk: i64, now: Timestamp) -> rusqlite::Result<Option<(bool, bool)>> {
    conn.prepare_cached(
        "SELECT multiple_choices, closed = 0 AND (expiration_at IS NULL OR expiration_at > ?2)
         FROM poll WHERE contribution_pk = ?1",
    )?
    .query_row(params![pk, now], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()
}

/// Whether `choice` is one of poll `pk`'s choices.
pub fn has_choice(conn: &Connection, pk: i64, choice: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM poll_choice WHERE id = ?1 AND contribution_pk = ?2")?
        .exists(params![choice, pk])
}

/// Toggles `user`'s vote for `choice` of poll `pk`: taken back when it was there; else
/// cast, and in a single-choice poll the user's other vote goes. Returns whether the
/// user votes `choice` now.
pub fn toggle(
    conn: &Connection,
    pk: i64,
    choice: i64,
    user: i64,
    multiple: bool,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    let taken = conn
        .prepare_cached("DELETE FROM poll_vote WHERE choice_id = ?1 AND user_id = ?2")?
        .execute(params![choice, user])?;
    if taken > 0 {
        return Ok(false);
    }
    if !multiple {
        conn.prepare_cached("DELETE FROM poll_vote WHERE contribution_pk = ?1 AND user_id = ?2")?
            .execute(params![pk, user])?;
    }
    conn.prepare_cached(
        "INSERT INTO poll_vote (choice_id, user_id, contribution_pk, added_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![choice, user, pk, now])?;
    Ok(true)
}

/// One page of poll `pk`'s votes (`choice`: of one choice), the newest first: (choice,
/// user id), and how many there are.
pub fn votes(
    conn: &Connection,
    pk: i64,
    choice: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<(i64, i64)>)> {
    let count = conn
        .prepare_cached(
            "SELECT count(*) FROM poll_vote v JOIN user u ON u.id = v.user_id AND u.deleted = 0
             WHERE v.contribution_pk = ?1 AND (?2 IS NULL OR v.choice_id = ?2)",
        )?
        .query_row(params![pk, choice], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(
            "SELECT v.choice_id, v.user_id FROM poll_vote v JOIN user u ON u.id = v.user_id AND u.deleted = 0
             WHERE v.contribution_pk = ?1 AND (?2 IS NULL OR v.choice_id = ?2)
             ORDER BY v.added_at DESC, v.user_id LIMIT ?3 OFFSET ?4",
        )?
        .query_map(params![pk, choice, limit, offset], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((count, rows))
}

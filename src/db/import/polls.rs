//! Writers for polls (SPEC §2, `model::poll_import`): an item line's `poll` and the
//! `poll_vote` line. `vote_count` and `polls_counter` are kept by the schema's triggers,
//! as for the API's writes.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::model::import::{ImportedPoll, PollVoteLine};

/// Writes the poll of item `pk` (a discussion or post just written), its choices with
/// the ids the line gives.
pub(super) fn poll(
    conn: &Connection,
    pk: i64,
    what: &str,
    p: &ImportedPoll,
    at: Timestamp,
) -> Result<(), LineError> {
    let err = |e: rusqlite::Error| sql_err(&format!("{what}'s poll"), &e);
    conn.prepare_cached(
        "INSERT INTO poll (contribution_pk, title, multiple_choices, expiration_at, closed, added_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| {
        s.execute(params![pk, p.poll.title, p.poll.multiple_choices, p.poll.expiration_at, p.closed, at])
    })
    .map_err(err)?;
    let mut insert = conn
        .prepare_cached(
            "INSERT INTO poll_choice (id, contribution_pk, position, choice, added_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .map_err(err)?;
    for (i, (choice, id)) in p.poll.choices.iter().zip(&p.ids).enumerate() {
        let position = i64::try_from(i).unwrap_or(i64::MAX);
        insert.execute(params![id, pk, position, choice, at]).map_err(|e| {
            if crate::db::is_unique_violation(&e) {
                format!("poll choice {} already exists", id.unwrap_or_default())
            } else {
                err(e)
            }
        })?;
    }
    Ok(())
}

/// A poll vote line: a live member, a choice of an earlier line's poll, not voted yet;
/// in a single-choice poll, the member's only vote.
pub(super) fn poll_vote(
    conn: &Connection,
    known: &Known,
    v: &PollVoteLine,
    now: Timestamp,
) -> Result<(), LineError> {
    known.user(v.user, "user")?;
    if known.deleted_users.contains(&v.user) {
        // erasing a member takes their poll votes out: a deleted member has none
        return Err(format!(
            "user {} is deleted: a deleted member's poll votes are not kept",
            v.user
        ));
    }
    let err = |e: rusqlite::Error| sql_err("poll_vote", &e);
    let (pk, multiple): (i64, bool) = conn
        .prepare_cached(
            "SELECT c.contribution_pk, p.multiple_choices FROM poll_choice c
             JOIN poll p ON p.contribution_pk = c.contribution_pk WHERE c.id = ?1",
        )
        .and_then(|mut s| s.query_row([v.choice], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(err)?
        .ok_or_else(|| format!("poll choice {} does not exist", v.choice))?;
    if !multiple {
        let other: Option<i64> = conn
            .prepare_cached(
                "SELECT choice_id FROM poll_vote WHERE contribution_pk = ?1 AND user_id = ?2",
            )
            .and_then(|mut s| s.query_row(params![pk, v.user], |r| r.get(0)).optional())
            .map_err(err)?;
        if let Some(other) = other.filter(|c| *c != v.choice) {
            return Err(format!(
                "user {} voted choice {other} of this single-choice poll already",
                v.user
            ));
        }
    }
    conn.prepare_cached(
        "INSERT INTO poll_vote (choice_id, user_id, contribution_pk, added_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![v.choice, v.user, pk, v.voted_at.unwrap_or(now)]))
    .map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("user {} voted choice {} already", v.user, v.choice)
        } else {
            err(e)
        }
    })?;
    Ok(())
}

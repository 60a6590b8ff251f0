//! Flags and moderation (SPEC §10 People; `model::flag`): members' flags on
//! contributions, the staff queue of flagged contributions, and the moderators'
//! decisions with the notifications they send the author. Every change runs in the
//! caller's write transaction.

use rusqlite::{Connection, OptionalExtension, params};

use super::contributions::{self, Meta};
use super::notifications::{Cause, Type, notify};
use crate::clock::Timestamp;
use crate::model::flag::{Reason, Status};

/// `user`'s flag on contribution `pk`, if any.
pub fn flag_of(conn: &Connection, pk: i64, user: i64) -> rusqlite::Result<Option<Reason>> {
    let n: Option<i64> = conn
        .prepare_cached("SELECT flag_type FROM flag WHERE contribution_pk = ?1 AND user_id = ?2")?
        .query_row([pk, user], |r| r.get(0))
        .optional()?;
    Ok(n.and_then(Reason::from_number))
}

/// `user` flags contribution `pk` for `reason`; flagging again for the same reason
/// takes the flag back, for another reason changes it. The caller's flag afterwards.
pub fn toggle_flag(
    conn: &Connection,
    pk: i64,
    user: i64,
    reason: Reason,
    now: Timestamp,
) -> rusqlite::Result<Option<Reason>> {
    if flag_of(conn, pk, user)? == Some(reason) {
        conn.prepare_cached("DELETE FROM flag WHERE contribution_pk = ?1 AND user_id = ?2")?
            .execute([pk, user])?;
        return Ok(None);
    }
    conn.prepare_cached(
        "INSERT INTO flag (contribution_pk, user_id, flag_type, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (contribution_pk, user_id) DO UPDATE SET flag_type = excluded.flag_type,
             created_at = excluded.created_at",
    )?
    .execute(params![pk, user, reason.number(), now])?;
    // the staff queue: most recently flagged first
    conn.prepare_cached(
        "INSERT INTO moderation (contribution_pk, last_flagged_at) VALUES (?1, ?2)
         ON CONFLICT (contribution_pk) DO UPDATE SET last_flagged_at = excluded.last_flagged_at",
    )?
    .execute(params![pk, now])?;
    Ok(Some(reason))
}

/// One flag as listed for staff: who, when, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flag {
    pub user_id: i64,
    pub reason: Reason,
    pub at: Timestamp,
}

/// The flags on contribution `pk` (only those for `reason` when given), newest first,
/// by live users: (count, page).
pub fn flags(
    conn: &Connection,
    pk: i64,
    reason: Option<Reason>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Flag>)> {
    let filter = "f.contribution_pk = ?1 AND (?2 IS NULL OR f.flag_type = ?2)
        AND EXISTS (SELECT 1 FROM user u WHERE u.id = f.user_id AND u.deleted = 0)";
    let n = reason.map(Reason::number);
    let count = conn
        .prepare_cached(&format!("SELECT count(*) FROM flag f WHERE {filter}"))?
        .query_row(params![pk, n], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(&format!(
            "SELECT f.user_id, f.flag_type, f.created_at FROM flag f WHERE {filter}
             ORDER BY f.created_at DESC, f.user_id LIMIT ?3 OFFSET ?4"
        ))?
        .query_map(params![pk, n, limit, offset], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Timestamp>(2)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let page = rows
        .into_iter()
        .filter_map(|(user_id, t, at)| {
            Reason::from_number(t).map(|reason| Flag { user_id, reason, at })
        })
        .collect();
    Ok((count, page))
}

/// A contribution's moderation state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub pk: i64,
    pub last_flagged_at: Option<Timestamp>,
    pub status: Status,
    pub reason: Option<Reason>,
    pub moderator: Option<i64>,
    pub moderated_at: Option<Timestamp>,
}

fn state_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<State> {
    let status: String = r.get(2)?;
    let reason: Option<i64> = r.get(3)?;
    Ok(State {
        pk: r.get(0)?,
        last_flagged_at: r.get(1)?,
        status: Status::parse(&status).unwrap_or(Status::Open),
        reason: reason.and_then(Reason::from_number),
        moderator: r.get(4)?,
        moderated_at: r.get(5)?,
    })
}

const STATE: &str = "SELECT contribution_pk, last_flagged_at, status, flag_type, moderator_id, moderated_at FROM moderation";

/// Contribution `pk`'s state (open, with nothing, when it was never flagged or
/// moderated).
pub fn state(conn: &Connection, pk: i64) -> rusqlite::Result<State> {
    let found = conn
        .prepare_cached(&format!("{STATE} WHERE contribution_pk = ?1"))?
        .query_row([pk], state_row)
        .optional()?;
    Ok(found.unwrap_or(State {
        pk,
        last_flagged_at: None,
        status: Status::Open,
        reason: None,
        moderator: None,
        moderated_at: None,
    }))
}

/// The most flagged contributions the queue counts (the pagination's offset cap: a
/// page past it is refused anyway), so that its count reads at most that many rows.
pub const QUEUE_COUNT_CAP: i64 = 10_000;

/// How many contributions were ever flagged, up to [`QUEUE_COUNT_CAP`] (a walk of the
/// queue's index, bounded).
pub fn queue_count(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached(&format!(
        "SELECT count(*) FROM (SELECT 1 FROM moderation INDEXED BY moderation_queue
         WHERE last_flagged_at IS NOT NULL LIMIT {QUEUE_COUNT_CAP})"
    ))?
    .query_row([], |r| r.get(0))
}

/// One page of the staff queue: flagged contributions, the most recently flagged
/// first (an index walk).
pub fn queue(conn: &Connection, limit: i64, offset: i64) -> rusqlite::Result<Vec<State>> {
    conn.prepare_cached(&format!(
        "{STATE} INDEXED BY moderation_queue WHERE last_flagged_at IS NOT NULL
         ORDER BY last_flagged_at DESC, contribution_pk DESC LIMIT ?1 OFFSET ?2"
    ))?
    .query_map([limit, offset], state_row)?
    .collect()
}

/// A queued contribution as the CLI lists it: its state, kind, id, author and flags.
#[derive(Debug, Clone)]
pub struct Queued {
    pub state: State,
    pub kind: crate::model::contribution::Kind,
    pub id: i64,
    pub author: String,
    pub flags: i64,
}

/// The first `limit` entries of the staff queue, with what the CLI shows of each.
pub fn queued(conn: &Connection, limit: i64) -> rusqlite::Result<Vec<Queued>> {
    let mut out = Vec::new();
    for state in queue(conn, limit, 0)? {
        let row = conn
            .prepare_cached(
                "SELECT c.kind, c.id, u.username,
                        (SELECT count(*) FROM flag f WHERE f.contribution_pk = c.pk)
                 FROM contribution c JOIN user u ON u.id = c.author_id WHERE c.pk = ?1",
            )?
            .query_row([state.pk], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?;
        if let Some((kind, id, author, flags)) = row {
            out.push(Queued { state, kind, id, author, flags });
        }
    }
    Ok(out)
}

/// What a moderator does to a contribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Delete it (again: restore it).
    Delete,
    /// Collapse it (again: show it).
    Hide,
    /// Dismiss its flags (again: reopen it).
    Ignore,
}

/// Why a decision was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Deleted by its author (or another way than moderation): nothing to moderate.
    DeletedByAuthor,
    /// Under another decision: undo that one first.
    Decided(Status),
}

/// `moderator` takes `action` on the contribution `m` for `reason`. The same action
/// again undoes it: a deleted contribution is restored, a hidden one shown, an ignored
/// one reopened. The author is told (`deleted_for_*`, `collapsed_for_*`,
/// `undeleted_for`). The state afterwards.
pub fn decide(
    conn: &Connection,
    m: &Meta,
    moderator: i64,
    action: Action,
    reason: Reason,
    now: Timestamp,
) -> rusqlite::Result<Result<State, Refused>> {
    let before = state(conn, m.pk)?;
    let undo = matches!(
        (action, before.status),
        (Action::Delete, Status::Deleted)
            | (Action::Hide, Status::Hidden)
            | (Action::Ignore, Status::Ignored)
    );
    if !undo && before.status != Status::Open && before.status != Status::Ignored {
        return Ok(Err(Refused::Decided(before.status)));
    }
    if !undo && action == Action::Delete && m.deleted {
        return Ok(Err(Refused::DeletedByAuthor));
    }
    let (status, told) = match (action, undo) {
        (Action::Delete, false) => {
            contributions::set_deleted(conn, m, true)?;
            (Status::Deleted, Some(Type::DeletedFor(reason)))
        }
        (Action::Delete, true) => {
            contributions::set_deleted(conn, m, false)?;
            (Status::Open, Some(Type::UndeletedFor))
        }
        (Action::Hide, hidden) => {
            conn.prepare_cached("UPDATE contribution SET collapsed = ?2 WHERE pk = ?1")?
                .execute(params![m.pk, !hidden])?;
            (
                if hidden { Status::Open } else { Status::Hidden },
                (!hidden).then_some(Type::CollapsedFor(reason)),
            )
        }
        (Action::Ignore, ignored) => (if ignored { Status::Open } else { Status::Ignored }, None),
    };
    let kept_reason = (status != Status::Open).then_some(reason);
    conn.prepare_cached(
        "INSERT INTO moderation (contribution_pk, status, flag_type, moderator_id, moderated_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (contribution_pk) DO UPDATE SET status = excluded.status,
             flag_type = excluded.flag_type, moderator_id = excluded.moderator_id,
             moderated_at = excluded.moderated_at",
    )?
    .execute(params![
        m.pk,
        status.as_str(),
        kept_reason.map(Reason::number),
        moderator,
        now
    ])?;
    if let Some(kind) = told {
        // a comment's notice names the comment and its item; an item's, the item
        let (item_pk, comment_pk) = match m.target_pk {
            Some(target) => (Some(target), Some(m.pk)),
            None => (Some(m.pk), None),
        };
        notify(
            conn,
            Cause { user: m.author_id, actor: moderator, kind, item_pk, comment_pk },
            now,
        )?;
    }
    state(conn, m.pk).map(Ok)
}

//! Contributions: discussions, posts, statuses and comments in one table. Every write
//! keeps the counters `hearth check` verifies in the same transaction: the author's
//! `posts_counter` / `discussions_counter` (live items) and a contribution's
//! `comment_count` (live comments pointing at it).
//!
//! Reads are for a viewer (the caller, or `None`): an item comes with its votes as the
//! viewer sees them, its categories marked followed or not, and its last activity; a
//! list leaves out the authors the viewer hides (SPEC §8).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::db::{categories, hides, votes};
use crate::model::contribution::{Contribution, Kind};
use crate::model::vote::Votes;

/// What permission checks and counters need to know about a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// Internal key.
    pub pk: i64,
    /// Kind.
    pub kind: Kind,
    /// Author.
    pub author_id: i64,
    /// Soft-deleted.
    pub deleted: bool,
    /// Comments: the contribution it belongs to.
    pub target_pk: Option<i64>,
}

/// A row to insert (already validated).
#[derive(Debug, Clone)]
pub struct NewContribution {
    pub kind: Kind,
    pub author_id: i64,
    pub title: Option<String>,
    pub action: Option<String>,
    pub text: String,
    pub added_at: Timestamp,
    pub target_pk: Option<i64>,
    pub parent_pk: Option<i64>,
    pub categories: Vec<i64>,
}

/// The permission/counter facts of one item.
pub fn meta(conn: &Connection, kind: Kind, id: i64) -> rusqlite::Result<Option<Meta>> {
    conn.prepare_cached(
        "SELECT pk, kind, author_id, deleted, target_pk FROM contribution WHERE kind = ?1 AND id = ?2",
    )?
    .query_row(params![kind.as_str(), id], |r| {
        Ok(from_columns!(r => Meta { pk, kind, author_id, deleted, target_pk }))
    })
    .optional()
}

/// The next id of a kind: kinds number their own ids. Called inside the write
/// transaction that inserts, so two creates cannot take the same id.
pub fn next_id(conn: &Connection, kind: Kind) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COALESCE(MAX(id), 0) + 1 FROM contribution WHERE kind = ?1")?
        .query_row([kind.as_str()], |r| r.get(0))
}

/// Inserts an item with its categories and bumps the counters it counts in; returns
/// its API id.
pub fn insert(conn: &Connection, new: &NewContribution) -> rusqlite::Result<i64> {
    let id = next_id(conn, new.kind)?;
    conn.prepare_cached(
        "INSERT INTO contribution (kind, id, author_id, title, action, text, added_at, target_pk, parent_pk)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        new.kind.as_str(),
        id,
        new.author_id,
        new.title,
        new.action,
        new.text,
        new.added_at,
        new.target_pk,
        new.parent_pk
    ])?;
    let pk = conn.last_insert_rowid();
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO contribution_category (contribution_pk, category_id) VALUES (?1, ?2)",
    )?;
    for c in &new.categories {
        stmt.execute(params![pk, c])?;
    }
    count(conn, new.kind, new.author_id, new.target_pk, 1)?;
    Ok(id)
}

/// Adds `delta` to the counters a live item of `kind` counts in.
fn count(
    conn: &Connection,
    kind: Kind,
    author_id: i64,
    target_pk: Option<i64>,
    delta: i64,
) -> rusqlite::Result<()> {
    use super::users::{Counter, add_to};
    match kind {
        Kind::Post => add_to(conn, Counter::Posts, author_id, delta)?,
        Kind::Discussion => add_to(conn, Counter::Discussions, author_id, delta)?,
        Kind::Status | Kind::Comment => {}
    }
    if let Some(t) = target_pk {
        add_to(conn, Counter::Comments, t, delta)?;
    }
    Ok(())
}

/// Soft-deletes (`deleted = true`) or restores an item, keeping the counters exact.
/// A no-op when the item already is in that state.
pub fn set_deleted(conn: &Connection, m: &Meta, deleted: bool) -> rusqlite::Result<()> {
    let changed = conn
        .prepare_cached("UPDATE contribution SET deleted = ?2 WHERE pk = ?1 AND deleted <> ?2")?
        .execute(params![m.pk, deleted])?;
    if changed > 0 {
        let delta = if deleted { -1 } else { 1 };
        count(conn, m.kind, m.author_id, m.target_pk, delta)?;
    }
    Ok(())
}

fn select() -> String {
    format!(
        "SELECT c.pk, c.kind, c.id, c.title, c.action, c.text, c.added_at, c.last_edited_at,
                c.deleted, c.comment_count, t.kind, t.id, p.id, {}
         FROM contribution c
         JOIN user u ON u.id = c.author_id
         LEFT JOIN contribution t ON t.pk = c.target_pk
         LEFT JOIN contribution p ON p.pk = c.parent_pk",
        crate::db::users::qualified(crate::db::users::BRIEF, "u")
    )
}

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Contribution> {
    let (target_kind, target_id): (Option<Kind>, Option<i64>) = (r.get(10)?, r.get(11)?);
    Ok(from_columns!(r => Contribution {
        pk, kind, id, title, action, text, added_at, last_edited_at, deleted, comment_count;
        target: target_kind.zip(target_id),
        parent: r.get(12)?,
        // the author as their minimal JSON shows them
        author: crate::db::users::brief_at(r, 13)?,
        categories: Vec::new(),
        votes: Votes::default(),
        last_activity_at: 0,
    }))
}

/// The time of the newest live comment on `c` (on a comment: its newest live reply),
/// or its creation when there is none. One index lookup (`contribution_comments`,
/// `contribution_parent`).
fn last_activity(conn: &Connection, c: &Contribution) -> rusqlite::Result<Timestamp> {
    let sql = if c.kind == Kind::Comment {
        "SELECT max(added_at) FROM contribution WHERE parent_pk = ?1 AND deleted = 0"
    } else {
        "SELECT max(added_at) FROM contribution WHERE target_pk = ?1 AND deleted = 0"
    };
    let newest: Option<Timestamp> = conn.prepare_cached(sql)?.query_row([c.pk], |r| r.get(0))?;
    Ok(newest.map_or(c.added_at, |n| n.max(c.added_at)))
}

/// Fills in what an item shows `viewer` besides its row: categories (marked followed),
/// votes, last activity.
fn complete(conn: &Connection, c: &mut Contribution, viewer: Option<i64>) -> rusqlite::Result<()> {
    c.categories = categories::of_contribution(conn, c.pk, viewer)?;
    c.votes = votes::votes_of(conn, c.pk, viewer)?;
    c.last_activity_at = last_activity(conn, c)?;
    Ok(())
}

/// One item, deleted or not, with author and categories, as `viewer` sees it.
pub fn get(
    conn: &Connection,
    kind: Kind,
    id: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Option<Contribution>> {
    let found = conn
        .prepare_cached(sql!("{} WHERE c.kind = ?1 AND c.id = ?2", select()))?
        .query_row(params![kind.as_str(), id], from_row)
        .optional()?;
    match found {
        None => Ok(None),
        Some(mut c) => {
            complete(conn, &mut c, viewer)?;
            Ok(Some(c))
        }
    }
}

/// One page of live items of a kind, newest first, and the total, as `viewer` sees
/// them: without the items of the authors it hides. Comments can be narrowed to those
/// of one contribution (`target_pk`).
pub fn list(
    conn: &Connection,
    kind: Kind,
    target_pk: Option<i64>,
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Contribution>)> {
    // the target filter is written out only when there is one: `(?2 IS NULL OR
    // c.target_pk = ?2)` kept SQLite off the comments index (200 ms for one
    // discussion's comments at 10x, 0.2 ms with it); a viewer who hides nobody (most)
    // gets the plain statements, which count from the index alone
    let hiding = match viewer {
        Some(v) => hides::hides_anyone(conn, v)?,
        None => false,
    };
    let hidden = if hiding {
        "AND c.author_id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?5)"
    } else {
        "AND ?5 IS NULL"
    };
    let who = viewer.filter(|_| hiding);
    // (`+c.kind`: with a target, the comments index and a sort of one item's comments,
    // never a walk of every comment in `contribution_list` order)
    let target = if target_pk.is_some() {
        "+c.kind = ?1 AND c.target_pk = ?2"
    } else {
        "c.kind = ?1 AND ?2 IS NULL"
    };
    let total: i64 = if target_pk.is_none() && !hiding {
        // the newest-first list of a kind: its total is kept by triggers
        super::contribution_tally::live(conn, kind)?
    } else {
        conn.prepare_cached(&format!(
            "SELECT count(*) FROM contribution c
             WHERE {target} AND c.deleted = 0 {hidden}"
        ))?
        // ?3 and ?4 (the page) are not used by the count
        .query_row(params![kind.as_str(), target_pk, None::<i64>, None::<i64>, who], |r| r.get(0))?
    };
    let mut stmt = conn.prepare_cached(&format!(
        "{} WHERE {target} AND c.deleted = 0 {hidden}
         ORDER BY c.added_at DESC, c.id DESC LIMIT ?3 OFFSET ?4",
        select()
    ))?;
    let rows = stmt.query_map(params![kind.as_str(), target_pk, limit, offset, who], from_row)?;
    let mut items: Vec<Contribution> = rows.collect::<Result<_, _>>()?;
    for c in &mut items {
        complete(conn, c, viewer)?;
    }
    Ok((total, items))
}

//! Contributions: discussions, posts, statuses and comments in one table. Every write
//! keeps the counters `hearth check` verifies in the same transaction: the author's
//! `posts_counter` / `discussions_counter` (live items), a contribution's
//! `comment_count` (live comments pointing at it) and a comment's (its live replies).
//! A text's rich-text forms (SPEC §5) are rendered once, when it is written, by
//! [`crate::model::rich_text`], here for the API and the importer alike.
//!
//! Reads are for a viewer (the caller, or `None`): an item comes with its votes as the
//! viewer sees them, its categories marked followed or not, and its last activity; a
//! list leaves out the authors the viewer hides (SPEC §8).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::db::{categories, hides, votes};
use crate::model::contribution::{Contribution, Kind};
use crate::model::rich_text::{self, Rendered};
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
    /// Replies: the comment it answers.
    pub parent_pk: Option<i64>,
    /// The group it was made in (a comment: its item's).
    pub group_id: Option<i64>,
    /// The event it was made in (a comment: its item's).
    pub event_id: Option<i64>,
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
    /// The group it is made in (a comment: pass its item's).
    pub group_id: Option<i64>,
    /// The event it is made in (a comment: pass its item's).
    pub event_id: Option<i64>,
    /// The tags it is addressed to (ids of tags that exist), written before the
    /// notifications it causes, which go only to those who may see it.
    pub addressing: Vec<i64>,
}

/// The permission/counter facts of one item.
pub fn meta(conn: &Connection, kind: Kind, id: i64) -> rusqlite::Result<Option<Meta>> {
    conn.prepare_cached(
        "SELECT pk, kind, author_id, deleted, target_pk, parent_pk, group_id, event_id
         FROM contribution
         WHERE kind = ?1 AND id = ?2",
    )?
    .query_row(params![kind.as_str(), id], |r| {
        Ok(from_columns!(r => Meta {
            pk, kind, author_id, deleted, target_pk, parent_pk, group_id, event_id
        }))
    })
    .optional()
}

/// Whether the item `pk` exists and is not deleted.
pub fn is_live(conn: &Connection, pk: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM contribution WHERE pk = ?1 AND deleted = 0")?.exists([pk])
}

/// The next id of a kind. Discussions, posts and statuses take theirs from one
/// sequence, as on the hosted platform, where an item's id alone names it (the kit's
/// share sends only the id: `api::media_create`); comments number their own.
/// Called inside the write transaction that inserts, so two creates cannot take the
/// same id. Items that an older hearth numbered per kind keep their ids.
pub fn next_id(conn: &Connection, kind: Kind) -> rusqlite::Result<i64> {
    if kind == Kind::Comment {
        return conn
            .prepare_cached(
                "SELECT COALESCE(MAX(id), 0) + 1 FROM contribution WHERE kind = 'comment'",
            )?
            .query_row([], |r| r.get(0));
    }
    conn.prepare_cached(
        "SELECT max(COALESCE((SELECT MAX(id) FROM contribution WHERE kind = 'discussion'), 0),
                    COALESCE((SELECT MAX(id) FROM contribution WHERE kind = 'post'), 0),
                    COALESCE((SELECT MAX(id) FROM contribution WHERE kind = 'status'), 0)) + 1",
    )?
    .query_row([], |r| r.get(0))
}

/// Inserts an item with its categories and bumps the counters it counts in; returns
/// its API id.
pub fn insert(conn: &Connection, new: &NewContribution) -> rusqlite::Result<i64> {
    let id = next_id(conn, new.kind)?;
    let r = rich_text::render(&new.text);
    conn.prepare_cached(
        "INSERT INTO contribution (kind, id, author_id, title, action, text, added_at, target_pk, parent_pk,
                                   html, summary, summary_html, summary_truncated, last_activity_at,
                                   group_id, event_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?7, ?14, ?15)",
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
        new.parent_pk,
        r.html,
        r.summary,
        r.stored_summary_html(),
        r.summary_truncated,
        new.group_id,
        new.event_id
    ])?;
    let pk = conn.last_insert_rowid();
    link_categories(conn, pk, &new.categories)?;
    super::tags::address(conn, pk, &new.addressing)?;
    count(conn, new.kind, new.author_id, new.target_pk, new.parent_pk, 1)?;
    if new.target_pk.is_none() {
        super::search::index::add(conn, pk, new.title.as_deref(), &new.text)?;
    }
    super::notifications::written::notify(
        conn,
        super::notifications::written::Written {
            pk,
            author: new.author_id,
            at: new.added_at,
            target: new.target_pk,
            parent: new.parent_pk,
        },
        &r.html,
    )?;
    Ok(id)
}

/// Links item `pk` to categories (known to exist), each link carrying the item's
/// `last_activity_at` (the category feeds' order): the API's writes and the importer's.
pub fn link_categories(conn: &Connection, pk: i64, ids: &[i64]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO contribution_category (contribution_pk, category_id, last_activity_at)
         SELECT ?1, ?2, last_activity_at FROM contribution WHERE pk = ?1",
    )?;
    for c in ids {
        stmt.execute(params![pk, c])?;
    }
    Ok(())
}

/// Writes the rich-text forms of row `pk`'s text (the importer's rows, and
/// [`render_all`]).
pub fn set_rendered(conn: &Connection, pk: i64, r: &Rendered) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE contribution SET html = ?2, summary = ?3, summary_html = ?4, summary_truncated = ?5
         WHERE pk = ?1",
    )?
    .execute(params![pk, r.html, r.summary, r.stored_summary_html(), r.summary_truncated])?;
    Ok(())
}

/// Renders every stored text again (migration 8), a thousand rows a query, in pk
/// order: memory stays one batch whatever the table's size.
pub fn render_all(conn: &Connection) -> rusqlite::Result<()> {
    let mut after = 0i64;
    loop {
        let batch: Vec<(i64, String)> = conn
            .prepare_cached(
                "SELECT pk, text FROM contribution WHERE pk > ?1 ORDER BY pk LIMIT 1000",
            )?
            .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let Some(&(last, _)) = batch.last() else { return Ok(()) };
        for (pk, text) in &batch {
            set_rendered(conn, *pk, &rich_text::render(text))?;
        }
        after = last;
    }
}

/// Adds `delta` to the counters a live item of `kind` counts in.
fn count(
    conn: &Connection,
    kind: Kind,
    author_id: i64,
    target_pk: Option<i64>,
    parent_pk: Option<i64>,
    delta: i64,
) -> rusqlite::Result<()> {
    use super::users::{Counter, add_to};
    match kind {
        Kind::Post => add_to(conn, Counter::Posts, author_id, delta)?,
        Kind::Discussion => add_to(conn, Counter::Discussions, author_id, delta)?,
        Kind::Status | Kind::Comment => {}
    }
    // a reply counts in its item and in the comment it answers
    for t in [target_pk, parent_pk].into_iter().flatten() {
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
        count(conn, m.kind, m.author_id, m.target_pk, m.parent_pk, delta)?;
        if m.target_pk.is_none() {
            super::search::index::sync(conn, m.pk)?;
        }
        if deleted {
            super::notifications::forget_contribution(conn, m.pk)?;
        }
    }
    Ok(())
}

pub(super) fn select() -> String {
    format!(
        "SELECT c.pk, c.kind, c.id, c.title, c.action, c.text, c.added_at, c.last_edited_at,
                c.deleted, c.comment_count, t.kind, t.id, p.id,
                c.html, c.summary, c.summary_html, c.summary_truncated, c.last_activity_at, {},
                c.collapsed, c.group_id, c.event_id, c.follower_count, c.share_count
         FROM contribution c
         JOIN user u ON u.id = c.author_id
         LEFT JOIN contribution t ON t.pk = c.target_pk
         LEFT JOIN contribution p ON p.pk = c.parent_pk",
        crate::db::users::qualified(crate::db::users::BRIEF, "u")
    )
}

pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Contribution> {
    let (target_kind, target_id): (Option<Kind>, Option<i64>) = (r.get(10)?, r.get(11)?);
    Ok(from_columns!(r => Contribution {
        pk, kind, id, title, action, text, added_at, last_edited_at, deleted, comment_count;
        target: target_kind.zip(target_id),
        parent: r.get(12)?,
        rendered: Rendered::from_stored(r.get(13)?, r.get(14)?, r.get(15)?, r.get(16)?),
        // the author as their minimal JSON shows them
        last_activity_at: r.get(17)?,
        author: crate::db::users::brief_at(r, 18)?,
        // after the author's six columns
        collapsed: r.get(24)?,
        categories: Vec::new(),
        votes: Votes::default(),
        latest_comments: Vec::new(),
        group_id: r.get(25)?,
        event_id: r.get(26)?,
        follower_count: r.get(27)?,
        share_count: r.get(28)?,
        // loaded by `complete`
        group: None,
        event: None,
        poll: None,
        addressing: Vec::new(),
        medias: Vec::new(),
        suspended: false,
        followed: false,
    }))
}

/// Fills in what an item shows `viewer` besides its row: categories (marked followed),
/// votes, its group, and for a top-level comment with replies its
/// [`LATEST_REPLIES`] newest live replies, oldest of them first.
pub(super) fn complete(
    conn: &Connection,
    c: &mut Contribution,
    viewer: Option<i64>,
) -> rusqlite::Result<()> {
    c.categories = categories::of_contribution(conn, c.pk, viewer)?;
    c.votes = votes::votes_of(conn, c.pk, viewer)?;
    // an item's group (a comment's is its item's, which its JSON does not repeat)
    if let Some(g) = c.group_id.filter(|_| c.kind != Kind::Comment) {
        c.group = super::groups::seen_by(conn, g, viewer)?;
    }
    if let Some(e) = c.event_id.filter(|_| c.kind != Kind::Comment) {
        c.event = super::events::seen_by(conn, e, viewer)?;
    }
    if let Some(v) = viewer.filter(|_| c.kind != Kind::Comment) {
        c.suspended = super::notification_offs::is_off(conn, v, c.pk)?;
        c.followed = super::item_follows::follows(conn, v, c.pk)?;
    }
    if matches!(c.kind, Kind::Discussion | Kind::Post) {
        c.poll = super::polls::of(conn, c.pk, viewer)?;
        c.addressing = super::tags::addressing_of(conn, c.pk)?;
        c.medias = super::media_items::of_contribution(conn, c.pk)?;
    }
    if c.kind == Kind::Comment && c.parent.is_none() && c.comment_count > 0 {
        let mut latest = page(
            conn,
            Kind::Comment,
            Scope::Replies(c.pk),
            viewer,
            Order::NewestFirst,
            LATEST_REPLIES,
            0,
        )?;
        latest.reverse();
        c.latest_comments = latest;
    }
    Ok(())
}

/// How many replies a top-level comment carries in `latest_comments` (what the kit's
/// comment shows under it before "show previous replies", which reads the rest with
/// `parent`).
pub const LATEST_REPLIES: i64 = 3;

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

/// Items by pk, in the order given, each completed for `viewer` (a feed's or a
/// search's page); a pk without a row is left out.
pub fn by_pks(
    conn: &Connection,
    pks: &[i64],
    viewer: Option<i64>,
) -> rusqlite::Result<Vec<Contribution>> {
    let mut stmt = conn.prepare_cached(sql!("{} WHERE c.pk = ?1", select()))?;
    let mut out = Vec::with_capacity(pks.len());
    for pk in pks {
        if let Some(mut c) = stmt.query_row([pk], from_row).optional()? {
            complete(conn, &mut c, viewer)?;
            out.push(c);
        }
    }
    Ok(out)
}

/// Which items of a kind a list holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every live item of the kind.
    All,
    /// Comments: the top-level comments of one contribution (by pk).
    Thread(i64),
    /// Comments: the replies to one comment (by pk).
    Replies(i64),
}

/// The order of a list, by creation (ties by pk, the order of insertion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Newest first (the default of every list).
    NewestFirst,
    /// Oldest first.
    OldestFirst,
}

/// The `WHERE` clause of a scope (`?1` the kind, `?2` the pk it narrows to) and its
/// `ORDER BY`. Each scope is written out on its own so SQLite walks the index made for
/// it in order (`contribution_list`, `contribution_threads`, `contribution_replies`)
/// and never sorts: a page costs its own rows.
fn scope_sql(scope: Scope, order: Order) -> (&'static str, &'static str) {
    let desc = order == Order::NewestFirst;
    match scope {
        // items made in groups are their groups' (their feeds), not the community's
        Scope::All => (
            "c.kind = ?1 AND ?2 IS NULL AND c.group_id IS NULL AND c.event_id IS NULL",
            if desc { "c.added_at DESC, c.id DESC" } else { "c.added_at ASC, c.id ASC" },
        ),
        // (`+c.kind`: the thread's own index, never a walk of every comment)
        Scope::Thread(_) => (
            "+c.kind = ?1 AND c.target_pk = ?2 AND c.parent_pk IS NULL",
            if desc { "c.added_at DESC, c.pk DESC" } else { "c.added_at ASC, c.pk ASC" },
        ),
        Scope::Replies(_) => (
            "+c.kind = ?1 AND c.parent_pk = ?2",
            if desc { "c.added_at DESC, c.pk DESC" } else { "c.added_at ASC, c.pk ASC" },
        ),
    }
}

/// The viewer's clause (`?5`) for a list of items: the authors it hides, and, where
/// `addressing` asks and the community has addressed items, the items it may not see
/// by their addressing ([`super::tags::addressing_shown`]); and the viewer to bind. A
/// viewer who hides nobody, in a community that addresses nothing (most), gets the
/// plain statement, which counts from the index alone.
pub(super) fn viewer_sql(
    conn: &Connection,
    viewer: Option<i64>,
    addressing: bool,
) -> rusqlite::Result<(&'static str, Option<i64>)> {
    let hiding = match viewer {
        Some(v) => hides::hides_anyone(conn, v)?,
        None => false,
    };
    let addressed = addressing && super::tags::addresses_any(conn)?;
    const HIDDEN: &str =
        "AND c.author_id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?5)";
    Ok(match (hiding, addressed) {
        (false, false) => ("AND ?5 IS NULL", None),
        (true, false) => (HIDDEN, viewer),
        (false, true) => (sql!("AND {}", super::tags::addressing_shown(5)), viewer),
        (true, true) => (sql!("{HIDDEN} AND {}", super::tags::addressing_shown(5)), viewer),
    })
}

/// One page of live items, as `viewer` sees them: without the items of the authors it
/// hides, nor (a kind's list) the addressed items it may not see.
fn page(
    conn: &Connection,
    kind: Kind,
    scope: Scope,
    viewer: Option<i64>,
    order: Order,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<Contribution>> {
    let (narrow, order_by) = scope_sql(scope, order);
    // a comment answers for its item, which the caller may see (or it is not listed)
    let (hidden, who) = viewer_sql(conn, viewer, scope == Scope::All)?;
    let mut stmt = conn.prepare_cached(&format!(
        "{} WHERE {narrow} AND c.deleted = 0 {hidden} ORDER BY {order_by} LIMIT ?3 OFFSET ?4",
        select()
    ))?;
    let rows =
        stmt.query_map(params![kind.as_str(), scope_pk(scope), limit, offset, who], from_row)?;
    let mut items: Vec<Contribution> = rows.collect::<Result<_, _>>()?;
    for c in &mut items {
        complete(conn, c, viewer)?;
    }
    Ok(items)
}

fn scope_pk(scope: Scope) -> Option<i64> {
    match scope {
        Scope::All => None,
        Scope::Thread(pk) | Scope::Replies(pk) => Some(pk),
    }
}

/// One page of live items of a kind in `scope` and `order`, and the total, as `viewer`
/// sees them (without the items of the authors it hides, nor the items addressed to
/// tags it may not see).
pub fn list(
    conn: &Connection,
    kind: Kind,
    scope: Scope,
    viewer: Option<i64>,
    order: Order,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Contribution>)> {
    let (narrow, _) = scope_sql(scope, order);
    let (hidden, who) = viewer_sql(conn, viewer, scope == Scope::All)?;
    let total: i64 = match (scope, who) {
        // the newest-first list of a kind: its total is kept by triggers, less the
        // hidden authors' live items, counted from their own rows
        // (`contribution_author`): never a walk of the whole kind (issue 27), and less
        // the addressed items the viewer may not see (a count of the addressed items)
        (Scope::All, _) => {
            let hidden: i64 = match viewer {
                Some(v) if hides::hides_anyone(conn, v)? => conn
                    .prepare_cached(
                        "SELECT count(*) FROM user_hide h
                     JOIN contribution c INDEXED BY contribution_author
                       ON c.author_id = h.hidden_id AND c.kind = ?1 AND c.deleted = 0
                     WHERE h.user_id = ?2 AND c.group_id IS NULL AND c.event_id IS NULL",
                    )?
                    .query_row(params![kind.as_str(), v], |r| r.get(0))?,
                _ => 0,
            };
            let unseen = if super::tags::addresses_any(conn)? {
                super::tags::unseen_addressed(conn, viewer, Some(kind.as_str()))?
            } else {
                0
            };
            super::contribution_tally::live(conn, kind)?
                - super::contribution_tally::in_spaces(conn, kind)?
                - hidden
                - unseen
        }
        // a comment's live replies: its own counter
        (Scope::Replies(pk), None) => conn
            .prepare_cached("SELECT comment_count FROM contribution WHERE pk = ?1")?
            .query_row([pk], |r| r.get(0))?,
        _ => conn
            .prepare_cached(&format!(
                "SELECT count(*) FROM contribution c WHERE {narrow} AND c.deleted = 0 {hidden}"
            ))?
            // ?3 and ?4 (the page) are not used by the count
            .query_row(
                params![kind.as_str(), scope_pk(scope), None::<i64>, None::<i64>, who],
                |r| r.get(0),
            )?,
    };
    let items = page(conn, kind, scope, viewer, order, limit, offset)?;
    Ok((total, items))
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::{Order, Scope, scope_sql, select};

    /// Every list walks the index made for it in its order: no sort of the item's
    /// comments, a page costs its own rows.
    #[test]
    fn lists_walk_their_index_without_a_sort() {
        let conn = crate::db::migrate::test_db();
        for scope in [Scope::All, Scope::Thread(1), Scope::Replies(1)] {
            for order in [Order::NewestFirst, Order::OldestFirst] {
                let (narrow, order_by) = scope_sql(scope, order);
                let sql = format!(
                    "EXPLAIN QUERY PLAN {} WHERE {narrow} AND c.deleted = 0 AND ?5 IS NULL
                     ORDER BY {order_by} LIMIT ?3 OFFSET ?4",
                    select()
                );
                let mut stmt = conn.prepare(&sql).unwrap();
                let plan: Vec<String> = stmt
                    .query_map(rusqlite::params!["comment", 1, 20, 0, None::<i64>], |r| r.get(3))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                assert!(
                    !plan.iter().any(|l| l.contains("TEMP B-TREE")),
                    "{scope:?} {order:?}: {plan:?}"
                );
                let index = match scope {
                    Scope::All => "contribution_list",
                    Scope::Thread(_) => "contribution_threads",
                    Scope::Replies(_) => "contribution_replies",
                };
                assert!(plan.iter().any(|l| l.contains(index)), "{scope:?} {order:?}: {plan:?}");
            }
        }
    }

    /// A hider's count reads the hidden authors' own rows, never the kind's list.
    #[test]
    fn a_hiders_count_never_walks_the_kind() {
        let conn = crate::db::migrate::test_db();
        let mut stmt = conn
            .prepare(
                "EXPLAIN QUERY PLAN SELECT count(*) FROM user_hide h
                 JOIN contribution c INDEXED BY contribution_author
                   ON c.author_id = h.hidden_id AND c.kind = 'post' AND c.deleted = 0
                 WHERE h.user_id = 1",
            )
            .unwrap();
        let plan: Vec<String> =
            stmt.query_map([], |r| r.get(3)).unwrap().map(Result::unwrap).collect();
        assert!(plan.iter().any(|l| l.contains("contribution_author")), "{plan:?}");
        assert!(!plan.iter().any(|l| l.starts_with("SCAN c")), "{plan:?}");
    }
}

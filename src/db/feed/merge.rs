//! The home feed: the caller's own items and those of the users and categories it
//! follows, merged newest first, then the explore items not among them (items made in
//! groups are their group feed's, as for explore).
//!
//! Each source (an author, a category) is read in the feed's order from its own index,
//! a few rows at a time after the last row read (keyset: `(last_activity_at, pk)`),
//! and the sources are merged through a heap. An item that comes from two sources
//! (a followed user's post in a followed category) has the same key in both and is
//! taken once. A page costs the sources' first rows plus the rows before and on the
//! page, whatever the community's size; a source's batch doubles each time it is read
//! again, so a deep page does not read row by row.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet, VecDeque};

use rusqlite::{Connection, params};

/// A row of a source: its feed key, its author, and whether it is addressed to tags
/// (the few that are, the merge asks whether the caller may see: `spaces::shows_item`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    at: i64,
    pk: i64,
    author: i64,
    addressed: bool,
}

impl Row {
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        Ok(Row { at: r.get(0)?, pk: r.get(1)?, author: r.get(2)?, addressed: r.get(3)? })
    }

    /// Whether `viewer` may not see it for its addressing.
    fn unseen(&self, conn: &Connection, viewer: i64) -> rusqlite::Result<bool> {
        Ok(self.addressed && !crate::db::spaces::shows_item(conn, self.pk, Some(viewer))?)
    }
}

/// Where a source reads from.
#[derive(Debug, Clone, Copy)]
enum From {
    Author(i64),
    Category(i64),
}

/// One source of the merge: its unread rows and where it stopped.
struct Source {
    from: From,
    buffered: VecDeque<Row>,
    after: (i64, i64),
    batch: i64,
    done: bool,
}

/// An author's rows after a key (`?1` the author, `?2`/`?3` the key, `?4` how many).
pub(super) const AUTHOR_AFTER: &str = "SELECT c.last_activity_at, c.pk, c.author_id, c.addressed
     FROM contribution c INDEXED BY contribution_author_feed
     WHERE c.author_id = ?1 AND c.target_pk IS NULL AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
       AND (c.last_activity_at, c.pk) < (?2, ?3)
     ORDER BY c.last_activity_at DESC, c.pk DESC LIMIT ?4";

/// A category's rows after a key (`?1` the category, `?2`/`?3` the key, `?4` how many).
pub(super) const CATEGORY_AFTER: &str =
    "SELECT cc.last_activity_at, cc.contribution_pk, c.author_id, c.addressed
     FROM contribution_category cc INDEXED BY contribution_category_feed
     JOIN contribution c ON c.pk = cc.contribution_pk
     WHERE cc.category_id = ?1 AND (cc.last_activity_at, cc.contribution_pk) < (?2, ?3)
       AND c.target_pk IS NULL AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
     ORDER BY cc.last_activity_at DESC, cc.contribution_pk DESC LIMIT ?4";

/// Explore's rows after a key (`?1`/`?2` the key, `?3` how many).
pub(super) const EXPLORE_AFTER: &str = "SELECT c.last_activity_at, c.pk, c.author_id, c.addressed
     FROM contribution c INDEXED BY contribution_feed
     WHERE c.target_pk IS NULL AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
       AND (c.last_activity_at, c.pk) < (?1, ?2)
     ORDER BY c.last_activity_at DESC, c.pk DESC LIMIT ?3";

/// The first batch a source reads; each later one doubles, up to [`BATCH_MAX`].
const BATCH_FIRST: i64 = 4;
const BATCH_MAX: i64 = 256;

impl Source {
    fn new(from: From) -> Source {
        Source {
            from,
            buffered: VecDeque::new(),
            after: (i64::MAX, i64::MAX),
            batch: BATCH_FIRST,
            done: false,
        }
    }

    /// The next row, reading a batch when none is buffered.
    fn next(&mut self, conn: &Connection) -> rusqlite::Result<Option<Row>> {
        if self.buffered.is_empty() && !self.done {
            let sql = match self.from {
                From::Author(_) => AUTHOR_AFTER,
                From::Category(_) => CATEGORY_AFTER,
            };
            let key = match self.from {
                From::Author(id) | From::Category(id) => id,
            };
            let rows: Vec<Row> = conn
                .prepare_cached(sql)?
                .query_map(params![key, self.after.0, self.after.1, self.batch], Row::read)?
                .collect::<Result<_, _>>()?;
            self.done = (rows.len() as i64) < self.batch;
            if let Some(last) = rows.last() {
                self.after = (last.at, last.pk);
            }
            self.batch = (self.batch * 2).min(BATCH_MAX);
            self.buffered.extend(rows);
        }
        Ok(self.buffered.pop_front())
    }
}

/// What `user` follows: its sources, and the sets that say whether an explore item
/// is already one of theirs.
struct Follows {
    users: HashSet<i64>,
    categories: HashSet<i64>,
}

impl Follows {
    fn of(conn: &Connection, user: i64) -> rusqlite::Result<Follows> {
        let mut users: HashSet<i64> = conn
            .prepare_cached("SELECT followed FROM follow WHERE follower = ?1")?
            .query_map([user], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        users.insert(user);
        let categories = conn
            .prepare_cached("SELECT category_id FROM category_follow WHERE user_id = ?1")?
            .query_map([user], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(Follows { users, categories })
    }

    /// Whether item `row` comes from one of the sources.
    fn covers(&self, conn: &Connection, row: &Row) -> rusqlite::Result<bool> {
        if self.users.contains(&row.author) {
            return Ok(true);
        }
        if self.categories.is_empty() {
            return Ok(false);
        }
        let mut stmt = conn.prepare_cached(
            "SELECT category_id FROM contribution_category WHERE contribution_pk = ?1",
        )?;
        let cats = stmt.query_map([row.pk], |r| r.get::<_, i64>(0))?;
        for c in cats {
            if self.categories.contains(&c?) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The pks of one page of `user`'s home feed.
pub(super) fn home(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<i64>> {
    let follows = Follows::of(conn, user)?;
    let hidden: HashSet<i64> = super::super::hides::hidden_ids(conn, user)?.into_iter().collect();
    let mut sources: Vec<Source> = follows
        .users
        .iter()
        .map(|u| Source::new(From::Author(*u)))
        .chain(follows.categories.iter().map(|c| Source::new(From::Category(*c))))
        .collect();
    let mut heap = BinaryHeap::new();
    for (i, s) in sources.iter_mut().enumerate() {
        if let Some(row) = s.next(conn)? {
            heap.push((row, Reverse(i)));
        }
    }
    let (limit, offset) = (limit.max(0) as usize, offset.max(0) as usize);
    let mut page = Vec::with_capacity(limit);
    let mut seen = 0usize; // home items passed, the page's included
    let mut last = None;
    while let Some((row, Reverse(i))) = heap.pop() {
        if let Some(next) = sources[i].next(conn)? {
            heap.push((next, Reverse(i)));
        }
        if last == Some(row.pk) || hidden.contains(&row.author) || row.unseen(conn, user)? {
            continue;
        }
        last = Some(row.pk);
        if seen >= offset {
            page.push(row.pk);
            if page.len() == limit {
                return Ok(page);
            }
        }
        seen += 1;
    }
    // the sources ran out after `seen` items: explore's others follow
    let mut skip = offset.saturating_sub(seen);
    let mut after = (i64::MAX, i64::MAX);
    let mut batch = BATCH_FIRST.max(limit as i64);
    loop {
        let rows: Vec<Row> = conn
            .prepare_cached(EXPLORE_AFTER)?
            .query_map(params![after.0, after.1, batch], Row::read)?
            .collect::<Result<_, _>>()?;
        let exhausted = (rows.len() as i64) < batch;
        for row in &rows {
            if hidden.contains(&row.author)
                || row.unseen(conn, user)?
                || follows.covers(conn, row)?
            {
                continue;
            }
            if skip > 0 {
                skip -= 1;
                continue;
            }
            page.push(row.pk);
            if page.len() == limit {
                return Ok(page);
            }
        }
        match rows.last() {
            Some(last) if !exhausted => after = (last.at, last.pk),
            _ => return Ok(page),
        }
        batch = (batch * 2).min(BATCH_MAX);
    }
}

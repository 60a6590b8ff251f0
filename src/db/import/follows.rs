//! Follow edges in bulk. Checking and writing are split: [`Follows::add`] checks a line
//! at once, in file order (so a bad line is named by its number), and decides its
//! `mutual` flag; [`Follows::flush`] writes the batch's edges sorted by primary key, so
//! the B-tree grows at its right-hand edge instead of being split at random pages.
//!
//! Every edge of this import is remembered in memory (about 40 bytes an edge), which
//! answers "does this edge or its reverse exist?" without a query. When the `follow`
//! table held edges before the import began, or another connection wrote since, an
//! edge not remembered is looked up in the database as well.
//!
//! Loading into an empty `follow` table, the first batch drops its secondary indexes
//! (see [`crate::db::indexes::drop_secondary`]); [`super::finish`] builds them once at
//! the end, which costs a sort instead of a million random B-tree inserts.

use foldhash::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::LineError;
use crate::clock::Timestamp;

/// An edge seen in this import: the batch it came in and its index there.
#[derive(Debug, Clone, Copy)]
struct Slot {
    batch: u32,
    index: u32,
}

/// Where an edge is: in the batch being built (its index in `pending`), or written.
#[derive(Debug, Clone, Copy)]
enum Seen {
    Pending(usize),
    Written,
}

#[derive(Debug)]
struct Edge {
    line: u64,
    follower: i64,
    followed: i64,
    at: Timestamp,
    mutual: bool,
}

/// The follow edges of an import.
#[derive(Debug)]
pub struct Follows {
    /// Whether `follow` may hold edges this import did not write: it did when the
    /// import began, or another connection wrote since.
    had_edges: bool,
    /// Whether this import dropped the table's secondary indexes.
    dropped_indexes: bool,
    seen: HashMap<(i64, i64), Slot>,
    /// The number of the batch being built.
    batch: u32,
    pending: Vec<Edge>,
    /// Edges written by an earlier batch (or before the import) that became mutual.
    now_mutual: Vec<(i64, i64)>,
}

impl Follows {
    /// Starts with what `conn`'s database holds.
    pub fn new(conn: &Connection) -> rusqlite::Result<Follows> {
        let had_edges = conn.query_row("SELECT EXISTS (SELECT 1 FROM follow)", [], |r| r.get(0))?;
        Ok(Follows {
            had_edges,
            dropped_indexes: false,
            seen: HashMap::default(),
            batch: 0,
            pending: Vec::new(),
            now_mutual: Vec::new(),
        })
    }

    /// Another connection wrote: what this import remembers may be stale.
    pub fn others_wrote(&mut self) {
        self.seen.clear();
        self.had_edges = true;
    }

    fn find(&self, conn: &Connection, key: (i64, i64)) -> Result<Option<Seen>, LineError> {
        if let Some(s) = self.seen.get(&key) {
            return Ok(Some(if s.batch == self.batch {
                Seen::Pending(s.index as usize)
            } else {
                Seen::Written
            }));
        }
        if !self.had_edges {
            return Ok(None);
        }
        conn.prepare_cached("SELECT 1 FROM follow WHERE follower = ?1 AND followed = ?2")
            .and_then(|mut s| s.query_row([key.0, key.1], |_| Ok(Seen::Written)).optional())
            .map_err(|e| format!("follow: {e}"))
    }

    /// Checks the edge of `line` (both users are known to exist) and queues it; answers
    /// whether it is mutual, which also marks its reverse.
    pub fn add(
        &mut self,
        conn: &Connection,
        line: u64,
        follower: i64,
        followed: i64,
        at: Timestamp,
    ) -> Result<bool, LineError> {
        if follower == followed {
            return Err("a user cannot follow itself".into());
        }
        if self.find(conn, (follower, followed))?.is_some() {
            return Err(format!("follow {follower} -> {followed} already exists"));
        }
        let mutual = match self.find(conn, (followed, follower))? {
            None => false,
            Some(Seen::Pending(i)) => {
                self.pending[i].mutual = true;
                true
            }
            Some(Seen::Written) => {
                self.now_mutual.push((followed, follower));
                true
            }
        };
        let index = u32::try_from(self.pending.len())
            .map_err(|_| "too many follows in one batch".to_owned())?;
        let slot = Slot { batch: self.batch, index };
        self.seen.insert((follower, followed), slot);
        self.pending.push(Edge { line, follower, followed, at, mutual });
        Ok(mutual)
    }

    /// Writes the queued edges; on failure, names the line of the edge that failed.
    pub fn flush(&mut self, conn: &Connection) -> Result<(), (u64, LineError)> {
        if !self.had_edges && !self.dropped_indexes && !self.pending.is_empty() {
            crate::db::indexes::drop_secondary(conn, "follow")
                .map_err(|e| (0, format!("follow: {e}")))?;
            self.dropped_indexes = true;
        }
        let mut pending = std::mem::take(&mut self.pending);
        self.batch += 1;
        pending.sort_unstable_by_key(|e| (e.follower, e.followed));
        let mut insert = conn
            .prepare_cached(
                "INSERT INTO follow (follower, followed, created_at, mutual) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(|e| (0, format!("follow: {e}")))?;
        for e in &pending {
            insert
                .execute(params![e.follower, e.followed, e.at, e.mutual])
                .map_err(|err| (e.line, super::sql_err("follow", &err)))?;
        }
        let mut update = conn
            .prepare_cached("UPDATE follow SET mutual = 1 WHERE follower = ?1 AND followed = ?2")
            .map_err(|e| (0, format!("follow: {e}")))?;
        for (follower, followed) in self.now_mutual.drain(..) {
            update.execute([follower, followed]).map_err(|e| (0, format!("follow: {e}")))?;
        }
        pending.clear();
        self.pending = pending;
        Ok(())
    }
}

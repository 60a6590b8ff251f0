//! The read connections: at most [`readers()`](crate::db::readers), opened on demand in the
//! thread that needs one, handed out one at a time and put back when the guard drops.
//!
//! This replaced r2d2, which opens connections on threads of its own: one of those
//! could still hold a connection when the process exited, so the writer was not the
//! last connection to close and SQLite left `-wal` and `-shm` behind (SPEC §2 asks
//! that a stopped hearth leave one file). Here every connection lives either in the
//! idle list or in a guard, so when the last handle goes, all of them are closed,
//! synchronously, before the writer.
//!
//! On a read replica (`Readers::following`) the file is written under the readers'
//! feet by a Litestream follower (`litestream restore -f`), which takes SQLite's
//! exclusive lock, writes the pages of each replicated transaction in place and
//! changes the header's change counter only when page 1 is among them. A connection
//! that kept its page cache would then keep serving the pages it had read before, for
//! as long as page 1 did not change (found in issue 16). So a replica's reader is
//! handed out inside a read transaction in which it has checked, under the shared
//! lock that keeps the follower out, that the file is the one its cache was filled
//! from: same inode, size and modification time as when it last checked. When not,
//! or when the connection is older than [`MAX_AGE`] (a second write within the file
//! system's timestamp granularity keeps the time), it is closed and a new one opened.
//!
//! What a connection reads is the file it opened, which need not be the file the path
//! names a moment later: a follower that restores renames a new file over the path
//! (issue 28: a copy stamped by the path after its connection had opened the file
//! before it was checked in the other file's name, and a damaged file swapped in then
//! passed unchecked). So a replica's connection knows its file (device and inode: the
//! path's before and after it was opened, the same) and is used only while the path
//! still names that file. The one write a replica makes (out of WAL mode, below) is
//! made by one thread at a time and before the connection is opened on the same
//! file: a read-only connection never meets a WAL-mode header (which it would answer
//! with "attempt to write a readonly database", taken for an unreadable copy).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use crate::db::DbError;
use crate::db::copy_check::{CopyCheck, CopyFault, Stamp, stamp};

/// How long a read waits for a connection when all are in use.
const WAIT: Duration = Duration::from_secs(30);
/// On a read replica, the oldest a connection (and its page cache) gets.
pub(in crate::db) const MAX_AGE: Duration = Duration::from_secs(1);

/// How many SQLite virtual-machine steps run between two looks at a read's deadline
/// (a look is one monotonic clock read: ~20 ns every few microseconds of work).
const PROGRESS_STEPS: i32 = 1000;

/// The deadline of a read running on one of the runtime's own threads: SQLite's
/// progress handler interrupts the read once it is past, and says so.
pub(in crate::db) struct Watch {
    /// Nanoseconds since [`clock`]'s origin; 0 while no deadline is set.
    deadline: AtomicU64,
    fired: AtomicBool,
}

/// Monotonic nanoseconds since the first call.
fn clock() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let since = ORIGIN.get_or_init(crate::clock::instant).elapsed().as_nanos();
    u64::try_from(since).unwrap_or(u64::MAX)
}

impl Watch {
    fn new() -> Arc<Watch> {
        Arc::new(Watch { deadline: AtomicU64::new(0), fired: AtomicBool::new(false) })
    }

    /// Interrupts the connection's statements once `budget` has passed.
    pub(in crate::db) fn arm(&self, budget: Duration) {
        let budget = u64::try_from(budget.as_nanos()).unwrap_or(u64::MAX);
        self.fired.store(false, Ordering::Relaxed);
        self.deadline.store(clock().saturating_add(budget).max(1), Ordering::Relaxed);
    }

    /// Removes the deadline; whether it interrupted anything since [`Watch::arm`].
    pub(in crate::db) fn disarm(&self) -> bool {
        self.deadline.store(0, Ordering::Relaxed);
        self.fired.swap(false, Ordering::Relaxed)
    }

    /// The progress handler: true (interrupt) once past the deadline.
    fn overrun(&self) -> bool {
        let d = self.deadline.load(Ordering::Relaxed);
        if d != 0 && clock() > d {
            self.fired.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}

/// A connection, its watch, and what its cache was checked against.
struct Pooled {
    conn: Connection,
    watch: Arc<Watch>,
    /// On a replica, the file (device, inode) the connection has open.
    file: Option<(u64, u64)>,
    checked: Option<Stamp>,
    opened: std::time::Instant,
}

/// The read connections.
pub(in crate::db) struct Readers {
    path: PathBuf,
    max: usize,
    /// A read replica's copy, written by a follower (see the module's notes).
    following: bool,
    /// A replica's checks of its copy.
    check: CopyCheck,
    /// Held while a replica's connection is opened (and its file taken out of WAL
    /// mode): one thread at a time writes the header (see the module's notes).
    opening: Mutex<()>,
    /// Bytes of the file each connection maps (`PRAGMA mmap_size`; 0: none, reads go
    /// through `pread` into the page cache). Never on a replica's copy.
    mmap: AtomicI64,
    state: Mutex<State>,
    returned: Condvar,
}

struct State {
    idle: Vec<Pooled>,
    /// Connections that exist (idle or handed out).
    open: usize,
    /// Threads waiting for a connection: a returned one wakes one of them (a wake-up
    /// is a futex call even with nobody waiting, once a read, so only when needed).
    waiting: usize,
}

impl State {
    /// Takes the idle connections past the first `keep` out of the pool, for the caller
    /// to close once it has let go of the lock (a read waiting for one need not wait).
    fn take_idle(&mut self, keep: usize) -> Vec<Pooled> {
        let taken: Vec<Pooled> = self.idle.drain(keep..).collect();
        self.open -= taken.len();
        taken
    }
}

/// A read connection, back to the idle list on drop.
pub(in crate::db) struct Reader {
    readers: Arc<Readers>,
    conn: Option<Pooled>,
}

impl Readers {
    pub(in crate::db) fn new(path: &Path, max: usize) -> Arc<Readers> {
        Self::with(path, max, false)
    }

    /// The readers of a read replica's copy (see the module's notes).
    pub(in crate::db) fn following(path: &Path, max: usize) -> Arc<Readers> {
        Self::with(path, max, true)
    }

    fn with(path: &Path, max: usize, following: bool) -> Arc<Readers> {
        Arc::new(Readers {
            path: path.to_owned(),
            following,
            check: CopyCheck::default(),
            opening: Mutex::new(()),
            max: max.max(1),
            mmap: AtomicI64::new(0),
            state: Mutex::new(State { idle: Vec::new(), open: 0, waiting: 0 }),
            returned: Condvar::new(),
        })
    }

    /// Maps up to `bytes` of the file in each connection from now on (0: none), and
    /// closes the idle ones so that the next reads open connections that do. A memory
    /// map serves a page without a system call or a copy into SQLite's page cache; the
    /// mapped pages a read touched count in the process's RSS (as the page cache's, not
    /// as its own memory). A replica's readers never map: the follower rewrites their
    /// file from another process, and a file that shrinks under a mapping is a SIGBUS.
    pub(in crate::db) fn set_mmap(&self, bytes: i64) {
        if self.following {
            return;
        }
        self.mmap.store(bytes.max(0), Ordering::Relaxed);
        let closing = self.state().take_idle(0);
        drop(closing);
    }

    fn mmap(&self) -> i64 {
        self.mmap.load(Ordering::Relaxed)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A connection: an idle one, a new one while fewer than `max` exist, or the next
    /// one returned.
    pub(in crate::db) fn get(self: &Arc<Self>) -> Result<Reader, DbError> {
        let reader = self.get_any()?;
        if self.following { self.current(reader) } else { Ok(reader) }
    }

    /// A replica's reader, inside a read transaction, whose cache is the file's
    /// current content, and a copy that passed its checks ([`CopyCheck`]; see the
    /// module's notes).
    fn current(self: &Arc<Self>, mut reader: Reader) -> Result<Reader, DbError> {
        for _ in 0..3 {
            let Some(p) = reader.conn.as_mut() else {
                break;
            };
            // BEGIN and a read of the header: the shared lock is held from here until
            // the request's read ends, so the follower cannot write in between
            p.conn.prepare_cached("BEGIN")?.execute([])?;
            let locked = p
                .conn
                .prepare_cached("PRAGMA schema_version")?
                .query_row([], |r| r.get::<_, i64>(0));
            let now = stamp(&self.path);
            match (locked, now) {
                // the path still names the file this connection reads, as it was
                (Ok(_), Ok(now))
                    if p.file == Some(now.file())
                        && p.checked.is_none_or(|c| c == now)
                        && p.opened.elapsed() < MAX_AGE =>
                {
                    p.checked = Some(now);
                    if let Err(e) = self.check.verify(&p.conn, now) {
                        let _ = p.conn.execute_batch("ROLLBACK");
                        return Err(e);
                    }
                    return Ok(reader);
                }
                // a connection left on a file the follower has since replaced: what
                // it failed on says nothing of the copy (the new file's `-journal`,
                // while the header is taken out of WAL mode, is a hot journal to a
                // connection on the old file: "attempt to write a readonly database")
                (Err(_), Ok(now)) if p.file != Some(now.file()) => {}
                (Err(e), now) => {
                    let _ = p.conn.execute_batch("ROLLBACK");
                    return Err(self.unreadable(&e, now.ok()));
                }
                (_, Err(e)) => {
                    let _ = p.conn.execute_batch("ROLLBACK");
                    return Err(self.missing(&e));
                }
                _ => {}
            }
            // stale: a new connection (a new, empty cache) in its place
            let _ = p.conn.execute_batch("ROLLBACK");
            *p = self.open_copy()?;
        }
        Err(DbError::Pool(format!(
            "the replica's copy {} kept changing while a reader was opened",
            self.path.display()
        )))
    }

    /// Opens a connection to a replica's copy that knows its file (see the module's
    /// notes): the file taken out of WAL mode and opened while the path named the same
    /// file throughout; tried again when a follower renamed another file in meanwhile.
    fn open_copy(&self) -> Result<Pooled, DbError> {
        let _one = self.opening.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for _ in 0..3 {
            let before = stamp(&self.path).map_err(|e| self.missing(&e))?;
            let opened = self.ensure_rollback_journal().and_then(|()| Ok(open(&self.path, 0)?));
            let after = stamp(&self.path).map_err(|e| self.missing(&e))?;
            if before.file() != after.file() {
                continue;
            }
            return match opened {
                Ok(mut p) => {
                    p.file = Some(after.file());
                    Ok(p)
                }
                Err(DbError::Sqlite(e)) => Err(self.unreadable(&e, Some(after))),
                Err(e) => Err(e),
            };
        }
        Err(DbError::Pool(format!(
            "the replica's copy {} kept being replaced while a reader was opened",
            self.path.display()
        )))
    }

    /// A replica's copy that SQLite failed to read (`at`: the file as it was then):
    /// recorded, and the error. A damaged file is refused until it changes; a missing
    /// or unreadable one (the follower's lock held past the busy timeout, say) is
    /// looked at again by the next read.
    fn unreadable(&self, e: &rusqlite::Error, at: Option<Stamp>) -> DbError {
        let (fault, at) = match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                (CopyFault::Corrupt, at)
            }
            _ if at.is_none() => (CopyFault::Missing, None),
            _ => (CopyFault::Unreadable, None),
        };
        self.check.fail(fault, at, &format!("reading it failed: {e}"))
    }

    /// A replica's copy that cannot be found or opened: recorded, and the error.
    fn missing(&self, e: &std::io::Error) -> DbError {
        let fault = if e.kind() == std::io::ErrorKind::NotFound {
            CopyFault::Missing
        } else {
            CopyFault::Unreadable
        };
        self.check.fail(
            fault,
            None,
            &format!("{} cannot be opened (is the follower running?): {e}", self.path.display()),
        )
    }

    /// [`ensure_rollback_journal`] on a replica's copy, its failure recorded.
    fn ensure_rollback_journal(&self) -> Result<(), DbError> {
        match ensure_rollback_journal(&self.path) {
            Err(DbError::Io(e)) => Err(self.missing(&e)),
            other => other,
        }
    }

    /// What is wrong with a replica's copy now, if anything (`/readyz`, logs).
    pub(in crate::db) fn copy_fault(&self) -> Option<CopyFault> {
        self.check.fault()
    }

    /// Records that a read of a replica's copy failed on `e`; returns the error to
    /// answer with. A read error from the copy is never a 500 (issue 28): the copy is
    /// `quick_check`ed before it is served again.
    pub(in crate::db) fn read_failed(&self) -> DbError {
        self.check.read_failed(stamp(&self.path).ok())
    }

    fn get_any(self: &Arc<Self>) -> Result<Reader, DbError> {
        let mut st = self.state();
        loop {
            if let Some(conn) = st.idle.pop() {
                return Ok(self.guard(conn));
            }
            if st.open < self.max {
                st.open += 1;
                drop(st);
                let opened = if self.following {
                    self.open_copy()
                } else {
                    open(&self.path, self.mmap()).map_err(DbError::from)
                };
                return match opened {
                    Ok(conn) => Ok(self.guard(conn)),
                    Err(e) => {
                        self.state().open -= 1;
                        self.returned.notify_one();
                        Err(e)
                    }
                };
            }
            st.waiting += 1;
            let (next, waited) = self
                .returned
                .wait_timeout(st, WAIT)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            st = next;
            st.waiting -= 1;
            if waited.timed_out() && st.idle.is_empty() && st.open >= self.max {
                return Err(DbError::Pool(format!(
                    "no read connection free within {} s",
                    WAIT.as_secs()
                )));
            }
        }
    }

    /// An idle connection, if one is free now (never waits, never opens one); never on
    /// a read replica, whose readers are checked against the follower's file first.
    pub(in crate::db) fn try_get(self: &Arc<Self>) -> Option<Reader> {
        if self.following {
            return None;
        }
        let conn = self.state().idle.pop()?;
        Some(self.guard(conn))
    }

    /// Gives back what the idle connections hold: all but one are closed (they are
    /// opened again on demand), and the last one's page cache is emptied
    /// (`PRAGMA shrink_memory`); its next reads fetch pages from the file again (from
    /// the OS's cache, usually). Returns how many connections it closed or emptied.
    pub(in crate::db) fn release_memory(&self) -> usize {
        let (closing, emptied) = {
            let mut state = self.state();
            let keep = state.idle.len().min(1);
            let closing = state.take_idle(keep);
            if let Some(p) = state.idle.first()
                && let Err(e) = empty(&p.conn, self.mmap())
            {
                tracing::debug!(error = %e, "emptying a reader failed");
            }
            (closing, keep)
        };
        // closed outside the lock: a read waiting for a connection need not wait
        let closed = closing.len();
        drop(closing);
        closed + emptied
    }

    fn guard(self: &Arc<Self>, conn: Pooled) -> Reader {
        Reader { readers: Arc::clone(self), conn: Some(conn) }
    }
}

/// A file restored by `litestream restore` keeps the WAL-mode header of the primary's
/// file (Litestream rewrites it to rollback mode only when it next applies page 1).
/// Read-only connections to a WAL-mode file would share a `-shm` index the follower
/// never updates, and their locks stall it: a replica takes the file to
/// `journal_mode=DELETE` before it reads it, the one write it ever makes (to the
/// header of its local copy; SQLite's exclusive lock keeps the follower out meanwhile).
pub(in crate::db) fn ensure_rollback_journal(path: &Path) -> Result<(), DbError> {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header)).map_err(DbError::Io)?;
    // bytes 18 and 19: the file format's write and read versions, 2 in WAL mode
    if header[18] != 2 && header[19] != 2 {
        return Ok(());
    }
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    let mode: String = c.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))?;
    tracing::info!(db = %path.display(), %mode, "took the replica's copy out of WAL mode");
    c.close().map_err(|(_, e)| DbError::from(e))?;
    Ok(())
}

/// Gives back what an idle connection holds: its page cache, and its mapping (unmapped
/// and mapped again on its next read, so the pages the last load touched leave the RSS).
fn empty(conn: &Connection, mmap: i64) -> rusqlite::Result<()> {
    conn.execute_batch("PRAGMA shrink_memory")?;
    if mmap > 0 {
        conn.pragma_update(None, "mmap_size", 0)?;
        conn.pragma_update(None, "mmap_size", mmap)?;
    }
    Ok(())
}

/// Opens one read connection with the read policy (SPEC §1, STYLE rule 7), mapping up
/// to `mmap` bytes of the file, and its watch.
fn open(path: &Path, mmap: i64) -> rusqlite::Result<Pooled> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    c.execute_batch("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;")?;
    if mmap > 0 {
        c.pragma_update(None, "mmap_size", mmap)?;
    }
    c.set_prepared_statement_cache_capacity(crate::db::STATEMENT_CACHE);
    crate::db::stable_plans(&c)?;
    let watch = Watch::new();
    let w = Arc::clone(&watch);
    c.progress_handler(PROGRESS_STEPS, Some(move || w.overrun()))?;
    Ok(Pooled { conn: c, watch, file: None, checked: None, opened: crate::clock::instant() })
}

impl Reader {
    fn pooled(&self) -> &Pooled {
        // always Some until drop
        self.conn.as_ref().unwrap_or_else(|| unreachable_conn())
    }

    /// The connection's watch (see [`Watch`]).
    pub(in crate::db) fn watch(&self) -> &Watch {
        &self.pooled().watch
    }
}

impl std::ops::Deref for Reader {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.pooled().conn
    }
}

#[expect(clippy::panic, reason = "a Reader holds its connection until it is dropped")]
fn unreachable_conn() -> &'static Pooled {
    panic!("a read connection was used after it was returned")
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // a connection left inside a transaction (a panic mid-read) is closed
            // rather than handed to the next request
            let mut closing = None;
            let waiting = {
                let mut state = self.readers.state();
                if conn.conn.is_autocommit() {
                    state.idle.push(conn);
                } else {
                    state.open -= 1;
                    closing = Some(conn);
                }
                state.waiting > 0
            };
            drop(closing);
            if waiting {
                self.readers.returned.notify_one();
            }
        }
    }
}

/// A read transaction around all of a request's queries: one snapshot, and one round
/// of file locks instead of one per statement (perf: SQLite's fcntl locking was 15% of
/// `me_jwt`, which runs three queries). `BEGIN` and `COMMIT` are cached statements;
/// dropped without [`ReadSnapshot::end`] (a panic), it rolls back, so the connection
/// goes back to the pool outside any transaction.
struct ReadSnapshot<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> ReadSnapshot<'c> {
    fn begin(conn: &'c Connection) -> Result<Self, DbError> {
        // a read replica's reader comes already inside the transaction in which it
        // checked that its cache is current
        if conn.is_autocommit() {
            conn.prepare_cached("BEGIN")?.execute([])?;
        }
        Ok(ReadSnapshot { conn, open: true })
    }

    fn end(mut self) -> Result<(), DbError> {
        self.open = false;
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        Ok(())
    }
}

impl Drop for ReadSnapshot<'_> {
    fn drop(&mut self) {
        if self.open && !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// One read in its own snapshot.
pub(in crate::db) fn snapshot_read<T, E>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<DbError>,
{
    let snapshot = ReadSnapshot::begin(conn)?;
    let out = f(conn);
    snapshot.end()?;
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod following;

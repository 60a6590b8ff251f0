//! The read connections: at most [`READERS`](super::READERS), opened on demand in the
//! thread that needs one, handed out one at a time and put back when the guard drops.
//!
//! This replaced r2d2, which opens connections on threads of its own: one of those
//! could still hold a connection when the process exited, so the writer was not the
//! last connection to close and SQLite left `-wal` and `-shm` behind (SPEC §2 asks
//! that a stopped hearth leave one file). Here every connection lives either in the
//! idle list or in a guard, so when the last handle goes, all of them are closed,
//! synchronously, before the writer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use super::DbError;

/// How long a read waits for a connection when all are in use.
const WAIT: Duration = Duration::from_secs(30);

/// How many SQLite virtual-machine steps run between two looks at a read's deadline
/// (a look is one monotonic clock read: ~20 ns every few microseconds of work).
const PROGRESS_STEPS: i32 = 1000;

/// The deadline of a read running on one of the runtime's own threads: SQLite's
/// progress handler interrupts the read once it is past, and says so.
pub(super) struct Watch {
    /// Nanoseconds since [`clock`]'s origin; 0 while no deadline is set.
    deadline: AtomicU64,
    fired: AtomicBool,
}

/// Monotonic nanoseconds since the first call.
fn clock() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let since = ORIGIN.get_or_init(Instant::now).elapsed().as_nanos();
    u64::try_from(since).unwrap_or(u64::MAX)
}

impl Watch {
    fn new() -> Arc<Watch> {
        Arc::new(Watch {
            deadline: AtomicU64::new(0),
            fired: AtomicBool::new(false),
        })
    }

    /// Interrupts the connection's statements once `budget` has passed.
    pub(super) fn arm(&self, budget: Duration) {
        let budget = u64::try_from(budget.as_nanos()).unwrap_or(u64::MAX);
        self.fired.store(false, Ordering::Relaxed);
        self.deadline
            .store(clock().saturating_add(budget).max(1), Ordering::Relaxed);
    }

    /// Removes the deadline; whether it interrupted anything since [`Watch::arm`].
    pub(super) fn disarm(&self) -> bool {
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

/// A connection and its watch.
struct Pooled {
    conn: Connection,
    watch: Arc<Watch>,
}

/// The read connections.
pub(super) struct Readers {
    path: PathBuf,
    max: usize,
    state: Mutex<State>,
    returned: Condvar,
}

struct State {
    idle: Vec<Pooled>,
    /// Connections that exist (idle or handed out).
    open: usize,
}

/// A read connection, back to the idle list on drop.
pub(super) struct Reader {
    readers: Arc<Readers>,
    conn: Option<Pooled>,
}

impl Readers {
    pub(super) fn new(path: &Path, max: usize) -> Arc<Readers> {
        Arc::new(Readers {
            path: path.to_owned(),
            max: max.max(1),
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
            }),
            returned: Condvar::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A connection: an idle one, a new one while fewer than `max` exist, or the next
    /// one returned.
    pub(super) fn get(self: &Arc<Self>) -> Result<Reader, DbError> {
        let mut st = self.state();
        loop {
            if let Some(conn) = st.idle.pop() {
                return Ok(self.guard(conn));
            }
            if st.open < self.max {
                st.open += 1;
                drop(st);
                return match open(&self.path) {
                    Ok(conn) => Ok(self.guard(conn)),
                    Err(e) => {
                        self.state().open -= 1;
                        self.returned.notify_one();
                        Err(e.into())
                    }
                };
            }
            let (next, waited) = self
                .returned
                .wait_timeout(st, WAIT)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            st = next;
            if waited.timed_out() && st.idle.is_empty() && st.open >= self.max {
                return Err(DbError::Pool(format!(
                    "no read connection free within {} s",
                    WAIT.as_secs()
                )));
            }
        }
    }

    /// An idle connection, if one is free now (never waits, never opens one).
    pub(super) fn try_get(self: &Arc<Self>) -> Option<Reader> {
        let conn = self.state().idle.pop()?;
        Some(self.guard(conn))
    }

    fn guard(self: &Arc<Self>, conn: Pooled) -> Reader {
        Reader {
            readers: Arc::clone(self),
            conn: Some(conn),
        }
    }
}

/// Opens one read connection with the read policy (SPEC §1, STYLE rule 7), and its
/// watch.
fn open(path: &Path) -> rusqlite::Result<Pooled> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(super::BUSY_TIMEOUT)?;
    c.execute_batch("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;")?;
    c.set_prepared_statement_cache_capacity(super::STATEMENT_CACHE);
    let watch = Watch::new();
    let w = Arc::clone(&watch);
    c.progress_handler(PROGRESS_STEPS, Some(move || w.overrun()))?;
    Ok(Pooled { conn: c, watch })
}

impl Reader {
    fn pooled(&self) -> &Pooled {
        // always Some until drop
        self.conn.as_ref().unwrap_or_else(|| unreachable_conn())
    }

    /// The connection's watch (see [`Watch`]).
    pub(super) fn watch(&self) -> &Watch {
        &self.pooled().watch
    }
}

impl std::ops::Deref for Reader {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.pooled().conn
    }
}

#[expect(
    clippy::panic,
    reason = "a Reader holds its connection until it is dropped"
)]
fn unreachable_conn() -> &'static Pooled {
    panic!("a read connection was used after it was returned")
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // a connection left inside a transaction (a panic mid-read) is closed
            // rather than handed to the next request
            if conn.conn.is_autocommit() {
                self.readers.state().idle.push(conn);
            } else {
                self.readers.state().open -= 1;
                drop(conn);
            }
            self.readers.returned.notify_one();
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
        conn.prepare_cached("BEGIN")?.execute([])?;
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
pub(super) fn snapshot_read<T, E, F>(conn: &Connection, f: &F) -> Result<T, E>
where
    F: Fn(&Connection) -> Result<T, E>,
    E: From<DbError>,
{
    let snapshot = ReadSnapshot::begin(conn)?;
    let out = f(conn);
    snapshot.end()?;
    out
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn at_most_max_connections_and_waiters_get_the_returned_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
            .unwrap();
        let readers = Readers::new(&path, 2);
        let a = readers.get().unwrap();
        let b = readers.get().unwrap();
        assert_eq!(readers.state().open, 2);
        let r = Arc::clone(&readers);
        let waiter = std::thread::spawn(move || {
            let c = r.get().unwrap();
            c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))
                .unwrap()
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(a);
        assert_eq!(waiter.join().unwrap(), 0);
        drop(b);
        assert_eq!(readers.state().open, 2);
        assert_eq!(readers.state().idle.len(), 2);
    }
}

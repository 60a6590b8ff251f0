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
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::DbError;

/// How long a read waits for a connection when all are in use.
const WAIT: Duration = Duration::from_secs(30);

/// The read connections.
pub(super) struct Readers {
    path: PathBuf,
    max: usize,
    state: Mutex<State>,
    returned: Condvar,
}

struct State {
    idle: Vec<Connection>,
    /// Connections that exist (idle or handed out).
    open: usize,
}

/// A read connection, back to the idle list on drop.
pub(super) struct Reader {
    readers: Arc<Readers>,
    conn: Option<Connection>,
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

    fn guard(self: &Arc<Self>, conn: Connection) -> Reader {
        Reader {
            readers: Arc::clone(self),
            conn: Some(conn),
        }
    }
}

/// Opens one read connection with the read policy (SPEC §1, STYLE rule 7).
fn open(path: &Path) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(super::BUSY_TIMEOUT)?;
    c.execute_batch("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;")?;
    c.set_prepared_statement_cache_capacity(super::STATEMENT_CACHE);
    Ok(c)
}

impl std::ops::Deref for Reader {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        // always Some until drop
        self.conn.as_ref().unwrap_or_else(|| unreachable_conn())
    }
}

#[expect(
    clippy::panic,
    reason = "a Reader holds its connection until it is dropped"
)]
fn unreachable_conn() -> &'static Connection {
    panic!("a read connection was used after it was returned")
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // a connection left inside a transaction (a panic mid-read) is closed
            // rather than handed to the next request
            if conn.is_autocommit() {
                self.readers.state().idle.push(conn);
            } else {
                self.readers.state().open -= 1;
                drop(conn);
            }
            self.readers.returned.notify_one();
        }
    }
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

//! Checkpoints off the writer (issue 34). SQLite's automatic checkpoint runs inside the
//! commit that takes the WAL past 1000 pages, on the writer, and syncs the WAL and the
//! database file. While readers keep old snapshots (always, under load) it cannot
//! finish, so the next commit tries again: every commit past the mark paid for a
//! checkpoint and its `fsync`s, and every queued write waited behind them.
//!
//! `serve` turns the writer's automatic checkpoints off and checkpoints here instead:
//! a thread with a connection of its own looks at the WAL's size every
//! [`Checkpointer::every`] and, past [`WAL_BYTES`], runs a `PASSIVE` checkpoint, which
//! copies what no reader still needs and never waits for a lock (so it does not fight
//! Litestream either, SPEC §9; under Litestream hearth never checkpoints at all:
//! [`crate::db::Db::set_replicated`] stops this thread). WAL mode lets a checkpoint and
//! a write run at once; the writer restarts the WAL once a checkpoint has copied all of
//! it. The thread and its connection end before the writer closes (`Db::close`, or the
//! field order of `Db`), so the writer stays the last connection and removes the WAL.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::db::{Db, DbError};

/// The WAL size past which the thread checkpoints: SQLite's own mark, 1000 pages of
/// 4 KiB.
pub const WAL_BYTES: u64 = 1000 * 4096;

/// The checkpointing thread; dropping it stops the thread and closes its connection.
pub(in crate::db) struct Checkpointer {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

/// How often the thread looks at the WAL's size.
pub const EVERY: Duration = Duration::from_millis(100);

impl Checkpointer {
    /// Starts the thread on the database at `path`.
    pub(in crate::db) fn start(path: &Path, every: Duration) -> Result<Checkpointer, DbError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        crate::db::init_connection(&conn)?;
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let s = Arc::clone(&stop);
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        let thread = std::thread::Builder::new()
            .name("hearth-checkpoint".into())
            .spawn(move || run(&conn, &wal, &s, every))
            .map_err(|e| DbError::Task(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(Checkpointer { stop, thread: Some(thread) })
    }
}

fn run(conn: &Connection, wal: &Path, stop: &(Mutex<bool>, Condvar), every: Duration) {
    let (stopped, wake) = stop;
    let mut done = stopped.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        done = wake.wait_timeout(done, every).unwrap_or_else(PoisonError::into_inner).0;
        if *done {
            return;
        }
        let size = std::fs::metadata(wal).map_or(0, |m| m.len());
        if size < WAL_BYTES {
            continue;
        }
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::debug!(error = %e, "a background checkpoint failed");
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap_or_else(PoisonError::into_inner) = true;
        wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Db {
    /// Checkpoints on a thread of its own from now on, looking every `every`, and never
    /// in the writer's commits (`serve`). Not on a read replica's copy, nor under
    /// Litestream, which checkpoints itself ([`Db::set_replicated`] stops the thread).
    pub fn checkpoint_in_background(&self, every: Duration) -> Result<(), DbError> {
        if self.read_only || self.is_replicated() {
            return Ok(());
        }
        let mut slot = self.checkpointer.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            self.with_writer(|c| c.pragma_update(None, "wal_autocheckpoint", 0))?;
            *slot = Some(Checkpointer::start(&self.path, every)?);
        }
        Ok(())
    }

    /// Whether [`Db::checkpoint_in_background`]'s thread runs.
    pub fn checkpoints_in_background(&self) -> bool {
        self.checkpointer.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }

    /// Stops the thread, if it runs, and closes its connection.
    pub(in crate::db) fn stop_checkpointer(&self) {
        let taken = self.checkpointer.lock().unwrap_or_else(PoisonError::into_inner).take();
        drop(taken);
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    fn fill(db: &Db, rows: usize) {
        db.write_blocking(|tx| {
            tx.execute_batch("CREATE TABLE IF NOT EXISTS filler (x BLOB)")?;
            for _ in 0..rows {
                tx.execute("INSERT INTO filler VALUES (zeroblob(4000))", [])?;
            }
            Ok::<_, DbError>(())
        })
        .unwrap();
    }

    /// The writer no longer checkpoints; the thread copies a WAL past the mark into the
    /// database file; closed, the writer is still the last connection and removes the
    /// WAL (SPEC §2: a stopped hearth leaves one file).
    #[test]
    fn the_thread_checkpoints_and_the_writer_stays_the_last_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let (db, _) = Db::open_or_create(&path, 0).unwrap();
        db.checkpoint_in_background(Duration::from_millis(5)).unwrap();
        let auto: i64 =
            db.with_writer(|c| c.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))).unwrap();
        assert_eq!(auto, 0);
        let before = std::fs::metadata(&path).unwrap().len();
        fill(&db, 1500);
        // the rows reach the database file only by a checkpoint, the thread's
        let deadline = crate::clock::instant() + Duration::from_secs(30);
        while std::fs::metadata(&path).unwrap().len() < before + 1500 * 4000 {
            assert!(crate::clock::instant() < deadline, "no checkpoint within 30 s");
            std::thread::yield_now();
        }
        db.close();
        drop(db);
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        assert!(!std::path::Path::new(&wal).exists(), "the WAL is gone");
    }

    /// Under Litestream hearth never checkpoints: the thread stops, and does not start.
    #[test]
    fn a_replicated_database_has_no_checkpoint_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (db, _) = Db::open_or_create(&dir.path().join("h.db"), 0).unwrap();
        db.checkpoint_in_background(EVERY).unwrap();
        assert!(db.checkpoints_in_background());
        db.set_replicated().unwrap();
        assert!(!db.checkpoints_in_background());
        db.checkpoint_in_background(EVERY).unwrap();
        assert!(!db.checkpoints_in_background());
    }
}

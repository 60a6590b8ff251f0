//! WAL checkpoints that never wait for another process (SPEC §9). Litestream keeps a
//! read transaction open on the database to hold the WAL until it has copied it, and
//! checkpoints itself; a `TRUNCATE` checkpoint with hearth's busy timeout waited the
//! whole timeout behind that lock (shutdown took 5–7 s instead of milliseconds).
//! SQLite's automatic checkpoints are `PASSIVE` and never wait, so they do not fight
//! Litestream either.

use std::time::Duration;

use rusqlite::Connection;

/// What a checkpoint did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The WAL was copied into the database and truncated.
    Done,
    /// Another connection (Litestream, a CLI command) held a lock: the frames that
    /// could be copied were, and the WAL stays for the next checkpoint.
    Busy,
}

/// A `TRUNCATE` checkpoint that does not wait for locks held by other connections
/// (busy timeout 0 for its duration; the connection's own timeout is put back). A busy
/// result is logged at debug level with `what` and returned, never ignored.
pub fn truncate_now(conn: &Connection, what: &str) -> rusqlite::Result<Outcome> {
    conn.busy_timeout(Duration::ZERO)?;
    let r = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
    });
    conn.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    let (busy, log, done) = r?;
    if busy == 0 {
        return Ok(Outcome::Done);
    }
    tracing::debug!(
        what,
        wal_frames = log,
        checkpointed = done,
        "checkpoint was busy (another process, e.g. Litestream, holds a read lock); the WAL stays until the next one"
    );
    Ok(Outcome::Busy)
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn a_checkpoint_behind_a_reader_returns_busy_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        let w = Connection::open(&path).unwrap();
        w.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        assert_eq!(truncate_now(&w, "test").unwrap(), Outcome::Done);
        w.execute("INSERT INTO t VALUES (2)", []).unwrap();
        // a reader holding a snapshot, as Litestream does
        let r = Connection::open(&path).unwrap();
        r.execute_batch("BEGIN").unwrap();
        r.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0)).unwrap();
        w.execute("INSERT INTO t VALUES (3)", []).unwrap();
        let start = crate::clock::instant();
        assert_eq!(truncate_now(&w, "test").unwrap(), Outcome::Busy);
        assert!(
            start.elapsed() < Duration::from_millis(500),
            "did not wait: {:?}",
            start.elapsed()
        );
        r.execute_batch("COMMIT").unwrap();
        assert_eq!(truncate_now(&w, "test").unwrap(), Outcome::Done);
        // the busy timeout is back
        w.execute_batch("BEGIN IMMEDIATE").unwrap();
        let other = Connection::open(&path).unwrap();
        other.busy_timeout(Duration::from_millis(50)).unwrap();
        assert!(other.execute_batch("BEGIN IMMEDIATE").is_err());
        w.execute_batch("COMMIT").unwrap();
    }
}

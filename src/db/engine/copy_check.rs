//! A read replica's checks of its copy (SPEC §9, issue 28): a replica never serves a
//! copy that is not the primary's data as it was, or later.
//!
//! Every time a reader finds the file changed (another inode, size or modification
//! time: the follower applied something, or restored a new file), it checks the copy
//! inside the read transaction the request will read in, before any request reads it:
//! - the schema version (`application_id`, `user_version`) is this binary's: a copy of
//!   another hearth version is refused, not read with the wrong queries;
//! - the replication position ([`crate::db::position`]) is not below one this process has
//!   served: a copy that went back in time (an older generation restored, a stale file
//!   swapped in) would serve data the members have seen change, so it is refused until
//!   the follower brings it past what was served;
//! - a new file (the follower restored one: a new inode), and a copy that was found
//!   damaged or on which a read failed, is served only after `PRAGMA quick_check`
//!   ([`QUICK_CHECK`]) passes on it.
//!
//! A copy that fails is answered 503 `service_unavailable` (never 500), with a message
//! that says what is wrong, and `/healthz` and `/readyz` answer 503 too (they read
//! through the same readers). The state changes are logged: one WARN when the copy
//! becomes unusable or its fault changes, one INFO when it is usable again; never a
//! line per request.
//!
//! Why `quick_check` is not run on every change: it reads every page of the file,
//! under the shared lock that keeps the follower out, and the follower applies a change
//! every 100 ms. Measured on the bench dataset (`bench/gen_dataset.py`, imported: 115 MB,
//! 28,082 pages) on this 2-core VM: `quick_check` 1.1 s the first time, 0.5 s with the
//! file in the OS cache (`integrity_check`, which also checks index contents, 3.7 s);
//! the schema version and the position 0.3 ms and 0.8 ms together. So the cheap checks
//! run on every change, and the whole-file check where the whole file is new or
//! suspect (docs/operations.md, "Read replicas").

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::db::{DbError, migrate, position};

/// What identifies the bytes of a file: a follower that writes it changes its size or
/// modification time; one that restores it anew replaces it (a new inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::db) struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

impl Stamp {
    /// The file itself (device, inode), whatever its bytes.
    pub(in crate::db) fn file(self) -> (u64, u64) {
        (self.dev, self.ino)
    }
}

pub(in crate::db) fn stamp(path: &Path) -> std::io::Result<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        len: m.len(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    })
}

/// What `PRAGMA quick_check` is run with: the first error is enough to refuse the copy.
pub(in crate::db) const QUICK_CHECK: &str = "PRAGMA quick_check(1)";

/// After a read failed on a copy that passed a `quick_check` less than this long ago,
/// the copy is not checked again: a request that fails on a sound copy (a bug) must
/// not make the replica read its whole file on every try.
pub(in crate::db) const RECHECK_AFTER: Duration = Duration::from_secs(10);

/// What is wrong with a replica's copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyFault {
    /// The file is not there (deleted; a restarting follower restores a new one).
    Missing,
    /// The file cannot be read (permissions, I/O error, not a database).
    Unreadable,
    /// Another schema version (the primary runs another hearth version).
    OtherSchema,
    /// An older position than this replica has served (an older copy swapped in).
    Older,
    /// Damaged: a read failed on it, or `quick_check` found an error.
    Corrupt,
}

impl CopyFault {
    /// What a client is told (a 503's message).
    pub fn message(self) -> &'static str {
        match self {
            CopyFault::Missing => {
                "This read replica's copy of the database is missing (its follower is restoring it). Please try again shortly."
            }
            CopyFault::Unreadable => {
                "This read replica cannot read its copy of the database. Please try again later."
            }
            CopyFault::OtherSchema => {
                "This read replica's copy of the database is of another hearth version than the replica. Please try again later."
            }
            CopyFault::Older => {
                "This read replica's copy of the database is older than data it has already served. Please try again shortly."
            }
            CopyFault::Corrupt => {
                "This read replica's copy of the database is damaged. Please try again later."
            }
        }
    }
}

impl std::fmt::Display for CopyFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CopyFault::Missing => "missing",
            CopyFault::Unreadable => "unreadable",
            CopyFault::OtherSchema => "of another schema version",
            CopyFault::Older => "older than data already served",
            CopyFault::Corrupt => "damaged",
        })
    }
}

/// The checks' state, shared by all readers of one copy.
#[derive(Debug, Default)]
pub(in crate::db) struct CopyCheck {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The file as it was when it last passed the checks.
    passed: Option<Stamp>,
    /// The file (device, inode) that last passed a `quick_check`.
    file: Option<(u64, u64)>,
    /// The highest position served from the copy.
    served: i64,
    /// The file as it was when it last passed a `quick_check`, and when.
    deep_passed: Option<(Stamp, Instant)>,
    /// The fault found, and the file it was found in (`None`: no file).
    fault: Option<(CopyFault, Option<Stamp>)>,
}

impl CopyCheck {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Checks the copy `conn` reads, inside its read transaction, when the file
    /// (`now`) changed since it last passed; `Err` when it must not be served.
    pub(in crate::db) fn verify(&self, conn: &Connection, now: Stamp) -> Result<(), DbError> {
        let mut st = self.state();
        if st.passed == Some(now) {
            return Ok(());
        }
        if let Some((fault, at)) = st.fault
            && at == Some(now)
        {
            return Err(DbError::Copy(fault));
        }
        // a new file (a fresh restore), or one found damaged: all of it is checked
        let new_file = st.file != Some(now.file());
        let deep = new_file || st.fault.is_some_and(|(f, _)| f == CopyFault::Corrupt);
        match inspect(conn, st.served, deep) {
            Ok(at) => {
                if deep {
                    st.deep_passed = Some((now, crate::clock::instant()));
                }
                if let Some((fault, _)) = st.fault.take() {
                    tracing::info!(was = ?fault, position = at, "the replica's copy is usable again");
                }
                st.passed = Some(now);
                st.file = Some(now.file());
                st.served = st.served.max(at);
                Ok(())
            }
            Err((fault, detail)) => Err(Self::record(&mut st, fault, Some(now), &detail)),
        }
    }

    /// Records a fault found outside [`CopyCheck::verify`] (the file is gone, or a
    /// read of it failed) and returns the error to answer with.
    pub(in crate::db) fn fail(&self, fault: CopyFault, at: Option<Stamp>, detail: &str) -> DbError {
        Self::record(&mut self.state(), fault, at, detail)
    }

    /// A read of the copy failed (a request's 500 on a replica): unless the file
    /// passed a `quick_check` less than [`RECHECK_AFTER`] ago, it is checked whole
    /// before it is served again. Returns the error to answer with.
    pub(in crate::db) fn read_failed(&self, at: Option<Stamp>) -> DbError {
        let mut st = self.state();
        match at {
            None => Self::record(&mut st, CopyFault::Missing, None, "the file is gone"),
            Some(now)
                if st.deep_passed.is_some_and(|(s, t)| s == now && t.elapsed() < RECHECK_AFTER) =>
            {
                DbError::Copy(CopyFault::Unreadable)
            }
            Some(_) => Self::record(
                &mut st,
                CopyFault::Corrupt,
                None,
                "a read of it failed (the error is logged with its request id)",
            ),
        }
    }

    /// The fault the copy has now, if any.
    pub(in crate::db) fn fault(&self) -> Option<CopyFault> {
        self.state().fault.map(|(f, _)| f)
    }

    fn record(st: &mut State, fault: CopyFault, at: Option<Stamp>, detail: &str) -> DbError {
        if st.fault.map(|(f, _)| f) != Some(fault) {
            tracing::warn!(
                fault = ?fault,
                served_position = st.served,
                "the replica's copy cannot be served: {detail}; answering 503 until the follower fixes it"
            );
        }
        st.fault = Some((fault, at));
        st.passed = None;
        DbError::Copy(fault)
    }
}

/// The checks of the module's notes on the copy `conn` reads; its position when they
/// pass, else the fault and what was found.
fn inspect(conn: &Connection, served: i64, deep: bool) -> Result<i64, (CopyFault, String)> {
    let unreadable = |e: rusqlite::Error| {
        let fault = match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                CopyFault::Corrupt
            }
            _ => CopyFault::Unreadable,
        };
        (fault, format!("reading it failed: {e}"))
    };
    let version = match migrate::identify(conn) {
        Ok(v) => v,
        Err(DbError::Sqlite(e)) => return Err(unreadable(e)),
        Err(e) => return Err((CopyFault::OtherSchema, e.to_string())),
    };
    if version != migrate::VERSION {
        return Err((
            CopyFault::OtherSchema,
            format!(
                "it has schema version {version} and this hearth reads {}: run the primary's hearth version",
                migrate::VERSION
            ),
        ));
    }
    let at = position::get(conn).map_err(unreadable)?;
    if at < served {
        return Err((
            CopyFault::Older,
            format!(
                "it went back in time: position {at}, and this replica has served position {served} (an older copy restored?)"
            ),
        ));
    }
    if deep {
        let verdict: String = conn
            .prepare_cached(QUICK_CHECK)
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(unreadable)?;
        if verdict != "ok" {
            return Err((CopyFault::Corrupt, format!("quick_check found: {verdict}")));
        }
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use rusqlite::OpenFlags;

    use super::*;

    /// Checks the file at `path` as a replica's reader does: in a read transaction.
    fn check(c: &CopyCheck, path: &std::path::Path) -> Result<(), DbError> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        conn.execute_batch("BEGIN").unwrap();
        conn.query_row("PRAGMA schema_version", [], |_| Ok(())).unwrap();
        c.verify(&conn, stamp(path).unwrap())
    }

    /// Changes the file behind the check's back, as a follower does.
    fn change(path: &std::path::Path, sql: &str) {
        let w = Connection::open(path).unwrap();
        w.execute_batch(sql).unwrap();
        // a new modification time even within the file system's granularity
        static CHANGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = CHANGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let f = std::fs::File::options().write(true).open(path).unwrap();
        #[expect(
            clippy::disallowed_methods,
            reason = "a file's mtime is the filesystem's wall time, which no Clock sets"
        )]
        f.set_modified(std::time::SystemTime::now() + Duration::from_secs(n)).unwrap();
    }

    #[test]
    fn a_copy_is_refused_while_older_or_of_another_version_and_served_again_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        let (db, _) = crate::db::Db::open_or_create(&path, 0).unwrap();
        for _ in 0..2 {
            db.write_blocking(|_| Ok::<_, DbError>(())).unwrap();
        }
        db.close();
        drop(db);
        change(&path, "PRAGMA journal_mode = DELETE");
        let c = CopyCheck::default();
        check(&c, &path).unwrap();
        assert_eq!(c.fault(), None);
        assert_eq!(c.state().served, 2);

        change(&path, "UPDATE hearth_position SET position = 1");
        assert!(matches!(check(&c, &path), Err(DbError::Copy(CopyFault::Older))));
        assert_eq!(c.fault(), Some(CopyFault::Older));
        // the same file again: refused without looking
        assert!(matches!(check(&c, &path), Err(DbError::Copy(CopyFault::Older))));
        change(&path, "UPDATE hearth_position SET position = 3");
        check(&c, &path).unwrap();
        assert_eq!((c.fault(), c.state().served), (None, 3));

        change(&path, "PRAGMA user_version = 99");
        assert!(matches!(check(&c, &path), Err(DbError::Copy(CopyFault::OtherSchema))));
        change(&path, &format!("PRAGMA user_version = {}", migrate::VERSION));
        check(&c, &path).unwrap();

        // a read failed on a sound copy: checked whole, then served again
        let failed = c.read_failed(Some(stamp(&path).unwrap()));
        assert!(matches!(failed, DbError::Copy(CopyFault::Corrupt)));
        assert_eq!(c.fault(), Some(CopyFault::Corrupt));
        check(&c, &path).unwrap();
        assert_eq!(c.fault(), None);
        // and again within RECHECK_AFTER of that check: not checked again
        let again = c.read_failed(Some(stamp(&path).unwrap()));
        assert!(matches!(again, DbError::Copy(CopyFault::Unreadable)));
        assert_eq!(c.fault(), None, "nothing recorded");
        // gone
        assert!(matches!(c.read_failed(None), DbError::Copy(CopyFault::Missing)));
    }
}

//! A read replica's copy of the database (SPEC §9): opening it, and the replication
//! position it has reached.

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags};

use crate::db::{BUSY_TIMEOUT, Counters, Db, DbError, lock_shared, migrate, position, readers};

impl Db {
    /// Opens a read replica's copy of the database (SPEC §9): a file that a
    /// Litestream follower (`litestream restore -f`) keeps up to date. Read-only: no
    /// migration, no writes (writes answer 503 `service_unavailable` if one ever gets
    /// here); readers see every change the follower applies (`readers`). Refuses a
    /// file whose schema version is not this binary's (the primary runs another
    /// hearth version).
    pub fn open_replica(path: &Path) -> Result<Db, DbError> {
        readers::ensure_rollback_journal(path)?;
        let in_use = lock_shared(path)?;
        let writer = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        writer.busy_timeout(BUSY_TIMEOUT)?;
        let version = migrate::identify(&writer)?;
        if version != migrate::VERSION {
            return Err(DbError::NotHearth(format!(
                "the replicated database has schema version {version} and this hearth writes {}: run the same hearth version as the primary",
                migrate::VERSION
            )));
        }
        let at = position::get(&writer)?;
        Ok(Db {
            path: path.to_owned(),
            readers: readers::Readers::following(path, readers()),
            checkpointer: Arc::default(),
            writer: Arc::new(Mutex::new(writer)),
            _in_use: Arc::new(in_use),
            writable: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            last_probe: Arc::new(Mutex::new(None)),
            queue: Arc::default(),
            position: Arc::new(std::sync::atomic::AtomicI64::new(at)),
            read_only: true,
            held: Arc::default(),
            replicated: Arc::default(),
            push_sink: Arc::default(),
            // a replica's readers are checked against the follower's file first
            inline_budget_us: Arc::new(AtomicU64::new(0)),
            stats: Arc::new(Counters::default()),
        })
    }

    /// What is wrong with a read replica's copy now, if anything (issue 28): reads
    /// answer 503 with it, and so do `/healthz` and `/readyz`.
    pub fn copy_fault(&self) -> Option<crate::db::CopyFault> {
        if self.read_only { self.readers.copy_fault() } else { None }
    }

    /// A read of a replica's copy failed (a request that would be answered 500): the
    /// copy is checked whole before it is served again (unless it just passed such a
    /// check). Returns the error to answer with instead: a read error from the copy
    /// is 503, never 500. On a primary, `None`.
    pub fn copy_read_failed(&self) -> Option<DbError> {
        self.read_only.then(|| self.readers.read_failed())
    }

    /// Whether this is a read replica's copy ([`Db::open_replica`]).
    pub fn is_replica(&self) -> bool {
        self.read_only
    }

    /// The replication position after this process's last write (a primary's
    /// `X-Hearth-Position`).
    pub fn last_position(&self) -> i64 {
        self.position.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Reads the position of the file now (a replica's copy, or writes by other
    /// processes on a primary) and keeps the larger in [`Db::last_position`].
    pub async fn current_position(&self) -> Result<i64, DbError> {
        let at = self.read(|c| position::get(c).map_err(DbError::from)).await?;
        if !self.read_only {
            self.position.fetch_max(at, std::sync::atomic::Ordering::AcqRel);
        }
        Ok(at)
    }
}

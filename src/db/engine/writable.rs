//! Whether the database takes writes (`/healthz`'s `writable`, `/readyz`): what the
//! last write said, and a small write probe at most once every [`crate::db::PROBE_EVERY`]
//! while it does not.

use crate::db::{Db, DbError, PROBE_EVERY};

impl Db {
    pub(in crate::db) fn set_writable(&self, ok: bool) {
        let was = self.writable.swap(ok, std::sync::atomic::Ordering::AcqRel);
        if was && !ok {
            tracing::warn!(db = %self.path.display(), "the database stopped taking writes (disk full, read-only or I/O error); answering writes 503 until it recovers");
        } else if !was && ok {
            tracing::info!(db = %self.path.display(), "the database takes writes again");
        }
    }

    /// Whether the last write succeeded (false after a storage fault, until a write or
    /// [`Db::probe_writable`] succeeds again).
    pub fn writable(&self) -> bool {
        self.writable.load(std::sync::atomic::Ordering::Acquire)
    }

    /// [`Db::writable`], re-checked with a write probe (at most once a second) while it
    /// is false, so that a fault that is gone is seen without a restart.
    pub async fn check_writable(&self) -> bool {
        if self.writable() {
            return true;
        }
        {
            let mut last =
                self.last_probe.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if last.is_some_and(|t| t.elapsed() < PROBE_EVERY) {
                return false;
            }
            *last = Some(crate::clock::instant());
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.probe_writable()).await.unwrap_or(false)
    }

    /// Tries a write that allocates a page and commits (a table created and dropped in
    /// one transaction), and records the outcome: this is how a storage fault that is
    /// gone is noticed when no request writes. Only run while [`Db::writable`] is false
    /// (and at start), since it changes the schema cookie.
    pub fn probe_writable(&self) -> bool {
        if self.read_only {
            return false;
        }
        let r = self.write_blocking(|tx| {
            tx.execute_batch(
                "CREATE TABLE hearth_write_probe (x BLOB); DROP TABLE hearth_write_probe;",
            )
            .map_err(DbError::from)
        });
        if let Err(e) = &r {
            tracing::debug!(error = %e, "write probe failed");
        }
        r.is_ok()
    }
}

impl Db {
    /// Refuses (`true`) or accepts writes again: `crate::litestream` holds them while
    /// Litestream is behind. A refused write answers [`DbError::NotReplicated`]
    /// before it begins, so nothing it would have written is acknowledged.
    pub fn hold_writes(&self, held: bool) {
        self.held.store(held, std::sync::atomic::Ordering::Release);
    }

    /// Whether writes are refused ([`Db::hold_writes`]).
    pub fn writes_held(&self) -> bool {
        self.held.load(std::sync::atomic::Ordering::Acquire)
    }

    /// This database is replicated by Litestream (SPEC §9, issue 28): from now on the
    /// writer never checkpoints — no automatic checkpoints (`wal_autocheckpoint = 0`),
    /// none when it closes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`, and [`Db::close`]
    /// skips its own). Litestream checkpoints the WAL after it has copied it; a
    /// checkpoint of hearth's while Litestream is down would let the next write
    /// restart the WAL before Litestream saw its frames, and a Litestream that then
    /// starts again has only its snapshot path left (issue 28, item 2).
    pub fn set_replicated(&self) -> Result<(), DbError> {
        if self.read_only {
            return Ok(());
        }
        self.replicated.store(true, std::sync::atomic::Ordering::Release);
        self.stop_checkpointer();
        self.with_writer(|c| {
            c.pragma_update(None, "wal_autocheckpoint", 0)?;
            c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
            Ok(())
        })
    }

    /// Whether [`Db::set_replicated`] was called.
    pub fn is_replicated(&self) -> bool {
        self.replicated.load(std::sync::atomic::Ordering::Acquire)
    }
}

//! All SQL lives under this module. [`Db::read`] and [`Db::write`] are the only entry
//! points from async code: a write runs on a blocking thread with the single writer
//! inside a `BEGIN IMMEDIATE` transaction; a read runs on the runtime's own thread under
//! a strict time bound (SQLite's progress handler interrupts it past the bound, and it
//! runs again on a blocking thread), or on a blocking thread when no reader is idle.

/// SQL put together from constant pieces (`format!` of column lists, fragments such
/// as `courses::VISIBLE`), formatted once per call site and kept for the process: a
/// hot query no longer formats and allocates its text on every run before the
/// statement cache looks it up (issue 17). Only for text whose every argument is a
/// constant; SQL that varies with a value of the call (a table chosen at run time)
/// uses one `sql!` per variant.
macro_rules! sql {
    ($($arg:tt)+) => {{
        static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        SQL.get_or_init(|| format!($($arg)+)).as_str()
    }};
}

// the engine: connections, the read pool, the writer's health, the schema and its
// migrations, checks, seeds and a replica's copy (db/engine/); the tables are the
// other modules
mod engine;
pub use engine::checkpointer::EVERY as CHECKPOINT_EVERY;
pub use engine::writer::WriteStats;
pub use engine::{check, checkpoint, indexes, location, migrate, position, seed};
use engine::{checkpointer, copy_check, error, faults, file_lock, integrity, readers, writer};

pub mod account;
pub mod account_codes;
pub mod apps;
pub mod avatars;
pub mod banners;
pub mod categories;
pub mod category_follows;
pub mod connections;
pub mod contact;
pub mod contribution_edit;
pub mod contribution_tally;
pub mod contributions;
pub mod contributors;
pub mod course_lessons;
pub mod course_sections;
pub mod course_view;
pub mod courses;
pub mod custom_content;
pub mod custom_menus;
pub mod events;
pub mod export;
pub mod feed;
pub mod follows;
pub mod groups;
pub mod hides;
pub mod import;
pub mod item_follows;
pub mod item_switches;
pub mod jwt;
pub mod legal;
pub mod lesson_comments;
pub mod media;
pub mod media_items;
pub mod members;
pub mod messages;
pub mod moderation;
pub mod notification_offs;
pub mod notifications;
pub mod onboarding;
mod pair;
pub mod polls;
pub mod preferences;
pub mod profiles;
pub mod reactions;
pub mod related;
pub mod search;
pub mod sessions;
pub mod spaces;
pub mod tags;
pub mod tokens;
pub mod user_blocks;
pub mod user_courses;
pub mod user_directory;
pub mod user_providers;
pub mod user_search;
pub mod user_settings;
pub mod users;
pub mod votes;

pub use faults::{is_storage_fault, is_unique_violation};
pub use file_lock::ServeLock;
use file_lock::lock_shared;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

pub use copy_check::CopyFault;
pub use error::{DbError, Fault};

/// How long a connection waits for a lock held by another connection (or process:
/// the CLI may write while the server runs).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Prepared statements kept per connection.
pub const STATEMENT_CACHE: usize = 128;
/// Read connections in the pool: one per core this process may run on (its CPU
/// affinity), at least 4, at most 64. A runtime thread reads inline only with an idle
/// connection; with fewer connections than threads, the others' reads took the far
/// dearer blocking-thread path at 8 cores (issue 34).
pub fn readers() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).clamp(4, 64)
    })
}
/// While the database does not take writes, health checks probe it at most this often.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// `PRAGMA application_id` of a hearth database ("hrth"): how `init` tells its own
/// files from other SQLite files.
pub const APPLICATION_ID: i32 = 0x6872_7468;

/// The connection policy, in one place (PocketBase `core/db_connect.go`): busy timeout
/// first, then WAL (checked), foreign keys, `synchronous=NORMAL` (durable across
/// application crashes; the last transactions may roll back on power loss), a
/// statement cache.
pub fn init_connection(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(rusqlite::Error::InvalidQuery);
    }
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         PRAGMA synchronous = NORMAL;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -16000;",
    )?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    stable_plans(conn)
}

/// Query plans that do not depend on bound values (SQLite's query planner stability
/// guarantee). Without it SQLite 3.53 marks a statement for recompilation whenever a
/// parameter it looked at while planning is bound again — a `LIMIT ?`, an `OFFSET ?`,
/// a `?` compared against a partial index's condition — and rusqlite binds every
/// parameter on every run, so a cached page query was compiled anew on each request
/// (10% of the CPU of `followings_hub`, issue 17). Our plans are chosen for unknown
/// values anyway (the `EXPLAIN QUERY PLAN` tests in `db::follows` and `db::courses`).
pub fn stable_plans(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map(|_| ())
}

/// How long a read may run on the runtime's own thread by default (see [`Db::read`]).
pub const INLINE_BUDGET: Duration = Duration::from_millis(2);

/// Counts of how reads ran (see [`Db::read`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Reads that ran on the runtime's thread within the budget.
    pub inline: u64,
    /// Reads interrupted at the budget and run again on a blocking thread.
    pub overran: u64,
    /// Reads that ran on a blocking thread (no idle connection, no budget, or overran).
    pub blocking: u64,
}

#[derive(Debug, Default)]
struct Counters {
    inline: AtomicU64,
    overran: AtomicU64,
    blocking: AtomicU64,
}

/// The database: one writer connection and a small pool of readers.
///
/// Fields drop in order: the readers close before the writer, so the writer is the
/// last connection of the process; closing it checkpoints the WAL and SQLite removes
/// `-wal` and `-shm` (SPEC §2: a stopped hearth leaves one file). A read-only
/// connection closing last could not do that, which is how earlier versions left a
/// `-wal` behind.
#[derive(Clone)]
pub struct Db {
    path: PathBuf,
    readers: Arc<readers::Readers>,
    /// `serve`'s checkpoints, off the writer ([`engine::checkpointer`]); before
    /// `writer`, so that its connection closes first.
    checkpointer: Arc<Mutex<Option<checkpointer::Checkpointer>>>,
    writer: Arc<Mutex<Connection>>,
    /// A shared `flock` on the database file for as long as this process has it open:
    /// `hearth restore` takes it exclusively, so it never replaces a file in use.
    /// (SQLite's own locks are fcntl locks, which are independent of flock.)
    _in_use: Arc<std::fs::File>,
    /// Whether the last write (or write probe) succeeded: `/healthz`'s `writable`.
    writable: Arc<std::sync::atomic::AtomicBool>,
    last_probe: Arc<Mutex<Option<std::time::Instant>>>,
    /// The writes waiting for the writer (group commit, [`engine::writer`]): one
    /// blocking thread at a time takes them, so blocking threads (few: see
    /// `cli::serve`) never queue on the writer's lock while reads wait for a thread.
    queue: Arc<writer::Queue>,
    /// [`Db::inline_budget`] in microseconds.
    inline_budget_us: Arc<AtomicU64>,
    stats: Arc<Counters>,
    /// The replication position after this process's last write (SPEC §9,
    /// [`position`]); at least the position of every write it has committed.
    position: Arc<std::sync::atomic::AtomicI64>,
    /// A read replica's copy (`serve --read-replica`): opened read-only, never
    /// migrated or written, its readers kept current with the follower's changes.
    read_only: bool,
    /// Writes refused because Litestream is behind (`crate::litestream`).
    held: Arc<std::sync::atomic::AtomicBool>,
    /// Replicated by Litestream: hearth never checkpoints ([`Db::set_replicated`]).
    replicated: Arc<std::sync::atomic::AtomicBool>,
    /// Where the notifications of each committed write go (the live socket's hub,
    /// [`Db::set_push_sink`]).
    push_sink: Arc<std::sync::OnceLock<PushSink>>,
}

/// What receives the notifications of each committed write.
pub type PushSink = Box<dyn Fn(Vec<notifications::Pushed>) + Send + Sync>;

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Db {
    /// Opens an existing hearth database, migrating an older schema in place. Refuses a
    /// file that is not a hearth database.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        location::check(path)?;
        Db::open_checked(path).map_err(|e| location::explain(path, e, false))
    }

    fn open_checked(path: &Path) -> Result<Db, DbError> {
        let in_use = lock_shared(path)?;
        let mut writer = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )?;
        init_connection(&writer)?;
        migrate::check_and_migrate(&writer)?;
        let rebuilt = indexes::restore(&mut writer)?;
        if rebuilt > 0 {
            tracing::warn!(rebuilt, "rebuilt indexes an interrupted import had dropped");
        }
        let readers = readers::Readers::new(path, readers());
        let at = position::get(&writer)?;
        Ok(Db {
            path: path.to_owned(),
            readers,
            checkpointer: Arc::default(),
            writer: Arc::new(Mutex::new(writer)),
            _in_use: Arc::new(in_use),
            writable: Arc::new(std::sync::atomic::AtomicBool::new(true)),
            last_probe: Arc::new(Mutex::new(None)),
            queue: Arc::default(),
            inline_budget_us: Arc::new(AtomicU64::new(
                u64::try_from(INLINE_BUDGET.as_micros()).unwrap_or(u64::MAX),
            )),
            stats: Arc::new(Counters::default()),
            position: Arc::new(std::sync::atomic::AtomicI64::new(at)),
            read_only: false,
            held: Arc::default(),
            replicated: Arc::default(),
            push_sink: Arc::default(),
        })
    }

    /// Creates and initialises a database file if there is none at `path`, then opens
    /// it. Returns whether it was created.
    pub fn open_or_create(
        path: &Path,
        now: crate::clock::Timestamp,
    ) -> Result<(Db, bool), DbError> {
        let created = create_if_missing(path, now)?;
        Ok((Db::open(path)?, created))
    }

    /// Sends the notifications of every committed write to `sink` (the live socket's
    /// hub); the first sink set stays.
    pub fn set_push_sink(&self, sink: PushSink) {
        let _ = self.push_sink.set(sink);
    }

    /// The file this database lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with a read connection, in a read transaction (one snapshot).
    ///
    /// When a connection is idle, `f` runs right here, on the runtime's own thread,
    /// with a deadline of [`Db::inline_budget`] that SQLite's progress handler
    /// enforces: a read that overruns it is interrupted, its result dropped, and it
    /// runs again on a blocking thread, where it may take as long as it needs (reads
    /// change nothing, so running one twice is safe). Most reads take tens of
    /// microseconds, and a blocking thread's hop costs about as much CPU as the HTTP
    /// work of the request (`docs/architecture.md`, "The read path", has the numbers).
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: Fn(&Connection) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let budget = self.inline_budget();
        if !budget.is_zero()
            && let Some(conn) = self.readers.try_get()
        {
            crate::telemetry::db_read_wait(Duration::ZERO);
            conn.watch().arm(budget);
            let out = readers::snapshot_read(&conn, &f);
            if !conn.watch().disarm() {
                self.stats.inline.fetch_add(1, Ordering::Relaxed);
                return out;
            }
            self.stats.overran.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(
                budget_us = budget.as_micros(),
                "a read overran its inline budget: again on a blocking thread"
            );
        }
        self.stats.blocking.fetch_add(1, Ordering::Relaxed);
        let readers = Arc::clone(&self.readers);
        let span = tracing::Span::current();
        let asked = crate::clock::instant();
        tokio::task::spawn_blocking(move || {
            let _entered = span.enter();
            let conn = readers.get()?;
            // the wait for a thread and a connection (hearth_db_read_wait_seconds)
            crate::telemetry::db_read_wait(asked.elapsed());
            readers::snapshot_read(&conn, &f)
        })
        .await
        .map_err(|e| DbError::Task(e.to_string()))?
    }

    /// How long a read may run on the runtime's own thread (zero: never).
    pub fn inline_budget(&self) -> Duration {
        Duration::from_micros(self.inline_budget_us.load(Ordering::Relaxed))
    }

    /// Sets [`Db::inline_budget`] (`serve --inline-read-budget`; zero sends every
    /// read to a blocking thread).
    pub fn set_inline_budget(&self, budget: Duration) {
        let us = u64::try_from(budget.as_micros()).unwrap_or(u64::MAX);
        self.inline_budget_us.store(us, Ordering::Relaxed);
    }

    /// Maps up to `bytes` of the file in each read connection (`serve --mmap-size`;
    /// none until this is called: the CLI's other commands and the library's users read
    /// with `pread`). Set before serving: idle readers are closed so that the next reads
    /// open mapped ones. A read replica's readers never map.
    pub fn set_mmap_size(&self, bytes: i64) {
        self.readers.set_mmap(bytes);
    }

    /// Gives back the memory SQLite holds in page caches: the idle readers', and the
    /// writer's when no write holds it (never waits for one). Run by `serve` once a
    /// load is over (`server::memory`); returns how many connections it emptied.
    pub fn release_memory(&self) -> usize {
        let mut n = self.readers.release_memory();
        if let Ok(w) = self.writer.try_lock() {
            match w.execute_batch("PRAGMA shrink_memory") {
                Ok(()) => n += 1,
                Err(e) => tracing::debug!(error = %e, "shrink_memory on the writer failed"),
            }
        }
        n
    }

    /// How reads ran since the database was opened.
    pub fn read_stats(&self) -> ReadStats {
        ReadStats {
            inline: self.stats.inline.load(Ordering::Relaxed),
            overran: self.stats.overran.load(Ordering::Relaxed),
            blocking: self.stats.blocking.load(Ordering::Relaxed),
        }
    }

    /// Runs `f` inside a `BEGIN IMMEDIATE` transaction on the writer, on a blocking
    /// thread; commits when `f` returns `Ok`, rolls back otherwise. Concurrent writes
    /// share a transaction, each in its own savepoint (group commit,
    /// [`engine::writer`]); the answer comes once the write is committed.
    pub async fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Transaction<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Fault + Send + 'static,
    {
        let (job, answer) = writer::Write::new(f, Some(crate::clock::instant()));
        self.enqueue(Box::new(job));
        answer.await.map_err(|e| DbError::Task(e.to_string()))?
    }

    /// [`Db::write`] for synchronous callers (the CLI, the importer): a transaction
    /// of its own, on this thread.
    pub fn write_blocking<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Transaction<'_>) -> Result<T, E>,
        E: From<DbError> + Fault,
    {
        let (job, mut answer) = writer::Write::new(f, None);
        {
            let mut conn = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            self.batch(&mut conn, Box::new(job), || None);
        }
        answer.try_recv().map_err(|e| DbError::Task(e.to_string()))?
    }

    /// [`Db::read`] for synchronous callers.
    pub fn read_blocking<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Connection) -> Result<T, E>,
        E: From<DbError>,
    {
        let conn = self.readers.get()?;
        // outside a transaction (VACUUM INTO, backups, need that); a replica's reader
        // comes inside the read transaction that checked its cache: it ends it
        if conn.is_autocommit() {
            return f(&conn);
        }
        readers::snapshot_read(&conn, f)
    }

    /// Runs `f` with the writer connection outside any transaction (backup, checkpoints).
    pub fn with_writer<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> T {
        let mut conn = self.writer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut conn)
    }

    /// Checkpoints the WAL into the main file; called on clean shutdown, before the
    /// last handle is dropped (dropping it closes the connections, and SQLite then
    /// removes `-wal` and `-shm`).
    ///
    /// The checkpoint does not wait: under Litestream, which holds a read lock and
    /// checkpoints itself, a waiting `TRUNCATE` stalled shutdown for the whole busy
    /// timeout (SPEC §9). A replica's copy is never written, so it is not checkpointed.
    ///
    /// Replicated by Litestream ([`Db::set_replicated`]), nothing is checkpointed and
    /// the WAL stays for Litestream (SPEC §9): a checkpoint while Litestream is not
    /// there to copy the WAL first would let the next write restart it unseen.
    pub fn close(&self) {
        self.stop_checkpointer();
        if self.read_only || self.replicated.load(Ordering::Acquire) {
            return;
        }
        self.with_writer(|c| {
            if let Err(e) = c.execute_batch("PRAGMA optimize;") {
                tracing::debug!(error = %e, "optimize on close failed");
            }
            if let Err(e) = checkpoint::truncate_now(c, "on close") {
                tracing::warn!(error = %e, "checkpoint on close failed");
            }
        });
    }
}

/// Creates the file with the whole schema and the seed data when it does not exist.
/// Returns `Ok(true)` if it was created, `Ok(false)` if it already was a hearth
/// database, and an error for any other file.
pub fn create_if_missing(path: &Path, now: crate::clock::Timestamp) -> Result<bool, DbError> {
    location::check(path)?;
    let exists = path.exists();
    let create = || -> Result<bool, DbError> {
        if exists {
            let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            migrate::identify(&conn)?;
            return Ok(false);
        }
        let mut conn = Connection::open(path)?;
        init_connection(&conn)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        migrate::create(&tx)?;
        seed::seed(&tx, now)?;
        tx.commit()?;
        Ok(true)
    };
    create().map_err(|e| location::explain(path, e, !exists))
}

/// Writes a consistent copy of the database to a new file at `dest` (`VACUUM INTO`
/// reads one snapshot, so it is safe while the server writes).
pub fn backup(conn: &Connection, dest: &str) -> rusqlite::Result<()> {
    conn.execute("VACUUM INTO ?1", [dest]).map(|_| ())
}

/// The cheapest query that proves the database answers reads.
pub fn ping(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached("SELECT 1")?.query_row([], |_| Ok(()))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    fn users(c: &Connection) -> i64 {
        c.query_row("SELECT count(*) FROM user", [], |r| r.get(0)).unwrap()
    }

    #[tokio::test]
    async fn a_read_sees_one_snapshot_and_leaves_no_transaction_open() {
        let dir = tempfile::tempdir().unwrap();
        let (db, _) = Db::open_or_create(&dir.path().join("h.db"), 0).unwrap();
        let writer = db.clone();
        let (before, after) = db
            .read(move |c| {
                let before = users(c);
                // a write commits between the request's two queries
                writer
                    .write_blocking(|tx| {
                        tx.execute(
                            "INSERT INTO user (username, username_key, date_joined) VALUES ('a', 'a', 0)",
                            [],
                        )
                        .map_err(DbError::from)
                    })
                    .unwrap();
                Ok::<_, DbError>((before, users(c)))
            })
            .await
            .unwrap();
        assert_eq!(before, after, "the second query sees the same snapshot");
        let now = db.read(|c| Ok::<_, DbError>(users(c))).await.unwrap();
        assert_eq!(now, before + 1, "the next read sees the write");
        let open = db.read(|c| Ok::<_, DbError>(!c.is_autocommit())).await.unwrap();
        assert!(open, "inside a read, a transaction is open");
        let err = db.read(|_| Err::<(), _>(DbError::Task("fails".into()))).await;
        assert!(err.is_err());
        for _ in 0..readers() {
            // every pooled connection went back without a transaction left open
            assert_eq!(db.read(|c| Ok::<_, DbError>(users(c))).await.unwrap(), now);
        }
    }
}

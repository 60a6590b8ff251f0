//! All SQL lives under this module. [`Db::read`] and [`Db::write`] are the only entry
//! points from async code: each runs its closure on a blocking thread (never on the
//! async workers), with a reader from the pool or the single writer inside a
//! `BEGIN IMMEDIATE` transaction.

pub mod apps;
pub mod categories;
pub mod check;
pub mod contributions;
pub mod course_members;
pub mod courses;
pub mod follows;
pub mod import;
pub mod jwt;
pub mod media;
pub mod migrate;
pub mod prefs;
pub mod reactions;
pub mod seed;
pub mod sessions;
pub mod tokens;
pub mod users;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

/// How long a connection waits for a lock held by another connection (or process:
/// the CLI may write while the server runs).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Prepared statements kept per connection.
pub const STATEMENT_CACHE: usize = 128;
/// Read connections in the pool.
pub const READERS: u32 = 4;
/// `PRAGMA application_id` of a hearth database ("hrth"): how `init` tells its own
/// files from other SQLite files.
pub const APPLICATION_ID: i32 = 0x6872_7468;

/// What can go wrong below the API.
#[derive(Debug)]
pub enum DbError {
    /// SQLite said no.
    Sqlite(rusqlite::Error),
    /// The pool had no connection to give.
    Pool(String),
    /// The file is not a hearth database, or is newer than this binary.
    NotHearth(String),
    /// The blocking task died.
    Task(String),
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbError::Sqlite(e) => write!(f, "database: {e}"),
            DbError::Pool(e) => write!(f, "database pool: {e}"),
            DbError::NotHearth(e) => write!(f, "{e}"),
            DbError::Task(e) => write!(f, "database task: {e}"),
        }
    }
}

impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sqlite(e)
    }
}

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
    Ok(())
}

/// The database: one writer connection and a small pool of readers.
#[derive(Clone)]
pub struct Db {
    path: PathBuf,
    writer: Arc<Mutex<Connection>>,
    readers: r2d2::Pool<SqliteConnectionManager>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Opens an existing hearth database, migrating an older schema in place. Refuses a
    /// file that is not a hearth database.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        let mut writer = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_URI,
        )?;
        init_connection(&writer)?;
        migrate::check_and_migrate(&writer)?;
        let rebuilt = import::restore_indexes(&mut writer)?;
        if rebuilt > 0 {
            tracing::warn!(rebuilt, "rebuilt indexes an interrupted import had dropped");
        }
        let manager = SqliteConnectionManager::file(path)
            .with_flags(OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_init(|c| {
                c.busy_timeout(BUSY_TIMEOUT)?;
                c.execute_batch("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;")?;
                c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
                Ok(())
            });
        let readers = r2d2::Pool::builder()
            .max_size(READERS)
            .min_idle(Some(1))
            // a local SQLite connection cannot go stale; r2d2's default check-out test
            // prepared and ran an empty batch on every request (perf: ~6% of me_jwt)
            .test_on_check_out(false)
            .build(manager)
            .map_err(|e| DbError::Pool(e.to_string()))?;
        Ok(Db {
            path: path.to_owned(),
            writer: Arc::new(Mutex::new(writer)),
            readers,
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

    /// The file this database lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with a read connection, on a blocking thread.
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let pool = self.readers.clone();
        let span = tracing::Span::current();
        tokio::task::spawn_blocking(move || {
            let _entered = span.enter();
            let conn = pool.get().map_err(|e| DbError::Pool(e.to_string()))?;
            f(&conn)
        })
        .await
        .map_err(|e| DbError::Task(e.to_string()))?
    }

    /// Runs `f` inside a `BEGIN IMMEDIATE` transaction on the writer, on a blocking
    /// thread; commits when `f` returns `Ok`, rolls back otherwise.
    pub async fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Transaction<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let this = self.clone();
        let span = tracing::Span::current();
        tokio::task::spawn_blocking(move || {
            let _entered = span.enter();
            this.write_blocking(f)
        })
        .await
        .map_err(|e| DbError::Task(e.to_string()))?
    }

    /// [`Db::write`] for synchronous callers (the CLI, the importer).
    pub fn write_blocking<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Transaction<'_>) -> Result<T, E>,
        E: From<DbError>,
    {
        let mut conn = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(DbError::from)?;
        let out = f(&tx)?;
        tx.commit().map_err(DbError::from)?;
        Ok(out)
    }

    /// [`Db::read`] for synchronous callers.
    pub fn read_blocking<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Connection) -> Result<T, E>,
        E: From<DbError>,
    {
        let conn = self
            .readers
            .get()
            .map_err(|e| DbError::Pool(e.to_string()))?;
        f(&conn)
    }

    /// Runs `f` with the writer connection outside any transaction (backup, checkpoints).
    pub fn with_writer<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> T {
        let mut conn = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut conn)
    }

    /// Checkpoints the WAL into the main file; called on clean shutdown.
    pub fn close(&self) {
        self.with_writer(|c| {
            if let Err(e) = c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA optimize;") {
                tracing::warn!(error = %e, "checkpoint on close failed");
            }
        });
    }
}

/// Creates the file with the whole schema and the seed data when it does not exist.
/// Returns `Ok(true)` if it was created, `Ok(false)` if it already was a hearth
/// database, and an error for any other file.
pub fn create_if_missing(path: &Path, now: crate::clock::Timestamp) -> Result<bool, DbError> {
    if path.exists() {
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
}

/// A `rusqlite` unique-constraint violation?
pub fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
        || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

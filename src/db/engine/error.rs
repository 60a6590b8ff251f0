//! What can go wrong below the API, and which of it is a storage fault (503).

use crate::db::CopyFault;
use crate::db::faults::is_storage_fault;

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
    /// The filesystem keeps the file from being created or opened: one line with the
    /// fix (`db::location`).
    File(String),
    /// A read replica's copy must not be served now (issue 28; [`copy_check`]).
    Copy(CopyFault),
    /// A file the database needs could not be read.
    Io(std::io::Error),
    /// Writes are not acknowledged: Litestream has not replicated this process's
    /// commits within `serve --replication-lag-limit` (SPEC §9, [`crate::litestream`]).
    NotReplicated,
    /// A storage fault in another write of the same group commit ended the transaction
    /// this write ran in (`db::engine::writer`): nothing of it was committed.
    Lost,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbError::Sqlite(e) => write!(f, "database: {e}"),
            DbError::Pool(e) => write!(f, "database pool: {e}"),
            DbError::NotHearth(e) | DbError::File(e) => write!(f, "{e}"),
            DbError::Task(e) => write!(f, "database task: {e}"),
            DbError::Copy(fault) => write!(f, "the replica's copy is {fault}"),
            DbError::Io(e) => write!(f, "database file: {e}"),
            DbError::NotReplicated => {
                write!(f, "Litestream has not replicated recent writes within the lag limit")
            }
            DbError::Lost => write!(
                f,
                "a storage fault in another write of the same transaction rolled this one back"
            ),
        }
    }
}

impl std::error::Error for DbError {}

impl DbError {
    /// The same error again, for each write of a batch that one error ended (a commit
    /// that failed): what a write would have been told had it committed alone.
    pub fn again(&self) -> DbError {
        match self {
            DbError::Sqlite(rusqlite::Error::SqliteFailure(code, message)) => {
                DbError::Sqlite(rusqlite::Error::SqliteFailure(*code, message.clone()))
            }
            DbError::Sqlite(other) => DbError::Task(other.to_string()),
            DbError::Pool(e) => DbError::Pool(e.clone()),
            DbError::NotHearth(e) => DbError::NotHearth(e.clone()),
            DbError::Task(e) => DbError::Task(e.clone()),
            DbError::File(e) => DbError::File(e.clone()),
            DbError::Copy(fault) => DbError::Copy(*fault),
            DbError::Io(e) => DbError::Io(std::io::Error::new(e.kind(), e.to_string())),
            DbError::NotReplicated => DbError::NotReplicated,
            DbError::Lost => DbError::Lost,
        }
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::Sqlite(e)
    }
}

/// Errors that can say whether they are a storage fault (disk full, read-only file or
/// directory, I/O error, the database locked past the busy timeout): the writer
/// records it, so `/healthz` can report `writable: false`.
pub trait Fault {
    /// Whether this error is a storage fault.
    fn is_storage_fault(&self) -> bool;
}

impl Fault for DbError {
    fn is_storage_fault(&self) -> bool {
        match self {
            DbError::Sqlite(e) => is_storage_fault(e),
            DbError::Pool(_) | DbError::Lost => true,
            DbError::NotHearth(_)
            | DbError::File(_)
            | DbError::Task(_)
            | DbError::Copy(_)
            | DbError::Io(_)
            | DbError::NotReplicated => false,
        }
    }
}

//! What a SQLite error says about its cause: the storage (a 503 and the writable
//! watch), or a unique constraint (a field error).

/// Whether SQLite failed because of the storage: the disk or its quota is full (or
/// `max_page_count` is reached), the file or its directory is read-only, an I/O error,
/// the file cannot be opened, or another process held the lock past the busy timeout.
pub fn is_storage_fault(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode as C;
    matches!(
        e.sqlite_error_code(),
        Some(
            C::DiskFull
                | C::ReadOnly
                | C::SystemIoFailure
                | C::CannotOpen
                | C::DatabaseBusy
                | C::DatabaseLocked
        )
    )
}

/// A `rusqlite` unique-constraint violation?
pub fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
        || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

//! The shared `flock` every hearth process holds on its database file (`hearth
//! restore` takes it exclusively to replace the file).

use std::path::Path;

use super::DbError;

/// Takes the shared `flock` every hearth process holds on its database file.
pub(super) fn lock_shared(path: &Path) -> Result<std::fs::File, DbError> {
    let f = std::fs::File::open(path)
        .map_err(|e| DbError::NotHearth(format!("cannot open {}: {e}", path.display())))?;
    match f.try_lock_shared() {
        Ok(()) => {
            // a restore may have renamed another file over the path between the open
            // and the lock: then this lock guards the replaced file, not the database
            use std::os::unix::fs::MetadataExt;
            let (held, now) = (f.metadata(), std::fs::metadata(path));
            match (held, now) {
                (Ok(h), Ok(n)) if h.ino() == n.ino() && h.dev() == n.dev() => Ok(f),
                _ => Err(DbError::NotHearth(format!(
                    "{} was replaced while opening it (by `hearth restore`?); try again",
                    path.display()
                ))),
            }
        }
        Err(std::fs::TryLockError::WouldBlock) => Err(DbError::NotHearth(format!(
            "{} is being replaced by `hearth restore`; try again when it is done",
            path.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(DbError::NotHearth(format!("cannot lock {}: {e}", path.display())))
        }
    }
}

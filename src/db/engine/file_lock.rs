//! The shared `flock` every hearth process holds on its database file (`hearth
//! restore` takes it exclusively to replace the file).

use std::path::Path;

use crate::db::DbError;

/// Takes the shared `flock` every hearth process holds on its database file.
pub(in crate::db) fn lock_shared(path: &Path) -> Result<std::fs::File, DbError> {
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

/// The lock that makes one `hearth serve` the only server of its database: an
/// exclusive `flock` on `<db>-serve.lock` beside it, holding the server's pid, removed
/// when the server stops (SPEC §2: a stopped hearth leaves one file; after a crash the
/// kernel releases the lock and the file left behind is taken over). The database
/// file's own shared `flock` cannot say it: every CLI command holds one too, and they
/// keep working beside a server, as do read replicas, which never take this lock.
#[derive(Debug)]
pub struct ServeLock {
    path: std::path::PathBuf,
    _file: std::fs::File,
}

impl ServeLock {
    /// Takes the lock, or says which server holds it.
    pub fn take(db: &Path) -> Result<ServeLock, DbError> {
        use std::io::{Read, Seek, Write};
        use std::os::unix::fs::MetadataExt;
        crate::db::location::check(db)?;
        let mut name = db.as_os_str().to_owned();
        name.push("-serve.lock");
        let path = std::path::PathBuf::from(name);
        // a stopping server removes the file while holding the lock: a lock taken on a
        // file no longer at the path guards nothing, so open the path again
        for _ in 0..10 {
            let mut f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| {
                    crate::db::location::explain(
                        db,
                        DbError::NotHearth(format!("cannot create {}: {e}", path.display())),
                        !db.exists(),
                    )
                })?;
            match f.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut pid = String::new();
                    let _ = f.read_to_string(&mut pid);
                    let pid = pid.trim();
                    let by = if pid.is_empty() { String::new() } else { format!(" (pid {pid})") };
                    return Err(DbError::File(format!(
                        "another hearth serve{by} is serving {}: stop it first (one server per database; CLI commands and read replicas may run beside it)",
                        db.display()
                    )));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(DbError::File(format!("cannot lock {}: {e}", path.display())));
                }
            }
            let same = match (f.metadata(), std::fs::metadata(&path)) {
                (Ok(h), Ok(n)) => h.ino() == n.ino() && h.dev() == n.dev(),
                _ => false,
            };
            if !same {
                continue;
            }
            let wrote = f
                .set_len(0)
                .and_then(|()| f.rewind())
                .and_then(|()| write!(f, "{}", std::process::id()));
            if let Err(e) = wrote {
                return Err(DbError::File(format!("cannot write {}: {e}", path.display())));
            }
            return Ok(ServeLock { path, _file: f });
        }
        Err(DbError::File(format!("{} keeps being replaced; try again", path.display())))
    }
}

impl Drop for ServeLock {
    fn drop(&mut self) {
        // removed while still locked (the file closes after this): see `take`
        let _ = std::fs::remove_file(&self.path);
    }
}

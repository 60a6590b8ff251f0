//! `hearth restore SRC`: put a backup in place of the database (SPEC §2).
//!
//! The order of the steps is what makes it safe:
//! 1. Take an exclusive advisory lock (`flock`) on the database file. Every hearth
//!    process holds a shared one for as long as it has the database open, so failing
//!    to get it means a server (or another command) is using the file. It is held
//!    until the new file is in place.
//! 2. Copy SRC (and a `-wal` beside it) into a private file in the database's
//!    directory; SRC itself is only read. Check the copy: a hearth database, not newer
//!    than this binary, passing `PRAGMA integrity_check`; migrate it if older; leave it
//!    as one self-contained file; fsync it.
//! 3. Fold any `-wal` beside the current database into it and take it out of WAL mode
//!    (SQLite refuses while another connection has it open: a second check, which
//!    also catches a hearth too old to take the lock), keep it as
//!    `<db>.replaced-<UTC time>` (a hard link, so the database path never goes
//!    missing) unless `--discard-current`, remove `-wal`/`-shm`, and rename the copy
//!    over the database: readers see the old file or the new one, never a mix.
//! 4. fsync the directory so the rename survives a power cut.
//!
//! No SQL here: the checks and migrations are `db::migrate::{prepare_restore,
//! detach_wal}`.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::{CliError, CliResult};
use crate::clock::{Clock, Timestamp, compact_utc};
use crate::db::DbError;
use crate::db::migrate::{self, Detached};

/// The one line for a database some process has open.
pub const IN_USE: &str = "the database is in use by another hearth process (stop the server first)";

/// `path` with `suffix` appended to its file name (`hearth.db` + `-wal`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Removes a file if it is there.
fn remove_if_present(path: &Path) -> CliResult {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CliError(format!("cannot remove {}: {e}", path.display()))),
    }
}

/// The private copy restore works on; removed (with any `-wal`, `-shm`, `-journal`)
/// unless it was put in place.
struct TempCopy {
    path: PathBuf,
    keep: bool,
}

impl TempCopy {
    /// Renames the copy to `db`, which it now is (no longer removed on drop).
    fn put_in_place(&mut self, db: &Path) -> CliResult {
        fs::rename(&self.path, db).map_err(|e| {
            CliError(format!("cannot put the backup in place at {}: {e}", db.display()))
        })?;
        self.keep = true;
        Ok(())
    }
}

impl Drop for TempCopy {
    fn drop(&mut self) {
        if !self.keep {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let _ = fs::remove_file(with_suffix(&self.path, suffix));
            }
        }
    }
}

/// Takes an exclusive advisory lock on `file` without waiting.
fn lock(file: &File, busy: impl FnOnce() -> CliError) -> CliResult {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(busy()),
        Err(TryLockError::Error(e)) => Err(CliError(format!("cannot lock the file: {e}"))),
    }
}

/// Copies SRC (and a non-empty `-wal` beside it) into `temp`, holding an exclusive
/// lock on SRC so that no hearth process writes it meanwhile.
fn copy_source(src: &Path, temp: &Path) -> CliResult {
    let mut from =
        File::open(src).map_err(|e| CliError(format!("cannot read {}: {e}", src.display())))?;
    lock(&from, || {
        CliError(format!(
            "{} is in use by a hearth process; copy it with `hearth backup` first",
            src.display()
        ))
    })?;
    let mut to = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)
        .map_err(|e| CliError(format!("cannot create {}: {e}", temp.display())))?;
    std::io::copy(&mut from, &mut to)?;
    to.sync_all()?;
    let src_wal = with_suffix(src, "-wal");
    if fs::metadata(&src_wal).is_ok_and(|m| m.len() > 0) {
        fs::copy(&src_wal, with_suffix(temp, "-wal"))?;
    }
    Ok(())
}

/// A name for the replaced database that no file has: `<db>.replaced-<stamp>`, then
/// `-2`, `-3`, ... when restores follow each other within a second.
fn replaced_name(db: &Path, now: Timestamp) -> PathBuf {
    let base = with_suffix(db, &format!(".replaced-{}", compact_utc(now)));
    let mut candidate = base.clone();
    let mut n = 2;
    while fs::symlink_metadata(&candidate).is_ok() {
        candidate = with_suffix(&base, &format!("-{n}"));
        n += 1;
    }
    candidate
}

/// Keeps the current database under `kept` without it ever leaving its path: a hard
/// link, or a copy where the file system has none.
fn keep_current(db: &Path, kept: &Path) -> CliResult {
    if fs::hard_link(db, kept).is_ok() {
        return Ok(());
    }
    fs::copy(db, kept).and_then(|_| File::open(kept)?.sync_all()).map_err(|e| {
        CliError(format!("cannot keep the current database as {}: {e}", kept.display()))
    })
}

/// fsyncs a directory, so that renames and links in it are durable.
fn sync_dir(dir: &Path) -> CliResult {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| CliError(format!("cannot sync {}: {e}", dir.display())))
}

/// Runs `hearth restore SRC [--discard-current]` for the database at `db`.
pub fn run(db: &Path, src: &Path, discard_current: bool, clock: &Clock) -> CliResult {
    let src_meta =
        fs::metadata(src).map_err(|e| CliError(format!("cannot read {}: {e}", src.display())))?;
    if !src_meta.is_file() {
        return Err(CliError(format!("{} is not a file", src.display())));
    }
    let current = match fs::symlink_metadata(db) {
        Ok(_) => {
            if fs::canonicalize(db)? == fs::canonicalize(src)? {
                return Err(CliError(format!(
                    "{} is the database itself; restore a backup of it",
                    src.display()
                )));
            }
            let file = File::open(db)
                .map_err(|e| CliError(format!("cannot open {}: {e}", db.display())))?;
            lock(&file, || CliError(IN_USE.into()))?;
            Some(file)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(CliError(format!("cannot read {}: {e}", db.display()))),
    };

    let dir = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let name =
        db.file_name().ok_or_else(|| CliError(format!("{} is not a file name", db.display())))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".restore-{}", std::process::id()));
    let mut temp = TempCopy { path: dir.join(temp_name), keep: false };
    for suffix in ["", "-wal", "-shm", "-journal"] {
        // left by a restore of a process with the same id that was killed
        remove_if_present(&with_suffix(&temp.path, suffix))?;
    }
    copy_source(src, &temp.path)?;
    let from_version = migrate::prepare_restore(&temp.path).map_err(|e| match e {
        DbError::NotHearth(why) => CliError(format!("cannot restore {}: {why}", src.display())),
        DbError::Sqlite(e) => {
            CliError(format!("cannot restore {}: not a hearth database ({e})", src.display()))
        }
        e => e.into(),
    })?;
    if fs::symlink_metadata(with_suffix(&temp.path, "-wal")).is_ok() {
        return Err(CliError(
            "the restored copy still has a -wal after leaving WAL mode; nothing changed".into(),
        ));
    }
    File::open(&temp.path)?.sync_all()?;

    let db_wal = with_suffix(db, "-wal");
    let db_shm = with_suffix(db, "-shm");
    let mut kept = None;
    if current.is_some() {
        let detached = migrate::detach_wal(db).map_err(|e| {
            CliError(format!("cannot read the current database {}: {e}", db.display()))
        })?;
        let keep_wal = match detached {
            Detached::Alone => false,
            Detached::InUse => return Err(CliError(IN_USE.into())),
            Detached::Unreadable(why) => {
                tracing::warn!(db = %db.display(), %why, "the current database is not readable; kept as it is, with its -wal");
                true
            }
        };
        if !discard_current {
            let name = replaced_name(db, clock.now());
            keep_current(db, &name)?;
            if keep_wal && fs::symlink_metadata(&db_wal).is_ok() {
                fs::rename(&db_wal, with_suffix(&name, "-wal"))?;
            }
            kept = Some(name);
        }
        remove_if_present(&db_wal)?;
        remove_if_present(&db_shm)?;
        temp.put_in_place(db)?;
    } else {
        // a -wal without its database would be replayed into the restored one
        remove_if_present(&db_wal)?;
        remove_if_present(&db_shm)?;
        match fs::hard_link(&temp.path, db) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                return Err(CliError(format!(
                    "a database appeared at {} while restoring; nothing changed",
                    db.display()
                )));
            }
            // no hard links on this file system: a plain rename (the path was free)
            Err(_) => {
                temp.put_in_place(db)?;
            }
        }
    }
    sync_dir(&dir)?;
    drop(current);

    let migrated = if from_version < migrate::VERSION {
        format!(" (migrated from schema version {from_version} to {})", migrate::VERSION)
    } else {
        String::new()
    };
    match kept {
        Some(k) => println!(
            "restored {} from {}{migrated}; the replaced database is kept as {}",
            db.display(),
            src.display(),
            k.display()
        ),
        None if discard_current => println!(
            "restored {} from {}{migrated}; the replaced database was discarded",
            db.display(),
            src.display()
        ),
        None => println!(
            "restored {} from {}{migrated} (there was no database)",
            db.display(),
            src.display()
        ),
    }
    Ok(())
}

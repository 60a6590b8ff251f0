//! Where the database file lives: the filesystem's reasons a database cannot be created
//! or opened, each said in one line with its fix (issue 29). SQLite says "unable to open
//! database file" for all of them, and an empty file reads to it as an empty database,
//! which `migrate::identify` then calls "another application's SQLite file".

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};

use crate::db::DbError;

/// The directory `path` is in (`.` for a bare file name).
pub fn directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Why no file can be created at `path` as far as its directory is concerned (missing,
/// or not a directory), or `None`.
pub fn missing_directory(path: &Path) -> Option<String> {
    let dir = directory(path);
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => None,
        Ok(_) => Some(format!(
            "{} is a file, not a directory: choose a path inside a directory",
            dir.display()
        )),
        Err(_) => Some(format!(
            "the directory {} does not exist: create it (`mkdir -p {}`) or choose another path",
            dir.display(),
            dir.display()
        )),
    }
}

/// Checks what SQLite would misreport before a database is created at `path` or an
/// existing one opened: a missing directory, a directory in place of the file, an
/// empty file (with no `-wal` holding its pages).
pub fn check(path: &Path) -> Result<(), DbError> {
    let refuse = |why: String| Err(DbError::File(why));
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => refuse(format!(
            "{} is a directory: --db names the database file, e.g. --db {}",
            path.display(),
            path.join("hearth.db").display()
        )),
        Ok(m) if m.len() == 0 && !has_wal(path) => refuse(format!(
            "{} is an empty file (0 bytes), not a database: remove it (`rm {}`) and run `hearth --db {} init`",
            path.display(),
            path.display(),
            path.display()
        )),
        Ok(_) => Ok(()),
        Err(_) => match missing_directory(path) {
            Some(why) => refuse(format!("cannot create {}: {why}", path.display())),
            None => Ok(()),
        },
    }
}

/// A non-empty `-wal` beside `path`: a database whose pages are all still in its WAL
/// has an empty main file, and is a database all the same.
fn has_wal(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > 0)
}

/// After creating or opening `path` failed with `err`: the filesystem's reason when
/// there is one (the file or its directory not readable or writable by this user, a
/// read-only filesystem), else `err` itself.
pub fn explain(path: &Path, err: DbError, creating: bool) -> DbError {
    if !matches!(err, DbError::Sqlite(_) | DbError::NotHearth(_)) {
        return err;
    }
    let dir = directory(path);
    let fix = "give it to the user hearth runs as (`chown`), or choose another --db";
    if creating || !path.exists() {
        return match probe_dir(&dir) {
            Err(e) => DbError::File(format!(
                "cannot create {}: this user cannot create files in {} ({e}): {fix}",
                path.display(),
                dir.display()
            )),
            Ok(()) => err,
        };
    }
    if let Err(e) = fs::File::open(path) {
        return DbError::File(format!("cannot read {} ({e}): {fix}", path.display()));
    }
    if let Err(e) = OpenOptions::new().write(true).open(path) {
        return DbError::File(format!(
            "{} is not writable by this user ({e}): {fix}",
            path.display()
        ));
    }
    match probe_dir(&dir) {
        Err(e) => DbError::File(format!(
            "cannot open {}: SQLite keeps its -wal and -shm files beside it, and this user cannot create files in {} ({e}): make the directory writable by the user hearth runs as",
            path.display(),
            dir.display()
        )),
        Ok(()) => err,
    }
}

/// Whether this user can create a file in `dir`: creates and removes a hidden one
/// (`access(2)` would answer for the real user id and not see a read-only mount's
/// options the same way; the attempt itself is the one true answer).
fn probe_dir(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".hearth-probe-{}", std::process::id()));
    OpenOptions::new().write(true).create_new(true).open(&probe)?;
    fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn a_bare_file_name_is_in_the_current_directory() {
        assert_eq!(directory(Path::new("hearth.db")), PathBuf::from("."));
        assert_eq!(directory(Path::new("/a/b.db")), PathBuf::from("/a"));
    }

    #[test]
    fn an_empty_file_with_its_pages_in_a_wal_is_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        fs::write(&db, b"").unwrap();
        assert!(check(&db).unwrap_err().to_string().contains("empty file"));
        fs::write(dir.path().join("h.db-wal"), b"pages").unwrap();
        assert!(check(&db).is_ok());
    }
}

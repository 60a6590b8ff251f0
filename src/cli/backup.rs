//! `hearth backup DEST [--keep N]`: a consistent online copy of the database.
//!
//! DEST is a new file, or an existing directory: then the copy is named
//! `<db stem>-<UTC time>.db` in it (`hearth-20261123T150102Z.db`), and `--keep N`
//! removes the oldest such copies so that N remain — what the daily timer in
//! `packaging/hearth-backup.timer` runs. A copy is written under a hidden name and
//! renamed into place once complete and synced, so a failed or interrupted backup never
//! looks like a backup and never makes an older one be removed.

use std::fs::{self, File};
use std::path::Path;

use super::{CliError, CliResult};
use crate::clock::{Clock, compact_utc};
use crate::db::Db;

/// Runs `hearth backup DEST [--keep N]`.
pub fn run(db: &Db, dest: &Path, keep: Option<usize>, clock: &Clock) -> CliResult {
    if dest.is_dir() {
        return into_dir(db, dest, keep, clock);
    }
    if keep.is_some() {
        return Err(CliError(format!(
            "--keep needs DEST to be an existing directory; {} is not one",
            dest.display()
        )));
    }
    if fs::symlink_metadata(dest).is_ok() {
        return Err(CliError(format!("{} already exists; choose a new file", dest.display())));
    }
    if let Some(why) = crate::db::location::missing_directory(dest) {
        return Err(CliError(format!("cannot write the backup to {}: {why}", dest.display())));
    }
    copy(db, dest)?;
    println!("backed up {} to {}", db.path().display(), dest.display());
    Ok(())
}

/// A dated copy in `dir`, then the oldest dated copies beyond `keep` removed.
fn into_dir(db: &Db, dir: &Path, keep: Option<usize>, clock: &Clock) -> CliResult {
    let stem = db_stem(db.path());
    let name = format!("{stem}-{}.db", compact_utc(clock.now()));
    let dest = dir.join(&name);
    if fs::symlink_metadata(&dest).is_ok() {
        return Err(CliError(format!(
            "{} already exists (one backup a second); try again",
            dest.display()
        )));
    }
    let partial = dir.join(format!(".{name}.partial"));
    let written = copy(db, &partial).and_then(|()| {
        File::open(&partial)
            .and_then(|f| f.sync_all())
            .and_then(|()| fs::rename(&partial, &dest))
            .map_err(|e| CliError(format!("cannot finish {}: {e}", dest.display())))
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&partial);
        return Err(e);
    }
    sync_dir(dir)?;
    println!("backed up {} to {}", db.path().display(), dest.display());
    if let Some(keep) = keep {
        for old in to_remove(&list_dated(dir, &stem)?, &name, keep) {
            let path = dir.join(&old);
            fs::remove_file(&path)
                .map_err(|e| CliError(format!("cannot remove {}: {e}", path.display())))?;
            println!("removed {}", path.display());
        }
    }
    Ok(())
}

/// `VACUUM INTO` a new file ([`crate::db::backup`]): one read snapshot, safe while the
/// server writes.
fn copy(db: &Db, dest: &Path) -> CliResult {
    let target = dest
        .to_str()
        .ok_or_else(|| CliError("the destination path is not UTF-8".into()))?
        .to_owned();
    db.read_blocking(|c| crate::db::backup(c, &target).map_err(CliError::from))
}

/// The database's file name without its extension (`hearth` for `hearth.db`), so that
/// copies of different databases in one directory are kept apart.
fn db_stem(db: &Path) -> String {
    db.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "hearth".to_owned())
}

/// Whether `name` is `<stem>-YYYYMMDDTHHMMSSZ.db`: a copy this command made.
fn is_dated(name: &str, stem: &str) -> bool {
    let Some(stamp) = name
        .strip_prefix(stem)
        .and_then(|r| r.strip_prefix('-'))
        .and_then(|r| r.strip_suffix(".db"))
    else {
        return false;
    };
    let b = stamp.as_bytes();
    b.len() == 16
        && b[8] == b'T'
        && b[15] == b'Z'
        && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit)
}

/// The names of the regular files in `dir` that are dated copies of `stem`'s database.
fn list_dated(dir: &Path, stem: &str) -> CliResult<Vec<String>> {
    let read = |e: std::io::Error| CliError(format!("cannot list {}: {e}", dir.display()));
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(read)? {
        let entry = entry.map_err(read)?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if is_dated(&name, stem) && entry.file_type().map_err(read)?.is_file() {
            names.push(name);
        }
    }
    Ok(names)
}

/// Which dated copies go so that `keep` remain: the oldest by the time in their names.
/// `newest` (the copy just made) always stays, even when a clock set back has left
/// copies dated after it.
fn to_remove(dated: &[String], newest: &str, keep: usize) -> Vec<String> {
    let mut others: Vec<&String> = dated.iter().filter(|n| *n != newest).collect();
    others.sort();
    let extra = others.len().saturating_sub(keep.saturating_sub(1));
    others.into_iter().take(extra).cloned().collect()
}

/// fsyncs a directory so that the rename into it survives a power cut.
fn sync_dir(dir: &Path) -> CliResult {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| CliError(format!("cannot sync {}: {e}", dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_dated_names_of_this_database_count() {
        assert!(is_dated("hearth-20261123T150102Z.db", "hearth"));
        for other in [
            "hearth-20261123T150102Z.db.partial",
            ".hearth-20261123T150102Z.db.partial",
            "hearth-20261123T150102.db",
            "hearth-2026112xT150102Z.db",
            "hearth-20261123T150102Z-2.db",
            "other-20261123T150102Z.db",
            "hearth.db",
            "hearth-.db",
        ] {
            assert!(!is_dated(other, "hearth"), "{other}");
        }
        assert!(is_dated("community-20261123T150102Z.db", "community"));
    }

    #[test]
    fn the_oldest_go_and_the_new_copy_always_stays() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let dated = names(&[
            "h-20260103T000000Z.db",
            "h-20260101T000000Z.db",
            "h-20260104T000000Z.db",
            "h-20260102T000000Z.db",
        ]);
        assert_eq!(
            to_remove(&dated, "h-20260104T000000Z.db", 2),
            names(&["h-20260101T000000Z.db", "h-20260102T000000Z.db"])
        );
        assert_eq!(to_remove(&dated, "h-20260104T000000Z.db", 4), Vec::<String>::new());
        assert_eq!(to_remove(&dated, "h-20260104T000000Z.db", 1).len(), 3);
        // the clock went back: the new copy sorts first but is kept
        let mut back = dated.clone();
        back.push("h-20250101T000000Z.db".into());
        let gone = to_remove(&back, "h-20250101T000000Z.db", 2);
        assert_eq!(gone.len(), 3);
        assert!(!gone.contains(&"h-20250101T000000Z.db".to_owned()));
        assert!(!gone.contains(&"h-20260104T000000Z.db".to_owned()));
    }

    #[test]
    fn the_stem_names_the_database() {
        assert_eq!(db_stem(Path::new("/var/lib/hearth/hearth.db")), "hearth");
        assert_eq!(db_stem(Path::new("community.sqlite")), "community");
    }
}

//! `hearth backup DIR --keep N`: dated copies in a directory, the oldest removed
//! (what packaging/hearth-backup.service runs daily with --keep 14).

use std::path::Path;

use crate::{Env, file_names};

/// Whether `name` is `hearth-YYYYMMDDTHHMMSSZ.db`.
fn is_dated(name: &str) -> bool {
    let Some(stamp) = name.strip_prefix("hearth-").and_then(|r| r.strip_suffix(".db")) else {
        return false;
    };
    stamp.len() == 16
        && stamp.as_bytes()[8] == b'T'
        && stamp.ends_with('Z')
        && stamp.chars().filter(char::is_ascii_digit).count() == 14
}

fn users(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT count(*) FROM user", [], |r| r.get(0))
        .unwrap()
}

fn with_a_user() -> Env {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    e
}

#[test]
fn backup_into_a_directory_makes_one_dated_copy() {
    let e = with_a_user();
    let dir = e.dir.path().join("backups");
    std::fs::create_dir(&dir).unwrap();
    let said = e.ok(&["backup", dir.to_str().unwrap()]);
    let got = file_names(&dir);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(is_dated(&got[0]), "{got:?}");
    assert!(said.contains(&got[0]), "{said}");
    assert_eq!(users(&dir.join(&got[0])), 1);
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(dir.join(&got[0]))
        .arg("check")
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");
}

/// Writes `text` into each of `names` in `dir`.
fn write_all(dir: &std::path::Path, names: &[&str], text: &str) {
    for name in names {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn keep_removes_the_oldest_dated_copies_and_nothing_else() {
    let e = with_a_user();
    let dir = e.dir.path().join("backups");
    std::fs::create_dir(&dir).unwrap();
    let old = [
        "hearth-20200101T000000Z.db",
        "hearth-20200102T000000Z.db",
        "hearth-20200103T000000Z.db",
        "hearth-20200104T000000Z.db",
        "hearth-20200105T000000Z.db",
    ];
    write_all(&dir, &old, "old copy");
    // not copies of this database, or not made by backup: never touched
    let others = [
        "community-20200101T000000Z.db",
        "hearth-notes.txt",
        "hearth-20200101T000000Z.db.bak",
        ".hearth-20200101T000000Z.db.partial",
        "hearth-2020010xT000000Z.db",
    ];
    write_all(&dir, &others, "other");
    std::fs::create_dir(dir.join("hearth-20190101T000000Z.db")).unwrap();

    let said = e.ok(&["backup", dir.to_str().unwrap(), "--keep", "3"]);
    let after = file_names(&dir);
    let dated: Vec<&String> =
        after.iter().filter(|n| is_dated(n) && dir.join(n).is_file()).collect();
    assert_eq!(dated.len(), 3, "{after:?}");
    assert_eq!(dated[0], "hearth-20200104T000000Z.db");
    assert_eq!(dated[1], "hearth-20200105T000000Z.db");
    assert_eq!(users(&dir.join(dated[2])), 1, "the new copy is kept");
    for gone in &old[..3] {
        assert!(!dir.join(gone).exists(), "{gone} kept");
        assert!(said.contains(&format!("removed {}", dir.join(gone).display())));
    }
    for name in others {
        assert!(dir.join(name).is_file(), "{name} removed");
    }
    assert!(dir.join("hearth-20190101T000000Z.db").is_dir());
}

#[test]
fn a_failed_backup_removes_nothing_and_leaves_nothing() {
    let e = with_a_user();
    let dir = e.dir.path().join("backups");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("hearth-20200101T000000Z.db"), "old copy").unwrap();
    // the copy's private name is taken by a directory for the next few seconds, so
    // SQLite cannot write it
    let now = hearth::clock::Clock::system().now_secs();
    let mut blockers = Vec::new();
    for s in now..now + 5 {
        let name =
            format!(".hearth-{}.db.partial", hearth::clock::compact_utc(s * hearth::clock::SECOND));
        std::fs::create_dir(dir.join(&name)).unwrap();
        blockers.push(name);
    }
    let before = file_names(&dir);
    let err = e.fails(&["backup", dir.to_str().unwrap(), "--keep", "1"]);
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(file_names(&dir), before, "{err}");
}

#[test]
fn keep_needs_a_directory_and_a_positive_count() {
    let e = with_a_user();
    let file = e.dir.path().join("copy.db");
    let err = e.fails(&["backup", file.to_str().unwrap(), "--keep", "3"]);
    assert!(err.contains("--keep needs DEST to be an existing directory"), "{err}");
    assert!(!file.exists());
    let dir = e.dir.path().join("backups");
    std::fs::create_dir(&dir).unwrap();
    let out = e.run(&["backup", dir.to_str().unwrap(), "--keep", "0"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(file_names(&dir).is_empty());
    // no database: the usual one line, nothing written
    let fresh = Env::new();
    let err = fresh.fails(&["backup", dir.to_str().unwrap()]);
    assert!(err.contains("no database"), "{err}");
    assert!(file_names(&dir).is_empty());
}

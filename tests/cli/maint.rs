//! backup, check and restore.

use std::path::Path;
use std::process::Command;

use crate::{Env, broken_check, file_names, succeeded};

#[test]
fn backup_is_a_consistent_copy_and_check_finds_problems() {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    let dest = e.dir.path().join("copy.db");
    e.ok(&["backup", dest.to_str().unwrap()]);
    let copy = rusqlite::Connection::open(&dest).unwrap();
    let n: i64 = copy.query_row("SELECT count(*) FROM user", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
    assert!(e.fails(&["backup", dest.to_str().unwrap()]).contains("exists"));
    assert!(e.ok(&["check"]).contains("ok"));
    // break an invariant behind hearth's back
    e.conn().execute("UPDATE user SET followers_counter = 5", []).unwrap();
    let out = e.run(&["check"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("followers_counter"));
}

#[test]
fn check_json_lists_each_problem_with_its_check_and_count() {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    e.ok(&["user", "create", "--username", "bob", "--no-password"]);
    assert_eq!(e.json(&["check", "--json"]), serde_json::json!([]));
    e.conn()
        .execute_batch(
            "UPDATE user SET followers_counter = 5, posts_counter = 1;
             DELETE FROM jwt_secret;",
        )
        .unwrap();
    let out =
        broken_check(&e, &[("followers_counter", 2), ("posts_counter", 2), ("jwt_secret", 1)]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("error: 3 problems found: keep a copy"), "{err}");
    assert!(err.contains("`hearth restore` the latest backup"), "the next step: {err}");
    let text = e.run(&["check"]);
    assert_eq!(String::from_utf8(text.stdout).unwrap().lines().count(), 3);
}

/// What a database holds, as one comparable value.
fn contents(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut out = Vec::new();
    for q in [
        "SELECT 'user ' || id || ' ' || username || ' ' || is_staff FROM user ORDER BY id",
        "SELECT 'app ' || client_id || ' ' || name FROM oauth_app ORDER BY id",
        "SELECT 'reaction ' || id || ' ' || label FROM reaction ORDER BY id",
        "SELECT 'category ' || id || ' ' || name || ' ' || slug FROM category ORDER BY id",
        "SELECT 'secret ' || secret FROM jwt_secret ORDER BY id",
        "SELECT 'version ' || user_version FROM pragma_user_version",
    ] {
        let mut stmt = c.prepare(q).unwrap();
        out.extend(stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap));
    }
    out
}

/// The bytes of the database and its -wal, if any: what "unchanged" means.
fn bytes(db: &Path) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    (std::fs::read(db).unwrap(), std::fs::read(wal).ok())
}

fn restore(e: &Env, src: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["restore", src.to_str().unwrap()];
    args.extend(extra);
    e.run(&args)
}

/// A hearth database with a user and an app, its backup, and writes made after it.
fn with_backup() -> (Env, std::path::PathBuf, Vec<String>) {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    e.ok(&["category", "create", "--name", "News"]);
    let backups = tempfile::tempdir().unwrap().keep();
    let src = backups.join("before.db");
    e.ok(&["backup", src.to_str().unwrap()]);
    let at_backup = contents(&src);
    e.ok(&["user", "create", "--username", "bob", "--no-password"]);
    e.ok(&["user", "set-staff", "alice", "true"]);
    e.ok(&["app", "create", "--name", "Later", "--grant", "password"]);
    e.ok(&["jwt", "secret", "--rotate"]);
    assert_ne!(contents(&e.db()), at_backup);
    (e, src, at_backup)
}

#[test]
fn restore_puts_the_backup_in_place_and_keeps_the_replaced_file() {
    let (e, src, at_backup) = with_backup();
    let src_bytes = std::fs::read(&src).unwrap();
    let current = contents(&e.db());
    let out = restore(&e, &src, &[]);
    succeeded(&out);
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.contains("kept as"), "{said}");
    assert_eq!(contents(&e.db()), at_backup, "exactly the backup's data");
    assert_eq!(std::fs::read(&src).unwrap(), src_bytes, "the backup is never changed");
    let names = file_names(e.dir.path());
    let kept: Vec<&String> =
        names.iter().filter(|n| n.starts_with("hearth.db.replaced-")).collect();
    assert_eq!(kept.len(), 1, "{names:?}");
    let stamp = kept[0].trim_start_matches("hearth.db.replaced-");
    assert_eq!(stamp.len(), 16, "{stamp}");
    assert!(stamp.ends_with('Z') && stamp.as_bytes()[8] == b'T', "{stamp}");
    assert_eq!(
        names,
        ["hearth.db".to_owned(), kept[0].clone()],
        "no -wal, -shm or temporary file is left"
    );
    assert_eq!(
        contents(&e.dir.path().join(kept[0])),
        current,
        "the replaced file, self-contained, holds the writes made after the backup"
    );
    assert!(e.ok(&["check"]).contains("ok"));
    // a second restore in the same second keeps both replaced files
    let out = restore(&e, &src, &[]);
    succeeded(&out);
    assert_eq!(
        file_names(e.dir.path()).iter().filter(|n| n.starts_with("hearth.db.replaced-")).count(),
        2
    );
}

#[test]
fn restore_discard_current_keeps_nothing() {
    let (e, src, at_backup) = with_backup();
    let out = restore(&e, &src, &["--discard-current"]);
    succeeded(&out);
    assert!(String::from_utf8(out.stdout).unwrap().contains("discarded"));
    assert_eq!(contents(&e.db()), at_backup);
    assert_eq!(file_names(e.dir.path()), ["hearth.db"]);
}

#[test]
fn restore_without_a_database_puts_the_backup_there() {
    let (e, src, at_backup) = with_backup();
    let empty = Env::new();
    // a stale -wal without its database must not be replayed into the restored file
    let mut wal = empty.db().into_os_string();
    wal.push("-wal");
    std::fs::write(&wal, b"stale").unwrap();
    let out = restore(&empty, &src, &[]);
    succeeded(&out);
    assert!(String::from_utf8(out.stdout).unwrap().contains("there was no database"));
    assert_eq!(contents(&empty.db()), at_backup);
    assert_eq!(file_names(empty.dir.path()), ["hearth.db"]);
    assert!(empty.ok(&["check"]).contains("ok"));
    drop(e);
}

#[test]
fn restore_folds_a_stale_wal_into_the_kept_file() {
    let (e, src, at_backup) = with_backup();
    // what a process killed with a committed transaction in its WAL leaves behind
    let stale = Env::new();
    std::fs::copy(e.db(), stale.db()).unwrap();
    {
        let c = rusqlite::Connection::open(stale.db()).unwrap();
        c.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
             INSERT INTO user (username, username_key, date_joined) VALUES ('only-in-wal', 'only-in-wal', 0);",
        )
        .unwrap();
        let mut db = stale.db().into_os_string();
        db.push(".copy");
        std::fs::copy(stale.db(), &db).unwrap();
        let mut wal = stale.db().into_os_string();
        wal.push("-wal");
        let mut wal_copy = db.clone();
        wal_copy.push("-wal");
        std::fs::copy(&wal, &wal_copy).unwrap();
        drop(c);
        std::fs::rename(&db, stale.db()).unwrap();
        std::fs::rename(&wal_copy, &wal).unwrap();
        assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    }
    let out = restore(&stale, &src, &[]);
    succeeded(&out);
    assert_eq!(contents(&stale.db()), at_backup);
    let names = file_names(stale.dir.path());
    assert_eq!(names.len(), 2, "{names:?}");
    let kept = stale.dir.path().join(&names[1]);
    let c =
        rusqlite::Connection::open_with_flags(&kept, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let n: i64 = c
        .query_row("SELECT count(*) FROM user WHERE username = 'only-in-wal'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the kept file holds what was only in the -wal");
}

#[test]
fn restore_migrates_an_older_backup_on_a_copy() {
    if !crate::migrate::history() {
        return;
    }
    let e = Env::initialised();
    let backups = tempfile::tempdir().unwrap();
    let src = backups.path().join("v1.db");
    crate::migrate::write_v1(
        &src,
        "INSERT INTO reaction (id, label, sentiment) VALUES (7, 'LIKE', 1);",
    );
    let src_bytes = std::fs::read(&src).unwrap();
    let out = restore(&e, &src, &["--discard-current"]);
    succeeded(&out);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains(&format!("migrated from schema version 1 to {}", crate::migrate::CURRENT))
    );
    assert_eq!(std::fs::read(&src).unwrap(), src_bytes, "the backup is never changed");
    e.assert_sql(&[
        ("PRAGMA user_version", crate::migrate::CURRENT),
        ("SELECT count(*) FROM reaction WHERE label = 'LIKE (7)'", 1),
    ]);
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn restore_refuses_what_is_not_a_sound_hearth_backup_and_changes_nothing() {
    let (e, good, _) = with_backup();
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database, just some text that is long enough to fill a header....",
    )
    .unwrap();
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    let newer = dir.path().join("newer.db");
    std::fs::copy(&good, &newer).unwrap();
    rusqlite::Connection::open(&newer).unwrap().pragma_update(None, "user_version", 99).unwrap();
    // a backup whose pages were damaged after it was written
    let corrupt = dir.path().join("corrupt.db");
    std::fs::copy(&good, &corrupt).unwrap();
    {
        let c = rusqlite::Connection::open(&corrupt).unwrap();
        let (page_size, root): (i64, i64) = c
            .query_row(
                "SELECT (SELECT page_size FROM pragma_page_size), rootpage FROM sqlite_schema WHERE name = 'preference'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        drop(c);
        let mut b = std::fs::read(&corrupt).unwrap();
        let start = usize::try_from((root - 1) * page_size).unwrap();
        // the cell pointers of the preference table's root page point nowhere
        for x in &mut b[start + 12..start + 40] {
            *x = 0xff;
        }
        std::fs::write(&corrupt, b).unwrap();
    }
    let missing = dir.path().join("missing.db");
    let itself = e.db();
    let before = bytes(&e.db());
    let names = file_names(e.dir.path());
    let cases: Vec<(&Path, &str)> = vec![
        (&text, "not a hearth database"),
        (&other, "not a hearth database"),
        (&newer, "newer than this hearth"),
        (&corrupt, "integrity check"),
        (&missing, "cannot read"),
        (dir.path(), "not a file"),
        (&itself, "the database itself"),
    ];
    for (src, why) in cases {
        let err = crate::fails(restore(&e, src, &[]), &["restore", &src.display().to_string()]);
        assert!(err.contains(why), "{}: {err}", src.display());
        assert_eq!(bytes(&e.db()), before, "{}: the database is unchanged", src.display());
        assert_eq!(file_names(e.dir.path()), names, "{}: no file left behind", src.display());
    }
}

#[test]
fn restore_refuses_while_a_hearth_process_holds_the_database() {
    let (e, src, _) = with_backup();
    let before = bytes(&e.db());
    // what every hearth process holds while its Db lives
    let held = std::fs::File::open(e.db()).unwrap();
    held.lock_shared().unwrap();
    let err = crate::fails(restore(&e, &src, &[]), &["restore"]);
    assert_eq!(
        err,
        "error: the database is in use by another hearth process (stop the server first)"
    );
    assert_eq!(bytes(&e.db()), before);
    held.unlock().unwrap();
    // and a backup some hearth process holds is not copied
    let held = std::fs::File::open(&src).unwrap();
    held.lock_shared().unwrap();
    let err = crate::fails(restore(&e, &src, &[]), &["restore"]);
    assert!(err.contains("hearth backup"), "{err}");
    assert_eq!(bytes(&e.db()), before);
}

#[test]
fn restore_refuses_while_a_server_runs() {
    let (e, src, _) = with_backup();
    let (mut child, addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    let users_before = crate::get(&addr, "/api/v2/user/search/?search=alice");
    let out = restore(&e, &src, &[]);
    let err = crate::fails(out, &["restore"]);
    assert!(err.contains("in use"), "{err}");
    assert_eq!(
        crate::get(&addr, "/api/v2/user/search/?search=alice").lines().last(),
        users_before.lines().last(),
        "the server still serves the same database"
    );
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(child.wait().unwrap().success());
    // stopped: now it may
    let out = restore(&e, &src, &[]);
    succeeded(&out);
}

/// Litestream adds these two tables to a database it replicates (SPEC §9), as it
/// creates them.
const LITESTREAM_TABLES: &str =
    "CREATE TABLE IF NOT EXISTS _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
     CREATE TABLE IF NOT EXISTS _litestream_lock (id INTEGER);
     INSERT INTO _litestream_seq (id, seq) VALUES (1, 7);";

#[test]
fn check_backup_and_restore_tolerate_litestreams_tables() {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    rusqlite::Connection::open(e.db()).unwrap().execute_batch(LITESTREAM_TABLES).unwrap();
    assert!(e.ok(&["check"]).contains("ok"));
    let json = e.json(&["check", "--json"]);
    assert_eq!(json, serde_json::json!([]), "no problem reported");
    let backups = tempfile::tempdir().unwrap();
    let src = backups.path().join("with-litestream.db");
    e.ok(&["backup", src.to_str().unwrap()]);
    e.ok(&["user", "create", "--username", "bob", "--no-password"]);
    let out = restore(&e, &src, &["--discard-current"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(e.sql("SELECT count(*) FROM user"), 1, "the backup is in place");
    assert_eq!(e.sql("SELECT seq FROM _litestream_seq"), 7);
    assert!(e.ok(&["check"]).contains("ok"));
}

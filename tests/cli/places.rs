//! Where the database lives (issue 29): each filesystem reason a database cannot be
//! created or opened is its own one-line error with the fix, never "not a hearth
//! database"; and one `serve` per database.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use crate::{Env, fails};

/// Runs the binary on `db` as an unprivileged user, so that permissions apply: these
/// tests run as root in CI, and root may write into any directory. As root the run
/// drops to `nobody` with `setpriv` (util-linux); as anyone else it runs as is.
fn as_unprivileged(dir: &Path, db: &Path, args: &[&str]) -> std::process::Output {
    let root = std::fs::metadata(dir).unwrap().uid() == 0;
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_hearth")]);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_hearth"))
    };
    cmd.arg("--db").arg(db).args(args).env_remove("HEARTH_DB");
    cmd.output()
        .unwrap_or_else(|e| panic!("setpriv is missing ({e}); fix: apt-get install util-linux"))
}

/// A directory the unprivileged user may enter and read but not write.
fn read_only_dir(e: &Env, name: &str) -> std::path::PathBuf {
    std::fs::set_permissions(e.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = e.dir.path().join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    dir
}

#[test]
fn a_missing_directory_says_so_and_how_to_make_it() {
    let e = Env::new();
    let db = e.dir.path().join("no/such/dir/hearth.db");
    let db = db.to_str().unwrap();
    let line = fails(crate::run::hearth(Path::new(db), &["init"], None), &["init"]);
    assert!(line.contains("does not exist") && line.contains("mkdir -p"), "{line}");
    assert!(!line.contains("not a hearth database"), "{line}");
    // the same path from HEARTH_DB: the hint names both steps, and each then works
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["user", "list"])
        .env("HEARTH_DB", db)
        .output()
        .unwrap();
    let line = fails(out, &["user", "list"]);
    assert!(
        line.contains("mkdir -p") && line.contains(&format!("hearth --db {db} init")),
        "{line}"
    );
    std::fs::create_dir_all(Path::new(db).parent().unwrap()).unwrap();
    crate::succeeded(&crate::run::hearth(Path::new(db), &["init"], None));
}

#[test]
fn a_directory_an_empty_file_or_a_file_for_a_directory_each_say_what_they_are() {
    let e = Env::new();
    std::fs::create_dir(e.db()).unwrap();
    e.assert_fails(&[
        (&["init"], "is a directory: --db names the database file"),
        (&["user", "list"], "is a directory"),
    ]);
    let empty = Env::new();
    std::fs::write(empty.db(), b"").unwrap();
    empty.assert_fails(&[(&["init"], "empty file (0 bytes)"), (&["user", "list"], "rm ")]);
    // a path under a file: the filesystem's other way of having no directory
    let under = Env::new();
    std::fs::write(under.dir.path().join("f"), b"x").unwrap();
    let db = under.dir.path().join("f/hearth.db");
    for args in [&["init"][..], &["user", "list"]] {
        let line = fails(crate::run::hearth(&db, args, None), args);
        assert!(line.contains("is a file, not a directory"), "{args:?}: {line}");
    }
}

#[test]
fn a_read_only_directory_is_named_on_init_and_on_serve() {
    let e = Env::new();
    let dir = read_only_dir(&e, "ro");
    let out = as_unprivileged(e.dir.path(), &dir.join("hearth.db"), &["init"]);
    let line = fails(out, &["init"]);
    assert!(line.contains("cannot create files in") && line.contains("ro"), "{line}");
    // a writable file in a directory where SQLite cannot put its -wal and -shm
    let e = Env::new();
    let dir = read_only_dir(&e, "ro");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let db = dir.join("hearth.db");
    crate::succeeded(&as_unprivileged(e.dir.path(), &db, &["init"]));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    for args in [&["serve", "--listen", "127.0.0.1:0"][..], &["user", "list"]] {
        let line = fails(as_unprivileged(e.dir.path(), &db, args), args);
        assert!(line.contains("-wal and -shm") && line.contains("writable"), "{args:?}: {line}");
    }
    // a database this user may not read or write (another user's file)
    let e = Env::initialised();
    std::fs::set_permissions(e.dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(e.db(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let line = fails(as_unprivileged(e.dir.path(), &e.db(), &["user", "list"]), &["user", "list"]);
    assert!(line.contains("cannot read") && line.contains("chown"), "{line}");
    // readable but not writable: reads work (SQLite opens it read-only), and the first
    // write names the file rather than "attempt to write a readonly database"
    std::fs::set_permissions(e.db(), std::fs::Permissions::from_mode(0o644)).unwrap();
    crate::succeeded(&as_unprivileged(e.dir.path(), &e.db(), &["user", "list"]));
    let args = ["user", "create", "--username", "zed", "--no-password"];
    let line = fails(as_unprivileged(e.dir.path(), &e.db(), &args), &args);
    assert!(line.contains("is not writable by this user") && line.contains("chown"), "{line}");
}

#[test]
fn a_backup_into_a_missing_directory_says_so() {
    let e = Env::initialised();
    let dest = e.dir.path().join("nowhere/b.db");
    let line = e.fails(&["backup", dest.to_str().unwrap()]);
    assert!(line.contains("does not exist") && line.contains("mkdir -p"), "{line}");
}

#[test]
fn a_second_serve_on_one_database_is_refused_while_commands_still_run() {
    let e = Env::initialised();
    let (mut first, _addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    let line = e.fails(&["serve", "--listen", "127.0.0.1:0"]);
    assert!(
        line.contains("another hearth serve") && line.contains(&first.id().to_string()),
        "{line}"
    );
    e.ok(&["user", "list"]);
    crate::sigterm(&first);
    assert!(first.wait().unwrap().success());
    // stopped, it leaves the one file, and the next server starts
    assert_eq!(crate::file_names(e.dir.path()), ["hearth.db"]);
    let (mut second, _addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    crate::sigterm(&second);
    assert!(second.wait().unwrap().success());
}

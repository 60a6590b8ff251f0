//! init: creating the database, refusing other files, the seeded data.

use crate::Env;

#[test]
fn init_creates_then_is_harmless() {
    let e = Env::new();
    assert!(e.ok(&["init"]).contains("created"));
    assert_eq!(e.sql("SELECT count(*) FROM reaction"), 6);
    let prefs = e.sql("SELECT count(*) FROM preference");
    assert!(prefs >= 100);
    let secret_before = e.ok(&["jwt", "secret"]);
    assert!(e.ok(&["init"]).contains("nothing changed"));
    assert_eq!(e.sql("SELECT count(*) FROM preference"), prefs);
    assert_eq!(e.ok(&["jwt", "secret"]), secret_before);
}

#[test]
fn init_refuses_a_file_that_is_not_hearth() {
    let e = Env::new();
    std::fs::write(e.db(), b"just some text, not a database at all..........").unwrap();
    assert!(e.fails(&["init"]).contains("not a hearth database"));
    let other = Env::new();
    rusqlite::Connection::open(other.db()).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    other.assert_fails(&[
        (&["init"], "not a hearth database"),
        (&["user", "list"], "not a hearth database"),
    ]);
}

#[test]
fn management_commands_need_an_existing_database() {
    let e = Env::new();
    assert!(e.fails(&["user", "list"]).contains("init"));
    assert!(!e.db().exists());
}

#[test]
fn reactions_and_preferences_are_seeded_as_spec_says() {
    let e = Env::initialised();
    let r = e.json(&["reaction", "list", "--json"]);
    let labels = r.as_array().unwrap().iter().map(|x| &x["label"]);
    let want = ["like", "love", "haha", "wow", "sad", "angry"];
    assert!(labels.eq(want.iter()), "{r}");
    assert_eq!(r[4]["sentiment"], -1);
    assert_eq!(r[3]["id"], 4);
    let ca = e.json(&["pref", "get", "configurations.content_availability", "--json"]);
    assert_eq!(ca["value"], true);
    assert_eq!(ca["type"], "boolean");
    let secret = e.ok(&["jwt", "secret"]);
    assert!(secret.trim().len() >= 43, "a secret of at least 32 random bytes");
}

/// An operator inspects the file with the system's `sqlite3`, which may be older than the
/// SQLite hearth bundles (Debian 12 ships 3.40): SQLite parses the whole schema on open, so
/// one newer syntax in a trigger or index (say `json_group_array(x ORDER BY x)`, 3.44)
/// makes the file unreadable to it. Python's `sqlite3` module (3.40.1 on Debian 12) opens
/// it here and reads a row of every table.
#[test]
fn the_file_opens_in_an_older_sqlite() {
    let e = Env::initialised();
    let script = r#"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(sqlite3.sqlite_version)
for (t,) in c.execute("SELECT name FROM sqlite_schema WHERE type = 'table'").fetchall():
    c.execute(f'SELECT * FROM "{t}" LIMIT 1').fetchall()
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(e.db())
        .output()
        .unwrap_or_else(|err| panic!("python3 is missing ({err}); fix: apt-get install python3"));
    assert!(
        out.status.success(),
        "an older SQLite ({}) cannot read a hearth file: {}",
        String::from_utf8_lossy(&out.stdout).trim(),
        String::from_utf8_lossy(&out.stderr)
    );
}

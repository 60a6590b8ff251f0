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

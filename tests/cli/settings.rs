//! jwt and pref: the shared secret and dynamic preferences.

use crate::Env;

#[test]
fn jwt_secret_rotation_and_mint() {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    let first = e.ok(&["jwt", "secret"]).trim().to_owned();
    let token = e.ok(&["jwt", "mint", "--user-id", "1", "--ttl", "60"]).trim().to_owned();
    let keys = [hearth::token::jwt::Key::new(&first)];
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
        as i64;
    let claims = hearth::token::jwt::verify_access(&token, &[&keys[0]], now).unwrap();
    assert_eq!(claims.user_id, 1);
    assert!(claims.exp - now <= 60);
    let rotated = e.json(&["jwt", "secret", "--rotate", "--grace", "30", "--json"]);
    assert_ne!(rotated["secret"], first);
    assert!(rotated["previous_valid_until"].is_string());
    assert_eq!(e.sql("SELECT count(*) FROM jwt_secret WHERE grace_until IS NOT NULL"), 1);
    let minted = e.json(&["jwt", "mint", "--user-id", "1", "--ext-id", "ext-9", "--json"]);
    assert!(minted["token"].as_str().unwrap().split('.').count() == 3);
    assert!(e.fails(&["jwt", "mint", "--user-id", "99"]).contains("no live user"));
    assert!(!e.run(&["jwt", "mint", "--user-id", "1", "--ttl", "0"]).status.success());
    assert!(!e.run(&["jwt", "secret", "--grace", "5"]).status.success(), "--grace needs --rotate");
}

#[test]
fn preferences_are_type_checked() {
    let e = Env::initialised();
    e.ok(&["pref", "set", "configurations.content_availability", "false"]);
    assert_eq!(
        e.json(&["pref", "get", "configurations.content_availability", "--json"])["value"],
        false
    );
    e.ok(&["pref", "set", "covers.covers_visibility", "3"]);
    assert_eq!(e.ok(&["pref", "get", "covers.covers_visibility"]).trim(), "3");
    e.ok(&["pref", "set", "text.application_name", "false"]);
    assert_eq!(
        e.json(&["pref", "get", "text.application_name", "--json"])["value"],
        "false",
        "a string stays a string"
    );
    e.assert_fails(&[
        (&["pref", "set", "configurations.content_availability", "maybe"], "boolean"),
        (&["pref", "set", "covers.covers_visibility", "1.5"], "integer"),
        (&["pref", "set", "nosuch.pref", "1"], "no preference"),
        (&["pref", "get", "nodot"], "SECTION.NAME"),
    ]);
    assert_eq!(
        e.json(&["pref", "get", "covers.covers_visibility", "--json"])["value"],
        3,
        "unchanged by the failures"
    );
    let section = e.json(&["pref", "list", "--section", "colors", "--json"]);
    assert!(section.as_array().unwrap().iter().all(|p| p["section"] == "colors"));
}

/// `hearth pref list | head -3`: a reader that stops early ends the command quietly,
/// as SIGPIPE ends other programs (it panicked with "failed printing to stdout: Broken
/// pipe"), and the database is closed as after any command.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let e = Env::initialised();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(e.db())
        .args(["pref", "list"])
        .env_remove("HEARTH_DB")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the reader goes before the first line is written: every write fails with EPIPE
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(err.is_empty(), "nothing on stderr: {err}");
    assert_eq!(crate::file_names(e.dir.path()), ["hearth.db"], "the database was closed");
}

//! user: passwords, staff, lookups.

use serde_json::Value;

use crate::{Env, fails};

#[test]
fn users_with_and_without_passwords() {
    let e = Env::new();
    e.init();
    let out = e.run_stdin(
        &[
            "user",
            "create",
            "--username",
            "Alice",
            "--email",
            "alice@example.org",
            "--password-stdin",
            "--json",
        ],
        Some("pw-one\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let u: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(u["has_password"], true);
    let hash: String = rusqlite::Connection::open(e.db())
        .unwrap()
        .query_row(
            "SELECT password FROM user WHERE username = 'Alice'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(hash.starts_with("pbkdf2_sha256$600000$"), "{hash}");
    assert!(
        hearth::token::password::verify("pw-one", &hash),
        "one trailing newline stripped"
    );
    // no stdin flag and no terminal: a user without password (JWT-only)
    e.ok(&["user", "create", "--username", "bot", "--staff"]);
    assert_eq!(
        e.sql(
            "SELECT count(*) FROM user WHERE username = 'bot' AND password IS NULL AND is_staff = 1"
        ),
        1
    );
    // usernames are unique case-insensitively
    assert!(
        e.fails(&["user", "create", "--username", "alice"])
            .contains("taken")
    );
    assert!(
        e.fails(&[
            "user",
            "create",
            "--username",
            "carol",
            "--email",
            "ALICE@example.org"
        ])
        .contains("taken")
    );
    assert!(
        e.fails(&["user", "create", "--username", "bad name"])
            .contains("username")
    );
    assert!(
        e.fails(&["user", "create", "--username", &"u".repeat(151)])
            .contains("150")
    );
    assert!(
        e.fails(&["user", "create", "--username", "dave", "--email", "nope"])
            .contains("email")
    );
    let out = e.run_stdin(
        &["user", "create", "--username", "erin", "--password-stdin"],
        Some("\n"),
    );
    assert!(fails(out, &["empty pw"]).contains("empty"));
    // the password is never an argument
    let out = e.run(&["user", "create", "--username", "frank", "--password", "x"]);
    assert!(!out.status.success());
    let list = e.json(&["user", "list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 2);
    // set-password, case-insensitive name lookup
    let out = e.run_stdin(
        &["user", "set-password", "ALICE", "--password-stdin"],
        Some("pw-two\r\n"),
    );
    assert!(out.status.success());
    let hash: String = rusqlite::Connection::open(e.db())
        .unwrap()
        .query_row(
            "SELECT password FROM user WHERE username = 'Alice'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(hearth::token::password::verify("pw-two", &hash));
    assert!(
        e.fails(&["user", "set-password", "nobody", "--password-stdin"])
            .contains("no user")
    );
    e.ok(&["user", "delete", "bot"]);
    assert_eq!(
        e.json(&["user", "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(e.fails(&["user", "delete", "bot"]).contains("no user"));
}

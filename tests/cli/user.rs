//! user: passwords, staff, lookups.

use serde_json::Value;

use crate::{Env, assert_fields, fails, succeeded};

/// `user create` of Alice with her email.
const ALICE: [&str; 6] = ["user", "create", "--username", "Alice", "--email", "alice@example.org"];

#[test]
fn users_with_and_without_passwords() {
    let e = Env::initialised();
    let args = [&ALICE[..], &["--password-stdin", "--json"]].concat();
    let out = e.run_stdin(&args, Some("pw-one\n"));
    succeeded(&out);
    let u: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(u["has_password"], true);
    let hash: String = e.value("SELECT password FROM user WHERE username = 'Alice'");
    assert!(hash.starts_with("pbkdf2_sha256$600000$"), "{hash}");
    assert!(hearth::token::password::verify("pw-one", &hash), "one trailing newline stripped");
    // --no-password: a user without password (JWT-only)
    e.ok(&["user", "create", "--username", "bot", "--staff", "--no-password"]);
    assert_eq!(
        e.sql(
            "SELECT count(*) FROM user WHERE username = 'bot' AND password IS NULL AND is_staff = 1"
        ),
        1
    );
    // usernames are unique case-insensitively
    e.assert_fails(&[
        (&["user", "create", "--username", "alice", "--no-password"], "taken"),
        (
            &[
                "user",
                "create",
                "--username",
                "carol",
                "--email",
                "ALICE@example.org",
                "--no-password",
            ],
            "taken",
        ),
        (&["user", "create", "--username", "bad name"], "username"),
        (&["user", "create", "--username", &"u".repeat(151)], "150"),
        (&["user", "create", "--username", "dave", "--email", "nope"], "email"),
    ]);
    let out =
        e.run_stdin(&["user", "create", "--username", "erin", "--password-stdin"], Some("\n"));
    assert!(fails(out, &["empty pw"]).contains("empty"));
    // the password is never an argument
    let out = e.run(&["user", "create", "--username", "frank", "--password", "x"]);
    assert!(!out.status.success());
    let list = e.json(&["user", "list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 2);
    // set-password, case-insensitive name lookup
    let out =
        e.run_stdin(&["user", "set-password", "ALICE", "--password-stdin"], Some("pw-two\r\n"));
    assert!(out.status.success());
    let hash: String = e.value("SELECT password FROM user WHERE username = 'Alice'");
    assert!(hearth::token::password::verify("pw-two", &hash));
    assert!(e.fails(&["user", "set-password", "nobody", "--password-stdin"]).contains("no user"));
    e.ok(&["user", "delete", "bot"]);
    assert_eq!(e.json(&["user", "list", "--json"]).as_array().unwrap().len(), 1);
    assert!(e.fails(&["user", "delete", "bot"]).contains("no user"));
}

#[test]
fn without_a_terminal_a_password_needs_a_flag_and_is_never_dropped() {
    let e = Env::initialised();
    // a password piped in without --password-stdin: refused, nothing created
    for stdin in [Some("s3cret\n"), None] {
        let out = e.run_stdin(&["user", "create", "--username", "alice"], stdin);
        let err = fails(out, &["user create without a flag"]);
        assert!(err.contains("--password-stdin"), "{err}");
        assert!(err.contains("--no-password"), "{err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "nothing created");
    }
    // the two flags exclude each other
    let out = e.run_stdin(
        &["user", "create", "--username", "alice", "--password-stdin", "--no-password"],
        Some("pw\n"),
    );
    assert!(!out.status.success());
    assert_eq!(e.sql("SELECT count(*) FROM user"), 0);
    let u = e.json(&["user", "create", "--username", "alice", "--no-password", "--json"]);
    assert_eq!(u["has_password"], false);
    // set-password reads the same way: no flag, no terminal: refused, unchanged
    let out = e.run_stdin(&["user", "set-password", "alice"], Some("pw\n"));
    assert!(fails(out, &["set-password without a flag"]).contains("--password-stdin"));
    assert_eq!(e.sql("SELECT count(*) FROM user WHERE password IS NULL"), 1);
    let out = e.run_stdin(&["user", "set-password", "alice", "--password-stdin"], Some("pw-one\n"));
    assert!(out.status.success());
    assert_eq!(e.json(&["user", "show", "alice", "--json"])["has_password"], true);
    let out = e.run_stdin(&["user", "set-password", "alice"], Some("pw-two\n"));
    assert!(!out.status.success());
    let hash: String = e.value("SELECT password FROM user WHERE username = 'alice'");
    assert!(hearth::token::password::verify("pw-one", &hash), "the refused call changed nothing");
    // --no-password removes it
    e.ok(&["user", "set-password", "alice", "--no-password"]);
    assert_eq!(e.json(&["user", "show", "alice", "--json"])["has_password"], false);
}

#[test]
fn user_show_and_set_staff() {
    let e = Env::initialised();
    let more = ["--real-name", "Alice A.", "--ext-id", "ext-1", "--no-password"];
    e.ok(&[&ALICE[..], &more].concat());
    let u = e.json(&["user", "show", "alice", "--json"]);
    let want = serde_json::json!({"id": 1, "username": "Alice", "email": "alice@example.org",
        "real_name": "Alice A.", "ext_id": "ext-1", "is_staff": false, "has_password": false});
    assert_fields(&u, &want);
    assert!(u["date_joined"].as_str().unwrap().ends_with('Z'));
    let text = e.ok(&["user", "show", "ALICE"]);
    assert!(text.contains("Alice") && text.contains("alice@example.org"), "{text}");
    e.ok(&["user", "set-staff", "alice", "true"]);
    assert_eq!(e.json(&["user", "show", "alice", "--json"])["is_staff"], true);
    assert_eq!(e.sql("SELECT is_staff FROM user WHERE id = 1"), 1);
    e.ok(&["user", "set-staff", "Alice", "false"]);
    assert_eq!(e.sql("SELECT is_staff FROM user WHERE id = 1"), 0);
    assert!(!e.run(&["user", "set-staff", "alice", "yes"]).status.success());
    assert!(!e.run(&["user", "set-staff", "alice"]).status.success());
    assert_eq!(e.sql("SELECT is_staff FROM user WHERE id = 1"), 0);
    e.assert_fails(&[
        (&["user", "show", "nobody"], "no user"),
        (&["user", "set-staff", "nobody", "true"], "no user"),
    ]);
    e.ok(&["user", "delete", "alice"]);
    assert!(e.fails(&["user", "show", "alice"]).contains("no user"));
}

#[test]
fn a_username_may_start_with_a_dash() {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "-bob", "--no-password"]);
    assert_eq!(e.json(&["user", "show", "-bob", "--json"])["username"], "-bob");
    e.ok(&["user", "set-staff", "-bob", "true"]);
    e.ok(&["user", "set-password", "-bob", "--no-password"]);
    e.ok(&["user", "delete", "-bob"]);
    assert_eq!(e.sql("SELECT count(*) FROM user WHERE deleted = 1 AND is_staff = 1"), 1);
}

/// Issue 27, Low 10 (RFC 6819 §5.2.2.3): `user set-password` and `user set-staff …
/// false` end the user's OAuth tokens, as `user delete` does, on a running server.
#[test]
fn set_password_and_losing_staff_revoke_the_users_tokens() {
    let e = Env::initialised();
    let create = ["user", "create", "--username", "alice", "--staff", "--password-stdin"];
    succeeded(&e.run_stdin(&create, Some("pw-one\n")));
    let app = e.json(&["app", "create", "--name", "pw", "--grant", "password", "--json"]);
    let client = app["client_id"].as_str().unwrap().to_owned();
    let (mut child, addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    let token = |user: &str, pw: &str| -> String {
        let form = format!("grant_type=password&client_id={client}&username={user}&password={pw}");
        let resp = crate::http(
            &addr,
            &format!(
                "POST /oauth/token/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
                form.len()
            ),
        );
        let body = resp.split("\r\n\r\n").nth(1).unwrap();
        let v: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("{resp}"));
        v["access_token"].as_str().unwrap_or_else(|| panic!("{resp}")).to_owned()
    };
    let me = |t: &str| -> String {
        let resp =
            crate::get_with(&addr, "/api/v2/user/me/", &format!("Authorization: Bearer {t}\r\n"));
        resp.lines().next().unwrap_or("").to_owned()
    };
    let ok = "HTTP/1.1 200 OK";
    let refused = "HTTP/1.1 401 Unauthorized";

    let t1 = token("alice", "pw-one");
    assert_eq!(me(&t1), ok);
    succeeded(
        &e.run_stdin(&["user", "set-password", "alice", "--password-stdin"], Some("pw-two\n")),
    );
    assert_eq!(me(&t1), refused, "a token won with the old password outlived it");
    let t2 = token("alice", "pw-two");
    assert_eq!(me(&t2), ok);
    // making staff again takes nothing away; taking staff away ends the tokens
    e.ok(&["user", "set-staff", "alice", "true"]);
    assert_eq!(me(&t2), ok);
    e.ok(&["user", "set-staff", "alice", "false"]);
    assert_eq!(me(&t2), refused, "a staff token outlived the staff flag");
    let t3 = token("alice", "pw-two");
    assert_eq!(me(&t3), ok);
    // setting false again on a user who is not staff changes nothing
    e.ok(&["user", "set-staff", "alice", "false"]);
    assert_eq!(me(&t3), ok);
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
}

#[test]
fn staff_approve_a_registration_that_waits() {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "ann", "--no-password"]);
    e.ok(&["user", "create", "--username", "bob", "--no-password"]);
    e.conn().execute("UPDATE user SET reg_approved = 0 WHERE username = 'bob'", []).unwrap();
    let waiting = e.json(&["user", "list", "--awaiting-approval", "--json"]);
    let names: Vec<&str> =
        waiting.as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect();
    assert_eq!(names, ["bob"]);
    assert!(e.ok(&["user", "list"]).contains("bob  (awaiting approval)"));
    assert_eq!(e.json(&["user", "show", "bob", "--json"])["reg_approved"], false);
    assert!(e.ok(&["user", "approve", "BOB"]).contains("bob is approved"));
    assert_eq!(e.sql("SELECT reg_approved FROM user WHERE username = 'bob'"), 1);
    assert!(e.ok(&["user", "approve", "bob"]).contains("nothing changed"));
    assert_eq!(e.json(&["user", "list", "--awaiting-approval", "--json"]), serde_json::json!([]));
    e.assert_fails(&[(&["user", "approve", "nobody"], "no user")]);
}

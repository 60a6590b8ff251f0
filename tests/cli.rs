//! The `hearth` binary, run as a user would: every command of SPEC §2, and every error
//! case it names (a clear one-line error and a non-zero exit, nothing changed).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("hearth.db")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_stdin(args, None)
    }

    fn run_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .arg("--db")
            .arg(self.db())
            .args(args)
            .env_remove("HEARTH_DB")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    }

    /// Runs a command that must succeed; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs a command that must fail with one clear line; returns that line.
    fn fails(&self, args: &[&str]) -> String {
        fails(self.run(args), args)
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(self.ok(args).trim()).unwrap()
    }

    fn init(&self) -> &Env {
        self.ok(&["init"]);
        self
    }

    fn sql(&self, q: &str) -> i64 {
        let c = rusqlite::Connection::open(self.db()).unwrap();
        c.query_row(q, [], |r| r.get(0)).unwrap()
    }
}

fn fails(out: Output, args: &[&str]) -> String {
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8(out.stderr).unwrap();
    let line = err
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or_else(|| panic!("{args:?}: no error line in {err:?}"));
    line.to_owned()
}

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
    rusqlite::Connection::open(other.db())
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    assert!(other.fails(&["init"]).contains("not a hearth database"));
    assert!(
        other
            .fails(&["user", "list"])
            .contains("not a hearth database")
    );
}

#[test]
fn management_commands_need_an_existing_database() {
    let e = Env::new();
    assert!(e.fails(&["user", "list"]).contains("init"));
    assert!(!e.db().exists());
}

#[test]
fn reactions_and_preferences_are_seeded_as_spec_says() {
    let e = Env::new();
    e.init();
    let r = e.json(&["reaction", "list", "--json"]);
    let labels: Vec<&str> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["like", "love", "haha", "wow", "sad", "angry"]);
    assert_eq!(r[4]["sentiment"], -1);
    assert_eq!(r[3]["id"], 4);
    let ca = e.json(&[
        "pref",
        "get",
        "configurations.content_availability",
        "--json",
    ]);
    assert_eq!(ca["value"], true);
    assert_eq!(ca["type"], "boolean");
    let secret = e.ok(&["jwt", "secret"]);
    assert!(
        secret.trim().len() >= 43,
        "a secret of at least 32 random bytes"
    );
}

#[test]
fn app_create_list_show_rotate_delete() {
    let e = Env::new();
    e.init();
    let a = e.json(&[
        "app",
        "create",
        "--name",
        "Web",
        "--grant",
        "authorization-code",
        "--redirect-uri",
        "https://a.example/cb",
        "--json",
    ]);
    let id = a["client_id"].as_str().unwrap().to_owned();
    assert!(a["secret_key"].as_str().unwrap().len() >= 43);
    assert_eq!(a["client_type"], "confidential");
    assert_eq!(a["name"], "Web");
    // the secret is stored hashed only
    assert_eq!(
        e.sql(&format!(
            "SELECT count(*) FROM oauth_app WHERE client_id = '{id}' AND length(secret_hash) = 32"
        )),
        1
    );
    let p = e.json(&[
        "app", "create", "--name", "SDK", "--grant", "password", "--json",
    ]);
    assert_eq!(p["client_type"], "public");
    let i = e.json(&[
        "app",
        "create",
        "--name",
        "JS",
        "--grant",
        "implicit",
        "--redirect-uri",
        "https://a.example/i",
        "--json",
    ]);
    assert_eq!(i["client_type"], "public");
    let list = e.json(&["app", "list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 3);
    assert!(
        list[0].get("secret_key").is_none(),
        "list never shows secrets"
    );
    let shown = e.json(&["app", "show", &id, "--json"]);
    assert_eq!(shown["redirect_uris"][0], "https://a.example/cb");
    assert!(shown.get("secret_key").is_none());
    let rotated = e.json(&["app", "rotate-secret", &id, "--json"]);
    assert_ne!(rotated["secret_key"], a["secret_key"]);
    e.ok(&["app", "delete", &id]);
    assert!(e.fails(&["app", "show", &id]).contains("no application"));
    assert!(
        e.fails(&["app", "delete", "nope"])
            .contains("no application")
    );
}

#[test]
fn app_create_validates_its_input() {
    let e = Env::new();
    e.init();
    let long = "x".repeat(256);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--name", &long, "--grant", "password"], "at most 255"),
        (
            vec!["--name", "a", "--grant", "password", "--description", &long],
            "at most 255",
        ),
        (
            vec!["--name", "a", "--grant", "authorization-code"],
            "redirect-uri",
        ),
        (vec!["--name", "a", "--grant", "implicit"], "redirect-uri"),
        (
            vec![
                "--name",
                "a",
                "--grant",
                "authorization-code",
                "--redirect-uri",
                "https://a.example/cb#frag",
            ],
            "fragment",
        ),
        (
            vec![
                "--name",
                "a",
                "--grant",
                "authorization-code",
                "--redirect-uri",
                "/relative",
            ],
            "absolute",
        ),
        (vec!["--name", "", "--grant", "password"], "empty"),
        (vec!["--name", "a", "--grant", "client-credentials"], ""),
    ];
    for (args, why) in cases {
        let mut all = vec!["app", "create"];
        all.extend(&args);
        let err = e.fails(&all);
        assert!(err.contains(why), "{args:?}: {err}");
    }
    assert_eq!(
        e.sql("SELECT count(*) FROM oauth_app"),
        0,
        "nothing was created"
    );
    // exactly 255 is fine
    let ok = "y".repeat(255);
    e.ok(&["app", "create", "--name", &ok, "--grant", "password"]);
}

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

#[test]
fn jwt_secret_rotation_and_mint() {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "alice"]);
    let first = e.ok(&["jwt", "secret"]).trim().to_owned();
    let token = e
        .ok(&["jwt", "mint", "--user-id", "1", "--ttl", "60"])
        .trim()
        .to_owned();
    let keys = [hearth::token::jwt::Key::new(&first)];
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let claims = hearth::token::jwt::verify_access(&token, &[&keys[0]], now).unwrap();
    assert_eq!(claims.user_id, 1);
    assert!(claims.exp - now <= 60);
    let rotated = e.json(&["jwt", "secret", "--rotate", "--grace", "30", "--json"]);
    assert_ne!(rotated["secret"], first);
    assert!(rotated["previous_valid_until"].is_string());
    assert_eq!(
        e.sql("SELECT count(*) FROM jwt_secret WHERE grace_until IS NOT NULL"),
        1
    );
    let minted = e.json(&[
        "jwt",
        "mint",
        "--user-id",
        "1",
        "--ext-id",
        "ext-9",
        "--json",
    ]);
    assert!(minted["token"].as_str().unwrap().split('.').count() == 3);
    assert!(
        e.fails(&["jwt", "mint", "--user-id", "99"])
            .contains("no live user")
    );
    assert!(
        !e.run(&["jwt", "mint", "--user-id", "1", "--ttl", "0"])
            .status
            .success()
    );
    assert!(
        !e.run(&["jwt", "secret", "--grace", "5"]).status.success(),
        "--grace needs --rotate"
    );
}

#[test]
fn preferences_are_type_checked() {
    let e = Env::new();
    e.init();
    e.ok(&[
        "pref",
        "set",
        "configurations.content_availability",
        "false",
    ]);
    assert_eq!(
        e.json(&[
            "pref",
            "get",
            "configurations.content_availability",
            "--json"
        ])["value"],
        false
    );
    e.ok(&["pref", "set", "covers.covers_visibility", "3"]);
    assert_eq!(
        e.ok(&["pref", "get", "covers.covers_visibility"]).trim(),
        "3"
    );
    e.ok(&["pref", "set", "text.application_name", "false"]);
    assert_eq!(
        e.json(&["pref", "get", "text.application_name", "--json"])["value"],
        "false",
        "a string stays a string"
    );
    assert!(
        e.fails(&[
            "pref",
            "set",
            "configurations.content_availability",
            "maybe"
        ])
        .contains("boolean")
    );
    assert!(
        e.fails(&["pref", "set", "covers.covers_visibility", "1.5"])
            .contains("integer")
    );
    assert!(
        e.fails(&["pref", "set", "nosuch.pref", "1"])
            .contains("no preference")
    );
    assert!(e.fails(&["pref", "get", "nodot"]).contains("SECTION.NAME"));
    assert_eq!(
        e.json(&["pref", "get", "covers.covers_visibility", "--json"])["value"],
        3,
        "unchanged by the failures"
    );
    let section = e.json(&["pref", "list", "--section", "colors", "--json"]);
    assert!(
        section
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["section"] == "colors")
    );
}

#[test]
fn reactions_add_and_set() {
    let e = Env::new();
    e.init();
    let r = e.json(&[
        "reaction",
        "add",
        "--label",
        "clap",
        "--sentiment",
        "1",
        "--json",
    ]);
    assert_eq!(r["id"], 7);
    assert_eq!(
        r["image"],
        Value::Null,
        "no image: the default is used by the API"
    );
    let r = e.json(&[
        "reaction",
        "add",
        "--label",
        "meh",
        "--sentiment",
        "-1",
        "--inactive",
        "--image",
        "https://img.example/m.png",
        "--json",
    ]);
    assert_eq!(r["active"], false);
    let r = e.json(&[
        "reaction",
        "set",
        "7",
        "--active",
        "false",
        "--sentiment",
        "0",
        "--json",
    ]);
    assert_eq!(
        (r["active"].clone(), r["sentiment"].clone()),
        (Value::Bool(false), Value::from(0))
    );
    assert!(
        e.fails(&["reaction", "set", "99", "--active", "true"])
            .contains("no reaction")
    );
    assert!(
        e.fails(&["reaction", "add", "--label", "", "--sentiment", "1"])
            .contains("label")
    );
    assert!(
        e.fails(&[
            "reaction",
            "add",
            "--label",
            "x",
            "--sentiment",
            "1",
            "--image",
            "not a url"
        ])
        .contains("image")
    );
}

#[test]
fn categories_with_generated_and_chosen_slugs() {
    let e = Env::new();
    e.init();
    assert_eq!(
        e.json(&["category", "create", "--name", "Größe & Co", "--json"])["slug"],
        "grosse-co"
    );
    assert_eq!(
        e.json(&["category", "create", "--name", "Grösse Co", "--json"])["slug"],
        "grosse-co-2"
    );
    assert_eq!(
        e.json(&[
            "category", "create", "--name", "Tips", "--slug", "tips", "--json"
        ])["slug"],
        "tips"
    );
    assert!(
        e.fails(&[
            "category",
            "create",
            "--name",
            "More tips",
            "--slug",
            "tips"
        ])
        .contains("taken")
    );
    assert!(
        e.fails(&["category", "create", "--name", "Bad", "--slug", "Bad_Slug"])
            .contains("slug")
    );
    assert!(
        e.fails(&["category", "create", "--name", ""])
            .contains("name")
    );
    assert_eq!(
        e.json(&["category", "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn backup_is_a_consistent_copy_and_check_finds_problems() {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "alice"]);
    let dest = e.dir.path().join("copy.db");
    e.ok(&["backup", dest.to_str().unwrap()]);
    let copy = rusqlite::Connection::open(&dest).unwrap();
    let n: i64 = copy
        .query_row("SELECT count(*) FROM user", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    assert!(
        e.fails(&["backup", dest.to_str().unwrap()])
            .contains("exists")
    );
    assert!(e.ok(&["check"]).contains("ok"));
    // break an invariant behind hearth's back
    rusqlite::Connection::open(e.db())
        .unwrap()
        .execute("UPDATE user SET followers_counter = 5", [])
        .unwrap();
    let out = e.run(&["check"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("followers_counter"));
}

fn wait_for_listen_line(stderr: &mut impl std::io::BufRead) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "server exited before listening"
        );
        if let Some(i) = line.find("listening on http://") {
            let rest = &line[i + "listening on http://".len()..];
            return rest.split_whitespace().next().unwrap().to_owned();
        }
    }
}

fn get(addr: &str, path: &str) -> String {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn serve_creates_the_database_logs_its_address_and_stops_on_sigterm() {
    let e = Env::new();
    let db: &Path = &e.db();
    assert!(!db.exists());
    let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(db)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let addr = wait_for_listen_line(&mut stderr);
    assert!(db.exists());
    let resp = get(&addr, "/healthz");
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(
        resp.contains(r#"{"status":"ok","writable":true}"#),
        "{resp}"
    );
    // a second server on the same port: a clear error
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(db)
        .args(["serve", "--listen", &addr])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already in use"));
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "clean exit on SIGTERM: {status:?}");
}

const DJANGO_HASH: &str =
    "pbkdf2_sha256$1000$seasalt1234$jBDdGsGENB62UuRQcZMCu3TOrj3OU1a+qSSLI6qfg90=";

fn import_file(e: &Env, lines: &[String]) -> Output {
    let path = e.dir.path().join("in.ndjson");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    e.run(&["import", path.to_str().unwrap()])
}

fn community_lines() -> Vec<String> {
    let mut l = vec![
        r#"{"record":"category","id":1,"name":"Science"}"#.to_owned(),
        r#"{"record":"preference","section":"text","name":"application_name","value":"imported"}"#
            .to_owned(),
        r#"{"record":"reaction","id":7,"label":"clap","sentiment":1}"#.to_owned(),
    ];
    for i in 1..=4 {
        l.push(format!(
            r#"{{"record":"user","id":{i},"username":"u{i}","email":"u{i}@x.org","password":"{DJANGO_HASH}","is_staff":{},"date_joined":"2024-01-0{i}T10:00:00.5Z","bio":"hi","gender":"Female"}}"#,
            i == 1
        ));
    }
    l.push(r#"{"record":"user","id":5,"username":"gone","deleted":true}"#.to_owned());
    for (a, b) in [(1, 2), (2, 1), (1, 3), (3, 4), (4, 3), (5, 1), (1, 5)] {
        l.push(format!(r#"{{"record":"follow","follower":{a},"followed":{b},"created_at":"2025-01-01T00:00:0{a}Z"}}"#));
    }
    l.extend([
        r#"{"record":"course","id":10,"created_by":1,"name":"Rust 101","type":"self-paced","privacy":"open","categories":[1]}"#.to_owned(),
        r#"{"record":"course_member","course":10,"user":2,"join_status":"joined"}"#.to_owned(),
        r#"{"record":"course_member","course":10,"user":1,"join_status":"creator"}"#.to_owned(),
        r#"{"record":"post","id":1,"author":1,"text":"hello","categories":[1]}"#.to_owned(),
        r#"{"record":"post","id":2,"author":1,"text":"old","deleted":true}"#.to_owned(),
        r#"{"record":"discussion","id":1,"author":2,"title":"Q","text":"?"}"#.to_owned(),
        r#"{"record":"status","id":1,"author":3,"text":"s","action":"reading"}"#.to_owned(),
        r#"{"record":"comment","id":1,"author":2,"text":"c","post":1}"#.to_owned(),
        r#"{"record":"comment","id":2,"author":3,"text":"r","post":1,"parent":1}"#.to_owned(),
        r#"{"record":"comment","id":3,"author":3,"text":"x","discussion":1,"deleted":true}"#.to_owned(),
    ]);
    l
}

#[test]
fn import_loads_a_community_with_exact_counters() {
    let e = Env::new();
    e.init();
    let out = import_file(&e, &community_lines());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("imported"));
    assert!(
        e.ok(&["check"]).contains("ok"),
        "every counter and invariant holds after import"
    );
    // Django hashes are kept as they are
    let hash: String = rusqlite::Connection::open(e.db())
        .unwrap()
        .query_row("SELECT password FROM user WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(hash, DJANGO_HASH);
    // followers leave out the deleted user 5; 1<->2 is mutual
    assert_eq!(e.sql("SELECT followers_counter FROM user WHERE id = 1"), 1);
    assert_eq!(e.sql("SELECT followings_counter FROM user WHERE id = 1"), 2);
    assert_eq!(e.sql("SELECT mutuals_counter FROM user WHERE id = 1"), 1);
    assert_eq!(
        e.sql("SELECT mutual FROM follow WHERE follower = 2 AND followed = 1"),
        1
    );
    assert_eq!(
        e.sql("SELECT mutual FROM follow WHERE follower = 1 AND followed = 3"),
        0
    );
    assert_eq!(
        e.sql("SELECT posts_counter FROM user WHERE id = 1"),
        1,
        "the deleted post is not counted"
    );
    assert_eq!(
        e.sql("SELECT comment_count FROM contribution WHERE kind = 'post' AND id = 1"),
        2
    );
    assert_eq!(
        e.sql("SELECT count(*) FROM course_member WHERE course_id = 10"),
        2
    );
    assert_eq!(e.sql("SELECT count(*) FROM course_member WHERE course_id = 10 AND user_id = 1 AND join_status = 'creator'"), 1);
    assert_eq!(e.sql("SELECT count(*) FROM reaction"), 7);
    assert_eq!(
        e.json(&["pref", "get", "text.application_name", "--json"])["value"],
        "imported"
    );
    assert_eq!(
        e.sql("SELECT date_joined FROM user WHERE id = 1"),
        1_704_103_200_500_000
    );
}

#[test]
fn import_reads_stdin() {
    let e = Env::new();
    e.init();
    let out = e.run_stdin(
        &["import", "-"],
        Some(r#"{"record":"user","id":1,"username":"solo"}"#),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(e.sql("SELECT count(*) FROM user"), 1);
}

#[test]
fn a_bad_line_stops_the_import_with_its_number_and_writes_nothing_of_its_batch() {
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "line 12"),
        (r#"{"record":"spaceship","id":1}"#.into(), "unknown record"),
        (r#"{"type":"user","id":9,"username":"x"}"#.into(), "record"),
        (r#"{"record":"user","id":9}"#.into(), "username"),
        (r#"{"record":"user","id":9,"username":"u1"}"#.into(), "already exists"),
        (r#"{"record":"user","id":9,"username":"z","password":"plain"}"#.into(), "Django"),
        (r#"{"record":"follow","follower":1,"followed":99}"#.into(), "does not exist"),
        (r#"{"record":"follow","follower":1,"followed":2}"#.into(), "already exists"),
        (r#"{"record":"course","id":11,"created_by":1,"name":"X","type":"weird"}"#.into(), "type"),
        (r#"{"record":"course","id":11,"created_by":1,"name":"rust 101","type":"structured"}"#.into(), "already exists"),
        (r#"{"record":"comment","id":9,"author":1,"text":"t"}"#.into(), "exactly one"),
        (r#"{"record":"comment","id":9,"author":1,"text":"t","post":77}"#.into(), "does not exist"),
        (r#"{"record":"preference","section":"configurations","name":"content_availability","value":"no"}"#.into(), "boolean"),
        (r#"{"record":"preference","section":"x","name":"y","value":1}"#.into(), "no preference"),
        (r#"{"record":"course_member","course":10,"user":1,"join_status":"joined"}"#.into(), "creator"),
        // foreign keys are off during an import: every reference is checked by the importer
        (r#"{"record":"course_member","course":10,"user":99,"join_status":"joined"}"#.into(), "user 99 does not exist"),
        (r#"{"record":"course","id":11,"created_by":99,"name":"X","type":"structured"}"#.into(), "created_by 99 does not exist"),
        (r#"{"record":"course","id":11,"created_by":1,"name":"X","type":"structured","categories":[1,42]}"#.into(), "category 42"),
        (r#"{"record":"post","id":9,"author":1,"text":"t","categories":[42]}"#.into(), "category 42"),
        (r#"{"record":"post","id":9,"author":99,"text":"t"}"#.into(), "author 99 does not exist"),
        (r#"{"record":"follow","follower":99,"followed":1}"#.into(), "follower 99 does not exist"),
        (r#"{"record":"follow","follower":1,"followed":1}"#.into(), "itself"),
        (r#"{"record":"follow","follower":1,"followed":3,"created_at":"yesterday"}"#.into(), "RFC 3339"),
    ];
    for (bad, why) in cases {
        let e = Env::new();
        e.init();
        let mut lines = community_lines()[..11].to_vec();
        lines.push(bad.clone());
        lines.push(r#"{"record":"user","id":50,"username":"after"}"#.to_owned());
        let mut all = lines.clone();
        if bad.contains("course_member") || bad.contains("rust 101") {
            all.insert(11, community_lines()[15].clone());
        }
        let err = fails(import_file(&e, &all), &["import"]);
        let n = all.iter().position(|l| *l == bad).unwrap() + 1;
        assert!(err.contains(&format!("line {n}:")), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(
            e.sql("SELECT count(*) FROM user"),
            0,
            "{bad}: the batch was rolled back"
        );
        assert_eq!(e.sql("SELECT count(*) FROM follow"), 0);
    }
}

fn follow_index_state(e: &Env) -> (i64, i64) {
    (
        e.sql("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN ('follow_followings', 'follow_followers')"),
        e.sql("SELECT count(*) FROM dropped_index"),
    )
}

#[test]
fn an_import_into_an_empty_follow_table_rebuilds_its_indexes_even_when_a_later_batch_fails() {
    let e = Env::new();
    e.init();
    let mut lines: Vec<String> = (1..=4)
        .map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#))
        .collect();
    for (a, b) in [(1, 2), (2, 3), (3, 1), (2, 1), (4, 1), (1, 4)] {
        lines.push(format!(
            r#"{{"record":"follow","follower":{a},"followed":{b}}}"#
        ));
    }
    // batches of 4 lines: users | 1>2 2>3 3>1 2>1 | 4>1 1>4 bad
    lines.push(r#"{"record":"follow","follower":4,"followed":9}"#.to_owned());
    let path = e.dir.path().join("in.ndjson");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let err = fails(
        e.run(&["import", path.to_str().unwrap(), "--batch-lines", "4"]),
        &["import"],
    );
    assert!(err.contains("line 11: followed 9 does not exist"), "{err}");
    assert!(err.contains("lines 1-8 were imported"), "{err}");
    assert_eq!(follow_index_state(&e), (2, 0), "both indexes are back");
    assert_eq!(
        e.sql("SELECT count(*) FROM follow"),
        4,
        "the failed batch is not there"
    );
    assert_eq!(
        e.sql("SELECT mutual FROM follow WHERE follower = 1 AND followed = 2"),
        1
    );
    assert_eq!(
        e.sql("SELECT mutual FROM follow WHERE follower = 2 AND followed = 3"),
        0
    );
    assert_eq!(e.sql("SELECT mutuals_counter FROM user WHERE id = 2"), 1);
    assert!(e.ok(&["check"]).contains("ok"));
    // the planner uses the rebuilt index for a followings page
    let plan: String = rusqlite::Connection::open(e.db())
        .unwrap()
        .query_row(
            "EXPLAIN QUERY PLAN SELECT followed FROM follow WHERE follower = 1 ORDER BY mutual DESC, created_at DESC, followed",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("follow_followings"), "{plan}");
}

#[test]
fn an_interrupted_import_has_its_indexes_rebuilt_by_the_next_open() {
    let e = Env::new();
    e.init();
    {
        // what a killed import leaves: the indexes dropped, their definitions recorded
        let c = rusqlite::Connection::open(e.db()).unwrap();
        c.execute_batch(
            "BEGIN;
             INSERT INTO dropped_index (name, sql) SELECT name, sql FROM sqlite_schema
                 WHERE type = 'index' AND tbl_name = 'follow' AND sql IS NOT NULL;
             DROP INDEX follow_followings; DROP INDEX follow_followers;
             COMMIT;",
        )
        .unwrap();
    }
    assert_eq!(follow_index_state(&e), (0, 2));
    assert!(e.ok(&["check"]).contains("ok"));
    assert_eq!(follow_index_state(&e), (2, 0));
}

#[test]
fn a_second_import_sees_the_edges_of_the_first() {
    let e = Env::new();
    e.init();
    let users: Vec<String> = (1..=3)
        .map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#))
        .collect();
    let mut first = users.clone();
    first.push(r#"{"record":"follow","follower":1,"followed":2}"#.to_owned());
    assert!(import_file(&e, &first).status.success());
    let out = import_file(
        &e,
        &[
            r#"{"record":"follow","follower":2,"followed":1}"#.to_owned(),
            r#"{"record":"follow","follower":3,"followed":1}"#.to_owned(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        e.sql("SELECT count(*) FROM follow WHERE mutual = 1"),
        2,
        "1>2, written by the first import, became mutual"
    );
    assert_eq!(e.sql("SELECT mutuals_counter FROM user WHERE id = 1"), 1);
    assert_eq!(e.sql("SELECT followers_counter FROM user WHERE id = 1"), 2);
    assert!(e.ok(&["check"]).contains("ok"));
    let err = fails(
        import_file(
            &e,
            &[r#"{"record":"follow","follower":1,"followed":2}"#.to_owned()],
        ),
        &["import"],
    );
    assert!(
        err.contains("line 1: follow 1 -> 2 already exists"),
        "{err}"
    );
    assert_eq!(follow_index_state(&e), (2, 0));
}

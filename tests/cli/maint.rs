//! backup, check and restore.

use crate::Env;

#[test]
fn backup_is_a_consistent_copy_and_check_finds_problems() {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
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

#[test]
fn check_json_lists_each_problem_with_its_check_and_count() {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "alice", "--no-password"]);
    e.ok(&["user", "create", "--username", "bob", "--no-password"]);
    assert_eq!(e.json(&["check", "--json"]), serde_json::json!([]));
    rusqlite::Connection::open(e.db())
        .unwrap()
        .execute_batch(
            "UPDATE user SET followers_counter = 5, posts_counter = 1;
             DELETE FROM jwt_secret;",
        )
        .unwrap();
    let out = e.run(&["check", "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert!(p["problem"].as_str().unwrap().len() > 10);
            (
                p["check"].as_str().unwrap().to_owned(),
                p["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("followers_counter".to_owned(), 2),
            ("posts_counter".to_owned(), 2),
            ("jwt_secret".to_owned(), 1)
        ]
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("error: 3 problem(s) found"), "{err}");
    let text = e.run(&["check"]);
    assert_eq!(String::from_utf8(text.stdout).unwrap().lines().count(), 3);
}

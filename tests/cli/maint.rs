//! backup, check and restore.

use crate::Env;

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

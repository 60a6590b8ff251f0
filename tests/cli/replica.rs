//! `serve --read-replica` as a process (SPEC §9): its options, the copy it refuses,
//! and the copy it waits for. (With the real Litestream: tests/litestream.)

use std::path::Path;

use crate::{Env, get};

fn serve_fails(e: &Env, args: &[&str]) -> String {
    let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
    all.extend(args);
    e.fails(&all)
}

#[test]
fn replica_options_are_checked() {
    let e = Env::new();
    e.init();
    // clap's errors name the missing option on their second line
    for (args, missing) in [
        (&["--read-replica"][..], "--primary-url"),
        (&["--primary-url", "http://127.0.0.1:9"][..], "--read-replica"),
    ] {
        let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
        all.extend(args);
        let out = e.run(&all);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("required") && err.contains(missing), "{err}");
    }
    for bad in ["https://127.0.0.1:9", "http://127.0.0.1:9/api", "127.0.0.1:9"] {
        let err = serve_fails(&e, &["--read-replica", "--primary-url", bad]);
        assert!(err.contains("http://host:port"), "{bad}: {err}");
    }
    let err = serve_fails(
        &e,
        &["--read-replica", "--primary-url", "http://127.0.0.1:9", "--max-lag", "5h"],
    );
    assert!(err.contains("duration"), "{err}");
}

#[test]
fn a_replica_refuses_a_copy_of_another_schema_version_and_never_migrates_it() {
    let e = Env::new();
    crate::migrate::write_v1(&e.db(), "");
    let before = std::fs::read(e.db()).unwrap();
    let err = serve_fails(&e, &["--read-replica", "--primary-url", "http://127.0.0.1:9"]);
    assert!(err.contains("schema version 1"), "{err}");
    assert_eq!(std::fs::read(e.db()).unwrap(), before, "the copy is unchanged");
    // not a hearth file at all
    let other = Env::new();
    rusqlite::Connection::open(other.db()).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    let err = serve_fails(&other, &["--read-replica", "--primary-url", "http://127.0.0.1:9"]);
    assert!(err.contains("not a hearth database"), "{err}");
}

#[test]
fn a_replica_waits_for_its_copy_then_serves_it_read_only() {
    let source = Env::new();
    source.init();
    source.ok(&["user", "create", "--username", "alice", "--no-password"]);
    let e = Env::new();
    let copy = e.db();
    assert!(!copy.exists());
    let db = copy.clone();
    let server = std::thread::spawn(move || {
        crate::spawn_serve(
            &db,
            "127.0.0.1:0",
            &["--read-replica", "--primary-url", "http://127.0.0.1:9"],
        )
    });
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(!copy.exists(), "a replica never creates the database");
    std::fs::copy(source.db(), &copy).unwrap();
    let (child, addr) = server.join().unwrap();
    let health = get(&addr, "/healthz");
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.contains(r#""writable":false"#), "{health}");
    assert!(health.to_ascii_lowercase().contains("x-hearth-role: replica"), "{health}");
    // no primary at that address: not ready
    let ready = get(&addr, "/readyz");
    assert!(ready.starts_with("HTTP/1.1 503"), "{ready}");
    let users = get(&addr, "/api/v2/user/1/");
    assert!(users.starts_with("HTTP/1.1 200") && users.contains("alice"), "{users}");
    crate::sigterm(&child);
    let mut child = child;
    assert!(child.wait().unwrap().success());
    assert!(!Path::new(&format!("{}-wal", copy.display())).exists());
}

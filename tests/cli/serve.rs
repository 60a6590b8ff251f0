//! serve: the server's life as a process.

use std::path::Path;
use std::process::Command;

use crate::{Env, get};

#[test]
fn serve_creates_the_database_logs_its_address_and_stops_on_sigterm() {
    let e = Env::new();
    let db: &Path = &e.db();
    assert!(!db.exists());
    let (mut child, addr) = crate::spawn_serve(db, "127.0.0.1:0", &[]);
    assert!(db.exists());
    let resp = get(&addr, "/healthz");
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(resp.contains(r#"{"status":"ok","writable":true}"#), "{resp}");
    // a second server (of another database: one of the same is refused sooner, see
    // places.rs) on the same port: a clear error
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(e.dir.path().join("other.db"))
        .args(["serve", "--listen", &addr])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already in use"));
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "clean exit on SIGTERM: {status:?}");
}

fn leftovers(dir: &Path) -> Vec<String> {
    crate::file_names(dir)
        .into_iter()
        .filter(|n| n.ends_with("-wal") || n.ends_with("-shm"))
        .collect()
}

/// SPEC §2: every hearth process closes the database cleanly, so a stopped hearth
/// leaves one file (a `-wal` left behind would be replayed into a backup copied over
/// the file).
#[test]
fn no_command_and_no_stopped_server_leaves_a_wal_behind() {
    let e = Env::new();
    let dir = e.db().parent().unwrap().to_owned();
    e.init();
    assert_eq!(leftovers(&dir), Vec::<String>::new(), "init");
    let writes: [&[&str]; 4] = [
        &["user", "create", "--username", "ann", "--no-password"],
        &["category", "create", "--name", "News"],
        &["reaction", "add", "--label", "clap", "--sentiment", "1"],
        &["app", "create", "--name", "sdk", "--grant", "password"],
    ];
    for args in writes {
        e.ok(args);
        assert_eq!(leftovers(&dir), Vec::<String>::new(), "{args:?}");
    }
    for args in [&["user", "list"][..], &["check"], &["jwt", "secret"]] {
        e.ok(args);
        assert_eq!(leftovers(&dir), Vec::<String>::new(), "{args:?}");
    }
    let backup = dir.join("copy.db");
    e.ok(&["backup", backup.to_str().unwrap()]);
    assert_eq!(leftovers(&dir), Vec::<String>::new(), "backup");
    // a server that wrote, then stopped with SIGTERM
    let token = e.ok(&["jwt", "mint", "--user-id", "1"]);
    let (mut child, addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    let body = r#"{"text":"written by the server"}"#;
    let resp = post(&addr, "/api/v2/post/", token.trim(), body);
    assert!(resp.starts_with("HTTP/1.1 201"), "{resp}");
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
    assert_eq!(leftovers(&dir), Vec::<String>::new(), "serve");
    assert_eq!(e.sql("SELECT count(*) FROM contribution"), 1);
}

/// SPEC §9 (issue 28): beside a database Litestream replicates (its `.<name>-litestream`
/// directory), commands never checkpoint: a checkpoint while Litestream is down would
/// let the next write restart the WAL before Litestream read it. The WAL they leave is
/// part of the database.
#[test]
fn commands_beside_litestream_leave_the_wal_to_it() {
    let e = Env::new();
    let dir = e.db().parent().unwrap().to_owned();
    e.init();
    std::fs::create_dir(dir.join(".hearth.db-litestream")).unwrap();
    e.ok(&["user", "create", "--username", "ann", "--no-password"]);
    let wal = dir.join("hearth.db-wal");
    assert!(wal.exists(), "the WAL stays: {:?}", crate::file_names(&dir));
    let before = std::fs::metadata(&wal).unwrap().len();
    assert!(before > 32, "with the user's frames in it");
    let lines =
        [r#"{"record":"user","id":50,"username":"bo","date_joined":"2025-01-01T00:00:00Z"}"#
            .to_owned()];
    let out = e.import(&lines);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata(&wal).unwrap().len() > before, "an import is not checkpointed");
    // what they wrote is there for every reader
    assert!(e.ok(&["user", "list"]).contains("bo"));
    assert!(e.ok(&["check"]).contains("ok"));
    assert_eq!(e.sql("SELECT count(*) FROM user WHERE username IN ('ann', 'bo')"), 2);
}

fn post(addr: &str, path: &str, token: &str, body: &str) -> String {
    crate::http(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// SIGTERM while a client trickles a body: the process exits within a second of the
/// shutdown deadline, not when the body timeout would fire.
#[test]
fn sigterm_with_a_slow_body_in_flight_exits_by_the_deadline() {
    use std::io::Write;
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "ann", "--no-password"]);
    let token = e.ok(&["jwt", "mint", "--user-id", "1"]);
    let (mut child, addr) = crate::spawn_serve(
        &e.db(),
        "127.0.0.1:0",
        // the body must stay in flight past the deadline: no minimum rate to cut it
        &["--shutdown-timeout", "1", "--body-timeout", "60", "--min-body-rate", "0"],
    );
    let mut slow = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        slow,
        "POST /api/v2/post/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{",
        token.trim()
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let asked = std::time::Instant::now();
    crate::sigterm(&child);
    let status = child.wait().unwrap();
    let took = asked.elapsed();
    assert!(status.success(), "{status:?}");
    // deadline 1 s, then at most 1 s more (a generous margin for a loaded machine)
    assert!(took < std::time::Duration::from_millis(3500), "exit took {took:?}");
    assert!(
        took >= std::time::Duration::from_millis(900),
        "did not wait for the in-flight request: {took:?}"
    );
    drop(slow);
}

/// SPEC §2: `--listen` takes a host name, resolved at start.
#[test]
fn serve_listens_on_a_host_name() {
    let e = Env::new();
    let (mut child, addr) = crate::spawn_serve(&e.db(), "localhost:0", &[]);
    assert!(addr.starts_with("127.0.0.1:") || addr.starts_with("[::1]:"), "{addr}");
    assert!(get(&addr, "/livez").starts_with("HTTP/1.1 200"));
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
    // and a bad one is a clear one-line error
    let out = e.run(&["serve", "--listen", "no-such-host.invalid:8080"]);
    let line = crate::fails(out, &["serve"]);
    assert!(line.contains("no-such-host.invalid"), "{line}");
    let line = e.fails(&["serve", "--trusted-proxy", "10.0.0.0/33"]);
    assert!(line.contains("10.0.0.0/33"), "{line}");
}

/// `--mmap-size` (off by default; 64 MiB here): reads through mapped readers see every
/// committed write (a mapping is no cache of its own), and a size past SQLite's limit is
/// a clear error.
#[test]
fn mapped_readers_serve_the_latest_writes() {
    let e = Env::new();
    e.init();
    e.ok(&["user", "create", "--username", "ann", "--no-password"]);
    e.ok(&["reaction", "add", "--label", "cheer", "--sentiment", "1"]);
    let token = e.ok(&["jwt", "mint", "--user-id", "1"]).trim().to_owned();
    let (mut child, addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &["--mmap-size", "64"]);
    let before = get(&addr, "/api/v2/reaction/");
    assert!(before.contains(r#""label":"cheer""#), "{before}");
    // a write through the server, then the read that follows it
    let body = r#"{"name":"Mapped","type":"self-paced"}"#;
    let created = post(&addr, "/api/v2/course/", &token, body);
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let auth = format!("Authorization: Bearer {token}\r\n");
    let listed = crate::get_with(&addr, "/api/v2/course/search/?search=Mapped", &auth);
    assert!(listed.contains(r#""name":"Mapped""#), "{listed}");
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
    let line = e.fails(&["serve", "--mmap-size", "2048"]);
    assert!(line.contains("mmap-size") && line.contains("2048"), "{line}");
}

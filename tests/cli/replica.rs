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
    if !crate::migrate::history() {
        return;
    }
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
    let mut r = Logged::spawn(&copy, e.dir.path().join("replica.log"));
    // it has looked for the copy and waits for it: only then is "nothing created" news
    r.wait_for("to create the replica's copy", |_| String::new());
    assert!(!copy.exists(), "a replica never creates the database");
    assert!(r.child.try_wait().unwrap().is_none(), "it waits, it does not exit:\n{}", r.text());
    // as a follower restores: a whole file renamed in
    swap_in(&source.db(), &copy);
    r.listening();
    let addr = r.addr.clone();
    let health = get(&addr, "/healthz");
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.contains(r#""writable":false"#), "{health}");
    assert!(health.to_ascii_lowercase().contains("x-hearth-role: replica"), "{health}");
    // no primary at that address: not ready
    let ready = get(&addr, "/readyz");
    assert!(ready.starts_with("HTTP/1.1 503"), "{ready}");
    let users = get(&addr, "/api/v2/user/1/");
    assert!(users.starts_with("HTTP/1.1 200") && users.contains("alice"), "{users}");
    // the live socket is the primary's: a replica refuses the upgrade with a reason
    let ws = crate::http(
        &addr,
        "GET /ws/notify?subscribe-user HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: __x\r\n\r\n",
    );
    assert!(ws.starts_with("HTTP/1.1 503") && ws.contains("connect to the primary"), "{ws}");
    crate::sigterm(&r.child);
    assert!(r.child.wait().unwrap().success());
    assert!(!Path::new(&format!("{}-wal", copy.display())).exists());
}

/// A replica's log, written to a file while it runs.
struct Logged {
    child: std::process::Child,
    log: std::path::PathBuf,
    addr: String,
}

impl Logged {
    fn start(copy: &Path, log: std::path::PathBuf) -> Logged {
        let mut l = Logged::spawn(copy, log);
        l.listening();
        l
    }

    /// Waits for the listen line; keeps the address.
    fn listening(&mut self) {
        self.addr = self.wait_for("listening on http://", |rest| {
            rest.split_whitespace().next().unwrap_or_default().to_owned()
        });
    }

    fn spawn(copy: &Path, log: std::path::PathBuf) -> Logged {
        let out = std::fs::File::create(&log).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
            .arg("--db")
            .arg(copy)
            .args(["serve", "--listen", "127.0.0.1:0", "--read-replica"])
            .args(["--primary-url", "http://127.0.0.1:9"])
            .env("RUST_LOG", "info")
            .stdout(std::process::Stdio::null())
            .stderr(out)
            .spawn()
            .unwrap();
        Logged { child, log, addr: String::new() }
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits (at most 10 s) for `what` in the log; `f` reads what follows it.
    fn wait_for(&self, what: &str, f: impl Fn(&str) -> String) -> String {
        let start = std::time::Instant::now();
        loop {
            let t = self.text();
            if let Some(i) = t.find(what) {
                return f(&t[i + what.len()..]);
            }
            assert!(start.elapsed() < std::time::Duration::from_secs(10), "no {what:?} in:\n{t}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// GETs `path` until its status line starts with `status` (at most 5 s).
    fn until(&self, path: &str, status: &str) -> String {
        let start = std::time::Instant::now();
        loop {
            let r = get(&self.addr, path);
            if r.starts_with(status) {
                return r;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(5),
                "{path}: not {status} within 5 s: {r}\n{}",
                self.text()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Puts `from` in place of `copy` as a follower restoring a new file does (rename).
fn swap_in(from: &Path, copy: &Path) {
    let staged = copy.with_extension("staged");
    std::fs::copy(from, &staged).unwrap();
    std::fs::rename(&staged, copy).unwrap();
}

/// The page `table`'s b-tree starts on, and the page size.
fn root_page(db: &Path, table: &str) -> (u64, u64) {
    let c = rusqlite::Connection::open(db).unwrap();
    let root: i64 = c
        .query_row("SELECT rootpage FROM sqlite_schema WHERE name = ?1", [table], |r| r.get(0))
        .unwrap();
    let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    (u64::try_from(root).unwrap(), u64::try_from(size).unwrap())
}

#[test]
fn a_replica_answers_503_for_a_copy_that_is_older_of_another_version_damaged_or_gone() {
    let source = Env::new();
    source.init();
    source.ok(&["user", "create", "--username", "alice", "--no-password"]);
    let older = source.dir.path().join("older.db");
    std::fs::copy(source.db(), &older).unwrap();
    source.ok(&["user", "create", "--username", "bob", "--no-password"]);
    let newer = source.dir.path().join("newer.db");
    std::fs::copy(source.db(), &newer).unwrap();
    let e = Env::new();
    let copy = e.db();
    swap_in(&newer, &copy);
    let r = Logged::start(&copy, e.dir.path().join("replica.log"));
    let bob = "/api/v2/user/2/";
    assert!(get(&r.addr, bob).contains("bob"));
    assert!(get(&r.addr, "/healthz").starts_with("HTTP/1.1 200"));
    let unavailable = |resp: &str, says: &str| {
        assert!(resp.starts_with("HTTP/1.1 503"), "{resp}");
        assert!(resp.contains(r#""code":"service_unavailable""#), "{resp}");
        assert!(resp.to_ascii_lowercase().contains("retry-after:"), "{resp}");
        assert!(resp.contains(says), "{says}: {resp}");
    };

    // an older copy swapped in: refused before anything is read from it
    swap_in(&older, &copy);
    unavailable(&get(&r.addr, bob), "older than data it has already served");
    let alice = get(&r.addr, "/api/v2/user/1/");
    unavailable(&alice, "older");
    for health in ["/healthz", "/readyz"] {
        let h = get(&r.addr, health);
        assert!(h.starts_with("HTTP/1.1 503"), "{health}: {h}");
        assert!(h.contains(r#""copy":"older than data already served""#), "{health}: {h}");
    }
    // the follower brings it forward again: served
    swap_in(&newer, &copy);
    assert!(r.until(bob, "HTTP/1.1 200").contains("bob"));
    r.until("/healthz", "HTTP/1.1 200");

    // a copy of another schema version (the primary runs another hearth)
    let other = source.dir.path().join("other.db");
    std::fs::copy(&newer, &other).unwrap();
    rusqlite::Connection::open(&other).unwrap().pragma_update(None, "user_version", 99).unwrap();
    swap_in(&other, &copy);
    unavailable(&get(&r.addr, bob), "another hearth version");
    assert!(get(&r.addr, "/readyz").starts_with("HTTP/1.1 503"));
    swap_in(&newer, &copy);
    r.until(bob, "HTTP/1.1 200");

    // damaged in place (a follower killed while it wrote pages): 503, never 500
    let (root, size) = root_page(&copy, "user");
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(&copy).unwrap();
        f.write_all_at(&[0xa5; 64], (root - 1) * size).unwrap();
        // a new modification time even within the file system's timestamp
        // granularity (the replica's own write, out of WAL mode, may be that recent)
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60)).unwrap();
    }
    let damaged = get(&r.addr, bob);
    unavailable(&damaged, "damaged");
    for health in ["/healthz", "/readyz"] {
        assert!(get(&r.addr, health).starts_with("HTTP/1.1 503"), "{health}");
    }
    unavailable(&get(&r.addr, "/api/v2/user/1/"), "damaged");
    // a damaged new file is found by its quick_check before any read
    let broken = source.dir.path().join("broken.db");
    std::fs::copy(&copy, &broken).unwrap();
    swap_in(&newer, &copy);
    r.until(bob, "HTTP/1.1 200");
    swap_in(&broken, &copy);
    assert!(get(&r.addr, "/healthz").starts_with("HTTP/1.1 503"));
    unavailable(&get(&r.addr, bob), "damaged");
    swap_in(&newer, &copy);
    r.until(bob, "HTTP/1.1 200");

    // deleted: a true message, not "cannot store changes"
    std::fs::remove_file(&copy).unwrap();
    let gone = get(&r.addr, bob);
    unavailable(&gone, "missing");
    assert!(!gone.contains("store changes"), "{gone}");
    let h = get(&r.addr, "/healthz");
    assert!(h.starts_with("HTTP/1.1 503") && h.contains(r#""copy":"missing""#), "{h}");
    // many requests while it is gone: the log says so once, not once a request
    for _ in 0..20 {
        assert!(get(&r.addr, bob).starts_with("HTTP/1.1 503"));
    }
    swap_in(&newer, &copy);
    r.until(bob, "HTTP/1.1 200");
    r.until("/healthz", "HTTP/1.1 200");

    // the log is written by a thread of its own: its last line may still be coming
    r.wait_for("usable again was=Missing", |_| String::new());
    let log = r.text();
    let warned = log.matches("cannot be served").count();
    // older, other version, damaged (read failed, then its check), damaged new file, gone
    assert!((5..=7).contains(&warned), "one line per state change, {warned}:\n{log}");
    assert!(log.matches("usable again").count() >= 5, "{log}");
    assert!(!log.contains("status=500"), "no 500s on a replica:\n{log}");
}

#[test]
fn a_replica_started_on_a_damaged_copy_waits_for_a_sound_one() {
    let source = Env::new();
    source.init();
    source.ok(&["user", "create", "--username", "alice", "--no-password"]);
    let sound = source.dir.path().join("sound.db");
    std::fs::copy(source.db(), &sound).unwrap();
    let e = Env::new();
    let copy = e.db();
    swap_in(&sound, &copy);
    let (root, size) = root_page(&copy, "user");
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(&copy).unwrap();
        f.write_all_at(&[0xa5; 64], (root - 1) * size).unwrap();
    }
    let mut r = Logged::spawn(&copy, e.dir.path().join("replica.log"));
    r.wait_for("quick_check found", |_| String::new());
    assert!(r.child.try_wait().unwrap().is_none(), "it waits, it does not exit:\n{}", r.text());
    assert!(!r.text().contains("listening on"), "nothing served from a damaged copy");
    swap_in(&sound, &copy);
    r.listening();
    assert!(get(&r.addr, "/api/v2/user/1/").contains("alice"));
    assert!(get(&r.addr, "/healthz").starts_with("HTTP/1.1 200"));
    assert_eq!(r.text().matches("cannot be served").count(), 1, "logged once:\n{}", r.text());
}

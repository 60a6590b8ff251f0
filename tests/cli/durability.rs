//! Crash safety: a server killed with SIGKILL in the middle of concurrent writes loses
//! none of the writes it acknowledged, and leaves a file that `hearth check` passes.
//!
//! Each trial runs 8 writer threads creating posts through the real binary, kills the
//! server after 0.5, 1.0 or 1.5 s, runs `hearth check` on the file as the crash left it
//! (WAL and all), restarts `serve` on the same file and reads back every post that was
//! answered 201, in every trial so far. `scripts/crash-trials` runs the same scenario
//! many times against a release binary.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::hearth;

const WRITERS: usize = 8;
/// Bounds every socket operation, so a wedged server fails the test instead of hanging it.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

fn ok(db: &Path, args: &[&str]) -> String {
    ok_stdin(db, args, None)
}

fn ok_stdin(db: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let out = hearth(db, args, stdin);
    assert!(
        out.status.success(),
        "hearth {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A response: status and body.
struct Resp {
    status: u16,
    body: String,
}

/// One HTTP/1.1 request on a new connection (`Connection: close`), read to the end.
fn http(port: u16, method: &str, path: &str, token: &str, body: &str) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(IO_TIMEOUT))?;
    s.set_write_timeout(Some(IO_TIMEOUT))?;
    let auth =
        if token.is_empty() { String::new() } else { format!("Authorization: Bearer {token}\r\n") };
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) =
        raw.split_once("\r\n\r\n").ok_or_else(|| std::io::Error::other("no complete response"))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status line"))?;
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return Err(std::io::Error::other("chunked responses are not expected"));
    }
    Ok(Resp { status, body: body.to_owned() })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `hearth serve` on a free port, answering `/healthz`.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(db: &Path, log: &Path) -> Server {
        // the port is free when we look; another process could take it before the
        // server binds, so a server that exits at start is retried on a new port
        for _ in 0..3 {
            let port = free_port();
            let log = std::fs::File::create(log).unwrap();
            let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
                .arg("--db")
                .arg(db)
                .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
                .env_remove("HEARTH_DB")
                .env("RUST_LOG", "warn")
                // writers as fast as they go: no per-user write rate
                .env("HEARTH_USER_WRITE_RATE", "0")
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap();
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                if http(port, "GET", "/healthz", "", "").is_ok_and(|r| r.status == 200) {
                    return Server { child, port };
                }
                thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("hearth serve did not start: {}", std::fs::read_to_string(log).unwrap_or_default());
    }

    /// SIGKILL: no shutdown, no checkpoint, the WAL left as it is.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Creates posts until `stop` or until the server stops answering; returns the
/// acknowledged ones as (id, text). Every text is unique: `t{trial}-w{writer}-n{seq}`.
fn writer(
    port: u16,
    token: Arc<str>,
    trial: usize,
    w: usize,
    stop: Arc<AtomicBool>,
) -> Vec<(i64, String)> {
    let mut acked = Vec::new();
    for seq in 0.. {
        if stop.load(Ordering::Acquire) {
            break;
        }
        let text = format!("t{trial}-w{w}-n{seq}");
        let body = serde_json::json!({ "text": text }).to_string();
        match http(port, "POST", "/api/v2/post/", &token, &body) {
            Ok(r) if r.status == 201 => {
                let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
                assert_eq!(v["text"], text.as_str(), "201 with another post: {}", r.body);
                acked.push((v["id"].as_i64().unwrap(), text));
            }
            // the server answered something else: a failed write it told us about is
            // not a lost write, but nothing else should fail here
            Ok(r) => panic!("POST answered {}: {}", r.status, r.body),
            // the server is gone (killed mid-request): this writer is done
            Err(_) => break,
        }
    }
    acked
}

/// Every acknowledged post is there, with its text.
fn assert_all_present(port: u16, token: &str, acked: &[(i64, String)]) {
    let mut missing = Vec::new();
    for (id, text) in acked {
        let r = http(port, "GET", &format!("/api/v2/post/{id}/"), token, "").unwrap();
        if r.status != 200 {
            missing.push(format!("post {id} ({text}): {}", r.status));
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        if v["text"] != text.as_str() {
            missing.push(format!("post {id}: text {} instead of {text}", v["text"]));
        }
    }
    assert_none("lost or changed", &missing, acked.len());
}

/// Every acknowledged post is in the file, with its text (read while the server runs:
/// the file is in WAL mode, so this sees what the server committed).
fn assert_all_in_file(db: &Path, acked: &[(i64, String)]) {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut stmt = c.prepare("SELECT id, text FROM contribution WHERE kind = 'post'").unwrap();
    let stored: std::collections::HashMap<i64, String> =
        stmt.query_map([], |r| r.try_into()).unwrap().map(Result::unwrap).collect();
    let lost: Vec<_> = acked.iter().filter(|(id, text)| stored.get(id) != Some(text)).collect();
    assert_none("not in the file", &lost, acked.len());
}

/// Asserts that no acknowledged post is `what`; names the first ten that are.
fn assert_none<T: std::fmt::Debug>(what: &str, bad: &[T], acked: usize) {
    assert!(
        bad.is_empty(),
        "{} of {acked} acknowledged posts {what}: {:?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
}

fn check_passes(db: &Path) {
    let out = hearth(db, &["check"], None);
    assert!(
        out.status.success(),
        "hearth check after a crash: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sigkill_during_concurrent_writes_loses_no_acknowledged_post() {
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("hearth.db");
    let log = dir.path().join("server.log");
    ok(&db, &["init"]);
    // a password, not --no-password: the test also runs against binaries without that flag
    ok_stdin(
        &db,
        &["user", "create", "--username", "writer", "--password-stdin"],
        Some("not used by the test\n"),
    );
    let token: Arc<str> = ok(&db, &["jwt", "mint", "--user-id", "1"]).trim().into();

    let mut acked_all: Vec<(i64, String)> = Vec::new();
    for (trial, run_ms) in [500_u64, 1000, 1500].into_iter().enumerate() {
        let server = Server::start(&db, &log);
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (token, stop, port) = (Arc::clone(&token), Arc::clone(&stop), server.port);
                thread::spawn(move || writer(port, token, trial, w, stop))
            })
            .collect();
        thread::sleep(Duration::from_millis(run_ms));
        server.kill();
        stop.store(true, Ordering::Release);
        let mut acked: Vec<(i64, String)> = Vec::new();
        for w in writers {
            acked.extend(w.join().unwrap());
        }
        assert!(
            !acked.is_empty(),
            "trial {trial}: no write was acknowledged in {run_ms} ms, so nothing was tested"
        );
        let mut ids: Vec<i64> = acked.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), acked.len(), "two posts acknowledged with one id");

        // the file exactly as the crash left it, WAL included
        check_passes(&db);
        let server = Server::start(&db, &log);
        // this trial's posts through the API, every trial's in the file
        assert_all_present(server.port, &token, &acked);
        acked_all.extend(acked);
        assert_all_in_file(&db, &acked_all);
        server.kill();
    }
    check_passes(&db);
}

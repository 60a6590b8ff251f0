//! serve: the server's life as a process.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::{Env, get, wait_for_listen_line};

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

//! serve --cors-origin / HEARTH_CORS_ORIGINS: checked at start, in force once listening.

use std::ffi::OsStr;
use std::process::{Command, Stdio};

use crate::Env;

/// A GET with an `Origin` header, read whole.
fn get_from(addr: &str, path: &str, origin: &str) -> String {
    crate::get_with(addr, path, &format!("Origin: {origin}\r\n")).to_ascii_lowercase()
}

#[test]
fn bad_origins_stop_serve_at_start_with_one_clear_line() {
    let e = Env::new();
    for bad in
        ["https://app.example.org/", "app.example.org", "null", "https://app.example.org:99999"]
    {
        let line = e.fails(&["serve", "--listen", "127.0.0.1:0", "--cors-origin", bad]);
        assert!(line.contains(bad), "{bad}: {line}");
        assert!(line.contains("scheme://host[:port]"), "{bad}: {line}");
    }
    // the same check for the environment's comma-separated list
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(e.db())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("HEARTH_CORS_ORIGINS", "https://ok.example,https://bad.example/path")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let line = crate::fails(out, &["serve"]);
    assert!(line.contains("https://bad.example/path"), "{line}");
}

#[test]
fn origins_from_flags_and_from_the_environment_are_allowed() {
    let e = Env::new();
    let (mut child, addr) = crate::spawn_serve(
        &e.db(),
        "127.0.0.1:0",
        &["--cors-origin", "https://App.Example.org:443", "--cors-origin", "http://localhost:5173"],
    );
    let r = get_from(&addr, "/api/v2/reaction/", "https://app.example.org");
    assert!(r.starts_with("http/1.1 200"), "{r}");
    assert!(r.contains("access-control-allow-origin: https://app.example.org\r\n"), "{r}");
    assert!(r.contains("vary: origin\r\n"), "{r}");
    let r = get_from(&addr, "/api/v2/reaction/", "http://localhost:5174");
    assert!(!r.contains("access-control-allow-origin"), "{r}");
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());

    let (mut child, addr) = crate::spawn_serve_env(
        &e.db(),
        "127.0.0.1:0",
        &[],
        &[("HEARTH_CORS_ORIGINS", OsStr::new("https://a.example, http://b.example:8080"))],
    );
    for origin in ["https://a.example", "http://b.example:8080"] {
        let r = get_from(&addr, "/api/v2/reaction/", origin);
        assert!(r.contains(&format!("access-control-allow-origin: {origin}\r\n")), "{origin}: {r}");
    }
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
}

/// A page on another origin loads hearth's images and follows its `next` links by their
/// absolute URLs: with `--listen 127.0.0.1:0` and no `--public-url` they name the port
/// actually bound, never port 0 (which a browser refuses as unsafe).
#[test]
fn absolute_urls_name_the_bound_port() {
    let e = Env::new();
    let (mut child, addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    let r = crate::get(&addr, "/api/v2/reaction/?limit=1");
    assert!(r.contains(&format!("\"image\":\"http://{addr}/static/reactions/")), "{r}");
    assert!(r.contains(&format!("\"next\":\"http://{addr}/api/v2/reaction/?")), "{r}");
    assert!(!r.contains("127.0.0.1:0/"), "{r}");
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
}

//! The `hearth` binary, run as a user would: every command of SPEC §2, and every error
//! case it names (a clear one-line error and a non-zero exit, nothing changed).

//!
//! One test binary, one module per command group (kanidm's testkit: one binary links
//! once); the shared helpers are here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]
#![expect(
    clippy::disallowed_methods,
    reason = "these tests wait for real servers and processes in real time; the code under test reads time only through src/clock.rs"
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use run::hearth;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env { dir: tempfile::tempdir().unwrap() }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("hearth.db")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_stdin(args, None)
    }

    fn run_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        hearth(&self.db(), args, stdin)
    }

    /// `hearth import` of `lines` written to a file.
    fn import(&self, lines: &[String]) -> Output {
        let path = self.dir.path().join("in.ndjson");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        self.run(&["import", path.to_str().unwrap()])
    }

    /// A connection to the database file.
    fn conn(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db()).unwrap()
    }

    /// The one value `q` selects.
    fn value<T: rusqlite::types::FromSql>(&self, q: &str) -> T {
        self.conn().query_row(q, [], |r| r.get(0)).unwrap()
    }

    /// Runs a command that must succeed; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
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
        self.value(q)
    }

    /// Asserts that each command fails with one error line containing its text.
    fn assert_fails(&self, cases: &[(&[&str], &str)]) {
        for (args, text) in cases {
            let line = self.fails(args);
            assert!(line.contains(text), "{args:?}: {line}");
        }
    }

    /// Asserts what each query selects.
    fn assert_sql(&self, want: &[(&str, i64)]) {
        for (q, n) in want {
            assert_eq!(self.sql(q), *n, "{q}");
        }
    }

    /// A fresh database, initialised.
    fn initialised() -> Env {
        let e = Env::new();
        e.init();
        e
    }

    /// An initialised database with `lines` imported.
    fn imported(lines: &[String]) -> Env {
        let e = Env::initialised();
        succeeded(&e.import(lines));
        e
    }

    /// `hearth app create --json` of a confidential code-flow app called `name` that
    /// redirects to `https://a.example/cb`, with `extra` arguments.
    fn code_app(&self, name: &str, extra: &[&str]) -> Value {
        let mut args = vec![
            "app",
            "create",
            "--name",
            name,
            "--grant",
            "authorization-code",
            "--redirect-uri",
            "https://a.example/cb",
            "--json",
        ];
        args.extend(extra);
        self.json(&args)
    }
}

/// Asserts that a run succeeded (its stderr says why not); returns its stdout.
fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `hearth check --json` on a database with problems: the run fails and names each
/// one in a sentence, and they are `want` (check, count); returns the run.
fn broken_check(e: &Env, want: &[(&str, u64)]) -> Output {
    let out = e.run(&["check", "--json"]);
    assert!(!out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems: Vec<(&str, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert!(p["problem"].as_str().unwrap().len() > 10, "{p}");
            (p["check"].as_str().unwrap(), p["count"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(problems, want);
    out
}

/// An import's first batch going wrong: the first 11 of `good`, then `bad` (line 12),
/// then one more user, which must not be written either.
fn bad_batch(good: &[String], bad: &str) -> Vec<String> {
    let mut lines = good[..11].to_vec();
    lines.push(bad.to_owned());
    lines.push(r#"{"record":"user","id":50,"username":"after"}"#.to_owned());
    lines
}

/// Asserts each field of `want` (an object) in `v`.
fn assert_fields(v: &Value, want: &Value) {
    for (k, w) in want.as_object().unwrap() {
        assert_eq!(&v[k], w, "{k} in {v}");
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
fn wait_for_listen_line(stderr: &mut impl std::io::BufRead) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "server exited before listening");
        if let Some(i) = line.find("listening on http://") {
            let rest = &line[i + "listening on http://".len()..];
            return rest.split_whitespace().next().unwrap().to_owned();
        }
    }
}

/// Sends `request` (a whole HTTP/1.1 request, `Connection: close`) to `addr` and reads
/// the response whole.
fn http(addr: &str, request: &str) -> String {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// A GET of `path` with `headers` (each line ending in `\r\n`), read whole.
fn get_with(addr: &str, path: &str, headers: &str) -> String {
    http(addr, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n{headers}Connection: close\r\n\r\n"))
}

fn get(addr: &str, path: &str) -> String {
    get_with(addr, path, "")
}

/// The names of the entries in a directory, sorted.
fn file_names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Starts `hearth serve` on `listen`; returns it and the address it logged. Its log
/// is drained in the background so the server never blocks on a full pipe.
fn spawn_serve(
    db: &std::path::Path,
    listen: &str,
    extra: &[&str],
) -> (std::process::Child, String) {
    spawn_serve_env(db, listen, extra, &[])
}

/// [`spawn_serve`] with more environment variables.
fn spawn_serve_env(
    db: &std::path::Path,
    listen: &str,
    extra: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(db)
        .args(["serve", "--listen", listen])
        .args(extra)
        .env("RUST_LOG", "info")
        .envs(env.iter().copied())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let addr = wait_for_listen_line(&mut stderr);
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, addr)
}

/// Sends SIGTERM.
fn sigterm(child: &std::process::Child) {
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
}

mod app;
mod backup;
mod catalog;
mod cors;
mod custom;
mod durability;
mod events;
mod fail2ban;
mod groups;
mod import;
mod init;
mod kit;
mod logs;
mod maint;
mod metrics;
mod migrate;
mod ops;
mod packaging;
mod people;
mod places;
mod polls;
mod replica;
#[path = "../support/run.rs"]
mod run;
mod serve;
mod settings;
mod tags;
mod user;

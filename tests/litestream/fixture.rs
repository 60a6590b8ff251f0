//! The setup the Litestream tests share, so each test reads as its scenario: a fresh
//! database with its replica configuration ([`Site`]), hearth under or beside
//! Litestream, the wait for Litestream's first snapshot, concurrent writers
//! ([`Writers`]), and the restore that is checked ([`Site::restored_names`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::{Proc, config, fresh_db, hearth_ok, replicate, restore};

/// The start of every test of this target but the one without servers: `None` (the
/// test returns) where the litestream binary is missing under a plain `cargo test`
/// ([`crate::present`]), else the lock that runs the tests one at a time
/// ([`crate::replicas::SERIAL`]).
pub async fn begin() -> Option<tokio::sync::MutexGuard<'static, ()>> {
    if !crate::present() {
        return None;
    }
    Some(crate::replicas::SERIAL.lock().await)
}

/// A fresh database `dir/hearth.db` with a staff user (`token` is theirs) and a
/// Litestream configuration `cfg` replicating it to the file replica `dir/replica`;
/// `source` is where hearth's replication bound reads the replica's position
/// (`--litestream-replica`): Litestream's control socket, as the packaged units set
/// it, unless a test names another.
pub struct Site {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub replica: PathBuf,
    pub cfg: PathBuf,
    pub token: String,
    pub source: String,
}

impl Site {
    pub fn new() -> Site {
        Site::with_db("hearth.db")
    }

    /// [`Site::new`] with the database named `name`.
    pub fn with_db(name: &str) -> Site {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(name);
        let token = fresh_db(&db);
        let replica = dir.path().join("replica");
        let cfg = config(dir.path(), &db, &replica);
        // HEARTH_TRIALS_SOURCE=file|local (scripts/litestream-trials): another source, to
        // compare on the same build
        let source = match std::env::var("HEARTH_TRIALS_SOURCE").as_deref() {
            Ok("file") => replica.display().to_string(),
            Ok("local") => "local".to_owned(),
            _ => format!("socket:{}", dir.path().join("litestream.sock").display()),
        };
        Site { dir, db, replica, cfg, token, source }
    }

    /// The temporary directory.
    pub fn d(&self) -> &Path {
        self.dir.path()
    }

    /// hearth under `litestream replicate -exec` with the serve flags `args`, its log
    /// `NAME.log`; its replication bound reads [`Site::source`].
    pub fn under(&self, args: &str, name: &str) -> Proc {
        let args = format!("--litestream-replica {} {args}", self.source);
        replicate(self.d(), &self.db, &self.cfg, &args, name)
    }

    /// `litestream replicate` alone (hearth beside it), its log `litestream-I.log`.
    pub fn litestream(&self, i: usize) -> Proc {
        let mut cmd = std::process::Command::new(crate::litestream());
        cmd.arg("replicate").arg("-config").arg(&self.cfg);
        Proc::start(cmd, &self.d().join(format!("litestream-{i}.log")))
    }

    /// `hearth serve --litestream on` beside Litestream with the serve flags `args`,
    /// its log `hearth.log`; writes as fast as they go (no per-user write rate); its
    /// replication bound reads [`Site::source`].
    pub fn beside(&self, args: &[&str]) -> Proc {
        let mut hearth = std::process::Command::new(crate::hearth());
        hearth.env("HEARTH_USER_WRITE_RATE", "0");
        hearth.arg("--db").arg(&self.db);
        hearth.args(["serve", "--listen", "127.0.0.1:0", "--litestream", "on"]);
        hearth.arg("--litestream-replica").arg(&self.source).args(args);
        Proc::start(hearth, &self.d().join("hearth.log"))
    }

    /// Waits (20 s at most) for Litestream's first snapshot: nothing can be restored
    /// before it (found in trial 44 of 100 on a loaded machine: killed before it, the
    /// replica held nothing restorable); a deployment is protected from then on.
    pub async fn first_snapshot(&self, server: &Proc) {
        let snapshots = self.replica.join("ltx/9");
        let start = Instant::now();
        while std::fs::read_dir(&snapshots).map_or(true, |mut e| e.next().is_none()) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no snapshot within 20 s:\n{}",
                server.log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Restores the replica, asserts that `hearth check` passes on it, and returns the
    /// names of its courses. A failure names `what` (what the test was doing).
    pub fn restored_names(&self, what: &str) -> HashSet<String> {
        let restored = restore(self.d(), what);
        assert!(hearth_ok(&restored, &["check"], None).contains("ok"), "{what}: hearth check");
        course_names(&restored)
    }
}

/// Litestream's local LTX files of `db` (level 0, beside it: its default `meta-path`).
pub fn local_ltx(db: &Path) -> PathBuf {
    let name = db.file_name().unwrap().to_str().unwrap();
    db.with_file_name(format!(".{name}-litestream")).join("ltx/0")
}

/// The names of the courses in the hearth database `db`.
pub fn course_names(db: &Path) -> HashSet<String> {
    rusqlite::Connection::open(db)
        .unwrap()
        .prepare("SELECT name FROM course")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A course-creating POST (`name`) as `token`.
pub fn new_course(
    c: &reqwest::Client,
    url: &str,
    token: &str,
    name: &str,
) -> reqwest::RequestBuilder {
    c.post(format!("{url}/api/v2/course/"))
        .bearer_auth(token)
        .json(&serde_json::json!({"name": name, "description": "d", "type": "self-paced"}))
}

/// Creates the course `name`, which must answer 201.
pub async fn create(c: &reqwest::Client, url: &str, token: &str, name: &str) {
    let r = new_course(c, url, token, name).send().await.unwrap();
    assert_eq!(r.status(), 201, "{name}");
}

/// Polls `f` every 5 ms until it holds, failing after `limit`; returns how long it took.
pub async fn until(what: &str, limit: Duration, mut f: impl AsyncFnMut() -> bool) -> Duration {
    let start = Instant::now();
    loop {
        if f().await {
            return start.elapsed();
        }
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// What the writers saw: acknowledged names with when, when each 503 came, and every
/// answer in order (when, and whether it was acknowledged).
#[derive(Default)]
pub struct Seen {
    pub acked: Vec<(String, Instant)>,
    pub refused: Vec<Instant>,
    pub answers: Vec<(Instant, bool)>,
}

/// Concurrent writers creating courses until [`Writers::stop`]: a 201 is acknowledged,
/// a 503 (with Retry-After) is held and retried 20 ms later, as a client honouring
/// Retry-After would, but sooner; any other answer fails the test.
pub struct Writers {
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
    handles: Vec<tokio::task::JoinHandle<()>>,
}

impl Writers {
    /// `n` writers to `url` as `token`, naming their courses `TAGwW-I`.
    pub fn start(url: &str, token: &str, n: usize, tag: &str) -> Writers {
        let client = reqwest::Client::new();
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let handles = (0..n)
            .map(|w| {
                let (c, url, token, tag) =
                    (client.clone(), url.to_owned(), token.to_owned(), tag.to_owned());
                let (seen, stop) = (Arc::clone(&seen), Arc::clone(&stop));
                tokio::spawn(async move {
                    let mut i = 0;
                    while !stop.load(Ordering::Acquire) {
                        i += 1;
                        let name = format!("{tag}w{w}-{i}");
                        let r = new_course(&c, &url, &token, &name).send().await;
                        let answer = r.map(|r| {
                            (r.status().as_u16(), r.headers().contains_key("retry-after"))
                        });
                        match answer {
                            Ok((201, _)) => {
                                let now = Instant::now();
                                let mut s = seen.lock().unwrap();
                                s.acked.push((name, now));
                                s.answers.push((now, true));
                            }
                            Ok((503, true)) => {
                                {
                                    let now = Instant::now();
                                    let mut s = seen.lock().unwrap();
                                    s.refused.push(now);
                                    s.answers.push((now, false));
                                }
                                tokio::time::sleep(Duration::from_millis(20)).await;
                            }
                            Ok((s, _)) => panic!("write answered {s}"),
                            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                        }
                    }
                })
            })
            .collect();
        Writers { seen, stop, handles }
    }

    /// What they saw so far.
    pub fn seen(&self) -> MutexGuard<'_, Seen> {
        self.seen.lock().unwrap()
    }

    /// Stops them and waits for each; returns what they saw.
    pub async fn stop(self) -> Seen {
        self.stop.store(true, Ordering::Release);
        for h in self.handles {
            h.await.unwrap();
        }
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

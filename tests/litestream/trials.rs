//! Crash trials of the kinds issue 28 found losing acknowledged writes (SPEC §9): hearth
//! with Litestream beside it (`serve --litestream on --replication-lag-limit 1s
//! --litestream-replica socket:PATH`: the bound asks Litestream's control socket what
//! the replica holds, as the packaged units do), four
//! concurrent API writers, something done to Litestream, then `kill -9` of both (the
//! machine lost), `litestream restore`, `hearth check`, and the acknowledged writes the
//! restore lacks counted by age.
//!
//! - `restart`: Litestream killed under writes, started again once hearth holds writes,
//!   the machine lost a random moment after writes are accepted again;
//! - `starved`: Litestream stopped (SIGSTOP) 400 ms of every 500 ms under the writes;
//! - `disk_full`: the replica on a 4 MiB tmpfs that fills up under the writes.
//!
//! What the bound guarantees (src/litestream/): while hearth acknowledges writes, the
//! replica holds every commit older than the bound (Litestream's answer says so). So
//! nothing acknowledged more than the bound before the last moment hearth was accepting
//! writes is lost, give or take the watch's look ([`MARGIN`]), for every kind: a
//! starved Litestream that has read the WAL but not uploaded it, and a full replica
//! disk that refuses the upload, both leave the replica's files behind, and the bound
//! sees it. (Until issue 28's last gap was closed the bound read Litestream's local LTX
//! files: 1 of 50 starved trials lost writes up to 1.78 s old under the 1 s bound, and
//! the disk-full kind could only be held to the moment the disk filled.) The
//! `disk_full` kind also checks that Litestream logs the failure and that
//! `hearth verify-replica` reports the replica behind.
//!
//! CI runs a few of each (`HEARTH_LITESTREAM_KIND_TRIALS` sets how many of each kind;
//! `scripts/litestream-trials` runs many); every kind prints one `litestream trials:`
//! line with its figures before it asserts.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::fixture::{Site, Writers, course_names, until};
use crate::litestream;

/// `serve --replication-lag-limit` in these trials.
const LIMIT: Duration = Duration::from_secs(1);
/// What the guarantee allows beyond the bound: the watch looks every 100 ms, and
/// between a look that finds the replica behind and the first refused write come the
/// look itself and the writes already past the gate, on a loaded 2-core machine.
/// Nothing of Litestream's: the bound reads what the replica holds.
const MARGIN: Duration = Duration::from_millis(300);

/// The kinds of trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Restart,
    Starved,
    DiskFull,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Restart => "restart",
            Kind::Starved => "starved",
            Kind::DiskFull => "disk_full",
        }
    }
}

/// The figures of one kind, summed over its trials.
#[derive(Default, Debug)]
pub struct Figures {
    pub trials: usize,
    pub acked: usize,
    pub lost: usize,
    /// The oldest lost write's age at the kill, over all trials.
    pub oldest_loss: Duration,
    /// Writes lost that the guarantee covers (see the module's comment).
    pub lost_beyond_bound: usize,
    pub failed_check: usize,
    pub failed_restore: usize,
}

impl Figures {
    /// The one line `scripts/litestream-trials` reads.
    pub fn print(&self, kind: &str) {
        eprintln!(
            "litestream trials: kind={kind} trials={} acked={} lost={} oldest_loss_ms={} lost_beyond_bound={} failed_restore={} failed_check={}",
            self.trials,
            self.acked,
            self.lost,
            self.oldest_loss.as_millis(),
            self.lost_beyond_bound,
            self.failed_restore,
            self.failed_check
        );
    }
}

/// A tmpfs of `size` mounted at `dir`, unmounted when dropped.
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    pub fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Tmpfs(dir.to_owned()),
            Ok(o) => panic!(
                "the disk-full trials mount a small tmpfs and could not ({}): run them as root (or with CAP_SYS_ADMIN), e.g. `sudo -E cargo test --test litestream disk_full`",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => panic!(
                "the disk-full trials need `mount` ({e}): apt-get install mount, and run them as root"
            ),
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system of `dir` but for about `room` bytes.
pub fn fill(dir: &Path, room: u64) {
    use std::io::Write;
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    while f.write_all(&chunk).and_then(|()| f.sync_all()).is_ok() {}
    let len = std::fs::metadata(&path).unwrap().len();
    f.set_len(len.saturating_sub(room)).unwrap();
    f.sync_all().unwrap();
}

/// One trial of `kind`, number `n`; adds its figures to `fig`.
async fn trial(kind: Kind, n: usize, fig: &mut Figures) {
    let site = Site::new();
    let (d, db, replica) = (site.d(), &site.db, &site.replica);
    let _tmpfs = (kind == Kind::DiskFull).then(|| Tmpfs::mount(replica, "4m"));
    let mut ls = site.litestream(1);
    let limit = format!("{}ms", LIMIT.as_millis());
    let mut server = site.beside(&["--replication-lag-limit", &limit]);
    let url = server.url();
    site.first_snapshot(&server).await;
    let writers = Writers::start(&url, &site.token, 4, &format!("{}{n}-", kind.name()));
    // the kill lands at a different moment of Litestream's cycle each time
    let jitter = Duration::from_millis(53 * (n as u64 % 10));
    let mut starver = None;
    match kind {
        Kind::Restart => {
            tokio::time::sleep(Duration::from_millis(700)).await;
            ls.kill9();
            let died = Instant::now();
            until("writes held after Litestream died", LIMIT * 5, async || {
                writers.seen().answers.last().is_some_and(|(t, ok)| *t > died && !ok)
            })
            .await;
            ls = site.litestream(2);
            let again = Instant::now();
            until("writes accepted after the restart", Duration::from_secs(20), async || {
                writers.seen().acked.last().is_some_and(|(_, t)| *t > again)
            })
            .await;
            tokio::time::sleep(jitter).await;
        }
        Kind::Starved => {
            let pid = ls.child.id().to_string();
            let done = Arc::new(AtomicBool::new(false));
            let d2 = Arc::clone(&done);
            let t = std::thread::spawn(move || {
                // quiet: the last signal may find Litestream already killed
                let send = |sig: &str| {
                    let _ = std::process::Command::new("kill")
                        .args([sig, "--", &pid])
                        .stderr(std::process::Stdio::null())
                        .status();
                };
                while !d2.load(Ordering::Acquire) {
                    send("-STOP");
                    std::thread::sleep(Duration::from_millis(400));
                    send("-CONT");
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
            starver = Some((done, t));
            tokio::time::sleep(Duration::from_millis(2500) + jitter).await;
        }
        Kind::DiskFull => {
            tokio::time::sleep(Duration::from_millis(500)).await;
            fill(replica, 128 * 1024);
            tokio::time::sleep(Duration::from_millis(1500) + jitter).await;
            // the one place the loss shows before a restore: the drill
            let out = std::process::Command::new(crate::hearth())
                .arg("--db")
                .arg(db)
                .args(["verify-replica", "--max-behind", "300ms", "--config"])
                .arg(&site.cfg)
                .arg("--litestream-bin")
                .arg(litestream())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && err.contains("the replica is behind"),
                "disk_full {n}: verify-replica should report the replica behind: {err}"
            );
        }
    }
    // the machine is lost: both at once (a stopped Litestream dies as well)
    let killed = Instant::now();
    server.kill9();
    ls.kill9();
    let seen = writers.stop().await;
    if let Some((done, t)) = starver {
        done.store(true, Ordering::Release);
        t.join().unwrap();
    }
    if kind == Kind::DiskFull {
        let logs: String = (1..=2)
            .map(|i| {
                std::fs::read_to_string(d.join(format!("litestream-{i}.log"))).unwrap_or_default()
            })
            .collect();
        assert!(
            logs.contains("no space left on device"),
            "disk_full {n}: Litestream says why:\n{logs}"
        );
    }
    fig.trials += 1;
    fig.acked += seen.acked.len();
    // the restore, its check, and what it lacks
    let restored = d.join("restored.db");
    let out = std::process::Command::new(litestream())
        .args(["restore", "-o"])
        .arg(&restored)
        .arg(format!("file://{}", replica.display()))
        .output()
        .unwrap();
    if !out.status.success() {
        fig.failed_restore += 1;
        eprintln!("{} {n}: restore failed: {}", kind.name(), String::from_utf8_lossy(&out.stderr));
        return;
    }
    let check = crate::run::hearth(&restored, &["check"], None);
    if !check.status.success() {
        fig.failed_check += 1;
        eprintln!(
            "{} {n}: hearth check of the restore: {}{}",
            kind.name(),
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        return;
    }
    let names = course_names(&restored);
    let lost: Vec<&(String, Instant)> =
        seen.acked.iter().filter(|(n, _)| !names.contains(n)).collect();
    fig.lost += lost.len();
    if let Some(oldest) = lost.iter().map(|(_, t)| killed.saturating_duration_since(*t)).max() {
        fig.oldest_loss = fig.oldest_loss.max(oldest);
    }
    // the last moment hearth accepted writes: the kill, or when the hold in force at
    // the kill began
    let last_ok = seen.answers.iter().filter(|(_, ok)| *ok).map(|(t, _)| *t).max();
    let held_since = last_ok.and_then(|ok| {
        seen.answers.iter().filter(|(t, good)| !good && *t > ok).map(|(t, _)| *t).min()
    });
    let reference = held_since.unwrap_or(killed);
    let beyond: Vec<&&(String, Instant)> = lost
        .iter()
        .filter(|(_, t)| reference.saturating_duration_since(*t) > LIMIT + MARGIN)
        .collect();
    if !beyond.is_empty() {
        fig.lost_beyond_bound += beyond.len();
        let kept = site.dir.keep();
        eprintln!(
            "{} {n}: {} writes acknowledged more than the bound before hearth stopped accepting writes are lost, e.g. {:?} (files kept in {})",
            kind.name(),
            beyond.len(),
            &beyond[..beyond.len().min(3)],
            kept.display()
        );
    }
}

/// Runs the trials of `kind` (`ci` of them unless `HEARTH_LITESTREAM_KIND_TRIALS`
/// says how many), prints its figures, and asserts the guarantee (or skips, where
/// litestream is missing under a plain `cargo test`: `crate::fixture::begin`).
async fn run(kind: Kind, ci: usize) {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let trials: usize = std::env::var("HEARTH_LITESTREAM_KIND_TRIALS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(ci);
    let mut fig = Figures::default();
    for n in 0..trials {
        trial(kind, n, &mut fig).await;
    }
    fig.print(kind.name());
    assert_eq!(fig.failed_restore, 0, "{}: restores failed: {fig:?}", kind.name());
    assert_eq!(fig.failed_check, 0, "{}: restores failed hearth check: {fig:?}", kind.name());
    assert_eq!(
        fig.lost_beyond_bound,
        0,
        "{}: writes older than the bound lost: {fig:?}",
        kind.name()
    );
    assert!(fig.acked > 100 * trials, "{}: too few writes to judge: {fig:?}", kind.name());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trials_litestream_restarted_under_writes() {
    run(Kind::Restart, 2).await;
}

/// A Litestream stopped 400 ms of every 500 ms can fall behind in uploading after it
/// has read the WAL: with the bound on its local LTX files, 1 of 50 starved trials by
/// hand lost 145 writes up to 1.78 s old under a 1 s bound; the bound on the replica's
/// files holds it (docs/operations.md has the figures).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trials_litestream_starved_under_writes() {
    run(Kind::Starved, 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trials_replica_disk_full_under_writes() {
    run(Kind::DiskFull, 2).await;
}

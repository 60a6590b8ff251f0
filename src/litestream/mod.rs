//! A primary under Litestream (SPEC §9, issue 28): hearth never acknowledges what
//! Litestream cannot keep.
//!
//! Replication is asynchronous: a write is acknowledged when it is committed to the
//! local file, and Litestream copies it to the replica a moment later. When Litestream
//! is gone (killed, crashed, stopped), starved of CPU, cannot write its replica (disk
//! full, read-only, unreachable) or is otherwise behind, everything acknowledged since
//! it stopped would be lost with the machine. So while hearth runs under Litestream,
//! [`watch`] compares every [`POLL`] how far hearth has committed in the WAL with how
//! far the replica holds it ([`wal`]); when the oldest commit the replica lacks is
//! older than `serve --replication-lag-limit`, hearth stops acknowledging writes (503
//! `service_unavailable`, `Retry-After`) and `/readyz` answers 503, until the replica
//! has caught up. One WARN line when that begins, one INFO line when it ends; the
//! gauges `hearth_replication_lag_seconds` and `hearth_replication_writes_held` say it
//! to a scraper.
//!
//! What "the replica holds" is read from depends on `serve --litestream-replica`
//! ([`Source`]): Litestream's control socket, which answers the replica's position for
//! any replica type ([`socket`]); or, for a file replica, the newest level-0 LTX file
//! in the replica's own directory (what has been uploaded, byte for byte the file
//! Litestream wrote locally, renamed into place only once written and synced); or,
//! the weaker fallback, Litestream's local LTX files, which say what it has read from
//! the WAL, not what it has uploaded (a Litestream that reads but cannot upload goes
//! unseen). Litestream 0.5.17's Prometheus metrics have no replica position (the local
//! `litestream_txid` only; the replica gauges are commented out in its `replica.go`),
//! so they are not a source (docs/decisions.md).
//!
//! Under `litestream replicate -exec`, hearth is Litestream's child: when its parent
//! changes (Litestream died and hearth was re-parented), nothing will ever copy its
//! writes again, so writes are refused at once and for good (restart both).
//!
//! And hearth never resets the WAL behind Litestream's back ([`crate::db::Db::set_replicated`]):
//! no automatic checkpoints and no checkpoint on close while replicated; Litestream
//! checkpoints the WAL itself once it has copied it.

pub mod socket;
pub mod wal;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::db::Db;

/// How often the WAL and Litestream's files are looked at.
pub const POLL: Duration = Duration::from_millis(100);
/// The default of `serve --replication-lag-limit`.
pub const DEFAULT_LAG_LIMIT: Duration = Duration::from_secs(5);
/// At most this many unreplicated commit marks are kept (one per [`POLL`] that saw
/// new commits); past it the newest is moved on, which only errs on the strict side.
const MARKS: usize = 4096;

/// `serve --litestream`: whether hearth runs under Litestream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Under Litestream when its parent process is `litestream` (`replicate -exec`).
    Auto,
    /// Under Litestream (run beside hearth rather than as its parent).
    On,
    /// Not replicated: no lag limit, hearth's own checkpoints.
    Off,
}

/// How hearth was found to run under Litestream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Under {
    /// As the `-exec` child of the `litestream` process with this pid.
    Child(u32),
    /// Beside it (`--litestream on`).
    Beside,
}

impl Mode {
    /// Whether (and how) hearth runs under Litestream.
    pub fn detect(self) -> Option<Under> {
        let parent = std::os::unix::process::parent_id();
        let child = std::fs::read_to_string(format!("/proc/{parent}/comm"))
            .is_ok_and(|c| c.trim() == "litestream");
        match (self, child) {
            (Mode::Off, _) => None,
            (_, true) => Some(Under::Child(parent)),
            (Mode::On, false) => Some(Under::Beside),
            (Mode::Auto, false) => None,
        }
    }
}

/// Where the bound reads how far the replica holds the WAL (`serve
/// --litestream-replica`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Litestream's control socket (`socket:` in litestream.yml): its answer to `POST
    /// /sync` names the replica's position, for every replica type ([`socket`]).
    Socket(PathBuf),
    /// A file replica: Litestream's `path:` for it. Its `ltx/0/MINTXID-MAXTXID.ltx`
    /// files are what the replica holds.
    File(PathBuf),
    /// Litestream's local LTX files beside the database: what it has read from the
    /// WAL, uploaded or not (the weaker fallback, where no socket is enabled).
    Local,
}

impl Source {
    /// Parses `--litestream-replica`: `socket:/PATH` (Litestream's control socket),
    /// a file replica as `file:///PATH` or an absolute `/PATH`, or `local`. Other
    /// replica URLs are refused with the reason: hearth cannot read what they hold
    /// itself (the control socket can tell it).
    pub fn parse(s: &str) -> Result<Source, String> {
        if s == "local" {
            return Ok(Source::Local);
        }
        if let Some(socket) = s.strip_prefix("socket:") {
            if !socket.starts_with('/') {
                return Err(format!("{s:?}: the control socket's path must be absolute"));
            }
            return Ok(Source::Socket(PathBuf::from(socket)));
        }
        let path = s.strip_prefix("file://").unwrap_or(s);
        if path.starts_with('/') {
            return Ok(Source::File(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(format!(
                "hearth cannot read what a {scheme} replica holds itself: enable Litestream's control socket and name it (`socket:/PATH`), or use `local` (Litestream's local LTX files, a weaker bound: docs/operations.md)"
            ));
        }
        Err(format!(
            "{s:?} is neither `local` nor an absolute path or file:// URL of a file replica"
        ))
    }

    /// The directory of LTX files whose headers place the replica's position in the
    /// WAL of `db`: the file replica's own, else Litestream's local ones.
    pub fn ltx_dir(&self, db: &Path) -> PathBuf {
        match self {
            Source::File(replica) => replica.join("ltx").join("0"),
            Source::Socket(_) | Source::Local => ltx_dir(db),
        }
    }
}

/// Reads where the replica holds the WAL up to, from a [`Source`].
#[derive(Debug)]
enum Replicated {
    /// The newest LTX file in this directory ([`Source::File`], [`Source::Local`]).
    Newest(PathBuf),
    /// The control socket's last answer, placed by the local LTX files in this
    /// directory ([`Source::Socket`]).
    Asked(socket::Asker, PathBuf),
    /// Nothing: the socket could not be asked at all (no progress, the strict side).
    Unknown,
}

impl Replicated {
    /// Where the replica holds the WAL up to (blocking: it reads files).
    fn read(&self) -> Option<wal::WalPoint> {
        match self {
            Replicated::Newest(dir) => wal::copied(dir),
            Replicated::Asked(asker, dir) => wal::upto(dir, asker.latest()),
            Replicated::Unknown => None,
        }
    }
}

/// Commits the replica does not hold yet, oldest first: where the WAL's committed
/// end was at a look, and since when (the look before it: the commits came after).
#[derive(Debug, Default)]
pub struct Lag {
    marks: VecDeque<(wal::Position, Instant)>,
    last_look: Option<Instant>,
}

impl Lag {
    /// A look at `now`: the WAL's commits end at `committed`, the replica holds them up
    /// to `copied`. Returns how long the oldest commit it lacks has waited (zero when
    /// it has them all).
    pub fn look(
        &mut self,
        committed: Option<wal::Position>,
        copied: Option<wal::Position>,
        now: Instant,
    ) -> Duration {
        let since = self.last_look.unwrap_or(now);
        self.last_look = Some(now);
        if let Some(c) = committed
            && self.marks.back().is_none_or(|(p, _)| *p != c)
        {
            if self.marks.len() >= MARKS
                && let Some(back) = self.marks.back_mut()
            {
                back.0 = c;
            } else {
                self.marks.push_back((c, since));
            }
        }
        while self.marks.front().is_some_and(|(p, _)| wal::covered(copied, *p)) {
            self.marks.pop_front();
        }
        self.marks.front().map_or(Duration::ZERO, |(_, t)| now.saturating_duration_since(*t))
    }
}

/// `.<name>-litestream` beside the database: Litestream's own files (its default
/// `meta-path`).
pub fn metadata_dir(db: &Path) -> PathBuf {
    let name = db.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    db.with_file_name(format!(".{name}-litestream"))
}

/// `.<name>-litestream/ltx/0`: Litestream's local LTX files.
pub fn ltx_dir(db: &Path) -> PathBuf {
    metadata_dir(db).join("ltx").join("0")
}

/// Whether the Litestream that ran this hearth (`under`) has exited: this process
/// has another parent now. Logged once, by the caller's first `true`.
fn gone(under: Under) -> bool {
    let Under::Child(parent) = under else { return false };
    if std::os::unix::process::parent_id() == parent {
        return false;
    }
    tracing::error!(
        litestream_pid = parent,
        "Litestream, which ran this hearth (-exec), is gone: nothing replicates new writes, so writes are refused until both are restarted"
    );
    true
}

/// Watches the replication of `db` (read from `source`) until the task is dropped,
/// refusing writes (through `db`'s write gate) when the oldest commit the replica
/// lacks is older than `limit` (zero: never), or for good once the parent Litestream
/// is gone.
pub async fn watch(db: Db, under: Under, limit: Duration, source: Source) {
    let wal_path = {
        let mut p = db.path().as_os_str().to_owned();
        p.push("-wal");
        PathBuf::from(p)
    };
    let ltx = source.ltx_dir(db.path());
    // dropped with this task: the asking thread ends with it
    let replicated = Arc::new(match &source {
        Source::Socket(path) => {
            match socket::Asker::start(path.clone(), db.path().to_owned(), POLL) {
                Ok(a) => Replicated::Asked(a, ltx.clone()),
                Err(e) => {
                    tracing::error!(error = %e, "cannot start asking Litestream's control socket: writes wait once the bound passes");
                    Replicated::Unknown
                }
            }
        }
        Source::File(_) | Source::Local => Replicated::Newest(ltx.clone()),
    });
    let mut tail = wal::WalTail::default();
    let mut lag = Lag::default();
    let mut orphaned = false;
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        orphaned = orphaned || gone(under);
        let (t, path, r) = (std::mem::take(&mut tail), wal_path.clone(), Arc::clone(&replicated));
        let looked = tokio::task::spawn_blocking(move || {
            let mut t = t;
            let committed = t.advance(&path);
            let copied = r.read().and_then(|p| t.place(p));
            (t, committed, copied)
        })
        .await;
        let Ok((t, committed, copied)) = looked else {
            continue;
        };
        tail = t;
        // a WAL that cannot be read adds no commits; those seen before still count
        let committed = committed.unwrap_or_else(|e| {
            tracing::debug!(error = %e, "reading the WAL failed");
            None
        });
        // looked at again after the WAL: a look that took long (a loaded disk) must not
        // release writes that Litestream's death, meanwhile, holds for good
        orphaned = orphaned || gone(under);
        let behind = lag.look(committed, copied, crate::clock::instant());
        let over = !limit.is_zero() && behind > limit;
        let held = over || orphaned;
        crate::telemetry::replication(behind, held);
        let was = db.writes_held();
        db.hold_writes(held);
        if held && !was && !orphaned {
            tracing::warn!(
                lag_ms = behind.as_millis(),
                limit_ms = limit.as_millis(),
                ltx = %ltx.display(),
                "Litestream has not replicated writes committed {:.1} s ago (limit {:.1} s): refusing writes (503) until it catches up",
                behind.as_secs_f64(),
                limit.as_secs_f64()
            );
        } else if was && !held {
            tracing::info!("Litestream has caught up: writes are accepted again");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wal::Position;

    #[test]
    fn the_lag_is_the_wait_of_the_oldest_commit_litestream_lacks() {
        let t0 = crate::clock::instant();
        let ms = Duration::from_millis;
        let at = |end| Position { generation: 1, end };
        let mut l = Lag::default();
        assert_eq!(l.look(None, None, t0), Duration::ZERO, "no WAL");
        assert_eq!(l.look(Some(at(32)), None, t0 + ms(100)), Duration::ZERO, "empty WAL");
        // commits appear; Litestream copies the first batch, not the second
        assert_eq!(l.look(Some(at(1000)), None, t0 + ms(200)), ms(100), "since the look before");
        assert_eq!(l.look(Some(at(2000)), Some(at(1000)), t0 + ms(300)), ms(100));
        assert_eq!(l.look(Some(at(2000)), Some(at(1000)), t0 + ms(900)), ms(700), "grows");
        assert_eq!(l.look(Some(at(2000)), Some(at(2000)), t0 + ms(1000)), Duration::ZERO);
        // idle: nothing new, nothing lacking
        assert_eq!(l.look(Some(at(2000)), Some(at(2000)), t0 + ms(5000)), Duration::ZERO);
        // Litestream restarted the WAL after copying it all: a later generation
        let next = Position { generation: 2, end: 500 };
        assert_eq!(l.look(Some(next), Some(at(2000)), t0 + ms(5100)), ms(100));
        assert_eq!(l.look(Some(next), Some(next), t0 + ms(5200)), Duration::ZERO);
    }

    #[test]
    fn the_ltx_directory_is_litestreams() {
        assert_eq!(
            ltx_dir(Path::new("/var/lib/hearth/hearth.db")),
            Path::new("/var/lib/hearth/.hearth.db-litestream/ltx/0")
        );
    }

    #[test]
    fn the_source_is_a_file_replica_or_the_local_files() {
        let db = Path::new("/var/lib/hearth/hearth.db");
        let file = Source::File(PathBuf::from("/var/backups/hearth/litestream"));
        assert_eq!(Source::parse("/var/backups/hearth/litestream"), Ok(file.clone()));
        assert_eq!(Source::parse("file:///var/backups/hearth/litestream"), Ok(file.clone()));
        assert_eq!(file.ltx_dir(db), Path::new("/var/backups/hearth/litestream/ltx/0"));
        assert_eq!(Source::parse("local"), Ok(Source::Local));
        let socket = Source::parse("socket:/var/lib/hearth/.litestream.sock");
        assert_eq!(socket, Ok(Source::Socket(PathBuf::from("/var/lib/hearth/.litestream.sock"))));
        assert_eq!(Source::Socket(PathBuf::from("/s")).ltx_dir(db), ltx_dir(db));
        assert!(Source::parse("socket:relative.sock").is_err());
        assert_eq!(Source::Local.ltx_dir(db), ltx_dir(db));
        let s3 = Source::parse("s3://bucket/hearth").err().unwrap_or_default();
        assert!(
            s3.contains("cannot read what a s3 replica holds") && s3.contains("socket:"),
            "{s3}"
        );
        assert!(Source::parse("relative/dir").is_err());
    }
}

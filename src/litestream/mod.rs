//! A primary under Litestream (SPEC §9, issue 28): hearth never acknowledges what
//! Litestream cannot keep.
//!
//! Replication is asynchronous: a write is acknowledged when it is committed to the
//! local file, and Litestream copies it to the replica a moment later. When Litestream
//! is gone (killed, crashed, stopped), starved of CPU or otherwise behind, everything
//! acknowledged since it stopped would be lost with the machine. So while hearth runs
//! under Litestream, [`watch`] compares every [`POLL`] how far hearth has committed in
//! the WAL with how far Litestream has copied it ([`wal`]); when the oldest commit
//! Litestream lacks is older than `serve --replication-lag-limit`, hearth stops
//! acknowledging writes (503 `service_unavailable`, `Retry-After`) and `/readyz`
//! answers 503, until Litestream has caught up. One WARN line when that begins, one
//! INFO line when it ends; the gauges `hearth_replication_lag_seconds` and
//! `hearth_replication_writes_held` say it to a scraper.
//!
//! Under `litestream replicate -exec`, hearth is Litestream's child: when its parent
//! changes (Litestream died and hearth was re-parented), nothing will ever copy its
//! writes again, so writes are refused at once and for good (restart both).
//!
//! And hearth never resets the WAL behind Litestream's back ([`crate::db::Db::set_replicated`]):
//! no automatic checkpoints and no checkpoint on close while replicated; Litestream
//! checkpoints the WAL itself once it has copied it.

pub mod wal;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
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

/// Commits Litestream has not copied yet, oldest first: where the WAL's committed
/// end was at a look, and since when (the look before it: the commits came after).
#[derive(Debug, Default)]
pub struct Lag {
    marks: VecDeque<(wal::Position, Instant)>,
    last_look: Option<Instant>,
}

impl Lag {
    /// A look at `now`: the WAL's commits end at `committed`, Litestream has copied up
    /// to `copied`. Returns how long the oldest commit Litestream lacks has waited
    /// (zero when it has them all).
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

/// Watches Litestream's progress on `db` until the task is dropped, refusing writes
/// (through `db`'s write gate) when the oldest commit it lacks is older than `limit`
/// (zero: never), or for good once the parent Litestream is gone.
pub async fn watch(db: Db, under: Under, limit: Duration) {
    let wal_path = {
        let mut p = db.path().as_os_str().to_owned();
        p.push("-wal");
        PathBuf::from(p)
    };
    let ltx = ltx_dir(db.path());
    let mut tail = wal::WalTail::default();
    let mut lag = Lag::default();
    let mut orphaned = false;
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Under::Child(parent) = under
            && !orphaned
            && std::os::unix::process::parent_id() != parent
        {
            orphaned = true;
            tracing::error!(
                litestream_pid = parent,
                "Litestream, which ran this hearth (-exec), is gone: nothing replicates new writes, so writes are refused until both are restarted"
            );
        }
        let (t, ltx2, path) = (std::mem::take(&mut tail), ltx.clone(), wal_path.clone());
        let looked = tokio::task::spawn_blocking(move || {
            let mut t = t;
            let committed = t.advance(&path);
            let copied = wal::copied(&ltx2).and_then(|p| t.place(p));
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
}

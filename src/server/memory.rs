//! Memory back to the system once a load is over (issue 17).
//!
//! Under load SQLite fills each connection's page cache (up to 16 MB) and the
//! allocator keeps what requests freed, so the resident size stayed near its peak
//! long after the last request. When the server has answered nothing for
//! `Config::release_memory_after` (2 s by default) after answering something, it
//! closes the idle readers beyond one and empties the last one's and the writer's page
//! caches (`Db::release_memory`); the allocator (jemalloc, which also serves SQLite's
//! own `malloc`, with its background purging thread: `main.rs`, `.cargo/config.toml`)
//! then returns the freed pages within about a second. It happens once per quiet
//! spell, never while requests are being answered: closed readers open again on demand,
//! and the next read fetches its pages from the file, usually from the OS's cache.

use std::time::{Duration, Instant};

use crate::state::AppState;
use crate::telemetry;

/// Decides when a quiet spell begins, from the count of answered requests.
#[derive(Debug)]
struct Quiet {
    after: Duration,
    seen: u64,
    since: Instant,
    /// Requests were answered since the last release.
    pending: bool,
}

impl Quiet {
    fn new(after: Duration, answered: u64, now: Instant) -> Quiet {
        Quiet { after, seen: answered, since: now, pending: false }
    }

    /// True exactly once per quiet spell of at least `after` that follows requests.
    fn release_now(&mut self, answered: u64, now: Instant) -> bool {
        if answered != self.seen {
            self.seen = answered;
            self.since = now;
            self.pending = true;
            return false;
        }
        if self.pending && now.duration_since(self.since) >= self.after {
            self.pending = false;
            return true;
        }
        false
    }
}

/// Starts the watcher (none when `release_memory_after` is zero).
pub(super) fn spawn(state: &AppState) -> Option<tokio::task::JoinHandle<()>> {
    let after = state.config.release_memory_after;
    if after.is_zero() {
        return None;
    }
    let db = state.db.clone();
    let every = (after / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    Some(tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut quiet = Quiet::new(after, super::access::answered(), crate::clock::instant());
        loop {
            tick.tick().await;
            if !quiet.release_now(super::access::answered(), crate::clock::instant()) {
                continue;
            }
            let db = db.clone();
            let emptied =
                tokio::task::spawn_blocking(move || db.release_memory()).await.unwrap_or(0);
            metrics::counter!(telemetry::MEMORY_RELEASES).increment(1);
            tracing::debug!(connections = emptied, "load over: page caches emptied");
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_per_quiet_spell_and_only_after_requests() {
        let t0 = crate::clock::instant();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut q = Quiet::new(Duration::from_millis(100), 0, t0);
        // an idle server from the start never releases
        assert!(!q.release_now(0, at(500)));
        // a load: the count moves
        assert!(!q.release_now(10, at(600)));
        assert!(!q.release_now(50, at(650)));
        // quiet, but not long enough
        assert!(!q.release_now(50, at(700)));
        // long enough: once
        assert!(q.release_now(50, at(750)));
        assert!(!q.release_now(50, at(900)));
        assert!(!q.release_now(50, at(5000)));
        // one more request starts another spell
        assert!(!q.release_now(51, at(6000)));
        assert!(!q.release_now(51, at(6050)));
        assert!(q.release_now(51, at(6100)));
    }
}

//! Which part a server plays (SPEC §9): the primary, which takes writes, or a read
//! replica, which serves reads from a Litestream follower's copy and forwards the rest
//! to the primary. What a replica knows about its copy lives here, below the state,
//! so that `/readyz` can read it; `replica` keeps it current.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// The default of `serve --max-lag`.
pub const DEFAULT_MAX_LAG: Duration = Duration::from_secs(5);

/// The part a server plays.
#[derive(Debug, Clone, Default)]
pub enum Role {
    /// Takes writes (the default).
    #[default]
    Primary,
    /// A read replica (`serve --read-replica`).
    Replica(Arc<ReplicaStatus>),
}

impl Role {
    /// The value of `X-Hearth-Role`.
    pub fn name(&self) -> &'static str {
        match self {
            Role::Primary => "primary",
            Role::Replica(_) => "replica",
        }
    }
}

/// What a replica knows of its copy and of the primary.
#[derive(Debug)]
pub struct ReplicaStatus {
    /// The primary's base URL (`http://host:port`).
    pub primary_url: String,
    /// Above this lag, `/readyz` answers 503.
    pub max_lag: Duration,
    reachable: AtomicBool,
    /// Milliseconds the copy is behind: since the primary reached a position that the
    /// copy does not have yet (0 when it has everything the primary was seen at).
    lag_ms: AtomicU64,
    local_position: AtomicI64,
    primary_position: AtomicI64,
}

impl ReplicaStatus {
    /// A replica of the primary at `primary_url`; unreachable and infinitely behind
    /// until the first check says otherwise.
    pub fn new(primary_url: String, max_lag: Duration) -> Self {
        ReplicaStatus {
            primary_url,
            max_lag,
            reachable: AtomicBool::new(false),
            lag_ms: AtomicU64::new(u64::MAX),
            local_position: AtomicI64::new(0),
            primary_position: AtomicI64::new(0),
        }
    }

    /// Whether the primary answered its last check.
    pub fn reachable(&self) -> bool {
        self.reachable.load(Ordering::Acquire)
    }

    /// How far the copy is behind.
    pub fn lag(&self) -> Duration {
        Duration::from_millis(self.lag_ms.load(Ordering::Acquire))
    }

    /// The position of the copy at its last check.
    pub fn local_position(&self) -> i64 {
        self.local_position.load(Ordering::Acquire)
    }

    /// The primary's position at its last check.
    pub fn primary_position(&self) -> i64 {
        self.primary_position.load(Ordering::Acquire)
    }

    /// What `/readyz` adds on a replica: the primary answers and the copy is at most
    /// `max_lag` behind.
    pub fn ready(&self) -> bool {
        self.reachable() && self.lag() <= self.max_lag
    }

    /// Records a check of the primary.
    pub fn set_primary(&self, reachable: bool, position: Option<i64>) {
        self.reachable.store(reachable, Ordering::Release);
        if let Some(p) = position {
            self.primary_position.fetch_max(p, Ordering::AcqRel);
        }
    }

    /// Records a check of the copy.
    pub fn set_local(&self, position: i64, lag: Duration) {
        self.local_position.store(position, Ordering::Release);
        self.lag_ms.store(u64::try_from(lag.as_millis()).unwrap_or(u64::MAX), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_needs_the_primary_and_a_small_lag() {
        let s = ReplicaStatus::new("http://127.0.0.1:1".into(), Duration::from_secs(5));
        assert!(!s.ready(), "not ready before the first checks");
        s.set_primary(true, Some(7));
        assert!(!s.ready(), "the copy was not checked yet");
        s.set_local(7, Duration::ZERO);
        assert!(s.ready());
        s.set_local(6, Duration::from_secs(6));
        assert!(!s.ready(), "lags more than max_lag");
        s.set_local(7, Duration::from_secs(5));
        assert!(s.ready(), "exactly max_lag is still ready");
        s.set_primary(false, None);
        assert!(!s.ready(), "primary unreachable");
        assert_eq!(s.primary_position(), 7);
        s.set_primary(true, Some(3));
        assert_eq!(s.primary_position(), 7, "never goes back");
        assert_eq!(Role::Replica(Arc::new(s)).name(), "replica");
        assert_eq!(Role::Primary.name(), "primary");
    }
}

//! Read-your-writes on a replica (SPEC §9): after a write it forwarded for a bearer
//! token, the replica forwards that token's reads too, until its copy holds the write
//! (its position is at least the one the primary answered) or [`HOLD`] has passed.
//! Tokens are kept only as their SHA-256.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest a token's reads are forwarded after its write.
pub const HOLD: Duration = Duration::from_secs(5);
/// Tokens remembered at most (past it, expired entries are dropped, then new ones are
/// not recorded: their reads are served locally, perhaps a moment behind).
const MAX_TOKENS: usize = 100_000;

type Key = [u8; 32];

/// Tokens with a write the copy may not hold yet.
#[derive(Debug, Default)]
pub struct Pending {
    map: Mutex<HashMap<Key, (i64, Instant)>>,
    /// Whether the map may hold entries: reads skip the hash and the lock when not.
    any: std::sync::atomic::AtomicBool,
}

/// The key of a bearer token.
pub fn key(token: &str) -> Key {
    let d = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    let mut k = [0u8; 32];
    k.copy_from_slice(d.as_ref());
    k
}

impl Pending {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Key, (i64, Instant)>> {
        self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records that the primary answered a write for `token` at `position`.
    pub fn wrote(&self, token: &str, position: i64, now: Instant) {
        let mut m = self.map();
        if m.len() >= MAX_TOKENS {
            m.retain(|_, (_, until)| *until > now);
            if m.len() >= MAX_TOKENS {
                return;
            }
        }
        self.any.store(true, std::sync::atomic::Ordering::Release);
        let e = m.entry(key(token)).or_insert((position, now + HOLD));
        e.0 = e.0.max(position);
        e.1 = now + HOLD;
    }

    /// The position `token`'s reads wait for, if any is still pending at `now`.
    pub fn waiting(&self, token: &str, now: Instant) -> Option<i64> {
        if !self.any.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        let k = key(token);
        let mut m = self.map();
        match m.get(&k) {
            Some((pos, until)) if *until > now => Some(*pos),
            Some(_) => {
                m.remove(&k);
                self.note_empty(&m);
                None
            }
            None => None,
        }
    }

    fn note_empty(&self, m: &HashMap<Key, (i64, Instant)>) {
        if m.is_empty() {
            self.any.store(false, std::sync::atomic::Ordering::Release);
        }
    }

    /// The copy holds `token`'s writes: its reads are served locally again.
    pub fn caught_up(&self, token: &str) {
        let mut m = self.map();
        m.remove(&key(token));
        self.note_empty(&m);
    }

    /// How many tokens are waiting (tests, metrics).
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Whether no token is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_holds_the_tokens_reads_until_caught_up_or_five_seconds() {
        let p = Pending::default();
        let t0 = crate::clock::instant();
        assert_eq!(p.waiting("a", t0), None);
        p.wrote("a", 10, t0);
        p.wrote("a", 7, t0);
        assert_eq!(p.waiting("a", t0), Some(10), "the highest position is kept");
        assert_eq!(p.waiting("b", t0), None, "other tokens are not held");
        assert_eq!(p.waiting("a", t0 + HOLD - Duration::from_millis(1)), Some(10));
        assert_eq!(p.waiting("a", t0 + HOLD), None, "at most HOLD");
        assert!(p.is_empty(), "expired entries are dropped");
        p.wrote("a", 11, t0);
        p.caught_up("a");
        assert_eq!(p.waiting("a", t0), None);
    }
}

//! Brute-force limits on password checks (SPEC §4): failures are counted per username
//! (case-insensitive) and per client address in a sliding window; once either key has
//! `max` failures in the window, further checks are refused (429) without hashing.
//! Time is a parameter (STYLE rule 9). Kept in memory: a restart forgets the counts,
//! which only ever helps the legitimate user.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

use crate::clock::{SECOND, Timestamp};

/// What failures are counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LimitKey {
    /// A username, lowercased.
    User(String),
    /// A client address.
    Addr(IpAddr),
}

/// Above this many tracked keys, stale ones are swept on the next failure.
const SWEEP_AT: usize = 10_000;

/// The limiter.
#[derive(Debug)]
pub struct Limiter {
    max: usize,
    window: Timestamp,
    failures: Mutex<HashMap<LimitKey, VecDeque<Timestamp>>>,
}

impl Limiter {
    /// `max` failures per `window` (microseconds).
    pub fn new(max: u32, window: Timestamp) -> Self {
        Limiter {
            max: usize::try_from(max).unwrap_or(usize::MAX).max(1),
            window: window.max(1),
            failures: Mutex::new(HashMap::new()),
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<LimitKey, VecDeque<Timestamp>>> {
        self.failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `Some(seconds to wait)` when any key is throttled at `now`.
    pub fn check(&self, keys: &[LimitKey], now: Timestamp) -> Option<u64> {
        let map = self.map();
        keys.iter()
            .filter_map(|k| {
                let q = map.get(k)?;
                let live: Vec<_> = q.iter().filter(|&&t| t > now - self.window).collect();
                if live.len() < self.max {
                    return None;
                }
                // free again when the oldest failure that keeps it at `max` leaves the window
                let oldest = **live.get(live.len() - self.max)?;
                let wait = oldest + self.window - now;
                Some(
                    u64::try_from((wait + SECOND - 1) / SECOND)
                        .unwrap_or(1)
                        .max(1),
                )
            })
            .max()
    }

    /// Records a failed check against every key.
    pub fn fail(&self, keys: &[LimitKey], now: Timestamp) {
        let mut map = self.map();
        if map.len() >= SWEEP_AT {
            let cutoff = now - self.window;
            map.retain(|_, q| q.back().is_some_and(|&t| t > cutoff));
        }
        for k in keys {
            let q = map.entry(k.clone()).or_default();
            while q.front().is_some_and(|&t| t <= now - self.window) {
                q.pop_front();
            }
            q.push_back(now);
            while q.len() > self.max {
                q.pop_front();
            }
        }
    }

    /// Forgets a key's failures (a successful login resets its username).
    pub fn reset(&self, key: &LimitKey) {
        self.map().remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(u: &str) -> LimitKey {
        LimitKey::User(u.into())
    }

    #[test]
    fn throttles_after_max_failures_in_window() {
        let l = Limiter::new(3, 300 * SECOND);
        let keys = [user("ann"), LimitKey::Addr(IpAddr::from([10, 0, 0, 1]))];
        for i in 0..3 {
            assert_eq!(l.check(&keys, i * SECOND), None);
            l.fail(&keys, i * SECOND);
        }
        // oldest failure at t=0 leaves the window at t=300
        assert_eq!(l.check(&keys, 3 * SECOND), Some(297));
        assert_eq!(l.check(&[user("bob")], 3 * SECOND), None);
        // the address alone throttles another username
        assert!(
            l.check(
                &[user("bob"), LimitKey::Addr(IpAddr::from([10, 0, 0, 1]))],
                3 * SECOND
            )
            .is_some()
        );
        assert_eq!(l.check(&keys, 300 * SECOND), None);
    }

    #[test]
    fn reset_clears_a_key() {
        let l = Limiter::new(2, 60 * SECOND);
        l.fail(&[user("ann")], 0);
        l.fail(&[user("ann")], 1);
        assert!(l.check(&[user("ann")], 2).is_some());
        l.reset(&user("ann"));
        assert_eq!(l.check(&[user("ann")], 2), None);
    }

    #[test]
    fn retry_after_is_at_least_one_second() {
        let l = Limiter::new(1, 10 * SECOND);
        l.fail(&[user("x")], 0);
        assert_eq!(l.check(&[user("x")], 10 * SECOND - 1), Some(1));
    }
}

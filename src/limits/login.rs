//! Brute-force limits on password checks (SPEC §4): failures are counted per username
//! (case-insensitive) and per client address in a sliding window; once either key has
//! `max` failures in the window, further checks are refused (429) without hashing. A
//! check reserves its place before it hashes, so the limit holds under concurrency.
//! Time is a parameter (STYLE rule 9). Kept in memory: a restart forgets the counts,
//! which only ever helps the legitimate user.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::clock::{SECOND, Timestamp};

/// What failures are counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LimitKey {
    /// A username, lowercased.
    User(String),
    /// A client address (an IPv6 client by its /64).
    Addr(super::AddrKey),
    /// A mail address, lowercased (the mails sent to it: `api::sign_up`).
    Mail(String),
    /// A member by id (the contact requests they send: `api::community`).
    Member(i64),
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
        self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reserves one password check against every key at `now`, or answers how many
    /// seconds to wait when any key is at its limit. The check and the reservation are
    /// one step under the lock, and a reservation counts as a failure until
    /// [`Reservation::succeeded`] says otherwise: however many requests race, no key
    /// gets more than `max` checks in a window (SPEC §4).
    pub fn reserve(
        self: &Arc<Self>,
        keys: &[LimitKey],
        now: Timestamp,
    ) -> Result<Reservation, u64> {
        let mut map = self.map();
        let cutoff = now - self.window;
        if map.len() >= SWEEP_AT {
            map.retain(|_, q| q.back().is_some_and(|&t| t > cutoff));
        }
        let mut wait = None::<u64>;
        for k in keys {
            let Some(q) = map.get_mut(k) else { continue };
            while q.front().is_some_and(|&t| t <= cutoff) {
                q.pop_front();
            }
            if q.len() >= self.max {
                // free again when the oldest entry that keeps it at `max` leaves the window
                let oldest = q.get(q.len() - self.max).copied().unwrap_or(now);
                let secs = u64::try_from((oldest + self.window - now + SECOND - 1) / SECOND)
                    .unwrap_or(1)
                    .max(1);
                wait = Some(wait.map_or(secs, |w| w.max(secs)));
            }
        }
        if let Some(secs) = wait {
            return Err(secs);
        }
        for k in keys {
            map.entry(k.clone()).or_default().push_back(now);
        }
        Ok(Reservation { limiter: Arc::clone(self), keys: keys.to_vec(), at: now })
    }

    /// Forgets a key's failures (a successful login resets its username).
    pub fn reset(&self, key: &LimitKey) {
        self.map().remove(key);
    }
}

/// A password check in progress: it counts as a failure against its keys unless
/// [`Reservation::succeeded`] is called (a dropped reservation, say of a cancelled
/// request, stays a failure, which only ever errs on the side of the limit).
#[derive(Debug)]
#[must_use = "a reservation counts as a failure unless it succeeded"]
pub struct Reservation {
    limiter: Arc<Limiter>,
    keys: Vec<LimitKey>,
    at: Timestamp,
}

impl Reservation {
    /// The check failed: it stays counted.
    pub fn failed(self) {}

    /// The check succeeded and nothing is reset: the reservation is taken back from
    /// every key (a right sign-up or recovery code).
    pub fn cancelled(self) {
        let mut map = self.limiter.map();
        for k in &self.keys {
            if let Some(q) = map.get_mut(k)
                && let Some(i) = q.iter().rposition(|&t| t == self.at)
            {
                q.remove(i);
            }
        }
    }

    /// The check succeeded: `reset` loses its count entirely (the username), and the
    /// reservation is taken back from the other keys (the address).
    pub fn succeeded(self, reset: &LimitKey) {
        let mut map = self.limiter.map();
        map.remove(reset);
        for k in self.keys.iter().filter(|k| *k != reset) {
            if let Some(q) = map.get_mut(k)
                && let Some(i) = q.iter().rposition(|&t| t == self.at)
            {
                q.remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(u: &str) -> LimitKey {
        LimitKey::User(u.into())
    }

    fn addr(n: u8) -> LimitKey {
        LimitKey::Addr(crate::limits::AddrKey::of(std::net::IpAddr::from([10, 0, 0, n])))
    }

    #[test]
    fn throttles_after_max_failures_in_window() {
        let l = Arc::new(Limiter::new(3, 300 * SECOND));
        let keys = [user("ann"), addr(1)];
        for i in 0..3 {
            l.reserve(&keys, i * SECOND)
                .map(Reservation::failed)
                .unwrap_or_else(|_| unreachable!());
        }
        // oldest failure at t=0 leaves the window at t=300
        assert_eq!(l.reserve(&keys, 3 * SECOND).map(|_| ()), Err(297));
        assert!(l.reserve(&[user("bob")], 3 * SECOND).is_ok());
        // the address alone throttles another username
        assert!(l.reserve(&[user("bob"), addr(1)], 3 * SECOND).is_err());
        assert!(l.reserve(&keys, 300 * SECOND).is_ok());
    }

    #[test]
    fn a_check_in_progress_counts_until_it_succeeds() {
        let l = Arc::new(Limiter::new(2, 60 * SECOND));
        let keys = [user("ann"), addr(1)];
        let first = l.reserve(&keys, 0);
        let second = l.reserve(&keys, 0);
        assert!(first.is_ok() && second.is_ok());
        // two checks are running: a third may not start, whatever they will say
        assert!(l.reserve(&keys, 0).is_err());
        if let Ok(r) = first {
            r.succeeded(&user("ann"));
        }
        // the success reset the username and gave the address its slot back
        assert!(l.reserve(&[user("ann")], 0).is_ok());
        drop(second); // a dropped reservation stays a failure
        assert!(l.reserve(&[addr(1)], 0).is_ok());
        assert!(l.reserve(&[addr(1)], 0).is_err());
    }

    #[test]
    fn racing_threads_get_at_most_max_checks() {
        let l = std::sync::Arc::new(Limiter::new(10, 300 * SECOND));
        let granted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (l, granted) = (l.clone(), granted.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        if let Ok(r) = l.reserve(&[user("ann")], 0) {
                            granted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            r.failed();
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            let _ = t.join();
        }
        assert_eq!(granted.load(std::sync::atomic::Ordering::SeqCst), 10);
    }

    #[test]
    fn reset_clears_a_key() {
        let l = Arc::new(Limiter::new(2, 60 * SECOND));
        let _ = l.reserve(&[user("ann")], 0);
        let _ = l.reserve(&[user("ann")], 1);
        assert!(l.reserve(&[user("ann")], 2).is_err());
        l.reset(&user("ann"));
        assert!(l.reserve(&[user("ann")], 2).is_ok());
    }

    #[test]
    fn retry_after_is_at_least_one_second() {
        let l = Arc::new(Limiter::new(1, 10 * SECOND));
        let _ = l.reserve(&[user("x")], 0);
        assert_eq!(l.reserve(&[user("x")], 10 * SECOND - 1).map(|_| ()), Err(1));
    }
}

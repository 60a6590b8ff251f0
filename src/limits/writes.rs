//! Per-user write quota (issue 27, Medium 8): a rate of writes with a burst
//! (`serve --user-write-rate`, `--user-write-burst`) and a daily budget of bytes
//! (`serve --user-daily-bytes`), both per user, both charged in the one place every API
//! write goes through ([`crate::api::call::Call::write`], once its caller is resolved in
//! the write transaction). Staff are never charged. Time is a parameter (STYLE rule 9).
//!
//! The rate is a GCRA (a token bucket kept as one time per user, its "theoretical
//! arrival time"): a write at `now` is allowed while the user's time is at most
//! `burst - 1` intervals ahead of `now`, and moves it one interval on. With the clock
//! standing still, exactly `burst` writes pass; then one per interval. A refused write
//! charges nothing, so the count is exact whatever is refused in between.
//!
//! The daily budget counts the bytes of request bodies of writes (text, JSON, uploads:
//! an upper bound of what a write stores) per UTC day; it starts again at midnight UTC.
//! A write with no body (follow, delete, restore) always fits, so a user whose budget is
//! spent can still tidy up.
//!
//! Memory is bounded: users are spread over [`SHARDS`] maps, each of at most
//! [`crate::config::WRITE_QUOTA_USERS`]` / SHARDS` entries. When a shard is full, the
//! entries that say nothing are dropped first (bucket full, no bytes today); then the
//! ones whose bucket is full (their day's count is forgotten: past that many users
//! writing in one day, an idle user's budget may start again); if every entry is still
//! mid-burst, a new user is refused for a second (429) rather than let the map grow.
//! So many accounts cannot grow memory without bound, and a sweep happens at most once
//! a second per shard.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::clock::{SECOND, Timestamp};

/// Number of independent maps (users by id): writes of different users rarely wait on
/// one lock.
pub const SHARDS: usize = 16;

/// One day in [`Timestamp`] units.
const DAY: Timestamp = 86_400 * SECOND;

/// A security event is logged at most once per user in this time (every refusal is
/// counted in the metric).
const LOG_EVERY: Timestamp = 60 * SECOND;

/// What the quota allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Writes a second per user (0: no rate limit).
    pub rate: u32,
    /// Writes a user may make at once after a quiet spell.
    pub burst: u32,
    /// Bytes of request bodies a user may write per UTC day (0: no budget).
    pub daily_bytes: u64,
}

/// Which limit refused a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `--user-write-rate` / `--user-write-burst`.
    Rate,
    /// `--user-daily-bytes`.
    DailyBytes,
    /// Too many users writing at once to track another (see the module doc).
    Tracking,
}

impl Limit {
    /// The `limit` field of the log line and label of the metric.
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Rate => "rate",
            Limit::DailyBytes => "daily_bytes",
            Limit::Tracking => "tracking",
        }
    }
}

/// A refused write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// Which limit.
    pub limit: Limit,
    /// Seconds until a write like it would pass (`Retry-After`), at least 1.
    pub retry_after: u64,
    /// Whether this refusal should be logged (the first for its user in a minute).
    pub log: bool,
}

/// A write the quota allowed: its bytes can be given back if nothing was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charge {
    user: i64,
    bytes: u64,
    day: i64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The GCRA's theoretical arrival time (the bucket is full when it is <= now).
    tat: Timestamp,
    /// The UTC day `bytes` counts.
    day: i64,
    bytes: u64,
    /// When a refusal of this user was last logged.
    logged: Timestamp,
}

#[derive(Debug, Default)]
struct Shard {
    users: HashMap<i64, Entry>,
    /// Full even after a sweep: new users are refused, without sweeping, until then.
    full_until: Timestamp,
}

/// The per-user write quota.
#[derive(Debug)]
pub struct WriteQuota {
    quota: Quota,
    /// Microseconds between two writes at the rate.
    interval: Timestamp,
    per_shard: usize,
    shards: Vec<Mutex<Shard>>,
}

impl WriteQuota {
    /// A quota tracking at most `max_users` users at once.
    pub fn new(quota: Quota, max_users: usize) -> Self {
        let interval = if quota.rate == 0 { 0 } else { (SECOND / i64::from(quota.rate)).max(1) };
        WriteQuota {
            quota: Quota { burst: quota.burst.max(1), ..quota },
            interval,
            per_shard: (max_users / SHARDS).max(1),
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
        }
    }

    /// Whether any limit is on.
    pub fn is_on(&self) -> bool {
        self.quota.rate > 0 || self.quota.daily_bytes > 0
    }

    fn shard(&self, user: i64) -> std::sync::MutexGuard<'_, Shard> {
        let i = usize::try_from(user.rem_euclid(SHARDS as i64)).unwrap_or(0);
        // `i < SHARDS`: the index is always there
        self.shards[i % self.shards.len()].lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Charges one write of `bytes` by `user` at `now`, or says which limit refuses it
    /// (charging nothing). The check and the charge are one step under the shard's
    /// lock: however many writes race, no more pass than the quota allows.
    pub fn charge(&self, user: i64, bytes: u64, now: Timestamp) -> Result<Charge, Refusal> {
        let day = now.div_euclid(DAY);
        let charge = Charge { user, bytes, day };
        if !self.is_on() {
            return Ok(charge);
        }
        let mut shard = self.shard(user);
        if !shard.users.contains_key(&user) && shard.users.len() >= self.per_shard {
            self.make_room(&mut shard, now);
            if shard.users.len() >= self.per_shard {
                return Err(Refusal { limit: Limit::Tracking, retry_after: 1, log: false });
            }
        }
        let e = shard.users.entry(user).or_insert(Entry {
            tat: now,
            day,
            bytes: 0,
            logged: Timestamp::MIN,
        });
        if e.day != day {
            e.day = day;
            e.bytes = 0;
        }
        let tat = e.tat.max(now);
        let refused =
            if self.interval > 0 && tat - now > self.interval * (i64::from(self.quota.burst) - 1) {
                // free again when the time is back within the burst
                let wait = tat - now - self.interval * (i64::from(self.quota.burst) - 1);
                Some((Limit::Rate, wait))
            } else if self.quota.daily_bytes > 0
                && e.bytes.saturating_add(bytes) > self.quota.daily_bytes
            {
                Some((Limit::DailyBytes, (day + 1) * DAY - now))
            } else {
                None
            };
        if let Some((limit, wait)) = refused {
            let log = now.saturating_sub(e.logged) >= LOG_EVERY;
            if log {
                e.logged = now;
            }
            let retry_after = u64::try_from((wait + SECOND - 1) / SECOND).unwrap_or(1).max(1);
            return Err(Refusal { limit, retry_after, log });
        }
        if self.interval > 0 {
            e.tat = tat + self.interval;
        }
        e.bytes = e.bytes.saturating_add(bytes);
        Ok(charge)
    }

    /// Gives back the bytes of a write that stored nothing (it failed); the write
    /// itself stays counted against the rate.
    pub fn refund(&self, charge: Charge) {
        if charge.bytes == 0 || self.quota.daily_bytes == 0 {
            return;
        }
        if let Some(e) = self.shard(charge.user).users.get_mut(&charge.user)
            && e.day == charge.day
        {
            e.bytes = e.bytes.saturating_sub(charge.bytes);
        }
    }

    /// Users tracked now (for tests and the memory bound).
    pub fn tracked(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(std::sync::PoisonError::into_inner).users.len())
            .sum()
    }

    fn make_room(&self, shard: &mut Shard, now: Timestamp) {
        if now < shard.full_until {
            return;
        }
        let day = now.div_euclid(DAY);
        // entries that say nothing: a full bucket and no bytes today
        shard.users.retain(|_, e| e.tat > now || (e.day == day && e.bytes > 0));
        if shard.users.len() >= self.per_shard {
            // entries of users not writing now: their day's count is forgotten
            shard.users.retain(|_, e| e.tat > now);
        }
        if shard.users.len() >= self.per_shard {
            shard.full_until = now + SECOND;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = 1_795_342_530 * SECOND;

    fn quota(rate: u32, burst: u32, daily_bytes: u64) -> WriteQuota {
        WriteQuota::new(Quota { rate, burst, daily_bytes }, 10_000)
    }

    #[test]
    fn a_burst_then_the_rate() {
        let q = quota(10, 30, 0);
        let passed = (0..50).filter(|_| q.charge(1, 0, T0).is_ok()).count();
        assert_eq!(passed, 30);
        let r = q.charge(1, 0, T0).err();
        assert_eq!(r.map(|r| (r.limit, r.retry_after)), Some((Limit::Rate, 1)));
        // another user has a bucket of their own
        assert!(q.charge(2, 0, T0).is_ok());
        // one second later: ten more
        let passed = (0..50).filter(|_| q.charge(1, 0, T0 + SECOND).is_ok()).count();
        assert_eq!(passed, 10);
        // a quiet spell fills the bucket again, never past the burst
        let passed = (0..50).filter(|_| q.charge(1, 0, T0 + 100 * SECOND).is_ok()).count();
        assert_eq!(passed, 30);
    }

    #[test]
    fn the_daily_budget_counts_bytes_until_midnight_utc() {
        let q = quota(0, 1, 1000);
        assert!(q.charge(1, 600, T0).is_ok());
        let r = q.charge(1, 500, T0).err();
        let midnight = (T0.div_euclid(DAY) + 1) * DAY;
        let secs = u64::try_from((midnight - T0 + SECOND - 1) / SECOND).unwrap_or(0);
        assert_eq!(r.map(|r| (r.limit, r.retry_after)), Some((Limit::DailyBytes, secs)));
        // what fits still passes; a write without a body always does
        assert!(q.charge(1, 400, T0).is_ok());
        assert!(q.charge(1, 1, T0).is_err());
        assert!(q.charge(1, 0, T0).is_ok());
        // a failed write gives its bytes back
        let c = q.charge(1, 0, T0);
        assert!(c.is_ok());
        q.refund(Charge { user: 1, bytes: 400, day: T0.div_euclid(DAY) });
        assert!(q.charge(1, 400, T0).is_ok());
        // the next UTC day starts again
        assert!(q.charge(1, 1000, midnight).is_ok());
    }

    #[test]
    fn a_refused_write_is_logged_once_a_minute() {
        let q = quota(1, 1, 0);
        assert!(q.charge(1, 0, T0).is_ok());
        let logs: Vec<bool> =
            (0..5).filter_map(|_| q.charge(1, 0, T0).err()).map(|r| r.log).collect();
        assert_eq!(logs, [true, false, false, false, false]);
        assert!(q.charge(1, 0, T0 + 61 * SECOND).is_ok());
        assert_eq!(q.charge(1, 0, T0 + 61 * SECOND).err().map(|r| r.log), Some(true));
    }

    #[test]
    fn off_is_off() {
        let q = quota(0, 30, 0);
        assert!((0..1000).all(|_| q.charge(1, 1 << 30, T0).is_ok()));
        assert_eq!(q.tracked(), 0);
    }

    #[test]
    fn many_users_cannot_grow_the_map_without_bound() {
        let q = WriteQuota::new(Quota { rate: 10, burst: 30, daily_bytes: 1000 }, 160);
        // a thousand users write once each, one every 200 ms: each one's bucket is
        // full again long before the map needs room
        for u in 0..1000 {
            assert!(q.charge(u, 0, T0 + u * SECOND / 5).is_ok(), "{u}");
            assert!(q.tracked() <= 160);
        }
        // all at once, mid-burst: past the bound, new users wait a second
        let q = WriteQuota::new(Quota { rate: 10, burst: 30, daily_bytes: 0 }, 160);
        let refused: Vec<_> = (0..1000).filter_map(|u| q.charge(u, 0, T0).err()).collect();
        assert_eq!(refused.len(), 1000 - 160);
        assert!(refused.iter().all(|r| r.limit == Limit::Tracking && r.retry_after == 1));
        assert_eq!(q.tracked(), 160);
        // those tracked are still served; a second later there is room again
        assert!(q.charge(0, 0, T0).is_ok());
        assert!(q.charge(5000, 0, T0 + 4 * SECOND).is_ok());
    }

    #[test]
    fn a_spent_budget_is_kept_while_there_is_room() {
        let q = WriteQuota::new(Quota { rate: 10, burst: 30, daily_bytes: 1000 }, 160);
        assert!(q.charge(7, 1000, T0).is_ok());
        // 150 other users come and go within the same day
        for u in 100..250 {
            let _ = q.charge(u, 0, T0 + u * SECOND);
        }
        assert_eq!(
            q.charge(7, 1, T0 + 300 * SECOND).err().map(|r| r.limit),
            Some(Limit::DailyBytes)
        );
    }

    #[test]
    fn racing_threads_get_exactly_the_burst() {
        let q = std::sync::Arc::new(quota(10, 30, 0));
        let passed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (q, passed) = (q.clone(), passed.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        if q.charge(1, 0, T0).is_ok() {
                            passed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            let _ = t.join();
        }
        assert_eq!(passed.load(std::sync::atomic::Ordering::SeqCst), 30);
    }
}

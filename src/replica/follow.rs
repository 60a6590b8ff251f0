//! A replica's view of its copy and of the primary (SPEC §9), kept in
//! [`ReplicaStatus`]: the copy's position is read every [`LOCAL_EVERY`], the primary's
//! (its `X-Hearth-Position` on `GET /livez`) every [`PRIMARY_EVERY`]. The lag is how
//! long ago the primary was first seen at a position that the copy does not hold yet;
//! 0 when the copy holds every position the primary was seen at.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::AbortOnDrop;
use crate::db::Db;
use crate::role::ReplicaStatus;

/// How often the copy's position is read.
pub const LOCAL_EVERY: Duration = Duration::from_millis(50);
/// How often the primary is asked for its position.
pub const PRIMARY_EVERY: Duration = Duration::from_millis(250);
/// How long the primary gets to answer that.
const PRIMARY_TIMEOUT: Duration = Duration::from_secs(1);

/// Positions the primary was seen at, with when, that the copy may not hold yet.
#[derive(Debug, Default)]
pub struct Lag(VecDeque<(i64, Instant)>);

impl Lag {
    /// The primary was seen at `position` at `at`.
    pub fn primary_at(&mut self, position: i64, at: Instant) {
        if self.0.back().is_none_or(|(p, _)| position > *p) {
            self.0.push_back((position, at));
        }
    }

    /// The copy holds `position` at `now`: how far it is behind.
    pub fn local_at(&mut self, position: i64, now: Instant) -> Duration {
        while self.0.front().is_some_and(|(p, _)| *p <= position) {
            self.0.pop_front();
        }
        self.0.front().map_or(Duration::ZERO, |(_, since)| now.saturating_duration_since(*since))
    }
}

/// Keeps `status` current until the task is dropped.
pub async fn run(db: Db, status: Arc<ReplicaStatus>, client: super::forward::Client) {
    let lag = Arc::new(std::sync::Mutex::new(Lag::default()));
    let probe = {
        let (status, lag) = (Arc::clone(&status), Arc::clone(&lag));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(PRIMARY_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let seen =
                    tokio::time::timeout(PRIMARY_TIMEOUT, client.position(&status.primary_url))
                        .await;
                match seen {
                    Ok(Ok(p)) => {
                        status.set_primary(true, p);
                        if let Some(p) = p {
                            lock(&lag).primary_at(p, crate::clock::instant());
                        }
                    }
                    Ok(Err(e)) => {
                        if status.reachable() {
                            tracing::warn!(error = %e, primary = %status.primary_url, "the primary does not answer");
                        }
                        status.set_primary(false, None);
                    }
                    Err(_) => {
                        if status.reachable() {
                            tracing::warn!(primary = %status.primary_url, "the primary does not answer in time");
                        }
                        status.set_primary(false, None);
                    }
                }
            }
        })
    };
    let _abort = AbortOnDrop(probe);
    let mut tick = tokio::time::interval(LOCAL_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // one line when reading the position starts failing (or fails differently), not
    // one every LOCAL_EVERY; a copy that cannot be served is logged by its checks
    let mut failing: Option<String> = None;
    loop {
        tick.tick().await;
        match db.current_position().await {
            Ok(p) => {
                let behind = lock(&lag).local_at(p, crate::clock::instant());
                status.set_local(p, behind);
                failing = None;
            }
            Err(crate::db::DbError::Copy(_)) => failing = None,
            Err(e) => {
                let said = e.to_string();
                if failing.as_ref() != Some(&said) {
                    tracing::warn!(error = %said, "reading the replica's position failed");
                    failing = Some(said);
                }
            }
        }
    }
}

fn lock(l: &std::sync::Mutex<Lag>) -> std::sync::MutexGuard<'_, Lag> {
    l.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lag_is_the_age_of_the_oldest_position_the_copy_lacks() {
        let t0 = crate::clock::instant();
        let ms = Duration::from_millis;
        let mut l = Lag::default();
        assert_eq!(l.local_at(0, t0), Duration::ZERO, "nothing seen: no lag");
        l.primary_at(5, t0);
        l.primary_at(5, t0 + ms(100));
        l.primary_at(9, t0 + ms(200));
        assert_eq!(l.local_at(4, t0 + ms(300)), ms(300));
        assert_eq!(l.local_at(5, t0 + ms(300)), ms(100), "5 is held, 9 is not");
        assert_eq!(l.local_at(9, t0 + ms(400)), Duration::ZERO);
        l.primary_at(3, t0 + ms(500));
        assert_eq!(l.local_at(9, t0 + ms(600)), Duration::ZERO, "old positions are ignored");
    }
}

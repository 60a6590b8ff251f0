//! The memory budget of request bodies (SPEC §3, `serve --max-body-memory`): every
//! body held in memory, every image being decoded, and every large response its client
//! has not read yet ([`Budget::response`], `server::outgoing`) holds permits of one shared
//! semaphore, one per byte, for as long as it is held. A request that would pass the
//! budget is answered 503 at once (it does not queue: a queue of held bodies is the
//! attack), and the permits return when the bytes are dropped.
//!
//! No client address holds more than [`crate::config::BODY_SHARE_PER_ADDRESS`] of the
//! budget ([`Budget::none_for`]; an IPv6 client by its /64, a client behind a trusted
//! proxy by its forwarded address): 260 connections from 5 addresses that each declared
//! 1 MiB and sent 10 bytes held the whole budget, and every body of everyone else was
//! answered 503 (issue 27, High 2).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use super::AddrKey;
use crate::error::{ApiError, Unavailable};

/// The shared budget; cheap to clone.
#[derive(Debug, Clone)]
pub struct Budget {
    sem: Arc<Semaphore>,
    total: usize,
    /// Bytes held per client address (only addresses holding some).
    shares: Arc<Mutex<HashMap<AddrKey, usize>>>,
}

/// Bytes held against the budget; they return when this is dropped.
#[derive(Debug)]
pub struct Permit {
    budget: Budget,
    held: Option<OwnedSemaphorePermit>,
    /// Whose share the bytes count in.
    owner: Option<AddrKey>,
}

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> Budget {
        let total = bytes.min(Semaphore::MAX_PERMITS);
        Budget { sem: Arc::new(Semaphore::new(total)), total, shares: Arc::default() }
    }

    /// An empty permit, to grow as a body arrives.
    pub fn none(&self) -> Permit {
        Permit { budget: self.clone(), held: None, owner: None }
    }

    /// An empty permit whose bytes count in `owner`'s share as well.
    pub fn none_for(&self, owner: AddrKey) -> Permit {
        Permit { budget: self.clone(), held: None, owner: Some(owner) }
    }

    /// The most one client address may hold.
    pub fn share(&self) -> usize {
        self.total / crate::config::BODY_SHARE_PER_ADDRESS
    }

    /// Bytes `owner` holds now.
    pub fn held_by(&self, owner: AddrKey) -> usize {
        self.shares().get(&owner).copied().unwrap_or(0)
    }

    fn shares(&self) -> std::sync::MutexGuard<'_, HashMap<AddrKey, usize>> {
        self.shares.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes `bytes` now, or answers 503 `service_unavailable`.
    pub fn take(&self, bytes: usize) -> Result<Permit, ApiError> {
        let mut p = self.none();
        p.grow(bytes)?;
        Ok(p)
    }

    /// Holds the `bytes` of a response that `owner` has not read yet
    /// (`server::outgoing`), or answers 503: like a body's bytes, except that an address
    /// holding nothing may take more than its share for one response, so a page larger
    /// than the share is still served to a client that reads it.
    pub fn response(&self, owner: AddrKey, bytes: usize) -> Result<Permit, ApiError> {
        let mut p = self.none_for(owner);
        p.grow_with(bytes, true)?;
        Ok(p)
    }

    /// Bytes not held by anyone.
    pub fn available(&self) -> usize {
        self.sem.available_permits()
    }

    /// Bytes held by requests now (`hearth_body_memory_bytes`).
    pub fn held(&self) -> usize {
        self.total.saturating_sub(self.available())
    }

    /// The whole budget.
    pub fn total(&self) -> usize {
        self.total
    }
}

impl Permit {
    /// Holds `more` bytes in addition, or answers 503 (what is already held stays).
    pub fn grow(&mut self, more: usize) -> Result<(), ApiError> {
        self.grow_with(more, false)
    }

    /// [`Permit::grow`]; `first_free`: the owner's share does not bind while it holds
    /// nothing (checked under the same lock as the share is taken).
    fn grow_with(&mut self, more: usize, first_free: bool) -> Result<(), ApiError> {
        if more == 0 {
            return Ok(());
        }
        let n = u32::try_from(more).map_err(|_| ApiError::Unavailable(Unavailable::Memory))?;
        if let Some(owner) = self.owner {
            // the share first: an address at its share takes nothing from the others
            let mut shares = self.budget.shares();
            let held = shares.entry(owner).or_insert(0);
            if *held + more > self.budget.share() && !(first_free && *held == 0) {
                let held = *held;
                if held == 0 {
                    shares.remove(&owner);
                }
                tracing::warn!(
                    wanted = more,
                    held,
                    share = self.budget.share(),
                    "a client address is at its share of the request memory budget; answering 503"
                );
                return Err(ApiError::Unavailable(Unavailable::Memory));
            }
            *held += more;
        }
        match Arc::clone(&self.budget.sem).try_acquire_many_owned(n) {
            Ok(p) => {
                match &mut self.held {
                    Some(h) => h.merge(p),
                    None => self.held = Some(p),
                }
                Ok(())
            }
            Err(TryAcquireError::NoPermits | TryAcquireError::Closed) => {
                self.unshare(more);
                tracing::warn!(
                    wanted = more,
                    available = self.budget.available(),
                    "request memory budget exhausted; answering 503"
                );
                Err(ApiError::Unavailable(Unavailable::Memory))
            }
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.held.as_ref().map_or(0, |h| h.num_permits())
    }

    /// Takes `bytes` out of the owner's share.
    fn unshare(&self, bytes: usize) {
        let Some(owner) = self.owner else { return };
        let mut shares = self.budget.shares();
        if let Some(held) = shares.get_mut(&owner) {
            *held = held.saturating_sub(bytes);
            if *held == 0 {
                shares.remove(&owner);
            }
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.unshare(self.bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_until_the_budget_and_gives_back_on_drop() {
        let b = Budget::new(100);
        let a = b.take(60);
        assert!(a.is_ok());
        assert!(matches!(b.take(41), Err(ApiError::Unavailable(Unavailable::Memory))));
        let mut c = b.take(40).unwrap_or_else(|_| b.none());
        assert_eq!(c.bytes(), 40);
        assert!(c.grow(1).is_err());
        assert_eq!(c.bytes(), 40, "a failed grow keeps what was held");
        drop(a);
        assert!(c.grow(60).is_ok());
        assert_eq!(b.available(), 0);
        assert_eq!(b.held(), 100);
        drop(c);
        assert_eq!(b.available(), 100);
        assert_eq!(b.held(), 0);
    }

    #[test]
    fn no_address_holds_more_than_its_share() {
        let b = Budget::new(800);
        assert_eq!(b.share(), 100);
        let one = AddrKey::of(std::net::IpAddr::from([192, 0, 2, 1]));
        let two = AddrKey::of(std::net::IpAddr::from([192, 0, 2, 2]));
        let mut a = b.none_for(one);
        assert!(a.grow(60).is_ok());
        let mut a2 = b.none_for(one);
        assert!(a2.grow(40).is_ok());
        assert!(matches!(a2.grow(1), Err(ApiError::Unavailable(Unavailable::Memory))));
        assert_eq!(b.held_by(one), 100);
        // another address is served; the budget kept the rest for it
        let mut c = b.none_for(two);
        assert!(c.grow(100).is_ok());
        assert_eq!(b.available(), 600);
        drop(a);
        assert_eq!(b.held_by(one), 40);
        assert!(a2.grow(60).is_ok());
        drop(a2);
        drop(c);
        assert_eq!(b.held_by(one), 0);
        assert_eq!(b.available(), 800);
        assert!(b.shares().is_empty(), "no address left behind");
        // a grow the whole budget refuses gives its share back
        let all = b.take(750);
        let mut d = b.none_for(one);
        assert!(d.grow(60).is_err());
        assert_eq!(b.held_by(one), 0);
        drop(all);
    }

    #[test]
    fn one_response_may_pass_the_share_of_an_address_holding_nothing() {
        let b = Budget::new(800);
        let one = AddrKey::of(std::net::IpAddr::from([192, 0, 2, 1]));
        let big = b.response(one, 300);
        assert!(big.is_ok());
        assert_eq!(b.held_by(one), 300);
        // the next one counts against the share, which the first used up
        assert!(b.response(one, 1).is_err());
        assert!(b.none_for(one).grow(1).is_err());
        drop(big);
        assert!(b.response(one, 100).is_ok());
        // never past the whole budget
        let two = AddrKey::of(std::net::IpAddr::from([192, 0, 2, 2]));
        assert!(b.response(two, 801).is_err());
        assert_eq!(b.held_by(two), 0);
    }
}

//! The memory budget of request bodies (SPEC §3, `serve --max-body-memory`): every
//! body held in memory, and every image being decoded, holds permits of one shared
//! semaphore, one per byte, for as long as it is held. A request that would pass the
//! budget is answered 503 at once (it does not queue: a queue of held bodies is the
//! attack), and the permits return when the bytes are dropped.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::error::{ApiError, Unavailable};

/// The shared budget; cheap to clone.
#[derive(Debug, Clone)]
pub struct Budget {
    sem: Arc<Semaphore>,
    total: usize,
}

/// Bytes held against the budget; they return when this is dropped.
#[derive(Debug)]
pub struct Permit {
    budget: Budget,
    held: Option<OwnedSemaphorePermit>,
}

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> Budget {
        let total = bytes.min(Semaphore::MAX_PERMITS);
        Budget { sem: Arc::new(Semaphore::new(total)), total }
    }

    /// An empty permit, to grow as a body arrives.
    pub fn none(&self) -> Permit {
        Permit { budget: self.clone(), held: None }
    }

    /// Takes `bytes` now, or answers 503 `service_unavailable`.
    pub fn take(&self, bytes: usize) -> Result<Permit, ApiError> {
        let mut p = self.none();
        p.grow(bytes)?;
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
        if more == 0 {
            return Ok(());
        }
        let n = u32::try_from(more).map_err(|_| ApiError::Unavailable(Unavailable::Memory))?;
        match Arc::clone(&self.budget.sem).try_acquire_many_owned(n) {
            Ok(p) => {
                match &mut self.held {
                    Some(h) => h.merge(p),
                    None => self.held = Some(p),
                }
                Ok(())
            }
            Err(TryAcquireError::NoPermits | TryAcquireError::Closed) => {
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
}

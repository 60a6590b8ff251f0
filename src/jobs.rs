//! Work that runs off the request path, per member: the data exports being built (SPEC
//! §10 People), with their progress, at most [`EXPORTS_AT_ONCE`] at a time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Exports built at once; more wait their turn (each holds a reader and a core).
pub const EXPORTS_AT_ONCE: usize = 2;

/// The exports in progress: each member's (files done, files in all).
#[derive(Debug)]
pub struct Exports {
    running: Mutex<HashMap<i64, (usize, usize)>>,
    /// The turns.
    pub slots: Arc<tokio::sync::Semaphore>,
}

impl Default for Exports {
    fn default() -> Self {
        Exports {
            running: Mutex::new(HashMap::new()),
            slots: Arc::new(tokio::sync::Semaphore::new(EXPORTS_AT_ONCE)),
        }
    }
}

impl Exports {
    /// Registers `user`'s export; false when one is running already.
    pub fn start(&self, user: i64) -> bool {
        let mut r = self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if r.contains_key(&user) {
            return false;
        }
        r.insert(user, (0, 1));
        true
    }

    /// Records `user`'s progress.
    pub fn progress(&self, user: i64, done: usize, total: usize) {
        let mut r = self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = r.get_mut(&user) {
            *p = (done, total.max(1));
        }
    }

    /// `user`'s progress in percent, while its export runs.
    pub fn percent(&self, user: i64) -> Option<u8> {
        let r = self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        r.get(&user).map(|(done, total)| u8::try_from(done * 100 / total).unwrap_or(100))
    }

    /// `user`'s export ended (done or failed).
    pub fn finish(&self, user: i64) {
        let mut r = self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        r.remove(&user);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_export_per_member_with_its_progress() {
        let e = Exports::default();
        assert!(e.start(1));
        assert!(!e.start(1), "a second one waits for the first");
        e.progress(1, 3, 12);
        assert_eq!(e.percent(1), Some(25));
        e.finish(1);
        assert_eq!(e.percent(1), None);
        assert!(e.start(1));
    }
}

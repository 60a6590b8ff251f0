//! The live sockets' hub (SPEC §10, `GET /ws/notify`): which user has which open
//! sockets, and the caps on them. A committed write's notifications
//! (`db::notifications::Pushed`) reach each open socket of their recipient here; a
//! socket holds a bounded queue, and a socket that falls that far behind misses pushes
//! (its next one still carries the exact counters).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::db::notifications::Pushed;

/// How many pushes a socket's queue holds.
pub const QUEUE: usize = 32;

/// The open sockets.
#[derive(Debug, Default)]
pub struct Hub {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    next: u64,
    by_user: HashMap<i64, Vec<(u64, mpsc::Sender<Pushed>)>>,
    by_address: HashMap<IpAddr, usize>,
    open: usize,
}

/// Why a socket was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// The server holds its most sockets.
    Server,
    /// The address holds its most sockets.
    Address,
}

/// An open socket's place in the hub: dropping it takes the socket out.
#[derive(Debug)]
pub struct Registration {
    hub: Arc<Hub>,
    user: i64,
    id: u64,
    address: IpAddr,
}

impl Hub {
    /// Registers a socket of `user` from `address`, within the caps; its pushes arrive
    /// on the receiver.
    pub fn register(
        self: &Arc<Self>,
        user: i64,
        address: IpAddr,
        max: usize,
        per_address: usize,
    ) -> Result<(Registration, mpsc::Receiver<Pushed>), Full> {
        let mut g = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if g.open >= max {
            return Err(Full::Server);
        }
        let at_address = g.by_address.get(&address).copied().unwrap_or(0);
        if at_address >= per_address {
            return Err(Full::Address);
        }
        let (tx, rx) = mpsc::channel(QUEUE);
        g.next += 1;
        let id = g.next;
        g.by_user.entry(user).or_default().push((id, tx));
        *g.by_address.entry(address).or_insert(0) += 1;
        g.open += 1;
        crate::telemetry::live_sockets(g.open);
        Ok((Registration { hub: Arc::clone(self), user, id, address }, rx))
    }

    /// Hands committed notifications to their recipients' sockets (never waits: a full
    /// queue drops the push).
    pub fn publish(&self, pushed: Vec<Pushed>) {
        let g = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for p in pushed {
            if let Some(socks) = g.by_user.get(&p.user_id) {
                for (_, tx) in socks {
                    let _ = tx.try_send(p);
                }
            }
        }
    }

    /// How many sockets are open.
    pub fn open(&self) -> usize {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner).open
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut g = self.hub.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(socks) = g.by_user.get_mut(&self.user) {
            socks.retain(|(id, _)| *id != self.id);
            if socks.is_empty() {
                g.by_user.remove(&self.user);
            }
        }
        if let Some(n) = g.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                g.by_address.remove(&self.address);
            }
        }
        g.open -= 1;
        crate::telemetry::live_sockets(g.open);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::notifications::Type;

    #[test]
    #[expect(clippy::panic, reason = "tests fail loudly")]
    fn pushes_reach_their_users_sockets_within_the_caps() {
        let hub = Arc::new(Hub::default());
        let ip: IpAddr = [127, 0, 0, 1].into();
        let (a, mut ra) = hub.register(1, ip, 3, 2).unwrap_or_else(|_| panic!("room"));
        let (_b, mut rb) = hub.register(2, ip, 3, 2).unwrap_or_else(|_| panic!("room"));
        assert_eq!(hub.register(3, ip, 3, 2).err(), Some(Full::Address));
        let other: IpAddr = [10, 0, 0, 1].into();
        let (_c, _) = hub.register(3, other, 3, 2).unwrap_or_else(|_| panic!("room"));
        assert_eq!(hub.register(4, other, 3, 2).err(), Some(Full::Server));
        hub.publish(vec![Pushed { user_id: 1, kind: Type::Comment, id: 7, group_message: false }]);
        assert_eq!(ra.try_recv().map(|p| p.id).ok(), Some(7));
        assert!(rb.try_recv().is_err(), "only the recipient's sockets");
        drop(a);
        assert_eq!(hub.open(), 2);
    }
}

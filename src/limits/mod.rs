//! In-memory limits that every request shares and [`crate::state::AppState`] holds:
//! the memory budget of request bodies, the brute-force limit on password checks and
//! the per-user write quota.
//! Below `state`, so that the HTTP layer and the handlers both reach them through it.

pub mod budget;
pub mod login;
pub mod writes;

use std::net::{IpAddr, Ipv6Addr};

/// What a per-address limit counts a client as (connections per address, the login
/// limiter, the body budget's share): an IPv4 address (an IPv4-mapped IPv6 one as
/// that address), or an IPv6 address's network of
/// [`crate::config::IPV6_LIMIT_PREFIX`] bits. The only way to make one, so no limit
/// can key by a bare IPv6 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AddrKey(IpAddr);

impl AddrKey {
    /// The key of a client address.
    pub fn of(ip: IpAddr) -> Self {
        match crate::config::canonical(ip) {
            IpAddr::V6(v6) => {
                let bits = u32::from(crate::config::IPV6_LIMIT_PREFIX).min(128);
                let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
                AddrKey(IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask)))
            }
            v4 => AddrKey(v4),
        }
    }

    /// The address (for IPv6, the network's first address).
    pub fn ip(self) -> IpAddr {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> AddrKey {
        AddrKey::of(s.parse().unwrap_or(IpAddr::from([0, 0, 0, 0])))
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_slash_64() {
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_eq!(key("2001:db8:1:2::7").ip(), key("2001:db8:1:2::").ip());
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        // IPv4 is counted per address, mapped or not
        assert_eq!(key("::ffff:192.0.2.1"), key("192.0.2.1"));
        assert_ne!(key("192.0.2.1"), key("192.0.2.2"));
    }
}

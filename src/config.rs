//! Configuration of `serve`, validated once.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use ipnet::IpNet;

use crate::model::PublicUrl;

/// Access token lifetime (SPEC §6).
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(36_000);
/// Most live sockets (`/ws/notify`) open at once.
pub const DEFAULT_MAX_SOCKETS: usize = 10_000;
/// Most live sockets one client address holds.
pub const DEFAULT_MAX_SOCKETS_PER_ADDRESS: usize = 16;
/// How often an open live socket checks that its token still holds (revoked,
/// expired, user deleted: closed).
pub const SOCKET_RECHECK: std::time::Duration = std::time::Duration::from_secs(30);
/// Maximum open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Maximum open connections from one client address.
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 64;
/// Time allowed for the request headers to arrive.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed for a request body to arrive, from the end of its headers.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Least average rate, in bytes a second, at which a request body must keep arriving
/// once [`MIN_BODY_RATE_GRACE`] has passed (`serve --min-body-rate`; 0: none): a body
/// holds its declared length of the memory budget from its headers on, so one that
/// stalls is cut off in about a second rather than at the body timeout.
pub const DEFAULT_MIN_BODY_RATE: u64 = 8 * 1024;
/// How long a body may take to start arriving before [`DEFAULT_MIN_BODY_RATE`] counts.
pub const MIN_BODY_RATE_GRACE: Duration = Duration::from_secs(1);
/// Most bytes a connection may buffer while it reads a request's headers (hyper's
/// `max_buf_size`; its default, ~400 KB, let 1,000 connections that each sent a 400 KB
/// partial header take 400 MB: issue 27, Medium 6). A request whose headers do not fit
/// is answered 431 and its connection closed. The largest header a client needs is a
/// JWT (8 KiB, SPEC §6) and browsers' cookies (a few KiB); nginx allows 32 KiB in all.
/// With --max-connections, this bounds what headers can hold: 1024 × 64 KiB = 64 MiB.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// Idle keep-alive connections close after this.
pub const KEEP_ALIVE_IDLE: Duration = Duration::from_secs(75);
/// How long the server must have answered nothing before it gives memory back.
pub const RELEASE_MEMORY_AFTER: Duration = Duration::from_secs(2);
/// Grace given to in-flight requests on SIGTERM.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);
/// Request bodies (and decoded images) held in memory at once, across all requests.
pub const DEFAULT_MAX_BODY_MEMORY: usize = 256 * 1024 * 1024;
/// How much of an IPv6 client address a per-address limit counts (connections, the
/// login limiter, the body budget's share): a subscriber is usually given a whole /64
/// (RFC 6177, RIPE-690), so counting single addresses would give one client 2^64 of
/// each limit.
pub const IPV6_LIMIT_PREFIX: u8 = 64;
/// No client address holds more than 1/this of the request body budget
/// (`--max-body-memory`) at once: more is 503 for that address only.
pub const BODY_SHARE_PER_ADDRESS: usize = 8;
/// Most parameters a query string or a form may carry (400 beyond): every handler reads
/// a handful, and checks on them (repeats, lists) stay small whatever a client sends.
pub const MAX_PARAMS: usize = 256;
/// Writes a second one user may make through the API (`serve --user-write-rate`; 0: no
/// limit): one user made 12,168 posts in 10 s before there was one (issue 27, Medium
/// 8). Staff are exempt.
pub const DEFAULT_USER_WRITE_RATE: u32 = 10;
/// Writes one user may make at once after a quiet spell (`serve --user-write-burst`):
/// what a person does in a hurry (three seconds at the rate) passes.
pub const DEFAULT_USER_WRITE_BURST: u32 = 30;
/// Bytes of request bodies one user's writes may carry per UTC day
/// (`serve --user-daily-bytes`; 0: no budget): 1 MiB posts on two connections grew the
/// file by 133 MB in 6 s before there was one. Staff are exempt.
pub const DEFAULT_USER_DAILY_BYTES: u64 = 50 * 1024 * 1024;

/// Mails one client address, and one mail address, may cause an hour
/// (`serve --mail-rate`): sign-up, recovery and address changes each send one, and a
/// relay's reputation is the community's.
pub const DEFAULT_MAIL_RATE: u32 = 10;
/// Most users the write quota tracks at once ([`crate::limits::writes`]): about 5 MB.
pub const WRITE_QUOTA_USERS: usize = 100_000;
/// Most parameters of an OAuth form (token, revocation, authorization, login): RFC
/// 6749's requests carry fewer than 15 (400 `invalid_request` beyond).
pub const MAX_OAUTH_PARAMS: usize = 64;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Base of every absolute URL in responses.
    pub public_url: PublicUrl,
    /// Access token lifetime.
    pub token_ttl: Duration,
    /// Connection cap.
    pub max_connections: usize,
    /// Connection cap per client address (TCP peers that are trusted proxies are exempt).
    pub max_connections_per_address: usize,
    /// Header read timeout.
    pub header_read_timeout: Duration,
    /// Body read timeout, from the end of the headers.
    pub body_timeout: Duration,
    /// Least body rate in bytes a second after [`MIN_BODY_RATE_GRACE`] (0: none).
    pub min_body_rate: u64,
    /// Keep-alive idle timeout.
    pub keep_alive_idle: Duration,
    /// Shutdown grace.
    pub shutdown_timeout: Duration,
    /// Bytes of request bodies and decoded images held at once, across all requests.
    pub max_body_memory: usize,
    /// Peers whose `X-Forwarded-For` is believed (empty: none).
    pub trusted_proxies: Vec<IpNet>,
    /// Failed password checks allowed per window, per username and per address.
    pub login_max_failures: u32,
    /// The window of that limit.
    pub login_window: Duration,
    /// The web origins whose pages may call hearth from a browser (SPEC §7, CORS).
    pub cors_origins: CorsOrigins,
    /// Quiet time after a load before caches are emptied and memory given back (zero:
    /// never; `server::memory`).
    pub release_memory_after: Duration,
    /// Writes a second per user (0: no limit; staff exempt).
    pub user_write_rate: u32,
    /// Writes a user may make at once.
    pub user_write_burst: u32,
    /// Bytes of write bodies per user per UTC day (0: no budget; staff exempt).
    pub user_daily_bytes: u64,
    /// Most live sockets open at once.
    pub max_sockets: usize,
    /// Most live sockets per client address (trusted proxies: per forwarded client).
    pub max_sockets_per_address: usize,
    /// How often a live socket checks its token again.
    pub socket_recheck: Duration,
    /// The SMTP relay (None: no mail, so no sign-up or recovery).
    pub smtp_url: Option<crate::mail::RelayUrl>,
    /// The From of hearth's mail (None: `hearth <noreply@HOST>`).
    pub mail_from: Option<String>,
    /// Mails per client address and per mail address an hour.
    pub mail_rate: u32,
    /// The community's control panel, which the kit links staff to
    /// (`GET /api/v2/user/me/platform_url/`; None: hearth has none, 404).
    pub platform_url: Option<String>,
}

impl Config {
    /// Defaults for a server listening on `addr`, its public URL derived from it.
    pub fn for_addr(addr: SocketAddr) -> Self {
        Config {
            public_url: public_url_for(addr),
            token_ttl: DEFAULT_TOKEN_TTL,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            header_read_timeout: HEADER_READ_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            min_body_rate: DEFAULT_MIN_BODY_RATE,
            keep_alive_idle: KEEP_ALIVE_IDLE,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            max_body_memory: DEFAULT_MAX_BODY_MEMORY,
            trusted_proxies: Vec::new(),
            login_max_failures: 10,
            login_window: Duration::from_secs(300),
            cors_origins: CorsOrigins::None,
            release_memory_after: RELEASE_MEMORY_AFTER,
            user_write_rate: DEFAULT_USER_WRITE_RATE,
            user_write_burst: DEFAULT_USER_WRITE_BURST,
            user_daily_bytes: DEFAULT_USER_DAILY_BYTES,
            max_sockets: DEFAULT_MAX_SOCKETS,
            max_sockets_per_address: DEFAULT_MAX_SOCKETS_PER_ADDRESS,
            socket_recheck: SOCKET_RECHECK,
            smtp_url: None,
            mail_from: None,
            mail_rate: DEFAULT_MAIL_RATE,
            platform_url: None,
        }
    }

    /// Whether `ip` is a trusted proxy.
    pub fn is_trusted_proxy(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.trusted_proxies.iter().any(|n| n.contains(&ip))
    }

    /// The client address of a request from TCP peer `peer` with these
    /// `X-Forwarded-For` header values (SPEC §4): the peer, unless it is a trusted
    /// proxy; then the header is read from the right, skipping trusted addresses, and
    /// the first untrusted address is the client. The leftmost entries are whatever the
    /// client wrote, so they are never believed while an untrusted hop stands to their
    /// right. A malformed entry stops the walk at the last trusted hop seen.
    pub fn client_addr<'a>(
        &self,
        peer: IpAddr,
        forwarded: impl Iterator<Item = &'a str>,
    ) -> IpAddr {
        let peer = canonical(peer);
        if !self.is_trusted_proxy(peer) {
            return peer;
        }
        let hops: Vec<&str> = forwarded.flat_map(|v| v.split(',')).collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            match parse_hop(hop) {
                Some(ip) => {
                    client = ip;
                    if !self.is_trusted_proxy(ip) {
                        return ip;
                    }
                }
                None => return client,
            }
        }
        client
    }

    /// The From of hearth's mail: `--mail-from`, else `hearth <noreply@HOST>`.
    pub fn mail_from(&self) -> String {
        self.mail_from.clone().unwrap_or_else(|| {
            let host = self.public_url.0.split("://").nth(1).unwrap_or("localhost");
            let host = host.split(['/', ':']).next().unwrap_or("localhost");
            format!("hearth <noreply@{host}>")
        })
    }

    /// Whether cookies must be `Secure` (the public URL is https).
    pub fn https(&self) -> bool {
        self.public_url.0.starts_with("https://")
    }
}

/// The web origins whose pages may call hearth from a browser (`serve --cors-origin`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// Same-origin only (the default).
    #[default]
    None,
    /// Every origin (`*`).
    Any,
    /// These origins, each `scheme://host[:port]` as a browser sends it in `Origin`.
    List(Vec<String>),
}

impl CorsOrigins {
    /// The origins of `--cors-origin` values (empty entries, as a blank
    /// `HEARTH_CORS_ORIGINS=` gives, are skipped; `*` anywhere allows every origin).
    pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut list: Vec<String> = Vec::new();
        let mut any = false;
        for v in values {
            let v = v.trim();
            if v.is_empty() {
                continue;
            }
            if v == "*" {
                any = true;
                continue;
            }
            let origin = parse_cors_origin(v)?;
            if !list.contains(&origin) {
                list.push(origin);
            }
        }
        Ok(if any {
            CorsOrigins::Any
        } else if list.is_empty() {
            CorsOrigins::None
        } else {
            CorsOrigins::List(list)
        })
    }

    /// Whether any origin is configured (then every CORS response varies by `Origin`).
    pub fn is_configured(&self) -> bool {
        !matches!(self, CorsOrigins::None)
    }

    /// Whether a request's `Origin` header value is allowed. The comparison is exact:
    /// browsers send the scheme and host in lower case without a default port, which is
    /// how [`parse_cors_origin`] stores them, so `HTTPS://APP.EXAMPLE.ORG` (which no
    /// browser sends) or any prefix or extension of an allowed origin is refused.
    pub fn allows(&self, origin: &[u8]) -> bool {
        match self {
            CorsOrigins::None => false,
            CorsOrigins::Any => true,
            CorsOrigins::List(list) => list.iter().any(|o| o.as_bytes() == origin),
        }
    }
}

/// Validates one `--cors-origin`: `scheme://host[:port]` with no path, query, fragment
/// or user info. Returns it as a browser serialises it in `Origin`: scheme and host in
/// lower case, the default port (80 for http, 443 for https) dropped.
pub fn parse_cors_origin(s: &str) -> Result<String, String> {
    let bad = |why: &str| {
        format!(
            "CORS origin {s:?} {why}; an origin is scheme://host[:port], e.g. https://app.example.org"
        )
    };
    let (scheme, rest) = s.split_once("://").ok_or_else(|| bad("has no scheme://"))?;
    let scheme = scheme.to_ascii_lowercase();
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && scheme
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+.-".contains(c));
    if !scheme_ok {
        return Err(bad("has an invalid scheme"));
    }
    if rest.contains('/') {
        return Err(bad("has a path (drop everything from the first / after the host)"));
    }
    if rest.contains(['?', '#']) {
        return Err(bad("has a query or fragment"));
    }
    if rest.contains('@') {
        return Err(bad("has user info"));
    }
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (addr, after) =
            v6.split_once(']').ok_or_else(|| bad("has an unclosed [IPv6 address"))?;
        addr.parse::<std::net::Ipv6Addr>().map_err(|_| bad("has an invalid IPv6 address"))?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or_else(|| bad("has junk after the host"))?),
        };
        (format!("[{}]", addr.to_ascii_lowercase()), port)
    } else {
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        };
        let host_ok = !host.is_empty()
            && !host.starts_with(['.', '-'])
            && !host.ends_with('.')
            && !host.contains("..")
            && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_');
        if !host_ok {
            return Err(bad(
                "has an invalid host (ASCII letters, digits, '.', '-'; internationalised names in their xn-- form)",
            ));
        }
        (host.to_ascii_lowercase(), port)
    };
    let port = match port {
        None => None,
        Some(p) => {
            let n = p
                .parse::<u16>()
                .ok()
                .filter(|n| *n > 0 && p.chars().all(|c| c.is_ascii_digit()))
                .ok_or_else(|| bad("has an invalid port (1 to 65535)"))?;
            let default = matches!((scheme.as_str(), n), ("http", 80) | ("https", 443));
            (!default).then_some(n)
        }
    };
    Ok(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

/// IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) as the IPv4 address they carry.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// One `X-Forwarded-For` entry: an address, possibly with a port (`1.2.3.4:5`,
/// `[::1]:5`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    hop.parse::<SocketAddr>().ok().map(|s| canonical(s.ip()))
}

/// Parses a `--trusted-proxy` value: a CIDR range or a single address.
pub fn parse_trusted_proxy(s: &str) -> Result<IpNet, String> {
    s.parse::<IpNet>().or_else(|_| s.parse::<IpAddr>().map(IpNet::from)).map(|n| n.trunc()).map_err(
        |_| format!("trusted proxy {s:?} is not an address or a CIDR range (e.g. 10.0.0.0/8)"),
    )
}

/// The loopback ranges that `--trust-proxy` alone means.
pub fn loopback_proxies() -> Vec<IpNet> {
    ["127.0.0.0/8", "::1/128"].iter().filter_map(|s| s.parse().ok()).collect()
}

/// `http://ADDR` for a listen address (an unspecified address becomes 127.0.0.1).
pub fn public_url_for(addr: SocketAddr) -> PublicUrl {
    let host =
        if addr.ip().is_unspecified() { std::net::IpAddr::from([127, 0, 0, 1]) } else { addr.ip() };
    PublicUrl(format!("http://{}", SocketAddr::new(host, addr.port())))
}

/// Parses a size in bytes: a whole number, optionally followed by `KiB`, `MiB`, `GiB`
/// or `TiB` (or `K`, `M`, `G`, `T`; powers of 1024), e.g. `50MiB`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => return Err(format!("size {s:?}: the unit must be KiB, MiB, GiB or TiB")),
    };
    n.parse::<u64>().ok().and_then(|n| n.checked_mul(1u64 << shift)).ok_or_else(|| {
        format!("size {s:?} is not a whole number of bytes (e.g. 52428800 or 50MiB)")
    })
}

/// Validates a `--public-url`: an absolute http(s) URL; a trailing slash is dropped.
pub fn parse_public_url(s: &str) -> Result<PublicUrl, String> {
    let t = s.trim_end_matches('/');
    let rest = t
        .strip_prefix("http://")
        .or_else(|| t.strip_prefix("https://"))
        .ok_or_else(|| format!("public URL {s:?} must start with http:// or https://"))?;
    if rest.is_empty() || rest.contains(['?', '#', ' ']) {
        return Err(format!(
            "public URL {s:?} must be scheme://host[:port][/path] with no query or fragment"
        ));
    }
    Ok(PublicUrl(t.to_owned()))
}

/// Validates a `--platform-url`: an absolute http(s) URL with a host, without spaces,
/// control characters or a fragment (a query is kept: `next` is added to it).
pub fn parse_platform_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .ok_or_else(|| format!("platform URL {s:?} must start with http:// or https://"))?;
    let host = rest.split(['/', '?']).next().unwrap_or("");
    if host.is_empty() || s.contains('#') || s.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "platform URL {s:?} must be scheme://host[:port][/path][?query], without spaces or a fragment"
        ));
    }
    Ok(s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_urls() {
        let ok = "https://admin.example.org/panel?site=1";
        assert_eq!(parse_platform_url(ok).as_deref(), Ok(ok));
        for bad in [
            "admin.example.org",
            "https://",
            "https:///x",
            "http://a b",
            "https://a/#x",
            "javascript:x",
        ] {
            assert!(parse_platform_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn public_urls() {
        assert_eq!(parse_public_url("https://x.org/").map(|u| u.0), Ok("https://x.org".into()));
        assert!(parse_public_url("x.org").is_err());
        assert!(parse_public_url("http://x.org/?a").is_err());
        let addr: SocketAddr =
            "0.0.0.0:8080".parse().unwrap_or_else(|_| SocketAddr::from(([0; 4], 0)));
        assert_eq!(public_url_for(addr).0, "http://127.0.0.1:8080");
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    fn with_proxies(nets: &[&str]) -> Config {
        let mut c = Config::for_addr(SocketAddr::from(([127, 0, 0, 1], 8080)));
        c.trusted_proxies = nets.iter().filter_map(|n| parse_trusted_proxy(n).ok()).collect();
        c
    }

    #[test]
    fn forwarded_for_is_read_from_the_right() {
        let c = with_proxies(&["127.0.0.0/8", "10.0.0.0/8"]);
        let client = |peer: &str, xff: &[&str]| c.client_addr(ip(peer), xff.iter().copied());
        // an untrusted peer is the client whatever it writes
        assert_eq!(client("203.0.113.9", &["1.1.1.1"]), ip("203.0.113.9"));
        // the client's own entries on the left are never believed
        assert_eq!(client("127.0.0.1", &["6.6.6.6, 198.51.100.7"]), ip("198.51.100.7"));
        // trusted hops are skipped, across several headers
        assert_eq!(client("127.0.0.1", &["6.6.6.6, 198.51.100.7", "10.1.2.3"]), ip("198.51.100.7"));
        // no header: the proxy itself
        assert_eq!(client("127.0.0.1", &[]), ip("127.0.0.1"));
        // every hop trusted: the leftmost trusted one
        assert_eq!(client("127.0.0.1", &["10.0.0.5"]), ip("10.0.0.5"));
        // garbage stops the walk at the last trusted hop
        assert_eq!(client("127.0.0.1", &["198.51.100.7, junk"]), ip("127.0.0.1"));
        // ports and mapped addresses
        assert_eq!(client("::ffff:127.0.0.1", &["[2001:db8::1]:443"]), ip("2001:db8::1"));
        assert_eq!(client("127.0.0.1", &["198.51.100.7:1234"]), ip("198.51.100.7"));
    }

    #[test]
    fn cors_origins_are_validated_and_stored_as_browsers_send_them() {
        let ok = |s: &str| parse_cors_origin(s);
        for (given, stored) in [
            ("https://app.example.org", "https://app.example.org"),
            ("HTTPS://App.Example.ORG", "https://app.example.org"),
            ("https://app.example.org:443", "https://app.example.org"),
            ("http://localhost:80", "http://localhost"),
            ("http://127.0.0.1:5173", "http://127.0.0.1:5173"),
            ("http://[::1]:3000", "http://[::1]:3000"),
            ("https://app.example.org:8443", "https://app.example.org:8443"),
            ("capacitor://localhost", "capacitor://localhost"),
        ] {
            assert_eq!(ok(given).as_deref(), Ok(stored), "{given}");
        }
        for bad in [
            "null",
            "app.example.org",
            "https://app.example.org/",
            "https://app.example.org/path",
            "https://app.example.org?x",
            "https://app.example.org#x",
            "https://user@app.example.org",
            "https://",
            "https://:8080",
            "https://app.example.org:0",
            "https://app.example.org:65536",
            "https://app.example.org:+80",
            "https://app..example.org",
            "https://app.example.org.",
            "https://exa mple.org",
            "https://bücher.example",
            "http://[::1",
            "http://[nope]:80",
            "1http://x.org",
            "://x.org",
        ] {
            let err = ok(bad).err().unwrap_or_default();
            assert!(err.contains("scheme://host[:port]"), "{bad}: {err:?}");
        }
    }

    #[test]
    fn cors_origin_lists() {
        let parsed =
            CorsOrigins::parse(["https://a.org", " ", "https://a.org:443", "http://b.org:8080"]);
        assert_eq!(
            parsed,
            Ok(CorsOrigins::List(vec!["https://a.org".into(), "http://b.org:8080".into()]))
        );
        assert_eq!(CorsOrigins::parse(["", " "]), Ok(CorsOrigins::None));
        assert_eq!(CorsOrigins::parse(["https://a.org", "*"]), Ok(CorsOrigins::Any));
        assert!(CorsOrigins::parse(["https://a.org", "https://a.org/"]).is_err());
        let list = CorsOrigins::parse(["https://a.org"]).unwrap_or_default();
        assert!(list.allows(b"https://a.org"));
        for origin in [
            "https://a.org.evil.net",
            "https://a.or",
            "https://A.org",
            "http://a.org",
            "https://a.org:443",
            "null",
            "",
        ] {
            assert!(!list.allows(origin.as_bytes()), "{origin}");
        }
        assert!(CorsOrigins::Any.allows(b"null"));
        assert!(!CorsOrigins::None.allows(b"https://a.org"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("1234"), Ok(1234));
        assert_eq!(parse_size("50MiB"), Ok(50 << 20));
        assert_eq!(parse_size("50 mib"), Ok(50 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1TiB"), Ok(1 << 40));
        for bad in ["", "MiB", "-1", "1.5MiB", "5 PB", "99999999999999999999", "16777216TiB"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn no_trusted_proxy_means_the_peer() {
        let c = with_proxies(&[]);
        assert_eq!(c.client_addr(ip("127.0.0.1"), ["1.2.3.4"].into_iter()), ip("127.0.0.1"));
        assert!(parse_trusted_proxy("10.0.0.0/33").is_err());
        assert!(parse_trusted_proxy("nope").is_err());
        assert_eq!(
            parse_trusted_proxy("10.1.2.3").map(|n| n.to_string()),
            Ok("10.1.2.3/32".into())
        );
    }
}

//! Configuration of `serve`, validated once.

use std::net::SocketAddr;
use std::time::Duration;

use crate::model::PublicUrl;

/// Access token lifetime (SPEC §6).
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(36_000);
/// Maximum open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Time allowed for the request headers to arrive.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Idle keep-alive connections close after this.
pub const KEEP_ALIVE_IDLE: Duration = Duration::from_secs(75);
/// Grace given to in-flight requests on SIGTERM.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Base of every absolute URL in responses.
    pub public_url: PublicUrl,
    /// Access token lifetime.
    pub token_ttl: Duration,
    /// Connection cap.
    pub max_connections: usize,
    /// Header read timeout.
    pub header_read_timeout: Duration,
    /// Keep-alive idle timeout.
    pub keep_alive_idle: Duration,
    /// Shutdown grace.
    pub shutdown_timeout: Duration,
    /// Take the client address from the first `X-Forwarded-For` hop.
    pub trust_proxy: bool,
    /// Failed password checks allowed per window, per username and per address.
    pub login_max_failures: u32,
    /// The window of that limit.
    pub login_window: Duration,
}

impl Config {
    /// Defaults for a server listening on `addr`, its public URL derived from it.
    pub fn for_addr(addr: SocketAddr) -> Self {
        Config {
            public_url: public_url_for(addr),
            token_ttl: DEFAULT_TOKEN_TTL,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_read_timeout: HEADER_READ_TIMEOUT,
            keep_alive_idle: KEEP_ALIVE_IDLE,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            trust_proxy: false,
            login_max_failures: 10,
            login_window: Duration::from_secs(300),
        }
    }

    /// Whether cookies must be `Secure` (the public URL is https).
    pub fn https(&self) -> bool {
        self.public_url.0.starts_with("https://")
    }
}

/// `http://ADDR` for a listen address (an unspecified address becomes 127.0.0.1).
pub fn public_url_for(addr: SocketAddr) -> PublicUrl {
    let host = if addr.ip().is_unspecified() {
        std::net::IpAddr::from([127, 0, 0, 1])
    } else {
        addr.ip()
    };
    PublicUrl(format!("http://{}", SocketAddr::new(host, addr.port())))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls() {
        assert_eq!(
            parse_public_url("https://x.org/").map(|u| u.0),
            Ok("https://x.org".into())
        );
        assert!(parse_public_url("x.org").is_err());
        assert!(parse_public_url("http://x.org/?a").is_err());
        let addr: SocketAddr = "0.0.0.0:8080"
            .parse()
            .unwrap_or_else(|_| SocketAddr::from(([0; 4], 0)));
        assert_eq!(public_url_for(addr).0, "http://127.0.0.1:8080");
    }
}

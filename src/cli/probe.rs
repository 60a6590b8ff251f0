//! `hearth probe [--url URL]`: is a running hearth ready? (SPEC §7)
//!
//! GETs `/readyz` with hyper's HTTP/1.1 client and exits 0 on 200, 1 on anything else —
//! another status, a refused connection, a name that does not resolve, or no complete
//! answer within the time limit (5 s), including from a server that accepts the
//! connection and never answers. The container's `HEALTHCHECK` runs it, so the image
//! needs no curl.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use clap::Args;
use http_body_util::Empty;
use hyper_util::rt::TokioIo;
use url::{Host, Url};

use super::{CliError, CliResult};

/// The time limit SPEC §7 gives the probe.
pub const TIMEOUT_MS: u64 = 5_000;

/// Options of `probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The server's base URL (http only; `/readyz` is appended unless the path already
    /// ends with it). Default: the address `serve` would listen on.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The address `serve` listens on (as `serve --listen`); an unspecified address
    /// (0.0.0.0, [::]) is probed on loopback.
    #[arg(long, env = "HEARTH_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Milliseconds the whole probe may take (tests shorten it).
    #[arg(long, hide = true, default_value_t = TIMEOUT_MS, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub timeout_ms: u64,
}

/// Runs the probe: `Ok` only when `/readyz` answered 200.
pub fn run(args: &ProbeArgs) -> CliResult {
    let url = target(args)?;
    let limit = Duration::from_millis(args.timeout_ms);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let status = runtime.block_on(async {
        match tokio::time::timeout(limit, get_status(&url)).await {
            Ok(r) => r,
            Err(_) => Err(CliError(format!("{url}: no answer within {}", show_duration(limit)))),
        }
    });
    // the connection task of a server that never answers is dropped here, not awaited
    runtime.shutdown_background();
    let status = status?;
    if status == hyper::StatusCode::OK {
        println!("ready: {url} answered {status}");
        Ok(())
    } else {
        Err(CliError(format!("not ready: {url} answered {status}")))
    }
}

/// The URL to GET: `--url` with `/readyz`, else the listen address's.
fn target(args: &ProbeArgs) -> CliResult<Url> {
    match &args.url {
        Some(u) => readyz_url(u),
        None => {
            let addr = loopback_for(super::serve::resolve_listen(&args.listen)?);
            readyz_url(&format!("http://{addr}"))
        }
    }
}

/// An unspecified listen address (every interface) is reached on loopback.
fn loopback_for(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port())
        }
        _ => addr,
    }
}

/// Parses a base URL and points it at `/readyz`.
fn readyz_url(base: &str) -> CliResult<Url> {
    let mut url =
        Url::parse(base).map_err(|e| CliError(format!("--url {base:?} is not a URL: {e}")))?;
    if url.scheme() != "http" {
        return Err(CliError(format!(
            "--url {base:?}: probe speaks plain http to hearth's own listener (not to a TLS proxy in front of it)"
        )));
    }
    if url.host().is_none() {
        return Err(CliError(format!("--url {base:?} has no host")));
    }
    let path = url.path().trim_end_matches('/').to_owned();
    if !path.ends_with("/readyz") {
        url.set_path(&format!("{path}/readyz"));
    }
    url.set_fragment(None);
    Ok(url)
}

/// Connects, sends one GET and returns the status of the answer.
async fn get_status(url: &Url) -> CliResult<hyper::StatusCode> {
    let addrs = addresses(url).await?;
    let stream = connect(url, &addrs).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| CliError(format!("{url}: {e}")))?;
    tokio::spawn(conn);
    let authority = match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    let path_and_query = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let request = hyper::Request::get(path_and_query)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::USER_AGENT, concat!("hearth-probe/", env!("CARGO_PKG_VERSION")))
        .body(Empty::<Bytes>::new())
        .map_err(|e| CliError(format!("{url}: {e}")))?;
    let response =
        sender.send_request(request).await.map_err(|e| CliError(format!("{url}: {e}")))?;
    Ok(response.status())
}

/// The socket addresses of the URL's host (a name is resolved).
async fn addresses(url: &Url) -> CliResult<Vec<SocketAddr>> {
    let port = url.port_or_known_default().unwrap_or(80);
    match url.host() {
        Some(Host::Ipv4(ip)) => Ok(vec![SocketAddr::new(IpAddr::V4(ip), port)]),
        Some(Host::Ipv6(ip)) => Ok(vec![SocketAddr::new(IpAddr::V6(ip), port)]),
        Some(Host::Domain(name)) => {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name, port))
                .await
                .map_err(|e| CliError(format!("{url}: cannot resolve {name}: {e}")))?
                .collect();
            if found.is_empty() {
                return Err(CliError(format!("{url}: {name} resolves to no address")));
            }
            Ok(found)
        }
        None => Err(CliError(format!("{url} has no host"))),
    }
}

/// Connects to the first address that accepts.
async fn connect(url: &Url, addrs: &[SocketAddr]) -> CliResult<tokio::net::TcpStream> {
    let mut last = None;
    for addr in addrs {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(s) => return Ok(s),
            Err(e) => last = Some((addr, e)),
        }
    }
    Err(match last {
        Some((addr, e)) => CliError(format!("{url}: cannot connect to {addr}: {e}")),
        None => CliError(format!("{url}: no address to connect to")),
    })
}

/// `5 s`, `300 ms`.
fn show_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn parsed(args: &[&str]) -> ProbeArgs {
        let all = ["hearth", "probe"].iter().chain(args);
        match Cli::try_parse_from(all).map(|c| c.command) {
            Ok(Command::Probe(p)) => p,
            other => unreachable!("not a probe: {other:?}"),
        }
    }

    fn url_of(args: &[&str]) -> String {
        target(&parsed(args)).map(String::from).unwrap_or_else(|e| e.0)
    }

    #[test]
    fn the_time_limit_is_five_seconds() {
        assert_eq!(parsed(&[]).timeout_ms, 5_000);
        assert_eq!(show_duration(Duration::from_millis(5_000)), "5 s");
        assert_eq!(show_duration(Duration::from_millis(300)), "300 ms");
    }

    #[test]
    fn the_target_is_readyz_on_the_listen_address_or_the_url() {
        let cases: &[(&[&str], &str)] = &[
            (&["--listen", "127.0.0.1:8080"], "http://127.0.0.1:8080/readyz"),
            (&["--listen", "0.0.0.0:9000"], "http://127.0.0.1:9000/readyz"),
            (&["--listen", "[::]:9000"], "http://[::1]:9000/readyz"),
            (&["--url", "http://10.0.0.5:8080"], "http://10.0.0.5:8080/readyz"),
            (&["--url", "http://h.example/hearth/"], "http://h.example/hearth/readyz"),
            (&["--url", "http://h.example:81/readyz"], "http://h.example:81/readyz"),
            // --url wins over the listen address
            (&["--listen", "0.0.0.0:1", "--url", "http://[::1]:2/"], "http://[::1]:2/readyz"),
        ];
        for (args, want) in cases {
            assert_eq!(url_of(args), *want, "{args:?}");
        }
    }

    #[test]
    fn bad_urls_are_refused_with_a_reason() {
        assert!(url_of(&["--url", "https://h.example"]).contains("plain http"));
        assert!(url_of(&["--url", "h.example:80"]).contains("plain http"));
        assert!(url_of(&["--url", "not a url"]).contains("is not a URL"));
        assert!(url_of(&["--listen", "nonsense"]).contains("host:port"));
    }
}

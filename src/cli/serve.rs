//! `hearth serve`.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use clap::Args;

use super::{CliError, CliResult};
use crate::clock::Clock;
use crate::config::{self, Config};
use crate::db::Db;
use crate::logs::LogFormat;
use crate::state::AppState;

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on: `host:port`, `[v6]:port` or a host name such as
    /// `localhost:8080` (resolved at start; the first address it resolves to is used).
    #[arg(long, env = "HEARTH_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Public base URL for absolute links (default: http://<listen address>).
    #[arg(long, env = "HEARTH_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Access token lifetime in seconds.
    #[arg(long, env = "HEARTH_TOKEN_TTL", default_value_t = config::DEFAULT_TOKEN_TTL.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub token_ttl: u64,
    /// Maximum open connections; one over the cap is closed at once.
    #[arg(long, env = "HEARTH_MAX_CONNECTIONS", default_value_t = config::DEFAULT_MAX_CONNECTIONS as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Maximum open connections from one client address (trusted proxies are exempt).
    #[arg(long, env = "HEARTH_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = config::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections_per_address: u64,
    /// Seconds a request's headers may take to arrive (from the connection, or from the
    /// request's first byte).
    #[arg(long, env = "HEARTH_HEADER_TIMEOUT", default_value_t = config::HEADER_READ_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds a request body may take to arrive after its headers (else 408, and the
    /// connection is closed).
    #[arg(long, env = "HEARTH_BODY_TIMEOUT", default_value_t = config::BODY_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout: u64,
    /// Bytes a second a request body must average once it has had a second to start
    /// (else 408, and the connection is closed; 0: no minimum). A body holds its
    /// declared length of --max-body-memory from its headers on: this frees what a
    /// stalled one holds in about a second.
    #[arg(long, env = "HEARTH_MIN_BODY_RATE", default_value_t = config::DEFAULT_MIN_BODY_RATE, value_parser = clap::value_parser!(u64).range(0..=1_073_741_824))]
    pub min_body_rate: u64,
    /// Seconds an idle keep-alive connection is kept open waiting for its next request.
    #[arg(long, env = "HEARTH_IDLE_TIMEOUT", default_value_t = config::KEEP_ALIVE_IDLE.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout: u64,
    /// Seconds in-flight requests get to finish on SIGINT/SIGTERM.
    #[arg(long, env = "HEARTH_SHUTDOWN_TIMEOUT", default_value_t = config::DEFAULT_SHUTDOWN_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub shutdown_timeout: u64,
    /// MiB of request bodies (and decoded images) held in memory at once, across all
    /// requests; a request that would pass it is answered 503.
    #[arg(long, env = "HEARTH_MAX_BODY_MEMORY", default_value_t = (config::DEFAULT_MAX_BODY_MEMORY >> 20) as u64, value_parser = clap::value_parser!(u64).range(16..=1_048_576))]
    pub max_body_memory: u64,
    /// Most live sockets (`GET /ws/notify`, the kit's notifications) open at once;
    /// 503 beyond.
    #[arg(long, env = "HEARTH_MAX_SOCKETS", default_value_t = config::DEFAULT_MAX_SOCKETS as u64, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub max_sockets: u64,

    /// How often an open live socket checks that its token still holds (revoked,
    /// expired, its user deleted: the socket closes with 4001), e.g. `30s`.
    #[arg(long, env = "HEARTH_SOCKET_RECHECK", default_value = "30s", value_parser = crate::replica::parse_duration)]
    pub socket_recheck: Duration,

    /// Most live sockets one client address holds; 503 beyond.
    #[arg(long, env = "HEARTH_MAX_SOCKETS_PER_ADDRESS", default_value_t = config::DEFAULT_MAX_SOCKETS_PER_ADDRESS as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_sockets_per_address: u64,

    /// Writes a second one user may make through the API (posts, comments, votes,
    /// follows, course changes...; more is 429 with Retry-After); 0: no limit. Staff
    /// are exempt.
    #[arg(long, env = "HEARTH_USER_WRITE_RATE", default_value_t = config::DEFAULT_USER_WRITE_RATE, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub user_write_rate: u32,
    /// Writes one user may make at once after a quiet spell (then --user-write-rate).
    #[arg(long, env = "HEARTH_USER_WRITE_BURST", default_value_t = config::DEFAULT_USER_WRITE_BURST, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub user_write_burst: u32,
    /// Bytes of request bodies one user's writes may carry per UTC day (text, JSON,
    /// uploads; more is 429 until midnight UTC; a write without a body still passes):
    /// a number of bytes or with a unit, e.g. 50MiB; 0: no budget. Staff are exempt.
    #[arg(long, env = "HEARTH_USER_DAILY_BYTES", default_value_t = config::DEFAULT_USER_DAILY_BYTES, value_parser = config::parse_size)]
    pub user_daily_bytes: u64,
    /// The SMTP relay for sign-up, recovery and address-change mail: smtps://host
    /// (TLS), smtp://host?tls=required (STARTTLS), or smtp://localhost:25 (plain, only
    /// to this machine); `user:pass@` before the host when it asks for a login. Without
    /// one, sign-up and recovery are off (403 that says so).
    #[arg(long, env = "HEARTH_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<crate::mail::RelayUrl>,
    /// The From of hearth's mail (default: `hearth <noreply@HOST>`, HOST from
    /// --public-url).
    #[arg(long, env = "HEARTH_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// Mails one client address, and one mail address or member, may cause an hour
    /// (sign-up, recovery, address change, contact request; more is 429 with Retry-After).
    #[arg(long, env = "HEARTH_MAIL_RATE", default_value_t = config::DEFAULT_MAIL_RATE, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub mail_rate: u32,
    /// The community's control panel (an http(s) URL), which the kit's settings menu,
    /// platform widget and onboarding link staff to: `GET
    /// /api/v2/user/me/platform_url/` answers it, with the kit's `next` path added as a
    /// `next` query parameter. Without it hearth has no control panel to offer: that
    /// route is 404 and the kit's links do nothing.
    #[arg(long, env = "HEARTH_PLATFORM_URL", value_parser = config::parse_platform_url)]
    pub platform_url: Option<String>,
    /// A reverse proxy whose X-Forwarded-For is believed: an address or CIDR range
    /// (repeatable). The header is read from the right, skipping trusted hops.
    #[arg(
        long = "trusted-proxy",
        value_name = "CIDR",
        env = "HEARTH_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<String>,
    /// Shorthand for `--trusted-proxy 127.0.0.0/8 --trusted-proxy ::1` (a proxy on
    /// this machine). From the environment: `true/false/1/0`, any case.
    #[arg(long, env = "HEARTH_TRUST_PROXY", value_parser = crate::model::boolean::parse_arg)]
    pub trust_proxy: bool,
    /// A web origin (`https://app.example.org`: scheme, host and port, no path) whose
    /// pages may call hearth from a browser (repeatable; `*` allows every origin).
    /// CORS covers /api/v2/, /oauth/token/, /oauth/revoke_token/, /static/ and /media/.
    #[arg(
        long = "cors-origin",
        value_name = "ORIGIN",
        env = "HEARTH_CORS_ORIGINS",
        value_delimiter = ','
    )]
    pub cors_origins: Vec<String>,
    /// Microseconds a read may run on the server's own threads before it is interrupted
    /// and run again on a blocking thread; 0 sends every read to a blocking thread.
    #[arg(long, env = "HEARTH_INLINE_READ_BUDGET", default_value_t = crate::db::INLINE_BUDGET.as_micros() as u64, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub inline_read_budget: u64,
    /// MiB of the database file each read connection maps into memory (SQLite's
    /// `mmap_size`, at most 2047, SQLite's own limit; 0, the default, reads every page
    /// with `pread`). Pays off for reads spread over a database much larger than SQLite's
    /// page caches; costs CPU after writes: SQLite unmaps a connection's whole file after
    /// each, and the next read maps it again and faults its pages in. The pages reads
    /// touched count in hearth's RSS as the kernel's file cache; a read replica never
    /// maps. See docs/architecture.md.
    #[arg(long, env = "HEARTH_MMAP_SIZE", value_name = "MIB", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=2047))]
    pub mmap_size: u64,
    /// Log lines on stderr as text or as one JSON object a line (the level is set
    /// with RUST_LOG, default info).
    #[arg(long, env = "HEARTH_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Serve Prometheus metrics at GET /metrics on this second address (`host:port`,
    /// never the public one; keep it private, e.g. 127.0.0.1:9090). Default: off.
    #[arg(long, env = "HEARTH_METRICS_LISTEN", value_name = "ADDR")]
    pub metrics_listen: Option<String>,
    // --- read replicas (SPEC §9; src/replica/)
    /// Serve a read replica: `--db` is a copy that a Litestream follower keeps current
    /// (`litestream restore -f`); reads are served from it, writes and OAuth are
    /// forwarded to `--primary-url`.
    #[arg(long, env = "HEARTH_READ_REPLICA", value_parser = crate::model::boolean::parse_arg, requires = "primary_url")]
    pub read_replica: bool,
    /// The primary a read replica forwards to: http://host:port.
    #[arg(long, env = "HEARTH_PRIMARY_URL", requires = "read_replica")]
    pub primary_url: Option<String>,
    /// A read replica whose copy is further behind than this answers /readyz 503
    /// (`5s`, `500ms`, or seconds).
    #[arg(long, env = "HEARTH_MAX_LAG", default_value = "5s", value_parser = crate::replica::parse_duration)]
    pub max_lag: Duration,
    // --- under Litestream (SPEC §9; src/litestream/)
    /// Whether hearth runs under Litestream: `auto` (the default) when its parent
    /// process is `litestream` (`litestream replicate -exec "hearth serve"`, as the
    /// packaged unit and the container run it); `on` when Litestream runs beside it;
    /// `off` never. Under Litestream hearth never checkpoints the WAL (Litestream does)
    /// and enforces --replication-lag-limit.
    #[arg(long, env = "HEARTH_LITESTREAM_MODE", value_enum, default_value_t = crate::litestream::Mode::Auto)]
    pub litestream: crate::litestream::Mode,
    /// Under Litestream: when the oldest write Litestream has not copied yet is older
    /// than this, writes are refused (503) and /readyz answers 503 until it catches up,
    /// so nothing acknowledged longer ago than this is lost with the machine
    /// (`5s`, `500ms`, or seconds; 0 = no limit).
    #[arg(long, env = "HEARTH_REPLICATION_LAG_LIMIT", default_value = "5s", value_parser = crate::replica::parse_duration)]
    pub replication_lag_limit: Duration,
    /// Under Litestream: where --replication-lag-limit reads what the replica holds, so
    /// that the bound holds on what is uploaded. `socket:/PATH`: Litestream's control
    /// socket (`socket:` in litestream.yml; any replica type, s3 included, as the
    /// packaged units set it); `/PATH` or `file:///PATH`: a file replica's directory
    /// (Litestream's `path:` for it); `local`, the default: Litestream's LTX files
    /// beside the database, which say what it has read from the WAL, not what it has
    /// uploaded (weaker: a Litestream that cannot upload goes unseen;
    /// docs/operations.md).
    #[arg(long, env = "HEARTH_LITESTREAM_REPLICA", value_name = "socket:PATH|PATH|local", value_parser = crate::litestream::Source::parse)]
    pub litestream_replica: Option<crate::litestream::Source>,
    /// After this long without a request, SQLite's page caches are emptied and the
    /// allocator returns freed memory to the system (`2s`, `500ms`, seconds; 0 = never).
    #[arg(long, env = "HEARTH_RELEASE_MEMORY_AFTER", default_value = "2s", value_parser = crate::replica::parse_duration)]
    pub release_memory_after: Duration,
}

impl ServeArgs {
    /// The validated configuration.
    pub fn config(&self, listen: SocketAddr) -> CliResult<Config> {
        let mut c = Config::for_addr(listen);
        if let Some(u) = &self.public_url {
            c.public_url = config::parse_public_url(u).map_err(CliError)?;
        }
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        c.token_ttl = Duration::from_secs(self.token_ttl);
        c.max_connections = size(self.max_connections);
        c.max_connections_per_address = size(self.max_connections_per_address);
        c.header_read_timeout = Duration::from_secs(self.header_timeout);
        c.body_timeout = Duration::from_secs(self.body_timeout);
        c.min_body_rate = self.min_body_rate;
        c.keep_alive_idle = Duration::from_secs(self.idle_timeout);
        c.shutdown_timeout = Duration::from_secs(self.shutdown_timeout);
        c.release_memory_after = self.release_memory_after;
        c.max_body_memory = size(self.max_body_memory.saturating_mul(1024 * 1024));
        c.user_write_rate = self.user_write_rate;
        c.user_write_burst = self.user_write_burst;
        c.user_daily_bytes = self.user_daily_bytes;
        c.max_sockets = size(self.max_sockets);
        c.max_sockets_per_address = size(self.max_sockets_per_address);
        c.socket_recheck = self.socket_recheck.max(Duration::from_millis(10));
        c.smtp_url.clone_from(&self.smtp_url);
        c.mail_from.clone_from(&self.mail_from);
        c.mail_rate = self.mail_rate;
        c.platform_url.clone_from(&self.platform_url);
        c.mail_from()
            .parse::<lettre::message::Mailbox>()
            .map_err(|e| CliError(format!("--mail-from {:?}: {e}", c.mail_from())))?;
        if self.trust_proxy {
            c.trusted_proxies.extend(config::loopback_proxies());
        }
        for p in &self.trusted_proxies {
            c.trusted_proxies.push(config::parse_trusted_proxy(p.trim()).map_err(CliError)?);
        }
        c.cors_origins = config::CorsOrigins::parse(self.cors_origins.iter().map(String::as_str))
            .map_err(CliError)?;
        Ok(c)
    }
}

/// Resolves `--listen`: a literal address, or a host name looked up now.
pub fn resolve_listen(listen: &str) -> CliResult<SocketAddr> {
    if let Ok(a) = listen.parse::<SocketAddr>() {
        return Ok(a);
    }
    let (host, port) = listen.rsplit_once(':').ok_or_else(|| {
        CliError(format!("listen address {listen:?} must be host:port, [v6]:port or name:port"))
    })?;
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(CliError(format!(
            "listen address {listen:?} must be host:port, [v6]:port or name:port"
        )));
    }
    std::net::ToSocketAddrs::to_socket_addrs(listen)
        .map_err(|e| CliError(format!("cannot resolve listen address {listen:?}: {e}")))?
        .next()
        .ok_or_else(|| CliError(format!("listen address {listen:?} resolves to no address")))
}

/// Runs the server until SIGINT or SIGTERM.
pub fn run(path: &Path, args: ServeArgs, clock: Clock) -> CliResult {
    let listen = resolve_listen(&args.listen)?;
    let mut config = args.config(listen)?;
    let explicit_url = args.public_url.is_some();
    let metrics_listen =
        args.metrics_listen.as_deref().map(|m| metrics_addr(m, listen)).transpose()?;
    // the recorder goes in before anything records (see telemetry::http_request)
    let exporter = match metrics_listen {
        Some(_) => Some(crate::server::metrics::Exporter::install().map_err(CliError)?),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        // blocking threads: the readers, the writer and one more (a password hash or an
        // image). More threads than connections only queue on the pool's lock, and
        // tasks queued in tokio are drained by busy threads without a wake-up each
        // (measured on one core: /healthz 9.8k -> 12.6k req/s)
        .max_blocking_threads(crate::db::readers() + 2)
        .enable_all()
        .build()?;
    if args.read_replica {
        let primary = crate::replica::forward::parse_primary_url(
            args.primary_url.as_deref().unwrap_or_default(),
        )
        .map_err(CliError)?;
        let status = std::sync::Arc::new(crate::role::ReplicaStatus::new(primary, args.max_lag));
        let result = runtime.block_on(serve_replica(path, listen, config, clock, status));
        runtime.shutdown_timeout(Duration::from_millis(500));
        tracing::info!("stopped");
        return result;
    }
    // held until the runtime is down, past the last use of the database
    let serving = crate::db::ServeLock::take(path)?;
    let result = runtime.block_on(async move {
        let (db, created) = Db::open_or_create(path, clock.now())?;
        // before hearth's first write of this run (the probe below): no checkpoint
        // of hearth's may restart the WAL behind Litestream's back
        let under = args.litestream.detect();
        if under.is_some() {
            db.set_replicated()?;
        }
        // checkpoints off the writer's commits (none under Litestream)
        db.checkpoint_in_background(crate::db::CHECKPOINT_EVERY)?;
        db.set_inline_budget(Duration::from_micros(args.inline_read_budget));
        db.set_mmap_size(i64::try_from(args.mmap_size << 20).unwrap_or(i64::MAX));
        if created {
            tracing::info!(db = %path.display(), "created a new database");
        }
        let listener = crate::server::bind(listen).await?;
        let addr = listener.local_addr()?;
        // `--listen 127.0.0.1:0`: links name the port actually bound, not port 0
        if !explicit_url {
            config.public_url = config::public_url_for(addr);
        }
        if !db.probe_writable() {
            tracing::warn!(db = %path.display(), "the database does not take writes (read-only file or directory, full disk, or I/O error): writes will be answered 503 until that is fixed");
        }
        let _litestream = match under {
            Some(under) => {
                let source = args.litestream_replica.clone();
                tracing::info!(?under, lag_limit_ms = args.replication_lag_limit.as_millis(), ?source, "under Litestream: no checkpoints of hearth's own, and writes wait when the replica is behind the lag limit");
                if source.is_none() {
                    tracing::warn!("the replication bound reads Litestream's local LTX files (what it has read, not what the replica holds): set --litestream-replica to Litestream's control socket (socket:/PATH) or a file replica's path (docs/operations.md)");
                }
                Some(AbortOnDrop(tokio::spawn(crate::litestream::watch(
                    db.clone(),
                    under,
                    args.replication_lag_limit,
                    source.unwrap_or(crate::litestream::Source::Local),
                ))))
            }
            None => None,
        };
        let state = AppState::new(db, clock, config)?;
        let metrics = match (metrics_listen, exporter) {
            (Some(m), Some(e)) => Some(start_metrics(m, e, &state).await?),
            _ => None,
        };
        tracing::info!(%addr, public_url = %state.config.public_url.0, db = %path.display(), "hearth listening on http://{addr}");
        // listening, the database open and migrated: what `Type=notify` waits for
        notify(&[
            sd_notify::NotifyState::Ready,
            sd_notify::NotifyState::Status(&format!("listening on http://{addr}")),
        ]);
        crate::server::serve_on(listener, state, shutdown_signal()).await;
        if let Some(m) = metrics {
            m.abort();
        }
        Ok::<_, CliError>(())
    });
    // requests still running after the shutdown deadline are dropped here: the process
    // exits within a second of the deadline, whatever its blocking threads are doing
    runtime.shutdown_timeout(Duration::from_millis(500));
    drop(serving);
    tracing::info!("stopped");
    result
}

/// A task that ends when this is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Resolves `--metrics-listen`, refusing the public listener's address.
fn metrics_addr(m: &str, listen: SocketAddr) -> CliResult<SocketAddr> {
    let addr = resolve_listen(m).map_err(|e| CliError(format!("--metrics-listen: {}", e.0)))?;
    let overlaps =
        addr.ip() == listen.ip() || addr.ip().is_unspecified() || listen.ip().is_unspecified();
    if addr.port() != 0 && addr.port() == listen.port() && overlaps {
        return Err(CliError(format!(
            "--metrics-listen {m} is the public listener's address: metrics need an address of their own"
        )));
    }
    Ok(addr)
}

/// Serves `/metrics` on `addr`, a second listener ([`metrics_addr`] refused the
/// public one).
async fn start_metrics(
    addr: SocketAddr,
    exporter: crate::server::metrics::Exporter,
    state: &AppState,
) -> CliResult<tokio::task::JoinHandle<()>> {
    let listener = crate::server::bind(addr).await?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, "metrics listening on http://{bound}/metrics");
    Ok(tokio::spawn(crate::server::metrics::serve(listener, exporter, state.clone())))
}

/// `serve --read-replica`: waits for the follower's copy, then serves it.
async fn serve_replica(
    path: &Path,
    listen: SocketAddr,
    config: Config,
    clock: Clock,
    status: std::sync::Arc<crate::role::ReplicaStatus>,
) -> CliResult {
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    let mut waited = 0u32;
    // the copy, once opened, is kept: its checks remember what they found, so a copy
    // that cannot be served yet is logged once, not at every try
    let mut db: Option<Db> = None;
    let state = loop {
        if db.is_none() && path.exists() {
            match Db::open_replica(path) {
                Ok(opened) => db = Some(opened),
                Err(e @ crate::db::DbError::NotHearth(_)) => return Err(e.into()),
                Err(e) if waited.is_multiple_of(50) => {
                    tracing::info!(error = %e, db = %path.display(), "waiting for the replica's copy");
                }
                Err(_) => {}
            }
        } else if db.is_none() && waited.is_multiple_of(50) {
            tracing::info!(db = %path.display(), "waiting for the follower (litestream restore -f) to create the replica's copy");
        }
        // the keys are read from the copy: one that cannot be served (damaged, gone
        // again) is waited for like a missing one
        if let Some(d) = &db {
            match AppState::new(d.clone(), clock.clone(), config.clone()) {
                Ok(state) => break state,
                Err(e @ crate::db::DbError::NotHearth(_)) => return Err(e.into()),
                Err(e) if waited.is_multiple_of(50) => {
                    tracing::info!(error = %e, db = %path.display(), "waiting for a copy that can be served");
                }
                Err(_) => {}
            }
        }
        waited += 1;
        tokio::select! {
            () = &mut shutdown => return Ok(()),
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
    };
    let listener = crate::server::bind(listen).await?;
    let addr = listener.local_addr()?;
    let primary = status.primary_url.clone();
    let state = state.as_replica(status);
    tracing::info!(%addr, %primary, db = %path.display(), "hearth read replica listening on http://{addr}");
    crate::server::serve_on(listener, state, shutdown).await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
    tracing::info!("shutting down: finishing in-flight requests");
    notify(&[sd_notify::NotifyState::Stopping]);
}

/// Tells the service manager about a state change (SPEC §7); nothing without
/// `NOTIFY_SOCKET`, and a failure to tell it never stops the server.
fn notify(states: &[sd_notify::NotifyState<'_>]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::warn!(error = %e, "cannot notify the service manager (NOTIFY_SOCKET)");
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::{Cli, Command};

    fn trust_proxy(args: &[&str]) -> Option<bool> {
        let all = ["hearth", "serve"].iter().chain(args);
        match Cli::try_parse_from(all).ok()?.command {
            Command::Serve(s) => Some(s.trust_proxy),
            _ => None,
        }
    }

    #[test]
    fn trust_proxy_is_a_flag_with_a_boolean_value_parser() {
        assert_eq!(trust_proxy(&["--trust-proxy"]), Some(true));
        assert_eq!(trust_proxy(&[]), Some(false));
    }

    /// `serve` with no option runs on exactly the defaults the tests run on
    /// (`Config::for_addr`, `db::INLINE_BUDGET`): one source for both.
    #[test]
    #[expect(clippy::panic, reason = "tests fail loudly")]
    fn serves_defaults_are_the_configs() {
        let Ok(Cli { command: Command::Serve(s), .. }) = Cli::try_parse_from(["hearth", "serve"])
        else {
            panic!("serve parses with no option");
        };
        let addr = "127.0.0.1:8080".parse().unwrap_or_else(|_| panic!("an address"));
        let from_cli = s.config(addr).unwrap_or_else(|e| panic!("{e:?}"));
        let defaults = crate::config::Config::for_addr(addr);
        // (a HEARTH_* variable of serve's in the test's environment changes its defaults)
        assert_eq!(format!("{from_cli:?}"), format!("{defaults:?}"));
        assert_eq!(
            std::time::Duration::from_micros(s.inline_read_budget),
            crate::db::INLINE_BUDGET
        );
        assert_eq!(s.listen, "127.0.0.1:8080");
    }
}

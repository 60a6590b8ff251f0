//! `hearth serve`.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use clap::Args;

use super::{CliError, CliResult};
use crate::clock::Clock;
use crate::config::{self, Config};
use crate::db::Db;
use crate::state::AppState;

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "HEARTH_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Public base URL for absolute links (default: http://<listen address>).
    #[arg(long, env = "HEARTH_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Access token lifetime in seconds.
    #[arg(long, env = "HEARTH_TOKEN_TTL", default_value_t = 36_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub token_ttl: u64,
    /// Maximum open connections.
    #[arg(long, env = "HEARTH_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Seconds in-flight requests get to finish on SIGINT/SIGTERM.
    #[arg(long, env = "HEARTH_SHUTDOWN_TIMEOUT", default_value_t = 10)]
    pub shutdown_timeout: u64,
    /// Take the client address from the first X-Forwarded-For hop (behind a reverse proxy).
    #[arg(long, env = "HEARTH_TRUST_PROXY")]
    pub trust_proxy: bool,
}

impl ServeArgs {
    /// The validated configuration.
    pub fn config(&self) -> CliResult<Config> {
        let mut c = Config::for_addr(self.listen);
        if let Some(u) = &self.public_url {
            c.public_url = config::parse_public_url(u).map_err(CliError)?;
        }
        c.token_ttl = Duration::from_secs(self.token_ttl);
        c.max_connections = usize::try_from(self.max_connections).unwrap_or(usize::MAX);
        c.shutdown_timeout = Duration::from_secs(self.shutdown_timeout);
        c.trust_proxy = self.trust_proxy;
        Ok(c)
    }
}

/// Runs the server until SIGINT or SIGTERM.
pub fn run(path: &Path, args: ServeArgs, clock: Clock) -> CliResult {
    let config = args.config()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        // blocking threads: the readers, the writer and one more (a password hash or an
        // image). More threads than connections only queue on the pool's lock, and
        // tasks queued in tokio are drained by busy threads without a wake-up each
        // (measured on one core: /healthz 9.8k -> 12.6k req/s)
        .max_blocking_threads(crate::db::READERS as usize + 2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let (db, created) = Db::open_or_create(path, clock.now())?;
        if created {
            tracing::info!(db = %path.display(), "created a new database");
        }
        let listener = crate::server::bind(args.listen).await?;
        let addr = listener.local_addr()?;
        let state = AppState::new(db, clock, config)?;
        tracing::info!(%addr, public_url = %state.config.public_url.0, db = %path.display(), "hearth listening on http://{addr}");
        crate::server::serve_on(listener, state, shutdown_signal()).await;
        tracing::info!("stopped");
        Ok(())
    })
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
}

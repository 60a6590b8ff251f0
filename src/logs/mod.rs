//! Where log lines go (SPEC §7 "Logs"): stderr, as text or as one JSON object a line
//! (tracing-subscriber's JSON formatter), the level from `RUST_LOG` (default `info`).
//!
//! `serve` writes through a bounded queue to a writer thread that writes batches of
//! lines ([`queue`]), so a request never waits for stderr: when journald or a pipe
//! stalls, lines past [`QUEUE_BYTES`] waiting are dropped and counted
//! ([`dropped_lines`], exported as `hearth_log_lines_dropped_total`) instead of
//! blocking the server. The other commands write to stderr directly. `serve`'s access
//! lines skip tracing-subscriber's formatter: [`access`] writes them by hand.

pub mod access;
pub mod queue;

use std::io::IsTerminal;
use std::sync::OnceLock;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// Bytes of lines the queue to the writer thread holds before it drops new ones
/// (~16k access lines).
pub const QUEUE_BYTES: usize = 4 * 1024 * 1024;

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// `2026-11-23T10:15:30.123456Z  INFO target: message field=value ...`
    #[default]
    Text,
    /// One JSON object a line: `timestamp`, `level`, the event's fields, `target`, and
    /// the request's `span` (`request_id`).
    Json,
}

/// Keeps the writer thread of [`init`] alive; dropping it flushes what is queued.
#[derive(Debug)]
#[must_use = "dropping the guard stops the log writer"]
pub struct Guard {
    _writer: Option<queue::Flusher>,
}

static QUEUE: OnceLock<queue::Queue> = OnceLock::new();

/// Log lines dropped so far because the writer thread's queue was full.
pub fn dropped_lines() -> u64 {
    QUEUE.get().map_or(0, queue::Queue::dropped)
}

/// `RUST_LOG` (default `info`; `info` when it does not parse).
fn spec() -> String {
    std::env::var(EnvFilter::DEFAULT_ENV).unwrap_or_else(|_| "info".to_owned())
}

/// The filter: `Targets` for the usual `RUST_LOG` (levels by target), `EnvFilter` only
/// for span and field directives (`[span{field=value}]`). `EnvFilter` reads a shared
/// `RwLock` on every span's creation, enter, exit and close, so every poll of every
/// request wrote to one word that all cores share (issue 34); `Targets` is decided
/// once per callsite.
fn filters(spec: &str) -> (Option<Targets>, Option<EnvFilter>) {
    if !spec.contains(['[', '{'])
        && let Ok(targets) = spec.parse::<Targets>()
    {
        return (Some(targets), None);
    }
    let env = EnvFilter::try_new(spec).unwrap_or_else(|_| EnvFilter::new("info"));
    (None, Some(env))
}

/// Installs the global subscriber. `queued`: write through the bounded queue (for
/// `serve`) instead of directly.
pub fn init(format: LogFormat, queued: bool) -> Guard {
    let options = queue::Options { limit: QUEUE_BYTES, ..queue::Options::default() };
    let started = if queued {
        // without a thread (out of threads at start) lines go to stderr directly
        queue::start(std::io::stderr(), options).ok()
    } else {
        None
    };
    let (writer, guard) = if let Some((q, flusher)) = started {
        let _ = QUEUE.set(q.clone());
        // colours (a terminal) are tracing-subscriber's alone
        if format == LogFormat::Json || !std::io::stderr().is_terminal() {
            access::install(format, q.clone());
        }
        (tracing_subscriber::fmt::writer::BoxMakeWriter::new(q), Some(flusher))
    } else {
        (tracing_subscriber::fmt::writer::BoxMakeWriter::new(std::io::stderr), None)
    };
    let (targets, env) = filters(&spec());
    let base = tracing_subscriber::registry().with(targets).with(env);
    let layer = tracing_subscriber::fmt::layer().with_writer(writer);
    match format {
        LogFormat::Text => base.with(layer.with_ansi(std::io::stderr().is_terminal())).init(),
        LogFormat::Json => base
            .with(layer.json().flatten_event(true).with_current_span(true).with_span_list(false))
            .init(),
    }
    Guard { _writer: guard }
}

#[cfg(test)]
mod tests {
    use super::filters;
    use tracing::Level;

    /// Levels by target take the lock-free filter; span and field directives, which
    /// only `EnvFilter` understands, keep it; a spec that does not parse is `info`.
    #[test]
    fn plain_levels_take_targets_and_span_directives_keep_env_filter() {
        let (targets, env) = filters("hearth::access=off,hearth=debug,warn");
        let t = targets.unwrap_or_default();
        assert!(env.is_none());
        assert!(!t.would_enable("hearth::access", &Level::ERROR));
        assert!(t.would_enable("hearth::db", &Level::DEBUG));
        assert!(!t.would_enable("hyper", &Level::INFO) && t.would_enable("hyper", &Level::WARN));
        assert!(matches!(filters("info[request{request_id=x}]=debug"), (None, Some(_))));
        let (targets, env) = filters("=+=");
        assert!(targets.is_none());
        assert_eq!(env.map(|e| e.to_string()).as_deref(), Some("info"));
    }
}

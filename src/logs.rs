//! Where log lines go (SPEC §7 "Logs"): stderr, as text or as one JSON object a line
//! (tracing-subscriber's JSON formatter), the level from `RUST_LOG` (default `info`).
//!
//! `serve` writes through a bounded queue to a writer thread (tracing-appender's
//! non-blocking writer over a buffered stderr), so a request never waits for stderr:
//! when journald or a pipe stalls, lines past [`QUEUE_LINES`] are dropped and counted
//! ([`dropped_lines`], exported as `hearth_log_lines_dropped_total`) instead of
//! blocking the server. The other commands write to stderr directly.

use std::io::IsTerminal;
use std::sync::OnceLock;

use tracing_appender::non_blocking::{ErrorCounter, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

/// Lines the queue to the writer thread holds before it drops new ones (a few MB).
pub const QUEUE_LINES: usize = 16_384;

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
    _writer: Option<WorkerGuard>,
}

static DROPPED: OnceLock<ErrorCounter> = OnceLock::new();

/// Log lines dropped so far because the writer thread's queue was full.
pub fn dropped_lines() -> u64 {
    DROPPED
        .get()
        .map_or(0, |c| u64::try_from(c.dropped_lines()).unwrap_or(u64::MAX))
}

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// Installs the global subscriber. `queued`: write through the bounded queue (for
/// `serve`) instead of directly.
pub fn init(format: LogFormat, queued: bool) -> Guard {
    let (writer, guard) = if queued {
        let (w, g) = NonBlockingBuilder::default()
            .buffered_lines_limit(QUEUE_LINES)
            .lossy(true)
            .thread_name("hearth-log")
            .finish(std::io::BufWriter::with_capacity(
                64 * 1024,
                std::io::stderr(),
            ));
        let _ = DROPPED.set(w.error_counter());
        (
            tracing_subscriber::fmt::writer::BoxMakeWriter::new(w),
            Some(g),
        )
    } else {
        (
            tracing_subscriber::fmt::writer::BoxMakeWriter::new(std::io::stderr),
            None,
        )
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(writer);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
    Guard { _writer: guard }
}

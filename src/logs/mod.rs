//! Where log lines go (SPEC §7 "Logs"): stderr, as text or as one JSON object a line
//! (tracing-subscriber's JSON formatter), the level from `RUST_LOG` (default `info`).
//!
//! `serve` writes through a bounded queue to a writer thread that writes batches of
//! lines ([`queue`]), so a request never waits for stderr: when journald or a pipe
//! stalls, lines past [`QUEUE_BYTES`] waiting are dropped and counted
//! ([`dropped_lines`], exported as `hearth_log_lines_dropped_total`) instead of
//! blocking the server. The other commands write to stderr directly.

pub mod queue;

use std::io::IsTerminal;
use std::sync::OnceLock;

use tracing_subscriber::EnvFilter;

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

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
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
        (tracing_subscriber::fmt::writer::BoxMakeWriter::new(q), Some(flusher))
    } else {
        (tracing_subscriber::fmt::writer::BoxMakeWriter::new(std::io::stderr), None)
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter()).with_writer(writer);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => {
            builder.json().flatten_event(true).with_current_span(true).with_span_list(false).init()
        }
    }
    Guard { _writer: guard }
}

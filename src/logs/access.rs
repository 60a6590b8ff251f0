//! The access line (SPEC §7), written by hand: one a request, so the formatter's cost
//! is the server's. tracing-subscriber's formatter took about 10% of the CPU of the
//! cheapest request (`/livez` on one core, issue 34): it visits each field through a
//! `dyn` visitor, looks up the current span and formats into a buffer of its own.
//!
//! The line is byte for byte what tracing-subscriber writes for the same event, in
//! both formats (the test below renders each through both): text is
//! `TIME  INFO hearth::access: request name=value ...` with strings as Rust's `{:?}`
//! quotes them, JSON one object with the fields in order. Where the hand path does not
//! apply (colours on a terminal, the CLI's logging, a test's subscriber) the caller
//! emits the same event through `tracing` instead ([`write`] answers `false`).

use std::fmt::Write as _;
use std::net::IpAddr;
use std::sync::OnceLock;

use super::LogFormat;
use super::queue::Queue;
use crate::clock::Timestamp;

/// The fields of one access line.
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    pub request_id: &'a str,
    pub method: &'a str,
    pub route: &'a str,
    pub path: &'a str,
    pub status: u16,
    pub duration_ms: f64,
    pub client: IpAddr,
    pub user_id: Option<i64>,
    pub bytes: Option<u64>,
    pub user_agent: Option<&'a str>,
}

/// Where hand-written lines go: `serve`'s queue, in its format.
struct Sink {
    format: LogFormat,
    queue: Queue,
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// Sends access lines written by hand to `queue` in `format` (once, from `logs::init`).
pub(super) fn install(format: LogFormat, queue: Queue) {
    let _ = SINK.set(Sink { format, queue });
}

/// Writes the access line at wall time `at` by hand, if this process's logging lets it
/// (`serve`'s queue, the access target on at INFO): `false` when the caller must emit
/// it through `tracing` instead.
pub fn write(fields: &Fields<'_>, at: Timestamp) -> bool {
    let Some(sink) = SINK.get() else {
        return false;
    };
    if !tracing::enabled!(target: "hearth::access", tracing::Level::INFO) {
        // off by RUST_LOG: nothing to write, and nothing for `tracing` to do either
        return true;
    }
    LINE.with_borrow_mut(|line| {
        line.clear();
        render(line, sink.format, fields, at);
        sink.queue.push(line.as_bytes());
    });
    true
}

thread_local! {
    /// Each thread's line buffer, reused.
    static LINE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The line, with its newline, into `out`.
fn render(out: &mut String, format: LogFormat, f: &Fields<'_>, at: Timestamp) {
    let time = crate::clock::rfc3339(at);
    // writing into a String cannot fail
    let _ = match format {
        LogFormat::Text => text(out, &time, f),
        LogFormat::Json => json(out, &time, f),
    };
    out.push('\n');
}

fn text(out: &mut String, time: &str, f: &Fields<'_>) -> std::fmt::Result {
    out.push_str(time);
    out.push_str("  INFO hearth::access: request request_id=");
    debug_str(out, f.request_id)?;
    out.push_str(" method=");
    out.push_str(f.method);
    out.push_str(" route=");
    debug_str(out, f.route)?;
    out.push_str(" path=");
    debug_str(out, f.path)?;
    write!(out, " status={} duration_ms={:?} client={}", f.status, f.duration_ms, f.client)?;
    if let Some(id) = f.user_id {
        write!(out, " user_id={id}")?;
    }
    if let Some(n) = f.bytes {
        write!(out, " bytes={n}")?;
    }
    if let Some(ua) = f.user_agent {
        out.push_str(" user_agent=");
        debug_str(out, ua)?;
    }
    Ok(())
}

fn json(out: &mut String, time: &str, f: &Fields<'_>) -> std::fmt::Result {
    out.push_str("{\"timestamp\":\"");
    out.push_str(time);
    out.push_str("\",\"level\":\"INFO\",\"message\":\"request\",\"request_id\":");
    json_str(out, f.request_id);
    out.push_str(",\"method\":");
    json_str(out, f.method);
    out.push_str(",\"route\":");
    json_str(out, f.route);
    out.push_str(",\"path\":");
    json_str(out, f.path);
    write!(
        out,
        ",\"status\":{},\"duration_ms\":{},\"client\":\"{}\"",
        f.status,
        serde_json::to_string(&f.duration_ms).unwrap_or_else(|_| "null".to_owned()),
        f.client
    )?;
    if let Some(id) = f.user_id {
        write!(out, ",\"user_id\":{id}")?;
    }
    if let Some(n) = f.bytes {
        write!(out, ",\"bytes\":{n}")?;
    }
    if let Some(ua) = f.user_agent {
        out.push_str(",\"user_agent\":");
        json_str(out, ua);
    }
    out.push_str(",\"target\":\"hearth::access\"}");
    Ok(())
}

/// Whether `s` is printable ASCII that neither Rust's `{:?}` nor JSON escapes: then
/// both quote it as it is, without a formatter (most paths, ids and user agents).
fn plain(s: &str) -> bool {
    s.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

/// `s` as `{:?}` writes it.
fn debug_str(out: &mut String, s: &str) -> std::fmt::Result {
    if plain(s) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return Ok(());
    }
    write!(out, "{s:?}")
}

/// `s` as a JSON string.
fn json_str(out: &mut String, s: &str) {
    if plain(s) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned()));
}

/// The same line through `tracing` (where [`write`] does not apply).
pub fn emit(f: &Fields<'_>) {
    tracing::info!(
        target: "hearth::access",
        request_id = f.request_id,
        method = %f.method,
        route = f.route,
        path = f.path,
        status = f.status,
        duration_ms = f.duration_ms,
        client = %f.client,
        user_id = f.user_id,
        bytes = f.bytes,
        user_agent = f.user_agent,
        "request"
    );
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What tracing-subscriber writes for `f` in `format` (as `logs::init` sets it up),
    /// and the time it wrote.
    fn through_tracing(format: LogFormat, f: &Fields<'_>) -> (String, Timestamp) {
        let out = Captured::default();
        let w = out.clone();
        let layer =
            tracing_subscriber::fmt::layer().with_ansi(false).with_writer(move || w.clone());
        let base = tracing_subscriber::registry();
        match format {
            LogFormat::Text => tracing::subscriber::with_default(base.with(layer), || emit(f)),
            LogFormat::Json => tracing::subscriber::with_default(
                base.with(
                    layer.json().flatten_event(true).with_current_span(true).with_span_list(false),
                ),
                || emit(f),
            ),
        }
        let line = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let time = match format {
            LogFormat::Text => line.split(' ').next().unwrap().to_owned(),
            LogFormat::Json => {
                serde_json::from_str::<serde_json::Value>(&line).unwrap()["timestamp"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            }
        };
        (line, crate::clock::parse_rfc3339(&time).unwrap())
    }

    /// Every shape of line (each optional field there or not, hostile strings, whole
    /// and fractional durations, both address families), in both formats, is what
    /// tracing-subscriber writes to the byte.
    #[test]
    fn each_line_is_what_tracing_subscriber_writes() {
        let hostile = "curl/8 \"quoted\" \\ \n\r\t\u{7f}\u{1b}[31m é 😀 key=value";
        let mut cases = Vec::new();
        for (i, duration_ms) in
            [0.0, 2.0, 0.123, 1234.5, 0.001, 123_456_789.125].into_iter().enumerate()
        {
            cases.push(Fields {
                request_id: if i % 2 == 0 { "r-1" } else { "id with \"quote\"" },
                method: if i % 2 == 0 { "GET" } else { "PATCH" },
                route: "/api/v2/course/{id}/",
                path: if i % 3 == 0 { "/api/v2/course/77/" } else { "/a b/é\"/%0A" },
                status: [200, 404, 503][i % 3],
                duration_ms,
                client: if i % 2 == 0 {
                    "198.51.100.7".parse().unwrap()
                } else {
                    "2001:db8::1".parse().unwrap()
                },
                user_id: (i % 2 == 1).then_some(-5 + i64::try_from(i).unwrap()),
                bytes: (i % 3 != 2).then_some(u64::try_from(i).unwrap() * 1000),
                user_agent: [None, Some(hostile), Some("")][i % 3],
            });
        }
        for format in [LogFormat::Text, LogFormat::Json] {
            for f in &cases {
                let (expected, at) = through_tracing(format, f);
                let mut ours = String::new();
                render(&mut ours, format, f, at);
                assert_eq!(ours, expected, "{format:?}");
            }
        }
    }
}

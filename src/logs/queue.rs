//! The queue between the request threads and the log writer thread.
//!
//! A log line is appended to one shared buffer under a mutex (a memcpy); a writer thread
//! takes the whole buffer at once and writes it with one `write(2)`. The thread is woken
//! only when a line lands in an empty buffer, then waits [`Options::every`] for more
//! before it writes (or less when [`Options::wake_at`] bytes are waiting), so under load
//! a batch of hundreds of lines costs one wake-up and one write instead of one of each
//! per line. (tracing-appender's channel woke its thread for every line: on a server
//! pinned to one core that was a context switch, three futex calls and four
//! `sched_yield`s per request — issue 17.)
//!
//! Nothing ever blocks a request: past [`Options::limit`] bytes waiting (the writer is
//! stalled by a full pipe or a stopped journald), new lines are dropped and counted.
//! Dropping the [`Flusher`] writes what is queued and stops the thread.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How the queue batches.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Bytes waiting past which new lines are dropped.
    pub limit: usize,
    /// Bytes waiting that wake the writer before [`Options::every`] has passed.
    pub wake_at: usize,
    /// How long the writer lets lines gather after the first one.
    pub every: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { limit: 4 * 1024 * 1024, wake_at: 256 * 1024, every: Duration::from_millis(50) }
    }
}

struct Pending {
    buf: Vec<u8>,
    closing: bool,
}

struct Shared {
    pending: Mutex<Pending>,
    more: Condvar,
    options: Options,
    dropped: AtomicU64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The producer side: what `tracing_subscriber` writes each formatted line to.
#[derive(Clone)]
pub struct Queue {
    shared: Arc<Shared>,
}

/// Keeps the writer thread; dropping it writes what is queued and joins the thread.
pub struct Flusher {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Flusher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Flusher")
    }
}

/// Starts the writer thread over `out`.
pub fn start<W: Write + Send + 'static>(
    out: W,
    options: Options,
) -> std::io::Result<(Queue, Flusher)> {
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending { buf: Vec::new(), closing: false }),
        more: Condvar::new(),
        options,
        dropped: AtomicU64::new(0),
    });
    let s = Arc::clone(&shared);
    let thread =
        std::thread::Builder::new().name("hearth-log".into()).spawn(move || run(&s, out))?;
    Ok((Queue { shared: Arc::clone(&shared) }, Flusher { shared, thread: Some(thread) }))
}

fn run<W: Write>(shared: &Shared, mut out: W) {
    let mut batch = Vec::new();
    loop {
        let closing = {
            let mut p = shared.lock();
            while p.buf.is_empty() && !p.closing {
                p = shared.more.wait(p).unwrap_or_else(PoisonError::into_inner);
            }
            if !p.closing && p.buf.len() < shared.options.wake_at {
                // let the lines of the next few milliseconds join this one
                p = shared
                    .more
                    .wait_timeout(p, shared.options.every)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            std::mem::swap(&mut p.buf, &mut batch);
            p.closing
        };
        if !batch.is_empty() {
            // a failed write loses its lines: there is nowhere to report it
            let _ = out.write_all(&batch).and_then(|()| out.flush());
            batch.clear();
            if batch.capacity() > shared.options.wake_at * 2 {
                batch.shrink_to(shared.options.wake_at);
            }
        }
        if closing && shared.lock().buf.is_empty() {
            return;
        }
    }
}

impl Queue {
    /// Lines dropped so far because [`Options::limit`] bytes were waiting.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Appends one whole line (or drops and counts it past the limit).
    pub fn push(&self, line: &[u8]) {
        let o = &self.shared.options;
        let mut p = self.shared.lock();
        if p.closing || p.buf.len() + line.len() > o.limit {
            drop(p);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let before = p.buf.len();
        p.buf.extend_from_slice(line);
        let after = p.buf.len();
        drop(p);
        // the writer sleeps only on an empty buffer, or lets one gather below wake_at
        if before == 0 || (before < o.wake_at && after >= o.wake_at) {
            self.shared.more.notify_one();
        }
    }
}

/// One formatted line on its way into the queue.
pub struct Line<'a>(&'a Queue);

impl Write for Line<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.push(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Queue {
    type Writer = Line<'a>;
    fn make_writer(&'a self) -> Line<'a> {
        Line(self)
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.more.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use std::sync::mpsc;

    /// An output that records each write, and can be held shut.
    #[derive(Clone, Default)]
    struct Out {
        writes: Arc<Mutex<Vec<Vec<u8>>>>,
        gate: Arc<Mutex<()>>,
    }

    impl Write for Out {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _held = self.gate.lock().unwrap();
            self.writes.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn line(q: &Queue, s: &str) {
        tracing_subscriber::fmt::MakeWriter::make_writer(q).write_all(s.as_bytes()).unwrap();
    }

    #[test]
    fn lines_gather_into_one_write_and_a_dropped_flusher_writes_the_rest() {
        let out = Out::default();
        let options = Options { every: Duration::from_secs(3600), ..Options::default() };
        let (q, flusher) = start(out.clone(), options).unwrap();
        for i in 0..1000 {
            line(&q, &format!("line {i}\n"));
        }
        // the writer is waiting for more (an hour): nothing written yet
        assert!(out.writes.lock().unwrap().is_empty());
        drop(flusher);
        let writes = out.writes.lock().unwrap();
        assert_eq!(writes.len(), 1, "one write for the whole batch");
        let text = String::from_utf8(writes.concat()).unwrap();
        let expected: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        assert_eq!(text, expected);
        assert_eq!(q.dropped(), 0);
    }

    #[test]
    fn a_batch_is_written_once_the_period_passes_or_wake_at_is_reached() {
        let out = Out::default();
        let (q, flusher) = start(
            out.clone(),
            Options { limit: 1 << 20, wake_at: 64, every: Duration::from_millis(20) },
        )
        .unwrap();
        line(&q, "first\n");
        let deadline = crate::clock::instant() + Duration::from_secs(10);
        while out.writes.lock().unwrap().is_empty() {
            assert!(crate::clock::instant() < deadline, "never written");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(out.writes.lock().unwrap().concat(), b"first\n");
        drop(flusher);
    }

    #[test]
    fn a_stalled_writer_never_blocks_a_line_and_drops_past_the_limit() {
        let out = Out::default();
        let gate = out.gate.lock().unwrap();
        let (q, flusher) = start(
            out.clone(),
            Options { limit: 1000, wake_at: 10, every: Duration::from_millis(1) },
        )
        .unwrap();
        // the first line is taken by the writer, which then blocks on the gate
        line(&q, "0123456789\n");
        std::thread::sleep(Duration::from_millis(50));
        // many threads log at once while it is stuck: none of them waits
        let (done_tx, done_rx) = mpsc::channel();
        for t in 0..8 {
            let (q, done) = (q.clone(), done_tx.clone());
            std::thread::spawn(move || {
                for i in 0..100 {
                    line(&q, &format!("t{t}-{i:06}\n"));
                }
                done.send(()).unwrap();
            });
        }
        for _ in 0..8 {
            done_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        }
        // 1000 bytes hold 100 lines of 10 bytes; the other 700 of 800 were dropped
        assert_eq!(q.dropped(), 700);
        drop(gate);
        drop(flusher);
        let text = String::from_utf8(out.writes.lock().unwrap().concat()).unwrap();
        assert_eq!(text.lines().count(), 1 + 100);
        // each thread's kept lines are in its own order
        for t in 0..8 {
            let mine: Vec<&str> =
                text.lines().filter(|l| l.starts_with(&format!("t{t}-"))).collect();
            let mut sorted = mine.clone();
            sorted.sort_unstable();
            assert_eq!(mine, sorted);
        }
    }
}

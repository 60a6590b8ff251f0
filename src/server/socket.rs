//! A connection's socket as hyper sees it: it records when a request's bytes arrive
//! (for the slow-client limits of [`super`]) and sends each response after the batch.
//!
//! **After the batch.** The first write of a response (the first after bytes were read)
//! yields once: the task wakes itself and answers `Pending`, so the runtime puts it at
//! the back of its run queue, behind the other connections whose requests arrived in the
//! same round of readiness events. Those are answered first, and the responses then leave
//! back to back. A peer on the same host (the reverse proxy of most deployments, the
//! benchmark's client) is woken once for the batch instead of once a response: each
//! wake-up of a sleeping peer is paid on the sender's CPU (on the 2-vCPU benchmark VM,
//! an inter-processor interrupt of ~9 µs, 14% of `course_get`'s CPU; issue 17). Nothing
//! waits on a timer: a connection alone is answered on the very next poll (one more
//! poll of its task, well under a microsecond), and under load a response waits at most
//! for the requests that were already in hand. Measured in `docs/architecture.md` ("The
//! read path").

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// When the connection last did something, shared by its IO wrapper, its requests and
/// its watchdog. Times are milliseconds since the connection was accepted.
#[derive(Default)]
pub(super) struct Activity {
    pub(super) in_flight: AtomicUsize,
    /// Requests answered on this connection.
    pub(super) served: AtomicUsize,
    /// End of the last response (or the accept).
    pub(super) idle_since: AtomicI64,
    /// First byte read after `idle_since`, or -1 when none yet.
    pub(super) reading_since: AtomicI64,
}

pub(super) fn millis_since(start: Instant) -> i64 {
    i64::try_from(start.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// A TCP stream that records when bytes arrive and writes a response after the batch
/// (see the module's notes).
pub(super) struct Tracked {
    inner: TcpStream,
    activity: Arc<Activity>,
    start: Instant,
    /// Bytes were read since the last write: the next write yields once first.
    fresh: bool,
}

impl Tracked {
    pub(super) fn new(inner: TcpStream, activity: Arc<Activity>, start: Instant) -> Tracked {
        Tracked { inner, activity, start, fresh: false }
    }

    /// Whether this write yields first: the first after a read does, once (the task is
    /// woken at once, so it is polled again after the tasks already queued).
    fn after_the_batch(&mut self, cx: &mut Context<'_>) -> bool {
        if self.fresh {
            self.fresh = false;
            cx.waker().wake_by_ref();
            return true;
        }
        false
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.fresh = true;
            let now = millis_since(self.start);
            let _ = self.activity.reading_since.compare_exchange(
                -1,
                now,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
        r
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.after_the_batch(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.after_the_batch(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    async fn pair() -> (Tracked, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let activity =
            Arc::new(Activity { reading_since: AtomicI64::new(-1), ..Activity::default() });
        (Tracked::new(server, activity, crate::clock::instant()), client)
    }

    #[tokio::test]
    async fn the_first_write_after_a_read_yields_once_and_wakes_its_task() {
        let (mut server, mut client) = pair().await;
        let count = Arc::new(Count::default());
        let waker = std::task::Waker::from(Arc::clone(&count));
        let mut cx = Context::from_waker(&waker);

        // before any request: a write goes straight out
        assert!(matches!(Pin::new(&mut server).poll_write(&mut cx, b"a"), Poll::Ready(Ok(1))));
        assert_eq!(count.0.load(Ordering::SeqCst), 0);

        // a request arrives: the response's first write yields once and wakes the task
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        let mut got = [0u8; 64];
        let n = server.read(&mut got).await.unwrap();
        assert_eq!(n, 18);
        assert_ne!(server.activity.reading_since.load(Ordering::SeqCst), -1);
        let bufs = [io::IoSlice::new(b"HTTP/1.1 "), io::IoSlice::new(b"200\r\n")];
        assert!(Pin::new(&mut server).poll_write_vectored(&mut cx, &bufs).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "the task is woken at once");
        // polled again, it writes; and the rest of the response is not held back
        assert!(matches!(
            Pin::new(&mut server).poll_write_vectored(&mut cx, &bufs),
            Poll::Ready(Ok(14))
        ));
        assert!(matches!(Pin::new(&mut server).poll_write(&mut cx, b"b"), Poll::Ready(Ok(1))));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        let mut out = [0u8; 16];
        client.read_exact(&mut out).await.unwrap();
        assert_eq!(&out, b"aHTTP/1.1 200\r\nb");
    }
}

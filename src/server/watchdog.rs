//! What a connection's task waits on besides the connection itself: its watchdog's
//! timer (the header and idle timeouts) and the server's stop signal.
//!
//! `tokio::select!` polls every branch at each wake of the task, so the two were polled
//! once or twice a request, and polling the stop signal (a `watch` channel's
//! `changed()`) locks the waiter list of a `tokio::sync::Notify` that every connection
//! shares (issue 34). [`Watch::next`] polls the connection at each wake and the two
//! others only when one of them woke the task: they are polled with a waker of their
//! own ([`Rewake`]), which marks that it fired and then wakes the task.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;
use tokio::time::Interval;

/// What happened to a connection.
pub(super) enum Event<T> {
    /// The connection finished, with this.
    Done(T),
    /// The watchdog's timer ticked.
    Tick,
    /// The server is stopping.
    Stop,
}

/// The waker the timer and the stop signal are polled with: it notes that one of them
/// fired, then wakes the connection's task.
struct Rewake {
    fired: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Rewake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::Release);
        self.task.wake();
    }
}

/// One connection's watch (see the module doc).
pub(super) struct Watch {
    rewake: Arc<Rewake>,
    waker: Waker,
}

impl Watch {
    pub(super) fn new() -> Watch {
        // fired: the first wait polls the timer and the stop signal, which registers them
        let rewake = Arc::new(Rewake { fired: AtomicBool::new(true), task: AtomicWaker::new() });
        let waker = Waker::from(Arc::clone(&rewake));
        Watch { rewake, waker }
    }

    /// Waits for the next event: `conn` finishes, `tick` ticks, or `stop` (when given:
    /// never again once it has answered) resolves.
    pub(super) fn next<'a, C, S>(
        &'a self,
        mut conn: Pin<&'a mut C>,
        tick: &'a mut Interval,
        mut stop: Option<Pin<&'a mut S>>,
    ) -> impl Future<Output = Event<C::Output>> + 'a
    where
        C: Future,
        S: Future,
    {
        std::future::poll_fn(move |cx| {
            self.rewake.task.register(cx.waker());
            if let Poll::Ready(out) = conn.as_mut().poll(cx) {
                return Poll::Ready(Event::Done(out));
            }
            if !self.rewake.fired.swap(false, Ordering::AcqRel) {
                return Poll::Pending;
            }
            // polling them again re-arms them; the next wait polls both once more
            let mut own = Context::from_waker(&self.waker);
            if tick.poll_tick(&mut own).is_ready() {
                self.rewake.fired.store(true, Ordering::Release);
                return Poll::Ready(Event::Tick);
            }
            if let Some(stop) = stop.as_mut()
                && stop.as_mut().poll(&mut own).is_ready()
            {
                self.rewake.fired.store(true, Ordering::Release);
                return Poll::Ready(Event::Stop);
            }
            Poll::Pending
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The timer and the stop signal still end the wait although they are polled only
    /// when they fire; a connection that finishes ends it at once.
    #[tokio::test]
    async fn ticks_and_stops_are_seen_and_a_finished_connection_first() {
        let watch = Watch::new();
        let mut tick = tokio::time::interval(Duration::from_millis(5));
        tick.tick().await;
        let conn = std::future::pending::<()>();
        tokio::pin!(conn);
        let (tx, mut rx) = tokio::sync::watch::channel(false);
        let stop = rx.changed();
        tokio::pin!(stop);
        for _ in 0..3 {
            let e = watch.next(conn.as_mut(), &mut tick, Some(stop.as_mut())).await;
            assert!(matches!(e, Event::Tick));
        }
        let _ = tx.send(true);
        let mut stopped = false;
        for _ in 0..3 {
            let e = watch.next(conn.as_mut(), &mut tick, Some(stop.as_mut())).await;
            assert!(!matches!(e, Event::Done(())), "a pending connection does not finish");
            if matches!(e, Event::Stop) {
                stopped = true;
                break;
            }
        }
        assert!(stopped, "the stop signal ends a wait");
        let done = std::future::ready(7);
        tokio::pin!(done);
        let e = watch.next(done.as_mut(), &mut tick, None::<Pin<&mut std::future::Pending<()>>>);
        assert!(matches!(e.await, Event::Done(7)));
    }
}

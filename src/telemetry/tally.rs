//! The counts and durations that every request records, kept per thread and handed to
//! the recorder in batches (issue 34).
//!
//! A Prometheus counter or histogram is one object that every core writes: on 8 cores,
//! an increment and a sample per request, and a sample per read, were cache lines
//! passed from core to core on every request. Here each thread records into a shard
//! of its own (a mutex only that thread takes, but for a moment at a scrape), and a
//! series' samples go to the recorder [`BATCH`] at a time. [`flush`] hands everything
//! over; `/metrics` calls it before it renders, so a scrape sees every request
//! answered before it. [`answered`] is the sum of the shards' counts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use metrics::{Counter, Histogram, counter, histogram};

use super::{DB_READ_WAIT, DB_WRITE_WAIT, HTTP_DURATION, HTTP_REQUESTS};

/// Samples a series holds before they go to the recorder.
pub const BATCH: usize = 64;

/// What a sample is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// An answered request: its route template, method and status.
    Request(&'static str, &'static str, u16),
    /// A read's wait for its connection.
    ReadWait,
    /// A write's wait for the writer.
    WriteWait,
}

/// One series' handles in the recorder and what it has not been given yet.
struct Series {
    count: Option<Counter>,
    duration: Histogram,
    pending: u64,
    samples: Vec<f64>,
}

impl Series {
    /// Finding a series in the recorder builds a key with its labels and looks it up in
    /// a shared map (about 0.6 µs): once per thread and series.
    fn of(key: Key) -> Series {
        let (count, duration) = match key {
            Key::Request(route, method, status) => (
                Some(
                    counter!(HTTP_REQUESTS, "route" => route, "method" => method, "status" => status.to_string()),
                ),
                histogram!(HTTP_DURATION, "route" => route, "method" => method),
            ),
            Key::ReadWait => (None, histogram!(DB_READ_WAIT)),
            Key::WriteWait => (None, histogram!(DB_WRITE_WAIT)),
        };
        Series { count, duration, pending: 0, samples: Vec::new() }
    }

    fn flush(&mut self) {
        if let Some(c) = &self.count
            && self.pending > 0
        {
            c.increment(self.pending);
        }
        self.pending = 0;
        for v in self.samples.drain(..) {
            self.duration.record(v);
        }
    }
}

#[derive(Default)]
struct Shard {
    answered: u64,
    series: HashMap<Key, Series, foldhash::fast::RandomState>,
}

type Shared = Arc<Mutex<Shard>>;

static SHARDS: Mutex<Vec<Shared>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread's shard, listed in [`SHARDS`] (and kept there after the thread
    /// ends, so that no count is lost).
    static MINE: Shared = {
        let shard = Shared::default();
        shards().push(Arc::clone(&shard));
        shard
    };
}

fn shards() -> MutexGuard<'static, Vec<Shared>> {
    SHARDS.lock().unwrap_or_else(PoisonError::into_inner)
}

fn lock(shard: &Shared) -> MutexGuard<'_, Shard> {
    shard.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records one sample of `key` (and, for a request, one more answered).
pub fn sample(key: Key, took: Duration) {
    MINE.with(|shard| {
        let mut shard = lock(shard);
        if matches!(key, Key::Request(..)) {
            shard.answered += 1;
        }
        let series = shard.series.entry(key).or_insert_with(|| Series::of(key));
        series.pending += 1;
        series.samples.push(took.as_secs_f64());
        if series.samples.len() >= BATCH {
            series.flush();
        }
    });
}

/// Hands every shard's pending counts and samples to the recorder.
pub fn flush() {
    for shard in shards().iter() {
        lock(shard).series.values_mut().for_each(Series::flush);
    }
}

/// Requests answered since the process started, all threads together.
pub fn answered() -> u64 {
    shards().iter().map(|s| lock(s).answered).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests answered on any thread count, the thread's own shard outliving it.
    #[test]
    fn answered_sums_every_thread_and_outlives_them() {
        let before = answered();
        let took = Duration::from_millis(1);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        sample(Key::Request("/t/", "GET", 200), took);
                        sample(Key::ReadWait, took);
                    }
                })
            })
            .collect();
        for t in threads {
            assert!(t.join().is_ok());
        }
        // other tests of this binary may answer requests meanwhile: at least ours
        assert!(answered() - before >= 400);
        flush();
    }
}

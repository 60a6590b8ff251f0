//! Group commit (issue 34): the writes of concurrent requests share transactions.
//!
//! [`Db::write`] queues its closure and waits. One drainer at a time (a blocking thread,
//! started by the write that finds none running) takes the writer and, per transaction,
//! every write queued at that moment: each runs in its own savepoint, so one that fails
//! rolls back alone; the transaction commits once; then each write is answered. An
//! answer still means committed: nothing is answered before its commit returns, and a
//! failed commit answers every write of the batch with its error.
//!
//! A write never waits for company: the drainer starts on what is queued, and a batch
//! takes no new write once it holds [`MAX_WRITES`] or has run for [`MAX_WORK`], so the
//! first write of a batch waits at most that long for the others. Under light load a
//! batch is one write, run without a savepoint, as before.
//!
//! A storage fault can end a transaction inside SQLite (`SQLITE_FULL`, `SQLITE_IOERR`):
//! the writes of that batch that had succeeded are then answered with
//! [`DbError::Lost`] (a 503, as the fault itself), never as committed.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use tokio::sync::oneshot;

use crate::db::{Db, DbError, Fault, notifications, position};

/// The most writes one transaction takes.
pub const MAX_WRITES: usize = 128;
/// A batch takes no new write once it has run this long.
pub const MAX_WORK: Duration = Duration::from_millis(2);

/// How writes were committed since the database was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Writes that committed.
    pub committed: u64,
    /// Transactions that committed them (fewer than writes when batches formed).
    pub transactions: u64,
}

/// The writes waiting for the writer, and whether a drainer is taking them.
pub(in crate::db) struct Queue {
    jobs: Mutex<VecDeque<Box<dyn Job + Send>>>,
    draining: AtomicBool,
    max_writes: AtomicUsize,
    max_work_us: AtomicU64,
    committed: AtomicU64,
    transactions: AtomicU64,
}

impl Default for Queue {
    fn default() -> Self {
        Queue {
            jobs: Mutex::default(),
            draining: AtomicBool::new(false),
            max_writes: AtomicUsize::new(MAX_WRITES),
            max_work_us: AtomicU64::new(duration_us(MAX_WORK)),
            committed: AtomicU64::new(0),
            transactions: AtomicU64::new(0),
        }
    }
}

fn duration_us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Queue {
    fn jobs(&self) -> std::sync::MutexGuard<'_, VecDeque<Box<dyn Job + Send>>> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn pop(&self) -> Option<Box<dyn Job + Send>> {
        self.jobs().pop_front()
    }

    /// Whether the caller becomes the drainer (none was running).
    fn claim(&self) -> bool {
        self.draining.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }

    /// The drainer found the queue empty: it stops, unless a write came in meanwhile
    /// (pushed after its last look, by a writer that saw it still draining).
    fn keep_draining(&self) -> bool {
        self.draining.store(false, Ordering::SeqCst);
        !self.jobs().is_empty() && self.claim()
    }
}

/// Whether a write succeeded, and if not whether its error was a storage fault.
pub(in crate::db) enum Ran {
    Done,
    Failed { fault: bool },
}

/// One queued write, its types erased.
pub(in crate::db) trait Job {
    /// Nobody waits for the answer any more (the request was cancelled): not run.
    fn abandoned(&self) -> bool;
    /// Runs the write in the open transaction; its result is kept for [`Job::answer`].
    fn run(&mut self, tx: &Transaction<'_>) -> Ran;
    /// Sends the result: the write's own error if it failed, else its value if
    /// `commit` is `Ok`, else the commit's error.
    fn answer(self: Box<Self>, commit: Result<(), &DbError>);
}

/// A write closure, where its result goes, and what to record when it runs.
pub(in crate::db) struct Write<T, E, F> {
    f: Option<F>,
    out: Option<Result<T, E>>,
    reply: oneshot::Sender<Result<T, E>>,
    asked: Option<Instant>,
    span: tracing::Span,
}

impl<T, E, F> Write<T, E, F> {
    /// `f` and the receiver of its answer; with `asked`, the wait for the writer since
    /// then is recorded (hearth_db_write_wait_seconds).
    pub(in crate::db) fn new(
        f: F,
        asked: Option<Instant>,
    ) -> (Self, oneshot::Receiver<Result<T, E>>) {
        let (reply, answer) = oneshot::channel();
        let span = tracing::Span::current();
        (Write { f: Some(f), out: None, reply, asked, span }, answer)
    }
}

impl<T, E, F> Job for Write<T, E, F>
where
    F: FnOnce(&Transaction<'_>) -> Result<T, E>,
    E: From<DbError> + Fault,
{
    fn abandoned(&self) -> bool {
        self.reply.is_closed()
    }

    fn run(&mut self, tx: &Transaction<'_>) -> Ran {
        let _entered = self.span.enter();
        if let Some(t) = self.asked {
            crate::telemetry::db_write_wait(t.elapsed());
        }
        let out = match self.f.take() {
            // a panic fails this write alone (as a panicking blocking task did)
            Some(f) => catch_unwind(AssertUnwindSafe(|| f(tx)))
                .unwrap_or_else(|_| Err(DbError::Task("the write panicked".into()).into())),
            None => Err(DbError::Task("the write ran twice".into()).into()),
        };
        let ran = match &out {
            Ok(_) => Ran::Done,
            Err(e) => Ran::Failed { fault: e.is_storage_fault() },
        };
        self.out = Some(out);
        ran
    }

    fn answer(self: Box<Self>, commit: Result<(), &DbError>) {
        let out = match (self.out, commit) {
            (Some(Err(e)), _) => Err(e),
            (Some(Ok(v)), Ok(())) => Ok(v),
            (_, Err(e)) => Err(e.again().into()),
            (None, Ok(())) => Err(DbError::Task("the write did not run".into()).into()),
        };
        let _ = self.reply.send(out);
    }
}

impl Db {
    /// Queues `job`, starting a drainer when none runs.
    pub(in crate::db) fn enqueue(&self, job: Box<dyn Job + Send>) {
        self.queue.jobs().push_back(job);
        if self.queue.claim() {
            let this = self.clone();
            tokio::task::spawn_blocking(move || this.drain());
        }
    }

    /// The drainer: one transaction after another while writes are queued.
    /// Writes are taken off the queue only with the writer in hand, so a write never
    /// waits outside the queue (where the next batch could not take it).
    fn drain(&self) {
        loop {
            loop {
                let mut conn = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
                let Some(first) = self.queue.pop() else { break };
                self.batch(&mut conn, first, || self.queue.pop());
            }
            if !self.queue.keep_draining() {
                return;
            }
        }
    }

    /// Runs `first`, then what `more` gives while the batch has room, in one
    /// transaction on the writer `conn`, commits, and answers each write.
    pub(in crate::db) fn batch<J: Job + ?Sized>(
        &self,
        conn: &mut Connection,
        first: Box<J>,
        mut more: impl FnMut() -> Option<Box<J>>,
    ) {
        let Some(first) = self.admit(first) else { return };
        let started = crate::clock::instant();
        let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
            Ok(tx) => tx,
            Err(e) => return self.fail(vec![first], &DbError::from(e)),
        };
        // the first write runs without a savepoint: alone, its failure rolls the
        // transaction back, and the next write starts another
        let mut first = first;
        if let Ran::Failed { fault } = first.run(&tx) {
            drop(notifications::take_pushed());
            drop(tx);
            self.note_fault(fault);
            return first.answer(Ok(()));
        }
        let mut pushed = notifications::take_pushed();
        let mut done = vec![first];
        let max_writes = self.queue.max_writes.load(Ordering::Relaxed);
        let max_work = Duration::from_micros(self.queue.max_work_us.load(Ordering::Relaxed));
        while done.len() < max_writes && started.elapsed() < max_work {
            let Some(job) = more() else { break };
            let Some(mut job) = self.admit(job) else { continue };
            if let Err(e) = tx.execute_batch("SAVEPOINT write") {
                drop(tx);
                done.push(job);
                return self.fail(done, &DbError::from(e));
            }
            match job.run(&tx) {
                Ran::Done => match tx.execute_batch("RELEASE write") {
                    Ok(()) => {
                        pushed.append(&mut notifications::take_pushed());
                        done.push(job);
                    }
                    Err(e) => {
                        drop(tx);
                        done.push(job);
                        return self.fail(done, &DbError::from(e));
                    }
                },
                Ran::Failed { fault } => {
                    drop(notifications::take_pushed());
                    self.note_fault(fault);
                    let undone = tx.execute_batch("ROLLBACK TO write; RELEASE write");
                    job.answer(Ok(()));
                    if undone.is_err() || tx.is_autocommit() {
                        // the fault ended the whole transaction inside SQLite
                        drop(tx);
                        return self.fail(done, &DbError::Lost);
                    }
                }
            }
        }
        let committed = position::bump(&tx).and_then(|at| tx.commit().map(|()| at));
        match committed {
            Ok(at) => {
                self.position.fetch_max(at, Ordering::AcqRel);
                self.set_writable(true);
                self.queue.transactions.fetch_add(1, Ordering::Relaxed);
                let n = u64::try_from(done.len()).unwrap_or(u64::MAX);
                self.queue.committed.fetch_add(n, Ordering::Relaxed);
                if !pushed.is_empty()
                    && let Some(sink) = self.push_sink.get()
                {
                    sink(pushed);
                }
                for job in done {
                    job.answer(Ok(()));
                }
            }
            Err(e) => self.fail(done, &DbError::from(e)),
        }
    }

    /// `job`, unless it is abandoned or writes are held (then answered: refused before
    /// it begins, so nothing it would have written is acknowledged).
    fn admit<J: Job + ?Sized>(&self, job: Box<J>) -> Option<Box<J>> {
        if job.abandoned() {
            return None;
        }
        if self.writes_held() {
            job.answer(Err(&DbError::NotReplicated));
            return None;
        }
        Some(job)
    }

    /// Answers each of `jobs` with `e` (nothing of theirs was committed).
    fn fail<J: Job + ?Sized>(&self, jobs: Vec<Box<J>>, e: &DbError) {
        self.note_fault(e.is_storage_fault());
        for job in jobs {
            job.answer(Err(e));
        }
    }

    fn note_fault(&self, fault: bool) {
        if fault {
            self.set_writable(false);
        }
    }

    /// How writes were committed (see [`WriteStats`]).
    pub fn write_stats(&self) -> WriteStats {
        WriteStats {
            committed: self.queue.committed.load(Ordering::Relaxed),
            transactions: self.queue.transactions.load(Ordering::Relaxed),
        }
    }

    /// Sets how many writes one transaction takes at most, and for how long a batch
    /// takes new writes ([`MAX_WRITES`], [`MAX_WORK`]; one write: no group commit).
    pub fn set_group_commit(&self, max_writes: usize, max_work: Duration) {
        self.queue.max_writes.store(max_writes.max(1), Ordering::Relaxed);
        self.queue.max_work_us.store(duration_us(max_work), Ordering::Relaxed);
    }

    /// How many writes wait for the writer.
    pub fn queued_writes(&self) -> usize {
        self.queue.jobs().len()
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    #![expect(clippy::panic, reason = "a write that panics is one of the cases")]
    use std::sync::{Arc, mpsc};

    use super::*;
    use crate::db::notifications::{Cause, Pushed, Type};

    fn open() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let (db, _) = Db::open_or_create(&dir.path().join("h.db"), 0).unwrap();
        db.set_group_commit(64, Duration::from_secs(60));
        (dir, db)
    }

    fn add_user(tx: &Connection, name: &str) -> Result<i64, DbError> {
        tx.execute(
            "INSERT INTO user (username, username_key, date_joined) VALUES (?1, ?1, 0)",
            [name],
        )?;
        Ok(tx.last_insert_rowid())
    }

    fn users(db: &Db) -> Vec<String> {
        db.read_blocking(|c| {
            let mut s = c.prepare("SELECT username FROM user ORDER BY username")?;
            let names = s.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
            Ok::<_, DbError>(names)
        })
        .unwrap()
    }

    /// Holds the writer on another thread until the returned sender is dropped, so that
    /// writes queue up; returns once it is held.
    fn hold_writer(db: &Db) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let (held_tx, held_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let db = db.clone();
        let t = std::thread::spawn(move || {
            db.with_writer(|_| {
                held_tx.send(()).unwrap();
                let _ = release_rx.recv();
            });
        });
        held_rx.recv().unwrap();
        (release_tx, t)
    }

    async fn until_queued(db: &Db, n: usize) {
        while db.queued_writes() < n {
            tokio::task::yield_now().await;
        }
    }

    /// Queues `n` writes, `write(i, tx)` for each `i` in order, while the writer is
    /// held, then lets them run; their answers, in order.
    async fn queue_then_run<T: Send + 'static>(
        db: &Db,
        n: usize,
        write: impl Fn(usize, &Transaction<'_>) -> Result<T, DbError> + Send + Sync + 'static,
    ) -> Vec<Result<T, DbError>> {
        let write = Arc::new(write);
        let (release, held) = hold_writer(db);
        let mut tasks = Vec::new();
        for i in 0..n {
            let (db2, w) = (db.clone(), Arc::clone(&write));
            tasks.push(tokio::spawn(async move { db2.write(move |tx| w(i, tx)).await }));
            until_queued(db, i + 1).await;
        }
        drop(release);
        held.join().unwrap();
        let mut answered = Vec::new();
        for t in tasks {
            answered.push(t.await.unwrap());
        }
        answered
    }

    /// Issue 34: writes queued together commit in one transaction; one that fails and
    /// one that panics roll back alone, the others commit and are answered.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn queued_writes_share_one_transaction_and_a_failing_one_rolls_back_alone() {
        let (_dir, db) = open();
        let before = db.write_stats();
        // the first in the queue succeeds (it runs without a savepoint)
        let answered = queue_then_run(&db, 20, |i, tx| {
            add_user(tx, &format!("u{i:02}"))?;
            match i {
                7 => panic!("a write that panics"),
                i if i % 5 == 3 => Err(DbError::Task("refused".into())),
                _ => Ok(i),
            }
        })
        .await;
        let failed: Vec<usize> = (0..20).filter(|i| answered[*i].is_err()).collect();
        assert_eq!(failed, vec![3, 7, 8, 13, 18]);
        let kept: Vec<String> =
            (0..20).filter(|i| !failed.contains(i)).map(|i| format!("u{i:02}")).collect();
        let present: Vec<String> = users(&db).into_iter().filter(|u| u.starts_with('u')).collect();
        assert_eq!(present, kept);
        let after = db.write_stats();
        assert_eq!(after.transactions - before.transactions, 1, "one transaction");
        assert_eq!(after.committed - before.committed, 15);
    }

    /// A batch closes at its size limit; a failing first write (no savepoint) leaves the
    /// writes behind it to the next transaction.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batch_closes_at_its_limit_and_a_failing_first_write_rolls_back_alone() {
        let (_dir, db) = open();
        db.set_group_commit(3, Duration::from_secs(60));
        let before = db.write_stats();
        let answered = queue_then_run(&db, 8, |i, tx| {
            add_user(tx, &format!("b{i}"))?;
            if i == 0 { Err(DbError::Task("refused".into())) } else { Ok(()) }
        })
        .await;
        for (i, a) in answered.iter().enumerate() {
            assert_eq!(a.is_ok(), i != 0);
        }
        assert_eq!(users(&db).iter().filter(|u| u.starts_with('b')).count(), 7);
        let after = db.write_stats();
        // b0 alone (rolled back), then b1-b3, b4-b6, b7
        assert_eq!(after.transactions - before.transactions, 3);
        assert_eq!(after.committed - before.committed, 7);
    }

    /// A write whose request is gone before the writer takes it is not run.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancelled_write_still_queued_is_not_run() {
        let (_dir, db) = open();
        let (release, held) = hold_writer(&db);
        let db2 = db.clone();
        let gone = tokio::spawn(async move { db2.write(|tx| add_user(tx, "cancelled")).await });
        until_queued(&db, 1).await;
        gone.abort();
        assert!(gone.await.unwrap_err().is_cancelled());
        let db3 = db.clone();
        let kept = tokio::spawn(async move { db3.write(|tx| add_user(tx, "kept")).await });
        until_queued(&db, 2).await;
        drop(release);
        held.join().unwrap();
        kept.await.unwrap().unwrap();
        let names = users(&db);
        assert!(names.contains(&"kept".to_owned()) && !names.contains(&"cancelled".to_owned()));
    }

    /// The live socket hears of a write's notifications once it is committed, and never
    /// of a write that rolled back inside a batch.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batch_pushes_the_notifications_of_its_committed_writes_only() {
        let (_dir, db) = open();
        let ids = db
            .write(|tx| Ok::<_, DbError>((add_user(tx, "p1")?, add_user(tx, "p2")?)))
            .await
            .unwrap();
        let heard: Arc<Mutex<Vec<Pushed>>> = Arc::default();
        let sink = Arc::clone(&heard);
        db.set_push_sink(Box::new(move |p| sink.lock().unwrap().extend(p)));
        let kinds = [Type::UserFollow, Type::ConnectionRequest, Type::ConnectionAccept];
        queue_then_run(&db, 3, move |i, tx| {
            let c = Cause {
                user: ids.1,
                actor: ids.0,
                kind: kinds[i],
                item_pk: None,
                comment_pk: None,
            };
            notifications::notify(tx, c, 1)?;
            if i == 1 { Err(DbError::Task("refused".into())) } else { Ok(()) }
        })
        .await;
        let kinds: Vec<Type> = heard.lock().unwrap().iter().map(|p| p.kind).collect();
        assert_eq!(kinds, vec![Type::UserFollow, Type::ConnectionAccept]);
    }
}

//! The reader pool's tests: the cap and its waiters, releasing memory, and mapped
//! readers.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]
use super::*;

/// A WAL-mode file in a temporary directory, made with `sql`.
fn wal_file(sql: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(&format!("PRAGMA journal_mode = WAL; {sql}"))
        .unwrap();
    (dir, path)
}

#[test]
fn at_most_max_connections_and_waiters_get_the_returned_one() {
    let (_dir, path) = wal_file("CREATE TABLE t (x)");
    let readers = Readers::new(&path, 2);
    let a = readers.get().unwrap();
    let b = readers.get().unwrap();
    assert_eq!(readers.state().open, 2);
    let r = Arc::clone(&readers);
    let waiter = std::thread::spawn(move || {
        let c = r.get().unwrap();
        c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0)).unwrap()
    });
    std::thread::sleep(Duration::from_millis(50));
    drop(a);
    assert_eq!(waiter.join().unwrap(), 0);
    drop(b);
    assert_eq!(readers.state().open, 2);
    assert_eq!(readers.state().idle.len(), 2);
}

#[test]
fn releasing_memory_keeps_one_emptied_connection_and_never_touches_one_in_use() {
    let (_dir, path) = wal_file(
        "CREATE TABLE t (x);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
         INSERT INTO t SELECT randomblob(200) FROM n;",
    );
    let readers = Readers::new(&path, 3);
    let (a, b, busy) = (readers.get().unwrap(), readers.get().unwrap(), readers.get().unwrap());
    let used = |c: &Connection| {
        c.query_row("SELECT count(*) FROM t WHERE length(x) = 200", [], |r| r.get::<_, i64>(0))
            .unwrap()
    };
    assert_eq!((used(&a), used(&b), used(&busy)), (20000, 20000, 20000));
    drop((a, b));
    // two idle, one in use: one idle closed, the other emptied
    assert_eq!(readers.release_memory(), 2);
    assert_eq!(readers.state().open, 2);
    assert_eq!(readers.state().idle.len(), 1);
    // the one in use still reads, and comes back to the pool
    assert_eq!(used(&busy), 20000);
    drop(busy);
    assert_eq!(readers.state().idle.len(), 2);
    // new connections open on demand again, up to the cap
    let (c, d, e) = (readers.get().unwrap(), readers.get().unwrap(), readers.get().unwrap());
    assert_eq!((used(&c), used(&d), used(&e)), (20000, 20000, 20000));
    assert_eq!(readers.state().open, 3);
    drop((c, d, e));
    // nothing idle: nothing to do
    let (_c, _d, _e) = (readers.get().unwrap(), readers.get().unwrap(), readers.get().unwrap());
    assert_eq!(readers.release_memory(), 0);
}

#[test]
fn a_mapping_size_reaches_every_new_reader_survives_a_release_and_never_a_replicas() {
    let (_dir, path) = wal_file("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
    let mapped =
        |c: &Connection| c.query_row("PRAGMA mmap_size", [], |r| r.get::<_, i64>(0)).unwrap();
    let readers = Readers::new(&path, 2);
    let before = readers.get().unwrap();
    assert_eq!(mapped(&before), 0, "none by default");
    drop(before);
    readers.set_mmap(1 << 20);
    // the idle reader opened before was closed: both now map
    assert_eq!(readers.state().open, 0);
    let (a, b) = (readers.get().unwrap(), readers.get().unwrap());
    assert_eq!((mapped(&a), mapped(&b)), (1 << 20, 1 << 20));
    assert_eq!(a.query_row("SELECT x FROM t", [], |r| r.get::<_, i64>(0)).unwrap(), 1);
    drop((a, b));
    // a release unmaps the kept reader's pages and maps again on its next read
    assert_eq!(readers.release_memory(), 2);
    let kept = readers.get().unwrap();
    assert_eq!(mapped(&kept), 1 << 20);
    assert_eq!(kept.query_row("SELECT x FROM t", [], |r| r.get::<_, i64>(0)).unwrap(), 1);
    drop(kept);
    // serve's largest size is within SQLite's own limit (a larger one would be cut)
    readers.set_mmap(2047 << 20);
    assert_eq!(mapped(&readers.get().unwrap()), 2047 << 20);
    // a replica's readers never map
    let replica = Readers::following(&path, 1);
    replica.set_mmap(1 << 20);
    assert_eq!(replica.mmap(), 0);
}

/// A mapping is no cache: four mapped readers in parallel with a writer committing
/// batches see only whole commits, never fewer rows than before, and every row once
/// the writer is done (SQLite remaps after each change; a stale page would show).
#[test]
fn mapped_readers_in_parallel_with_a_writer_see_whole_commits_only() {
    let (_dir, path) = wal_file("CREATE TABLE t (batch INTEGER)");
    let readers = Readers::new(&path, 4);
    readers.set_mmap(8 << 20);
    let done = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (r, done) = (Arc::clone(&readers), Arc::clone(&done));
            std::thread::spawn(move || {
                let (mut last, mut reads) = (0, 0);
                while !done.load(Ordering::Relaxed) || reads == 0 {
                    let c = r.get().unwrap();
                    let (rows, batches): (i64, i64) = c
                        .query_row("SELECT count(*), count(DISTINCT batch) FROM t", [], |r| {
                            Ok((r.get(0)?, r.get(1)?))
                        })
                        .unwrap();
                    assert_eq!(rows, batches * 10, "a commit seen in part");
                    assert!(rows >= last, "{rows} rows after {last}");
                    (last, reads) = (rows, reads + 1);
                }
                reads
            })
        })
        .collect();
    let w = Connection::open(&path).unwrap();
    for batch in 0..200 {
        let tx = w.unchecked_transaction().unwrap();
        for _ in 0..10 {
            tx.execute("INSERT INTO t VALUES (?1)", [batch]).unwrap();
        }
        tx.commit().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    for t in threads {
        assert!(t.join().unwrap() > 0);
    }
    let c = readers.get().unwrap();
    assert_eq!(c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0)).unwrap(), 2000);
}

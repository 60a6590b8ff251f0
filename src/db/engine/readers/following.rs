//! Tests of a read replica's readers (`Readers::following`): a follower writing the
//! copy under a kept page cache.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]
use std::os::unix::fs::FileExt;

use super::*;
use crate::db::Db;

const PAGE: usize = 4096;

/// What `litestream restore -f` does to the copy: the pages of a transaction
/// written in place, here every page that differs except page 1 (a WAL-mode
/// primary's transactions rarely change it, so the change counter stays).
fn apply_like_the_follower(from: &Path, to: &Path) -> usize {
    let new = std::fs::read(from).unwrap();
    let old = std::fs::read(to).unwrap();
    assert_eq!(new.len(), old.len(), "same size: no page added");
    let f = std::fs::OpenOptions::new().write(true).open(to).unwrap();
    let mut written = 0;
    for (i, (a, b)) in new.chunks(PAGE).zip(old.chunks(PAGE)).enumerate().skip(1) {
        if a != b {
            f.write_all_at(a, (i * PAGE) as u64).unwrap();
            written += 1;
        }
    }
    f.sync_all().unwrap();
    written
}

fn names(db: &Db) -> String {
    db.read_blocking(|c| {
        c.query_row("SELECT group_concat(username) FROM user", [], |r| r.get::<_, String>(0))
            .map_err(DbError::from)
    })
    .unwrap()
}

#[tokio::test]
async fn a_replica_sees_pages_the_follower_writes_under_a_kept_cache() {
    let dir = tempfile::tempdir().unwrap();
    let primary = dir.path().join("p.db");
    let copy = dir.path().join("copy.db");
    let (p, _) = Db::open_or_create(&primary, 0).unwrap();
    let add = |name: &'static str| {
        p.write_blocking(move |tx| {
            tx.execute(
                "INSERT INTO user (username, username_key, date_joined) VALUES (?1, ?1, 0)",
                [name],
            )
            .map_err(DbError::from)
        })
        .unwrap();
    };
    add("a");
    // a copy as restore leaves it: the primary's file, WAL-mode header and all
    p.with_writer(|c| crate::db::checkpoint::truncate_now(c, "test")).unwrap();
    std::fs::copy(&primary, &copy).unwrap();
    let replica = Db::open_replica(&copy).unwrap();
    let header = std::fs::read(&copy).unwrap();
    assert_eq!((header[18], header[19]), (1, 1), "taken out of WAL mode");
    assert!(!copy.with_extension("db-wal").exists());
    assert_eq!(names(&replica), "a");
    let long_lived = Connection::open_with_flags(&copy, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let read = |c: &Connection| {
        c.query_row("SELECT group_concat(username) FROM user", [], |r| r.get::<_, String>(0))
            .unwrap()
    };
    assert_eq!(read(&long_lived), "a");

    // the primary writes; its file (rollback mode for the test) is copied over
    // page by page, leaving page 1 alone
    add("b");
    p.with_writer(|c| crate::db::checkpoint::truncate_now(c, "test")).unwrap();
    let mut snapshot = std::fs::read(&primary).unwrap();
    snapshot[18] = 1;
    snapshot[19] = 1;
    let staged = dir.path().join("staged.db");
    std::fs::write(&staged, &snapshot).unwrap();
    assert!(apply_like_the_follower(&staged, &copy) > 0);

    // the trap: a connection that kept its cache still reads the old page
    assert_eq!(read(&long_lived), "a", "SQLite keeps a cache while page 1 is unchanged");
    // the replica's readers do not: every pooled connection sees the write at once
    for _ in 0..crate::db::readers() {
        assert_eq!(names(&replica), "a,b");
    }
    let async_read = replica
        .read(|c| {
            c.query_row("SELECT count(*) FROM user", [], |r| r.get::<_, i64>(0))
                .map_err(DbError::from)
        })
        .await
        .unwrap();
    assert_eq!(async_read, 2);

    // a follower that restarts restores a new file in place: read too
    add("c");
    p.with_writer(|c| crate::db::checkpoint::truncate_now(c, "test")).unwrap();
    let fresh = dir.path().join("fresh.db");
    std::fs::copy(&primary, &fresh).unwrap();
    std::fs::rename(&fresh, &copy).unwrap();
    assert_eq!(names(&replica), "a,b,c");
    let header = std::fs::read(&copy).unwrap();
    assert_eq!((header[18], header[19]), (1, 1), "the new file too");

    // and a replica never writes
    assert!(!replica.probe_writable());
    let w = replica.write_blocking(|tx| tx.execute("DELETE FROM user", []).map_err(DbError::from));
    assert!(w.is_err());
    assert_eq!(names(&replica), "a,b,c");
}

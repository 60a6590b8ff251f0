//! The read path (`Db::read`): reads run on the runtime's own thread within a time
//! budget; one that overruns is interrupted and run again on a blocking thread, with
//! the same answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]

use std::time::Duration;

use hearth::db::DbError;

use crate::common::TestServer;

/// A query that takes a while: counts to `n` in a recursive CTE.
fn slow_count(c: &rusqlite::Connection, n: i64) -> Result<i64, DbError> {
    Ok(c.query_row(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?1)
         SELECT count(*) FROM k",
        [n],
        |r| r.get(0),
    )?)
}

#[tokio::test]
async fn fast_reads_run_inline_and_slow_ones_run_again_on_a_blocking_thread() {
    let s = TestServer::start().await;
    // a Db of its own on the server's file: the counts below are this test's reads only
    let db = &hearth::db::Db::open(s.state.db.path()).unwrap();
    // warm one connection, so an idle one exists
    db.read(|c| slow_count(c, 1)).await.unwrap();
    let before = db.read_stats();
    assert_eq!(db.read(|c| slow_count(c, 10)).await.unwrap(), 10);
    let after = db.read_stats();
    assert_eq!(after.inline, before.inline + 1, "{before:?} → {after:?}");
    assert_eq!(after.blocking, before.blocking);

    // a budget the query cannot meet: interrupted, then answered in full
    db.set_inline_budget(Duration::from_micros(50));
    let n = 3_000_000;
    assert_eq!(db.read(move |c| slow_count(c, n)).await.unwrap(), n);
    let slow = db.read_stats();
    assert_eq!(slow.overran, after.overran + 1, "{after:?} → {slow:?}");
    assert_eq!(slow.blocking, after.blocking + 1);
    // the connection it was interrupted on is sound for the next read
    assert_eq!(db.read(|c| slow_count(c, 5)).await.unwrap(), 5);

    // no budget: every read takes a blocking thread
    db.set_inline_budget(Duration::ZERO);
    let b = db.read_stats();
    db.read(|c| slow_count(c, 5)).await.unwrap();
    assert_eq!(db.read_stats().blocking, b.blocking + 1);
    assert_eq!(db.read_stats().inline, b.inline);
}

#[tokio::test]
async fn an_interrupted_read_leaves_no_transaction_open_and_errors_still_reach_the_caller() {
    let s = TestServer::start().await;
    let db = &s.state.db;
    db.set_inline_budget(Duration::from_micros(20));
    for _ in 0..20 {
        assert_eq!(db.read(|c| slow_count(c, 200_000)).await.unwrap(), 200_000);
    }
    // a real error (not an interruption) is the caller's, once
    let e = db
        .read(|c| Ok::<i64, DbError>(c.query_row("SELECT nope FROM nowhere", [], |r| r.get(0))?))
        .await;
    assert!(e.is_err());
    // and the API still answers
    db.set_inline_budget(hearth::db::INLINE_BUDGET);
    let r = s.get("/api/v2/reaction/", None).await;
    assert_eq!(r.status, reqwest::StatusCode::OK);
}

//! The per-user write quota (issue 27, Medium 8: one user made 12,168 posts in 10 s,
//! and 1 MiB posts grew the file by 133 MB in 6 s): a rate with a burst and a daily
//! budget of bytes, 429 with `Retry-After` beyond them, staff exempt. The clock is the
//! server's manual one: a window is a clock step, never a sleep.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use crate::common::{Resp, TestServer};
use hearth::clock::SECOND;
use hearth::config::{DEFAULT_USER_WRITE_BURST, DEFAULT_USER_WRITE_RATE};

/// A server with the quota's defaults (the harness turns the rate off).
async fn with_quota(daily_bytes: u64) -> TestServer {
    TestServer::start_with(|c| {
        c.user_write_rate = DEFAULT_USER_WRITE_RATE;
        c.user_write_burst = DEFAULT_USER_WRITE_BURST;
        c.user_daily_bytes = daily_bytes;
    })
    .await
}

/// `n` posts sent at once by the holder of `token`: the statuses, counted.
async fn parallel_posts(s: &TestServer, token: &str, n: usize) -> (usize, Vec<Resp>) {
    let all = join_all(
        (0..n).map(|i| s.post("/api/v2/post/", Some(token), json!({ "text": format!("p{i}") }))),
    )
    .await;
    let created = all.iter().filter(|r| r.status == StatusCode::CREATED).count();
    let refused = all.into_iter().filter(|r| r.status != StatusCode::CREATED).collect();
    (created, refused)
}

#[tokio::test]
async fn fifty_parallel_writes_by_one_user_pass_exactly_the_burst_then_the_rate() {
    let s = with_quota(0).await;
    let (_, ann) = s.login("ann");
    let (created, refused) = parallel_posts(&s, &ann, 50).await;
    assert_eq!(created, 30, "the burst");
    assert_eq!(refused.len(), 20);
    for r in &refused {
        r.assert_error(StatusCode::TOO_MANY_REQUESTS, "throttled");
        assert_eq!(r.header("retry-after"), Some("1"), "{}", r.text);
    }
    // nothing refused was stored
    let listed = s.get("/api/v2/post/?limit=100", Some(&ann)).await;
    assert_eq!(listed.json()["count"], 30, "{}", listed.text);
    // other users have buckets of their own; staff are exempt
    let (bob_id, bob) = s.login("bob");
    assert_eq!(parallel_posts(&s, &bob, 5).await.0, 5);
    let staff = s.user("root", None, true);
    assert_eq!(parallel_posts(&s, &s.jwt(staff), 50).await.0, 50);
    // one second later: exactly the rate again, whatever the concurrency
    s.clock.advance(SECOND);
    assert_eq!(parallel_posts(&s, &ann, 50).await.0, 10);
    // every kind of write counts (a vote, a follow), not only posts
    let post = s.create_id("/api/v2/post/", &bob, json!({"text": "vote on me"})).await;
    let r = s.post(&format!("/api/v2/post/{post}/vote/"), Some(&ann), json!({})).await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "throttled");
    let r = s.post_empty(&format!("/api/v2/user/{bob_id}/follow/"), Some(&ann)).await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "throttled");
    // reads are never charged
    assert_eq!(s.get("/api/v2/post/", Some(&ann)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_daily_budget_refuses_bytes_until_midnight_utc() {
    let s = with_quota(300_000).await;
    let (ann_id, ann) = s.login("ann");
    let big = "x".repeat(200_000);
    let r = s.post("/api/v2/post/", Some(&ann), json!({ "text": big })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = s.post("/api/v2/post/", Some(&ann), json!({ "text": big })).await;
    r.assert_error(StatusCode::TOO_MANY_REQUESTS, "throttled");
    let now = s.clock.now();
    let day = 86_400 * SECOND;
    let midnight = (now.div_euclid(day) + 1) * day;
    let wait = ((midnight - now) + SECOND - 1) / SECOND;
    assert_eq!(r.header("retry-after"), Some(wait.to_string().as_str()));
    // what still fits passes; a write without a body always does
    let r = s.post("/api/v2/post/", Some(&ann), json!({ "text": "small" })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let bob = s.user("bob", None, false);
    let r = s.post_empty(&format!("/api/v2/user/{bob}/follow/"), Some(&ann)).await;
    assert!(r.status.is_success(), "{}", r.text);
    // a write that failed stored nothing and costs nothing: 90 KB refused for a bad
    // field leave room for a 90 KB post
    let pad = "y".repeat(90_000);
    let r = s.post("/api/v2/post/", Some(&ann), json!({ "text": pad, "categories": [999] })).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = s.post("/api/v2/post/", Some(&ann), json!({ "text": pad })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // staff have no budget
    let root = s.user("root", None, true);
    for _ in 0..3 {
        let r = s.post("/api/v2/post/", Some(&s.jwt(root)), json!({ "text": big })).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    // a new UTC day, a new budget (a token minted then: the day may outlast ann's)
    s.clock.advance(midnight - now);
    let r = s.post("/api/v2/post/", Some(&s.jwt(ann_id)), json!({ "text": big })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

#[tokio::test]
async fn zero_turns_each_limit_off() {
    let s = TestServer::start_with(|c| {
        c.user_write_rate = 0;
        c.user_daily_bytes = 0;
    })
    .await;
    let (_, ann) = s.login("ann");
    assert_eq!(parallel_posts(&s, &ann, 50).await.0, 50);
    let big = "x".repeat(900_000);
    for _ in 0..3 {
        let r = s.post("/api/v2/post/", Some(&ann), json!({ "text": big })).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    assert_eq!(s.state.write_quota.tracked(), 0);
}

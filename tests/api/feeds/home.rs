//! The home feed: own items, followed users', followed categories', then explore's.

use reqwest::StatusCode;
use serde_json::json;

use super::{posts, units};
use crate::common::TestServer;

#[tokio::test]
async fn home_merges_follows_then_tops_up_from_explore() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("carol");
    let (_, d) = s.login("dave");
    let [bread, cheese] = s.categories(["Bread", "Cheese"]);
    s.post(&format!("/api/v2/user/{bob}/follow/"), Some(&a), json!({})).await;
    s.post(&format!("/api/v2/category/{bread}/follow/"), Some(&a), json!({})).await;
    let mut post = Vec::new();
    // own, followed user, followed category (by carol), other (dave), bob in bread (both sources)
    for (t, cats) in [
        (&a, json!([])),
        (&b, json!([])),
        (&c, json!([bread])),
        (&d, json!([cheese])),
        (&b, json!([bread])),
    ] {
        s.clock.advance(1_000_000);
        post.push(s.create_id("/api/v2/post/", t, json!({"text": "x", "categories": cats})).await);
    }
    let r = s.get("/api/v2/feed/", Some(&a)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // the four of alice's sources newest first (bob's bread post once), then dave's
    assert_eq!(units(&r.json()), posts(&[post[4], post[2], post[1], post[0], post[3]]));
    assert_eq!(r.json()["count"], 5);
    // pages split the merge and the top-up alike
    let r = s.get("/api/v2/feed/?limit=2&offset=3", Some(&a)).await;
    assert_eq!(units(&r.json()), posts(&[post[0], post[3]]));
    let r = s.get("/api/v2/feed/?limit=2&offset=4", Some(&a)).await;
    assert_eq!(units(&r.json()), posts(&[post[3]]));
    // an older followed item with new activity comes first
    s.clock.advance(1_000_000);
    s.create_id("/api/v2/comment/", &d, json!({"post": post[1], "text": "hey"})).await;
    let r = s.get("/api/v2/feed/?limit=1", Some(&a)).await;
    assert_eq!(units(&r.json()), posts(&[post[1]]));
    // dave's own home: his, then the rest
    let r = s.get("/api/v2/feed/?limit=1", Some(&d)).await;
    assert_eq!(units(&r.json()), posts(&[post[3]]));
    // hidden authors leave home too
    s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&a), json!({})).await;
    let r = s.get("/api/v2/feed/", Some(&a)).await;
    assert_eq!(units(&r.json()), posts(&[post[2], post[0], post[3]]));
    assert_eq!(r.json()["count"], 3);
    // home needs a caller
    assert_eq!(s.status("/api/v2/feed/", None).await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn home_pages_through_many_sources_without_gaps_or_repeats() {
    let s = TestServer::start().await;
    let (me, t) = s.login("me");
    let mut tokens = Vec::new();
    for i in 0..12 {
        let (id, tok) = s.login(&format!("u{i}"));
        if i % 2 == 0 {
            s.post(&format!("/api/v2/user/{id}/follow/"), Some(&t), json!({})).await;
        }
        tokens.push(tok);
    }
    let cats = s.categories(["A", "B", "C"]);
    s.post(&format!("/api/v2/category/{}/follow/", cats[0]), Some(&t), json!({})).await;
    let mut all = Vec::new();
    for i in 0..60 {
        s.clock.advance(1_000);
        let tok = &tokens[i % 12];
        let cat = cats[i % 3];
        all.push(
            s.create_id("/api/v2/post/", tok, json!({"text": "x", "categories": [cat]})).await,
        );
    }
    let _ = me;
    let mut seen = Vec::new();
    for offset in (0..70).step_by(7) {
        let r = s.get(&format!("/api/v2/feed/?limit=7&offset={offset}"), Some(&t)).await;
        seen.extend(units(&r.json()).into_iter().map(|(_, id)| id));
    }
    let mut sorted = seen.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 60, "every item once: {seen:?}");
    assert_eq!(seen.len(), 60);
    // followed (even authors, or category A) first, each part newest first
    let followed = |i: usize| (i % 12).is_multiple_of(2) || i.is_multiple_of(3);
    let first_part: Vec<i64> = (0..60).rev().filter(|i| followed(*i)).map(|i| all[i]).collect();
    assert_eq!(seen[..first_part.len()], first_part[..]);
}

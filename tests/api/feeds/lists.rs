//! Explore, a category's and a user's feed: order by last activity, paging, privacy,
//! units as the kit reads them, read marks.

use reqwest::StatusCode;
use serde_json::json;

use super::{posts, units};
use crate::common::TestServer;

#[tokio::test]
async fn explore_orders_by_last_activity_and_leaves_out_the_deleted_and_the_hidden() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("carol");
    let mut ids = Vec::new();
    for (i, t) in [&a, &b, &a, &b].into_iter().enumerate() {
        s.clock.advance(1_000_000);
        ids.push(s.create_id("/api/v2/post/", t, json!({"text": format!("post {i}")})).await);
    }
    let d = s.create_id("/api/v2/discussion/", &a, json!({"title": "A question"})).await;
    // newest first
    let r = s.get("/api/v2/feed/explore/", None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut want = vec![("discussion".to_owned(), d)];
    want.extend(posts(&[ids[3], ids[2], ids[1], ids[0]]));
    assert_eq!(units(&r.json()), want);
    assert_eq!(r.json()["count"], 5);
    // a comment moves its item to the top; its reply too
    s.clock.advance(1_000_000);
    let cm = s.create_id("/api/v2/comment/", &c, json!({"post": ids[0], "text": "hi"})).await;
    let r = s.get("/api/v2/feed/explore/?limit=2", None).await;
    assert_eq!(units(&r.json()), vec![("post".into(), ids[0]), ("discussion".into(), d)]);
    let unit = &r.json()["results"][0];
    assert_eq!(unit["seen"], false);
    assert_eq!(unit["has_boost"], false);
    assert_eq!(unit["activities"][0]["type"], "comment");
    assert_eq!(unit["activities"][0]["comment"]["id"], cm);
    assert_eq!(unit["activities"][0]["author"]["username"], "carol");
    assert_eq!(unit["post"]["last_activity_at"], unit["activities"][0]["active_at"]);
    // the next page follows on
    let r = s.get("/api/v2/feed/explore/?limit=2&offset=2", None).await;
    assert_eq!(units(&r.json()), posts(&[ids[3], ids[2]]));
    assert!(r.json()["next"].as_str().unwrap().contains("offset=4"));
    // deleting the comment puts the item back where it was
    s.delete(&format!("/api/v2/comment/{cm}/"), Some(&c)).await;
    let r = s.get("/api/v2/feed/explore/?limit=1&offset=4", None).await;
    assert_eq!(units(&r.json()), posts(&[ids[0]]));
    // a deleted item leaves every feed and every count
    s.delete(&format!("/api/v2/post/{}/", ids[3]), Some(&b)).await;
    let r = s.get("/api/v2/feed/explore/", Some(&c)).await;
    assert_eq!(r.json()["count"], 4);
    assert!(!units(&r.json()).contains(&("post".into(), ids[3])));
    // the authors the caller hides are left out, and out of the count
    s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&c), json!({})).await;
    let r = s.get("/api/v2/feed/explore/", Some(&c)).await;
    assert_eq!(
        units(&r.json()),
        vec![("discussion".into(), d), ("post".into(), ids[2]), ("post".into(), ids[0])]
    );
    assert_eq!(r.json()["count"], 3);
    s.assert_consistent();
}

#[tokio::test]
async fn a_category_feed_and_a_user_feed_hold_their_own_items() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let [bread, cheese] = s.categories(["Bread", "Cheese"]);
    s.clock.advance(1_000_000);
    let p1 = s.create_id("/api/v2/post/", &a, json!({"text": "rye", "categories": [bread]})).await;
    s.clock.advance(1_000_000);
    let p2 =
        s.create_id("/api/v2/post/", &b, json!({"text": "brie", "categories": [cheese]})).await;
    s.clock.advance(1_000_000);
    let p3 = s
        .create_id("/api/v2/post/", &b, json!({"text": "both", "categories": [bread, cheese]}))
        .await;
    let r = s.get(&format!("/api/v2/category/{bread}/feed/"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(units(&r.json()), posts(&[p3, p1]));
    assert_eq!(r.json()["count"], 2);
    // activity reorders a category's feed too (its links carry the item's activity)
    s.clock.advance(1_000_000);
    s.create_id("/api/v2/comment/", &b, json!({"post": p1, "text": "nice"})).await;
    assert_eq!(
        units(&s.get(&format!("/api/v2/category/{bread}/feed/"), None).await.json()),
        posts(&[p1, p3])
    );
    let r = s.get(&format!("/api/v2/user/{bob}/feed/"), None).await;
    assert_eq!(units(&r.json()), posts(&[p3, p2]));
    assert_eq!(
        units(&s.get(&format!("/api/v2/user/{alice}/feed/"), None).await.json()),
        posts(&[p1])
    );
    // a hidden author's feed is empty for the hider
    s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&a), json!({})).await;
    let r = s.get(&format!("/api/v2/user/{bob}/feed/"), Some(&a)).await;
    assert_eq!((r.json()["count"].as_i64(), units(&r.json())), (Some(0), vec![]));
    assert_eq!(
        units(&s.get(&format!("/api/v2/category/{bread}/feed/"), Some(&a)).await.json()),
        posts(&[p1])
    );
    // unknown and deleted subjects are 404
    assert_eq!(s.status("/api/v2/category/999/feed/", None).await, StatusCode::NOT_FOUND);
    assert_eq!(s.status("/api/v2/user/999/feed/", None).await, StatusCode::NOT_FOUND);
    s.soft_delete_user(bob);
    assert_eq!(s.status(&format!("/api/v2/user/{bob}/feed/"), None).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn read_marks_are_per_user_and_new_activity_unmarks() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "hello"})).await;
    let seen = |t: String| {
        let s = &s;
        async move {
            s.get("/api/v2/feed/explore/", Some(&t)).await.json()["results"][0]["seen"].clone()
        }
    };
    assert_eq!(seen(b.clone()).await, false);
    let r = s.post("/api/v2/feed/read/", Some(&b), json!({"object": [p]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(seen(b.clone()).await, true);
    assert_eq!(seen(a.clone()).await, false, "marks are the marker's own");
    let r = s.get("/api/v2/feed/unseen/count/", Some(&a)).await;
    assert_eq!(r.json(), json!({"total": 1, "count_by_category": []}));
    s.clock.advance(1_000_000);
    s.create_id("/api/v2/comment/", &a, json!({"post": p, "text": "more"})).await;
    assert_eq!(seen(b.clone()).await, false, "a new comment makes it unseen again");
    // bad bodies
    s.post("/api/v2/feed/read/", Some(&b), json!({"object": "x"}))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "parse_error");
    let many: Vec<i64> = (1..=101).collect();
    s.post("/api/v2/feed/read/", Some(&b), json!({"object": many}))
        .await
        .assert_field_error("object", "max_length");
    assert_eq!(
        s.post("/api/v2/feed/read/", None, json!({"object": [p]})).await.status,
        StatusCode::UNAUTHORIZED
    );
    // unknown ids are skipped
    let r = s.post("/api/v2/feed/read/", Some(&b), json!({"object": [999]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn trending_ranks_a_categorys_window_by_comments_and_votes() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("carol");
    let [bread] = s.categories(["Bread"]);
    s.post(&format!("/api/v2/category/{bread}/follow/"), Some(&a), json!({})).await;
    s.post(&format!("/api/v2/category/{bread}/follow/"), Some(&b), json!({})).await;
    let p1 = s.create_id("/api/v2/post/", &a, json!({"text": "a", "categories": [bread]})).await;
    s.clock.advance(1_000_000);
    let p2 = s.create_id("/api/v2/post/", &b, json!({"text": "b", "categories": [bread]})).await;
    s.clock.advance(1_000_000);
    let p3 = s.create_id("/api/v2/post/", &b, json!({"text": "c", "categories": [bread]})).await;
    s.create_id("/api/v2/comment/", &c, json!({"post": p1, "text": "x"})).await;
    s.post(&format!("/api/v2/post/{p1}/vote/"), Some(&c), json!({})).await;
    s.post(&format!("/api/v2/post/{p2}/vote/"), Some(&c), json!({})).await;
    let r = s.get(&format!("/api/v2/category/{bread}/feed/trending/"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(units(&r.json()), posts(&[p1, p2, p3]));
    // people: followers who wrote there, the most prolific first; carol follows not
    let r = s.get(&format!("/api/v2/category/{bread}/followers/trending/"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.ids(), vec![bob, alice]);
}

//! SPEC §10's notifications through the API: written with their causes, taken out with
//! their undoing, counted exactly, read and marked as the kit does.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

mod banners;
mod item_switches;
mod live;

/// The `(type, actor username)` of every notification of a page, in order.
fn types(page: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for g in page["results"].as_array().unwrap_or(&Vec::new()) {
        for n in g["aggregated"].as_array().unwrap_or(&Vec::new()) {
            let who = match n["type"].as_str().unwrap_or("") {
                "comment" | "nested_comment" => n["comment"]["author"]["username"].clone(),
                "vote_up" => n["user"]["username"].clone(),
                "user_follow" => n["follower"]["username"].clone(),
                _ => n["comment"]["author"]["username"]
                    .as_str()
                    .map(Value::from)
                    .unwrap_or_else(|| n["post"]["author"]["username"].clone()),
            };
            out.push((
                n["type"].as_str().unwrap_or("").to_owned(),
                who.as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    out
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

async fn unseen(s: &TestServer, token: &str) -> (i64, i64) {
    let me = s.get("/api/v2/user/me/", Some(token)).await.json();
    let count = s.get("/api/v2/notification/unseen/count/", Some(token)).await.json();
    (me["unseen_interactions_counter"].as_i64().unwrap(), count["count"].as_i64().unwrap())
}

#[tokio::test]
async fn causes_notify_their_recipients_and_undoing_them_takes_it_back() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let (carol, c) = s.login("carol");
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "my post"})).await;
    s.clock.advance(1_000);
    let cm = s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "nice"})).await;
    s.clock.advance(1_000);
    // carol replies to bob's comment: bob (nested_comment) and alice (comment)
    s.create_id("/api/v2/comment/", &c, json!({"post": p, "parent": cm, "text": "agreed"})).await;
    s.clock.advance(1_000);
    s.post(&format!("/api/v2/post/{p}/vote/"), Some(&b), json!({})).await;
    s.clock.advance(1_000);
    s.post(&format!("/api/v2/user/{alice}/follow/"), Some(&c), json!({})).await;
    s.clock.advance(1_000);
    // a mention in the kit's markup, and one of the author herself (never notified)
    let mention = format!(
        r#"<p>hey <mention id="{carol}">@carol</mention> <mention id="{alice}">@alice</mention></p>"#
    );
    s.create_id("/api/v2/post/", &a, json!({"text": mention})).await;
    // alice's own comment on her post notifies nobody
    s.create_id("/api/v2/comment/", &a, json!({"post": p, "text": "thanks"})).await;

    assert_eq!(unseen(&s, &a).await, (4, 4));
    let r = s.get("/api/v2/notification/", Some(&a)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        types(&r.json()),
        pairs(&[
            ("user_follow", "carol"),
            ("vote_up", "bob"),
            ("comment", "carol"),
            ("comment", "bob")
        ])
    );
    // the two comments on the post are one group under it; they were new before this read
    let groups = r.json()["results"].as_array().unwrap().clone();
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[2]["post"]["id"], p);
    assert_eq!(groups[2]["aggregated"].as_array().unwrap().len(), 2);
    assert_eq!(groups[2]["is_new"], true);
    // reading marked them seen
    assert_eq!(unseen(&s, &a).await, (0, 0));
    assert_eq!(
        s.get("/api/v2/notification/", Some(&a)).await.json()["results"][0]["is_new"],
        false
    );
    let bobs = s.get("/api/v2/notification/", Some(&b)).await.json();
    assert_eq!(types(&bobs), pairs(&[("nested_comment", "carol")]));
    let carols = s.get("/api/v2/notification/", Some(&c)).await.json();
    assert_eq!(carols["results"][0]["aggregated"][0]["type"], "mention");

    // undoing: unvote, unfollow, deleting the comment
    s.post(&format!("/api/v2/post/{p}/vote/"), Some(&b), json!({})).await;
    s.post(&format!("/api/v2/user/{alice}/follow/"), Some(&c), json!({})).await;
    s.delete(&format!("/api/v2/comment/{cm}/"), Some(&b)).await;
    assert_eq!(
        types(&s.get("/api/v2/notification/", Some(&a)).await.json()),
        pairs(&[("comment", "carol")])
    );
    // carol's reply is still there (a reply outlives the comment it answers): bob's
    // notification of it stays
    assert_eq!(
        types(&s.get("/api/v2/notification/", Some(&b)).await.json()),
        pairs(&[("nested_comment", "carol")])
    );
    s.assert_consistent();
}

#[tokio::test]
async fn hidden_actors_notify_nobody_and_marks_are_the_callers_own() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&a), json!({})).await;
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "x"})).await;
    s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "y"})).await;
    s.post(&format!("/api/v2/user/{alice}/follow/"), Some(&b), json!({})).await;
    assert_eq!(unseen(&s, &a).await, (0, 0));
    // bob is notified of alice's follow; alice cannot mark bob's notification
    s.post(&format!("/api/v2/user/{bob}/follow/"), Some(&a), json!({})).await;
    let sid = s.get("/api/v2/notification/unseen/count/", Some(&b)).await;
    assert_eq!(sid.json()["count"], 1);
    let id: i64 = s.db_read(|c| {
        c.query_row("SELECT id FROM notification WHERE user_id = ?1", [bob], |r| r.get(0))
    });
    let r = s.post("/api/v2/notification/read/", Some(&a), json!({"sids": [id.to_string()]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(unseen(&s, &b).await, (1, 1));
    let r = s.post("/api/v2/notification/read/", Some(&b), json!({"sids": [id.to_string()]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(unseen(&s, &b).await, (0, 0));
    s.post("/api/v2/notification/read/", Some(&b), json!({"sids": ["x"]}))
        .await
        .assert_field_error("sids", "invalid");
    assert_eq!(s.status("/api/v2/notification/", None).await, StatusCode::UNAUTHORIZED);
    s.assert_consistent();
}

#[tokio::test]
async fn counters_stay_exact_under_fifty_parallel_causes_and_undos() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "x"})).await;
    let mut tokens = Vec::new();
    for i in 0..50 {
        tokens.push(s.login(&format!("u{i}")).1);
    }
    // everyone votes and follows at once; then every even one takes both back, at once
    let round = |which: Vec<String>| {
        let s = &s;
        async move {
            let calls = which.iter().map(|t| async move {
                let v = s.post(&format!("/api/v2/post/{p}/vote/"), Some(t), json!({})).await;
                let f = s.post(&format!("/api/v2/user/{alice}/follow/"), Some(t), json!({})).await;
                assert_eq!((v.status, f.status), (StatusCode::NO_CONTENT, StatusCode::NO_CONTENT));
            });
            futures_util::future::join_all(calls).await;
        }
    };
    round(tokens.clone()).await;
    assert_eq!(unseen(&s, &a).await, (100, 100));
    round(tokens.iter().step_by(2).cloned().collect()).await;
    assert_eq!(unseen(&s, &a).await, (50, 50));
    s.assert_consistent();
}

//! Contribution lists: pagination, newest first, and the comment filters.

use hearth::model::contribution::Kind;
use reqwest::StatusCode;
use serde_json::json;

use super::{create, create_id, item};
use crate::common::TestServer;

#[tokio::test]
async fn lists_are_paginated_newest_first_and_filter_comments() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let mut posts = Vec::new();
    for i in 0..5 {
        s.clock.advance(1_000_000);
        let j = create(&s, &a, Kind::Post, json!({"text": format!("p{i}")})).await;
        posts.push(j["id"].as_i64().unwrap());
    }
    let r = s.get("/api/v2/post/?limit=2&offset=1&x=y", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let j = r.json();
    assert_eq!(j["count"], 5);
    assert_eq!(r.ids(), vec![posts[3], posts[2]]);
    assert_eq!(j["next"], format!("{}/api/v2/post/?x=y&limit=2&offset=3", s.url));
    assert_eq!(j["previous"], format!("{}/api/v2/post/?x=y&limit=2", s.url));
    for q in ["limit=0", "limit=x", "offset=-1", "limit="] {
        let r = s.get(&format!("/api/v2/post/?{q}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{q}");
    }

    let st = create_id(&s, &a, Kind::Status, json!({"text": "s"})).await;
    let comment = |body| create_id(&s, &a, Kind::Comment, body);
    let on_p0 = comment(json!({"text": "a", "post": posts[0]})).await;
    let on_p1 = comment(json!({"text": "b", "post": posts[1]})).await;
    let on_st = comment(json!({"text": "c", "status": st})).await;
    let list = |q: String| {
        let s = &s;
        async move { s.get(&format!("/api/v2/comment/{q}"), None).await }
    };
    assert_eq!(list(String::new()).await.ids(), vec![on_st, on_p1, on_p0]);
    assert_eq!(list(format!("?post={}", posts[0])).await.ids(), vec![on_p0]);
    assert_eq!(list(format!("?status={st}")).await.ids(), vec![on_st]);
    assert_eq!(list("?discussion=1".into()).await.ids(), Vec::<i64>::new());
    assert_eq!(list(format!("?post={}&status={st}", posts[0])).await.ids(), Vec::<i64>::new());
    let r = list("?post=abc".into()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["errors"][0]["field"], "post");
    // a deleted comment leaves the filtered list
    s.delete(&item(Kind::Comment, on_p0), Some(&a)).await;
    let r = list(format!("?post={}", posts[0])).await;
    assert_eq!(r.json()["count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn a_hiders_count_is_the_live_items_of_the_authors_it_sees() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (cy, c) = s.login("cy");
    for (token, n) in [(&a, 3), (&b, 4), (&c, 2)] {
        for i in 0..n {
            create(&s, token, Kind::Post, json!({"text": format!("p{i}")})).await;
        }
    }
    let gone = create_id(&s, &b, Kind::Post, json!({"text": "deleted"})).await;
    s.delete(&item(Kind::Post, gone), Some(&b)).await;
    s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&a), json!({})).await;
    let r = s.get("/api/v2/post/?limit=2", Some(&a)).await;
    assert_eq!(r.json()["count"], 5, "alice's 3 and cy's 2");
    s.post(&format!("/api/v2/user/{cy}/hide/"), Some(&a), json!({})).await;
    let r = s.get("/api/v2/post/?limit=10", Some(&a)).await;
    assert_eq!((r.json()["count"].clone(), r.ids().len()), (json!(3), 3));
    // everyone else still counts all nine
    assert_eq!(s.get("/api/v2/post/", Some(&b)).await.json()["count"], 9);
}

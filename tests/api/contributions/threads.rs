//! Comment threads (issue 26): top-level comments of an item, a comment's replies with
//! `parent`, `ordering`, a comment's `comment_count` and `latest_comments`.

use hearth::model::contribution::Kind;
use reqwest::StatusCode;
use serde_json::json;

use super::{a_post, create_id, item};
use crate::common::TestServer;

#[tokio::test]
async fn threads_list_top_level_comments_and_replies_by_parent() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let post = a_post(&s, &a).await;
    let other = a_post(&s, &a).await;
    let comment = |token: String, body| {
        let s = &s;
        async move { create_id(s, &token, Kind::Comment, body).await }
    };
    s.clock.advance(1_000_000);
    let top1 = comment(a.clone(), json!({"text": "first", "post": post})).await;
    s.clock.advance(1_000_000);
    let top2 = comment(b.clone(), json!({"text": "second", "post": post})).await;
    let mut replies = Vec::new();
    for i in 0..5 {
        s.clock.advance(1_000_000);
        let token = if i % 2 == 0 { &b } else { &a };
        replies.push(
            comment(token.clone(), json!({"text": format!("r{i}"), "post": post, "parent": top1}))
                .await,
        );
    }
    let elsewhere = comment(a.clone(), json!({"text": "x", "post": other})).await;

    // an item's list holds its top-level comments only, newest first by default
    let list = |q: String| {
        let s = &s;
        async move { s.get(&format!("/api/v2/comment/?{q}"), None).await }
    };
    let r = list(format!("post={post}")).await;
    assert_eq!(r.ids(), vec![top2, top1]);
    assert_eq!(r.json()["count"], 2);
    assert_eq!(list(format!("post={post}&ordering=added_at")).await.ids(), vec![top1, top2]);
    assert_eq!(list(format!("post={post}&ordering=-added_at")).await.ids(), vec![top2, top1]);
    assert_eq!(list(format!("post={post}&ordering=connection")).await.ids(), vec![top1, top2]);
    list(format!("post={post}&ordering=votes")).await.assert_field_error("ordering", "invalid");

    // a comment's replies, paginated, in either order, counted by its comment_count
    let r = list(format!("post={post}&parent={top1}&limit=2&ordering=-added_at")).await;
    assert_eq!(r.ids(), vec![replies[4], replies[3]]);
    assert_eq!(r.json()["count"], 5);
    assert!(r.json()["next"].as_str().unwrap().contains("offset=2"));
    assert_eq!(list(format!("parent={top1}&ordering=added_at&limit=2")).await.ids(), replies[..2]);
    let top = s.get(&item(Kind::Comment, top1), None).await.json();
    assert_eq!(top["comment_count"], 5);
    assert_eq!(s.get(&item(Kind::Post, post), None).await.json()["comment_count"], 7);
    // latest_comments: the newest three replies, oldest of them first, as objects
    let latest: Vec<i64> = top["latest_comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(latest, replies[2..]);
    assert_eq!(top["latest_comments"][0]["parent"], top1);
    assert_eq!(top["latest_comments"][0]["html"], "r2");
    // in a list too
    let listed = list(format!("post={post}&ordering=added_at")).await.json();
    assert_eq!(listed["results"][0]["latest_comments"].as_array().unwrap().len(), 3);
    assert_eq!(listed["results"][1]["latest_comments"], json!([]));

    // a parent on another item, or a deleted or unknown one, matches nothing
    assert_eq!(list(format!("post={other}&parent={top1}")).await.ids(), Vec::<i64>::new());
    assert_eq!(list("parent=999".into()).await.ids(), Vec::<i64>::new());
    list("parent=x".into()).await.assert_field_error("parent", "invalid");
    assert_eq!(list(format!("post={other}")).await.ids(), vec![elsewhere]);

    // deleting a reply takes it out of the count and the list, restoring puts it back
    s.delete(&item(Kind::Comment, replies[4]), Some(&b)).await;
    let r = list(format!("parent={top1}")).await;
    assert_eq!((r.json()["count"].clone(), r.ids().len()), (json!(4), 4));
    s.assert_consistent();
    // a hidden author's replies leave the hider's view (and its count)
    let r = s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&a), json!({})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.get(&format!("/api/v2/comment/?parent={top1}"), Some(&a)).await;
    assert_eq!(r.ids(), vec![replies[3], replies[1]]);
    assert_eq!(r.json()["count"], 2);
    let top = s.get(&item(Kind::Comment, top1), Some(&a)).await.json();
    assert!(top["latest_comments"].as_array().unwrap().iter().all(|c| c["author"]["id"] != bob));
    s.assert_consistent();
}

//! A member's switches on one item: stopping its notifications (`POST /api/v2/{type}/
//! {id}/suspend/`, the kit's contribution menu): nothing about the item reaches them
//! until they turn it back on; and following it (`.../follow/`, the bookmark button):
//! they hear of every new comment on it.

use reqwest::StatusCode;
use serde_json::json;

use super::{pairs, types};
use crate::common::TestServer;

#[tokio::test]
async fn a_stopped_item_notifies_its_member_of_nothing_until_turned_back_on() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let (carol, c) = s.login("carol");
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "bread"})).await;
    let other = s.create_id("/api/v2/post/", &a, json!({"text": "cake"})).await;
    let (switch, state) =
        (format!("/api/v2/post/{p}/suspend/"), format!("/api/v2/post/{p}/suspended/"));
    let r = s.post(&switch, Some(&a), json!({})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(s.get(&state, Some(&a)).await.json(), json!({"suspended": true}));
    assert_eq!(s.get(&format!("/api/v2/post/{p}/"), Some(&a)).await.json()["suspended"], true);
    assert_eq!(s.get(&format!("/api/v2/post/{p}/"), Some(&b)).await.json()["suspended"], false);
    // a comment, a vote and a mention of alice in a reply: nothing reaches her
    let note = s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "yum"})).await;
    s.post(&format!("/api/v2/post/{p}/vote/"), Some(&c), json!({})).await;
    let mention = format!(
        r#"<p><mention id="1">@alice</mention> and <mention id="{carol}">@carol</mention></p>"#
    );
    s.create_id("/api/v2/comment/", &c, json!({"post": p, "parent": note, "text": mention})).await;
    // the other item still notifies her
    s.create_id("/api/v2/comment/", &b, json!({"post": other, "text": "too"})).await;
    let list = s.get("/api/v2/notification/", Some(&a)).await.json();
    assert_eq!(types(&list), pairs(&[("comment", "bob")]), "{list}");
    // bob's reply notification is his (he did not stop the item)
    assert_eq!(
        types(&s.get("/api/v2/notification/", Some(&b)).await.json()),
        pairs(&[("nested_comment", "carol")])
    );
    // back on: the next comment reaches her
    assert_eq!(s.post(&switch, Some(&a), json!({})).await.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&state, Some(&a)).await.json(), json!({"suspended": false}));
    s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "again"})).await;
    let list = s.get("/api/v2/notification/", Some(&a)).await.json();
    assert_eq!(types(&list).len(), 2, "{list}");
    s.assert_consistent();
}

#[tokio::test]
async fn the_switch_needs_a_caller_no_body_and_an_item_it_may_see() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let staff = s.jwt(s.user("moira", None, true));
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "bread"})).await;
    let switch = format!("/api/v2/post/{p}/suspend/");
    assert_eq!(s.post(&switch, None, json!({})).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        s.status(&format!("/api/v2/post/{p}/suspended/"), None).await,
        StatusCode::UNAUTHORIZED
    );
    s.post(&switch, Some(&b), json!({"x": 1}))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "parse_error");
    for path in ["/api/v2/post/999999/suspend/", "/api/v2/discussion/1/suspend/"] {
        s.post(path, Some(&b), json!({})).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    // addressed to a tag bob does not hold: as if it did not exist
    let team = s.create_id("/api/v2/tag/", &staff, json!({"name": "Team"})).await;
    let hush =
        s.create_id("/api/v2/post/", &staff, json!({"text": "x", "addressing": [team]})).await;
    s.post(&format!("/api/v2/post/{hush}/suspend/"), Some(&b), json!({}))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    s.delete(&format!("/api/v2/post/{p}/"), Some(&a)).await;
    s.post(&switch, Some(&b), json!({})).await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

/// Parallel switches by one member end where their count says: 20 flips, back on.
#[tokio::test]
async fn parallel_switches_flip_one_at_a_time() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let p = s.create_id("/api/v2/discussion/", &a, json!({"title": "t", "text": "x"})).await;
    let switch = format!("/api/v2/discussion/{p}/suspend/");
    let calls = (0..20).map(|_| {
        let (s, b, switch) = (&s, b.clone(), switch.clone());
        async move { s.post(&switch, Some(&b), json!({})).await.status }
    });
    let done = futures_util::future::join_all(calls).await;
    assert!(done.iter().all(|st| *st == StatusCode::NO_CONTENT), "{done:?}");
    let state = s.get(&format!("/api/v2/discussion/{p}/suspended/"), Some(&b)).await.json();
    assert_eq!(state, json!({"suspended": false}));
}

/// Following an item: its followers hear of every new comment on it, once, and its
/// JSON counts them; a member's follows end with their account.
#[tokio::test]
async fn a_follower_hears_of_new_comments_until_they_stop() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("carol");
    let (_, d) = s.login("dave");
    let p = s.create_id("/api/v2/discussion/", &a, json!({"title": "Rye", "text": "x"})).await;
    let (follow, item) =
        (format!("/api/v2/discussion/{p}/follow/"), format!("/api/v2/discussion/{p}/"));
    for tok in [&b, &d] {
        assert_eq!(s.post(&follow, Some(tok), json!({})).await.status, StatusCode::NO_CONTENT);
    }
    let seen = s.get(&item, Some(&b)).await.json();
    assert_eq!((seen["followed"].clone(), seen["follower_count"].clone()), (json!(true), json!(2)));
    assert_eq!(s.get(&item, Some(&c)).await.json()["followed"], false);
    // carol comments: alice (the author), bob and dave (followers) hear of it, once each
    let note = s.create_id("/api/v2/comment/", &c, json!({"discussion": p, "text": "yum"})).await;
    // bob replies to carol: carol (nested), alice and dave; not bob himself
    s.create_id("/api/v2/comment/", &b, json!({"discussion": p, "parent": note, "text": "!"}))
        .await;
    let kinds = |tok: String| {
        let s = &s;
        async move { types(&s.get("/api/v2/notification/", Some(&tok)).await.json()) }
    };
    assert_eq!(kinds(a.clone()).await, pairs(&[("comment", "bob"), ("comment", "carol")]));
    assert_eq!(kinds(b.clone()).await, pairs(&[("comment", "carol")]));
    assert_eq!(kinds(c.clone()).await, pairs(&[("nested_comment", "bob")]));
    assert_eq!(kinds(d.clone()).await, pairs(&[("comment", "bob"), ("comment", "carol")]));
    // dave stops following; bob's account goes: neither hears of the next comment
    assert_eq!(s.post(&follow, Some(&d), json!({})).await.status, StatusCode::NO_CONTENT);
    s.soft_delete_user(bob);
    assert_eq!(s.get(&item, Some(&a)).await.json()["follower_count"], 0);
    s.create_id("/api/v2/comment/", &c, json!({"discussion": p, "text": "again"})).await;
    // (bob's own notification to dave is hidden with bob's account: a deleted actor's)
    assert_eq!(kinds(d.clone()).await, pairs(&[("comment", "carol")]));
    s.assert_consistent();
}

/// Fifty members following one item at once: each counted once.
#[tokio::test]
async fn parallel_follows_are_each_counted_once() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "x"})).await;
    let tokens: Vec<String> =
        (0..25).map(|i| s.jwt(s.user(&format!("u{i}"), None, false))).collect();
    let calls = tokens.iter().chain(tokens.iter().take(10)).map(|t| {
        let (s, t) = (&s, t.clone());
        async move { s.post(&format!("/api/v2/post/{p}/follow/"), Some(&t), json!({})).await.status }
    });
    let done = futures_util::future::join_all(calls).await;
    assert!(done.iter().all(|st| *st == StatusCode::NO_CONTENT), "{done:?}");
    // ten of them followed twice: they stopped
    assert_eq!(s.get(&format!("/api/v2/post/{p}/"), Some(&a)).await.json()["follower_count"], 15);
    s.assert_consistent();
}

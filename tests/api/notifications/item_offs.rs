//! Stopping one item's notifications (`POST /api/v2/{type}/{id}/suspend/`, the kit's
//! contribution menu): nothing about the item reaches the member until they turn it
//! back on; the item's `suspended` and `GET .../suspended/` say which way it is.

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

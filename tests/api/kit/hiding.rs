//! Hiding users: the five routes, and a hidden user's contributions left out of the
//! caller's lists and of contributors (for the caller only).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{comment, create, no_content, post, start};
use crate::common::ids;

#[tokio::test]
async fn hiding_toggles_and_each_question_answers() {
    let (s, w) = start().await;
    let hide = |id: i64, t: &str| {
        let path = format!("/api/v2/user/{id}/hide/");
        let (s, t) = (&s, t.to_owned());
        async move { s.post_empty(&path, Some(&t)).await }
    };
    let ask = |id: i64, what: &'static str, t: &str| {
        let path = format!("/api/v2/user/{id}/{what}/");
        let (s, t) = (&s, t.to_owned());
        async move { s.get(&path, Some(&t)).await.json()[what].clone() }
    };
    assert_eq!(s.get("/api/v2/user/hidden_users_id/", Some(&w.ann_t)).await.json(), json!([]));
    s.clock.advance(hearth::clock::SECOND);
    no_content(&hide(w.bob, &w.ann_t).await);
    s.clock.advance(hearth::clock::SECOND);
    no_content(&s.post(&format!("/api/v2/user/{}/hide/", w.cy), Some(&w.ann_t), json!({})).await);
    assert_eq!(ask(w.bob, "is_hidden", &w.ann_t).await, true);
    assert_eq!(ask(w.ann, "is_hidden", &w.bob_t).await, false);
    assert_eq!(ask(w.ann, "is_hidden_by", &w.bob_t).await, true);
    assert_eq!(ask(w.bob, "is_hidden_by", &w.ann_t).await, false);
    assert_eq!(ask(w.ann, "is_hidden", &w.ann_t).await, false, "yourself: never");
    // most recently hidden first: a plain array of ids, and the users as a page
    assert_eq!(
        s.get("/api/v2/user/hidden_users_id/", Some(&w.ann_t)).await.json(),
        json!([w.cy, w.bob])
    );
    let v = s.get("/api/v2/user/hidden_users/", Some(&w.ann_t)).await.json();
    assert_eq!((ids(&v), v["count"].as_i64()), (vec![w.cy, w.bob], Some(2)));
    assert_eq!(v["results"][0]["username"], "cy");
    let v = s.get("/api/v2/user/hidden_users/?limit=1&offset=1", Some(&w.ann_t)).await.json();
    assert_eq!(ids(&v), [w.bob]);
    s.get("/api/v2/user/hidden_users/?limit=-1", Some(&w.ann_t))
        .await
        .assert_field_error("limit", "invalid");
    // the same call shows them again; other callers are unaffected
    no_content(&hide(w.bob, &w.ann_t).await);
    assert_eq!(ask(w.bob, "is_hidden", &w.ann_t).await, false);
    assert_eq!(s.get("/api/v2/user/hidden_users_id/", Some(&w.ann_t)).await.json(), json!([w.cy]));
    assert_eq!(s.get("/api/v2/user/hidden_users_id/", Some(&w.bob_t)).await.json(), json!([]));
    // a deleted user leaves the lists
    s.soft_delete_user(w.cy);
    assert_eq!(s.get("/api/v2/user/hidden_users_id/", Some(&w.ann_t)).await.json(), json!([]));
    assert_eq!(s.get("/api/v2/user/hidden_users/", Some(&w.ann_t)).await.json()["count"], 0);
}

#[tokio::test]
async fn hiding_errors_change_nothing() {
    let (s, w) = start().await;
    let r = s.post_empty(&format!("/api/v2/user/{}/hide/", w.ann), Some(&w.ann_t)).await;
    r.assert_field_error("user", "invalid");
    for path in ["/api/v2/user/999/hide/"] {
        s.post_empty(path, Some(&w.ann_t)).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    for what in ["is_hidden", "is_hidden_by"] {
        assert_eq!(
            s.get(&format!("/api/v2/user/999/{what}/"), Some(&w.ann_t)).await.status,
            StatusCode::NOT_FOUND
        );
        s.get(&format!("/api/v2/user/{}/{what}/", w.bob), None)
            .await
            .assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    }
    let r = s
        .post(&format!("/api/v2/user/{}/hide/", w.bob), Some(&w.ann_t), json!({"really": true}))
        .await;
    r.assert_error(StatusCode::BAD_REQUEST, "parse_error");
    for path in ["/api/v2/user/hidden_users_id/", "/api/v2/user/hidden_users/"] {
        s.assert_needs_caller(path, "x.y.z").await;
    }
    s.post_empty(&format!("/api/v2/user/{}/hide/", w.bob), None)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    let read = s.oauth_token(w.ann, "read");
    let r = s.post_empty(&format!("/api/v2/user/{}/hide/", w.bob), Some(&read)).await;
    r.assert_error(StatusCode::FORBIDDEN, "insufficient_scope");
    assert_eq!(
        s.get("/api/v2/user/hidden_users_id/", Some(&read)).await.json(),
        json!([]),
        "nothing changed"
    );
    s.soft_delete_user(w.cy);
    s.post_empty(&format!("/api/v2/user/{}/hide/", w.cy), Some(&w.ann_t))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let r =
        s.call(Method::GET, &format!("/api/v2/user/{}/hide/", w.bob), Some(&w.ann_t), None).await;
    assert_eq!((r.status, r.header("allow")), (StatusCode::METHOD_NOT_ALLOWED, Some("POST")));
}

#[tokio::test]
async fn a_hidden_users_contributions_leave_the_callers_lists_only() {
    let (s, w) = start().await;
    let p_ann = post(&s, &w.ann_t, "by ann").await;
    let p_bob = post(&s, &w.bob_t, "by bob").await;
    let d_bob = create(&s, &w.bob_t, "discussion", json!({"title": "bob asks"})).await;
    let s_bob = create(&s, &w.bob_t, "status", json!({"text": "bob is"})).await;
    let c_bob = comment(&s, &w.bob_t, "post", p_ann, "bob says").await;
    s.clock.advance(hearth::clock::SECOND);
    let c_cy = comment(&s, &w.cy_t, "post", p_ann, "cy says").await;
    no_content(&s.post_empty(&format!("/api/v2/user/{}/hide/", w.bob), Some(&w.ann_t)).await);
    let list = |path: &'static str, t: Option<String>| {
        let s = &s;
        async move {
            let v: Value = s.get(path, t.as_deref()).await.json();
            (ids(&v), v["count"].as_i64().unwrap())
        }
    };
    let ann = Some(w.ann_t.clone());
    assert_eq!(list("/api/v2/post/", ann.clone()).await, (vec![p_ann], 1));
    assert_eq!(list("/api/v2/discussion/", ann.clone()).await, (vec![], 0));
    assert_eq!(list("/api/v2/status/", ann.clone()).await, (vec![], 0));
    assert_eq!(list("/api/v2/comment/", ann.clone()).await, (vec![c_cy], 1));
    let v = s.get(&format!("/api/v2/comment/?post={p_ann}&limit=5"), Some(&w.ann_t)).await.json();
    assert_eq!((ids(&v), v["count"].as_i64()), (vec![c_cy], Some(1)));
    let contributors = format!("/api/v2/post/{p_ann}/contributors/");
    assert_eq!(ids(&s.get(&contributors, Some(&w.ann_t)).await.json()), [w.cy]);
    // everyone else still sees bob
    for t in [None, Some(w.cy_t.clone()), Some(w.bob_t.clone())] {
        assert_eq!(list("/api/v2/post/", t.clone()).await, (vec![p_bob, p_ann], 2));
        assert_eq!(list("/api/v2/discussion/", t.clone()).await, (vec![d_bob], 1));
        assert_eq!(list("/api/v2/status/", t.clone()).await, (vec![s_bob], 1));
        assert_eq!(list("/api/v2/comment/", t.clone()).await.1, 2);
        assert_eq!(ids(&s.get(&contributors, t.as_deref()).await.json()), [w.cy, w.bob]);
    }
    // an item is still there when asked for by id (hiding filters lists)
    assert_eq!(
        s.get(&format!("/api/v2/post/{p_bob}/"), Some(&w.ann_t)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        s.get(&format!("/api/v2/comment/{c_bob}/"), Some(&w.ann_t)).await.status,
        StatusCode::OK
    );
    // shown again: back in the lists
    no_content(&s.post_empty(&format!("/api/v2/user/{}/hide/", w.bob), Some(&w.ann_t)).await);
    assert_eq!(list("/api/v2/post/", ann.clone()).await, (vec![p_bob, p_ann], 2));
    assert_eq!(ids(&s.get(&contributors, Some(&w.ann_t)).await.json()), [w.cy, w.bob]);
}

//! Votes: add, remove, replace; the vote list; the counts on the contribution, exact
//! under concurrency and checked by `hearth check`; every error case.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{comment, create, crowd, no_content, post, start};
use crate::common::TestServer;

/// (vote_count, [(reaction id, count)], voted, the caller's reaction id) of an item.
async fn seen(
    s: &TestServer,
    kind: &str,
    id: i64,
    t: Option<&str>,
) -> (i64, Vec<(i64, i64)>, bool, Option<i64>) {
    let r = s.get(&format!("/api/v2/{kind}/{id}/"), t).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    let counts = v["reactions_count"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["reaction"]["id"].as_i64().unwrap(), c["count"].as_i64().unwrap()))
        .collect();
    (
        v["vote_count"].as_i64().unwrap(),
        counts,
        v["voted"].as_bool().unwrap(),
        v["reaction"]["id"].as_i64(),
    )
}

#[tokio::test]
async fn a_vote_is_added_replaced_and_removed_on_every_kind() {
    let (s, w) = start().await;
    let d = create(&s, &w.ann_t, "discussion", json!({"title": "D"})).await;
    let p = post(&s, &w.ann_t, "p").await;
    let st = create(&s, &w.ann_t, "status", json!({"text": "s"})).await;
    let c = comment(&s, &w.ann_t, "post", p, "c").await;
    for (kind, id) in [("discussion", d), ("post", p), ("status", st), ("comment", c)] {
        let path = format!("/api/v2/{kind}/{id}/vote/");
        // no reaction given: like (1); the SDK posts no body
        no_content(&s.post_empty(&path, Some(&w.bob_t)).await);
        assert_eq!(seen(&s, kind, id, Some(&w.bob_t)).await, (1, vec![(1, 1)], true, Some(1)));
        // another reaction replaces it
        no_content(&s.post_empty(&format!("{path}?reaction=2"), Some(&w.bob_t)).await);
        assert_eq!(seen(&s, kind, id, Some(&w.bob_t)).await, (1, vec![(2, 1)], true, Some(2)));
        // the same again removes it
        no_content(&s.post(&path, Some(&w.bob_t), json!({"reaction": 2})).await);
        assert_eq!(seen(&s, kind, id, Some(&w.bob_t)).await, (0, vec![], false, None));
        // reactions_count: by count descending, then reaction id
        for (t, r) in [(&w.bob_t, 3), (&w.cy_t, 2), (&w.ann_t, 2)] {
            no_content(&s.post(&path, Some(t), json!({"reaction": r.to_string()})).await);
        }
        assert_eq!(
            seen(&s, kind, id, Some(&w.cy_t)).await,
            (3, vec![(2, 2), (3, 1)], true, Some(2))
        );
        // anonymous callers: the counts, never a vote of their own
        assert_eq!(seen(&s, kind, id, None).await, (3, vec![(2, 2), (3, 1)], false, None));
    }
    // the lists show the same as the item
    let list = s.get("/api/v2/post/", Some(&w.cy_t)).await.json();
    assert_eq!(list["results"][0]["vote_count"], 3);
    assert_eq!(list["results"][0]["reaction"]["label"], "love");
    let comments = s.get(&format!("/api/v2/comment/?post={p}"), Some(&w.bob_t)).await.json();
    assert_eq!(comments["results"][0]["reaction"]["label"], "haha");
    s.assert_consistent();
}

#[tokio::test]
async fn the_vote_list_is_newest_first_with_users_and_reactions() {
    let (s, w) = start().await;
    let p = post(&s, &w.ann_t, "p").await;
    let path = format!("/api/v2/post/{p}/vote/");
    for (t, r) in [(&w.ann_t, 1), (&w.bob_t, 2), (&w.cy_t, 1)] {
        s.clock.advance(hearth::clock::SECOND);
        no_content(&s.post(&path, Some(t), json!({ "reaction": r })).await);
    }
    // ann changes her reaction: her vote is now the newest
    s.clock.advance(hearth::clock::SECOND);
    no_content(&s.post_empty(&format!("{path}?reaction=3"), Some(&w.ann_t)).await);
    let v = s.get(&path, None).await.json();
    assert_eq!(v["count"], 3);
    let got: Vec<(i64, &str)> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["user"]["id"].as_i64().unwrap(), x["reaction"]["label"].as_str().unwrap()))
        .collect();
    assert_eq!(got, [(w.ann, "haha"), (w.cy, "like"), (w.bob, "love")]);
    let first = &v["results"][0];
    assert!(first["voted_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(first["user"]["username"], "ann");
    assert!(first["user"].get("followers_counter").is_some(), "User JSON: {first}");
    assert!(first["reaction"]["image"].as_str().unwrap().starts_with("http"));
    // the caller's follow status shows on the voters
    no_content(&s.post_empty(&format!("/api/v2/user/{}/follow/", w.cy), Some(&w.bob_t)).await);
    let v = s.get(&format!("{path}?limit=1&offset=1"), Some(&w.bob_t)).await.json();
    assert_eq!(v["results"][0]["user"]["connection_status"], "followed");
    assert!(v["next"].as_str().unwrap().contains("offset=2"));
    // one reaction
    let v = s.get(&format!("{path}?reaction=1"), None).await.json();
    assert_eq!(v["count"], 1);
    assert_eq!(v["results"][0]["user"]["id"], w.cy);
    let v = s.get(&format!("{path}?reaction=99"), None).await.json();
    assert_eq!((v["count"].as_i64(), v["results"].as_array().map(Vec::len)), (Some(0), Some(0)));
    s.get(&format!("{path}?reaction=x"), None).await.assert_field_error("reaction", "invalid");
    s.get(&format!("{path}?limit=0"), None).await.assert_field_error("limit", "invalid");
    // content_availability off: callers only
    s.set_pref("configurations", "content_availability", json!(false));
    s.get(&path, None).await.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn bad_votes_are_refused_and_change_nothing() {
    let (s, w) = start().await;
    let p = post(&s, &w.ann_t, "p").await;
    let path = format!("/api/v2/post/{p}/vote/");
    no_content(&s.post_empty(&path, Some(&w.cy_t)).await);
    let before = seen(&s, "post", p, Some(&w.bob_t)).await;
    // an inactive reaction, an unknown one, and ones that are not ids
    s.db_write(|tx| tx.execute("UPDATE reaction SET active = 0 WHERE id = 6", []));
    for q in
        ["?reaction=6", "?reaction=99", "?reaction=0", "?reaction=-1", "?reaction=x", "?reaction="]
    {
        let r = s.post_empty(&format!("{path}{q}"), Some(&w.bob_t)).await;
        r.assert_field_error("reaction", "invalid");
    }
    for body in [
        json!({"reaction": 99}),
        json!({"reaction": "x"}),
        json!({"reaction": 1.5}),
        json!({"reaction": [1]}),
    ] {
        s.post(&path, Some(&w.bob_t), body).await.assert_field_error("reaction", "invalid");
    }
    // the query and the body disagree
    s.post(&format!("{path}?reaction=1"), Some(&w.bob_t), json!({"reaction": 2}))
        .await
        .assert_field_error("reaction", "invalid");
    // a body that is not an object, not JSON, or of another type; an empty one
    let (json_ct, text) = ("application/json", "text/plain");
    let unsupported = StatusCode::UNSUPPORTED_MEDIA_TYPE;
    for (ct, body, status, code) in [
        (json_ct, "[1]", StatusCode::BAD_REQUEST, "parse_error"),
        (json_ct, "{", StatusCode::BAD_REQUEST, "parse_error"),
        (text, "reaction=2", unsupported, "unsupported_media_type"),
        (text, "", StatusCode::NO_CONTENT, ""),
    ] {
        let bob = Some(w.bob_t.as_str());
        let r = s.raw(Method::POST, &path, bob, Some(ct), Some(body.into())).await;
        assert_eq!((r.status, r.error_code().as_str()), (status, code), "{body}: {}", r.text);
    }
    no_content(&s.post_empty(&path, Some(&w.bob_t)).await);
    assert_eq!(seen(&s, "post", p, Some(&w.bob_t)).await, before);
    // unknown items, ids that are not integers, a deleted item (for everyone, its
    // creator too)
    for unknown in ["/api/v2/post/999/vote/", "/api/v2/post/x/vote/", "/api/v2/post/1/vote"] {
        let r = s.post_empty(unknown, Some(&w.bob_t)).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{unknown}");
    }
    no_content(&s.delete(&format!("/api/v2/post/{p}/"), Some(&w.ann_t)).await);
    for t in [&w.bob_t, &w.ann_t] {
        let r = s.post_empty(&path, Some(t)).await;
        r.assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    // its vote list: 404, except for its creator
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&path, Some(&w.ann_t)).await.json()["count"], 1);
    // anonymous 401 whatever the id; a read-only token 403
    for p in [path.as_str(), "/api/v2/post/999/vote/"] {
        s.post_empty(p, None).await.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    }
    let read = s.oauth_token(w.bob, "read");
    let c = comment(
        &s,
        &w.bob_t,
        "discussion",
        create(&s, &w.bob_t, "discussion", json!({"title": "t"})).await,
        "c",
    )
    .await;
    let r = s.post_empty(&format!("/api/v2/comment/{c}/vote/"), Some(&read)).await;
    r.assert_error(StatusCode::FORBIDDEN, "insufficient_scope");
    let r = s.call(Method::PUT, &format!("/api/v2/comment/{c}/vote/"), Some(&w.bob_t), None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD, POST"));
    assert_eq!(seen(&s, "comment", c, None).await.0, 0);
    s.assert_consistent();
}

#[tokio::test]
async fn counts_stay_exact_under_parallel_votes() {
    let (s, w) = start().await;
    let p = post(&s, &w.ann_t, "popular").await;
    let path = format!("/api/v2/post/{p}/vote/");
    let voters = crowd(&s, 20);
    // 20 different users at once, reactions 1..=4
    let calls = voters.iter().enumerate().map(|(i, (_, t))| {
        let (s, path) = (&s, &path);
        async move { s.post_empty(&format!("{path}?reaction={}", i % 4 + 1), Some(t)).await }
    });
    for r in futures_util::future::join_all(calls).await {
        no_content(&r);
    }
    assert_eq!(
        seen(&s, "post", p, None).await,
        (20, vec![(1, 5), (2, 5), (3, 5), (4, 5)], false, None)
    );
    assert_eq!(s.get(&path, None).await.json()["count"], 20);
    s.assert_consistent();
    // the same 20 again, each sending "like" twice at once: applying the same toggle
    // twice ends the same whatever the order: a user who had like removes and re-adds
    // it, every other one replaces its reaction with like and removes it
    let calls = voters.iter().flat_map(|(_, t)| {
        let (s, path) = (&s, &path);
        [0, 1]
            .map(move |_| async move { s.post_empty(&format!("{path}?reaction=1"), Some(t)).await })
    });
    for r in futures_util::future::join_all(calls).await {
        no_content(&r);
    }
    assert_eq!(seen(&s, "post", p, None).await, (5, vec![(1, 5)], false, None));
    let listed = s.get(&format!("{path}?limit=100"), None).await.json();
    assert_eq!(listed["count"], 5);
    assert_eq!(listed["results"].as_array().unwrap().len(), 5);
    s.assert_consistent();
    // a deleted user's vote stops counting, and leaves the list
    let (gone, _) = &voters[0];
    s.soft_delete_user(*gone);
    assert_eq!(seen(&s, "post", p, None).await, (4, vec![(1, 4)], false, None));
    let listed = s.get(&format!("{path}?limit=100"), None).await.json();
    assert_eq!(listed["count"], 4);
    assert!(listed["results"].as_array().unwrap().iter().all(|v| v["user"]["id"] != *gone));
    s.assert_consistent();
}

#[tokio::test]
async fn votes_survive_deleting_and_restoring_the_item() {
    let (s, w) = start().await;
    let p = post(&s, &w.ann_t, "p").await;
    let path = format!("/api/v2/post/{p}/vote/");
    no_content(&s.post_empty(&path, Some(&w.bob_t)).await);
    no_content(&s.delete(&format!("/api/v2/post/{p}/"), Some(&w.ann_t)).await);
    // the creator sees its deleted item with its votes
    let v: Value = s.get(&format!("/api/v2/post/{p}/"), Some(&w.ann_t)).await.json();
    assert_eq!((v["deleted"].as_bool(), v["vote_count"].as_i64()), (Some(true), Some(1)));
    no_content(&s.post_empty(&format!("/api/v2/post/{p}/restore/"), Some(&w.ann_t)).await);
    assert_eq!(seen(&s, "post", p, Some(&w.bob_t)).await, (1, vec![(1, 1)], true, Some(1)));
    s.assert_consistent();
}

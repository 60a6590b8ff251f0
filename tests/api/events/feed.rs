//! What is made in an event: the `event` of a discussion or a post, the event's feed,
//! and the rule that a private event's items are its members' alone (detail, lists,
//! feeds, search, comments, votes), as a private group's are.

use serde_json::json;

use super::{body, create, ok, server};
use crate::common::unit_ids;

/// Members post in a private event: the post carries its event; members see it in the
/// event's feed, detail and search; nobody else sees it anywhere, may comment or vote
/// on it; the community-wide lists and feeds leave event items to their event and
/// count exactly.
#[tokio::test]
async fn a_private_events_items_are_its_members_alone() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let [ta, tb, tc] = [a, b, c].map(|u| s.jwt(u));
    let e = create(&s, &ta, body(&s, "Night walk", 5, 6, json!({"privacy": "private"}))).await;
    let id = e["id"].as_i64().unwrap();
    let path = |p: &str| format!("/api/v2/event/{id}/{p}");
    // bob asks, ann accepts (invites him): a member who has not answered yet may post
    assert_eq!(s.post_empty(&path("subscribe/"), Some(&tb)).await.status, 204);
    let r = s.post(&path("invite/"), Some(&ta), json!({"users": [b]})).await;
    assert_eq!(r.status, 204, "{}", r.text);
    let outside = s.create_id("/api/v2/post/", &tc, json!({"text": "outside zebra"})).await;
    // a stranger, a status, and a group and an event at once are refused on the field
    let r = s.post("/api/v2/post/", Some(&tc), json!({"text": "x", "event": id})).await;
    r.assert_field_error("event", "invalid");
    let r = s.post("/api/v2/status/", Some(&ta), json!({"text": "x", "event": id})).await;
    r.assert_field_error("event", "invalid");
    let r = s.post("/api/v2/post/", Some(&ta), json!({"text": "x", "event": id, "group": 1})).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = s.post("/api/v2/post/", Some(&ta), json!({"text": "x", "event": "one"})).await;
    r.assert_field_error("event", "invalid");
    let post = s.create("/api/v2/post/", &ta, json!({"text": "zebra route", "event": id})).await;
    let pid = post["id"].as_i64().unwrap();
    assert_eq!(post["event"]["id"], id);
    assert_eq!(post["event"]["subscription_status"], "going", "its creator goes");
    assert!(post["group"].is_null());
    let disc =
        s.create("/api/v2/discussion/", &tb, json!({"title": "zebra gear", "event": id})).await;
    let did = disc["id"].as_i64().unwrap();
    // members: the feed (newest activity first), detail, search, comments
    let feed = ok(&s.get(&path("feed/"), Some(&tb)).await);
    assert_eq!((unit_ids(&feed), feed["count"].as_i64()), (vec![did, pid], Some(2)));
    assert_eq!(feed["results"][0]["discussion"]["event"]["id"], id);
    // a comment a moment later makes its post the newest activity
    s.clock.advance(hearth::clock::SECOND);
    let comment = s.create("/api/v2/comment/", &tb, json!({"text": "in", "post": pid})).await;
    assert_eq!(unit_ids(&ok(&s.get(&path("feed/"), Some(&ta)).await)), [pid, did]);
    assert_eq!(ok(&s.get(&format!("/api/v2/post/{pid}/"), Some(&tb)).await)["event"]["id"], id);
    assert_eq!(ok(&s.get("/api/v2/search/?search=zebra", Some(&tb)).await)["count"], 3);
    // cat (who sees the event: it is visible) and anonymous callers: nothing of it
    for tok in [Some(tc.as_str()), None] {
        assert_eq!(s.status(&path(""), tok).await, 200, "a visible private event");
        assert_eq!(s.status(&path("feed/"), tok).await, 403);
        assert_eq!(s.status(&format!("/api/v2/post/{pid}/"), tok).await, 404);
        assert_eq!(s.status(&format!("/api/v2/discussion/{did}/"), tok).await, 404);
        assert_eq!(s.status(&format!("/api/v2/post/{pid}/vote/"), tok).await, 404);
        assert_eq!(s.status(&format!("/api/v2/comment/{}/", comment["id"]), tok).await, 404);
        assert_eq!(ok(&s.get("/api/v2/search/?search=zebra", tok).await)["count"], 1);
    }
    let r = s.post("/api/v2/comment/", Some(&tc), json!({"text": "hi", "post": pid})).await;
    r.assert_field_error("post", "invalid");
    // the community-wide lists and feeds: event items are their event's, for everyone
    for tok in [Some(ta.as_str()), Some(tc.as_str()), None] {
        assert_eq!(s.list_ids("/api/v2/post/", tok).await, [outside]);
        let explore = ok(&s.get("/api/v2/feed/explore/", tok).await);
        assert_eq!((unit_ids(&explore), explore["count"].as_i64()), (vec![outside], Some(1)));
    }
    assert_eq!(unit_ids(&ok(&s.get("/api/v2/feed/", Some(&ta)).await)), [outside]);
    assert!(unit_ids(&ok(&s.get(&format!("/api/v2/user/{a}/feed/"), None).await)).is_empty());
    // a member who leaves loses sight of it; a deleted event takes its items along
    assert_eq!(s.delete(&path("subscribe/"), Some(&tb)).await.status, 204);
    assert_eq!(s.status(&format!("/api/v2/post/{pid}/"), Some(&tb)).await, 404);
    assert_eq!(s.status(&path("feed/"), Some(&tb)).await, 403);
    assert_eq!(s.delete(&path(""), Some(&ta)).await.status, 204);
    assert_eq!(s.status(&format!("/api/v2/post/{pid}/"), Some(&ta)).await, 404);
    assert_eq!(s.status(&path("feed/"), Some(&ta)).await, 404);
    s.assert_consistent();
    s.stop().await;
}

/// A public event's feed is everyone's to read (anonymous callers too) and its members'
/// to post in; with events off it is 404 like every event route.
#[tokio::test]
async fn a_public_events_feed_is_everyones_to_read() {
    let s = server().await;
    let [a, c] = s.users(["ann", "cat"]);
    let [ta, tc] = [a, c].map(|u| s.jwt(u));
    let id = create(&s, &ta, body(&s, "Fair", 5, 6, json!({}))).await["id"].as_i64().unwrap();
    let feed = format!("/api/v2/event/{id}/feed/");
    let r = s.post("/api/v2/post/", Some(&tc), json!({"text": "x", "event": id})).await;
    r.assert_field_error("event", "invalid");
    assert_eq!(
        s.post_empty(&format!("/api/v2/event/{id}/subscribe/"), Some(&tc)).await.status,
        204
    );
    let pid = s.create_id("/api/v2/post/", &tc, json!({"text": "see you", "event": id})).await;
    for tok in [Some(ta.as_str()), None] {
        assert_eq!(unit_ids(&ok(&s.get(&feed, tok).await)), [pid]);
    }
    assert_eq!(s.status(&format!("/api/v2/event/{}/feed/", id + 99), None).await, 404);
    s.set_pref("configurations", "events_enabled", json!(false));
    assert_eq!(s.status(&feed, Some(&ta)).await, 404);
    s.assert_consistent();
    s.stop().await;
}

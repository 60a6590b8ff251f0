//! Who sees an event, one rule for its detail, the lists, the search, the
//! suggestions and the notifications: public, private and visible, hidden; the
//! creator's hide/show.

use serde_json::json;

use super::{body, create, event_notes, server};

/// A hidden private event is seen by its members and invited users only (404 for
/// others, everywhere); a visible private one by everyone, its members by members; an
/// event its creator hid leaves the lists of others and comes back with show/.
#[tokio::test]
async fn one_rule_for_detail_lists_search_and_notifications() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let [ta, tb, tc] = [a, b, c].map(|u| s.jwt(u));
    let hidden = create(
        &s,
        &ta,
        body(
            &s,
            "Surprise",
            5,
            6,
            json!({"privacy": "private", "visible": false, "invite_users": [b]}),
        ),
    )
    .await;
    let h = hidden["id"].as_i64().unwrap();
    let open = create(&s, &ta, body(&s, "Open", 6, 7, json!({"privacy": "private"}))).await;
    let o = open["id"].as_i64().unwrap();
    assert_eq!(s.status(&format!("/api/v2/event/{h}/"), Some(&tb)).await, 200, "invited");
    for t in [Some(tc.as_str()), None] {
        assert_eq!(s.status(&format!("/api/v2/event/{h}/"), t).await, 404);
        assert_eq!(s.status(&format!("/api/v2/event/{h}/status/"), t).await, 404);
        assert_eq!(s.list_ids("/api/v2/event/search/", t).await, [o]);
    }
    assert_eq!(s.list_ids("/api/v2/event/search/", Some(&tb)).await, [h, o]);
    assert_eq!(s.list_ids(&format!("/api/v2/user/{a}/events/"), Some(&tc)).await, [o]);
    assert_eq!(s.list_ids("/api/v2/suggestion/event/", Some(&tc)).await, [o]);
    assert_eq!(s.list_ids("/api/v2/event/?subscription_status=invited", Some(&tb)).await, [h]);
    let r = s.post_empty(&format!("/api/v2/event/{h}/subscribe/"), Some(&tc)).await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(s.status(&format!("/api/v2/event/{o}/subscribe/"), Some(&tc)).await, 403);
    // hide/show: admins only; out of others' lists, not out of their detail
    assert_eq!(s.post_empty(&format!("/api/v2/event/{o}/hide/"), Some(&tc)).await.status, 403);
    assert_eq!(s.post_empty(&format!("/api/v2/event/{o}/hide/"), Some(&ta)).await.status, 204);
    assert!(s.list_ids("/api/v2/event/search/", Some(&tc)).await.is_empty());
    assert_eq!(s.status(&format!("/api/v2/event/{o}/"), Some(&tc)).await, 200);
    assert_eq!(s.list_ids("/api/v2/event/search/", Some(&ta)).await, [h, o]);
    assert_eq!(s.post_empty(&format!("/api/v2/event/{o}/show/"), Some(&ta)).await.status, 204);
    assert_eq!(s.list_ids("/api/v2/event/search/", Some(&tc)).await, [o]);
    // the invitation is bob's; once withdrawn the hidden event is gone for him, and
    // so is its notification
    assert_eq!(event_notes(&s, &tb).await, [("user_invited_to_join_event".into(), h)]);
    let r = s.delete(&format!("/api/v2/event/{h}/subscribe/?user={b}"), Some(&ta)).await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(s.status(&format!("/api/v2/event/{h}/"), Some(&tb)).await, 404);
    assert!(event_notes(&s, &tb).await.is_empty());
    s.assert_consistent();
    s.stop().await;
}

//! A group's membership: join, request, invite, accept, leave, remove; the lists only
//! admins read; the notifications each step sends; the counter under parallel writers.

use serde_json::json;

use super::{create, group_notes, ok, server};
use crate::common::ids;

/// A private group: a request waits (its admin is notified), the admin accepts it (the
/// requester is notified and becomes a member); an invited user joins (the admin is
/// notified); members leave, admins remove, the creator stays.
#[tokio::test]
async fn requests_invitations_and_their_notifications() {
    let s = server().await;
    let [a, b, c, d] = s.users(["ann", "bob", "cat", "dan"]);
    let [ta, tb, tc] = [a, b, c].map(|u| s.jwt(u));
    let g = create(&s, &ta, json!({"name": "Readers", "privacy": "private"})).await;
    let id = g["id"].as_i64().unwrap();
    let path = |p: &str| format!("/api/v2/group/{id}/{p}");
    // bob asks; ann (the admin) sees the request and its notification
    assert_eq!(s.post_empty(&path("subscribe/"), Some(&tb)).await.status, 204);
    assert_eq!(ok(&s.get(&path("status/"), Some(&tb)).await)["status"], "requested");
    assert_eq!(ids(&ok(&s.get(&path("request_subscribe/"), Some(&ta)).await)["results"]), [b]);
    assert_eq!(group_notes(&s, &ta).await, [("user_requested_to_join_group".into(), id)]);
    // the lists and the invitations are the admins' (403 for a member or a stranger)
    for p in ["request_subscribe/", "invite/"] {
        assert_eq!(s.status(&path(p), Some(&tc)).await, 403, "{p}");
    }
    let r = s.post(&path("invite/"), Some(&tc), json!({"users": [d]})).await;
    assert_eq!(r.status, 403, "{}", r.text);
    // a private group's members are for its members
    assert_eq!(s.status(&path("subscribe/"), Some(&tb)).await, 403);
    // ann accepts bob and invites cat
    let r = s.post(&path("invite/"), Some(&ta), json!({"users": [b, c]})).await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(group_notes(&s, &tb).await, [("user_added_to_group".into(), id)]);
    assert_eq!(group_notes(&s, &tc).await, [("user_invited_to_join_group".into(), id)]);
    assert!(group_notes(&s, &ta).await.is_empty(), "the answered request's notification goes");
    // cat joins: the invitation becomes membership, ann is told
    assert_eq!(s.post_empty(&path("subscribe/"), Some(&tc)).await.status, 204);
    assert!(group_notes(&s, &tc).await.is_empty(), "the answered invitation goes");
    assert_eq!(group_notes(&s, &ta).await, [("user_accepted_to_join_group".into(), id)]);
    s.db_write(|tx| {
        tx.execute("UPDATE user SET description = 'Reads at night' WHERE id = ?1", [b])
    });
    let members = ok(&s.get(&path("subscribe/"), Some(&tb)).await);
    assert_eq!(ids(&members["results"]), [a, b, c]);
    // User JSON, as the kit's member cards read it (their second line: the description)
    let bob = &members["results"][1];
    assert_eq!(
        (bob["description"].clone(), bob["followers_counter"].clone()),
        (json!("Reads at night"), json!(0))
    );
    assert!(bob.get("tags").is_some_and(|t| t.is_array()) && bob.get("email").is_none(), "{bob}");
    assert_eq!(ok(&s.get(&path(""), Some(&tb)).await)["subscribers_counter"], 3);
    // users to invite: not the caller, not the members
    let suggested = ok(&s.get(&path("user/?search="), Some(&ta)).await);
    assert_eq!(ids(&suggested["results"]), [d]);
    // a stranger's suggestions say nothing of the members
    let stranger = ok(&s.get(&path("user/?search="), Some(&s.jwt(d))).await);
    assert_eq!(ids(&stranger["results"]), [a, b, c]);
    let fresh = ok(&s.get("/api/v2/group/user/?search=b", Some(&ta)).await);
    assert_eq!(ids(&fresh["results"]), [b]);
    // leaving, removing, and the creator who can do neither
    assert_eq!(s.delete(&path("subscribe/"), Some(&ta)).await.status, 403);
    let r = s.delete(&path(&format!("subscribe/?user={a}")), Some(&ta)).await;
    assert_eq!(r.status, 403, "naming oneself is leaving: {}", r.text);
    let r = s.delete(&path("subscribe/?user=x"), Some(&ta)).await;
    r.assert_field_error("user", "invalid");
    let r = s.delete(&path(&format!("subscribe/?user={c}")), Some(&tb)).await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(s.delete(&path(&format!("subscribe/?user={c}")), Some(&ta)).await.status, 204);
    assert_eq!(s.delete(&path("subscribe/"), Some(&tb)).await.status, 204);
    assert_eq!(ok(&s.get(&path(""), Some(&ta)).await)["subscribers_counter"], 1);
    assert_eq!(ok(&s.get(&path("status/"), Some(&tb)).await)["status"], serde_json::Value::Null);
    // the caller's groups and another user's, as the caller may see them
    assert_eq!(s.list_ids("/api/v2/group/", Some(&ta)).await, [id]);
    assert_eq!(s.list_ids(&format!("/api/v2/user/{a}/groups/"), None).await, [id]);
    s.assert_consistent();
    s.stop().await;
}

/// A public group: anyone joins at once and sees its members; 50 members joining at
/// once and 25 leaving at once leave the counter exact (`hearth check` agrees).
#[tokio::test]
async fn fifty_parallel_members_keep_the_counter_exact() {
    let s = server().await;
    let owner = s.user("owner", None, false);
    let g = create(&s, &s.jwt(owner), json!({"name": "Everyone"})).await;
    let id = g["id"].as_i64().unwrap();
    let path = format!("/api/v2/group/{id}/subscribe/");
    let tokens: Vec<String> =
        (0..50).map(|i| s.jwt(s.user(&format!("member{i}"), None, false))).collect();
    let joins = tokens.iter().map(|t| s.post_empty(&path, Some(t)));
    for r in futures_util::future::join_all(joins).await {
        assert_eq!(r.status, 204, "{}", r.text);
    }
    let leaves = tokens.iter().take(25).map(|t| s.delete(&path, Some(t)));
    for r in futures_util::future::join_all(leaves).await {
        assert_eq!(r.status, 204, "{}", r.text);
    }
    let g = ok(&s.get(&format!("/api/v2/group/{id}/"), None).await);
    assert_eq!(g["subscribers_counter"], 26);
    let members = ok(&s.get(&path, None).await);
    assert_eq!(members["count"], 26);
    s.assert_consistent();
    s.stop().await;
}

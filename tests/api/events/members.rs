//! An event's membership and answers: join, request, invite, accept, withdraw, going
//! and not going, leave, remove; the lists; the notifications each step sends; the
//! counters under parallel writers.

use reqwest::Method;
use serde_json::{Value, json};

use super::{body, create, event_notes, ok, server};
use crate::common::ids;

/// A private event: a request waits (its admin is notified), the admin accepts it (the
/// requester is notified and becomes a member); an invited user answers going (the
/// admin is notified); invitations withdrawn; members leave, admins remove.
#[tokio::test]
async fn requests_invitations_answers_and_their_notifications() {
    let s = server().await;
    let [a, b, c, d] = s.users(["ann", "bob", "cat", "dan"]);
    let [ta, tb, tc, td] = [a, b, c, d].map(|u| s.jwt(u));
    let e = create(&s, &ta, body(&s, "Book club", 24, 26, json!({"privacy": "private"}))).await;
    let id = e["id"].as_i64().unwrap();
    let path = |p: &str| format!("/api/v2/event/{id}/{p}");
    let status = async |t: &str| ok(&s.get(&path("status/"), Some(t)).await)["status"].clone();
    // a stranger may not answer a private event: it asks
    assert_eq!(s.post_empty(&path("going/"), Some(&tb)).await.status, 403);
    assert_eq!(s.post_empty(&path("subscribe/"), Some(&tb)).await.status, 204);
    assert_eq!(status(&tb).await, "requested");
    assert_eq!(s.post_empty(&path("going/"), Some(&tb)).await.status, 403, "a requester waits");
    assert_eq!(ids(&ok(&s.get(&path("request_subscribe/"), Some(&ta)).await)["results"]), [b]);
    assert_eq!(event_notes(&s, &ta).await, [("user_requested_to_join_event".into(), id)]);
    for p in ["request_subscribe/", "invite/"] {
        assert_eq!(s.status(&path(p), Some(&tc)).await, 403, "{p}");
    }
    // a private event's members and answers are for its members
    for p in ["subscribe/", "going/", "not_going/"] {
        assert_eq!(s.status(&path(p), Some(&tb)).await, 403, "{p}");
    }
    // ann accepts bob and invites cat and dan
    let r = s.post(&path("invite/"), Some(&ta), json!({"users": [b, c, d]})).await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(event_notes(&s, &tb).await, [("user_added_to_event".into(), id)]);
    assert_eq!(event_notes(&s, &tc).await, [("user_invited_to_join_event".into(), id)]);
    assert!(event_notes(&s, &ta).await.is_empty(), "the answered request's notification goes");
    assert_eq!(status(&tb).await, "subscribed");
    // cat answers going: the invitation becomes membership, ann is told
    assert_eq!(s.post_empty(&path("going/"), Some(&tc)).await.status, 204);
    assert_eq!(status(&tc).await, "going");
    assert!(event_notes(&s, &tc).await.is_empty(), "the answered invitation goes");
    assert_eq!(event_notes(&s, &ta).await, [("user_accepted_to_join_event".into(), id)]);
    // ann withdraws dan's invitation
    let r =
        s.call(Method::DELETE, &path("invite/"), Some(&ta), Some(json!({"users": [d, b]}))).await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(status(&td).await, Value::Null);
    assert!(event_notes(&s, &td).await.is_empty());
    assert_eq!(status(&tb).await, "subscribed", "a member keeps their status");
    // bob says no, then takes it back; the answers' lists
    assert_eq!(s.post_empty(&path("not_going/"), Some(&tb)).await.status, 204);
    assert_eq!(status(&tb).await, "not_going");
    s.db_write(|tx| tx.execute("UPDATE user SET description = 'Bakes bread' WHERE id = ?1", [c]));
    let going = ok(&s.get(&path("going/"), Some(&tb)).await);
    assert_eq!(ids(&going["results"]), [a, c]);
    // User JSON, as the kit's member cards read it (their second line: the description)
    assert_eq!(going["results"][1]["description"], "Bakes bread");
    assert_eq!(going["results"][1]["followers_counter"], 0);
    assert_eq!(ids(&ok(&s.get(&path("not_going/"), Some(&tb)).await)["results"]), [b]);
    assert_eq!(s.delete(&path("going/"), Some(&tb)).await.status, 204, "not its answer: nothing");
    assert_eq!(status(&tb).await, "not_going");
    assert_eq!(s.delete(&path("not_going/"), Some(&tb)).await.status, 204);
    assert_eq!(status(&tb).await, "subscribed");
    let e = ok(&s.get(&path(""), Some(&tb)).await);
    assert_eq!(
        (e["subscribers_counter"].clone(), e["goings_counter"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(ids(&ok(&s.get(&path("subscribe/"), Some(&tb)).await)["results"]), [a, b, c]);
    // users to invite: not the caller, not those in it; a stranger's list says nothing
    assert_eq!(ids(&ok(&s.get(&path("user/?search="), Some(&ta)).await)["results"]), [d]);
    assert_eq!(ids(&ok(&s.get(&path("user/?search="), Some(&td)).await)["results"]), [a, b, c]);
    assert_eq!(ids(&ok(&s.get("/api/v2/event/user/?search=c", Some(&ta)).await)["results"]), [c]);
    // leaving, removing, and the creator who can do neither
    assert_eq!(s.delete(&path("subscribe/"), Some(&ta)).await.status, 403);
    let r = s.delete(&path("subscribe/?user=x"), Some(&ta)).await;
    r.assert_field_error("user", "invalid");
    assert_eq!(s.delete(&path(&format!("subscribe/?user={c}")), Some(&tb)).await.status, 403);
    assert_eq!(s.delete(&path(&format!("subscribe/?user={c}")), Some(&ta)).await.status, 204);
    assert_eq!(s.delete(&path("subscribe/"), Some(&tb)).await.status, 204);
    let e = ok(&s.get(&path(""), Some(&ta)).await);
    assert_eq!(
        (e["subscribers_counter"].clone(), e["goings_counter"].clone()),
        (json!(1), json!(1))
    );
    // the invitations' bodies
    let r = s.post(&path("invite/"), Some(&ta), json!({"users": []})).await;
    r.assert_field_error("users", "required");
    let r = s.post(&path("invite/"), Some(&ta), json!({"users": [12345]})).await;
    r.assert_field_error("users", "invalid");
    s.assert_consistent();
    s.stop().await;
}

/// A public event: anyone answers at once (joining); suggestions leave out the
/// caller's events; 50 members answering going at once, then 25 switching to not
/// going and 10 leaving at once, leave both counters exact (`hearth check` agrees).
#[tokio::test]
async fn fifty_parallel_answers_keep_the_counters_exact() {
    let s = server().await;
    let owner = s.user("owner", None, false);
    let e = create(&s, &s.jwt(owner), body(&s, "Open air", 2, 4, json!({}))).await;
    let id = e["id"].as_i64().unwrap();
    let tokens: Vec<String> =
        (0..50).map(|i| s.jwt(s.user(&format!("m{i}"), None, false))).collect();
    assert_eq!(s.list_ids("/api/v2/suggestion/event/", Some(&tokens[0])).await, [id]);
    let going = format!("/api/v2/event/{id}/going/");
    let not_going = format!("/api/v2/event/{id}/not_going/");
    let all = tokens.iter().map(|t| s.post_empty(&going, Some(t)));
    for r in futures_util::future::join_all(all).await {
        assert_eq!(r.status, 204, "{}", r.text);
    }
    let some = tokens.iter().take(25).map(|t| s.post_empty(&not_going, Some(t)));
    for r in futures_util::future::join_all(some).await {
        assert_eq!(r.status, 204, "{}", r.text);
    }
    let leave = format!("/api/v2/event/{id}/subscribe/");
    let few = tokens.iter().skip(20).take(10).map(|t| s.delete(&leave, Some(t)));
    for r in futures_util::future::join_all(few).await {
        assert_eq!(r.status, 204, "{}", r.text);
    }
    // members: owner + 40; going: owner + 50 - 25 (not going) - 5 (left, going)
    let e = ok(&s.get(&format!("/api/v2/event/{id}/"), None).await);
    assert_eq!(
        (e["subscribers_counter"].clone(), e["goings_counter"].clone()),
        (json!(41), json!(21))
    );
    assert_eq!(ok(&s.get(&going, None).await)["count"], 21);
    assert_eq!(ok(&s.get(&not_going, None).await)["count"], 20);
    assert!(s.list_ids("/api/v2/suggestion/event/", Some(&tokens[0])).await.is_empty());
    s.assert_consistent();
    s.stop().await;
}

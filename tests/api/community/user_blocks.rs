//! Staff block a member (SPEC §10 People, suspension): while the block lasts the member
//! reads and looks after their account but cannot post, comment, vote, flag, follow
//! people, ask for connections or edit their profile; the block ends by itself or when
//! staff lift it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

const DAY: i64 = 86_400 * hearth::clock::SECOND;

async fn moderate(
    s: &TestServer,
    staff: &str,
    id: i64,
    query: &str,
    status: &str,
) -> crate::common::Resp {
    s.patch(
        &format!("/api/v2/moderation/user/{id}/{query}"),
        Some(staff),
        json!({"status": status}),
    )
    .await
}

/// The writes a blocked member is refused, each a 403 that says why.
async fn assert_refused_writes(s: &TestServer, token: &str, me: i64, other: i64, post: i64) {
    let refused = [
        s.post("/api/v2/post/", Some(token), json!({"text": "still here"})).await,
        s.post("/api/v2/comment/", Some(token), json!({"post": post, "text": "me too"})).await,
        s.post(&format!("/api/v2/post/{post}/vote/"), Some(token), json!({})).await,
        s.post(&format!("/api/v2/post/{post}/flag/"), Some(token), json!({"flag_type": 0})).await,
        s.post(&format!("/api/v2/user/{other}/follow/"), Some(token), json!({})).await,
        s.patch(&format!("/api/v2/user/{me}/"), Some(token), json!({"bio": "x"})).await,
    ];
    for r in refused {
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
        assert!(r.text.contains("Your account is blocked"), "{}", r.text);
    }
}

#[tokio::test]
async fn a_blocked_member_reads_but_cannot_write_until_the_block_ends() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    let (ann, a) = s.login("ann");
    let post = s.create_id("/api/v2/post/", &a, json!({"text": "hello"})).await;
    let r = moderate(&s, &staff, bob, "?days_blocked=2", "b").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!((j["id"].clone(), j["days_blocked"].clone()), (json!(bob), json!(2)));
    assert!(j["blocked_at"].is_string() && j["expire_at"].is_string(), "{j}");
    assert_eq!(s.get("/api/v2/user/me/", Some(&b)).await.json()["status"], json!("b"));
    assert_eq!(s.get("/api/v2/user/me/", Some(&a)).await.json()["status"], json!("a"));
    assert_refused_writes(&s, &b, bob, ann, post).await;
    // reading, and looking after the account, go on
    assert_eq!(s.get(&format!("/api/v2/post/{post}/"), Some(&b)).await.status, StatusCode::OK);
    let r = s
        .patch(&format!("/api/v2/user/{bob}/settings/"), Some(&b), json!({"qa_frequency": 1}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = s.post(&format!("/api/v2/user/{ann}/hide/"), Some(&b), json!({})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    // the staff list
    let ids = |v: Value| {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["id"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(s.get("/api/v2/moderation/user/", Some(&staff)).await.json()), [bob]);
    assert_eq!(
        ids(s.get("/api/v2/moderation/user/?days_blocked=days", Some(&staff)).await.json()),
        [bob]
    );
    assert!(
        ids(s.get("/api/v2/moderation/user/?days_blocked=forever", Some(&staff)).await.json())
            .is_empty()
    );
    // the block ends by itself
    s.clock.advance(2 * DAY);
    let b = s.jwt(bob);
    let r = s.post("/api/v2/post/", Some(&b), json!({"text": "back"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(s.get("/api/v2/user/me/", Some(&b)).await.json()["status"], json!("a"));
    s.assert_consistent();
}

#[tokio::test]
async fn a_block_without_an_end_lasts_until_staff_lift_it() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, _) = s.login("bob");
    let r = moderate(&s, &staff, bob, "", "b").await;
    assert_eq!(
        (r.status, r.json()["days_blocked"].clone(), r.json()["expire_at"].clone()),
        (StatusCode::OK, Value::Null, Value::Null)
    );
    s.clock.advance(3000 * DAY);
    let b = s.jwt(bob);
    assert_eq!(
        s.post("/api/v2/post/", Some(&b), json!({"text": "x"})).await.status,
        StatusCode::FORBIDDEN
    );
    let staff = s.jwt(s.user("staff3", None, true));
    let r = moderate(&s, &staff, bob, "", "a").await;
    assert_eq!((r.status, r.json()["blocked_at"].clone()), (StatusCode::OK, Value::Null));
    assert_eq!(
        s.post("/api/v2/post/", Some(&b), json!({"text": "x"})).await.status,
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn only_staff_block_and_never_staff_or_themselves() {
    let s = TestServer::start().await;
    let moira = s.user("moira", None, true);
    let staff = s.jwt(moira);
    let other_staff = s.user("nils", None, true);
    let (bob, b) = s.login("bob");
    let (ann, _) = s.login("ann");
    assert_eq!(moderate(&s, &b, ann, "", "b").await.status, StatusCode::FORBIDDEN);
    assert_eq!(s.get("/api/v2/moderation/user/", Some(&b)).await.status, StatusCode::FORBIDDEN);
    moderate(&s, &staff, other_staff, "", "b").await.assert_field_error("status", "invalid");
    moderate(&s, &staff, moira, "", "b").await.assert_field_error("status", "invalid");
    moderate(&s, &staff, bob, "", "x").await.assert_field_error("status", "invalid_choice");
    moderate(&s, &staff, bob, "?days_blocked=0", "b")
        .await
        .assert_field_error("days_blocked", "invalid");
    moderate(&s, &staff, bob, "?days_blocked=soon", "b")
        .await
        .assert_field_error("days_blocked", "invalid");
    assert_eq!(moderate(&s, &staff, 999_999, "", "b").await.status, StatusCode::NOT_FOUND);
    let r = s.get("/api/v2/moderation/user/?days_blocked=sometimes", Some(&staff)).await;
    r.assert_field_error("days_blocked", "invalid_choice");
    // nothing was blocked by any of it
    assert_eq!(
        s.post("/api/v2/post/", Some(&b), json!({"text": "x"})).await.status,
        StatusCode::CREATED
    );
}

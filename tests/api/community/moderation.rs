//! Flags and moderation (SPEC §10 People): members flag, staff see the queue and the
//! flags, delete, hide or ignore for a reason and undo, and the author is told; members
//! cannot moderate, and every refusal is named.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

/// bob's post; carol and dave are members, mod is staff.
async fn setup() -> (TestServer, i64, [(i64, String); 4]) {
    let s = TestServer::start().await;
    let bob = s.login("bob");
    let carol = s.login("carol");
    let dave = s.login("dave");
    let staff_id = s.user("mod", None, true);
    let staff = (staff_id, s.jwt(staff_id));
    let post = s.create_id("/api/v2/post/", &bob.1, json!({"text": "Buy cheap watches"})).await;
    (s, post, [bob, carol, dave, staff])
}

async fn flag(s: &TestServer, token: &str, path: &str, t: Value) -> StatusCode {
    s.post(path, Some(token), json!({ "flag_type": t })).await.status
}

async fn moderate(s: &TestServer, token: &str, post: i64, body: Value) -> (StatusCode, Value) {
    let r = s.patch(&format!("/api/v2/moderation/contribution/{post}/"), Some(token), body).await;
    (r.status, if r.text.is_empty() { Value::Null } else { r.json() })
}

fn types(s: &TestServer, user: i64) -> Vec<String> {
    s.db_read(|c| {
        let mut st = c.prepare("SELECT type FROM notification WHERE user_id = ?1 ORDER BY id")?;
        let rows = st.query_map([user], |r| r.get(0))?;
        rows.collect()
    })
}

#[tokio::test]
async fn a_flag_reaches_the_staff_queue_and_a_deletion_tells_the_author() {
    let (s, post, [bob, carol, dave, staff]) = setup().await;
    let path = format!("/api/v2/post/{post}/flag/");
    assert_eq!(flag(&s, &carol.1, &path, json!(0)).await, StatusCode::NO_CONTENT);
    assert_eq!(flag(&s, &dave.1, &path, json!("2")).await, StatusCode::NO_CONTENT);
    let r = s.get(&format!("/api/v2/post/{post}/flag/status/"), Some(&carol.1)).await;
    assert_eq!(r.json(), json!({"flag_type": 0, "flag_type_description": "Spam"}));
    // carol changes her mind twice: another reason, then the same one again (taken back)
    flag(&s, &carol.1, &path, json!(4)).await;
    flag(&s, &carol.1, &path, json!(4)).await;
    let r = s.get(&format!("/api/v2/post/{post}/flag/status/"), Some(&carol.1)).await;
    assert_eq!(r.json()["flag_type"], Value::Null);
    flag(&s, &carol.1, &path, json!(0)).await;
    // staff: the queue, the flags
    let q = s.get("/api/v2/moderation/contribution/", Some(&staff.1)).await.json();
    assert_eq!(q["count"], 1);
    let entry = &q["results"][0];
    assert_eq!(
        (entry["contribution_type"].clone(), entry["contribution"]["id"].clone()),
        (json!("post"), json!(post))
    );
    assert_eq!(
        (entry["moderation_status"].clone(), entry["moderation_by"].clone()),
        (json!("open"), Value::Null)
    );
    let flags = s.get(&format!("/api/v2/post/{post}/flag/"), Some(&staff.1)).await.json();
    assert_eq!(flags["count"], 2);
    assert_eq!(flags["results"][0]["user"]["id"], carol.0, "newest first");
    let only = s
        .get(
            &format!(
                "/api/v2/moderation/contribution/{post}/flag/?contribution_type=post&flag_type=2"
            ),
            Some(&staff.1),
        )
        .await;
    assert_eq!(
        (only.json()["count"].clone(), only.json()["results"][0]["user"]["id"].clone()),
        (json!(1), json!(dave.0))
    );
    // deleted for spam: gone for members, the author told
    let (code, body) = moderate(
        &s,
        &staff.1,
        post,
        json!({"contribution_type": "post", "action": "delete", "moderation_type": 0}),
    )
    .await;
    assert_eq!(
        (code, body),
        (
            StatusCode::OK,
            json!({"status": "deleted", "flag_type": 0, "flag_type_description": "Spam"})
        )
    );
    assert_eq!(
        s.get(&format!("/api/v2/post/{post}/"), Some(&carol.1)).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(types(&s, bob.0), ["deleted_for_advertising"]);
    let n = s.get("/api/v2/notification/", Some(&bob.1)).await.json();
    assert_eq!(n["results"][0]["aggregated"][0]["post"]["id"], post);
    let st = s
        .get(
            &format!("/api/v2/moderation/contribution/{post}/status/?contribution_type=post"),
            Some(&staff.1),
        )
        .await;
    assert_eq!(st.json()["status"], "deleted");
    // a second decision is refused until this one is undone; undoing restores and tells
    let (code, _) = moderate(
        &s,
        &staff.1,
        post,
        json!({"contribution_type": "post", "action": "hide", "moderation_type": 1}),
    )
    .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    let (code, body) =
        moderate(&s, &staff.1, post, json!({"contribution_type": "post", "action": "delete"}))
            .await;
    assert_eq!((code, body["status"].clone()), (StatusCode::OK, json!("open")));
    assert_eq!(
        s.get(&format!("/api/v2/post/{post}/"), Some(&carol.1)).await.status,
        StatusCode::OK
    );
    assert_eq!(types(&s, bob.0), ["deleted_for_advertising", "undeleted_for"]);
    s.assert_consistent();
}

#[tokio::test]
async fn hiding_collapses_a_comment_and_ignoring_keeps_it() {
    let (s, post, [bob, carol, _, staff]) = setup().await;
    let comment = s
        .create_id("/api/v2/comment/", &carol.1, json!({"post": post, "text": "rude words"}))
        .await;
    assert_eq!(
        flag(&s, &bob.1, &format!("/api/v2/comment/{comment}/flag/"), json!(1)).await,
        StatusCode::NO_CONTENT
    );
    let (code, _) = moderate(
        &s,
        &staff.1,
        comment,
        json!({"contribution_type": "comment", "action": "hide", "moderation_type": 1}),
    )
    .await;
    assert_eq!(code, StatusCode::OK);
    let c = s.get(&format!("/api/v2/comment/{comment}/"), Some(&bob.1)).await.json();
    assert_eq!(c["collapsed"], true);
    assert_eq!(types(&s, carol.0), ["collapsed_for_aggressive"]);
    let n = s.get("/api/v2/notification/", Some(&carol.1)).await.json();
    assert_eq!(n["results"][0]["aggregated"][0]["comment"]["id"], comment);
    moderate(&s, &staff.1, comment, json!({"contribution_type": "comment", "action": "hide"}))
        .await;
    assert_eq!(
        s.get(&format!("/api/v2/comment/{comment}/"), Some(&bob.1)).await.json()["collapsed"],
        false
    );
    let (code, body) = moderate(
        &s,
        &staff.1,
        comment,
        json!({"contribution_type": "comment", "action": "ignore", "moderation_type": 1}),
    )
    .await;
    assert_eq!((code, body["status"].clone()), (StatusCode::OK, json!("ignored")));
    assert_eq!(
        s.get(&format!("/api/v2/comment/{comment}/"), Some(&bob.1)).await.status,
        StatusCode::OK
    );
    s.assert_consistent();
}

#[tokio::test]
async fn members_cannot_moderate_and_bad_flags_are_refused() {
    let (s, post, [bob, carol, _, staff]) = setup().await;
    let path = format!("/api/v2/post/{post}/flag/");
    assert_eq!(flag(&s, &bob.1, &path, json!(0)).await, StatusCode::BAD_REQUEST, "one's own");
    for bad in [json!(5), json!(-1), json!("x"), Value::Null] {
        assert_eq!(flag(&s, &carol.1, &path, bad.clone()).await, StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(flag(&s, &carol.1, "/api/v2/post/999/flag/", json!(0)).await, StatusCode::NOT_FOUND);
    let r = s.post(&path, Some(&carol.1), json!({"flag_type": 0, "note": "x"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // the staff routes are 403 for a member, whatever the body
    for p in [
        "/api/v2/moderation/contribution/".to_owned(),
        format!("/api/v2/post/{post}/flag/"),
        format!("/api/v2/moderation/contribution/{post}/status/?contribution_type=post"),
        format!("/api/v2/moderation/contribution/{post}/flag/?contribution_type=post"),
    ] {
        assert_eq!(s.get(&p, Some(&carol.1)).await.status, StatusCode::FORBIDDEN, "{p}");
    }
    let (code, _) = moderate(
        &s,
        &carol.1,
        post,
        json!({"contribution_type": "post", "action": "delete", "moderation_type": 0}),
    )
    .await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    assert_eq!(
        s.get(&format!("/api/v2/post/{post}/"), None).await.status,
        StatusCode::OK,
        "nothing changed"
    );
    // bad decisions
    for bad in [
        json!({"contribution_type": "post", "action": "burn", "moderation_type": 0}),
        json!({"contribution_type": "poll", "action": "delete", "moderation_type": 0}),
        json!({"contribution_type": "post", "action": "delete", "moderation_type": 9}),
        json!({"action": "delete", "moderation_type": 0}),
    ] {
        assert_eq!(
            moderate(&s, &staff.1, post, bad.clone()).await.0,
            StatusCode::BAD_REQUEST,
            "{bad}"
        );
    }
    let gone = json!({"contribution_type": "post", "action": "delete", "moderation_type": 0});
    assert_eq!(moderate(&s, &staff.1, 999, gone.clone()).await.0, StatusCode::NOT_FOUND);
    // deleted by its author: nothing to moderate
    s.delete(&format!("/api/v2/post/{post}/"), Some(&bob.1)).await;
    assert_eq!(moderate(&s, &staff.1, post, gone).await.0, StatusCode::BAD_REQUEST);
    s.assert_consistent();
}

#[tokio::test]
async fn fifty_parallel_flags_each_count_once() {
    let s = TestServer::start_with(|c| c.max_connections_per_address = 128).await;
    let (_, b) = s.login("bob");
    let staff_id = s.user("mod", None, true);
    let post = s.create_id("/api/v2/post/", &b, json!({"text": "x"})).await;
    let members: Vec<i64> = (0..50).map(|i| s.user(&format!("m{i}"), None, false)).collect();
    let path = format!("/api/v2/post/{post}/flag/");
    let flags = members.iter().map(|&m| {
        let (s, t, path) = (&s, s.jwt(m), path.clone());
        async move { flag(s, &t, &path, json!(m % 5)).await }
    });
    let codes = futures_util::future::join_all(flags).await;
    assert!(codes.iter().all(|c| *c == StatusCode::NO_CONTENT), "{codes:?}");
    let r = s.get(&format!("{path}?limit=100"), Some(&s.jwt(staff_id))).await.json();
    assert_eq!(r["count"], 50);
    let q = s.get("/api/v2/moderation/contribution/", Some(&s.jwt(staff_id))).await.json();
    assert_eq!(q["count"], 1);
    s.assert_consistent();
}

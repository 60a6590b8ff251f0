//! Deleting one's account (SPEC §10 People): the account ends at once, its personal
//! data is erased, its contributions stay (or go, with `hard=1`), and nobody else can
//! delete it.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::TestServer;

#[tokio::test]
async fn a_member_deletes_their_account_and_their_data_goes() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let post = s.create_id("/api/v2/post/", &a, json!({"text": "my first loaf"})).await;
    s.patch(
        &format!("/api/v2/user/{alice}/"),
        Some(&a),
        json!({"bio": "baker", "real_name": "Alice B"}),
    )
    .await;
    // a tag staff gave her
    let now = s.clock.now();
    s.db_write(move |tx| {
        let t = hearth::model::tag::TagInput { name: Some("Baker".into()), ..Default::default() };
        let id = hearth::db::tags::insert(tx, &t.new_tag(now), None)?;
        hearth::db::tags::assign(tx, id, alice)
    });
    // another member may not
    let r = s.call(Method::DELETE, &format!("/api/v2/user/{alice}/"), Some(&b), None).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r =
        s.call(Method::DELETE, &format!("/api/v2/user/{alice}/?hard=yes"), Some(&a), None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s.call(Method::DELETE, &format!("/api/v2/user/{alice}/"), Some(&a), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    // ended at once
    assert_eq!(s.get("/api/v2/user/me/", Some(&a)).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(s.get(&format!("/api/v2/user/{alice}/"), None).await.status, StatusCode::NOT_FOUND);
    // erased
    let row: (String, Option<String>, String, String) = s.db_read(|c| {
        c.query_row(
            "SELECT username, email, real_name, bio FROM user WHERE id = ?1",
            [alice],
            |r| r.try_into(),
        )
    });
    assert_eq!(row, (format!("deleted-user-{alice}"), None, String::new(), String::new()));
    let tags: i64 = s.db_read(move |c| {
        c.query_row("SELECT count(*) FROM user_tag WHERE user_id = ?1", [alice], |r| r.get(0))
    });
    assert_eq!(tags, 0, "her tags go with her account");
    // the post stays, a deleted user's
    let p = s.get(&format!("/api/v2/post/{post}/"), Some(&b)).await.json();
    assert_eq!(
        (p["text"].clone(), p["author"]["deleted"].clone()),
        (json!("my first loaf"), json!(true))
    );
    // the name and the address are free again
    s.user("alice", None, false);
    let _ = bob;
    s.assert_consistent();
}

#[tokio::test]
async fn a_hard_delete_takes_the_contributions_and_their_texts() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let post = s.create_id("/api/v2/post/", &a, json!({"text": "private thoughts"})).await;
    let search = "/api/v2/search/?type=feed&search=private";
    assert_eq!(s.get(search, Some(&b)).await.json()["count"], Value::from(1));
    let r = s.call(Method::DELETE, &format!("/api/v2/user/{alice}/?hard=1"), Some(&a), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        s.get(&format!("/api/v2/post/{post}/"), Some(&b)).await.status,
        StatusCode::NOT_FOUND
    );
    let text: String = s.db_read(|c| {
        c.query_row("SELECT text FROM contribution WHERE author_id = ?1", [alice], |r| r.get(0))
    });
    assert_eq!(text, "");
    let found = s.get(search, Some(&b)).await.json();
    assert_eq!(found["count"], Value::from(0));
    s.assert_consistent();
}

#[tokio::test]
async fn a_member_changes_their_password_with_the_current_one() {
    let s = TestServer::start_with(|c| c.login_max_failures = 3).await;
    let alice = s.user("alice", Some("old password"), false);
    let bob = s.user("bob", Some("bob's password"), false);
    let a = s.jwt(alice);
    let path = format!("/api/v2/user/{alice}/change_password/");
    // another member's: 403 before any password work
    let r = s
        .patch(
            &format!("/api/v2/user/{bob}/change_password/"),
            Some(&a),
            json!({"password": "bob's password", "new_password": "stolen password"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    for (bad, field) in [
        (json!({"password": "old password", "new_password": "short"}), "new_password"),
        (json!({"password": "old password", "new_password": "old password"}), "new_password"),
        (json!({"new_password": "a new password"}), "password"),
        (json!({"password": "old password", "new_password": "a new password", "x": 1}), "x"),
    ] {
        let r = s.patch(&path, Some(&a), bad.clone()).await;
        assert_eq!(
            (r.status, r.json()["errors"][0]["field"].clone()),
            (StatusCode::BAD_REQUEST, json!(field)),
            "{bad}"
        );
    }
    let r = s
        .patch(&path, Some(&a), json!({"password": "wrong", "new_password": "a new password"}))
        .await;
    r.assert_field_error("password", "invalid");
    let r = s
        .patch(
            &path,
            Some(&a),
            json!({"password": "old password", "new_password": "a new password"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let hash: String = s
        .db_read(|c| c.query_row("SELECT password FROM user WHERE id = ?1", [alice], |r| r.get(0)));
    assert!(hearth::token::password::verify("a new password", &hash));
    // guessing is limited like sign-ins
    let mut codes = Vec::new();
    for _ in 0..4 {
        codes.push(
            s.patch(
                &path,
                Some(&a),
                json!({"password": "guess", "new_password": "another password"}),
            )
            .await
            .status,
        );
    }
    assert_eq!(codes.last(), Some(&StatusCode::TOO_MANY_REQUESTS), "{codes:?}");
}

#[tokio::test]
async fn counters_and_permissions_say_what_hearth_holds_and_enforces() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    s.create_id("/api/v2/post/", &a, json!({"text": "p"})).await;
    s.create_id("/api/v2/status/", &a, json!({"text": "s"})).await;
    s.post_empty(&format!("/api/v2/user/{alice}/follow/"), Some(&b)).await;
    s.set_pref("configurations", "connection_enabled", json!(true));
    s.post_empty(&format!("/api/v2/user/{alice}/connection/request/"), Some(&b)).await;
    let mine = s.get(&format!("/api/v2/user/{alice}/counters/"), Some(&a)).await.json();
    assert_eq!(
        (mine["posts"].clone(), mine["statuses"].clone(), mine["followers"].clone()),
        (json!(1), json!(1), json!(1))
    );
    assert_eq!(mine["connection_requests_received_counter"], 1);
    let seen = s.get(&format!("/api/v2/user/{alice}/counters/"), Some(&b)).await.json();
    assert_eq!(seen["connection_requests_received_counter"], 0, "another's requests are not shown");
    assert_eq!(s.get("/api/v2/user/999/counters/", None).await.status, StatusCode::NOT_FOUND);
    // permissions: what hearth enforces
    let p = s.get("/api/v2/user/me/permission/", Some(&a)).await.json();
    assert_eq!(
        (p["create_post"].clone(), p["request_connection"].clone(), p["create_poll"].clone()),
        (json!(true), json!(true), json!(false))
    );
    s.set_pref("configurations", "post_only_staff_enabled", json!(true));
    assert_eq!(s.get("/api/v2/user/me/permission/", Some(&a)).await.json()["create_post"], false);
    assert_eq!(
        s.post("/api/v2/post/", Some(&a), json!({"text": "x"})).await.status,
        StatusCode::FORBIDDEN
    );
    let post = s
        .create_id("/api/v2/post/", &s.jwt(s.user("mod", None, true)), json!({"text": "staff"}))
        .await;
    let r = s
        .post("/api/v2/comment/", Some(&a), json!({"post": post, "text": "comments stay open"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let _ = bob;
}

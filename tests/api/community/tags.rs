//! User tags (SPEC §10 People, issue 32): staff create, edit and assign tags; a
//! member's User JSON shows their visible tags. Addressing items to tags: addressing.rs.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test]
async fn staff_keep_tags_and_members_may_not() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (_, b) = s.login("bob");
    let body = json!({"name": "Mentor", "color": "#3F51B5", "description": "Helps newcomers"});
    // members: 403 on every tag route, reads included
    let r = s.post("/api/v2/tag/", Some(&b), body.clone()).await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    s.get("/api/v2/tag/", Some(&b)).await.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = s.post("/api/v2/tag/", Some(&staff), body.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let t = r.json();
    assert_eq!(
        (t["name"].clone(), t["color"].clone(), t["type"].clone(), t["visible"].clone()),
        (json!("Mentor"), json!("#3f51b5"), json!("user"), json!(true))
    );
    assert!(t["created_at"].is_string() && t["deleted"] == json!(false), "{t}");
    let id = t["id"].as_i64().unwrap();
    s.get(&format!("/api/v2/tag/{id}/"), Some(&b))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    // the same name again, in any case, is 400 unique
    let r = s.post("/api/v2/tag/", Some(&staff), json!({"name": "mentor"})).await;
    r.assert_field_error("name", "unique");
    // PATCH changes what it names; PUT needs the name
    let r = s.patch(&format!("/api/v2/tag/{id}/"), Some(&staff), json!({"visible": false})).await;
    assert_eq!((r.status, r.json()["visible"].clone()), (StatusCode::OK, json!(false)));
    assert_eq!(r.json()["color"], json!("#3f51b5"));
    let r = s.put(&format!("/api/v2/tag/{id}/"), Some(&staff), json!({"visible": true})).await;
    r.assert_field_error("name", "required");
    let r = s
        .put(
            &format!("/api/v2/tag/{id}/"),
            Some(&staff),
            json!({"name": "Mentors", "visible": true}),
        )
        .await;
    assert_eq!(r.json()["name"], json!("Mentors"), "{}", r.text);
    let r = s.get("/api/v2/tag/?search=ENTO", Some(&staff)).await;
    assert_eq!(
        (r.json()["count"].clone(), names(&r.json()["results"])),
        (json!(1), vec!["Mentors".to_owned()])
    );
    let r = s.get("/api/v2/tag/user/search/?visible=false", Some(&staff)).await;
    assert_eq!(r.json()["count"], json!(0));
    s.get("/api/v2/tag/999999/", Some(&staff))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn bad_tag_input_is_400_on_its_field() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": ""}), "name"),
        (json!({"name": "x".repeat(51)}), "name"),
        (json!({"name": 5}), "name"),
        (json!({"name": "a\u{0}b"}), "name"),
        (json!({"name": "ok", "color": "red"}), "color"),
        (json!({"name": "ok", "color": "javascript:alert(1)"}), "color"),
        (json!({"name": "ok", "description": "d".repeat(501)}), "description"),
        (json!({"name": "ok", "type": "category"}), "type"),
        (json!({"name": "ok", "visible": "maybe"}), "visible"),
        (json!({"name": "ok", "owner": 1}), "owner"),
    ] {
        let r = s.post("/api/v2/tag/", Some(&staff), body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        assert!(r.text.contains(&format!("\"field\":\"{field}\"")), "{body}: {}", r.text);
    }
    let r = s.get("/api/v2/tag/?active=perhaps", Some(&staff)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(s.get("/api/v2/tag/", Some(&staff)).await.json()["count"], json!(0));
}

#[tokio::test]
async fn an_assigned_visible_tag_shows_on_the_members_profile() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    let (_, a) = s.login("ann");
    let shown = s.create_id("/api/v2/tag/", &staff, json!({"name": "Shown"})).await;
    let hidden =
        s.create_id("/api/v2/tag/", &staff, json!({"name": "Hidden", "visible": false})).await;
    for t in [shown, hidden] {
        let r =
            s.post(&format!("/api/v2/tag/{t}/assign/"), Some(&staff), json!({"user": bob})).await;
        assert_eq!((r.status, r.json()["id"].clone()), (StatusCode::OK, json!(t)), "{}", r.text);
    }
    // again: nothing changes
    let r =
        s.post(&format!("/api/v2/tag/{shown}/assign/"), Some(&staff), json!({"user": bob})).await;
    assert_eq!(r.status, StatusCode::OK);
    let profile = s.get(&format!("/api/v2/user/{bob}/"), Some(&a)).await.json();
    assert_eq!(names(&profile["tags"]), ["Shown"], "{profile}");
    assert_eq!(profile["tags"][0]["color"], json!("#9e9e9e"));
    let me = s.get("/api/v2/user/me/", Some(&b)).await.json();
    assert_eq!(names(&me["tags"]), ["Shown"]);
    // in lists too (the batched read): ann follows bob, bob is among her followings
    let (_, ann_id) = (0, s.get("/api/v2/user/me/", Some(&a)).await.json()["id"].as_i64().unwrap());
    let r = s.post(&format!("/api/v2/user/{bob}/follow/"), Some(&a), json!({})).await;
    assert!(r.status.is_success(), "{}", r.text);
    let r = s.get(&format!("/api/v2/user/{ann_id}/followings/"), Some(&a)).await;
    assert_eq!(names(&r.json()["results"][0]["tags"]), ["Shown"], "{}", r.text);
    // deleted or inactive: off the profile
    s.patch(&format!("/api/v2/tag/{shown}/"), Some(&staff), json!({"active": false})).await;
    let profile = s.get(&format!("/api/v2/user/{bob}/"), Some(&a)).await.json();
    assert_eq!(names(&profile["tags"]), Vec::<String>::new());
    s.patch(
        &format!("/api/v2/tag/{shown}/"),
        Some(&staff),
        json!({"active": true, "deleted": true}),
    )
    .await;
    let profile = s.get(&format!("/api/v2/user/{bob}/"), Some(&a)).await.json();
    assert_eq!(names(&profile["tags"]), Vec::<String>::new());
    // a deleted tag is not assigned; bad assign bodies are 400
    let r =
        s.post(&format!("/api/v2/tag/{shown}/assign/"), Some(&staff), json!({"user": bob})).await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let path = format!("/api/v2/tag/{hidden}/assign/");
    s.post(&path, Some(&staff), json!({})).await.assert_field_error("user", "required");
    s.post(&path, Some(&staff), json!({"user": 999999}))
        .await
        .assert_field_error("user", "invalid");
    s.post(&path, Some(&staff), json!({"user": "x"})).await.assert_field_error("user", "invalid");
    s.post(&path, Some(&staff), json!({"category": 1}))
        .await
        .assert_field_error("category", "invalid");
    s.post(&path, Some(&b), json!({"user": bob}))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
}

#[tokio::test]
async fn fifty_parallel_assigns_of_one_tag_leave_one_assignment_each() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let t = s.create_id("/api/v2/tag/", &staff, json!({"name": "Crowd"})).await;
    let users: Vec<i64> = (0..25).map(|i| s.user(&format!("u{i}"), None, false)).collect();
    let mut calls = Vec::new();
    for u in users.iter().chain(users.iter()) {
        let (s, staff, u) = (&s, staff.clone(), *u);
        calls.push(async move {
            s.post(&format!("/api/v2/tag/{t}/assign/"), Some(&staff), json!({"user": u}))
                .await
                .status
        });
    }
    for st in futures_util::future::join_all(calls).await {
        assert_eq!(st, StatusCode::OK);
    }
    let n: i64 = s.db_read(move |c| hearth::db::tags::holders(c, t));
    assert_eq!(n, 25);
    for u in users {
        let p = s.get(&format!("/api/v2/user/{u}/"), Some(&staff)).await.json();
        assert_eq!(names(&p["tags"]), ["Crowd"]);
    }
}

//! The course record: its fields and defaults, validation, slugs, privacy, PUT and PATCH,
//! who may create and change it, and its OpenAPI description.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{body, create, has, patch, set_status};
use crate::common::TestServer;

#[tokio::test]
async fn create_returns_every_field_with_defaults() {
    let s = TestServer::start().await;
    let (alice, tok) = s.login("alice");
    let [cat1, cat2] = s.categories(["Science", "Art"]);
    let c = create(
        &s,
        &tok,
        json!({"name": "Größe über Alles", "type": "structured", "categories": [cat2, cat1.to_string()],
               "id": 999, "deleted": true, "join_status": "joined", "member_count": 7,
               "created_by": 5, "image_bigger": "http://evil/x.png", "unknown": 1}),
    )
    .await;
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    let want = [
        "id",
        "name",
        "slug",
        "description",
        "type",
        "privacy",
        "enforce_lessons_order",
        "new_comment_notification_enabled",
        "hide_member_count",
        "meta_title",
        "meta_description",
        "og_title",
        "og_description",
        "og_image",
        "sections_order",
        "image_bigger",
        "image_big",
        "image_medium",
        "image_small",
        "deleted",
        "join_status",
        "user_completion_rate",
        "created_at",
        "created_by",
        "categories",
        "member_count",
        "num_sections",
        "num_lessons",
        "num_lessons_completed",
    ];
    let mut k = keys.clone();
    k.sort_unstable();
    let mut w = want.to_vec();
    w.sort_unstable();
    assert_eq!(k, w);
    assert_eq!(c["id"], 1);
    assert_eq!(c["slug"], "grosse-uber-alles");
    assert_eq!(c["type"], "structured");
    assert_eq!(c["privacy"], "");
    assert_eq!(c["description"], "");
    assert_eq!(c["enforce_lessons_order"], false);
    assert_eq!(c["new_comment_notification_enabled"], true);
    assert_eq!(c["hide_member_count"], false);
    assert_eq!(c["sections_order"], json!([]));
    assert_eq!(c["deleted"], false);
    assert_eq!(c["join_status"], "creator");
    assert_eq!(c["user_completion_rate"], 0);
    assert_eq!(c["member_count"], 1);
    assert_eq!((c["num_sections"].clone(), c["num_lessons"].clone()), (json!(0), json!(0)));
    assert_eq!(c["created_by"]["id"], alice);
    assert_eq!(c["created_by"]["username"], "alice");
    assert_eq!(c["created_by"].as_object().unwrap().len(), 6, "User Minimal: {}", c["created_by"]);
    let default = format!("{}/static/default/course.svg", s.url);
    for f in ["image_bigger", "image_big", "image_medium", "image_small"] {
        assert_eq!(c[f], default.as_str());
    }
    let created = c["created_at"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 27, "{created}");
    let cats: Vec<i64> =
        c["categories"].as_array().unwrap().iter().map(|x| x["id"].as_i64().unwrap()).collect();
    assert_eq!(cats, vec![cat1, cat2]);
    assert_eq!(c["categories"][0]["name"], "Science");
    // the same JSON on read
    let r = s.get("/api/v2/course/1/", Some(&tok)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), c);
    // the default image is served
    let r = s.get("/static/default/course.svg", None).await;
    assert_eq!(r.status, StatusCode::OK);
    s.assert_consistent();
}

#[tokio::test]
async fn a_change_of_categories_shows_in_the_answer_the_read_and_the_search() {
    // the course's JSON reads its categories by the ids its row keeps (`category_ids`,
    // kept by triggers from the link table): every change must show at once
    let s = TestServer::start().await;
    let (_, tok) = s.login("alice");
    let [sci, art, music] = s.categories(["Science", "Art", "Music"]);
    let mut b = body("Rust for Beginners");
    b["categories"] = json!([music, sci]);
    b["privacy"] = json!("open");
    let id = create(&s, &tok, b).await["id"].as_i64().unwrap();
    let ids = |v: &Value| -> Vec<i64> {
        v["categories"].as_array().unwrap().iter().map(|c| c["id"].as_i64().unwrap()).collect()
    };
    for (change, want) in [
        (json!([art]), vec![art]),
        (json!([music, art, sci]), vec![sci, art, music]),
        (json!([]), vec![]),
        (json!([sci]), vec![sci]),
    ] {
        let r = patch(&s, &tok, id, json!({"categories": change})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(ids(&r.json()), want, "the answer to {change}");
        let read = s.get(&format!("/api/v2/course/{id}/"), Some(&tok)).await.json();
        assert_eq!(ids(&read), want, "a read after {change}");
        let found = s.get("/api/v2/course/search/", Some(&tok)).await.json();
        assert_eq!(ids(&found["results"][0]), want, "the search after {change}");
        let kept: String = s.db_read(|c| {
            c.query_row("SELECT category_ids FROM course WHERE id = ?1", [id], |r| r.get(0))
        });
        assert_eq!(kept, serde_json::to_string(&want).unwrap());
    }
    // a change refused changes nothing
    let r = patch(&s, &tok, id, json!({"categories": [sci, 999]})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let read = s.get(&format!("/api/v2/course/{id}/"), Some(&tok)).await.json();
    assert_eq!(ids(&read), vec![sci]);
    s.assert_consistent();
}

#[tokio::test]
async fn validation_errors_come_all_at_once() {
    let s = TestServer::start().await;
    let (_, tok) = s.login("alice");
    create(&s, &tok, body("Rust for Beginners")).await;
    let r = s.post("/api/v2/course/", Some(&tok), json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(has(&r, "name", "required") && has(&r, "type", "required"), "{}", r.text);
    let r = s
        .post(
            "/api/v2/course/",
            Some(&tok),
            json!({"name": "RUST FOR beginners", "type": "weekly", "privacy": "public",
                   "slug": "Not A Slug", "categories": [999], "sections_order": [1],
                   "enforce_lessons_order": "perhaps"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    for (f, code) in [
        ("name", "unique"),
        ("type", "invalid_choice"),
        ("privacy", "invalid_choice"),
        ("slug", "invalid"),
        ("categories", "invalid"),
        ("sections_order", "invalid"),
        ("enforce_lessons_order", "invalid"),
    ] {
        assert!(has(&r, f, code), "{f} {code}: {}", r.text);
    }
    assert_eq!(r.json()["detail"], "Invalid input.");
    let r = s
        .post("/api/v2/course/", Some(&tok), json!({"name": "x".repeat(256), "type": "scheduled"}))
        .await;
    assert!(has(&r, "name", "max_length"), "{}", r.text);
    let r = s.post("/api/v2/course/", Some(&tok), json!({"name": "  ", "type": "scheduled"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s.post("/api/v2/course/", Some(&tok), json!({"name": null, "type": "scheduled"})).await;
    assert!(has(&r, "name", "null"), "{}", r.text);
    // 255 characters is fine; bodies that are not objects are 400; wrong type 415
    create(&s, &tok, json!({"name": "é".repeat(255), "type": "scheduled"})).await;
    let r = s.post("/api/v2/course/", Some(&tok), json!([1])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s
        .client
        .post(format!("{}/api/v2/course/", s.url))
        .bearer_auth(&tok)
        .header("content-type", "text/plain")
        .body("name=x")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // renaming onto another course's name (any case) is unique too; keeping one's own is fine
    let other = create(&s, &tok, body("Other")).await;
    let id = other["id"].as_i64().unwrap();
    let r = patch(&s, &tok, id, json!({"name": "rust FOR BEGINNERS"})).await;
    assert!(has(&r, "name", "unique"), "{}", r.text);
    let r = patch(&s, &tok, id, json!({"name": "OTHER"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["name"], "OTHER");
    s.assert_consistent();
}

#[tokio::test]
async fn slugs_are_generated_unique_and_changeable() {
    let s = TestServer::start().await;
    let (_, tok) = s.login("alice");
    let a = create(&s, &tok, body("Intro to Rust")).await;
    assert_eq!(a["slug"], "intro-to-rust");
    let b = create(&s, &tok, body("Intro to Rust!")).await;
    assert_eq!(b["slug"], "intro-to-rust-2");
    let c = create(&s, &tok, body("intro_to_rust?")).await;
    assert_eq!(c["slug"], "intro-to-rust-3");
    let d = create(&s, &tok, body("日本語")).await;
    assert_eq!(d["slug"], "course");
    let e = create(&s, &tok, body("中文")).await;
    assert_eq!(e["slug"], "course-2");
    let r = s
        .post(
            "/api/v2/course/",
            Some(&tok),
            json!({"name": "X", "type": "self-paced", "slug": "intro-to-rust"}),
        )
        .await;
    assert!(has(&r, "slug", "unique"), "{}", r.text);
    let f =
        create(&s, &tok, json!({"name": "X", "type": "self-paced", "slug": "my-own-slug"})).await;
    assert_eq!(f["slug"], "my-own-slug");
    let id = a["id"].as_i64().unwrap();
    let r = patch(&s, &tok, id, json!({"slug": "rust-101"})).await;
    assert_eq!(r.json()["slug"], "rust-101");
    let r = patch(&s, &tok, id, json!({"slug": "my-own-slug"})).await;
    assert!(has(&r, "slug", "unique"));
    let r = patch(&s, &tok, id, json!({"slug": "a".repeat(101)})).await;
    assert!(has(&r, "slug", "invalid"));
    // renaming does not change the slug
    let r = patch(&s, &tok, id, json!({"name": "Renamed"})).await;
    assert_eq!(r.json()["slug"], "rust-101");
    // the freed slug can be generated again
    let g = create(&s, &tok, body("Intro to Rust?")).await;
    assert_eq!(g["slug"], "intro-to-rust");
}

#[tokio::test]
async fn privacy_never_goes_back_to_draft() {
    let s = TestServer::start().await;
    let (_, tok) = s.login("alice");
    let c = create(&s, &tok, body("C")).await;
    let id = c["id"].as_i64().unwrap();
    let r = patch(&s, &tok, id, json!({"privacy": ""})).await;
    assert_eq!(r.status, StatusCode::OK, "draft to draft is no change");
    let r = patch(&s, &tok, id, json!({"privacy": "open"})).await;
    assert_eq!(r.json()["privacy"], "open");
    let r = patch(&s, &tok, id, json!({"privacy": ""})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(has(&r, "privacy", "invalid"), "{}", r.text);
    let r = patch(&s, &tok, id, json!({"privacy": "secret"})).await;
    assert_eq!(r.json()["privacy"], "secret");
    let r = patch(&s, &tok, id, json!({"privacy": "hidden"})).await;
    assert!(has(&r, "privacy", "invalid_choice"));
    let r = s
        .put(
            &format!("/api/v2/course/{id}/"),
            Some(&tok),
            json!({"name": "C", "type": "self-paced", "privacy": ""}),
        )
        .await;
    assert!(has(&r, "privacy", "invalid"));
    let r = s.get(&format!("/api/v2/course/{id}/"), Some(&tok)).await;
    assert_eq!(r.json()["privacy"], "secret");
}

#[tokio::test]
async fn put_patch_and_who_may_change() {
    let s = TestServer::start().await;
    let [alice, bob, carol] = s.users(["alice", "bob", "carol"]);
    let (ta, tb, tc) = (s.jwt(alice), s.jwt(bob), s.jwt(carol));
    let c = create(
        &s,
        &ta,
        json!({"name": "C", "type": "self-paced", "description": "d", "meta_title": "m",
               "og_image": "https://x/y.png", "enforce_lessons_order": true}),
    )
    .await;
    let id = c["id"].as_i64().unwrap();
    let path = format!("/api/v2/course/{id}/");
    // PUT needs name and type; omitted fields keep their values
    let r = s.put(&path, Some(&ta), json!({"name": "C2"})).await;
    assert!(has(&r, "type", "required"), "{}", r.text);
    let r = s
        .put(
            &path,
            Some(&ta),
            json!({"name": "C2", "type": "scheduled", "hide_member_count": true,
                        "new_comment_notification_enabled": false, "og_title": "o",
                        "meta_description": "md", "og_description": "od"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(
        (j["name"].clone(), j["type"].clone(), j["description"].clone()),
        (json!("C2"), json!("scheduled"), json!("d"))
    );
    assert_eq!(j["meta_title"], "m");
    assert_eq!(j["og_image"], "https://x/y.png");
    assert_eq!(j["enforce_lessons_order"], true);
    assert_eq!(j["hide_member_count"], true);
    assert_eq!(j["new_comment_notification_enabled"], false);
    assert_eq!(
        (j["og_title"].clone(), j["meta_description"].clone(), j["og_description"].clone()),
        (json!("o"), json!("md"), json!("od"))
    );
    // read-only fields are ignored
    let r = patch(&s, &ta, id, json!({"id": 77, "deleted": true, "created_at": "2000-01-01T00:00:00Z", "join_status": "joined"})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["id"], id);
    assert_eq!(r.json()["deleted"], false);
    assert_eq!(r.json()["join_status"], "creator");
    // a draft: others do not see it (404); a manager may change it
    let r = patch(&s, &tb, id, json!({"name": "B"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    set_status(&s, id, bob, "manager");
    let r = patch(&s, &tb, id, json!({"description": "by bob", "privacy": "open"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["join_status"], "manager");
    // open: carol sees it but may not change it (403), whatever the body
    let r = patch(&s, &tc, id, json!({"name": ""})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.put(&path, Some(&tc), json!({"name": "x", "type": "self-paced"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // hide_member_count: managers see the count, others null
    assert_eq!(s.get(&path, Some(&tc)).await.json()["member_count"], Value::Null);
    assert_eq!(s.get(&path, None).await.json()["member_count"], Value::Null);
    assert_eq!(s.get(&path, Some(&tb)).await.json()["member_count"], 2);
    patch(&s, &ta, id, json!({"hide_member_count": false})).await;
    assert_eq!(s.get(&path, Some(&tc)).await.json()["member_count"], 2);
    // unknown ids are 404; non-integer ids match no route
    assert_eq!(patch(&s, &ta, 999, json!({})).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/api/v2/course/abc/", None).await.status, StatusCode::NOT_FOUND);
    let r = s.call(Method::POST, &path, Some(&ta), Some(json!({}))).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD, PUT, PATCH, DELETE"));
    s.assert_consistent();
}

#[tokio::test]
async fn only_staff_create_when_configured() {
    let s = TestServer::start().await;
    let (_, tu) = s.login("user");
    let ts = s.jwt(s.user("staff", None, true));
    s.set_pref("configurations", "courses_only_staff_enabled", json!(true));
    let r = s.post("/api/v2/course/", Some(&tu), body("A")).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.error_code(), "permission_denied");
    // refused before the body is looked at
    let r = s.post("/api/v2/course/", Some(&tu), json!({})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    create(&s, &ts, body("A")).await;
    s.set_pref("configurations", "courses_only_staff_enabled", json!(false));
    create(&s, &tu, body("B")).await;
}

#[tokio::test]
async fn schema_describes_every_course_route() {
    let s = TestServer::start().await;
    let doc = s.get("/api/v2/schema/", None).await.json();
    for (path, methods) in [
        ("/api/v2/course/", &["get", "post"][..]),
        ("/api/v2/course/search/", &["get"]),
        ("/api/v2/course/{id}/", &["get", "put", "patch", "delete"]),
        ("/api/v2/course/{id}/join/", &["get", "post", "delete"]),
        ("/api/v2/course/{id}/status/", &["get"]),
        ("/api/v2/course/{id}/invite/", &["get", "post", "delete"]),
        ("/api/v2/course/{id}/request_join/", &["get"]),
        ("/api/v2/course/{id}/role/", &["post"]),
        ("/api/v2/course/{id}/section/", &["get", "post"]),
        ("/api/v2/course/{id}/section/{section_id}/", &["get", "put", "patch", "delete"]),
    ] {
        for m in methods {
            assert!(doc["paths"][path][m].is_object(), "{m} {path}");
        }
    }
    let course = &doc["components"]["schemas"]["Course"]["properties"];
    assert!(course["image_bigger"].is_object() && course["image_original"].is_null());
    assert!(
        doc["paths"]["/api/v2/course/"]["post"]["requestBody"]["content"]["multipart/form-data"]
            .is_object()
    );
}

//! Courses (SPEC §5 "Courses"): the record, its rules, membership, sections, images.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Resp, TestServer, bad_tokens};

fn body(name: &str) -> Value {
    json!({"name": name, "type": "self-paced"})
}

async fn create(s: &TestServer, tok: &str, b: Value) -> Value {
    let r = s.post("/api/v2/course/", Some(tok), b).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()
}

async fn patch(s: &TestServer, tok: &str, id: i64, b: Value) -> Resp {
    s.call(
        Method::PATCH,
        &format!("/api/v2/course/{id}/"),
        Some(tok),
        Some(b),
    )
    .await
}

fn set_status(s: &TestServer, course: i64, user: i64, status: &str) {
    let now = s.clock.now();
    let status = status.to_owned();
    s.state
        .db
        .write_blocking(move |tx| {
            hearth::db::course_members::set(tx, course, user, &status, now)
                .map_err(hearth::db::DbError::from)
        })
        .unwrap();
}

fn assert_consistent(s: &TestServer) {
    let problems = s
        .state
        .db
        .read_blocking(|c| hearth::db::check::run(c).map_err(hearth::db::DbError::from))
        .unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

fn field_codes(r: &Resp) -> Vec<(String, String)> {
    r.json()["errors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap_or("").to_owned(),
                e["messages"][0]["code"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn has(r: &Resp, field: &str, code: &str) -> bool {
    field_codes(r).contains(&(field.to_owned(), code.to_owned()))
}

#[tokio::test]
async fn create_returns_every_field_with_defaults() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let tok = s.jwt(alice);
    let cat1 = s.category("Science");
    let cat2 = s.category("Art");
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
    assert_eq!(
        (c["num_sections"].clone(), c["num_lessons"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(c["created_by"]["id"], alice);
    assert_eq!(c["created_by"]["username"], "alice");
    assert_eq!(
        c["created_by"].as_object().unwrap().len(),
        6,
        "User Minimal: {}",
        c["created_by"]
    );
    let default = format!("{}/static/default/course.svg", s.url);
    for f in ["image_bigger", "image_big", "image_medium", "image_small"] {
        assert_eq!(c[f], default.as_str());
    }
    let created = c["created_at"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 27, "{created}");
    let cats: Vec<i64> = c["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_i64().unwrap())
        .collect();
    assert_eq!(cats, vec![cat1, cat2]);
    assert_eq!(c["categories"][0]["name"], "Science");
    // the same JSON on read
    let r = s.get("/api/v2/course/1/", Some(&tok)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), c);
    // the default image is served
    let r = s.get("/static/default/course.svg", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_consistent(&s);
}

#[tokio::test]
async fn validation_errors_come_all_at_once() {
    let s = TestServer::start().await;
    let tok = s.jwt(s.user("alice", None, false));
    create(&s, &tok, body("Rust for Beginners")).await;
    let r = s.post("/api/v2/course/", Some(&tok), json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        has(&r, "name", "required") && has(&r, "type", "required"),
        "{}",
        r.text
    );
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
        .post(
            "/api/v2/course/",
            Some(&tok),
            json!({"name": "x".repeat(256), "type": "scheduled"}),
        )
        .await;
    assert!(has(&r, "name", "max_length"), "{}", r.text);
    let r = s
        .post(
            "/api/v2/course/",
            Some(&tok),
            json!({"name": "  ", "type": "scheduled"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s
        .post(
            "/api/v2/course/",
            Some(&tok),
            json!({"name": null, "type": "scheduled"}),
        )
        .await;
    assert!(has(&r, "name", "null"), "{}", r.text);
    // 255 characters is fine; bodies that are not objects are 400; wrong type 415
    create(
        &s,
        &tok,
        json!({"name": "é".repeat(255), "type": "scheduled"}),
    )
    .await;
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
    assert_consistent(&s);
}

#[tokio::test]
async fn slugs_are_generated_unique_and_changeable() {
    let s = TestServer::start().await;
    let tok = s.jwt(s.user("alice", None, false));
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
    let f = create(
        &s,
        &tok,
        json!({"name": "X", "type": "self-paced", "slug": "my-own-slug"}),
    )
    .await;
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
    let tok = s.jwt(s.user("alice", None, false));
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
        .call(
            Method::PUT,
            &format!("/api/v2/course/{id}/"),
            Some(&tok),
            Some(json!({"name": "C", "type": "self-paced", "privacy": ""})),
        )
        .await;
    assert!(has(&r, "privacy", "invalid"));
    let r = s.get(&format!("/api/v2/course/{id}/"), Some(&tok)).await;
    assert_eq!(r.json()["privacy"], "secret");
}

#[tokio::test]
async fn put_patch_and_who_may_change() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let bob = s.user("bob", None, false);
    let carol = s.user("carol", None, false);
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
    let r = s
        .call(Method::PUT, &path, Some(&ta), Some(json!({"name": "C2"})))
        .await;
    assert!(has(&r, "type", "required"), "{}", r.text);
    let r = s
        .call(
            Method::PUT,
            &path,
            Some(&ta),
            Some(
                json!({"name": "C2", "type": "scheduled", "hide_member_count": true,
                        "new_comment_notification_enabled": false, "og_title": "o",
                        "meta_description": "md", "og_description": "od"}),
            ),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(
        (
            j["name"].clone(),
            j["type"].clone(),
            j["description"].clone()
        ),
        (json!("C2"), json!("scheduled"), json!("d"))
    );
    assert_eq!(j["meta_title"], "m");
    assert_eq!(j["og_image"], "https://x/y.png");
    assert_eq!(j["enforce_lessons_order"], true);
    assert_eq!(j["hide_member_count"], true);
    assert_eq!(j["new_comment_notification_enabled"], false);
    assert_eq!(
        (
            j["og_title"].clone(),
            j["meta_description"].clone(),
            j["og_description"].clone()
        ),
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
    let r = patch(
        &s,
        &tb,
        id,
        json!({"description": "by bob", "privacy": "open"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["join_status"], "manager");
    // open: carol sees it but may not change it (403), whatever the body
    let r = patch(&s, &tc, id, json!({"name": ""})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s
        .call(
            Method::PUT,
            &path,
            Some(&tc),
            Some(json!({"name": "x", "type": "self-paced"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // hide_member_count: managers see the count, others null
    assert_eq!(
        s.get(&path, Some(&tc)).await.json()["member_count"],
        Value::Null
    );
    assert_eq!(s.get(&path, None).await.json()["member_count"], Value::Null);
    assert_eq!(s.get(&path, Some(&tb)).await.json()["member_count"], 2);
    patch(&s, &ta, id, json!({"hide_member_count": false})).await;
    assert_eq!(s.get(&path, Some(&tc)).await.json()["member_count"], 2);
    // unknown ids are 404; non-integer ids match no route
    assert_eq!(
        patch(&s, &ta, 999, json!({})).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.get("/api/v2/course/abc/", None).await.status,
        StatusCode::NOT_FOUND
    );
    let r = s
        .call(Method::POST, &path, Some(&ta), Some(json!({})))
        .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD, PUT, PATCH, DELETE"));
    assert_consistent(&s);
}

#[tokio::test]
async fn visibility_by_privacy_and_role() {
    let s = TestServer::start().await;
    let creator = s.user("creator", None, false);
    let manager = s.user("manager", None, false);
    let member = s.user("member", None, false);
    let invited = s.user("invited", None, false);
    let other = s.user("other", None, false);
    let tc = s.jwt(creator);
    let mut ids = Vec::new();
    for (i, privacy) in ["", "open", "private", "secret"].iter().enumerate() {
        let c = create(
            &s,
            &tc,
            json!({"name": format!("C{i}"), "type": "self-paced", "privacy": privacy}),
        )
        .await;
        let id = c["id"].as_i64().unwrap();
        set_status(&s, id, manager, "manager");
        set_status(&s, id, member, "joined");
        set_status(&s, id, invited, "invited");
        ids.push(id);
    }
    let tokens = [
        ("creator", Some(s.jwt(creator))),
        ("manager", Some(s.jwt(manager))),
        ("member", Some(s.jwt(member))),
        ("invited", Some(s.jwt(invited))),
        ("other", Some(s.jwt(other))),
        ("anonymous", None),
    ];
    // rows: privacy; columns: the callers above
    let table: [(&str, [bool; 6]); 4] = [
        ("", [true, true, false, false, false, false]),
        ("open", [true; 6]),
        ("private", [true; 6]),
        ("secret", [true, true, true, true, false, false]),
    ];
    for ((privacy, row), id) in table.iter().zip(&ids) {
        for ((who, tok), visible) in tokens.iter().zip(row) {
            let want = if *visible {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            };
            let r = s
                .get(&format!("/api/v2/course/{id}/"), tok.as_deref())
                .await;
            assert_eq!(r.status, want, "{privacy:?} seen by {who}");
            let r = s
                .get(&format!("/api/v2/course/{id}/section/"), tok.as_deref())
                .await;
            assert_eq!(r.status, want, "sections of {privacy:?} for {who}");
            // the search agrees with the detail
            let r = s
                .get("/api/v2/course/search/?limit=100", tok.as_deref())
                .await;
            let found = r.json()["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == *id);
            assert_eq!(found, *visible, "search: {privacy:?} for {who}");
        }
    }
    // join_status is the caller's, null for anonymous
    let r = s
        .get(
            &format!("/api/v2/course/{}/", ids[1]),
            tokens[2].1.as_deref(),
        )
        .await;
    assert_eq!(r.json()["join_status"], "joined");
    let r = s.get(&format!("/api/v2/course/{}/", ids[1]), None).await;
    assert_eq!(r.json()["join_status"], Value::Null);
    // content_availability off: anonymous reads are 401
    s.set_pref("configurations", "content_availability", json!(false));
    for path in [
        format!("/api/v2/course/{}/", ids[1]),
        "/api/v2/course/search/".to_owned(),
        format!("/api/v2/course/{}/section/", ids[1]),
        format!("/api/v2/course/{}/status/", ids[1]),
    ] {
        assert_eq!(
            s.get(&path, None).await.status,
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
    }
    assert_consistent(&s);
}

#[tokio::test]
async fn join_leave_invite_and_roles() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let bob = s.user("bob", None, false);
    let carol = s.user("carol", None, false);
    let dave = s.user("dave", None, false);
    let (ta, tb, tc, td) = (s.jwt(alice), s.jwt(bob), s.jwt(carol), s.jwt(dave));
    let open = create(
        &s,
        &ta,
        json!({"name": "Open", "type": "self-paced", "privacy": "open"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let private = create(
        &s,
        &ta,
        json!({"name": "Private", "type": "self-paced", "privacy": "private"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let secret = create(
        &s,
        &ta,
        json!({"name": "Secret", "type": "self-paced", "privacy": "secret"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let draft = create(&s, &ta, body("Draft")).await["id"].as_i64().unwrap();
    let join = |id: i64| format!("/api/v2/course/{id}/join/");
    let status = |id: i64| format!("/api/v2/course/{id}/status/");

    // open: joined at once (the SDK posts with no body)
    let r = s
        .client
        .post(format!("{}{}", s.url, join(open)))
        .bearer_auth(&tb)
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    let r = TestServer::read(r).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["join_status"], "joined");
    assert_eq!(r.json()["member_count"], 2);
    assert_eq!(
        s.get(&status(open), Some(&tb)).await.json(),
        json!({"status": "joined"})
    );
    assert_eq!(
        s.get(&status(open), None).await.json(),
        json!({"status": null})
    );
    // joining again changes nothing
    let r = s.post(&join(open), Some(&tb), json!({})).await;
    assert_eq!(r.json()["join_status"], "joined");
    // private: a request, listed for managers, accepted by invite
    let r = s.post(&join(private), Some(&tc), json!({})).await;
    assert_eq!(r.json()["join_status"], "requested");
    let r = s
        .get(
            &format!("/api/v2/course/{private}/request_join/"),
            Some(&ta),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["count"], 1);
    assert_eq!(r.json()["results"][0]["id"], carol);
    assert_eq!(r.json()["results"][0]["join_status"], "requested");
    assert_eq!(r.json()["results"][0]["username"], "carol");
    // a requester sees the private course but not its lists
    let r = s
        .get(
            &format!("/api/v2/course/{private}/request_join/"),
            Some(&tc),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.get(&join(private), Some(&tc)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let invite = format!("/api/v2/course/{private}/invite/");
    let r = s.post(&invite, Some(&tc), json!({"users": [dave]})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s
        .post(
            &invite,
            Some(&ta),
            json!({"users": [carol, dave.to_string()]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(
        s.get(&status(private), Some(&tc)).await.json()["status"],
        "joined"
    );
    assert_eq!(
        s.get(&status(private), Some(&td)).await.json()["status"],
        "invited"
    );
    // withdraw dave's invitation; inviting a member changes nothing
    let r = s
        .call(
            Method::DELETE,
            &invite,
            Some(&ta),
            Some(json!({"users": [dave, carol]})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        s.get(&status(private), Some(&td)).await.json()["status"],
        Value::Null
    );
    assert_eq!(
        s.get(&status(private), Some(&tc)).await.json()["status"],
        "joined"
    );
    s.post(&invite, Some(&ta), json!({"users": [carol, alice]}))
        .await;
    assert_eq!(
        s.get(&status(private), Some(&tc)).await.json()["status"],
        "joined"
    );
    assert_eq!(
        s.get(&status(private), Some(&ta)).await.json()["status"],
        "creator"
    );
    // invite: bad bodies
    let r = s.post(&invite, Some(&ta), json!({"users": [9999]})).await;
    assert!(has(&r, "users", "invalid"), "{}", r.text);
    let r = s.post(&invite, Some(&ta), json!({})).await;
    assert!(has(&r, "users", "required"), "{}", r.text);
    let r = s.post(&invite, Some(&ta), json!({"users": []})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // secret: 404 unless invited; an invited user joins
    let r = s.post(&join(secret), Some(&td), json!({})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    s.post(
        &format!("/api/v2/course/{secret}/invite/"),
        Some(&ta),
        json!({"users": [dave]}),
    )
    .await;
    let r = s.post(&join(secret), Some(&td), json!({})).await;
    assert_eq!(r.json()["join_status"], "joined");
    // a draft: 404 for others
    assert_eq!(
        s.post(&join(draft), Some(&tb), json!({})).await.status,
        StatusCode::NOT_FOUND
    );
    // leave: 204; the creator cannot leave
    let r = s.call(Method::DELETE, &join(open), Some(&tb), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        s.get(&status(open), Some(&tb)).await.json()["status"],
        Value::Null
    );
    let r = s.call(Method::DELETE, &join(open), Some(&ta), None).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // withdrawing a request
    let r = s.post(&join(private), Some(&tb), json!({})).await;
    assert_eq!(r.json()["join_status"], "requested");
    s.call(Method::DELETE, &join(private), Some(&tb), None)
        .await;
    assert_eq!(
        s.get(&status(private), Some(&tb)).await.json()["status"],
        Value::Null
    );

    // roles on the private course: carol joined
    let role = format!("/api/v2/course/{private}/role/");
    let r = s.post(&role, Some(&tc), json!({"managers": [carol]})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.post(&role, Some(&ta), json!({"managers": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(
        s.get(&status(private), Some(&tc)).await.json()["status"],
        "manager"
    );
    // the new manager reads the lists and invites
    let r = s.get(&join(private), Some(&tc)).await;
    assert_eq!(r.status, StatusCode::OK);
    let got: Vec<(i64, String)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_i64().unwrap(),
                m["join_status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![(alice, "creator".into()), (carol, "manager".into())]
    );
    let r = s
        .post(
            &format!("/api/v2/course/{private}/invite/"),
            Some(&tc),
            json!({"users": [bob]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s
        .get(&format!("{}?statuses=invited", join(private)), Some(&tc))
        .await;
    assert_eq!(r.json()["count"], 1);
    assert_eq!(r.json()["results"][0]["id"], bob);
    let r = s
        .get(
            &format!("{}?statuses=invited,bogus", join(private)),
            Some(&tc),
        )
        .await;
    assert!(has(&r, "statuses", "invalid_choice"), "{}", r.text);
    // the creator's status never changes; non-members and unknown users are 400
    for b in [
        json!({"joined": [alice]}),
        json!({"unjoined": [alice]}),
        json!({"managers": [dave]}),
        json!({"joined": [bob]}),
        json!({"managers": [12345]}),
        json!({}),
        json!({"managers": [], "joined": []}),
    ] {
        let r = s.post(&role, Some(&ta), b.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{b}: {}", r.text);
    }
    assert_eq!(
        s.get(&status(private), Some(&ta)).await.json()["status"],
        "creator"
    );
    // demote and remove
    let r = s.post(&role, Some(&ta), json!({"joined": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        s.get(&status(private), Some(&tc)).await.json()["status"],
        "joined"
    );
    let r = s.post(&role, Some(&ta), json!({"unjoined": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        s.get(&status(private), Some(&tc)).await.json()["status"],
        Value::Null
    );
    // methods
    let r = s.get(&role, Some(&ta)).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_consistent(&s);
}

#[tokio::test]
async fn sections_and_their_order() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let bob = s.user("bob", None, false);
    let (ta, tb) = (s.jwt(alice), s.jwt(bob));
    let c = create(
        &s,
        &ta,
        json!({"name": "C", "type": "self-paced", "privacy": "open"}),
    )
    .await;
    let id = c["id"].as_i64().unwrap();
    let base = format!("/api/v2/course/{id}/section/");
    let mut sids = Vec::new();
    for name in ["One", "Two", "Three"] {
        let r = s.post(&base, Some(&ta), json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        assert_eq!(r.json()["name"], name);
        assert_eq!(r.json()["num_lessons"], 0);
        sids.push(r.json()["id"].as_i64().unwrap());
    }
    let r = s.get(&format!("/api/v2/course/{id}/"), None).await;
    assert_eq!(r.json()["sections_order"], json!(sids));
    assert_eq!(r.json()["num_sections"], 3);
    // sections_order must list exactly these ids
    for bad in [
        json!([sids[0], sids[1]]),
        json!([sids[0], sids[1], sids[2], 999]),
        json!([sids[0], sids[0], sids[1]]),
    ] {
        let r = patch(&s, &ta, id, json!({"sections_order": bad})).await;
        assert!(has(&r, "sections_order", "invalid"), "{}", r.text);
    }
    let order = json!([sids[2], sids[0], sids[1]]);
    let r = patch(&s, &ta, id, json!({"sections_order": order})).await;
    assert_eq!(r.json()["sections_order"], order);
    let r = s.get(&base, None).await;
    let listed: Vec<i64> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_i64().unwrap())
        .collect();
    assert_eq!(json!(listed), order);
    // one section: read, rename (PUT needs the name), delete
    let one = format!("{base}{}/", sids[0]);
    assert_eq!(s.get(&one, None).await.json()["name"], "One");
    let r = s
        .call(Method::PATCH, &one, Some(&ta), Some(json!({"name": "Uno"})))
        .await;
    assert_eq!(r.json()["name"], "Uno");
    let r = s.call(Method::PUT, &one, Some(&ta), Some(json!({}))).await;
    assert!(has(&r, "name", "required"));
    let r = s.post(&base, Some(&ta), json!({"name": ""})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s
        .post(&base, Some(&ta), json!({"name": "x".repeat(256)}))
        .await;
    assert!(has(&r, "name", "max_length"));
    // members and others may read but not write
    let r = s.post(&base, Some(&tb), json!({"name": "Mine"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.call(Method::DELETE, &one, Some(&tb), None).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.call(Method::DELETE, &one, Some(&ta), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&one, None).await.status, StatusCode::NOT_FOUND);
    let r = s.get(&format!("/api/v2/course/{id}/"), None).await;
    assert_eq!(r.json()["sections_order"], json!([sids[2], sids[1]]));
    // a section of another course is 404 here
    let other = create(
        &s,
        &ta,
        json!({"name": "D", "type": "self-paced", "privacy": "open"}),
    )
    .await;
    let r = s
        .get(
            &format!("/api/v2/course/{}/section/{}/", other["id"], sids[1]),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // lessons count; completion rate of the caller
    let now = s.clock.now();
    let (s1, s2) = (sids[1], sids[2]);
    s.state
        .db
        .write_blocking(move |tx| -> Result<(), hearth::db::DbError> {
            for (sec, n) in [(s1, 3), (s2, 1)] {
                for i in 0..n {
                    tx.execute(
                        "INSERT INTO course_lesson (section_id, name, created_at) VALUES (?1, ?2, ?3)",
                        rusqlite::params![sec, format!("L{i}"), now],
                    )?;
                }
            }
            tx.execute(
                "INSERT INTO course_lesson_completion (lesson_id, user_id, completed_at) VALUES (1, ?1, ?2)",
                rusqlite::params![bob, now],
            )?;
            Ok(())
        })
        .unwrap();
    let r = s.get(&format!("/api/v2/course/{id}/"), Some(&tb)).await;
    assert_eq!(r.json()["num_lessons"], 4);
    assert_eq!(r.json()["user_completion_rate"], 25);
    assert_eq!(
        s.get(&format!("/api/v2/course/{id}/"), Some(&ta))
            .await
            .json()["user_completion_rate"],
        0
    );
    assert_eq!(
        s.get(&format!("{base}{s1}/"), None).await.json()["num_lessons"],
        3
    );
    assert_consistent(&s);
}

#[tokio::test]
async fn lists_search_and_delete() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let bob = s.user("bob", None, false);
    let (ta, tb) = (s.jwt(alice), s.jwt(bob));
    let sci = s.category("Science");
    let art = s.category("Art");
    let mk = |name: &str, privacy: &str, cats: Vec<i64>, desc: &str| json!({"name": name, "type": "self-paced", "privacy": privacy, "categories": cats, "description": desc});
    let a = create(&s, &ta, mk("Alpha Physics", "open", vec![sci], "")).await["id"]
        .as_i64()
        .unwrap();
    s.clock.advance(1_000_000);
    let b = create(
        &s,
        &ta,
        mk("beta", "private", vec![art], "About ÉTUDES and physics"),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    s.clock.advance(1_000_000);
    let c = create(&s, &tb, mk("Gamma", "open", vec![sci, art], "")).await["id"]
        .as_i64()
        .unwrap();
    let d = create(&s, &tb, mk("Delta", "", vec![], "physics")).await["id"]
        .as_i64()
        .unwrap();
    let ids = |r: &Resp| -> Vec<i64> {
        r.json()["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_i64().unwrap())
            .collect()
    };
    // my courses: creator, manager, joined by default, newest first
    let r = s.get("/api/v2/course/", Some(&ta)).await;
    assert_eq!(ids(&r), vec![b, a]);
    s.post(&format!("/api/v2/course/{c}/join/"), Some(&ta), json!({}))
        .await;
    let r = s.get("/api/v2/course/", Some(&ta)).await;
    assert_eq!(ids(&r), vec![c, b, a]);
    let r = s.get("/api/v2/course/?statuses=joined", Some(&ta)).await;
    assert_eq!(ids(&r), vec![c]);
    let r = s.get("/api/v2/course/?statuses=nope", Some(&ta)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        s.get("/api/v2/course/", None).await.status,
        StatusCode::UNAUTHORIZED
    );
    let r = s.get("/api/v2/course/?limit=1", Some(&ta)).await;
    assert_eq!(r.json()["count"], 3);
    assert_eq!(
        r.json()["next"],
        format!("{}/api/v2/course/?limit=1&offset=1", s.url).as_str()
    );
    // search: visible only, default -id
    let r = s.get("/api/v2/course/search/", None).await;
    assert_eq!(ids(&r), vec![c, b, a]);
    let r = s.get("/api/v2/course/search/", Some(&tb)).await;
    assert_eq!(ids(&r), vec![d, c, b, a]);
    let r = s
        .get("/api/v2/course/search/?search=PHYSICS", Some(&tb))
        .await;
    assert_eq!(ids(&r), vec![d, b, a]);
    let r = s
        .get("/api/v2/course/search/?search=%C3%A9tudes", None)
        .await;
    assert_eq!(
        ids(&r),
        Vec::<i64>::new(),
        "description match is ASCII case-insensitive only"
    );
    let r = s.get("/api/v2/course/search/?search=ALPHA", None).await;
    assert_eq!(ids(&r), vec![a]);
    let r = s
        .get(&format!("/api/v2/course/search/?categories={art}"), None)
        .await;
    assert_eq!(ids(&r), vec![c, b]);
    let r = s
        .get(
            &format!("/api/v2/course/search/?categories={sci},{art}&ordering=id"),
            None,
        )
        .await;
    assert_eq!(ids(&r), vec![a, b, c]);
    // the SDK (axios) sends lists as categories[]=1&categories[]=2
    let r = s
        .get(
            &format!(
                "/api/v2/course/search/?categories%5B%5D={sci}&categories%5B%5D={art}&ordering=id"
            ),
            None,
        )
        .await;
    assert_eq!(ids(&r), vec![a, b, c]);
    let r = s.get("/api/v2/course/search/?ordering=name", None).await;
    assert_eq!(ids(&r), vec![a, b, c]);
    let r = s.get("/api/v2/course/search/?ordering=-name", None).await;
    assert_eq!(ids(&r), vec![c, b, a]);
    let r = s
        .get("/api/v2/course/search/?ordering=created_at", None)
        .await;
    assert_eq!(ids(&r)[0], a);
    for bad in ["ordering=slug", "ordering=--id", "categories=x", "limit=0"] {
        let r = s.get(&format!("/api/v2/course/search/?{bad}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    // delete: creator only; deleted courses vanish except for their creator
    let path = format!("/api/v2/course/{c}/");
    set_status(&s, c, alice, "manager");
    let r = s.call(Method::DELETE, &path, Some(&ta), None).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.call(Method::DELETE, &path, Some(&tb), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.call(Method::DELETE, &path, Some(&tb), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.get(&path, Some(&tb)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["deleted"], true);
    assert_eq!(s.get(&path, Some(&ta)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&path, None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        ids(&s.get("/api/v2/course/search/", Some(&tb)).await),
        vec![d, b, a]
    );
    assert_eq!(ids(&s.get("/api/v2/course/", Some(&tb)).await), vec![d]);
    assert_eq!(ids(&s.get("/api/v2/course/", Some(&ta)).await), vec![b, a]);
    assert_consistent(&s);
}

#[tokio::test]
async fn protected_routes_reject_bad_and_read_only_tokens() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let ta = s.jwt(alice);
    let id = create(
        &s,
        &ta,
        json!({"name": "C", "type": "self-paced", "privacy": "open"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let sid = s
        .post(
            &format!("/api/v2/course/{id}/section/"),
            Some(&ta),
            json!({"name": "S"}),
        )
        .await
        .json()["id"]
        .as_i64()
        .unwrap();
    let writes: Vec<(Method, String, Value)> = vec![
        (Method::POST, "/api/v2/course/".into(), body("New")),
        (Method::PUT, format!("/api/v2/course/{id}/"), body("C")),
        (Method::PATCH, format!("/api/v2/course/{id}/"), json!({})),
        (Method::DELETE, format!("/api/v2/course/{id}/"), Value::Null),
        (
            Method::POST,
            format!("/api/v2/course/{id}/join/"),
            json!({}),
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{id}/join/"),
            Value::Null,
        ),
        (
            Method::POST,
            format!("/api/v2/course/{id}/invite/"),
            json!({"users": [alice]}),
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{id}/invite/"),
            json!({"users": [alice]}),
        ),
        (
            Method::POST,
            format!("/api/v2/course/{id}/role/"),
            json!({"joined": [alice]}),
        ),
        (
            Method::POST,
            format!("/api/v2/course/{id}/section/"),
            json!({"name": "x"}),
        ),
        (
            Method::PUT,
            format!("/api/v2/course/{id}/section/{sid}/"),
            json!({"name": "x"}),
        ),
        (
            Method::PATCH,
            format!("/api/v2/course/{id}/section/{sid}/"),
            json!({}),
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{id}/section/{sid}/"),
            Value::Null,
        ),
    ];
    let reads = [
        "/api/v2/course/".to_owned(),
        format!("/api/v2/course/{id}/join/"),
        format!("/api/v2/course/{id}/request_join/"),
    ];
    // an unknown id is 401 too: authentication comes first
    let unknown: Vec<(Method, String, Value)> = writes
        .iter()
        .map(|(m, p, b)| {
            (
                m.clone(),
                p.replace(&format!("/{id}/"), "/9999/"),
                b.clone(),
            )
        })
        .collect();
    for (what, tok) in bad_tokens(&s).await {
        for (m, p, b) in writes.iter().chain(&unknown) {
            // an invalid body must not matter either
            let body = if b.is_null() {
                None
            } else {
                Some(json!("not an object"))
            };
            let r = s.call(m.clone(), p, tok.as_deref(), body).await;
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{what}: {m} {p}");
        }
        for p in &reads {
            let r = s.get(p, tok.as_deref()).await;
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{what}: GET {p}");
        }
        // public (CA) reads: a bad token is 401 there too; no token is fine
        for p in [
            format!("/api/v2/course/{id}/"),
            "/api/v2/course/search/".to_owned(),
            format!("/api/v2/course/{id}/status/"),
            format!("/api/v2/course/{id}/section/"),
            format!("/api/v2/course/{id}/section/{sid}/"),
        ] {
            let r = s.get(&p, tok.as_deref()).await;
            let want = if tok.is_some() {
                StatusCode::UNAUTHORIZED
            } else {
                StatusCode::OK
            };
            assert_eq!(r.status, want, "{what}: GET {p}");
        }
    }
    let read_only = s.oauth_token(alice, "read");
    for (m, p, b) in &writes {
        let r = s
            .call(
                m.clone(),
                p,
                Some(&read_only),
                (!b.is_null()).then(|| b.clone()),
            )
            .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {p}");
        assert_eq!(r.error_code(), "insufficient_scope", "{m} {p}");
    }
    let r = s
        .get(&format!("/api/v2/course/{id}/"), Some(&read_only))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        s.get("/api/v2/course/", Some(&read_only)).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn only_staff_create_when_configured() {
    let s = TestServer::start().await;
    let tu = s.jwt(s.user("user", None, false));
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

fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::DynamicImage::ImageRgb8(image::ImageBuffer::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    }));
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, image::ImageFormat::Png).unwrap();
    buf.into_inner()
}

async fn multipart(
    s: &TestServer,
    method: Method,
    path: &str,
    tok: &str,
    form: reqwest::multipart::Form,
) -> Resp {
    let r = s
        .client
        .request(method, format!("{}{}", s.url, path))
        .bearer_auth(tok)
        .multipart(form)
        .send()
        .await
        .unwrap();
    TestServer::read(r).await
}

fn image_part(bytes: Vec<u8>, name: &str, mime: &str) -> reqwest::multipart::Part {
    reqwest::multipart::Part::bytes(bytes)
        .file_name(name.to_owned())
        .mime_str(mime)
        .unwrap()
}

#[tokio::test]
async fn multipart_create_with_an_image() {
    use reqwest::multipart::Form;
    let s = TestServer::start().await;
    let ta = s.jwt(s.user("alice", None, false));
    let sci = s.category("Science");
    let art = s.category("Art");
    let form = Form::new()
        .text("name", "Painting 101")
        .text("type", "scheduled")
        .text("privacy", "open")
        .text("hide_member_count", "true")
        .text("categories[0]", sci.to_string())
        .text("categories[1]", art.to_string())
        .text("join_status", "joined")
        .part(
            "image_original",
            image_part(png(300, 200), "photo.png", "image/png"),
        );
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let c = r.json();
    assert_eq!(c["name"], "Painting 101");
    assert_eq!(c["hide_member_count"], true);
    assert_eq!(c["join_status"], "creator");
    assert_eq!(c["categories"].as_array().unwrap().len(), 2);
    let id = c["id"].as_i64().unwrap();
    let mut first_urls = Vec::new();
    for (field, side) in [
        ("image_bigger", 600),
        ("image_big", 400),
        ("image_medium", 200),
        ("image_small", 100),
    ] {
        let url = c[field].as_str().unwrap().to_owned();
        assert!(
            url.starts_with(&format!("{}/media/course/{id}/", s.url)),
            "{url}"
        );
        let r = s.client.get(&url).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert!(
            r.headers()["cache-control"]
                .to_str()
                .unwrap()
                .contains("immutable")
        );
        assert_eq!(r.headers()["content-type"], "image/jpeg");
        let bytes = r.bytes().await.unwrap();
        let img = image::load_from_memory(&bytes).unwrap();
        assert_eq!((img.width(), img.height()), (side, side), "{field}");
        first_urls.push(url);
    }
    // repeated `categories` and a new image by PATCH: new versioned URLs, old ones gone
    let form = Form::new().text("categories", sci.to_string()).part(
        "image_original",
        image_part(png(50, 120), "p.png", "image/png"),
    );
    let r = multipart(
        &s,
        Method::PATCH,
        &format!("/api/v2/course/{id}/"),
        &ta,
        form,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["categories"].as_array().unwrap().len(), 1);
    let new_url = r.json()["image_small"].as_str().unwrap().to_owned();
    assert_ne!(new_url, first_urls[3]);
    assert_eq!(
        s.client.get(&first_urls[3]).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.client.get(&new_url).send().await.unwrap().status(),
        StatusCode::OK
    );
    // image_original: null in JSON goes back to the default image
    let r = patch(&s, &ta, id, json!({"image_original": null})).await;
    assert_eq!(
        r.json()["image_small"],
        format!("{}/static/default/course.svg", s.url).as_str()
    );
    assert_eq!(
        s.client.get(&new_url).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    // a string is not a file
    let r = patch(&s, &ta, id, json!({"image_original": "http://x/y.png"})).await;
    assert!(has(&r, "image_original", "invalid"), "{}", r.text);
    // not an image: 400 on image_original, with the other field errors, nothing created
    let form = Form::new()
        .text("name", "Painting 101")
        .text("type", "scheduled")
        .part(
            "image_original",
            image_part(b"GIF89a but not really".to_vec(), "x.gif", "image/gif"),
        );
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        has(&r, "image_original", "invalid") && has(&r, "name", "unique"),
        "{}",
        r.text
    );
    let form = Form::new()
        .text("name", "Text")
        .text("type", "scheduled")
        .part(
            "image_original",
            image_part(b"hello".to_vec(), "x.txt", "text/plain"),
        );
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert!(has(&r, "image_original", "invalid"), "{}", r.text);
    // over 10 MiB: 400; over 12 MiB: 413
    let form = Form::new()
        .text("name", "Big")
        .text("type", "scheduled")
        .part(
            "image_original",
            image_part(vec![0u8; 10 * 1024 * 1024 + 10], "big.png", "image/png"),
        );
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert!(has(&r, "image_original", "invalid"), "{}", r.text);
    let form = Form::new()
        .text("name", "Huge")
        .text("type", "scheduled")
        .part(
            "image_original",
            image_part(vec![0u8; 13 * 1024 * 1024], "huge.png", "image/png"),
        );
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    // a multipart body without an image; anonymous multipart is 401
    let form = Form::new().text("name", "Plain").text("type", "self-paced");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.json()["categories"], json!([]));
    let r = s
        .client
        .post(format!("{}/api/v2/course/", s.url))
        .multipart(Form::new().text("name", "Anon"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_consistent(&s);
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
        (
            "/api/v2/course/{id}/section/{section_id}/",
            &["get", "put", "patch", "delete"],
        ),
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

/// A `side`×`side` 16-bit RGBA PNG of one colour, written a row at a time.
fn png16(side: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, side, side);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Sixteen);
    enc.set_compression(png::Compression::Fastest);
    let mut writer = enc.write_header().unwrap();
    let mut rows = writer.stream_writer().unwrap();
    // R max, G half, B none, alpha opaque; big-endian samples
    let row: Vec<u8> = [0xFF, 0xFF, 0x80, 0x80, 0, 0, 0xFF, 0xFF].repeat(side as usize);
    for _ in 0..side {
        std::io::Write::write_all(&mut rows, &row).unwrap();
    }
    rows.finish().unwrap();
    writer.finish().unwrap();
    out
}

fn jpeg(w: u32, h: u32) -> Vec<u8> {
    let img = image::DynamicImage::ImageRgb8(image::ImageBuffer::from_pixel(
        w,
        h,
        image::Rgb([20, 120, 220]),
    ));
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, image::ImageFormat::Jpeg).unwrap();
    buf.into_inner()
}

fn image_form(name: &str, bytes: Vec<u8>, file: &str, mime: &str) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new()
        .text("name", name.to_owned())
        .text("type", "self-paced")
        .text("privacy", "open")
        .part("image_original", image_part(bytes, file, mime))
}

#[tokio::test]
async fn sixteen_bit_png_of_6000_pixels_is_accepted() {
    let s = TestServer::start().await;
    let ta = s.jwt(s.user("alice", None, false));
    let form = image_form("Deep", png16(6000), "deep.png", "image/png");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let url = r.json()["image_bigger"].as_str().unwrap().to_owned();
    let r = s.client.get(&url).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "image/png");
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (600, 600));
    let px = img.to_rgba8().get_pixel(300, 300).0;
    assert_eq!((px[0], px[2], px[3]), (255, 0, 255), "{px:?}");
    assert!((126..=130).contains(&px[1]), "{px:?}");
    let budget = &s.state.body_budget;
    assert_eq!(budget.available(), budget.total());
}

#[tokio::test]
async fn image_decoding_counts_against_the_memory_budget() {
    let bytes = jpeg(2000, 1500);
    let peak = hearth::images::plan(&bytes).unwrap().peak;
    // a budget with room for the decode, most of it held by other requests: 503, and
    // the upload goes through once they are done
    let s = TestServer::start_with(|c| c.max_body_memory = peak + 4 * 1024 * 1024).await;
    let ta = s.jwt(s.user("alice", None, false));
    let budget = s.state.body_budget.clone();
    let others = budget.take(budget.total() - peak + 1).unwrap();
    let form = image_form("Busy", bytes.clone(), "p.jpg", "image/jpeg");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert_eq!(r.error_code(), "service_unavailable");
    assert!(r.header("retry-after").is_some());
    assert_eq!(budget.available(), budget.total() - others.bytes());
    drop(others);
    let form = image_form("Busy", bytes.clone(), "p.jpg", "image/jpeg");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(budget.available(), budget.total());
    let r = s.get("/api/v2/course/", Some(&ta)).await;
    assert_eq!(r.json()["count"], 1);

    // a decode that could never fit beside its own body: 400 on the field, saying so
    let s = TestServer::start_with(|c| c.max_body_memory = peak).await;
    let ta = s.jwt(s.user("alice", None, false));
    let form = image_form("Never", bytes, "p.jpg", "image/jpeg");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert!(has(&r, "image_original", "invalid"), "{}", r.text);
    let message = r.json()["errors"][0]["messages"][0]["message"].clone();
    assert!(message.as_str().unwrap().contains("memory"), "{message}");
    let budget = &s.state.body_budget;
    assert_eq!(budget.available(), budget.total());
}

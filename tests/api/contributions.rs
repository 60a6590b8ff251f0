//! Contributions (SPEC §5): create, read, list, soft delete and restore for the four
//! kinds, their validation, permissions and counters.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use hearth::model::contribution::Kind;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

/// Asserts `hearth check` finds nothing wrong with the test database.
fn assert_db_consistent(s: &TestServer) {
    let problems = s
        .state
        .db
        .read_blocking(|c| hearth::db::check::run(c).map_err(hearth::db::DbError::from))
        .unwrap();
    assert!(problems.is_empty(), "hearth check: {problems:?}");
}

/// A create body for a kind and the `(field, code)` errors it must get.
type Case = (Kind, Value, Vec<(&'static str, &'static str)>);

fn path(kind: Kind) -> String {
    format!("/api/v2/{}/", kind.as_str())
}

fn item(kind: Kind, id: i64) -> String {
    format!("/api/v2/{}/{id}/", kind.as_str())
}

fn restore(kind: Kind, id: i64) -> String {
    format!("/api/v2/{}/{id}/restore/", kind.as_str())
}

/// A valid create body; comments go on `post`.
fn body(kind: Kind, post: i64) -> Value {
    match kind {
        Kind::Discussion => json!({"title": "A <title>", "text": "Let's talk & see"}),
        Kind::Post => json!({"text": "Hello <b>world</b>", "title": "ignored"}),
        Kind::Status => json!({"text": "feeling fine", "action": "feeling"}),
        Kind::Comment => json!({"text": "nice one", "post": post}),
    }
}

async fn create(s: &TestServer, token: &str, kind: Kind, body: Value) -> Value {
    let r = s.post(&path(kind), Some(token), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{kind:?}: {}", r.text);
    r.json()
}

/// Creates a post to hang comments on; returns its id.
async fn a_post(s: &TestServer, token: &str) -> i64 {
    create(s, token, Kind::Post, json!({"text": "host"})).await["id"]
        .as_i64()
        .unwrap()
}

/// The ids of a list page.
fn ids(r: &Resp) -> Vec<i64> {
    r.json()["results"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["id"].as_i64()).collect())
        .unwrap_or_default()
}

async fn me(s: &TestServer, token: &str) -> Value {
    let r = s.get("/api/v2/user/me/", Some(token)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json()
}

async fn send_raw(
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    content_type: Option<&str>,
    raw: &'static str,
) -> Resp {
    let mut rb = s
        .client
        .request(method, format!("{}{path}", s.url))
        .bearer_auth(token)
        .body(raw);
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    TestServer::read(rb.send().await.unwrap()).await
}

#[tokio::test]
async fn create_delete_vanish_restore_for_every_kind() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let a = s.jwt(alice);
    let b = s.jwt(s.user("bob", None, false));
    let host = a_post(&s, &a).await;
    for kind in Kind::ALL {
        let j = create(&s, &a, kind, body(kind, host)).await;
        let id = j["id"].as_i64().unwrap();
        assert_eq!(j["type"], kind.as_str());
        assert_eq!(j["author"]["id"], alice);
        assert_eq!(j["author"]["username"], "alice");
        assert_eq!(j["deleted"], false);
        assert_eq!(j["last_edited_at"], Value::Null);
        assert_eq!(j["comment_count"], 0);
        assert_eq!(j["categories"], json!([]));
        assert!(j["added_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(j["summary"], j["text"]);
        assert!(!j["html"].as_str().unwrap().contains('<'));
        match kind {
            Kind::Discussion => {
                assert_eq!(j["title"], "A <title>");
                assert_eq!(j["html"], "Let&#x27;s talk &amp; see");
            }
            Kind::Post => {
                assert!(j.get("title").is_none(), "post has no title");
                assert_eq!(j["html"], "Hello &lt;b&gt;world&lt;/b&gt;");
            }
            Kind::Status => assert_eq!(j["action"], "feeling"),
            Kind::Comment => {
                assert_eq!(j["post"], host);
                assert_eq!(j["discussion"], Value::Null);
                assert_eq!(j["status"], Value::Null);
                assert_eq!(j["parent"], Value::Null);
            }
        }
        let seen = s.get(&item(kind, id), Some(&b)).await;
        assert_eq!(seen.status, StatusCode::OK);
        assert_eq!(seen.json(), j, "{kind:?}: GET returns what POST did");
        assert!(ids(&s.get(&path(kind), None).await).contains(&id));

        let r = s
            .call(Method::DELETE, &item(kind, id), Some(&a), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{kind:?}");
        assert!(r.text.is_empty());
        assert_eq!(
            s.get(&item(kind, id), Some(&b)).await.status,
            StatusCode::NOT_FOUND,
            "{kind:?} deleted is 404 for others"
        );
        assert_eq!(
            s.get(&item(kind, id), None).await.status,
            StatusCode::NOT_FOUND
        );
        let own = s.get(&item(kind, id), Some(&a)).await;
        assert_eq!(own.status, StatusCode::OK);
        assert_eq!(own.json()["deleted"], true);
        for who in [Some(a.as_str()), Some(b.as_str()), None] {
            assert!(
                !ids(&s.get(&path(kind), who).await).contains(&id),
                "{kind:?}"
            );
        }
        // deleting again is 204
        let r = s
            .call(Method::DELETE, &item(kind, id), Some(&a), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);

        let r = s
            .call(Method::POST, &restore(kind, id), Some(&a), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{kind:?}: {}", r.text);
        assert!(r.text.is_empty());
        let back = s.get(&item(kind, id), Some(&b)).await;
        assert_eq!(back.status, StatusCode::OK);
        assert_eq!(back.json(), j);
        assert!(ids(&s.get(&path(kind), Some(&b)).await).contains(&id));
        // restoring a live item is 204 too
        let r = s
            .call(Method::POST, &restore(kind, id), Some(&a), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
    }
    assert_db_consistent(&s);
}

#[tokio::test]
async fn counters_are_exact_across_delete_and_restore() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let b = s.jwt(s.user("bob", None, false));
    let p1 = a_post(&s, &a).await;
    let p2 = a_post(&s, &a).await;
    let d = create(&s, &a, Kind::Discussion, json!({"title": "t"})).await["id"]
        .as_i64()
        .unwrap();
    create(&s, &a, Kind::Status, json!({"text": "s"})).await;
    let m = me(&s, &a).await;
    assert_eq!(counters(&m), (2, 1));

    // comments by both users, on a post and on the discussion
    let c1 = create(&s, &b, Kind::Comment, json!({"text": "x", "post": p1})).await["id"]
        .as_i64()
        .unwrap();
    create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "y", "post": p1, "parent": c1}),
    )
    .await;
    create(&s, &b, Kind::Comment, json!({"text": "z", "discussion": d})).await;
    let count = |kind: Kind, id: i64| {
        let s = &s;
        let a = a.clone();
        async move { s.get(&item(kind, id), Some(&a)).await.json()["comment_count"].clone() }
    };
    assert_eq!(count(Kind::Post, p1).await, 2);
    assert_eq!(count(Kind::Post, p2).await, 0);
    assert_eq!(count(Kind::Discussion, d).await, 1);
    assert_eq!(count(Kind::Comment, c1).await, 0);

    s.call(Method::DELETE, &item(Kind::Comment, c1), Some(&b), None)
        .await;
    assert_eq!(count(Kind::Post, p1).await, 1);
    s.call(Method::DELETE, &item(Kind::Comment, c1), Some(&b), None)
        .await;
    assert_eq!(
        count(Kind::Post, p1).await,
        1,
        "second delete changes nothing"
    );
    assert_db_consistent(&s);
    s.call(Method::POST, &restore(Kind::Comment, c1), Some(&b), None)
        .await;
    s.call(Method::POST, &restore(Kind::Comment, c1), Some(&b), None)
        .await;
    assert_eq!(count(Kind::Post, p1).await, 2);

    for _ in 0..2 {
        s.call(Method::DELETE, &item(Kind::Post, p1), Some(&a), None)
            .await;
        s.call(Method::DELETE, &item(Kind::Discussion, d), Some(&a), None)
            .await;
    }
    let m = me(&s, &a).await;
    assert_eq!(counters(&m), (1, 0));
    let u = s.get("/api/v2/user/me/", Some(&b)).await.json();
    assert_eq!(u["posts_counter"], 0, "comments have no user counter");
    assert_db_consistent(&s);
    for _ in 0..2 {
        s.call(Method::POST, &restore(Kind::Post, p1), Some(&a), None)
            .await;
        s.call(
            Method::DELETE,
            &restore(Kind::Discussion, d),
            Some(&a),
            None,
        )
        .await;
    }
    let m = me(&s, &a).await;
    assert_eq!(counters(&m), (2, 1));
    assert_eq!(count(Kind::Post, p1).await, 2);
    assert_db_consistent(&s);
}

#[tokio::test]
async fn each_kind_numbers_its_own_ids() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let mut got = Vec::new();
    for kind in Kind::ALL {
        let j = create(&s, &a, kind, body(kind, 1)).await;
        got.push(j["id"].as_i64().unwrap());
    }
    // the comment's host post is post 1; the post of the loop is post 1 too
    assert_eq!(got, vec![1, 1, 1, 1]);
    assert_eq!(
        create(&s, &a, Kind::Post, body(Kind::Post, 1)).await["id"],
        2
    );
    assert_db_consistent(&s);
}

#[tokio::test]
async fn validation_errors_name_every_field() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let host = a_post(&s, &a).await;
    let gone = a_post(&s, &a).await;
    s.call(Method::DELETE, &item(Kind::Post, gone), Some(&a), None)
        .await;
    let status = create(&s, &a, Kind::Status, json!({"text": "s"})).await["id"]
        .as_i64()
        .unwrap();
    let on_status = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "c", "status": status}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let long = "x".repeat(251);
    let cases: Vec<Case> = vec![
        (Kind::Discussion, json!({}), vec![("title", "required")]),
        (
            Kind::Discussion,
            json!({"title": ""}),
            vec![("title", "required")],
        ),
        (
            Kind::Discussion,
            json!({"title": null}),
            vec![("title", "null")],
        ),
        (
            Kind::Discussion,
            json!({"title": 5}),
            vec![("title", "invalid")],
        ),
        (
            Kind::Discussion,
            json!({"title": long}),
            vec![("title", "max_length")],
        ),
        (
            Kind::Discussion,
            json!({"title": "", "text": 1, "categories": [999]}),
            vec![
                ("title", "required"),
                ("text", "invalid"),
                ("categories", "invalid"),
            ],
        ),
        (
            Kind::Post,
            json!({"title": "only"}),
            vec![("text", "required")],
        ),
        (
            Kind::Post,
            json!({"text": "   "}),
            vec![("text", "required")],
        ),
        (
            Kind::Post,
            json!({"text": "t", "categories": "1"}),
            vec![("categories", "invalid")],
        ),
        (
            Kind::Post,
            json!({"text": "t", "categories": ["a"]}),
            vec![("categories", "invalid")],
        ),
        (
            Kind::Post,
            json!({"text": "t", "categories": [12345]}),
            vec![("categories", "invalid")],
        ),
        (
            Kind::Status,
            json!({"action": "a"}),
            vec![("text", "required")],
        ),
        (
            Kind::Status,
            json!({"text": "t", "action": []}),
            vec![("action", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"post": host}),
            vec![("text", "required")],
        ),
        (
            Kind::Comment,
            json!({"text": "c"}),
            vec![("non_field_errors", "required")],
        ),
        (
            Kind::Comment,
            json!({"text": "c", "post": host, "status": status}),
            vec![("non_field_errors", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "c", "post": 999}),
            vec![("post", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "c", "post": gone}),
            vec![("post", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "c", "discussion": 1}),
            vec![("discussion", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "c", "status": "x"}),
            vec![("status", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "c", "post": host, "parent": on_status}),
            vec![("parent", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "", "post": host, "parent": 999}),
            vec![("text", "required"), ("parent", "invalid")],
        ),
    ];
    for (kind, b, want) in cases {
        let r = s.post(&path(kind), Some(&a), b.clone()).await;
        assert_eq!(
            r.status,
            StatusCode::BAD_REQUEST,
            "{kind:?} {b}: {}",
            r.text
        );
        let j = r.json();
        assert_eq!(j["detail"], "Invalid input.");
        let got: Vec<(String, String)> = j["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["field"].as_str().unwrap().to_owned(),
                    e["messages"][0]["code"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = want
            .into_iter()
            .map(|(f, c)| (f.to_owned(), c.to_owned()))
            .collect();
        assert_eq!(got, want, "{kind:?} {b}");
    }
    // nothing was created by the failures
    let m = me(&s, &a).await;
    assert_eq!(m["posts_counter"], 1);
    assert_eq!(s.get(&path(Kind::Comment), None).await.json()["count"], 1);
    assert_db_consistent(&s);
}

#[tokio::test]
async fn comments_accept_string_ids_parents_and_unknown_fields() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let d = create(&s, &a, Kind::Discussion, json!({"title": "t"})).await["id"]
        .as_i64()
        .unwrap();
    let top = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "top", "discussion": d.to_string(), "post": null, "extra": 1}),
    )
    .await;
    assert_eq!(top["discussion"], d);
    let reply = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "reply", "discussion": d, "parent": top["id"].to_string()}),
    )
    .await;
    assert_eq!(reply["parent"], top["id"]);
    assert_eq!(reply["discussion"], d);
    let dj = s.get(&item(Kind::Discussion, d), None).await.json();
    assert_eq!(dj["comment_count"], 2);
    // a deleted parent is refused
    let top_id = top["id"].as_i64().unwrap();
    s.call(Method::DELETE, &item(Kind::Comment, top_id), Some(&a), None)
        .await;
    let r = s
        .post(
            &path(Kind::Comment),
            Some(&a),
            json!({"text": "r", "discussion": d, "parent": top_id}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["errors"][0]["field"], "parent");
    assert_db_consistent(&s);
}

#[tokio::test]
async fn categories_by_id_and_required_by_preference() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let c1 = s.category("Science");
    let c2 = s.category("Art");
    let j = create(
        &s,
        &a,
        Kind::Post,
        json!({"text": "t", "categories": [c2.to_string(), c1, c2]}),
    )
    .await;
    let cats = j["categories"].as_array().unwrap();
    assert_eq!(cats.len(), 2);
    assert_eq!(cats[0]["id"], c1);
    assert_eq!(cats[0]["name"], "Science");
    for field in [
        "id",
        "name",
        "slug",
        "active",
        "deleted",
        "order",
        "image_medium",
    ] {
        assert!(cats[0].get(field).is_some(), "Category JSON has {field}");
    }

    s.set_pref(
        "configurations",
        "post_category_required_enabled",
        json!(true),
    );
    for kind in [Kind::Discussion, Kind::Post, Kind::Status] {
        for missing in [json!(null), json!([])] {
            let mut b = body(kind, 0);
            b["categories"] = missing;
            let r = s.post(&path(kind), Some(&a), b).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{kind:?}");
            assert_eq!(r.json()["errors"][0]["field"], "categories");
            assert_eq!(r.error_code(), "required");
        }
        let mut b = body(kind, 0);
        b["categories"] = json!([c1]);
        create(&s, &a, kind, b).await;
    }
    // comments take no categories
    let post = j["id"].as_i64().unwrap();
    create(&s, &a, Kind::Comment, json!({"text": "c", "post": post})).await;
    assert_db_consistent(&s);
}

#[tokio::test]
async fn bodies_must_be_json_objects() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    for kind in Kind::ALL {
        let p = path(kind);
        let r = send_raw(&s, Method::POST, &p, &a, Some("text/plain"), "{}").await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{kind:?}");
        let r = send_raw(&s, Method::POST, &p, &a, None, "").await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{kind:?}");
        for bad in ["{", "[1]", "\"x\"", ""] {
            let r = send_raw(&s, Method::POST, &p, &a, Some("application/json"), bad).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{kind:?} {bad:?}");
            assert_eq!(r.error_code(), "parse_error");
        }
        // an anonymous call is 401 whatever its body
        let r = s
            .client
            .post(format!("{}{p}", s.url))
            .header("content-type", "text/plain")
            .body("{")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
}

#[tokio::test]
async fn delete_and_restore_take_no_body() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let host = a_post(&s, &a).await;
    for kind in Kind::ALL {
        let id = create(&s, &a, kind, body(kind, host)).await["id"]
            .as_i64()
            .unwrap();
        for (ct, raw) in [
            (Some("application/json"), ""),
            (Some("application/json"), "{}"),
            (Some("text/plain"), ""),
            (None, ""),
        ] {
            for (m, p) in [
                (Method::DELETE, item(kind, id)),
                (Method::POST, restore(kind, id)),
            ] {
                let r = send_raw(&s, m.clone(), &p, &a, ct, raw).await;
                assert_eq!(r.status, StatusCode::NO_CONTENT, "{m} {p} {ct:?} {raw:?}");
            }
        }
        let r = send_raw(
            &s,
            Method::POST,
            &restore(kind, id),
            &a,
            Some("application/json"),
            "{\"x\":1}",
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST);
    }
    assert_db_consistent(&s);
}

#[tokio::test]
async fn restore_routes_methods_and_slashless_comment_form() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let host = a_post(&s, &a).await;
    let d = create(&s, &a, Kind::Discussion, body(Kind::Discussion, 0)).await["id"]
        .as_i64()
        .unwrap();
    let c = create(&s, &a, Kind::Comment, body(Kind::Comment, host)).await["id"]
        .as_i64()
        .unwrap();

    // discussions restore with DELETE (SEED-API) and POST (its example)
    for m in [Method::DELETE, Method::POST] {
        s.call(Method::DELETE, &item(Kind::Discussion, d), Some(&a), None)
            .await;
        let r = s
            .call(m.clone(), &restore(Kind::Discussion, d), Some(&a), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{m}");
        assert_eq!(
            s.get(&item(Kind::Discussion, d), None).await.json()["deleted"],
            false
        );
    }
    // the comment's slashless form
    s.call(Method::DELETE, &item(Kind::Comment, c), Some(&a), None)
        .await;
    let slashless = format!("/api/v2/comment/{c}/restore");
    let r = s.call(Method::POST, &slashless, Some(&a), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        s.get(&item(Kind::Comment, c), None).await.status,
        StatusCode::OK
    );
    for kind in [Kind::Post, Kind::Status, Kind::Discussion] {
        let p = format!("/api/v2/{}/1/restore", kind.as_str());
        assert_eq!(
            s.call(Method::POST, &p, Some(&a), None).await.status,
            StatusCode::NOT_FOUND,
            "{p} is only served with its slash"
        );
    }

    // wrong methods: 405 with Allow
    let cases = [
        (Method::GET, restore(Kind::Post, 1), "POST"),
        (Method::DELETE, restore(Kind::Comment, c), "POST"),
        (Method::GET, slashless.clone(), "POST"),
        (Method::GET, restore(Kind::Discussion, d), "DELETE, POST"),
        (Method::PUT, item(Kind::Post, 1), "GET, HEAD, DELETE"),
        (Method::PATCH, path(Kind::Status), "GET, HEAD, POST"),
    ];
    for (m, p, allow) in cases {
        let r = s.call(m.clone(), &p, Some(&a), None).await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{m} {p}");
        assert_eq!(r.header("allow"), Some(allow), "{m} {p}");
    }
    // ids that are not integers match no route, before authentication
    for p in [
        "/api/v2/post/abc/",
        "/api/v2/comment/1x/restore/",
        "/api/v2/status/x/restore/",
    ] {
        assert_eq!(s.get(p, None).await.status, StatusCode::NOT_FOUND, "{p}");
        assert_eq!(
            s.call(Method::POST, p, None, None).await.status,
            StatusCode::NOT_FOUND,
            "{p}"
        );
    }
    assert_db_consistent(&s);
}

#[tokio::test]
async fn protected_routes_reject_missing_bad_and_wrong_users() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let a = s.jwt(alice);
    let b = s.jwt(s.user("bob", None, false));
    let a_read = s.oauth_token(alice, "read");
    let a_write = s.oauth_token(alice, "read write");
    let host = a_post(&s, &a).await;
    let bad = crate::common::bad_tokens(&s).await;
    for kind in Kind::ALL {
        let live = create(&s, &a, kind, body(kind, host)).await["id"]
            .as_i64()
            .unwrap();
        let dead = create(&s, &a, kind, body(kind, host)).await["id"]
            .as_i64()
            .unwrap();
        s.call(Method::DELETE, &item(kind, dead), Some(&a), None)
            .await;

        let mut routes = vec![
            (Method::POST, path(kind), Some(body(kind, host))),
            (Method::DELETE, item(kind, live), None),
            (Method::DELETE, item(kind, 999), None),
            (Method::POST, restore(kind, live), None),
            (Method::POST, restore(kind, 999), None),
        ];
        if kind == Kind::Discussion {
            routes.push((Method::DELETE, restore(kind, live), None));
        }
        if kind == Kind::Comment {
            routes.push((
                Method::POST,
                format!("/api/v2/comment/{live}/restore"),
                None,
            ));
        }
        for (m, p, bdy) in &routes {
            for (what, token) in &bad {
                let r = s.call(m.clone(), p, token.as_deref(), bdy.clone()).await;
                assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{m} {p} with {what}");
                let code = if token.is_some() {
                    "authentication_failed"
                } else {
                    "not_authenticated"
                };
                assert_eq!(r.error_code(), code, "{m} {p} with {what}");
                assert!(r.header("www-authenticate").is_some());
            }
            // a read-only token may not write, whether the id exists or not
            let r = s.call(m.clone(), p, Some(&a_read), bdy.clone()).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {p} read-only");
            assert_eq!(r.error_code(), "insufficient_scope");
        }
        // reads reject a bad token too, and accept none
        for (what, token) in &bad {
            for p in [path(kind), item(kind, live)] {
                let r = s.get(&p, token.as_deref()).await;
                let want = if token.is_some() {
                    StatusCode::UNAUTHORIZED
                } else {
                    StatusCode::OK
                };
                assert_eq!(r.status, want, "GET {p} with {what}");
            }
        }
        // another user: 403 on what they can see, 404 on another's deleted item
        for (m, p) in [
            (Method::DELETE, item(kind, live)),
            (Method::POST, restore(kind, live)),
        ] {
            let r = s.call(m.clone(), &p, Some(&b), None).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {p} by bob");
            assert_eq!(r.error_code(), "permission_denied");
        }
        for (m, p) in [
            (Method::DELETE, item(kind, dead)),
            (Method::POST, restore(kind, dead)),
        ] {
            let r = s.call(m.clone(), &p, Some(&b), None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{m} {p} by bob");
        }
        assert_eq!(
            s.get(&item(kind, dead), Some(&b)).await.status,
            StatusCode::NOT_FOUND
        );
        // unknown ids are 404 for an authenticated writer
        for (m, p) in [
            (Method::DELETE, item(kind, 999)),
            (Method::POST, restore(kind, 999)),
        ] {
            let r = s.call(m.clone(), &p, Some(&a), None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{m} {p}");
            assert_eq!(r.error_code(), "not_found");
        }
        assert_eq!(
            s.get(&item(kind, 999), None).await.status,
            StatusCode::NOT_FOUND
        );
        // staff are not creators either
        let staff = s.jwt(s.user(&format!("staff{}", kind.as_str()), None, true));
        let r = s
            .call(Method::DELETE, &item(kind, live), Some(&staff), None)
            .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        // the creator's write-scoped OAuth token works
        let r = s
            .call(Method::DELETE, &item(kind, live), Some(&a_write), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
        let r = s
            .call(Method::POST, &restore(kind, live), Some(&a_write), None)
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
        // and the read-only token can read
        assert_eq!(
            s.get(&item(kind, dead), Some(&a_read)).await.json()["deleted"],
            true
        );
    }
    assert_db_consistent(&s);
}

#[tokio::test]
async fn lists_are_paginated_newest_first_and_filter_comments() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let mut posts = Vec::new();
    for i in 0..5 {
        s.clock.advance(1_000_000);
        let j = create(&s, &a, Kind::Post, json!({"text": format!("p{i}")})).await;
        posts.push(j["id"].as_i64().unwrap());
    }
    let r = s.get("/api/v2/post/?limit=2&offset=1&x=y", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let j = r.json();
    assert_eq!(j["count"], 5);
    assert_eq!(ids(&r), vec![posts[3], posts[2]]);
    assert_eq!(
        j["next"],
        format!("{}/api/v2/post/?x=y&limit=2&offset=3", s.url)
    );
    assert_eq!(j["previous"], format!("{}/api/v2/post/?x=y&limit=2", s.url));
    for q in ["limit=0", "limit=x", "offset=-1", "limit="] {
        let r = s.get(&format!("/api/v2/post/?{q}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{q}");
    }

    let st = create(&s, &a, Kind::Status, json!({"text": "s"})).await["id"]
        .as_i64()
        .unwrap();
    let on_p0 = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "a", "post": posts[0]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let on_p1 = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "b", "post": posts[1]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let on_st = create(&s, &a, Kind::Comment, json!({"text": "c", "status": st})).await["id"]
        .as_i64()
        .unwrap();
    let list = |q: String| {
        let s = &s;
        async move { s.get(&format!("/api/v2/comment/{q}"), None).await }
    };
    assert_eq!(ids(&list(String::new()).await), vec![on_st, on_p1, on_p0]);
    assert_eq!(ids(&list(format!("?post={}", posts[0])).await), vec![on_p0]);
    assert_eq!(ids(&list(format!("?status={st}")).await), vec![on_st]);
    assert_eq!(ids(&list("?discussion=1".into()).await), Vec::<i64>::new());
    assert_eq!(
        ids(&list(format!("?post={}&status={st}", posts[0])).await),
        Vec::<i64>::new()
    );
    let r = list("?post=abc".into()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["errors"][0]["field"], "post");
    // a deleted comment leaves the filtered list
    s.call(Method::DELETE, &item(Kind::Comment, on_p0), Some(&a), None)
        .await;
    let r = list(format!("?post={}", posts[0])).await;
    assert_eq!(r.json()["count"], 0);
    assert_db_consistent(&s);
}

#[tokio::test]
async fn reads_need_auth_when_content_is_not_available() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let host = a_post(&s, &a).await;
    s.set_pref("configurations", "content_availability", json!(false));
    for kind in Kind::ALL {
        let id = create(&s, &a, kind, body(kind, host)).await["id"]
            .as_i64()
            .unwrap();
        for p in [path(kind), item(kind, id), item(kind, 999)] {
            let r = s.get(&p, None).await;
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{p}");
            assert_eq!(r.error_code(), "not_authenticated");
        }
        assert_eq!(
            s.get(&item(kind, id), Some(&a)).await.status,
            StatusCode::OK
        );
        assert_eq!(s.get(&path(kind), Some(&a)).await.status, StatusCode::OK);
    }
}

#[tokio::test]
async fn summary_is_200_characters_and_title_250() {
    let s = TestServer::start().await;
    let a = s.jwt(s.user("alice", None, false));
    let text = "ä".repeat(300);
    let j = create(
        &s,
        &a,
        Kind::Discussion,
        json!({"title": "t".repeat(250), "text": text}),
    )
    .await;
    assert_eq!(j["summary"].as_str().unwrap().chars().count(), 200);
    assert_eq!(j["text"], text);
    assert_eq!(j["title"].as_str().unwrap().len(), 250);
}

/// `(posts_counter, discussions_counter)` of a User JSON.
fn counters(u: &Value) -> (i64, i64) {
    (
        u["posts_counter"].as_i64().unwrap(),
        u["discussions_counter"].as_i64().unwrap(),
    )
}

#[tokio::test]
async fn the_schema_describes_every_contribution_route() {
    let s = TestServer::start().await;
    let doc = s.get("/api/v2/schema/", None).await.json();
    for kind in Kind::ALL {
        let k = kind.as_str();
        let want = [
            (format!("/api/v2/{k}/"), vec!["get", "post"]),
            (format!("/api/v2/{k}/{{id}}/"), vec!["get", "delete"]),
            (format!("/api/v2/{k}/{{id}}/restore/"), vec!["post"]),
        ];
        for (p, methods) in want {
            for m in methods {
                assert!(doc["paths"][&p][m].is_object(), "{m} {p}");
            }
        }
    }
    assert!(doc["paths"]["/api/v2/discussion/{id}/restore/"]["delete"].is_object());
    assert!(doc["paths"]["/api/v2/comment/{id}/restore"]["post"].is_object());
    for name in ["Discussion", "Post", "Status", "Comment", "CommentCreate"] {
        assert!(doc["components"]["schemas"][name].is_object(), "{name}");
    }
}

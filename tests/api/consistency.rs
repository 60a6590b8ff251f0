//! Cross-area consistency (SPEC §3, §5): the same situation gets the same answer in
//! every area: bodies, content types, pagination, booleans, CA, trailing slashes,
//! and the shared User Minimal / Category JSON.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

/// Sends a raw body with an optional content type.
async fn raw(
    s: &TestServer,
    m: Method,
    path: &str,
    token: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> Resp {
    let mut rb = s
        .client
        .request(m, format!("{}{}", s.url, path))
        .bearer_auth(token);
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    TestServer::read(rb.body(body).send().await.unwrap()).await
}

struct World {
    ann: i64,
    bob: i64,
    ann_t: String,
    bob_t: String,
    cat: i64,
}

async fn world(s: &TestServer) -> World {
    let ann = s.user("ann", None, true);
    let bob = s.user("bob", None, false);
    let cat = s.category("General");
    World {
        ann,
        bob,
        ann_t: s.jwt(ann),
        bob_t: s.jwt(bob),
        cat,
    }
}

async fn created(r: Resp) -> i64 {
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()["id"].as_i64().unwrap()
}

/// SPEC §3: routes that take no body accept an empty body whatever its content type,
/// and `{}`.
#[tokio::test]
async fn no_body_routes_accept_empty_bodies_and_empty_objects() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let bodies: [(Option<&str>, &[u8]); 6] = [
        (None, b""),
        (Some("application/json"), b""),
        (Some("text/plain"), b""),
        (Some("application/x-www-form-urlencoded"), b""),
        (Some("application/json"), b"{}"),
        (Some("application/json; charset=utf-8"), b" { } "),
    ];
    for (ct, body) in bodies {
        let what = format!("{ct:?} {:?}", String::from_utf8_lossy(body));
        // follow (toggles: twice leaves things as they were)
        for _ in 0..2 {
            let r = raw(
                &s,
                Method::POST,
                &format!("/api/v2/user/{}/follow/", w.bob),
                t,
                ct,
                body.to_vec(),
            )
            .await;
            assert_eq!(
                r.status,
                StatusCode::NO_CONTENT,
                "follow {what}: {}",
                r.text
            );
        }
        // contributions: delete and restore, every kind and form
        let d = created(
            s.post(
                "/api/v2/discussion/",
                Some(t),
                json!({"title": "d", "text": "d"}),
            )
            .await,
        )
        .await;
        let p = created(s.post("/api/v2/post/", Some(t), json!({"text": "p"})).await).await;
        let st = created(
            s.post("/api/v2/status/", Some(t), json!({"text": "s"}))
                .await,
        )
        .await;
        let c = created(
            s.post("/api/v2/comment/", Some(t), json!({"text": "c", "post": p}))
                .await,
        )
        .await;
        for (m, path) in [
            (Method::DELETE, format!("/api/v2/comment/{c}/")),
            (Method::POST, format!("/api/v2/comment/{c}/restore/")),
            (Method::DELETE, format!("/api/v2/comment/{c}/")),
            (Method::POST, format!("/api/v2/comment/{c}/restore")),
            (Method::DELETE, format!("/api/v2/discussion/{d}/")),
            (Method::POST, format!("/api/v2/discussion/{d}/restore/")),
            (Method::DELETE, format!("/api/v2/discussion/{d}/")),
            (Method::DELETE, format!("/api/v2/discussion/{d}/restore/")),
            (Method::DELETE, format!("/api/v2/post/{p}/")),
            (Method::POST, format!("/api/v2/post/{p}/restore/")),
            (Method::DELETE, format!("/api/v2/status/{st}/")),
            (Method::POST, format!("/api/v2/status/{st}/restore/")),
        ] {
            let r = raw(&s, m.clone(), &path, t, ct, body.to_vec()).await;
            assert_eq!(
                r.status,
                StatusCode::NO_CONTENT,
                "{m} {path} {what}: {}",
                r.text
            );
        }
        // courses: join, leave, delete a section, delete the course
        let name = format!("C {}", s.clock.now());
        let course = created(
            s.post(
                "/api/v2/course/",
                Some(t),
                json!({"name": name, "type": "self-paced", "privacy": "open"}),
            )
            .await,
        )
        .await;
        let sec = created(
            s.post(
                &format!("/api/v2/course/{course}/section/"),
                Some(t),
                json!({"name": "x"}),
            )
            .await,
        )
        .await;
        s.clock.advance(hearth::clock::SECOND);
        for (m, path, tok, want) in [
            (
                Method::POST,
                format!("/api/v2/course/{course}/join/"),
                &w.bob_t,
                StatusCode::OK,
            ),
            (
                Method::DELETE,
                format!("/api/v2/course/{course}/join/"),
                &w.bob_t,
                StatusCode::NO_CONTENT,
            ),
            (
                Method::DELETE,
                format!("/api/v2/course/{course}/section/{sec}/"),
                t,
                StatusCode::NO_CONTENT,
            ),
            (
                Method::DELETE,
                format!("/api/v2/course/{course}/"),
                t,
                StatusCode::NO_CONTENT,
            ),
        ] {
            let r = raw(&s, m.clone(), &path, tok, ct, body.to_vec()).await;
            assert_eq!(r.status, want, "{m} {path} {what}: {}", r.text);
        }
    }
    let _ = w.ann;
}

/// A no-body route given a real body says so the same way everywhere (400
/// `parse_error`), and an oversized one is 413.
#[tokio::test]
async fn no_body_routes_refuse_real_bodies_alike() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let p = created(s.post("/api/v2/post/", Some(t), json!({"text": "p"})).await).await;
    let c = created(
        s.post("/api/v2/comment/", Some(t), json!({"text": "c", "post": p}))
            .await,
    )
    .await;
    let course = created(
        s.post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await,
    )
    .await;
    let sec = created(
        s.post(
            &format!("/api/v2/course/{course}/section/"),
            Some(t),
            json!({"name": "x"}),
        )
        .await,
    )
    .await;
    let routes = [
        (Method::POST, format!("/api/v2/user/{}/follow/", w.bob), t),
        (Method::DELETE, format!("/api/v2/post/{p}/"), t),
        (Method::POST, format!("/api/v2/post/{p}/restore/"), t),
        (Method::POST, format!("/api/v2/comment/{c}/restore"), t),
        (
            Method::POST,
            format!("/api/v2/course/{course}/join/"),
            &w.bob_t,
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{course}/join/"),
            &w.bob_t,
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{course}/section/{sec}/"),
            t,
        ),
        (Method::DELETE, format!("/api/v2/course/{course}/"), t),
    ];
    let big = vec![b' '; 1024 * 1024 + 1];
    for (m, path, tok) in &routes {
        for body in [&b"{\"a\": 1}"[..], b"[]", b"{"] {
            let r = raw(
                &s,
                m.clone(),
                path,
                tok,
                Some("application/json"),
                body.to_vec(),
            )
            .await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{m} {path}: {}", r.text);
            assert_eq!(r.error_code(), "parse_error", "{m} {path}");
        }
        let r = raw(
            &s,
            m.clone(),
            path,
            tok,
            Some("application/json"),
            big.clone(),
        )
        .await;
        assert_eq!(
            r.status,
            StatusCode::PAYLOAD_TOO_LARGE,
            "{m} {path}: {}",
            r.text
        );
        assert_eq!(r.error_code(), "payload_too_large", "{m} {path}");
    }
}

/// What a bad-body case sends and expects: name, content type, body, status, code.
type BodyCase = (
    &'static str,
    Option<&'static str>,
    Vec<u8>,
    StatusCode,
    &'static str,
);

/// The same bad body gets the same status and code on every route that reads one.
#[tokio::test]
async fn body_errors_are_the_same_everywhere() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let course = created(
        s.post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await,
    )
    .await;
    let sec = created(
        s.post(
            &format!("/api/v2/course/{course}/section/"),
            Some(t),
            json!({"name": "x"}),
        )
        .await,
    )
    .await;
    let routes = [
        (Method::PATCH, "/api/v2/dynamic_preference/".to_owned()),
        (Method::POST, "/api/v2/discussion/".into()),
        (Method::POST, "/api/v2/post/".into()),
        (Method::POST, "/api/v2/status/".into()),
        (Method::POST, "/api/v2/comment/".into()),
        (Method::POST, "/api/v2/course/".into()),
        (Method::PUT, format!("/api/v2/course/{course}/")),
        (Method::PATCH, format!("/api/v2/course/{course}/")),
        (Method::POST, format!("/api/v2/course/{course}/invite/")),
        (Method::DELETE, format!("/api/v2/course/{course}/invite/")),
        (Method::POST, format!("/api/v2/course/{course}/role/")),
        (Method::POST, format!("/api/v2/course/{course}/section/")),
        (
            Method::PUT,
            format!("/api/v2/course/{course}/section/{sec}/"),
        ),
        (
            Method::PATCH,
            format!("/api/v2/course/{course}/section/{sec}/"),
        ),
    ];
    let big = format!("{{\"text\": \"{}\"}}", "x".repeat(1024 * 1024 + 10)).into_bytes();
    let cases: [BodyCase; 7] = [
        (
            "text/plain",
            Some("text/plain"),
            b"{}".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        ),
        (
            "no content type",
            None,
            b"{}".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        ),
        (
            "bad json",
            Some("application/json"),
            b"{\"a\":".to_vec(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "empty json body",
            Some("application/json"),
            Vec::new(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "a list",
            Some("application/json"),
            b"[]".to_vec(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "a string",
            Some("application/json"),
            b"\"x\"".to_vec(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "too large",
            Some("application/json"),
            big,
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
    ];
    let mut failures = Vec::new();
    for (m, path) in &routes {
        for (what, ct, body, status, code) in &cases {
            let r = raw(&s, m.clone(), path, t, *ct, body.clone()).await;
            if r.status != *status || r.error_code() != *code {
                failures.push(format!(
                    "{m} {path} {what}: {} {}",
                    r.status,
                    r.text.chars().take(200).collect::<String>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pagination errors are the same 400 on every paginated list.
#[tokio::test]
async fn pagination_errors_are_the_same_everywhere() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let course = created(
        s.post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await,
    )
    .await;
    let lists = [
        "/api/v2/reaction/search/".to_owned(),
        "/api/v2/reaction/".into(),
        "/api/v2/dynamic_preference/search/".into(),
        "/api/v2/dynamic_preference/".into(),
        format!("/api/v2/user/{}/followings/", w.bob),
        format!("/api/v2/user/{}/followers/", w.bob),
        "/api/v2/discussion/".into(),
        "/api/v2/post/".into(),
        "/api/v2/status/".into(),
        "/api/v2/comment/".into(),
        "/api/v2/course/".into(),
        "/api/v2/course/search/".into(),
        format!("/api/v2/course/{course}/join/"),
        format!("/api/v2/course/{course}/invite/"),
        format!("/api/v2/course/{course}/request_join/"),
    ];
    let mut failures = Vec::new();
    for list in &lists {
        let r = s.get(list, Some(t)).await;
        assert_eq!(r.status, StatusCode::OK, "{list}: {}", r.text);
        for (q, field) in [
            ("limit=0", "limit"),
            ("limit=-1", "limit"),
            ("limit=abc", "limit"),
            ("limit=", "limit"),
            ("limit=1.5", "limit"),
            ("offset=-1", "offset"),
            ("offset=", "offset"),
            ("offset=x", "offset"),
        ] {
            let r = s.get(&format!("{list}?{q}"), Some(t)).await;
            let j = r.json();
            if r.status != StatusCode::BAD_REQUEST
                || j["errors"][0]["field"] != field
                || r.error_code() != "invalid"
            {
                failures.push(format!("{list}?{q}: {} {}", r.status, r.text));
            }
        }
        let r = s
            .get(&format!("{list}?limit=1000000&offset=0"), Some(t))
            .await;
        if r.status != StatusCode::OK {
            failures.push(format!("{list} big limit: {} {}", r.status, r.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every read marked (CA) in SPEC §5 needs a caller when `content_availability` is off;
/// the public reads (reactions, preferences) do not.
#[tokio::test]
async fn content_availability_applies_to_every_ca_read() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let d = created(
        s.post(
            "/api/v2/discussion/",
            Some(t),
            json!({"title": "d", "text": "d"}),
        )
        .await,
    )
    .await;
    let p = created(s.post("/api/v2/post/", Some(t), json!({"text": "p"})).await).await;
    let st = created(
        s.post("/api/v2/status/", Some(t), json!({"text": "s"}))
            .await,
    )
    .await;
    let c = created(
        s.post("/api/v2/comment/", Some(t), json!({"text": "c", "post": p}))
            .await,
    )
    .await;
    let course = created(
        s.post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await,
    )
    .await;
    let sec = created(
        s.post(
            &format!("/api/v2/course/{course}/section/"),
            Some(t),
            json!({"name": "x"}),
        )
        .await,
    )
    .await;
    let ca = [
        format!("/api/v2/user/{}/", w.bob),
        format!("/api/v2/user/{}/followings/", w.bob),
        format!("/api/v2/user/{}/followers/", w.bob),
        "/api/v2/discussion/".into(),
        format!("/api/v2/discussion/{d}/"),
        "/api/v2/post/".into(),
        format!("/api/v2/post/{p}/"),
        "/api/v2/status/".into(),
        format!("/api/v2/status/{st}/"),
        "/api/v2/comment/".into(),
        format!("/api/v2/comment/{c}/"),
        format!("/api/v2/course/{course}/"),
        "/api/v2/course/search/".into(),
        format!("/api/v2/course/{course}/section/"),
        format!("/api/v2/course/{course}/section/{sec}/"),
    ];
    let public = [
        "/api/v2/reaction/search/",
        "/api/v2/reaction/1/",
        "/api/v2/dynamic_preference/",
        "/api/v2/dynamic_preference/search/",
    ];
    for path in ca.iter().map(String::as_str).chain(public) {
        assert_eq!(s.get(path, None).await.status, StatusCode::OK, "{path}");
    }
    s.set_pref("configurations", "content_availability", json!(false));
    for path in &ca {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(r.error_code(), "not_authenticated", "{path}");
        assert_eq!(r.header("www-authenticate"), Some(r#"Bearer realm="api""#));
        assert_eq!(
            s.get(path, Some(&w.bob_t)).await.status,
            StatusCode::OK,
            "{path}"
        );
    }
    for path in public {
        assert_eq!(s.get(path, None).await.status, StatusCode::OK, "{path}");
    }
}

/// SPEC §3: API paths only with their trailing slash, except the two slashless forms.
#[tokio::test]
async fn trailing_slash_rules() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let p = created(s.post("/api/v2/post/", Some(t), json!({"text": "p"})).await).await;
    let c = created(
        s.post("/api/v2/comment/", Some(t), json!({"text": "c", "post": p}))
            .await,
    )
    .await;
    let course = created(
        s.post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await,
    )
    .await;
    let sec = created(
        s.post(
            &format!("/api/v2/course/{course}/section/"),
            Some(t),
            json!({"name": "x"}),
        )
        .await,
    )
    .await;
    let b = w.bob;
    for path in [
        "/api/v2/user/me".to_owned(),
        format!("/api/v2/user/{b}"),
        format!("/api/v2/user/{b}/followings"),
        format!("/api/v2/user/{b}/followers"),
        format!("/api/v2/user/{b}/follow"),
        format!("/api/v2/user/{b}/is_followed"),
        format!("/api/v2/user/{b}/is_follower"),
        "/api/v2/reaction".into(),
        "/api/v2/reaction/search".into(),
        "/api/v2/reaction/1".into(),
        "/api/v2/dynamic_preference".into(),
        "/api/v2/dynamic_preference/search".into(),
        "/api/v2/dynamic_preference/1".into(),
        "/api/v2/jwt/verify_token".into(),
        "/api/v2/post".into(),
        format!("/api/v2/post/{p}"),
        format!("/api/v2/post/{p}/restore"),
        format!("/api/v2/comment/{c}"),
        "/api/v2/course".into(),
        "/api/v2/course/search".into(),
        format!("/api/v2/course/{course}"),
        format!("/api/v2/course/{course}/join"),
        format!("/api/v2/course/{course}/status"),
        format!("/api/v2/course/{course}/invite"),
        format!("/api/v2/course/{course}/request_join"),
        format!("/api/v2/course/{course}/role"),
        format!("/api/v2/course/{course}/section"),
        format!("/api/v2/course/{course}/section/{sec}"),
        "/oauth/token".into(),
        "/oauth/revoke_token".into(),
        "/accounts/login".into(),
        "/accounts/logout".into(),
        "/healthz/".into(),
        "/api/v2/schema".into(),
    ] {
        for m in [Method::GET, Method::POST] {
            let r = s.call(m.clone(), &path, Some(t), None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{m} {path}: {}", r.text);
        }
    }
    // ids that are not integers match no route, before any authentication
    for path in [
        "/api/v2/user/x/",
        "/api/v2/post/1.5/",
        "/api/v2/course/abc/join/",
        "/api/v2/comment/x/restore",
    ] {
        let r = s.call(Method::POST, path, None, None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
    }
    // the two slashless forms
    let r = s
        .call(
            Method::POST,
            &format!("/api/v2/comment/{c}/restore"),
            Some(t),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = s.get("/oauth/authorize", None).await;
    assert_ne!(r.status, StatusCode::NOT_FOUND);
}

/// One user looks the same as an author, a course creator and a member; one category
/// looks the same on a contribution and a course.
#[tokio::test]
async fn user_minimal_and_category_json_are_the_same_everywhere() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let post = s
        .post(
            "/api/v2/post/",
            Some(t),
            json!({"text": "p", "categories": [w.cat]}),
        )
        .await
        .json();
    let course = s
        .post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open", "categories": [w.cat]}),
        )
        .await
        .json();
    let members = s
        .get(&format!("/api/v2/course/{}/join/", course["id"]), Some(t))
        .await
        .json();
    let mut member = members["results"][0].clone();
    let status = member.as_object_mut().unwrap().remove("join_status");
    assert_eq!(status, Some(json!("creator")));
    assert_eq!(post["author"], course["created_by"]);
    assert_eq!(post["author"], member);
    let keys: Vec<&String> = post["author"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6, "{keys:?}");
    assert_eq!(post["author"]["id"], w.ann);
    let me = s.get("/api/v2/user/me/", Some(t)).await.json();
    for k in [
        "id",
        "username",
        "real_name",
        "avatar",
        "community_badge",
        "deleted",
    ] {
        assert_eq!(post["author"][k], me[k], "{k}");
    }
    assert_eq!(post["categories"], course["categories"]);
    let cat: &Value = &post["categories"][0];
    for k in [
        "id",
        "name",
        "slug",
        "active",
        "deleted",
        "order",
        "image_medium",
    ] {
        assert!(cat.get(k).is_some(), "category lacks {k}: {cat}");
    }
}

/// An unknown category id is the same 400 on contributions and courses.
#[tokio::test]
async fn unknown_category_is_the_same_error_everywhere() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let a = s
        .post(
            "/api/v2/post/",
            Some(t),
            json!({"text": "p", "categories": [999]}),
        )
        .await;
    let b = s
        .post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "categories": [999]}),
        )
        .await;
    for r in [&a, &b] {
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
        assert_eq!(r.json()["errors"][0]["field"], "categories", "{}", r.text);
        assert_eq!(r.error_code(), "invalid", "{}", r.text);
    }
    assert_eq!(a.json()["errors"], b.json()["errors"]);
}

/// Boolean query parameters accept true/false/1/0 in any case; anything else is 400.
#[tokio::test]
async fn boolean_query_parameters() {
    let s = TestServer::start().await;
    for v in ["true", "FALSE", "1", "0", "True"] {
        let r = s
            .get(&format!("/api/v2/reaction/search/?active={v}"), None)
            .await;
        assert_eq!(r.status, StatusCode::OK, "{v}");
    }
    for v in ["yes", "", "2", "t"] {
        let r = s
            .get(&format!("/api/v2/reaction/search/?active={v}"), None)
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(r.json()["errors"][0]["field"], "active");
    }
}

/// A bad list parameter is a 400 naming that parameter, with the same code for the same
/// kind of mistake in every area (`invalid_choice` for a value outside a fixed set,
/// `invalid` for a malformed one).
#[tokio::test]
async fn bad_list_parameters_name_their_field() {
    let s = TestServer::start().await;
    let w = world(&s).await;
    let t = &w.ann_t;
    let course = created(
        s.post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await,
    )
    .await;
    for (path, field, code) in [
        (
            "/api/v2/reaction/search/?active=maybe".to_owned(),
            "active",
            "invalid",
        ),
        (
            "/api/v2/dynamic_preference/?ordering=value".into(),
            "ordering",
            "invalid_choice",
        ),
        (
            "/api/v2/dynamic_preference/?keys=nodot".into(),
            "keys",
            "invalid",
        ),
        (
            format!("/api/v2/user/{}/followers/?mutual=true", w.bob),
            "mutual",
            "invalid_choice",
        ),
        (
            "/api/v2/comment/?discussion=abc".into(),
            "discussion",
            "invalid",
        ),
        (
            "/api/v2/course/?statuses=nope".into(),
            "statuses",
            "invalid_choice",
        ),
        (
            "/api/v2/course/search/?ordering=value".into(),
            "ordering",
            "invalid_choice",
        ),
        (
            "/api/v2/course/search/?categories=abc".into(),
            "categories",
            "invalid",
        ),
        (
            format!("/api/v2/course/{course}/join/?statuses=nope"),
            "statuses",
            "invalid_choice",
        ),
    ] {
        let r = s.get(&path, Some(t)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {}", r.text);
        assert_eq!(r.json()["errors"][0]["field"], field, "{path}: {}", r.text);
        assert_eq!(r.error_code(), code, "{path}: {}", r.text);
        assert_eq!(r.json()["detail"], "Invalid input.", "{path}");
    }
}

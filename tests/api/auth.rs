//! Bearer authentication over real HTTP: the JWT rules of SPEC §4, opaque tokens,
//! scopes, `verify_token`, and the table of protected routes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hearth::clock::SECOND;
use hearth::http::auth::Principal;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::{self, TestServer};

/// Every route that needs a caller (SPEC §5 "auth"), as documented in the OpenAPI
/// document; ids are filled in by [`Fixtures::fill`]. Add each new protected route here.
const PROTECTED_ROUTES: &[(&str, &str)] = &[
    ("GET", "/api/v2/user/me/"),
    ("POST", "/api/v2/user/{id}/follow/"),
    ("GET", "/api/v2/user/{id}/is_followed/"),
    ("GET", "/api/v2/user/{id}/is_follower/"),
    ("PATCH", "/api/v2/dynamic_preference/"),
    ("POST", "/api/v2/discussion/"),
    ("POST", "/api/v2/post/"),
    ("POST", "/api/v2/status/"),
    ("POST", "/api/v2/comment/"),
    ("DELETE", "/api/v2/discussion/{id}/"),
    ("DELETE", "/api/v2/post/{id}/"),
    ("DELETE", "/api/v2/status/{id}/"),
    ("DELETE", "/api/v2/comment/{id}/"),
    ("POST", "/api/v2/discussion/{id}/restore/"),
    ("DELETE", "/api/v2/discussion/{id}/restore/"),
    ("POST", "/api/v2/post/{id}/restore/"),
    ("POST", "/api/v2/status/{id}/restore/"),
    ("POST", "/api/v2/comment/{id}/restore/"),
    ("POST", "/api/v2/comment/{id}/restore"),
    ("GET", "/api/v2/course/"),
    ("POST", "/api/v2/course/"),
    ("PUT", "/api/v2/course/{id}/"),
    ("PATCH", "/api/v2/course/{id}/"),
    ("DELETE", "/api/v2/course/{id}/"),
    ("GET", "/api/v2/course/{id}/join/"),
    ("POST", "/api/v2/course/{id}/join/"),
    ("DELETE", "/api/v2/course/{id}/join/"),
    ("GET", "/api/v2/course/{id}/invite/"),
    ("POST", "/api/v2/course/{id}/invite/"),
    ("DELETE", "/api/v2/course/{id}/invite/"),
    ("GET", "/api/v2/course/{id}/request_join/"),
    ("POST", "/api/v2/course/{id}/role/"),
    ("POST", "/api/v2/course/{id}/section/"),
    ("PUT", "/api/v2/course/{id}/section/{section_id}/"),
    ("PATCH", "/api/v2/course/{id}/section/{section_id}/"),
    ("DELETE", "/api/v2/course/{id}/section/{section_id}/"),
];

/// The API reads that need no caller (some only while `content_availability` is on);
/// a bad token on them is still 401 (SPEC §4).
const PUBLIC_ROUTES: &[(&str, &str)] = &[
    ("GET", "/api/v2/reaction/search/"),
    ("GET", "/api/v2/reaction/"),
    ("GET", "/api/v2/reaction/{id}/"),
    ("GET", "/api/v2/dynamic_preference/search/"),
    ("GET", "/api/v2/dynamic_preference/"),
    ("GET", "/api/v2/dynamic_preference/{id}/"),
    ("GET", "/api/v2/user/{id}/"),
    ("GET", "/api/v2/user/{id}/followings/"),
    ("GET", "/api/v2/user/{id}/followers/"),
    ("GET", "/api/v2/discussion/"),
    ("GET", "/api/v2/discussion/{id}/"),
    ("GET", "/api/v2/post/"),
    ("GET", "/api/v2/post/{id}/"),
    ("GET", "/api/v2/status/"),
    ("GET", "/api/v2/status/{id}/"),
    ("GET", "/api/v2/comment/"),
    ("GET", "/api/v2/comment/{id}/"),
    ("GET", "/api/v2/course/search/"),
    ("GET", "/api/v2/course/{id}/"),
    ("GET", "/api/v2/course/{id}/status/"),
    ("GET", "/api/v2/course/{id}/section/"),
    ("GET", "/api/v2/course/{id}/section/{section_id}/"),
];

/// Routes that take no bearer token at all (or are not `/api/v2/` JSON routes).
const OTHER_ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/livez"),
    ("GET", "/readyz"),
    ("GET", "/api/v2/schema/"),
    ("POST", "/api/v2/jwt/verify_token/"),
    ("GET", "/static/{path}"),
    ("GET", "/media/{path}"),
    ("GET", "/oauth/authorize/"),
    ("POST", "/oauth/authorize/"),
    ("GET", "/oauth/authorize"),
    ("POST", "/oauth/authorize"),
    ("POST", "/oauth/token/"),
    ("POST", "/oauth/revoke_token/"),
    ("GET", "/accounts/login/"),
    ("POST", "/accounts/login/"),
    ("POST", "/accounts/logout/"),
];

/// One item of every kind, owned by `owner`, for the route tables.
struct Fixtures {
    owner: i64,
    other: i64,
    discussion: i64,
    post: i64,
    status: i64,
    comment: i64,
    course: i64,
    section: i64,
}

impl Fixtures {
    async fn make(s: &TestServer) -> Fixtures {
        let owner = s.user("owner", None, false);
        let other = s.user("other", None, false);
        let t = s.jwt(owner);
        let create = |path: &'static str, body: serde_json::Value| {
            let t = t.clone();
            async move {
                let r = s.post(path, Some(&t), body).await;
                assert_eq!(r.status, StatusCode::CREATED, "{path}: {}", r.text);
                r.json()["id"].as_i64().unwrap()
            }
        };
        let discussion = create("/api/v2/discussion/", json!({"title": "d", "text": "d"})).await;
        let post = create("/api/v2/post/", json!({"text": "p"})).await;
        let status = create("/api/v2/status/", json!({"text": "s"})).await;
        let comment = create(
            "/api/v2/comment/",
            json!({"text": "c", "discussion": discussion}),
        )
        .await;
        let course = create(
            "/api/v2/course/",
            json!({"name": "Fixture", "type": "self-paced", "privacy": "open"}),
        )
        .await;
        let r = s
            .post(
                &format!("/api/v2/course/{course}/section/"),
                Some(&t),
                json!({"name": "one"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let section = r.json()["id"].as_i64().unwrap();
        Fixtures {
            owner,
            other,
            discussion,
            post,
            status,
            comment,
            course,
            section,
        }
    }

    /// The path with its `{id}` (chosen by the segment before it), `{section_id}` and
    /// `{path}` filled in; `unknown` fills ids that do not exist instead.
    fn fill(&self, path: &str, unknown: bool) -> String {
        let mut out = Vec::new();
        let mut prev = "";
        for seg in path.split('/') {
            let filled = match seg {
                "{id}" if unknown => "999999".to_owned(),
                "{section_id}" if unknown => "999998".to_owned(),
                "{id}" => match prev {
                    "user" => self.other,
                    "discussion" => self.discussion,
                    "post" => self.post,
                    "status" => self.status,
                    "comment" => self.comment,
                    "course" => self.course,
                    "reaction" => 1,
                    "dynamic_preference" => 1,
                    other => panic!("no fixture for {other}/{{id}}"),
                }
                .to_string(),
                "{section_id}" => self.section.to_string(),
                "{path}" => "reactions/like.svg".to_owned(),
                s => s.to_owned(),
            };
            prev = seg;
            out.push(filled);
        }
        out.join("/")
    }
}

fn method(m: &str) -> Method {
    Method::from_bytes(m.as_bytes()).unwrap()
}

fn body_for(m: &Method) -> Option<serde_json::Value> {
    (m != Method::GET && m != Method::HEAD).then(|| json!({}))
}

#[tokio::test]
async fn every_protected_route_rejects_bad_tokens() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let cases = common::bad_tokens(&s).await;
    for (m, template) in PROTECTED_ROUTES {
        // auth is checked before existence: unknown ids are 401 too
        for unknown in [false, true] {
            let path = fx.fill(template, unknown);
            for (what, token) in &cases {
                let r = s
                    .call(method(m), &path, token.as_deref(), body_for(&method(m)))
                    .await;
                assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{m} {path}: {what}");
                let (code, header) = if token.is_none() {
                    ("not_authenticated", r#"Bearer realm="api""#)
                } else {
                    (
                        "authentication_failed",
                        r#"Bearer realm="api", error="invalid_token""#,
                    )
                };
                assert_eq!(r.error_code(), code, "{m} {path}: {what}");
                assert_eq!(
                    r.header("www-authenticate"),
                    Some(header),
                    "{m} {path}: {what}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_read_only_token_may_not_write_anywhere() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let read = s.oauth_token(fx.owner, "read");
    for (m, template) in PROTECTED_ROUTES.iter().filter(|(m, _)| *m != "GET") {
        for unknown in [false, true] {
            let path = fx.fill(template, unknown);
            let r = s
                .call(method(m), &path, Some(&read), body_for(&method(m)))
                .await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {path}: {}", r.text);
            assert_eq!(r.error_code(), "insufficient_scope", "{m} {path}");
            assert!(
                r.header("www-authenticate")
                    .is_some_and(|h| h.contains(r#"error="insufficient_scope""#)),
                "{m} {path}: {:?}",
                r.header("www-authenticate")
            );
        }
    }
    // and the reads still work with it
    for (m, template) in PROTECTED_ROUTES.iter().filter(|(m, _)| *m == "GET") {
        let path = fx.fill(template, false);
        let r = s.call(method(m), &path, Some(&read), None).await;
        assert_eq!(r.status, StatusCode::OK, "{m} {path}: {}", r.text);
    }
}

#[tokio::test]
async fn a_bad_token_on_a_public_route_is_401() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let cases = common::bad_tokens(&s).await;
    for (m, template) in PUBLIC_ROUTES {
        let path = fx.fill(template, false);
        for (what, token) in &cases {
            let r = s.call(method(m), &path, token.as_deref(), None).await;
            if token.is_none() {
                assert_eq!(r.status, StatusCode::OK, "{m} {path}: {what}: {}", r.text);
                continue;
            }
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{m} {path}: {what}");
            assert_eq!(r.error_code(), "authentication_failed", "{m} {path}");
            assert_eq!(
                r.header("www-authenticate"),
                Some(r#"Bearer realm="api", error="invalid_token""#),
                "{m} {path}: {what}"
            );
        }
    }
}

#[tokio::test]
async fn the_openapi_document_and_the_router_agree() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let token = s.jwt(fx.owner);
    let doc = s.get("/api/v2/schema/", None).await.json();
    // the document is sound on its own (structure, references, SPEC §3 responses)
    let problems = crate::openapi::problems(&doc);
    assert!(
        problems.is_empty(),
        "the OpenAPI document has {} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let paths = doc["paths"].as_object().unwrap();
    // every route we know is described, with its method
    for (m, template) in PROTECTED_ROUTES
        .iter()
        .chain(PUBLIC_ROUTES)
        .chain(OTHER_ROUTES)
    {
        let described = paths
            .get(*template)
            .and_then(|p| p.get(m.to_ascii_lowercase()));
        assert!(described.is_some(), "{m} {template} is not in the document");
    }
    // every described path is served: one of its methods answers something but 404
    // (reads first, so the walk deletes nothing it still needs)
    for (template, item) in paths {
        let mut methods: Vec<&str> = ["get", "post", "put", "patch", "delete"]
            .into_iter()
            .filter(|m| item.get(*m).is_some())
            .collect();
        assert!(!methods.is_empty(), "{template} documents no method");
        if template == "/media/{path}" {
            // served, but only for stored images: an unknown one is 404 by design
            continue;
        }
        methods.truncate(1);
        let path = fx.fill(template, false);
        let m = method(&methods[0].to_ascii_uppercase());
        let r = s.call(m.clone(), &path, Some(&token), body_for(&m)).await;
        assert_ne!(r.status, StatusCode::NOT_FOUND, "{m} {path}: {}", r.text);
        assert_ne!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{m} {path}");
        // and what it answered is documented for that operation
        let code = r.status.as_str();
        let op = &item[methods[0]];
        assert!(
            op["responses"].get(code).is_some() || op["responses"].get("default").is_some(),
            "{m} {path} answered {code}, which its operation does not document: {}",
            r.text
        );
    }
    // every operation that takes a typed body (JSON or multipart) refuses text/plain
    // with a 415 that it documents (preferences are staff-only: a staff caller there)
    let staff = s.jwt(s.user("staffer", None, true));
    for (template, item) in paths {
        for (m, op) in item.as_object().unwrap() {
            let body = &op["requestBody"];
            let typed = body["content"].get("application/json").is_some()
                || body["content"].get("multipart/form-data").is_some();
            if body["required"] != true || !typed {
                continue;
            }
            let path = fx.fill(template, false);
            let r = s
                .client
                .request(method(&m.to_ascii_uppercase()), format!("{}{path}", s.url))
                .bearer_auth(if template.contains("dynamic_preference") {
                    &staff
                } else {
                    &token
                })
                .header("content-type", "text/plain")
                .body("x")
                .send()
                .await
                .unwrap();
            let r = TestServer::read(r).await;
            assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{m} {path}");
            assert!(
                op["responses"].get("415").is_some(),
                "{m} {template}: 415 undocumented"
            );
        }
    }
    // and every known route is one of the document's paths (no undocumented route)
    let known: std::collections::BTreeSet<&str> = PROTECTED_ROUTES
        .iter()
        .chain(PUBLIC_ROUTES)
        .chain(OTHER_ROUTES)
        .map(|(_, p)| *p)
        .collect();
    for template in paths.keys() {
        assert!(
            known.contains(template.as_str()),
            "{template} is documented but missing from the route tables of this test"
        );
    }
}

fn sign(header: &str, payload: &str, secret: &str) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header),
        URL_SAFE_NO_PAD.encode(payload)
    );
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
    let sig = ring::hmac::sign(&key, input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
}

const HS256: &str = r#"{"alg":"HS256","typ":"JWT"}"#;

#[tokio::test]
async fn jwt_rules_over_http() {
    let s = TestServer::start().await;
    let ann = s.user("ann", None, false);
    let secret = s.jwt_secret();
    let now = s.clock.now_secs();
    let payload = |extra: &str| {
        format!(
            r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{now},"jti":"j-{}"{extra}}}"#,
            now + 600,
            extra.len()
        )
    };
    let good = sign(HS256, &payload(""), &secret);
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&good)).await.status,
        StatusCode::OK
    );
    // missing typ is accepted; ext_id rides along
    let ok2 = sign(
        r#"{"alg":"HS256"}"#,
        &payload(r#","ext_id":"x-1""#),
        &secret,
    );
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&ok2)).await.status,
        StatusCode::OK
    );
    let hs512 = {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"HS512","typ":"JWT"}"#),
            URL_SAFE_NO_PAD.encode(payload(""))
        );
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA512, secret.as_bytes());
        format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(ring::hmac::sign(&key, input.as_bytes()).as_ref())
        )
    };
    let bad = [
        (
            "alg none",
            format!(
                "{}.{}.",
                URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
                URL_SAFE_NO_PAD.encode(payload(""))
            ),
        ),
        ("HS512", hs512),
        (
            "wrong secret",
            sign(HS256, &payload(""), "another-secret-of-some-length-000000"),
        ),
        (
            "string user_id",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":"{ann}","token_type":"access","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "float user_id",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann}.5,"token_type":"access","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "refresh type",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"refresh","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "no jti",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{now}}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "expired now",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"access","exp":{now},"iat":{},"jti":"a"}}"#,
                    now - 10
                ),
                &secret,
            ),
        ),
        (
            "iat in the future",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{},"jti":"a"}}"#,
                    now + 600,
                    now + 61
                ),
                &secret,
            ),
        ),
        (
            "unknown user",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":999,"token_type":"access","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "too long",
            sign(
                HS256,
                &payload(&format!(r#","pad":"{}""#, "x".repeat(8200))),
                &secret,
            ),
        ),
        ("tampered", format!("{}x", &good[..good.len() - 1])),
    ];
    for (what, t) in &bad {
        let r = s.get("/api/v2/user/me/", Some(t)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{what}");
        assert_eq!(r.error_code(), "authentication_failed", "{what}");
    }
    // a bad token is refused on public routes too
    let r = s
        .post(
            "/api/v2/jwt/verify_token/",
            Some("garbage"),
            json!({"token": good}),
        )
        .await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "verify_token takes no authentication"
    );
    // iat up to 60 s ahead is fine; exp is exclusive
    let edge = sign(
        HS256,
        &format!(
            r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{},"jti":"e"}}"#,
            now + 1,
            now + 60
        ),
        &secret,
    );
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&edge)).await.status,
        StatusCode::OK
    );
    s.clock.advance(SECOND);
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&edge)).await.status,
        StatusCode::UNAUTHORIZED
    );
    // deleted user
    s.state
        .db
        .write_blocking(|tx| {
            hearth::db::users::soft_delete(tx, ann).map_err(hearth::db::DbError::from)
        })
        .unwrap();
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&good)).await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn grace_period_secret_after_rotation() {
    let s = TestServer::start().await;
    let ann = s.user("ann", None, false);
    let old = s.jwt(ann);
    let now = s.clock.now();
    s.state
        .db
        .write_blocking(|tx| {
            hearth::db::jwt::rotate(
                tx,
                &hearth::token::random_string(32),
                now,
                now + 100 * SECOND,
            )
            .map_err(hearth::db::DbError::from)
        })
        .unwrap();
    s.state.reload_keys().unwrap();
    let new = s.jwt(ann);
    for t in [&old, &new] {
        assert_eq!(
            s.get("/api/v2/user/me/", Some(t)).await.status,
            StatusCode::OK
        );
        assert_eq!(
            s.post("/api/v2/jwt/verify_token/", None, json!({"token": t}))
                .await
                .status,
            StatusCode::OK
        );
    }
    s.clock.advance(100 * SECOND);
    s.state.reload_keys().unwrap();
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&old)).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        s.post("/api/v2/jwt/verify_token/", None, json!({"token": old}))
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&new)).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn verify_token_checks_signature_and_time_only() {
    let s = TestServer::start().await;
    let secret = s.jwt_secret();
    let now = s.clock.now_secs();
    let verify = |body: serde_json::Value| {
        let s = &s;
        async move { s.post("/api/v2/jwt/verify_token/", None, body).await }
    };
    // user_id, ext_id and token_type are not checked
    let loose = sign(
        HS256,
        &format!(
            r#"{{"user_id":"nobody","token_type":"refresh","exp":{},"iat":{now},"ext_id":5}}"#,
            now + 60
        ),
        &secret,
    );
    let r = verify(json!({"token": loose})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.is_empty());
    for t in [
        sign(HS256, &format!(r#"{{"exp":{now},"iat":{now}}}"#), &secret),
        sign(
            r#"{"alg":"HS512"}"#,
            &format!(r#"{{"exp":{},"iat":{now}}}"#, now + 60),
            &secret,
        ),
        sign(
            HS256,
            &format!(r#"{{"exp":{},"iat":{now}}}"#, now + 60),
            "not-the-secret-not-the-secret-000",
        ),
        "a.b.c".into(),
        "opaque".into(),
        String::new(),
    ] {
        let r = verify(json!({ "token": t })).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{t}");
        assert!(r.text.is_empty());
    }
    for body in [
        json!([]),
        json!({}),
        json!({"token": 5}),
        json!({"token": null}),
        json!("x"),
    ] {
        assert_eq!(
            verify(body.clone()).await.status,
            StatusCode::BAD_REQUEST,
            "{body}"
        );
    }
    let r = s
        .call(Method::GET, "/api/v2/jwt/verify_token/", None, None)
        .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn opaque_tokens_and_scopes() {
    let s = TestServer::start().await;
    let ann = s.user("ann", None, false);
    let read = s.oauth_token(ann, "read");
    let rw = s.oauth_token(ann, "read write");
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&read)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&rw)).await.status,
        StatusCode::OK
    );
    // expired after its lifetime
    s.clock.advance(3600 * SECOND);
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&rw)).await.status,
        StatusCode::UNAUTHORIZED
    );
    // the write rule itself; a_read_only_token_may_not_write_anywhere walks every route
    let p = Principal {
        user_id: ann,
        is_staff: false,
        can_write: false,
    };
    let e = p.require_write().unwrap_err();
    let r = e.to_response();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("insufficient_scope")
    );
    assert!(
        Principal {
            can_write: true,
            ..p
        }
        .require_write()
        .is_ok()
    );
}

#[tokio::test]
async fn other_schemes_are_anonymous_and_empty_bearer_is_invalid() {
    let s = TestServer::start().await;
    let r = TestServer::read(
        s.client
            .get(format!("{}/api/v2/user/me/", s.url))
            .header("authorization", "Basic YTpi")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.error_code(), "not_authenticated");
    let r = TestServer::read(
        s.client
            .get(format!("{}/api/v2/user/me/", s.url))
            .header("authorization", "Bearer ")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.error_code(), "authentication_failed");
}

#[tokio::test]
async fn verify_token_sees_a_revocation_written_by_another_process_after_a_reload() {
    let s = TestServer::start().await;
    let uid = s.user("rev", None, false);
    let t = s.jwt(uid);
    let verify = |t: String| {
        let s = &s;
        async move {
            s.post("/api/v2/jwt/verify_token/", None, json!({"token": t}))
                .await
                .status
        }
    };
    assert_eq!(verify(t.clone()).await, StatusCode::OK);
    let jti = hearth::token::jwt::verify_access(
        &t,
        &[&hearth::token::jwt::Key::new(&s.jwt_secret())],
        s.clock.now_secs(),
    )
    .unwrap()
    .jti;
    let now = s.clock.now();
    s.state
        .db
        .write_blocking(move |tx| {
            hearth::db::jwt::revoke(tx, &jti, now + 3600 * hearth::clock::SECOND, now)
                .map_err(hearth::db::DbError::from)
        })
        .unwrap();
    // the server re-reads revocations with its keys (every 500 ms); force it here
    s.state.reload_keys().unwrap();
    assert_eq!(verify(t.clone()).await, StatusCode::UNAUTHORIZED);
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&t)).await.status,
        StatusCode::UNAUTHORIZED
    );
}

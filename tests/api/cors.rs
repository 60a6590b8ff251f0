//! CORS (SPEC §7): which pages on other origins may call hearth from a browser, and
//! what they can read of its answers, errors included.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]

use hearth::config::CorsOrigins;
use hearth::model::app::{App, AppGrant};
use hearth::token;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::{Resp, TestServer};

const APP: &str = "https://app.example.org";
const DEV: &str = "http://localhost:5173";

async fn cors_server() -> TestServer {
    TestServer::start_with(|c| {
        c.cors_origins = CorsOrigins::parse([APP, DEV]).unwrap();
        c.login_max_failures = 1;
    })
    .await
}

/// A request with these extra headers (each may repeat).
async fn send(
    s: &TestServer,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> Resp {
    let mut rb = s.client.request(method.clone(), format!("{}{path}", s.url));
    for (k, v) in headers {
        rb = rb.header(*k, *v);
    }
    if let Some(b) = body {
        rb = rb.header("content-type", "application/json").body(b);
    }
    let r = rb.send().await.unwrap();
    let (status, headers, path) = (r.status(), r.headers().clone(), r.url().path().to_owned());
    let text = r.text().await.unwrap();
    // checked against the OpenAPI document as the method sent (an OPTIONS is no GET)
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok());
    crate::conformance::check(Some(method.as_str()), &path, status.as_u16(), content_type, &text);
    Resp { status, headers, text }
}

/// A request with an `Origin` header and nothing else.
async fn from(s: &TestServer, method: Method, path: &str, origin: &str) -> Resp {
    send(s, method, path, &[("origin", origin)], None).await
}

async fn preflight(s: &TestServer, path: &str, origin: &str, requested: &str) -> Resp {
    let mut headers = vec![("origin", origin), ("access-control-request-method", "POST")];
    if !requested.is_empty() {
        headers.push(("access-control-request-headers", requested));
    }
    send(s, Method::OPTIONS, path, &headers, None).await
}

fn vary_origin(r: &Resp) -> bool {
    r.headers
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|v| v.trim().eq_ignore_ascii_case("origin"))
}

fn no_cors_headers(r: &Resp, what: &str) {
    for h in [
        "access-control-allow-origin",
        "access-control-allow-methods",
        "access-control-allow-headers",
        "access-control-expose-headers",
        "access-control-max-age",
        "access-control-allow-credentials",
    ] {
        assert!(r.header(h).is_none(), "{what}: {h} {:?}", r.header(h));
    }
}

fn allowed(r: &Resp, origin: &str, what: &str) {
    assert_eq!(r.header("access-control-allow-origin"), Some(origin), "{what}");
    assert_eq!(
        r.header("access-control-expose-headers"),
        Some("X-Request-Id, Retry-After, WWW-Authenticate"),
        "{what}"
    );
    assert!(vary_origin(r), "{what}: Vary: Origin");
    assert!(
        r.header("access-control-allow-credentials").is_none(),
        "{what}: bearer tokens, never cookies"
    );
}

/// The `Allow` list a plain `OPTIONS` (no preflight) gets with its 405: the methods a
/// preflight must name.
async fn allow_of(s: &TestServer, path: &str) -> String {
    let r = send(s, Method::OPTIONS, path, &[], None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
    r.header("allow").unwrap().to_owned()
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_names_the_paths_methods_without_authentication() {
    let s = cors_server().await;
    let ann = s.user("ann", None, false);
    let jwt = s.jwt(ann);
    let course = s
        .post(
            "/api/v2/course/",
            Some(&jwt),
            json!({"name": "Bread", "type": "structured", "categories": [s.category("Food")]}),
        )
        .await;
    let course_id = course.json()["id"].as_i64().unwrap_or(1);
    // reads and writes, public, user-only and staff-only paths, files: a preflight never
    // authenticates, and names what the declaration serves
    let paths = [
        "/api/v2/course/".to_owned(),
        format!("/api/v2/course/{course_id}/"),
        format!("/api/v2/course/{course_id}/join/"),
        "/api/v2/course/999/section/7/".to_owned(),
        "/api/v2/user/me/".to_owned(),
        "/api/v2/user/1/follow/".to_owned(),
        "/api/v2/reaction/".to_owned(),
        "/api/v2/dynamic_preference/".to_owned(),
        "/api/v2/discussion/".to_owned(),
        "/api/v2/comment/1/restore/".to_owned(),
        "/api/v2/jwt/verify_token/".to_owned(),
        "/oauth/token/".to_owned(),
        "/oauth/revoke_token/".to_owned(),
        "/static/default/avatar.svg".to_owned(),
        "/media/course/1/a.png".to_owned(),
    ];
    for path in &paths {
        for origin in [APP, DEV] {
            let r = preflight(&s, path, origin, "authorization, content-type").await;
            assert_eq!(r.status, StatusCode::NO_CONTENT, "{path} {origin}: {}", r.text);
            assert!(r.text.is_empty());
            assert_eq!(r.header("access-control-allow-origin"), Some(origin));
            assert_eq!(
                r.header("access-control-allow-methods").unwrap(),
                allow_of(&s, path).await,
                "{path}: the declaration's Allow list"
            );
            assert_eq!(
                r.header("access-control-allow-headers"),
                Some("Authorization, Content-Type, X-Request-Id"),
                "{path}"
            );
            assert_eq!(r.header("access-control-max-age"), Some("600"));
            assert!(vary_origin(&r), "{path}");
            assert!(r.header("access-control-allow-credentials").is_none());
            assert!(r.header("x-request-id").is_some());
        }
    }
    assert_eq!(
        preflight(&s, "/api/v2/course/", APP, "").await.header("access-control-allow-methods"),
        Some("GET, HEAD, POST")
    );
    // nothing was changed by any of it
    let r = s.get(&format!("/api/v2/course/{course_id}/"), Some(&jwt)).await;
    assert_eq!(r.json()["name"], "Bread");
    s.stop().await;
}

#[tokio::test]
async fn origins_that_are_not_exactly_an_allowed_one_get_403_and_no_cors_headers() {
    let s = cors_server().await;
    for origin in [
        "https://evil.example",
        "null",
        "https://app.example.org.evil.net",
        "https://evil-app.example.org",
        "https://app.example.or",
        "https://app.example.org:8443",
        "https://app.example.org:443",
        "http://app.example.org",
        "HTTPS://APP.EXAMPLE.ORG",
        "https://App.example.org",
        "https://app.example.org/",
        "http://localhost:51730",
        "http://localhost:517",
        "",
    ] {
        for path in ["/api/v2/course/", "/api/v2/user/me/", "/oauth/token/"] {
            let r = preflight(&s, path, origin, "authorization").await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{origin:?} {path}");
            assert_eq!(r.error_code(), "permission_denied", "{origin:?}");
            assert!(r.json()["detail"].as_str().unwrap().contains("origin"));
            no_cors_headers(&r, origin);
            assert!(vary_origin(&r), "{origin:?}");
            // and its real requests get nothing a browser would let the page read
            let r = send(&s, Method::GET, path, &[("origin", origin)], None).await;
            no_cors_headers(&r, origin);
            assert!(vary_origin(&r), "{origin:?} {path}");
        }
    }
    // two Origin headers are no origin
    let r = send(
        &s,
        Method::OPTIONS,
        "/api/v2/course/",
        &[("origin", APP), ("origin", DEV), ("access-control-request-method", "GET")],
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    no_cors_headers(&r, "two origins");
    s.stop().await;
}

#[tokio::test]
async fn preflights_on_unknown_api_paths_are_204_elsewhere_404_and_page_navigations_get_no_cors() {
    let s = cors_server().await;
    // under /api/v2/ (SPEC §7, turn 3): 204 for an allowed origin, so the page gets to
    // read the 404 that follows, with its CORS headers; 403 for any other origin
    for path in ["/api/v2/nowhere/", "/api/v2/course/x/", "/api/v2/course", "/api/v2/live_stream/"]
    {
        let r = preflight(&s, path, APP, "authorization").await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{path}");
        assert_eq!(r.header("access-control-allow-origin"), Some(APP), "{path}");
        assert!(r.header("access-control-allow-methods").unwrap().contains("GET"), "{path}");
        let r = send(&s, Method::GET, path, &[("origin", APP)], None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(r.header("access-control-allow-origin"), Some(APP), "{path}");
        let r = preflight(&s, path, "https://evil.example", "authorization").await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}");
        no_cors_headers(&r, path);
    }
    for path in ["/oauth/token", "/oauth/token/x/"] {
        let r = preflight(&s, path, APP, "authorization").await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert!(r.header("access-control-allow-methods").is_none(), "{path}");
    }
    // the authorization endpoint and the account pages are navigations: never CORS,
    // whatever is asked, and nothing there varies by origin
    for path in [
        "/oauth/authorize",
        "/oauth/authorize/",
        "/accounts/login/",
        "/accounts/logout/",
        "/healthz",
    ] {
        let r = preflight(&s, path, APP, "authorization").await;
        assert_ne!(r.status, StatusCode::NO_CONTENT, "{path}");
        no_cors_headers(&r, path);
        let r = send(&s, Method::GET, path, &[("origin", APP)], None).await;
        no_cors_headers(&r, path);
        assert!(!vary_origin(&r), "{path}");
    }
    s.stop().await;
}

#[tokio::test]
async fn requested_headers_are_allowed_when_safe_never_cookie_and_bounded() {
    let s = cors_server().await;
    let cases: [(&str, &str); 5] = [
        ("", "Authorization, Content-Type, X-Request-Id"),
        (
            "Authorization, X-Community-Lang, accept-language",
            "Authorization, Content-Type, X-Request-Id, x-community-lang, accept-language",
        ),
        ("cookie", "Authorization, Content-Type, X-Request-Id"),
        (
            "Cookie, X-Ok, proxy-authorization, sec-fetch-site, x bad",
            "Authorization, Content-Type, X-Request-Id, x-ok",
        ),
        ("content-type,CONTENT-TYPE", "Authorization, Content-Type, X-Request-Id"),
    ];
    for (requested, answer) in cases {
        let r = preflight(&s, "/api/v2/user/me/", APP, requested).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{requested}");
        assert_eq!(r.header("access-control-allow-headers"), Some(answer), "{requested}");
    }
    // a 10 KB list, a cookie hidden in it: a bounded answer without the cookie
    let many: Vec<String> = (0..1500).map(|i| format!("x-h{i}")).collect();
    let list = format!("{}, cookie", many.join(", "));
    assert!(list.len() >= 10_000);
    let r = preflight(&s, "/api/v2/user/me/", APP, &list).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let allow = r.header("access-control-allow-headers").unwrap();
    assert!(allow.len() < 400, "{allow}");
    assert!(!allow.to_ascii_lowercase().contains("cookie"));
    s.stop().await;
}

/// Inserts a public password-grant app; returns its client id.
fn password_app(s: &TestServer) -> String {
    let id = token::random_string(12);
    let app = App {
        id: 0,
        client_id: id.clone(),
        secret_hash: token::storage_hash(&token::new_token()).to_vec(),
        name: "spa".into(),
        description: String::new(),
        image: String::new(),
        grant: AppGrant::Password,
        confidential: false,
        skip_consent: false,
        redirect_uris: vec![],
        created_at: s.clock.now(),
    };
    s.state
        .db
        .write_blocking(|tx| hearth::db::apps::insert(tx, &app).map_err(hearth::db::DbError::from))
        .unwrap();
    id
}

#[tokio::test]
async fn an_allowed_origin_can_read_every_answer_errors_included() {
    let s = cors_server().await;
    let ann = s.user("ann", Some("pw-ann"), false);
    let jwt = s.jwt(ann);
    let auth = format!("Bearer {jwt}");
    let big = format!(r#"{{"name": "{}"}}"#, "x".repeat(1024 * 1024 + 10)).into_bytes();
    let client_id = password_app(&s);
    let wrong = format!("grant_type=password&client_id={client_id}&username=ann&password=nope");
    // (method, path, bearer, JSON body, status)
    type Case<'a> = (Method, &'a str, bool, Option<Vec<u8>>, StatusCode);
    let cases: Vec<Case> = vec![
        (Method::GET, "/api/v2/reaction/", false, None, StatusCode::OK),
        (Method::GET, "/api/v2/user/me/", true, None, StatusCode::OK),
        (Method::GET, "/api/v2/user/me/", false, None, StatusCode::UNAUTHORIZED),
        (Method::GET, "/api/v2/nowhere/", true, None, StatusCode::NOT_FOUND),
        (Method::GET, "/api/v2/course/999/", true, None, StatusCode::NOT_FOUND),
        (Method::PUT, "/api/v2/course/", true, None, StatusCode::METHOD_NOT_ALLOWED),
        (Method::POST, "/api/v2/course/", true, Some(big), StatusCode::PAYLOAD_TOO_LARGE),
        (Method::POST, "/api/v2/course/", true, Some(b"{".to_vec()), StatusCode::BAD_REQUEST),
        (Method::GET, "/static/default/avatar.svg", false, None, StatusCode::OK),
        (Method::GET, "/media/course/1/none.png", false, None, StatusCode::NOT_FOUND),
    ];
    for (method, path, bearer, body, status) in cases {
        let mut headers = vec![("origin", APP)];
        if bearer {
            headers.push(("authorization", auth.as_str()));
        }
        let r = send(&s, method.clone(), path, &headers, body).await;
        assert_eq!(r.status, status, "{method} {path}: {}", r.text);
        allowed(&r, APP, &format!("{method} {path}"));
        if status == StatusCode::UNAUTHORIZED {
            assert!(r.header("www-authenticate").is_some());
        }
    }
    // 429 from the token endpoint, which a single-page app calls
    let token = |body: String| {
        let s = &s;
        async move {
            TestServer::read(
                s.client
                    .post(format!("{}/oauth/token/", s.url))
                    .header("origin", DEV)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    assert_eq!(token(wrong.clone()).await.status, StatusCode::BAD_REQUEST);
    let r = token(wrong).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text);
    assert!(r.header("retry-after").is_some());
    allowed(&r, DEV, "429");
    // 503: the disk is full
    s.state.db.with_writer(|c| {
        let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        c.execute_batch(&format!("PRAGMA max_page_count = {pages}")).unwrap();
    });
    let post = format!(r#"{{"text": "{}"}}"#, "y".repeat(200_000)).into_bytes();
    let r = send(
        &s,
        Method::POST,
        "/api/v2/post/",
        &[("origin", APP), ("authorization", auth.as_str())],
        Some(post),
    )
    .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    allowed(&r, APP, "503");
    // without an Origin: nothing to allow, but the answer still varies by it
    let r = s.get("/api/v2/reaction/", None).await;
    no_cors_headers(&r, "no origin");
    assert!(vary_origin(&r));
    s.stop().await;
}

#[tokio::test]
async fn a_star_allows_every_origin_and_no_origin_configured_allows_none() {
    let any = TestServer::start_with(|c| c.cors_origins = CorsOrigins::Any).await;
    for origin in ["https://anything.example", "null", "http://127.0.0.1:9"] {
        let r = preflight(&any, "/api/v2/user/me/", origin, "").await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{origin}");
        assert_eq!(r.header("access-control-allow-origin"), Some("*"));
        let r = from(&any, Method::GET, "/api/v2/user/me/", origin).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
        allowed(&r, "*", origin);
    }
    any.stop().await;

    // the default: same-origin only. Nothing varies by origin; a preflight (which only
    // a page on another origin sends) is refused, a plain OPTIONS is still a 405
    let none = TestServer::start().await;
    let r = preflight(&none, "/api/v2/user/me/", APP, "").await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    no_cors_headers(&r, "default");
    assert!(!vary_origin(&r));
    let r = from(&none, Method::GET, "/api/v2/reaction/", APP).await;
    assert_eq!(r.status, StatusCode::OK);
    no_cors_headers(&r, "default");
    assert!(!vary_origin(&r));
    let r = from(&none, Method::OPTIONS, "/api/v2/user/me/", APP).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    none.stop().await;
}

#[tokio::test]
async fn parallel_preflights_and_requests_from_many_origins_each_get_their_own_answer() {
    let s = cors_server().await;
    let origins = [APP, DEV, "https://evil.example", "null"];
    let answers = futures_util::future::join_all((0..64).map(|i| {
        let s = &s;
        let origin = origins[i % origins.len()];
        async move {
            let r = if i % 2 == 0 {
                preflight(s, "/api/v2/reaction/", origin, "").await
            } else {
                from(s, Method::GET, "/api/v2/reaction/", origin).await
            };
            (origin, r)
        }
    }))
    .await;
    for (origin, r) in answers {
        let ok = origin == APP || origin == DEV;
        assert_eq!(r.header("access-control-allow-origin"), ok.then_some(origin), "{origin}");
    }
    s.stop().await;
}

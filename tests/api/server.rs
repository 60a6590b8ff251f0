//! The server skeleton: health, errors of SPEC §3, request ids, static files, schema.

use reqwest::{Method, StatusCode};

use crate::common::TestServer;

#[tokio::test]
async fn healthz_answers_ok() {
    let s = TestServer::start().await;
    let r = s.get("/healthz", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), serde_json::json!({"status": "ok", "writable": true}));
    assert_eq!(r.header("content-type"), Some("application/json; charset=utf-8"));
}

#[tokio::test]
async fn livez_answers_without_the_database() {
    let s = TestServer::start().await;
    let r = s.get("/livez", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), serde_json::json!({"status": "ok"}));
    assert_eq!(
        s.call(Method::POST, "/livez", None, None).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn unknown_paths_are_404_in_the_api_error_shape() {
    let s = TestServer::start().await;
    for path in ["/nope", "/api/v2/nope/", "/healthz/", "/api/v2/schema"] {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(r.error_code(), "not_found", "{path}");
        assert_eq!(r.json()["detail"], "Not found.");
    }
}

#[tokio::test]
async fn wrong_method_is_405_with_allow() {
    let s = TestServer::start().await;
    let r = s.delete("/healthz", None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
    assert_eq!(r.error_code(), "method_not_allowed");
}

#[tokio::test]
async fn request_id_is_echoed_or_made() {
    let s = TestServer::start().await;
    let r = s
        .client
        .get(format!("{}/healthz", s.url))
        .header("x-request-id", "abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "abc-123");
    let r = s.client.get(format!("{}/nope", s.url)).send().await.unwrap();
    assert!(r.headers()["x-request-id"].len() >= 8);
}

#[tokio::test]
async fn static_reaction_images_and_defaults_are_served() {
    let s = TestServer::start().await;
    for p in [
        "/static/reactions/like.svg",
        "/static/reactions/angry.svg",
        "/static/default/avatar.svg",
        "/static/default/course.svg",
    ] {
        let r = s.get(p, None).await;
        assert_eq!(r.status, StatusCode::OK, "{p}");
        assert_eq!(r.header("content-type"), Some("image/svg+xml"));
        assert!(r.text.starts_with("<svg"));
    }
    assert_eq!(s.get("/static/reactions/nope.svg", None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/media/course/1/x.png", None).await.status, StatusCode::NOT_FOUND);
}

/// The routes outside the API (health, schema, files, JWT verification) look at no
/// bearer token: a bad one changes nothing there, where an API read would be 401.
#[tokio::test]
async fn routes_outside_the_api_ignore_bearer_tokens() {
    let s = TestServer::start().await;
    let now = s.clock.now();
    s.db_write(move |tx| hearth::db::media::put(tx, "user/1/a.png", "image/png", b"png!", now));
    let bad = Some("not-a-token.at.all");
    for path in [
        "/livez",
        "/healthz",
        "/readyz",
        "/api/v2/schema/",
        "/static/reactions/like.svg",
        "/media/user/1/a.png",
    ] {
        assert_eq!(s.get(path, bad).await.status, StatusCode::OK, "{path}");
    }
    let media = s.get("/media/user/1/a.png", bad).await;
    assert_eq!(media.text, "png!");
    assert_eq!(media.header("content-type"), Some("image/png"));
    assert_eq!(media.header("cache-control"), Some("public, max-age=31536000, immutable"));
    let r = s
        .post(
            "/api/v2/jwt/verify_token/",
            bad,
            serde_json::json!({"token": s.jwt(s.user("ann", None, false))}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    // the same bad token on an API read is refused
    assert_eq!(s.get("/api/v2/reaction/", bad).await.status, StatusCode::UNAUTHORIZED);
}

/// A file path is the rest of the URL: never empty and never ending in `/`; `HEAD` is
/// the `GET` without its body.
#[tokio::test]
async fn file_paths_are_whole_and_head_is_served() {
    let s = TestServer::start().await;
    for path in [
        "/static",
        "/static/",
        "/static/reactions/",
        "/static/reactions//like.svg",
        "/media/",
        "/media/user/1/",
    ] {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(r.error_code(), "not_found", "{path}");
    }
    let r = s.call(Method::HEAD, "/static/reactions/like.svg", None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("content-type"), Some("image/svg+xml"));
    assert!(r.text.is_empty());
}

/// Every path answers a method it does not serve with 405 and the methods it does, in
/// the one fixed order (GET, HEAD, POST, PUT, PATCH, DELETE).
#[tokio::test]
async fn other_methods_are_405_with_the_allow_list() {
    let s = TestServer::start().await;
    for (method, path, allow) in [
        (Method::POST, "/livez", "GET, HEAD"),
        (Method::PUT, "/readyz", "GET, HEAD"),
        (Method::POST, "/api/v2/schema/", "GET, HEAD"),
        (Method::DELETE, "/static/reactions/like.svg", "GET, HEAD"),
        (Method::POST, "/media/user/1/a.png", "GET, HEAD"),
        (Method::DELETE, "/api/v2/user/me/", "GET, HEAD"),
        (Method::POST, "/api/v2/user/1/", "GET, HEAD, PUT, PATCH, DELETE"),
        (Method::POST, "/api/v2/user/1/followers/", "GET, HEAD"),
        (Method::GET, "/api/v2/user/1/follow/", "POST"),
        (Method::POST, "/api/v2/user/1/is_follower/", "GET, HEAD"),
        (Method::POST, "/api/v2/reaction/", "GET, HEAD"),
        (Method::DELETE, "/api/v2/reaction/1/", "GET, HEAD"),
        (Method::PUT, "/api/v2/dynamic_preference/", "GET, HEAD, PATCH"),
        (Method::PATCH, "/api/v2/dynamic_preference/search/", "GET, HEAD"),
        (Method::GET, "/api/v2/jwt/verify_token/", "POST"),
        (Method::PUT, "/oauth/authorize/", "GET, HEAD, POST"),
        (Method::DELETE, "/oauth/authorize", "GET, HEAD, POST"),
        (Method::GET, "/oauth/token/", "POST"),
        (Method::PUT, "/oauth/revoke_token/", "POST"),
        (Method::DELETE, "/accounts/login/", "GET, HEAD, POST"),
        (Method::GET, "/accounts/logout/", "POST"),
    ] {
        let r = s.call(method.clone(), path, None, None).await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_eq!(r.header("allow"), Some(allow), "{method} {path}");
        assert_eq!(r.error_code(), "method_not_allowed", "{method} {path}");
    }
}

#[tokio::test]
async fn schema_is_openapi_31() {
    let s = TestServer::start().await;
    let r = s.get("/api/v2/schema/", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["openapi"], "3.1.0");
    assert!(r.json()["paths"]["/healthz"].is_object());
}

#[tokio::test]
async fn graceful_shutdown_finishes_and_stops_listening() {
    let s = TestServer::start().await;
    let url = s.url.clone();
    assert_eq!(s.get("/healthz", None).await.status, StatusCode::OK);
    s.stop().await;
    let fresh = reqwest::Client::new();
    assert!(fresh.get(format!("{url}/healthz")).send().await.is_err());
}

#[tokio::test]
async fn a_taken_port_is_a_clear_error() {
    let held = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = held.local_addr().unwrap();
    let err = hearth::server::bind(addr).await.unwrap_err();
    assert!(err.to_string().contains("already in use"), "{err}");
}

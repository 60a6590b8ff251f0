//! Opaque OAuth tokens and their scopes, and `Authorization` headers that are not bearer
//! tokens.

use hearth::clock::SECOND;
use hearth::http::auth::Principal;
use reqwest::StatusCode;

use crate::common::TestServer;

#[tokio::test]
async fn opaque_tokens_and_scopes() {
    let s = TestServer::start().await;
    let ann = s.user("ann", None, false);
    let read = s.oauth_token(ann, "read");
    let rw = s.oauth_token(ann, "read write");
    assert_eq!(s.get("/api/v2/user/me/", Some(&read)).await.status, StatusCode::OK);
    assert_eq!(s.get("/api/v2/user/me/", Some(&rw)).await.status, StatusCode::OK);
    // expired after its lifetime
    s.clock.advance(3600 * SECOND);
    assert_eq!(s.get("/api/v2/user/me/", Some(&rw)).await.status, StatusCode::UNAUTHORIZED);
    // the write rule itself; a_read_only_token_may_not_write_anywhere walks every route
    let p = Principal { user_id: ann, is_staff: false, can_write: false };
    let e = p.require_write().unwrap_err();
    let r = e.to_response();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(r.headers()["www-authenticate"].to_str().unwrap().contains("insufficient_scope"));
    assert!(Principal { can_write: true, ..p }.require_write().is_ok());
}

#[tokio::test]
async fn other_schemes_are_anonymous_and_empty_bearer_is_invalid() {
    let s = TestServer::start().await;
    for (authorization, code) in
        [("Basic YTpi", "not_authenticated"), ("Bearer ", "authentication_failed")]
    {
        let rb = s.client.get(format!("{}/api/v2/user/me/", s.url));
        let sent = rb.header("authorization", authorization).send().await;
        let r = TestServer::read(sent.unwrap()).await;
        assert_eq!(r.error_code(), code, "{authorization}");
    }
}

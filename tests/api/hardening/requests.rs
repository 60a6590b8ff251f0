//! Requests that are cheap to send and were dear to serve (issue 27): query strings
//! with thousands of parameters, and HTTP/1.1 requests with no or two `Host` headers.

use reqwest::StatusCode;

use crate::common::TestServer;

fn many_params(n: usize) -> String {
    (0..n).map(|i| format!("p{i}=1")).collect::<Vec<_>>().join("&")
}

/// Every route's query string carries at most 256 parameters: more is 400 `parse_error`,
/// before the handler runs; 256 are served.
#[tokio::test]
async fn a_query_with_too_many_parameters_is_400() {
    let s = TestServer::start().await;
    for path in ["/api/v2/discussion/", "/api/v2/comment/", "/oauth/authorize/", "/accounts/login/"]
    {
        let r = TestServer::read(
            s.client.get(format!("{}{path}?{}", s.url, many_params(4000))).send().await.unwrap(),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {}", r.text);
        assert!(
            r.text.contains("at most 256") || r.text.contains("more than 256"),
            "{path}: {}",
            r.text
        );
    }
    let r = s.get(&format!("/api/v2/discussion/?{}", many_params(257)), None).await;
    r.assert_error(StatusCode::BAD_REQUEST, "parse_error");
    let r = s.get(&format!("/api/v2/discussion/?{}", many_params(256)), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

/// RFC 9112 §3.2: an HTTP/1.1 request without `Host`, or any request with two (or a
/// `Host` that is no host and port), is 400 and the connection closes; HTTP/1.0 may
/// leave `Host` out.
#[tokio::test]
async fn host_header_rules() {
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    let s = TestServer::start().await;
    let cases: [(&str, &str); 6] = [
        ("GET /healthz HTTP/1.1\r\n\r\n", "400 Bad Request"),
        ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "400 Bad Request"),
        ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", "400 Bad Request"),
        ("GET /healthz HTTP/1.1\r\nHost: user@evil.example\r\n\r\n", "400 Bad Request"),
        ("GET /healthz HTTP/1.1\r\nHost: a.example:8080\r\n\r\n", "200 OK"),
        ("GET /healthz HTTP/1.0\r\n\r\n", "200 OK"),
    ];
    for (request, want) in cases {
        let mut c = super::connect(&s).await;
        c.write_all(request.as_bytes()).await.unwrap();
        let (got, closed) = super::read_until_closed(&mut c, Duration::from_secs(5)).await;
        let status = got.lines().next().unwrap_or("");
        assert!(status.ends_with(want), "{request:?}: {got}");
        if want.starts_with("400") {
            assert!(closed, "{request:?}: the connection stays open");
            assert!(got.contains("RFC 9112"), "{got}");
            assert!(got.contains("x-request-id"), "still answered like any request: {got}");
        }
    }
}

/// Issue 27, High 2: 260 connections from 5 addresses that each declared 1 MiB to the
/// anonymous `verify_token` and sent 10 bytes held the whole 256 MiB body budget for
/// 28 s. Now `verify_token` reads at most 16 KiB (413 before reading more) and OAuth
/// forms 16 KiB, and no client address holds more than 1/8 of the budget (503 for that
/// address only; trusted proxies' clients each count as their own address).
#[tokio::test]
async fn no_client_address_can_hold_the_body_budget() {
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    let s = TestServer::start_with(|c| {
        c.max_body_memory = 8 * 1024 * 1024;
        c.trusted_proxies = hearth::config::loopback_proxies();
    })
    .await;
    let budget = s.state.body_budget.clone();
    // the attack's request: a declared megabyte at an anonymous route, 10 bytes sent
    for (path, ct) in [
        ("/api/v2/jwt/verify_token/", "application/json"),
        ("/oauth/token/", "application/x-www-form-urlencoded"),
        ("/oauth/revoke_token/", "application/x-www-form-urlencoded"),
    ] {
        let mut c = super::connect(&s).await;
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n0123456789",
            1 << 20
        );
        c.write_all(head.as_bytes()).await.unwrap();
        let (got, _) = super::read_until_closed(&mut c, Duration::from_secs(5)).await;
        assert!(got.starts_with("HTTP/1.1 413"), "{path}: {got}");
        assert_eq!(budget.held(), 0, "{path}: nothing was reserved");
    }
    // what verify_token takes: a JWT (8 KiB at most) in a JSON object
    let r = s
        .post("/api/v2/jwt/verify_token/", None, serde_json::json!({"token": "x".repeat(8192)}))
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
    let r = s
        .post("/api/v2/jwt/verify_token/", None, serde_json::json!({"token": "x".repeat(17_000)}))
        .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.text);

    // one address holds at most 1 MiB (1/8) however it spreads it over connections
    let (_, jwt) = s.login("ann");
    let a = "2001:db8:1:2::1";
    let first =
        super::partial_post_as(&s, Some(a), "/api/v2/post/", Some(&jwt), 600 * 1024, b"{").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while budget.held() < 600 * 1024 && tokio::time::Instant::now() < deadline {
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(budget.held(), 600 * 1024);
    // another address of the same /64 is the same client
    let mut second = super::partial_post_as(
        &s,
        Some("2001:db8:1:2::2"),
        "/api/v2/post/",
        Some(&jwt),
        600 * 1024,
        b"{",
    )
    .await;
    let (got, _) = super::read_until_closed(&mut second, Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 503"), "{got}");
    assert!(got.to_ascii_lowercase().contains("retry-after:"), "{got}");
    // another client is served meanwhile
    let mut other = super::partial_post_as(
        &s,
        Some("2001:db8:1:3::1"),
        "/api/v2/post/",
        Some(&jwt),
        600 * 1024,
        b"{",
    )
    .await;
    let rest = vec![b' '; 600 * 1024 - 2];
    other.write_all(&rest).await.unwrap();
    other.write_all(b"}").await.unwrap();
    let (got, _) = super::read_until_closed(&mut other, Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 400"), "the body was read (and has no text): {got}");
    drop(first);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while budget.held() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(budget.held(), 0);
}

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

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

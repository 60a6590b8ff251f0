//! What one connection can make the server hold (issue 27, Medium 6: 1,000 partial
//! 400 KB headers took RSS from 13 to 410 MB; 600 clients that pipelined 3 requests and
//! never read took it to 871 MB): a header past `config::MAX_HEADER_BYTES` is 431 and
//! the connection closed at once, a pipelined request is not served while the
//! response before it is still unsent, and an unsent response holds its size of the
//! memory budget (an address past its share gets 503 for the next large page).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::{Instant, sleep, timeout};

use crate::common::TestServer;
use hearth::config::MAX_HEADER_BYTES;

#[tokio::test]
async fn a_header_past_the_cap_is_431_and_the_connection_closed_at_once() {
    let s = TestServer::start().await;
    // a header that never ends, 100 KB so far: hyper's default buffer (~400 KB) held it
    // until the header timeout
    let mut c = super::connect(&s).await;
    let mut head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ".to_vec();
    head.resize(head.len() + 100_000, b'a');
    let _ = c.write_all(&head).await;
    let started = Instant::now();
    let (got, closed) = super::read_until_closed(&mut c, Duration::from_secs(5)).await;
    assert!(closed, "still open after {:?}", started.elapsed());
    assert!(got.starts_with("HTTP/1.1 431"), "{got:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    // headers that fit are served: a JWT and a large cookie, 3/4 of the cap in all
    let mut c = super::connect(&s).await;
    let cookie = "c".repeat(MAX_HEADER_BYTES * 3 / 4);
    let req = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nCookie: k={cookie}\r\n\r\n");
    c.write_all(req.as_bytes()).await.unwrap();
    assert!(super::read_response(&mut c).await.starts_with("HTTP/1.1 200"));
}

/// A client that reads (almost) nothing: a 4 KB receive buffer.
async fn slow_reader(s: &TestServer) -> tokio::net::TcpStream {
    let addr = s.url.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(addr).await.unwrap()
}

#[tokio::test]
async fn a_pipelined_request_waits_until_the_response_before_it_is_sent() {
    let s = TestServer::start().await;
    let (_, ann) = s.login("ann");
    // a list page of ~12.6 MB (each text twice: text and summary): more than the
    // socket buffers take (4 MB on Linux at most) for a client that reads nothing
    let text = "x".repeat(900_000);
    for _ in 0..7 {
        s.create_id("/api/v2/post/", &ann, json!({ "text": text })).await;
    }
    let mut c = slow_reader(&s).await;
    let body = r#"{"text": "pipelined"}"#;
    let pipelined = format!(
        "GET /api/v2/post/?limit=12 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ann}\r\n\r\n\
         POST /api/v2/post/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ann}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    c.write_all(pipelined.as_bytes()).await.unwrap();
    // the first response has started (its first bytes are here), and stalls
    let mut first = [0u8; 12];
    timeout(Duration::from_secs(10), c.read_exact(&mut first)).await.unwrap().unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    // while it is unsent, the write behind it is not served (nothing runs it: a
    // response that never leaves keeps its connection's next request unread)
    sleep(Duration::from_millis(500)).await;
    let count = |s: &TestServer| {
        s.db_read(|c| c.query_row("SELECT count(*) FROM contribution", [], |r| r.get::<_, i64>(0)))
    };
    assert_eq!(count(&s), 7, "the pipelined POST ran before the response before it was sent");
    // the unsent page holds its size of the memory budget, in its address's share
    let page = s.state.body_budget.held();
    assert!(page > 10_000_000, "{page}");
    // two more clients at the address ask for the page and read nothing: the first is
    // served (two pages are within the address's share, 32 MiB of the default 256),
    // the next one is 503
    let mut second = slow_reader(&s).await;
    let get = format!(
        "GET /api/v2/post/?limit=12 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ann}\r\n\r\n"
    );
    second.write_all(get.as_bytes()).await.unwrap();
    timeout(Duration::from_secs(10), second.read_exact(&mut first)).await.unwrap().unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    let mut third = slow_reader(&s).await;
    third.write_all(get.as_bytes()).await.unwrap();
    let got = super::read_response(&mut third).await;
    assert!(got.starts_with("HTTP/1.1 503"), "{}", &got[..got.len().min(300)]);
    assert!(
        got.contains("service_unavailable") && got.to_ascii_lowercase().contains("retry-after")
    );
    assert!(got.to_ascii_lowercase().contains("connection: close"), "{got}");
    assert_eq!(s.state.body_budget.held(), 2 * page);
    // the client reads: the first response, then the second is served
    let mut tail = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let created = |t: &[u8]| t.windows(12).any(|w| w == b"HTTP/1.1 201");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !created(&tail) && Instant::now() < deadline {
        let n = timeout(Duration::from_secs(10), c.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "closed");
        // what is read last, and enough before it to hold a status line cut in two
        let keep = tail.len().saturating_sub(16);
        tail.drain(..keep);
        tail.extend_from_slice(&buf[..n]);
    }
    assert!(created(&tail));
    assert_eq!(count(&s), 8);
    // read or gone, an unsent page gives its bytes back
    drop(second);
    let deadline = Instant::now() + Duration::from_secs(5);
    while s.state.body_budget.held() > 0 && Instant::now() < deadline {
        sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(s.state.body_budget.held(), 0);
    assert_eq!(s.get("/api/v2/post/?limit=1", Some(&ann)).await.status, StatusCode::OK);
}

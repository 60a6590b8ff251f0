//! What an attacker tries against the connection and body limits (SPEC §3), with the
//! timeouts shortened through `Config`: trickled headers and bodies, idle keep-alive,
//! the connection caps, bodies before authentication, the body memory budget, and
//! storage faults.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, sleep, timeout};

use crate::common::TestServer;

async fn connect(s: &TestServer) -> TcpStream {
    TcpStream::connect(s.url.trim_start_matches("http://")).await.unwrap()
}

/// Reads until the peer closes (or `limit` passes): what was received, and whether it
/// closed.
async fn read_until_closed(c: &mut TcpStream, limit: Duration) -> (String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let end = Instant::now() + limit;
    loop {
        match timeout(end.saturating_duration_since(Instant::now()), c.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&got).into(), true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&got).into(), false),
        }
    }
}

/// Reads one response head and its Content-Length body from a keep-alive connection.
async fn read_response(c: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = timeout(Duration::from_secs(5), c.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "closed before a response");
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got).to_string();
        if let Some(head_end) = text.find("\r\n\r\n") {
            let len: usize = text[..head_end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if got.len() >= head_end + 4 + len {
                return text;
            }
        }
    }
}

const HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

#[tokio::test]
async fn trickled_headers_are_cut_at_the_header_timeout() {
    let s = TestServer::start_with(|c| c.header_read_timeout = Duration::from_millis(300)).await;
    // a new connection that sends nothing
    let mut silent = connect(&s).await;
    // one that starts a request and trickles the rest
    let mut slow = connect(&s).await;
    slow.write_all(b"GET /healthz HTTP/1.1\r\n").await.unwrap();
    let started = Instant::now();
    for _ in 0..3 {
        sleep(Duration::from_millis(100)).await;
        let _ = slow.write_all(b"X-A: b\r\n").await;
    }
    let (got, closed) = read_until_closed(&mut slow, Duration::from_secs(3)).await;
    assert!(closed, "the trickling client was not cut off");
    assert!(!got.contains("200 OK"), "{got}");
    assert!(started.elapsed() < Duration::from_secs(2));
    let (_, closed) = read_until_closed(&mut silent, Duration::from_secs(3)).await;
    assert!(closed, "a silent new connection was not closed");
    // the server still answers
    assert_eq!(s.get("/healthz", None).await.status, StatusCode::OK);
}

#[tokio::test]
async fn idle_keep_alive_lasts_the_idle_timeout_not_the_header_timeout() {
    let s = TestServer::start_with(|c| {
        c.header_read_timeout = Duration::from_millis(200);
        c.keep_alive_idle = Duration::from_millis(1200);
    })
    .await;
    let mut c = connect(&s).await;
    c.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut c).await.starts_with("HTTP/1.1 200"));
    // well past the header timeout, before the idle timeout: still open and usable
    sleep(Duration::from_millis(700)).await;
    c.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut c).await.starts_with("HTTP/1.1 200"));
    let idle_from = Instant::now();
    let (_, closed) = read_until_closed(&mut c, Duration::from_secs(5)).await;
    assert!(closed);
    let waited = idle_from.elapsed();
    assert!(
        waited >= Duration::from_millis(1100),
        "closed after {waited:?}, before the idle timeout"
    );
}

/// A POST whose headers promise `len` bytes, with `sent` of them sent.
async fn partial_post(
    s: &TestServer,
    path: &str,
    token: Option<&str>,
    len: usize,
    sent: &[u8],
) -> TcpStream {
    partial_post_as(s, None, path, token, len, sent).await
}

/// [`partial_post`] from `client`, named in `X-Forwarded-For` (the server must trust
/// loopback as a proxy): how one test is many client addresses.
async fn partial_post_as(
    s: &TestServer,
    client: Option<&str>,
    path: &str,
    token: Option<&str>,
    len: usize,
    sent: &[u8],
) -> TcpStream {
    let mut c = connect(s).await;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let xff = client.map_or(String::new(), |a| format!("X-Forwarded-For: {a}\r\n"));
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\n{auth}{xff}Content-Type: application/json\r\nContent-Length: {len}\r\n\r\n"
    );
    c.write_all(head.as_bytes()).await.unwrap();
    c.write_all(sent).await.unwrap();
    c
}

#[tokio::test]
async fn a_trickled_body_is_answered_408_and_the_connection_closed() {
    let s = TestServer::start_with(|c| c.body_timeout = Duration::from_millis(400)).await;
    let (_, jwt) = s.login("ann");
    let mut c = partial_post(&s, "/api/v2/post/", Some(&jwt), 1000, b"{\"text\": \"").await;
    let started = Instant::now();
    // one byte every 100 ms: never finishes in time
    let trickle = async {
        for _ in 0..30 {
            sleep(Duration::from_millis(100)).await;
            if c.write_all(b"a").await.is_err() {
                break;
            }
        }
    };
    let _ = timeout(Duration::from_millis(600), trickle).await;
    let (got, closed) = read_until_closed(&mut c, Duration::from_secs(3)).await;
    assert!(got.starts_with("HTTP/1.1 408"), "{got}");
    assert!(got.to_ascii_lowercase().contains("connection: close"), "{got}");
    assert!(closed);
    assert!(started.elapsed() < Duration::from_secs(3));
    // nothing was created
    let r = s.get("/api/v2/post/", Some(&jwt)).await;
    assert_eq!(r.json()["count"], 0, "{}", r.text);
}

#[tokio::test]
async fn a_protected_route_answers_401_without_reading_the_body() {
    // a long body timeout: an answer that waited for the body would not come in time
    let s = TestServer::start().await;
    let ann = s.user("ann", None, false);
    let mut bad_sig = s.jwt(ann);
    bad_sig.pop();
    let cases: [(&str, Option<&str>); 4] = [
        ("/api/v2/post/", None),
        ("/api/v2/post/", Some("not-a-token-anyone-issued")),
        ("/api/v2/course/", Some("not-a-token-anyone-issued")),
        ("/api/v2/discussion/", Some(bad_sig.as_str())),
    ];
    for (path, token) in cases {
        let mut c = partial_post(&s, path, token, 1_000_000, b"{").await;
        let got = timeout(Duration::from_secs(3), read_response(&mut c))
            .await
            .unwrap_or_else(|_| panic!("{path} {token:?}: no answer before the body"));
        assert!(got.starts_with("HTTP/1.1 401"), "{path} {token:?}: {got}");
    }
    // a body was never held
    assert_eq!(s.state.body_budget.available(), s.state.body_budget.total());
}

#[tokio::test]
async fn held_bodies_share_one_memory_budget() {
    let s = TestServer::start_with(|c| {
        c.max_body_memory = 8 * 1024 * 1024 + 1000;
        c.trusted_proxies = hearth::config::loopback_proxies();
        // the bodies are held on purpose (the minimum rate would cut them after 1 s)
        c.min_body_rate = 0;
    })
    .await;
    let (_, jwt) = s.login("ann");
    // eight clients, each from an address of its own (no address may hold more than
    // 1/8 of the budget), each hold most of a 1 MiB body
    let clients: Vec<String> = (1..=10).map(|i| format!("192.0.2.{i}")).collect();
    let held: Vec<TcpStream> = futures_util::future::join_all(
        clients[..8]
            .iter()
            .map(|a| partial_post_as(&s, Some(a), "/api/v2/post/", Some(&jwt), 1024 * 1024, b"{")),
    )
    .await;
    // wait until both are accounted
    let deadline = Instant::now() + Duration::from_secs(3);
    while s.state.body_budget.available() > 1000 && Instant::now() < deadline {
        sleep(Duration::from_millis(20)).await;
    }
    assert!(s.state.body_budget.available() <= 1000);
    // a ninth is refused at once, 503 with Retry-After, not queued
    let mut third =
        partial_post_as(&s, Some(&clients[8]), "/api/v2/post/", Some(&jwt), 1024 * 1024, b"{")
            .await;
    let got = timeout(Duration::from_secs(3), read_response(&mut third)).await.unwrap();
    assert!(got.starts_with("HTTP/1.1 503"), "{got}");
    assert!(got.to_ascii_lowercase().contains("retry-after:"), "{got}");
    assert!(got.contains("service_unavailable"), "{got}");
    // a small request still goes through: it fits in what is left
    let r = TestServer::read(
        s.client
            .post(format!("{}/api/v2/post/", s.url))
            .bearer_auth(&jwt)
            .header("x-forwarded-for", clients[9].as_str())
            .json(&json!({"text": "small"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // the holders leave: the whole budget comes back
    drop(held);
    drop(third);
    let deadline = Instant::now() + Duration::from_secs(3);
    while s.state.body_budget.available() < s.state.body_budget.total() && Instant::now() < deadline
    {
        sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(s.state.body_budget.available(), s.state.body_budget.total());
}

#[tokio::test]
async fn connections_over_a_cap_are_closed_at_once() {
    let s = TestServer::start_with(|c| {
        c.max_connections_per_address = 3;
        c.max_connections = 1024;
    })
    .await;
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut c = connect(&s).await;
        c.write_all(HEALTHZ).await.unwrap();
        assert!(read_response(&mut c).await.starts_with("HTTP/1.1 200"));
        open.push(c);
    }
    let mut fourth = connect(&s).await;
    let _ = fourth.write_all(HEALTHZ).await;
    let (got, closed) = read_until_closed(&mut fourth, Duration::from_secs(2)).await;
    assert!(closed && got.is_empty(), "{got}");
    // the open ones are unaffected
    open[0].write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut open[0]).await.starts_with("HTTP/1.1 200"));
    // one leaves: a new one is served
    drop(open.pop());
    sleep(Duration::from_millis(100)).await;
    let mut next = connect(&s).await;
    next.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut next).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn the_global_cap_closes_new_connections_at_once() {
    let s = TestServer::start_with(|c| c.max_connections = 2).await;
    let mut a = connect(&s).await;
    let b = connect(&s).await;
    a.write_all(HEALTHZ).await.unwrap();
    assert!(read_response(&mut a).await.starts_with("HTTP/1.1 200"));
    let mut c = connect(&s).await;
    let _ = c.write_all(HEALTHZ).await;
    let (got, closed) = read_until_closed(&mut c, Duration::from_secs(2)).await;
    assert!(closed && got.is_empty(), "{got}");
    drop(b);
    sleep(Duration::from_millis(100)).await;
    assert_eq!(s.get("/healthz", None).await.status, StatusCode::OK);
}

/// Sets a pragma on the writer connection only (readers are unaffected).
fn writer_pragma(s: &TestServer, pragma: &str) {
    s.state.db.with_writer(|c| c.execute_batch(pragma).unwrap());
}

#[tokio::test]
async fn a_full_database_answers_503_keeps_reading_and_recovers() {
    let s = TestServer::start().await;
    let (_, jwt) = s.login("ann");
    let r = s.post("/api/v2/post/", Some(&jwt), json!({"text": "before"})).await;
    assert_eq!(r.status, StatusCode::CREATED);
    // "disk full": no page may be added to the file
    let pages: i64 =
        s.state.db.with_writer(|c| c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap());
    writer_pragma(&s, &format!("PRAGMA max_page_count = {pages}"));
    let big = "x".repeat(200_000);
    let r = s.post("/api/v2/post/", Some(&jwt), json!({"text": big})).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert_eq!(r.error_code(), "service_unavailable");
    assert_eq!(r.header("retry-after"), Some("30"));
    // reads keep working; health says what is wrong
    let r = s.get("/api/v2/post/", Some(&jwt)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["count"], 1);
    let h = s.get("/healthz", None).await;
    assert_eq!(h.status, StatusCode::OK);
    assert_eq!(h.json(), json!({"status": "ok", "writable": false}));
    let ready = s.get("/readyz", None).await;
    assert_eq!(ready.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(ready.json(), json!({"status": "unavailable", "writable": false}));
    // OAuth endpoints say it their way
    let r = TestServer::read(
        s.client
            .post(format!("{}/oauth/revoke_token/", s.url))
            .form(&[("token", "x"), ("client_id", "nope")])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_ne!(r.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", r.text);
    // space comes back: writes work without a restart, health notices by itself
    writer_pragma(&s, "PRAGMA max_page_count = 1073741823");
    sleep(hearth::db::PROBE_EVERY).await;
    let ready = s.get("/readyz", None).await;
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.text);
    assert_eq!(ready.json(), json!({"status": "ok", "writable": true}));
    let r = s.post("/api/v2/post/", Some(&jwt), json!({"text": big})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

#[tokio::test]
async fn a_read_only_database_answers_503_not_500() {
    let s = TestServer::start().await;
    let (_, jwt) = s.login("ann");
    // the tests run as root, for whom file modes do not bind: query_only gives the
    // same SQLITE_READONLY a read-only file or directory gives
    writer_pragma(&s, "PRAGMA query_only = ON");
    let r = s.post("/api/v2/post/", Some(&jwt), json!({"text": "x"})).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert_eq!(r.error_code(), "service_unavailable");
    assert_eq!(s.get("/api/v2/post/", Some(&jwt)).await.status, StatusCode::OK);
    assert_eq!(s.get("/healthz", None).await.json()["writable"], false);
    writer_pragma(&s, "PRAGMA query_only = OFF");
    let r = s.post("/api/v2/post/", Some(&jwt), json!({"text": "x"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(s.get("/healthz", None).await.json()["writable"], true);
}

#[tokio::test]
async fn readyz_turns_503_when_the_server_is_stopping() {
    let s = TestServer::start().await;
    assert_eq!(s.get("/readyz", None).await.status, StatusCode::OK);
    s.state.set_stopping();
    let r = s.get("/readyz", None).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.json(), json!({"status": "unavailable", "writable": true}));
    // liveness and health are not readiness
    assert_eq!(s.get("/livez", None).await.status, StatusCode::OK);
    assert_eq!(s.get("/healthz", None).await.status, StatusCode::OK);
}

mod connections;
mod requests;
mod writes;

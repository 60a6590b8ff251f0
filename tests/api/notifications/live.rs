//! The live socket (`GET /ws/notify`) as react-core opens it.

use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::common::TestServer;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the socket as the kit does: the token as the sub-protocol `__<token>`.
async fn open(
    s: &TestServer,
    token: &str,
    origin: Option<&str>,
) -> Result<(Socket, Option<String>), u16> {
    let url = format!("{}/ws/notify?subscribe-user", s.url).replace("http://", "ws://");
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("sec-websocket-protocol", HeaderValue::from_str(&format!("__{token}")).unwrap());
    if let Some(o) = origin {
        req.headers_mut().insert("origin", HeaderValue::from_str(o).unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, resp)) => Ok((
            ws,
            resp.headers()
                .get("sec-websocket-protocol")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        )),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("{e}"),
    }
}

/// The next text message, within 5 s (the push is due within 1 s of the commit).
async fn next_text(ws: &mut Socket) -> String {
    loop {
        let m = tokio::time::timeout(std::time::Duration::from_secs(5), ws.next())
            .await
            .expect("a message in time")
            .expect("the socket is open")
            .expect("a message");
        match m {
            Message::Text(t) => return t.to_string(),
            Message::Close(c) => panic!("closed: {c:?}"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn the_kits_socket_echoes_heartbeats_and_pushes_notifications_with_counters() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let (mut ws, protocol) = open(&s, &a, None).await.unwrap();
    assert_eq!(protocol, Some(format!("__{a}")), "the protocol is echoed");
    ws.send(Message::text("heartbeat")).await.unwrap();
    assert_eq!(next_text(&mut ws).await, "heartbeat");
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "hello"})).await;
    let c = s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "hi"})).await;
    let push: Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
    assert_eq!(push["type"], "interaction");
    assert_eq!(push["data"]["activity_type"], 2);
    assert_eq!(push["data"]["count_interactions"], 1);
    assert_eq!(push["data"]["notification_obj"]["type"], "comment");
    assert_eq!(push["data"]["notification_obj"]["comment"]["id"], c);
    s.post(&format!("/api/v2/user/{alice}/follow/"), Some(&b), json!({})).await;
    let push: Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
    assert_eq!(
        (push["data"]["activity_type"].clone(), push["data"]["count_interactions"].clone()),
        (json!(97), json!(2))
    );
}

#[tokio::test]
async fn a_connection_request_and_its_acceptance_are_pushed_as_the_kits_manager_reads_them() {
    let s = TestServer::start().await;
    s.set_pref("configurations", "connection_enabled", serde_json::json!(true));
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (mut to_bob, _) = open(&s, &b, None).await.unwrap();
    let (mut to_alice, _) = open(&s, &a, None).await.unwrap();
    s.post_empty(&format!("/api/v2/user/{bob}/connection/request/"), Some(&a)).await;
    let push: Value = serde_json::from_str(&next_text(&mut to_bob).await).unwrap();
    assert_eq!(push["data"]["activity_type"], 55);
    assert_eq!(push["data"]["connection"]["type"], "connection_request");
    assert_eq!(push["data"]["request_user"]["id"], alice);
    assert_eq!(push["data"]["notification_obj"]["request_user"]["id"], alice);
    s.post_empty(&format!("/api/v2/user/{alice}/connection/accept/"), Some(&b)).await;
    let push: Value = serde_json::from_str(&next_text(&mut to_alice).await).unwrap();
    assert_eq!(push["data"]["activity_type"], 56);
    assert_eq!(push["data"]["accept_user"]["id"], bob);
    assert_eq!(push["data"]["notification_obj"]["type"], "connection_accept");
}

#[tokio::test]
async fn the_socket_needs_a_valid_token_an_allowed_origin_and_room() {
    let s = TestServer::start_with(|c| {
        c.max_sockets_per_address = 2;
        c.cors_origins = hearth::config::CorsOrigins::parse(["https://app.example"]).unwrap();
    })
    .await;
    let (_, a) = s.login("alice");
    assert_eq!(open(&s, "nope", None).await.err(), Some(401));
    assert_eq!(open(&s, &a, Some("https://evil.example")).await.err(), Some(403));
    let _one = open(&s, &a, Some("https://app.example")).await.unwrap();
    let _two = open(&s, &a, None).await.unwrap();
    assert_eq!(open(&s, &a, None).await.err(), Some(503), "the address's share is taken");
    drop(_one);
    // a closed socket gives its place back (once the server has seen it close)
    let mut again = None;
    for _ in 0..100 {
        if let Ok(ws) = open(&s, &a, None).await {
            again = Some(ws);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(again.is_some());
    let r = s.get("/ws/notify?subscribe-user", Some(&a)).await;
    assert_ne!(r.status, StatusCode::SWITCHING_PROTOCOLS, "a plain GET is no upgrade");
}

/// Waits for the close frame of `ws`.
async fn closed(ws: &mut Socket) -> tokio_tungstenite::tungstenite::protocol::CloseFrame {
    let closed = loop {
        match tokio::time::timeout(std::time::Duration::from_secs(5), ws.next())
            .await
            .expect("closed in time")
        {
            Some(Ok(Message::Close(c))) => break c,
            Some(Ok(_)) => {}
            other => panic!("{other:?}"),
        }
    };
    closed.expect("a close frame")
}

#[tokio::test]
async fn a_token_that_stops_holding_closes_its_socket() {
    let s =
        TestServer::start_with(|c| c.socket_recheck = std::time::Duration::from_millis(50)).await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    // its user deleted
    let (mut ws, _) = open(&s, &a, None).await.unwrap();
    s.soft_delete_user(alice);
    let frame = closed(&mut ws).await;
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (4001, "token no longer valid"));
    // expired
    let (mut ws, _) = open(&s, &b, None).await.unwrap();
    s.clock.advance(365 * 86_400 * 1_000_000);
    let frame = closed(&mut ws).await;
    assert_eq!(u16::from(frame.code), 4001);
}

#[tokio::test]
async fn with_toasts_off_a_push_carries_the_counters_only() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let r = s
        .patch(
            &format!("/api/v2/user/{alice}/settings/"),
            Some(&a),
            json!({"show_toast_notifications": 0}),
        )
        .await;
    assert!(r.status.is_success(), "{} {}", r.status, r.text);
    let (mut ws, _) = open(&s, &a, None).await.unwrap();
    let p = s.create_id("/api/v2/post/", &a, json!({"text": "hello"})).await;
    s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "hi"})).await;
    let push: Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
    assert_eq!(push["data"]["count_interactions"], 1);
    assert_eq!(push["data"]["notification_obj"], Value::Null);
}

#[tokio::test]
async fn a_role_change_closes_the_socket() {
    let s =
        TestServer::start_with(|c| c.socket_recheck = std::time::Duration::from_millis(50)).await;
    let (alice, a) = s.login("alice");
    let (mut ws, _) = open(&s, &a, None).await.unwrap();
    s.db_write(|tx| tx.execute("UPDATE user SET is_staff = 1 WHERE id = ?1", [alice]));
    let frame = closed(&mut ws).await;
    assert_eq!(u16::from(frame.code), 4001);
}

#[tokio::test]
async fn a_flood_of_messages_closes_the_socket() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (mut ws, _) = open(&s, &a, None).await.unwrap();
    for _ in 0..50 {
        if ws.send(Message::text("x")).await.is_err() {
            break;
        }
    }
    let frame = closed(&mut ws).await;
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1008, "too many messages"));
    // a message too large for a heartbeat closes it too
    let (mut ws, _) = open(&s, &a, None).await.unwrap();
    let _ = ws.send(Message::text("x".repeat(100 * 1024))).await;
    let end = tokio::time::timeout(std::time::Duration::from_secs(5), ws.next())
        .await
        .expect("an end in time");
    assert!(!matches!(end, Some(Ok(Message::Text(_)))), "{end:?}");
}

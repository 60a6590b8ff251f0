//! `GET /ws/notify?subscribe-user` (SPEC §10): the kit's live socket. react-core opens
//! it with the access token as the sub-protocol `__<token>` and sends a heartbeat
//! string every 5 s; hearth echoes the protocol and each text message, and pushes
//! `{"type": "interaction", "data": {...}}` for each notification of the caller within
//! a moment of its commit, with the counters the kit's badge reads.
//!
//! - **Who**: the token is checked as any bearer token (JWT or opaque); a missing or
//!   bad one is 401 before the upgrade. The page's `Origin` must be one `--cors-origin`
//!   allows, or the server's own (403).
//! - **Caps**: `--max-sockets` in all, `--max-sockets-per-address` per client (503);
//!   messages of at most 64 KiB, at most [`MESSAGES_PER_SECOND`] a second (1008 beyond).
//! - **Closing**: every `serve --socket-recheck` (30 s) the token is checked again: revoked, expired, or its user deleted, the socket closes with code
//!   4001 and the reason `token no longer valid`. A server that stops drops them (the
//!   kit reconnects).
//! - **Memory**: the socket is built over hyper's upgrade with tungstenite's buffers
//!   sized for the kit's messages (a 4 KiB read buffer, messages of at most 64 KiB): with
//!   tungstenite's default 128 KiB read buffer, filled on the first read, 10,000 idle
//!   sockets held 1.3 GB (`bench/sockets.py`, docs/performance.md).
//! - **Replicas**: a read replica refuses the upgrade with 503 (its writes and their
//!   notifications happen on the primary; the kit retries, and a load balancer sends
//!   `/ws/` to the primary): forwarding a long-lived socket through the replica would
//!   tie it to two processes for nothing.

use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use warp::http::{HeaderMap, HeaderValue, StatusCode};
use warp::reply::Response;

use crate::db::notifications::{Pushed, Type};
use crate::error::ApiError;
use crate::http::auth::{Credentials, Principal};
use crate::model::flag::Reason;
use crate::state::AppState;

/// The socket's path.
pub const PATH: &str = "/ws/notify";

/// The sub-protocol prefix of the kit's token.
const PROTOCOL_PREFIX: &str = "__";

/// The close code of a socket whose token no longer holds.
pub const CLOSE_INVALID: u16 = 4001;

/// The most messages a client may send in one second (the kit sends a heartbeat every
/// 5 s); past it the socket closes with 1008, policy violation: an echo must not be a
/// way to keep the server busy.
pub const MESSAGES_PER_SECOND: u32 = 10;

/// tungstenite's buffers for the kit's small messages (heartbeats in, pushes out).
fn socket_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_message_size(Some(64 * 1024))
        .max_frame_size(Some(64 * 1024))
}

/// Whether a request asks to open a WebSocket (RFC 6455 §4.2.1): then it is this
/// module's, else the router's (a plain GET of the path is 404 there).
pub fn is_upgrade(method: &warp::http::Method, path: &str, headers: &HeaderMap) -> bool {
    let has = |name: &str, token: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    };
    method == warp::http::Method::GET
        && path == PATH
        && has("upgrade", "websocket")
        && has("connection", "upgrade")
}

/// The kit's token from `Sec-WebSocket-Protocol`, and the protocol to echo.
fn protocol_token(headers: &HeaderMap) -> Option<(String, String)> {
    let all = headers.get_all("sec-websocket-protocol");
    for v in all {
        for p in v.to_str().ok()?.split(',') {
            let p = p.trim();
            if let Some(t) = p.strip_prefix(PROTOCOL_PREFIX) {
                return Some((p.to_owned(), t.to_owned()));
            }
        }
    }
    None
}

/// Whether the page's `Origin` may open a socket: one `--cors-origin` allows, or the
/// server's own public origin. No `Origin` (not a browser) is allowed: the token is
/// what authenticates.
fn origin_allowed(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get("origin") else { return true };
    let url = state.config.public_url.at("/");
    let own = url.find("://").and_then(|i| url[i + 3..].find('/').map(|j| &url[..i + 3 + j]));
    state.config.cors_origins.allows(origin.as_bytes())
        || own.is_some_and(|o| o.as_bytes() == origin.as_bytes())
}

/// Answers an upgrade request: every check first (replica, Origin, the handshake's
/// headers, the token, the caps), then 101, and the socket runs on its own task once
/// hyper hands the connection over.
pub async fn accept(
    state: AppState,
    headers: HeaderMap,
    peer: std::net::SocketAddr,
    on_upgrade: hyper::upgrade::OnUpgrade,
) -> Response {
    if matches!(state.role(), crate::role::Role::Replica(_)) {
        return ApiError::Unavailable(crate::error::Unavailable::ReplicaSocket).to_response();
    }
    if !origin_allowed(&state, &headers) {
        return ApiError::PermissionDenied.to_response();
    }
    let key = headers.get("sec-websocket-key").map(HeaderValue::as_bytes);
    let version = headers.get("sec-websocket-version").map(HeaderValue::as_bytes);
    let Some(key) = key.filter(|_| version == Some(b"13".as_slice())) else {
        return ApiError::MalformedRequest(
            "a WebSocket handshake needs Sec-WebSocket-Key and Sec-WebSocket-Version 13",
        )
        .to_response();
    };
    let accept_key = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key);
    let Some((protocol, token)) = protocol_token(&headers) else {
        return ApiError::NotAuthenticated.to_response();
    };
    let who = match principal(&state, &token).await {
        Ok(who) => who,
        Err(e) => return e.to_response(),
    };
    let address = crate::http::client_addr(&state, Some(peer), &headers);
    let config = &state.config;
    let Ok(registered) = state.hub.register(
        who.user_id,
        address,
        config.max_sockets,
        config.max_sockets_per_address,
    ) else {
        return ApiError::Unavailable(crate::error::Unavailable::Sockets).to_response();
    };
    tokio::spawn(async move {
        if let Ok(upgraded) = on_upgrade.await {
            let io = TokioIo::new(upgraded);
            let socket =
                WebSocketStream::from_raw_socket(io, Role::Server, Some(socket_config())).await;
            run(state, socket, who, token, registered).await;
        }
    });
    let mut resp = crate::reply::empty(StatusCode::SWITCHING_PROTOCOLS);
    let h = resp.headers_mut();
    h.insert("upgrade", HeaderValue::from_static("websocket"));
    h.insert("connection", HeaderValue::from_static("upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept_key) {
        h.insert("sec-websocket-accept", v);
    }
    if let Ok(v) = HeaderValue::from_str(&protocol) {
        h.insert("sec-websocket-protocol", v);
    }
    resp
}

/// The caller of a token, as any bearer token is checked.
async fn principal(state: &AppState, token: &str) -> Result<Principal, ApiError> {
    let creds = Credentials::from_token(token, state);
    let now = state.clock.now();
    state.db.read(move |c| crate::api::auth::require(c, &creds, now)).await
}

/// One open socket: echoes heartbeats, pushes notifications, closes when the token
/// stops holding.
async fn run(
    state: AppState,
    socket: WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>,
    who: Principal,
    token: String,
    (registered, mut pushes): (crate::hub::Registration, tokio::sync::mpsc::Receiver<Pushed>),
) {
    let (mut tx, mut rx) = socket.split();
    let mut recheck = tokio::time::interval(state.config.socket_recheck);
    let (mut window, mut sent) = (crate::clock::instant(), 0u32);
    recheck.tick().await;
    loop {
        tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(m)) if !m.is_close() => {
                    if window.elapsed() >= std::time::Duration::from_secs(1) {
                        (window, sent) = (crate::clock::instant(), 0);
                    }
                    sent += 1;
                    if sent > MESSAGES_PER_SECOND {
                        let frame = CloseFrame {
                            code: CloseCode::Policy,
                            reason: "too many messages".into(),
                        };
                        let _ = tx.send(Message::Close(Some(frame))).await;
                        break;
                    }
                    // the kit's heartbeat: echoed as it came (pings are answered by
                    // tungstenite itself)
                    if let Message::Text(t) = m
                        && tx.send(Message::Text(t)).await.is_err()
                    {
                        break;
                    }
                }
                Some(Ok(_)) => break,
                Some(Err(_)) | None => break,
            },
            Some(p) = pushes.recv() => {
                let Ok(body) = push_body(&state, who.user_id, p).await else { continue };
                if tx.send(Message::text(body.to_string())).await.is_err() {
                    break;
                }
            }
            _ = recheck.tick() => {
                // the same user with the same role, or the socket closes
                let still = principal(&state, &token)
                    .await
                    .is_ok_and(|p| p.user_id == who.user_id && p.is_staff == who.is_staff);
                if !still {
                    let frame = CloseFrame {
                        code: CloseCode::from(CLOSE_INVALID),
                        reason: "token no longer valid".into(),
                    };
                    let _ = tx.send(Message::Close(Some(frame))).await;
                    break;
                }
            }
        }
    }
    let _ = tx.close().await;
    drop(registered);
}

/// The kit's numeric `activity_type` of a notification type (react-core's
/// `SCNotificationMapping`).
fn activity_type(kind: Type) -> i64 {
    match kind {
        Type::Comment => 2,
        Type::NestedComment => 4,
        Type::Mention => 19,
        Type::VoteUp => 9,
        Type::UserFollow => 97,
        Type::ConnectionRequest => 55,
        Type::ConnectionAccept => 56,
        Type::DeletedFor(r) => match r {
            Reason::Spam => 50,
            Reason::Aggressive => 51,
            Reason::Vulgar => 52,
            Reason::Poor => 65,
            Reason::Offtopic => 66,
        },
        Type::UndeletedFor => 54,
        Type::PrivateMessage => 37,
        Type::CollapsedFor(r) => 75 + r.number(),
        Type::GroupInvite => 31,
        Type::GroupRequest => 32,
        Type::GroupAccept => 33,
        Type::GroupAdded => 34,
        Type::EventInvite => 7,
        Type::EventRequest => 10,
        Type::EventAccept => 14,
        Type::EventAdded => 15,
        Type::CourseInvite => 27,
        Type::CourseRequest => 29,
        Type::CourseAccept => 30,
        Type::CourseAdded => 46,
        Type::CourseManager => 80,
        Type::LessonComment => 82,
    }
}

/// The message of one push: the notification as the list shows it, and the counters.
async fn push_body(state: &AppState, user: i64, p: Pushed) -> Result<Value, ApiError> {
    let base = state.config.public_url.clone();
    let now = state.clock.now();
    state
        .db
        .read(move |c| {
            if p.group_message {
                return group_message_body(c, user, p.id, &base);
            }
            // the member's setting (SPEC §8): with toasts off, a push carries the
            // counters and no notification, which the kit makes no toast of
            // a private message is the thread's content, not a toast: the kit's thread
            // and snippets read it from the push whatever the setting
            let toasts = p.kind == Type::PrivateMessage
                || crate::db::user_settings::stored(c, user)?
                    .iter()
                    .all(|(name, v)| name != "show_toast_notifications" || *v != 0);
            let note = crate::db::notifications::list::one(c, user, p.id)?;
            let unseen = crate::db::notifications::unseen(c, user)?;
            let mut data = json!({
                // what the kit keys its toasts on (one toast per notification)
                "id": p.id,
                "feed_serialization_id": p.id.to_string(),
                "activity_type": activity_type(p.kind),
                "notification_obj": note
                    .as_ref()
                    .filter(|_| toasts)
                    .map(|n| crate::api::notifications::note_json(n, &base, now)),
                "count_interactions": unseen,
                "count_notification_banners": 0,
            });
            // the kit's connections manager updates its buttons from a connection push:
            // it reads `connection` and the user under the type's key
            let key = match p.kind {
                Type::ConnectionRequest => Some("request_user"),
                Type::ConnectionAccept => Some("accept_user"),
                _ => None,
            };
            // the kit's thread and snippets match a private message push on `thread_id`
            if let Some((m, _)) = note.as_ref().and_then(|n| n.message.as_ref()) {
                data["thread_id"] = json!(m.thread_id);
            }
            // the kit's subscribed-groups manager reads the group's id beside the
            // notification (and its status from the type)
            if let Some(g) = note.as_ref().and_then(|n| n.group.as_ref()) {
                data["group"] = json!(g.group.id);
            }
            // and the events' manager the event's
            if let Some(e) = note.as_ref().and_then(|n| n.event.as_ref()) {
                data["event"] = json!(e.event.id);
            }
            if let (Some(key), Some(n)) = (key, note.as_ref()) {
                let actor = serde_json::to_value(n.actor.to_json(&base, None, Vec::new()))
                    .unwrap_or(Value::Null);
                data["connection"] = json!({ "type": p.kind.as_str() });
                data[key] = actor;
            }
            Ok::<_, ApiError>(json!({ "type": "interaction", "data": data }))
        })
        .await
}

/// The push of a group thread's message (no notification row: db::messages::group):
/// what react-ui's thread and snippets read from a private message push, the message
/// and the member's snippet under `notification_obj`, and `thread_id`. A message the
/// member no longer sees (taken back, or they left) is an error: no push.
fn group_message_body(
    c: &rusqlite::Connection,
    user: i64,
    id: i64,
    base: &crate::model::PublicUrl,
) -> Result<Value, ApiError> {
    let m = crate::db::messages::get(c, user, id)?.ok_or(ApiError::NotFound)?;
    let group = m.group.as_ref().map(|g| g.group.id).ok_or(ApiError::NotFound)?;
    let snippet = crate::db::messages::group::snippet(c, user, group)?;
    let unseen = crate::db::notifications::unseen(c, user)?;
    let note = json!({
        "sid": format!("pm-{id}"),
        "is_new": true,
        "type": Type::PrivateMessage.as_str(),
        "active_at": crate::clock::rfc3339(m.created_at),
        "message": m.to_json(base, user),
        "snippet": snippet.map(|s| s.to_json(base, user)),
    });
    Ok(json!({ "type": "interaction", "data": {
        "id": id,
        "feed_serialization_id": format!("pm-{id}"),
        "activity_type": activity_type(Type::PrivateMessage),
        "notification_obj": note,
        "count_interactions": unseen,
        "count_notification_banners": 0,
        "thread_id": m.thread_id,
        "group": group,
    }}))
}

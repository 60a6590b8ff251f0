//! `GET /ws/notify?subscribe-user` (SPEC §10): the kit's live socket. react-core opens
//! it with the access token as the sub-protocol `__<token>` and sends a heartbeat
//! string every 5 s; hearth echoes the protocol and each text message, and pushes
//! `{"type": "interaction", "data": {...}}` for each notification of the caller within
//! a moment of its commit, with the counters the kit's badge reads.
//!
//! - **Who**: the token is checked as any bearer token (JWT or opaque); a missing or
//!   bad one is 401 before the upgrade. The page's `Origin` must be one `--cors-origin`
//!   allows, or the server's own (403).
//! - **Caps**: `--max-sockets` in all, `--max-sockets-per-address` per client (503).
//! - **Closing**: every `serve --socket-recheck` (30 s) the token is checked again: revoked, expired, or its user deleted, the socket closes with code
//!   4001 and the reason `token no longer valid`. A server that stops drops them (the
//!   kit reconnects).
//! - **Replicas**: a read replica refuses the upgrade with 503 (its writes and their
//!   notifications happen on the primary; the kit retries, and a load balancer sends
//!   `/ws/` to the primary): forwarding a long-lived socket through the replica would
//!   tie it to two processes for nothing.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue};
use warp::reply::Response;
use warp::ws::{Message, WebSocket, Ws};

use crate::db::notifications::{Pushed, Type};
use crate::error::ApiError;
use crate::http::PeerAddr;
use crate::http::auth::{Credentials, Principal};
use crate::state::AppState;

/// The sub-protocol prefix of the kit's token.
const PROTOCOL_PREFIX: &str = "__";

/// The close code of a socket whose token no longer holds.
pub const CLOSE_INVALID: u16 = 4001;

/// The warp filter of `/ws/notify`.
pub fn filter(
    state: AppState,
) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    warp::path!("ws" / "notify")
        .and(warp::get())
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<PeerAddr>())
        .and(warp::ws())
        .and_then(move |headers: HeaderMap, peer: Option<PeerAddr>, ws: Ws| {
            let state = state.clone();
            async move { Ok::<_, warp::Rejection>(upgrade(state, headers, peer, ws).await) }
        })
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

/// Checks everything before the upgrade, then upgrades.
async fn upgrade(state: AppState, headers: HeaderMap, peer: Option<PeerAddr>, ws: Ws) -> Response {
    if matches!(state.role, crate::role::Role::Replica(_)) {
        return ApiError::Unavailable(crate::error::Unavailable::ReplicaSocket).to_response();
    }
    if !origin_allowed(&state, &headers) {
        return ApiError::PermissionDenied.to_response();
    }
    let Some((protocol, token)) = protocol_token(&headers) else {
        return ApiError::NotAuthenticated.to_response();
    };
    let who = match principal(&state, &token).await {
        Ok(who) => who,
        Err(e) => return e.to_response(),
    };
    let address = crate::http::client_addr(&state, peer.map(|p| p.0), &headers);
    let config = &state.config;
    // registered before the upgrade, so the caps are answered with a status
    let Ok(registered) = state.hub.register(
        who.user_id,
        address,
        config.max_sockets,
        config.max_sockets_per_address,
    ) else {
        return ApiError::Unavailable(crate::error::Unavailable::Sockets).to_response();
    };
    let reply = ws.on_upgrade(move |socket| run(state, socket, who, token, registered));
    let mut resp = warp::Reply::into_response(reply);
    if let Ok(v) = HeaderValue::from_str(&protocol) {
        resp.headers_mut().insert("sec-websocket-protocol", v);
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
    socket: WebSocket,
    who: Principal,
    token: String,
    (registered, mut pushes): (crate::hub::Registration, tokio::sync::mpsc::Receiver<Pushed>),
) {
    let (mut tx, mut rx) = socket.split();
    let mut recheck = tokio::time::interval(state.config.socket_recheck);
    recheck.tick().await;
    loop {
        tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(m)) if m.is_text() => {
                    // the kit's heartbeat: echoed as it came
                    if tx.send(Message::text(m.to_str().unwrap_or(""))).await.is_err() {
                        break;
                    }
                }
                Some(Ok(m)) if m.is_close() => break,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break,
            },
            Some(p) = pushes.recv() => {
                let Ok(body) = push_body(&state, who.user_id, p).await else { continue };
                if tx.send(Message::text(body.to_string())).await.is_err() {
                    break;
                }
            }
            _ = recheck.tick() => {
                let still = principal(&state, &token).await.is_ok_and(|p| p.user_id == who.user_id);
                if !still {
                    let _ = tx.send(Message::close_with(CLOSE_INVALID, "token no longer valid")).await;
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
    }
}

/// The message of one push: the notification as the list shows it, and the counters.
async fn push_body(state: &AppState, user: i64, p: Pushed) -> Result<Value, ApiError> {
    let base = state.config.public_url.clone();
    state
        .db
        .read(move |c| {
            let note = crate::db::notifications::list::one(c, user, p.id)?;
            let unseen = crate::db::notifications::unseen(c, user)?;
            Ok::<_, ApiError>(json!({
                "type": "interaction",
                "data": {
                    // what the kit keys its toasts on (one toast per notification)
                    "id": p.id,
                    "feed_serialization_id": p.id.to_string(),
                    "activity_type": activity_type(p.kind),
                    "notification_obj": note.map(|n| crate::api::notifications::note_json(&n, &base)),
                    "count_interactions": unseen,
                    "count_notification_banners": 0,
                }
            }))
        })
        .await
}

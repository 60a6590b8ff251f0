//! Connections (friendship, SPEC §10 People): requests and answers between two users,
//! the lists and counters, the statuses the kit reads, the refusals, and the counters
//! under parallel writers.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

/// alice, bob, carol with connections on.
async fn on() -> (TestServer, [i64; 3]) {
    let s = TestServer::start().await;
    let ids = s.users(["alice", "bob", "carol"]);
    s.set_pref("configurations", "connection_enabled", json!(true));
    (s, ids)
}

async fn act(s: &TestServer, who: i64, action: &str, whom: i64) -> (StatusCode, Value) {
    let r =
        s.post_empty(&format!("/api/v2/user/{whom}/connection/{action}/"), Some(&s.jwt(who))).await;
    let body = if r.text.is_empty() { Value::Null } else { r.json() };
    (r.status, body)
}

async fn status(s: &TestServer, who: i64, whom: i64) -> Value {
    let r = s.get(&format!("/api/v2/user/{whom}/connection_status/"), Some(&s.jwt(who))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json()["connection_status"].clone()
}

async fn me(s: &TestServer, who: i64) -> Value {
    s.get("/api/v2/user/me/", Some(&s.jwt(who))).await.json()
}

#[tokio::test]
async fn a_request_accepted_connects_both_users_and_every_list_and_counter_agrees() {
    let (s, [a, b, c]) = on().await;
    assert_eq!(
        act(&s, a, "request", b).await,
        (StatusCode::OK, json!({"connection_status": "sent_connection_request"}))
    );
    assert_eq!(status(&s, b, a).await, "received_connection_request");
    // what bob's page shows: the request, from alice, and his counter
    let r = s.get("/api/v2/user/connection/requests/", Some(&s.jwt(b))).await;
    assert_eq!(r.json()["count"], 1);
    let req = &r.json()["results"][0];
    assert_eq!(
        (req["from_user"]["id"].as_i64(), req["to_user"]["id"].as_i64()),
        (Some(a), Some(b))
    );
    assert_eq!(req["from_user"]["connection_status"], "received_connection_request");
    assert_eq!((req["rejected"].clone(), req["viewed"].clone()), (Value::Null, Value::Null));
    assert_eq!(me(&s, b).await["connection_requests_received_counter"], 1);
    assert_eq!(me(&s, a).await["connection_requests_sent_counter"], 1);
    let r = s.get("/api/v2/user/connection/requests_sent/", Some(&s.jwt(a))).await;
    assert_eq!(r.json()["results"][0]["to_user"]["id"], b);
    // seen, then accepted
    let r = s
        .post_empty(&format!("/api/v2/user/{a}/connection_requests/mark_seen/"), Some(&s.jwt(b)))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = s.get("/api/v2/user/connection/requests/", Some(&s.jwt(b))).await;
    assert!(r.json()["results"][0]["viewed"].is_string());
    assert_eq!(
        act(&s, b, "accept", a).await,
        (StatusCode::OK, json!({"connection_status": "connected"}))
    );
    for (x, y) in [(a, b), (b, a)] {
        assert_eq!(status(&s, x, y).await, "connected");
        let r = s.get(&format!("/api/v2/user/{y}/is_connection/"), Some(&s.jwt(x))).await;
        assert_eq!(r.json(), json!({"is_connection": true}));
        let r = s.get(&format!("/api/v2/user/{x}/connections/"), None).await;
        assert_eq!((r.ids(), r.json()["count"].clone()), (vec![y], json!(1)));
        assert_eq!(me(&s, x).await["connections_counter"], 1);
        // every User JSON the other reads says so
        let r = s.get(&format!("/api/v2/user/{y}/"), Some(&s.jwt(x))).await;
        assert_eq!(r.json()["connection_status"], "connected");
    }
    assert_eq!(me(&s, b).await["connection_requests_received_counter"], 0);
    assert_eq!(me(&s, a).await["connection_requests_sent_counter"], 0);
    // the batch the kit's manager sends
    let r = s
        .post("/api/v2/user/connection/statuses/", Some(&s.jwt(a)), json!({"users": [b, c, 999]}))
        .await;
    assert_eq!(
        r.json(),
        json!({"connection_statuses": {b.to_string(): "connected", c.to_string(): null, "999": null}})
    );
    // removed by either side: both sides go
    assert_eq!(act(&s, b, "remove", a).await, (StatusCode::OK, json!({"connection_status": null})));
    assert_eq!(status(&s, a, b).await, Value::Null);
    assert_eq!(s.get(&format!("/api/v2/user/{a}/connections/"), None).await.json()["count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn a_rejection_is_not_told_and_a_cancel_takes_the_notification_back() {
    let (s, [a, b, _]) = on().await;
    act(&s, a, "request", b).await;
    assert_eq!(act(&s, b, "reject", a).await, (StatusCode::OK, json!({"connection_status": null})));
    assert_eq!(status(&s, a, b).await, "sent_connection_request", "the sender is not told");
    assert_eq!(status(&s, b, a).await, Value::Null);
    assert_eq!(
        s.get("/api/v2/user/connection/requests/", Some(&s.jwt(b))).await.json()["count"],
        0
    );
    let sent = s.get("/api/v2/user/connection/requests_sent/", Some(&s.jwt(a))).await.json();
    assert_eq!(
        (sent["count"].clone(), sent["results"][0]["rejected"].clone()),
        (json!(1), Value::Null)
    );
    let (code, body) = act(&s, b, "reject", a).await;
    assert_eq!(
        (code, body["errors"][0]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("user"))
    );
    assert_eq!(
        act(&s, b, "cancel_reject", a).await.1,
        json!({"connection_status": "received_connection_request"})
    );
    // bob was notified once; alice's cancel takes it back
    let kinds = |s: &TestServer| {
        s.db_read(|c| {
            c.query_row(
                "SELECT group_concat(type) FROM notification WHERE user_id = ?1",
                [b],
                |r| r.get::<_, Option<String>>(0),
            )
        })
    };
    assert_eq!(kinds(&s).as_deref(), Some("connection_request"));
    let n = s.get("/api/v2/notification/", Some(&s.jwt(b))).await.json();
    assert_eq!(n["results"][0]["aggregated"][0]["request_user"]["id"], a);
    assert_eq!(act(&s, a, "cancel_request", b).await.1, json!({"connection_status": null}));
    assert_eq!(kinds(&s), None);
    assert_eq!(me(&s, a).await["connection_requests_sent_counter"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn actions_are_refused_when_off_for_oneself_for_the_dead_and_by_a_hiding_user() {
    let s = TestServer::start().await;
    let [a, b, c] = s.users(["alice", "bob", "carol"]);
    // off by default: 403, and nothing written
    let (code, _) = act(&s, a, "request", b).await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    assert_eq!(status(&s, b, a).await, Value::Null);
    s.set_pref("configurations", "connection_enabled", json!(true));
    let (code, body) = act(&s, a, "request", a).await;
    assert_eq!(
        (code, body["errors"][0]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("user"))
    );
    assert_eq!(act(&s, a, "request", 999).await.0, StatusCode::NOT_FOUND);
    s.soft_delete_user(c);
    assert_eq!(act(&s, a, "request", c).await.0, StatusCode::NOT_FOUND);
    // bob hides alice: he takes no request from her
    s.post_empty(&format!("/api/v2/user/{a}/hide/"), Some(&s.jwt(b))).await;
    assert_eq!(act(&s, a, "request", b).await.0, StatusCode::FORBIDDEN);
    // answers without a request
    for action in ["accept", "reject", "cancel_reject", "cancel_request", "remove"] {
        let (code, body) = act(&s, b, action, a).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{action}: {body}");
    }
    // a body is refused; statuses are bounded
    let r = s
        .post(&format!("/api/v2/user/{b}/connection/request/"), Some(&s.jwt(a)), json!({"x": 1}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let many: Vec<i64> = (1..=1001).collect();
    let r = s
        .post("/api/v2/user/connection/statuses/", Some(&s.jwt(a)), json!({ "users": many }))
        .await;
    r.assert_field_error("users", "max_length");
    let r =
        s.post("/api/v2/user/connection/statuses/", Some(&s.jwt(a)), json!({"users": "1"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s.post("/api/v2/user/connection/statuses/", None, json!({"users": [1]})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    s.assert_consistent();
}

#[tokio::test]
async fn fifty_parallel_requests_and_answers_keep_the_counters_exact() {
    // a hundred requests at once from one address: past the default per-address cap
    let s = TestServer::start_with(|c| c.max_connections_per_address = 256).await;
    s.set_pref("configurations", "connection_enabled", json!(true));
    let hub = s.user("hub", None, false);
    let others: Vec<i64> = (0..50).map(|i| s.user(&format!("m{i}"), None, false)).collect();
    // each member asks the hub, twice at once (one request each)
    let asks = others.iter().flat_map(|&o| [o, o]).map(|o| {
        let (s, t) = (&s, s.jwt(o));
        async move {
            s.post_empty(&format!("/api/v2/user/{hub}/connection/request/"), Some(&t)).await.status
        }
    });
    let codes = futures_util::future::join_all(asks).await;
    assert!(codes.iter().all(|c| *c == StatusCode::OK), "{codes:?}");
    assert_eq!(me(&s, hub).await["connection_requests_received_counter"], 50);
    // the hub accepts them all at once, while half of them cancel theirs
    let hub_token = s.jwt(hub);
    let answers = others.iter().enumerate().map(|(i, &o)| {
        let (s, hub_token, own) = (&s, hub_token.clone(), s.jwt(o));
        async move {
            let (accept_path, cancel_path) = (
                format!("/api/v2/user/{o}/connection/accept/"),
                format!("/api/v2/user/{hub}/connection/cancel_request/"),
            );
            let accept = s.post_empty(&accept_path, Some(&hub_token));
            if i % 2 == 0 {
                let cancel = s.post_empty(&cancel_path, Some(&own));
                let (x, y) = tokio::join!(accept, cancel);
                (x.status, y.status)
            } else {
                (accept.await.status, StatusCode::OK)
            }
        }
    });
    let results = futures_util::future::join_all(answers).await;
    // per pair exactly one of accept / cancel won
    for (i, (accepted, cancelled)) in results.iter().enumerate() {
        assert!(
            (*accepted == StatusCode::OK) != (i % 2 == 0 && *cancelled == StatusCode::OK),
            "pair {i}: accept {accepted}, cancel {cancelled}"
        );
    }
    let connected = results.iter().filter(|(a, _)| *a == StatusCode::OK).count();
    let m = me(&s, hub).await;
    assert_eq!(m["connections_counter"], connected);
    assert_eq!(m["connection_requests_received_counter"], 0);
    let listed = s.get(&format!("/api/v2/user/{hub}/connections/?limit=100"), None).await;
    assert_eq!(listed.ids().len(), connected);
    s.assert_consistent();
}

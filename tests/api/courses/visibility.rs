//! Who sees a course, by its privacy and the caller's role, in the detail, the sections
//! and the search alike; `content_availability`; bad and read-only tokens.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{assert_consistent, body, create, set_status};
use crate::common::{TestServer, bad_tokens};

#[tokio::test]
async fn visibility_by_privacy_and_role() {
    let s = TestServer::start().await;
    let creator = s.user("creator", None, false);
    let manager = s.user("manager", None, false);
    let member = s.user("member", None, false);
    let invited = s.user("invited", None, false);
    let other = s.user("other", None, false);
    let tc = s.jwt(creator);
    let mut ids = Vec::new();
    for (i, privacy) in ["", "open", "private", "secret"].iter().enumerate() {
        let c = create(
            &s,
            &tc,
            json!({"name": format!("C{i}"), "type": "self-paced", "privacy": privacy}),
        )
        .await;
        let id = c["id"].as_i64().unwrap();
        set_status(&s, id, manager, "manager");
        set_status(&s, id, member, "joined");
        set_status(&s, id, invited, "invited");
        ids.push(id);
    }
    let tokens = [
        ("creator", Some(s.jwt(creator))),
        ("manager", Some(s.jwt(manager))),
        ("member", Some(s.jwt(member))),
        ("invited", Some(s.jwt(invited))),
        ("other", Some(s.jwt(other))),
        ("anonymous", None),
    ];
    // rows: privacy; columns: the callers above
    let table: [(&str, [bool; 6]); 4] = [
        ("", [true, true, false, false, false, false]),
        ("open", [true; 6]),
        ("private", [true; 6]),
        ("secret", [true, true, true, true, false, false]),
    ];
    for ((privacy, row), id) in table.iter().zip(&ids) {
        for ((who, tok), visible) in tokens.iter().zip(row) {
            let want = if *visible {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            };
            let r = s
                .get(&format!("/api/v2/course/{id}/"), tok.as_deref())
                .await;
            assert_eq!(r.status, want, "{privacy:?} seen by {who}");
            let r = s
                .get(&format!("/api/v2/course/{id}/section/"), tok.as_deref())
                .await;
            assert_eq!(r.status, want, "sections of {privacy:?} for {who}");
            // the search agrees with the detail
            let r = s
                .get("/api/v2/course/search/?limit=100", tok.as_deref())
                .await;
            let found = r.json()["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == *id);
            assert_eq!(found, *visible, "search: {privacy:?} for {who}");
        }
    }
    // join_status is the caller's, null for anonymous
    let r = s
        .get(
            &format!("/api/v2/course/{}/", ids[1]),
            tokens[2].1.as_deref(),
        )
        .await;
    assert_eq!(r.json()["join_status"], "joined");
    let r = s.get(&format!("/api/v2/course/{}/", ids[1]), None).await;
    assert_eq!(r.json()["join_status"], Value::Null);
    // content_availability off: anonymous reads are 401
    s.set_pref("configurations", "content_availability", json!(false));
    for path in [
        format!("/api/v2/course/{}/", ids[1]),
        "/api/v2/course/search/".to_owned(),
        format!("/api/v2/course/{}/section/", ids[1]),
        format!("/api/v2/course/{}/status/", ids[1]),
    ] {
        assert_eq!(
            s.get(&path, None).await.status,
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
    }
    assert_consistent(&s);
}

#[tokio::test]
async fn protected_routes_reject_bad_and_read_only_tokens() {
    let s = TestServer::start().await;
    let alice = s.user("alice", None, false);
    let ta = s.jwt(alice);
    let id = create(
        &s,
        &ta,
        json!({"name": "C", "type": "self-paced", "privacy": "open"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let sid = s
        .post(
            &format!("/api/v2/course/{id}/section/"),
            Some(&ta),
            json!({"name": "S"}),
        )
        .await
        .json()["id"]
        .as_i64()
        .unwrap();
    let writes: Vec<(Method, String, Value)> = vec![
        (Method::POST, "/api/v2/course/".into(), body("New")),
        (Method::PUT, format!("/api/v2/course/{id}/"), body("C")),
        (Method::PATCH, format!("/api/v2/course/{id}/"), json!({})),
        (Method::DELETE, format!("/api/v2/course/{id}/"), Value::Null),
        (
            Method::POST,
            format!("/api/v2/course/{id}/join/"),
            json!({}),
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{id}/join/"),
            Value::Null,
        ),
        (
            Method::POST,
            format!("/api/v2/course/{id}/invite/"),
            json!({"users": [alice]}),
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{id}/invite/"),
            json!({"users": [alice]}),
        ),
        (
            Method::POST,
            format!("/api/v2/course/{id}/role/"),
            json!({"joined": [alice]}),
        ),
        (
            Method::POST,
            format!("/api/v2/course/{id}/section/"),
            json!({"name": "x"}),
        ),
        (
            Method::PUT,
            format!("/api/v2/course/{id}/section/{sid}/"),
            json!({"name": "x"}),
        ),
        (
            Method::PATCH,
            format!("/api/v2/course/{id}/section/{sid}/"),
            json!({}),
        ),
        (
            Method::DELETE,
            format!("/api/v2/course/{id}/section/{sid}/"),
            Value::Null,
        ),
    ];
    let reads = [
        "/api/v2/course/".to_owned(),
        format!("/api/v2/course/{id}/join/"),
        format!("/api/v2/course/{id}/request_join/"),
    ];
    // an unknown id is 401 too: authentication comes first
    let unknown: Vec<(Method, String, Value)> = writes
        .iter()
        .map(|(m, p, b)| {
            (
                m.clone(),
                p.replace(&format!("/{id}/"), "/9999/"),
                b.clone(),
            )
        })
        .collect();
    for (what, tok) in bad_tokens(&s).await {
        for (m, p, b) in writes.iter().chain(&unknown) {
            // an invalid body must not matter either
            let body = if b.is_null() {
                None
            } else {
                Some(json!("not an object"))
            };
            let r = s.call(m.clone(), p, tok.as_deref(), body).await;
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{what}: {m} {p}");
        }
        for p in &reads {
            let r = s.get(p, tok.as_deref()).await;
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{what}: GET {p}");
        }
        // public (CA) reads: a bad token is 401 there too; no token is fine
        for p in [
            format!("/api/v2/course/{id}/"),
            "/api/v2/course/search/".to_owned(),
            format!("/api/v2/course/{id}/status/"),
            format!("/api/v2/course/{id}/section/"),
            format!("/api/v2/course/{id}/section/{sid}/"),
        ] {
            let r = s.get(&p, tok.as_deref()).await;
            let want = if tok.is_some() {
                StatusCode::UNAUTHORIZED
            } else {
                StatusCode::OK
            };
            assert_eq!(r.status, want, "{what}: GET {p}");
        }
    }
    let read_only = s.oauth_token(alice, "read");
    for (m, p, b) in &writes {
        let r = s
            .call(
                m.clone(),
                p,
                Some(&read_only),
                (!b.is_null()).then(|| b.clone()),
            )
            .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {p}");
        assert_eq!(r.error_code(), "insufficient_scope", "{m} {p}");
    }
    let r = s
        .get(&format!("/api/v2/course/{id}/"), Some(&read_only))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        s.get("/api/v2/course/", Some(&read_only)).await.status,
        StatusCode::OK
    );
}

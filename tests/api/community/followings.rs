//! Users and followings: the lists and their order, following and unfollowing, and the
//! caller's connection status.

use hearth::clock::SECOND;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

/// a, b, c, d; a follows b, c, d (in that order, one second apart) and b follows a.
async fn community() -> (TestServer, [i64; 4]) {
    let s = TestServer::start().await;
    let [a, b, c, d] = s.users(["alice", "bob", "carol", "dave"]);
    for (who, whom) in [(a, b), (a, c), (a, d), (b, a)] {
        s.clock.advance(SECOND);
        let r = s.post(&format!("/api/v2/user/{whom}/follow/"), Some(&s.jwt(who)), json!({})).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
        assert_eq!(r.text, "");
    }
    (s, [a, b, c, d])
}

#[tokio::test]
async fn followings_are_mutual_first_then_newest() {
    let (s, [a, b, c, d]) = community().await;
    let path = format!("/api/v2/user/{a}/followings/");
    let cases = [("", vec![b, d, c]), ("?mutual=1", vec![b]), ("?mutual=0", vec![d, c])];
    for (qs, want) in &cases {
        let r = s.get(&format!("{path}{qs}"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{qs}");
        assert_eq!(r.ids(), *want, "{qs}");
        assert_eq!(r.json()["count"], want.len(), "{qs}");
    }
    for (user, q, want) in [(a, "", b), (b, "?mutual=1", a), (c, "?mutual=0", a)] {
        let list = format!("/api/v2/user/{user}/followers/{q}");
        assert_eq!(s.list_ids(&list, None).await, [want], "{list}");
    }
    // pagination keeps mutual
    let r = s.get(&format!("{path}?mutual=0&limit=1"), None).await;
    assert_eq!(r.ids(), [d]);
    assert_eq!(r.json()["next"], format!("{}{path}?mutual=0&limit=1&offset=1", s.url));
    for bad in ["true", "2", "", "01", "yes", "-1"] {
        let r = s.get(&format!("{path}?mutual={bad}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "mutual={bad}");
        assert_eq!(r.json()["errors"][0]["field"], "mutual");
    }
    // full User JSON with exact counters
    let r = s.get(&path, None).await;
    let bob = &r.json()["results"][0];
    let keys: Vec<&str> = bob.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 31, "{keys:?}");
    assert!(!keys.contains(&"email"));
    assert_eq!(bob["username"], "bob");
    assert_eq!(bob["followings_counter"], 1);
    assert_eq!(bob["followers_counter"], 1);
    assert_eq!(bob["connection_status"], Value::Null);
    assert_eq!(bob["avatar"], format!("{}/static/default/avatar.svg", s.url));
    assert_eq!(bob["tags"], json!([]));
    assert_eq!(bob["gender"], "Unspecified");
    let r = s.get(&format!("/api/v2/user/{a}/"), None).await;
    assert_eq!(r.json()["followings_counter"], 3);
    assert_eq!(r.json()["followers_counter"], 1);
    s.assert_consistent();
}

#[tokio::test]
async fn ties_break_by_user_id_and_deleted_users_vanish() {
    let s = TestServer::start().await;
    let a = s.user("alice", None, false);
    let others: Vec<i64> = (0..4).map(|i| s.user(&format!("u{i}"), None, false)).collect();
    // same instant for all four edges, followed in reverse id order
    for &o in others.iter().rev() {
        let r = s.post_empty(&format!("/api/v2/user/{o}/follow/"), Some(&s.jwt(a))).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    }
    let path = format!("/api/v2/user/{a}/followings/");
    assert_eq!(s.get(&path, None).await.ids(), others);
    s.soft_delete_user(others[1]);
    let r = s.get(&path, None).await;
    assert_eq!(r.ids(), [others[0], others[2], others[3]]);
    assert_eq!(r.json()["count"], 3);
    let r = s.get(&format!("/api/v2/user/{a}/"), None).await;
    assert_eq!(r.json()["followings_counter"], 3);
    s.assert_consistent();
    // unknown and deleted users are 404 everywhere
    let t = s.jwt(a);
    let gone = others[1];
    for id in [gone, 9999] {
        for sub in ["", "followings/", "followers/", "is_followed/", "is_follower/"] {
            let r = s.get(&format!("/api/v2/user/{id}/{sub}"), Some(&t)).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{id}/{sub}");
        }
        let r = s.post(&format!("/api/v2/user/{id}/follow/"), Some(&t), json!({})).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "follow {id}");
    }
    assert_eq!(s.get("/api/v2/user/abc/followings/", None).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn following_toggles_and_keeps_both_sides_exact() {
    let (s, [a, b, c, _d]) = community().await;
    let ta = s.jwt(a);
    let tb = s.jwt(b);
    let rel = |caller: &str, id: i64, what: &str| {
        let s = &s;
        let caller = caller.to_owned();
        let what = what.to_owned();
        async move {
            let r = s.get(&format!("/api/v2/user/{id}/{what}/"), Some(&caller)).await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            r.json()[what.as_str()].as_bool().unwrap()
        }
    };
    assert!(rel(&ta, b, "is_followed").await);
    assert!(rel(&ta, b, "is_follower").await);
    assert!(rel(&ta, c, "is_followed").await);
    assert!(!rel(&ta, c, "is_follower").await);
    assert!(!rel(&tb, c, "is_followed").await);
    // a unfollows b: b's edge to a is no longer mutual
    let r = s.post(&format!("/api/v2/user/{b}/follow/"), Some(&ta), json!({})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert!(!rel(&ta, b, "is_followed").await);
    assert!(rel(&ta, b, "is_follower").await);
    let followings = |q: &str| format!("/api/v2/user/{b}/followings/?mutual={q}");
    assert_eq!(s.list_ids(&followings("0"), None).await, [a]);
    let r = s.get(&followings("1"), None).await;
    assert_eq!(r.json()["count"], 0);
    let r = s.get(&format!("/api/v2/user/{a}/"), None).await;
    assert_eq!(r.json()["followings_counter"], 2);
    s.assert_consistent();
    // and follows again (no body at all, as the SDK posts): mutual again, newest edge
    let r = s.post_empty(&format!("/api/v2/user/{b}/follow/"), Some(&ta)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.get(&format!("/api/v2/user/{b}/followings/?mutual=1"), None).await;
    assert_eq!(r.ids(), [a]);
    s.assert_consistent();
    // following yourself
    let r = s.post(&format!("/api/v2/user/{a}/follow/"), Some(&ta), json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // a body is refused
    let r = s.post(&format!("/api/v2/user/{c}/follow/"), Some(&ta), json!({"x": 1})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // auth and scope
    let read = s.oauth_token(a, "read");
    let follow_c = format!("/api/v2/user/{c}/follow/");
    for (token, status, code) in [
        (None, StatusCode::UNAUTHORIZED, "not_authenticated"),
        (Some(read.as_str()), StatusCode::FORBIDDEN, "insufficient_scope"),
    ] {
        s.post(&follow_c, token, json!({})).await.assert_error(status, code);
    }
    let r = s.get(&format!("/api/v2/user/{c}/is_followed/"), Some(&s.oauth_token(a, "read"))).await;
    assert_eq!(r.json(), json!({"is_followed": true}));
    for sub in ["is_followed", "is_follower"] {
        let r = s.get(&format!("/api/v2/user/{c}/{sub}/"), None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{sub}");
        assert_eq!(r.error_code(), "not_authenticated");
    }
    let r = s.get(&format!("/api/v2/user/{c}/follow/"), Some(&ta)).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("POST"));
}

#[tokio::test]
async fn connection_status_is_the_callers_relation() {
    let (s, [a, b, c, d]) = community().await;
    // carol follows dave
    let tc = s.jwt(c);
    s.post(&format!("/api/v2/user/{d}/follow/"), Some(&tc), json!({})).await;
    let r = s.get(&format!("/api/v2/user/{a}/followings/"), Some(&tc)).await;
    let status: Vec<(i64, Value)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["id"].as_i64().unwrap(), u["connection_status"].clone()))
        .collect();
    assert_eq!(status, [(b, Value::Null), (d, json!("followed")), (c, Value::Null)]);
    let r = s.get(&format!("/api/v2/user/{d}/"), Some(&tc)).await;
    assert_eq!(r.json()["connection_status"], "followed");
    let r = s.get(&format!("/api/v2/user/{d}/"), None).await;
    assert_eq!(r.json()["connection_status"], Value::Null);
    assert_eq!(r.json()["followers_counter"], 2);
}

//! Membership: joining and leaving, requests, invitations, roles, and the member lists.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{body, has};
use crate::common::TestServer;

#[tokio::test]
async fn join_leave_invite_and_roles() {
    let s = TestServer::start().await;
    let [alice, bob, carol, dave] = s.users(["alice", "bob", "carol", "dave"]);
    let (ta, tb, tc, td) = (s.jwt(alice), s.jwt(bob), s.jwt(carol), s.jwt(dave));
    let open = s.course(&ta, "Open", "open").await;
    let private = s.course(&ta, "Private", "private").await;
    let secret = s.course(&ta, "Secret", "secret").await;
    let draft = s.create_id("/api/v2/course/", &ta, body("Draft")).await;
    let join = |id: i64| format!("/api/v2/course/{id}/join/");
    let status = |id: i64| format!("/api/v2/course/{id}/status/");

    // open: joined at once (the SDK posts with no body)
    let r = s
        .client
        .post(format!("{}{}", s.url, join(open)))
        .bearer_auth(&tb)
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    let r = TestServer::read(r).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["join_status"], "joined");
    assert_eq!(r.json()["member_count"], 2);
    assert_eq!(s.get(&status(open), Some(&tb)).await.json(), json!({"status": "joined"}));
    assert_eq!(s.get(&status(open), None).await.json(), json!({"status": null}));
    // joining again changes nothing
    let r = s.post(&join(open), Some(&tb), json!({})).await;
    assert_eq!(r.json()["join_status"], "joined");
    // private: a request, listed for managers, accepted by invite
    let r = s.post(&join(private), Some(&tc), json!({})).await;
    assert_eq!(r.json()["join_status"], "requested");
    let requests = format!("/api/v2/course/{private}/request_join/");
    let r = s.get(&requests, Some(&ta)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["count"], 1);
    assert_eq!(r.json()["results"][0]["id"], carol);
    assert_eq!(r.json()["results"][0]["join_status"], "requested");
    assert_eq!(r.json()["results"][0]["username"], "carol");
    // a requester sees the private course but not its lists
    for list in [requests, join(private)] {
        assert_eq!(s.status(&list, Some(&tc)).await, StatusCode::FORBIDDEN, "{list}");
    }
    let invite = format!("/api/v2/course/{private}/invite/");
    let r = s.post(&invite, Some(&tc), json!({"users": [dave]})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.post(&invite, Some(&ta), json!({"users": [carol, dave.to_string()]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(s.get(&status(private), Some(&tc)).await.json()["status"], "joined");
    assert_eq!(s.get(&status(private), Some(&td)).await.json()["status"], "invited");
    // withdraw dave's invitation; inviting a member changes nothing
    let r = s.call(Method::DELETE, &invite, Some(&ta), Some(json!({"users": [dave, carol]}))).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&status(private), Some(&td)).await.json()["status"], Value::Null);
    assert_eq!(s.get(&status(private), Some(&tc)).await.json()["status"], "joined");
    s.post(&invite, Some(&ta), json!({"users": [carol, alice]})).await;
    for (t, want) in [(&tc, "joined"), (&ta, "creator")] {
        let r = s.get(&status(private), Some(t)).await;
        assert_eq!(r.json()["status"], want);
    }
    // invite: bad bodies
    let r = s.post(&invite, Some(&ta), json!({"users": [9999]})).await;
    assert!(has(&r, "users", "invalid"), "{}", r.text);
    let r = s.post(&invite, Some(&ta), json!({})).await;
    assert!(has(&r, "users", "required"), "{}", r.text);
    let r = s.post(&invite, Some(&ta), json!({"users": []})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // secret: 404 unless invited; an invited user joins
    let r = s.post(&join(secret), Some(&td), json!({})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    s.post(&format!("/api/v2/course/{secret}/invite/"), Some(&ta), json!({"users": [dave]})).await;
    let r = s.post(&join(secret), Some(&td), json!({})).await;
    assert_eq!(r.json()["join_status"], "joined");
    // a draft: 404 for others
    assert_eq!(s.post(&join(draft), Some(&tb), json!({})).await.status, StatusCode::NOT_FOUND);
    // leave: 204; the creator cannot leave
    let r = s.delete(&join(open), Some(&tb)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&status(open), Some(&tb)).await.json()["status"], Value::Null);
    let r = s.delete(&join(open), Some(&ta)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // withdrawing a request
    let r = s.post(&join(private), Some(&tb), json!({})).await;
    assert_eq!(r.json()["join_status"], "requested");
    s.delete(&join(private), Some(&tb)).await;
    assert_eq!(s.get(&status(private), Some(&tb)).await.json()["status"], Value::Null);

    // roles on the private course: carol joined
    let role = format!("/api/v2/course/{private}/role/");
    let r = s.post(&role, Some(&tc), json!({"managers": [carol]})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.post(&role, Some(&ta), json!({"managers": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(s.get(&status(private), Some(&tc)).await.json()["status"], "manager");
    // the new manager reads the lists and invites
    let r = s.get(&join(private), Some(&tc)).await;
    assert_eq!(r.status, StatusCode::OK);
    let got: Vec<(i64, String)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_i64().unwrap(), m["join_status"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(got, vec![(alice, "creator".into()), (carol, "manager".into())]);
    let r = s
        .post(&format!("/api/v2/course/{private}/invite/"), Some(&tc), json!({"users": [bob]}))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.get(&format!("{}?statuses=invited", join(private)), Some(&tc)).await;
    assert_eq!(r.json()["count"], 1);
    assert_eq!(r.json()["results"][0]["id"], bob);
    let r = s.get(&format!("{}?statuses=invited,bogus", join(private)), Some(&tc)).await;
    assert!(has(&r, "statuses", "invalid_choice"), "{}", r.text);
    // the creator's status never changes; non-members and unknown users are 400
    for b in [
        json!({"joined": [alice]}),
        json!({"unjoined": [alice]}),
        json!({"managers": [dave]}),
        json!({"joined": [bob]}),
        json!({"managers": [12345]}),
        json!({}),
        json!({"managers": [], "joined": []}),
    ] {
        let r = s.post(&role, Some(&ta), b.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{b}: {}", r.text);
    }
    assert_eq!(s.get(&status(private), Some(&ta)).await.json()["status"], "creator");
    // demote and remove
    let r = s.post(&role, Some(&ta), json!({"joined": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&status(private), Some(&tc)).await.json()["status"], "joined");
    let r = s.post(&role, Some(&ta), json!({"unjoined": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&status(private), Some(&tc)).await.json()["status"], Value::Null);
    // methods
    let r = s.get(&role, Some(&ta)).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    s.assert_consistent();
}

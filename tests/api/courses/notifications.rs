//! Course notifications, as the kit's notification list shows them: a join request and
//! its answer, an invitation and its answer, a member made a manager, and a comment on
//! a lesson (to the managers, when the course asks for it); each taken back with its
//! cause.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{create, patch};
use crate::common::TestServer;

/// The caller's course notifications, newest first: (type, course id).
async fn course_notes(s: &TestServer, tok: &str) -> Vec<(String, i64)> {
    notes(s, tok)
        .await
        .iter()
        .map(|n| (n["type"].as_str().unwrap().to_owned(), n["course"]["id"].as_i64().unwrap_or(0)))
        .collect()
}

async fn notes(s: &TestServer, tok: &str) -> Vec<Value> {
    let page = s.get("/api/v2/notification/", Some(tok)).await.json();
    let mut out = Vec::new();
    for g in page["results"].as_array().unwrap() {
        for n in g["aggregated"].as_array().unwrap() {
            if n.get("course").is_some() {
                out.push(n.clone());
            }
        }
    }
    out
}

#[tokio::test]
async fn requests_invitations_and_roles_reach_who_they_concern() {
    let s = TestServer::start().await;
    let [alice, bob, carol, dave] = s.users(["alice", "bob", "carol", "dave"]);
    let (ta, tb, tc, td) = (s.jwt(alice), s.jwt(bob), s.jwt(carol), s.jwt(dave));
    let c = create(&s, &ta, json!({"name": "C", "type": "self-paced", "privacy": "private"})).await;
    let id = c["id"].as_i64().unwrap();
    let join = format!("/api/v2/course/{id}/join/");
    // a request tells the creator; taken back, it is gone
    assert_eq!(s.post_empty(&join, Some(&tc)).await.status, StatusCode::OK);
    let got = notes(&s, &ta).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["type"], "user_requested_to_join_course");
    assert_eq!(
        (got[0]["course"]["name"].clone(), got[0]["user"]["username"].clone()),
        (json!("C"), json!("carol"))
    );
    assert_eq!(s.delete(&join, Some(&tc)).await.status, StatusCode::NO_CONTENT);
    assert!(course_notes(&s, &ta).await.is_empty());
    // asked again and accepted: the requester is told, the request's notification goes
    s.post_empty(&join, Some(&tc)).await;
    let invite = format!("/api/v2/course/{id}/invite/");
    let r = s.post(&invite, Some(&ta), json!({"users": [carol]})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(course_notes(&s, &tc).await, [("user_added_to_course".into(), id)]);
    assert!(course_notes(&s, &ta).await.is_empty());
    // an invitation tells the invitee (a secret course shows to them); joining tells the
    // creator and takes the invitation's notification out
    patch(&s, &ta, id, json!({"privacy": "secret"})).await;
    s.post(&invite, Some(&ta), json!({"users": [dave]})).await;
    assert_eq!(course_notes(&s, &td).await, [("user_invited_to_join_course".into(), id)]);
    assert_eq!(s.post_empty(&join, Some(&td)).await.status, StatusCode::OK);
    assert!(course_notes(&s, &td).await.is_empty());
    assert_eq!(course_notes(&s, &ta).await, [("user_accepted_to_join_course".into(), id)]);
    // an invitation withdrawn goes with it; the uninvited never see the secret course
    s.post(&invite, Some(&ta), json!({"users": [bob]})).await;
    assert_eq!(course_notes(&s, &tb).await.len(), 1);
    let r =
        s.call(reqwest::Method::DELETE, &invite, Some(&ta), Some(json!({"users": [bob]}))).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert!(course_notes(&s, &tb).await.is_empty());
    // a requester who joins once the course is open: the request is moot
    let [erin] = s.users(["erin"]);
    let te = s.jwt(erin);
    patch(&s, &ta, id, json!({"privacy": "private"})).await;
    s.post_empty(&join, Some(&te)).await;
    assert_eq!(course_notes(&s, &ta).await[0], ("user_requested_to_join_course".into(), id));
    patch(&s, &ta, id, json!({"privacy": "open"})).await;
    assert_eq!(s.post_empty(&join, Some(&te)).await.status, StatusCode::OK);
    assert!(course_notes(&s, &ta).await.iter().all(|(t, _)| t != "user_requested_to_join_course"));
    // a member made a manager is told, once
    let role = format!("/api/v2/course/{id}/role/");
    for _ in 0..2 {
        let r = s.post(&role, Some(&ta), json!({"managers": [carol]})).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    }
    assert_eq!(
        course_notes(&s, &tc).await,
        [("manager_added_to_course".into(), id), ("user_added_to_course".into(), id)]
    );
    s.assert_consistent();
}

#[tokio::test]
async fn a_lesson_comment_tells_the_managers_who_asked_for_it() {
    let s = TestServer::start().await;
    let [alice, bob, carol] = s.users(["alice", "bob", "carol"]);
    let (ta, tb, tc) = (s.jwt(alice), s.jwt(bob), s.jwt(carol));
    let c = create(&s, &ta, json!({"name": "C", "type": "self-paced", "privacy": "open"})).await;
    let id = c["id"].as_i64().unwrap();
    for t in [&tb, &tc] {
        s.post_empty(&format!("/api/v2/course/{id}/join/"), Some(t)).await;
    }
    s.post(&format!("/api/v2/course/{id}/role/"), Some(&ta), json!({"managers": [carol]})).await;
    let r = s.post(&format!("/api/v2/course/{id}/section/"), Some(&ta), json!({"name": "S"})).await;
    let sid = r.json()["id"].as_i64().unwrap();
    let lessons = format!("/api/v2/course/{id}/section/{sid}/lesson/");
    let r = s.post(&lessons, Some(&ta), json!({"name": "L", "status": "published"})).await;
    let lid = r.json()["id"].as_i64().unwrap();
    let comments = format!("{lessons}{lid}/comment/");
    let r = s.post(&comments, Some(&tb), json!({"text": "<p>hi <b>there</b></p>"})).await;
    let cid = r.json()["id"].as_i64().unwrap();
    // the creator and the manager are told, with the comment and where it is
    for t in [&ta, &tc] {
        let got: Vec<Value> = notes(&s, t)
            .await
            .into_iter()
            .filter(|n| n["type"] == "user_commented_a_course_lesson")
            .collect();
        assert_eq!(got.len(), 1, "{got:?}");
        let n = &got[0];
        assert_eq!(n["user"]["username"], "bob");
        assert_eq!(n["course"]["slug"], c["slug"]);
        assert_eq!(
            (n["comment"]["lesson_id"].clone(), n["comment"]["section_id"].clone()),
            (json!(lid), json!(sid))
        );
        assert_eq!(n["comment"]["lesson_name"], "L");
        assert_eq!(n["comment"]["html"], "<p>hi <b>there</b></p>");
    }
    // not the author themself
    assert!(notes(&s, &tb).await.iter().all(|n| n["type"] != "user_commented_a_course_lesson"));
    // a manager made a plain member again loses what they were told as one
    s.post(&format!("/api/v2/course/{id}/role/"), Some(&ta), json!({"joined": [carol]})).await;
    assert!(course_notes(&s, &tc).await.is_empty(), "{:?}", course_notes(&s, &tc).await);
    let unseen: i64 = s.db_read(move |c| {
        c.query_row("SELECT unseen_notifications FROM user WHERE id = ?1", [carol], |r| r.get(0))
    });
    assert_eq!(unseen, 0);
    // the comment deleted takes its notifications
    assert_eq!(
        s.delete(&format!("{comments}{cid}/"), Some(&tb)).await.status,
        StatusCode::NO_CONTENT
    );
    assert!(notes(&s, &ta).await.iter().all(|n| n["type"] != "user_commented_a_course_lesson"));
    // with the course's notifications of comments off, nobody is told
    patch(&s, &ta, id, json!({"new_comment_notification_enabled": false})).await;
    s.post(&comments, Some(&tb), json!({"text": "again"})).await;
    assert!(notes(&s, &ta).await.iter().all(|n| n["type"] != "user_commented_a_course_lesson"));
    s.assert_consistent();
}

//! `GET /api/v2/user/{id}/courses/`: a user's courses, visible to the caller exactly as
//! the course search shows them.

use std::collections::BTreeSet;

use hearth::clock::SECOND;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{no_content, start};
use crate::common::{TestServer, ids};

async fn course(s: &TestServer, t: &str, name: &str, privacy: &str) -> i64 {
    s.clock.advance(SECOND);
    let r = s
        .post(
            "/api/v2/course/",
            Some(t),
            json!({"name": name, "type": "self-paced", "privacy": privacy}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()["id"].as_i64().unwrap()
}

/// Every id of a paginated list, page after page.
async fn all_ids(s: &TestServer, path: &str, t: Option<&str>) -> Vec<i64> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let v: Value = s.get(&format!("{path}{sep}limit=100"), t).await.json();
    assert!(v["next"].is_null());
    ids(&v)
}

#[tokio::test]
async fn a_users_courses_are_what_the_search_lets_the_caller_see() {
    let (s, w) = start().await;
    let (dan, dan_t) = s.login("dan");
    let read = s.oauth_token(w.cy, "read");
    // ann's courses of every privacy; bob joins or is invited to some
    let open = course(&s, &w.ann_t, "Open", "open").await;
    let private = course(&s, &w.ann_t, "Private", "private").await;
    let secret = course(&s, &w.ann_t, "Secret", "secret").await;
    let draft = course(&s, &w.ann_t, "Draft", "").await;
    let gone = course(&s, &w.ann_t, "Gone", "open").await;
    no_content(&s.delete(&format!("/api/v2/course/{gone}/"), Some(&w.ann_t)).await);
    let invited = course(&s, &w.ann_t, "Invited", "secret").await;
    let invite = |id: i64, user: i64| {
        let path = format!("/api/v2/course/{id}/invite/");
        let (s, t) = (&s, w.ann_t.clone());
        async move { no_content(&s.post(&path, Some(&t), json!({ "users": [user] })).await) }
    };
    for id in [secret, invited] {
        invite(id, w.bob).await;
    }
    for id in [secret, open] {
        let r = s.post(&format!("/api/v2/course/{id}/join/"), Some(&w.bob_t), json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    // cy manages the draft
    invite(draft, w.cy).await;
    s.db_write(move |tx| {
        hearth::db::members::set(
            tx,
            hearth::db::members::Roster::Course,
            draft,
            w.cy,
            hearth::model::course::JoinStatus::Manager,
            0,
        )
    });
    for (who, t) in [
        ("anonymous", None),
        ("ann", Some(&w.ann_t)),
        ("bob", Some(&w.bob_t)),
        ("cy", Some(&w.cy_t)),
        ("dan", Some(&dan_t)),
        ("cy read-only", Some(&read)),
    ] {
        let t = t.map(String::as_str);
        let visible: BTreeSet<i64> =
            all_ids(&s, "/api/v2/course/search/", t).await.into_iter().collect();
        for (member, statuses, has) in [
            (w.ann, "", vec![open, private, secret, draft, invited]),
            (w.bob, "", vec![open, secret]),
            (w.bob, "invited", vec![invited]),
            (w.bob, "joined,invited", vec![open, secret, invited]),
            (w.cy, "manager", vec![draft]),
            (dan, "", vec![]),
        ] {
            let q =
                if statuses.is_empty() { String::new() } else { format!("?statuses={statuses}") };
            let got = all_ids(&s, &format!("/api/v2/user/{member}/courses/{q}"), t).await;
            // newest first, of those the search shows this caller
            let mut want: Vec<i64> = has.into_iter().filter(|c| visible.contains(c)).collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(got, want, "{who} looking at user {member} {statuses}");
        }
    }
    // what the caller sees of each course is its own status
    let v = s.get(&format!("/api/v2/user/{}/courses/", w.ann), Some(&w.bob_t)).await.json();
    let by_id =
        |id: i64| v["results"].as_array().unwrap().iter().find(|c| c["id"] == id).cloned().unwrap();
    assert_eq!(by_id(open)["join_status"], "joined");
    assert_eq!(by_id(private)["join_status"], Value::Null);
    assert_eq!(by_id(open)["created_by"]["id"], w.ann);
    assert!(by_id(open)["image_medium"].as_str().unwrap().starts_with("http"));
}

#[tokio::test]
async fn a_users_courses_errors_and_pages() {
    let (s, w) = start().await;
    let first = course(&s, &w.ann_t, "One", "open").await;
    let second = course(&s, &w.ann_t, "Two", "open").await;
    let path = format!("/api/v2/user/{}/courses/", w.ann);
    let v = s.get(&format!("{path}?limit=1"), None).await.json();
    assert_eq!((ids(&v), v["count"].as_i64()), (vec![second], Some(2)));
    let next = s.list_ids(&format!("{path}?limit=1&offset=1"), None).await;
    assert_eq!(next, [first]);
    for (q, field, code) in
        [("statuses=owner", "statuses", "invalid_choice"), ("offset=x", "offset", "invalid")]
    {
        let r = s.get(&format!("{path}?{q}"), None).await;
        r.assert_field_error(field, code);
    }
    for unknown in ["/api/v2/user/999/courses/", "/api/v2/user/me/courses/"] {
        assert_eq!(s.status(unknown, None).await, StatusCode::NOT_FOUND, "{unknown}");
    }
    s.set_pref("configurations", "content_availability", json!(false));
    s.assert_needs_caller(&path, "nope").await;
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.json()["count"], 2);
    s.soft_delete_user(w.ann);
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.status, StatusCode::NOT_FOUND);
}

//! Sections: create, read, rename, delete, their order, and the lesson counts.

use reqwest::StatusCode;
use serde_json::json;

use super::{create, has, patch};
use crate::common::TestServer;

#[tokio::test]
async fn sections_and_their_order() {
    let s = TestServer::start().await;
    let [alice, bob] = s.users(["alice", "bob"]);
    let (ta, tb) = (s.jwt(alice), s.jwt(bob));
    let c = create(&s, &ta, json!({"name": "C", "type": "self-paced", "privacy": "open"})).await;
    let id = c["id"].as_i64().unwrap();
    let base = format!("/api/v2/course/{id}/section/");
    let mut sids = Vec::new();
    for name in ["One", "Two", "Three"] {
        let r = s.post(&base, Some(&ta), json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        assert_eq!(r.json()["name"], name);
        assert_eq!(r.json()["num_lessons"], 0);
        sids.push(r.json()["id"].as_i64().unwrap());
    }
    let r = s.get(&format!("/api/v2/course/{id}/"), None).await;
    assert_eq!(r.json()["sections_order"], json!(sids));
    assert_eq!(r.json()["num_sections"], 3);
    // sections_order must list exactly these ids
    for bad in [
        json!([sids[0], sids[1]]),
        json!([sids[0], sids[1], sids[2], 999]),
        json!([sids[0], sids[0], sids[1]]),
    ] {
        let r = patch(&s, &ta, id, json!({"sections_order": bad})).await;
        assert!(has(&r, "sections_order", "invalid"), "{}", r.text);
    }
    let order = json!([sids[2], sids[0], sids[1]]);
    let r = patch(&s, &ta, id, json!({"sections_order": order})).await;
    assert_eq!(r.json()["sections_order"], order);
    let r = s.get(&base, None).await;
    let listed: Vec<i64> =
        r.json().as_array().unwrap().iter().map(|x| x["id"].as_i64().unwrap()).collect();
    assert_eq!(json!(listed), order);
    // one section: read, rename (PUT needs the name), delete
    let one = format!("{base}{}/", sids[0]);
    assert_eq!(s.get(&one, None).await.json()["name"], "One");
    let r = s.patch(&one, Some(&ta), json!({"name": "Uno"})).await;
    assert_eq!(r.json()["name"], "Uno");
    let r = s.put(&one, Some(&ta), json!({})).await;
    assert!(has(&r, "name", "required"));
    let r = s.post(&base, Some(&ta), json!({"name": ""})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s.post(&base, Some(&ta), json!({"name": "x".repeat(256)})).await;
    assert!(has(&r, "name", "max_length"));
    // members and others may read but not write
    let r = s.post(&base, Some(&tb), json!({"name": "Mine"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.delete(&one, Some(&tb)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.delete(&one, Some(&ta)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&one, None).await.status, StatusCode::NOT_FOUND);
    let r = s.get(&format!("/api/v2/course/{id}/"), None).await;
    assert_eq!(r.json()["sections_order"], json!([sids[2], sids[1]]));
    // a section of another course is 404 here
    let other =
        create(&s, &ta, json!({"name": "D", "type": "self-paced", "privacy": "open"})).await;
    let r = s.get(&format!("/api/v2/course/{}/section/{}/", other["id"], sids[1]), None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // lessons count; completion rate of the caller
    let now = s.clock.now();
    let (s1, s2) = (sids[1], sids[2]);
    s.db_write(move |tx| {
            for (sec, n) in [(s1, 3), (s2, 1)] {
                for i in 0..n {
                    tx.execute(
                        "INSERT INTO course_lesson (section_id, name, created_at, status)
                         VALUES (?1, ?2, ?3, 'published')",
                        rusqlite::params![sec, format!("L{i}"), now],
                    )?;
                }
            }
            tx.execute(
                "INSERT INTO course_lesson_completion (lesson_id, user_id, completed_at) VALUES (1, ?1, ?2)",
                rusqlite::params![bob, now],
            )?;
            Ok(())
        });
    let r = s.get(&format!("/api/v2/course/{id}/"), Some(&tb)).await;
    assert_eq!(r.json()["num_lessons"], 4);
    assert_eq!(r.json()["user_completion_rate"], 25);
    assert_eq!(
        s.get(&format!("/api/v2/course/{id}/"), Some(&ta)).await.json()["user_completion_rate"],
        0
    );
    assert_eq!(s.get(&format!("{base}{s1}/"), None).await.json()["num_lessons"], 3);
    s.assert_consistent();
}

/// The kit's course page, dashboard and editor ask for the course with `?view=` and read
/// its `sections` (the editor appends a new section to them): there, in
/// `sections_order` order, each with its lessons (none yet here: tests/api/courses/lessons.rs); the
/// plain read (and every list) carries none; any other view is 400.
#[tokio::test]
async fn a_course_asked_for_a_view_carries_its_sections_in_order() {
    let s = TestServer::start().await;
    let [alice, bob] = s.users(["alice", "bob"]);
    let (ta, tb) = (s.jwt(alice), s.jwt(bob));
    let c = create(&s, &ta, json!({"name": "C", "type": "self-paced", "privacy": "open"})).await;
    let id = c["id"].as_i64().unwrap();
    assert!(c.get("sections").is_none(), "{c}");
    let detail = format!("/api/v2/course/{id}/");
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        s.get(&format!("{detail}?view=edit"), Some(&ta)).await.json()["sections"],
        json!([])
    );
    let mut sids = Vec::new();
    for name in ["One", "Two", "Three"] {
        let r = s.post(&format!("{detail}section/"), Some(&ta), json!({"name": name})).await;
        sids.push(r.json()["id"].as_i64().unwrap());
    }
    patch(&s, &ta, id, json!({"sections_order": [sids[2], sids[0], sids[1]]})).await;
    let listed = s.get(&format!("{detail}section/"), None).await.json();
    for (view, tok) in
        [("edit", Some(&ta)), ("dashboard", Some(&ta)), ("user", Some(&tb)), ("user", None)]
    {
        let r = s.get(&format!("{detail}?view={view}"), tok.map(String::as_str)).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        let j = r.json();
        assert_eq!(names(&j), ["Three", "One", "Two"], "{view}");
        assert_eq!(j["sections"], listed, "{view}: as the section list");
        for sec in j["sections"].as_array().unwrap() {
            assert_eq!((sec["num_lessons"].clone(), sec["lessons"].clone()), (json!(0), json!([])));
        }
    }
    assert!(s.get(&detail, Some(&ta)).await.json().get("sections").is_none());
    // joining answers the course as its page shows it, which the kit puts in its place
    let r = s.post(&format!("{detail}join/"), Some(&tb), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        (r.json()["join_status"].clone(), r.json()["sections"].clone()),
        (json!("joined"), listed.clone())
    );
    let mine = s.get("/api/v2/course/", Some(&ta)).await.json();
    assert!(mine["results"][0].get("sections").is_none(), "{mine}");
    for bad in ["?view=", "?view=admin", "?view=USER"] {
        let r = s.get(&format!("{detail}{bad}"), Some(&ta)).await;
        assert!(has(&r, "view", "invalid_choice"), "{bad}: {}", r.text);
    }
}

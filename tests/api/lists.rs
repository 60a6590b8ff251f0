//! Lists in request bodies (SPEC §3): `categories`, `users`, `managers`, `joined`,
//! `unjoined` and `sections_order` take at most 1000 items (else 400 `max_length` on
//! the field and nothing changes), repeats collapse, and a full list of real ids
//! passes the database checks.

use reqwest::multipart::Form;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use hearth::model::course::JoinStatus;

use crate::common::{Resp, TestServer, ids};

const MAX: usize = 1000;

/// `n` rows made by `make(tx, i, now)` in one transaction; their ids.
fn made(
    s: &TestServer,
    n: usize,
    make: impl Fn(&rusqlite::Transaction<'_>, usize, hearth::clock::Timestamp) -> rusqlite::Result<i64>,
) -> Vec<i64> {
    let now = s.clock.now();
    s.db_write(move |tx| (0..n).map(|i| make(tx, i, now)).collect())
}

/// `n` categories; their ids.
fn categories(s: &TestServer, n: usize) -> Vec<i64> {
    made(s, n, |tx, i, now| {
        hearth::db::categories::insert(tx, None, &format!("C{i}"), &format!("c{i}"), now)
    })
}

/// `n` users; their ids.
fn users(s: &TestServer, n: usize) -> Vec<i64> {
    made(s, n, |tx, i, now| {
        let new = hearth::db::users::NewUser {
            username: format!("u{i}"),
            date_joined: now,
            ..Default::default()
        };
        hearth::db::users::insert(tx, &new)
    })
}

/// Sets `status` for each of `users` in `course`, in one transaction.
fn set_statuses(s: &TestServer, course: i64, users: &[i64], status: JoinStatus) {
    let now = s.clock.now();
    let users = users.to_vec();
    s.db_write(move |tx| {
        for u in users {
            hearth::db::members::set(
                tx,
                hearth::db::members::Roster::Course,
                course,
                u,
                status,
                now,
            )?;
        }
        Ok(())
    });
}

/// Asserts the answer is 400 `max_length` on `field` alone, with DRF's message.
fn assert_too_long(r: &Resp, field: &str) {
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{field}: {}", r.text);
    let j = r.json();
    assert_eq!(j["detail"], "Invalid input.", "{}", r.text);
    assert_eq!(
        j["errors"],
        json!([{"field": field, "messages": [{"code": "max_length",
            "message": "Ensure this field has no more than 1000 elements."}]}]),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn course_categories_and_sections_order() {
    let s = TestServer::start().await;
    let (_, tok) = s.login("alice");
    let cats = categories(&s, MAX);
    let new = |cats: Value| json!({"name": "Full", "type": "self-paced", "categories": cats});

    // 1001 items: refused on the field, no course made (JSON and multipart alike)
    let mut over = cats.clone();
    over.push(cats[0]);
    let r = s.post("/api/v2/course/", Some(&tok), new(json!(over))).await;
    assert_too_long(&r, "categories");
    let mut form = Form::new().text("name", "Multi").text("type", "self-paced");
    for c in &over {
        form = form.text("categories", c.to_string());
    }
    let r = s
        .client
        .post(format!("{}/api/v2/course/", s.url))
        .bearer_auth(&tok)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_too_long(&TestServer::read(r).await, "categories");
    let r = s.get("/api/v2/course/", Some(&tok)).await;
    assert_eq!(r.json()["count"], 0, "{}", r.text);

    // 1000 real categories: every one kept
    let r = s.post("/api/v2/course/", Some(&tok), new(json!(cats))).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let course = r.json()["id"].as_i64().unwrap();
    assert_eq!(ids(&r.json()["categories"]), cats);

    // repeats collapse; an unknown id among many is named
    let path = format!("/api/v2/course/{course}/");
    let patch = |b: Value| s.patch(&path, Some(&tok), b);
    let r = patch(json!({"categories": [cats[2], cats[1].to_string(), cats[2], cats[1]]})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(ids(&r.json()["categories"]), vec![cats[1], cats[2]]);
    let mut unknown = cats.clone();
    unknown[700] = 999_999;
    let r = patch(json!({ "categories": unknown })).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.text.contains("999999"), "{}", r.text);

    // sections_order: 1001 ids is max_length whatever they are, in every form the
    // body may take; 1000 is checked against the sections (here: wrong ones)
    let sections: Vec<i64> = {
        let mut v = Vec::new();
        for name in ["One", "Two"] {
            let r = s.post(&format!("{path}section/"), Some(&tok), json!({"name": name})).await;
            v.push(r.json()["id"].as_i64().unwrap());
        }
        v
    };
    let many: Vec<i64> = (1..=1001).collect();
    let as_text = many.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    for body in [
        json!({ "sections_order": many }),
        json!({ "sections_order": serde_json::to_string(&many).unwrap() }),
        json!({ "sections_order": as_text }),
    ] {
        assert_too_long(&patch(body).await, "sections_order");
    }
    let r = patch(json!({"sections_order": many[..MAX]})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["errors"][0]["messages"][0]["code"], "invalid");
    // an order names each section once: a repeat is refused, not collapsed
    let r = patch(json!({"sections_order": [sections[1], sections[0], sections[1]]})).await;
    assert_eq!(r.json()["errors"][0]["field"], "sections_order", "{}", r.text);
    let r = s.get(&path, Some(&tok)).await;
    assert_eq!(r.json()["sections_order"], json!(sections));
    assert_eq!(ids(&r.json()["categories"]), vec![cats[1], cats[2]]);
    let r = patch(json!({"sections_order": [sections[1], sections[0]]})).await;
    assert_eq!(r.json()["sections_order"], json!([sections[1], sections[0]]));
}

#[tokio::test]
async fn contribution_categories() {
    let s = TestServer::start().await;
    let (_, tok) = s.login("alice");
    let cats = categories(&s, MAX);
    for (kind, base) in [
        ("discussion", json!({"title": "t", "text": "x"})),
        ("post", json!({"text": "x"})),
        ("status", json!({"text": "x"})),
    ] {
        let path = format!("/api/v2/{kind}/");
        let with = |cats: Value| {
            let mut b = base.clone();
            b["categories"] = cats;
            b
        };
        let mut over: Vec<Value> = cats.iter().map(|c| json!(c)).collect();
        over.push(json!("not even an id"));
        let r = s.post(&path, Some(&tok), with(json!(over))).await;
        assert_too_long(&r, "categories");
        assert_eq!(s.get(&path, Some(&tok)).await.json()["count"], 0, "{kind}");

        let r = s.post(&path, Some(&tok), with(json!(cats))).await;
        assert_eq!(r.status, StatusCode::CREATED, "{kind}: {}", r.text);
        assert_eq!(ids(&r.json()["categories"]).len(), MAX);

        let c = cats[5];
        let r = s.post(&path, Some(&tok), with(json!([c, c.to_string(), c]))).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        assert_eq!(ids(&r.json()["categories"]), vec![c]);
        assert_eq!(s.get(&path, Some(&tok)).await.json()["count"], 2, "{kind}");
    }
}

#[tokio::test]
async fn membership_lists() {
    let s = TestServer::start().await;
    let (alice, tok) = s.login("alice");
    let r = s
        .post(
            "/api/v2/course/",
            Some(&tok),
            json!({"name": "C", "type": "self-paced", "privacy": "open"}),
        )
        .await;
    let course = r.json()["id"].as_i64().unwrap();
    let people = users(&s, MAX);
    let invite = format!("/api/v2/course/{course}/invite/");
    let role = format!("/api/v2/course/{course}/role/");
    let count = |statuses: &'static str| {
        let path = format!("/api/v2/course/{course}/join/?statuses={statuses}&limit=1");
        let s = &s;
        let tok = tok.clone();
        async move { s.get(&path, Some(&tok)).await.json()["count"].clone() }
    };
    let mut over = people.clone();
    over.push(alice);

    // invite: 1001 refused, for inviting and for withdrawing; 1000 real users invited
    assert_too_long(&s.post(&invite, Some(&tok), json!({ "users": over })).await, "users");
    let r = s.call(Method::DELETE, &invite, Some(&tok), Some(json!({ "users": over }))).await;
    assert_too_long(&r, "users");
    assert_eq!(count("invited").await, 0);
    let r = s.post(&invite, Some(&tok), json!({ "users": people })).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(count("invited").await, MAX);
    // repeats collapse: withdrawing one invitation named three times
    let u = people[0];
    let r = s
        .call(Method::DELETE, &invite, Some(&tok), Some(json!({"users": [u, u.to_string(), u]})))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(count("invited").await, MAX - 1);
    // an unknown user among many is named, nothing changes
    let mut unknown = people.clone();
    unknown[999] = 999_999;
    let r = s.post(&invite, Some(&tok), json!({ "users": unknown })).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.text.contains("999999"), "{}", r.text);
    assert_eq!(count("invited").await, MAX - 1);

    // roles: 1001 refused on each field, nothing changes
    set_statuses(&s, course, &people, JoinStatus::Joined);
    for field in ["managers", "joined", "unjoined"] {
        let r = s.post(&role, Some(&tok), json!({ field: over })).await;
        assert_too_long(&r, field);
    }
    assert_eq!(count("joined").await, MAX);
    // 1000 members promoted, then 1000 (with repeats) removed
    let r = s.post(&role, Some(&tok), json!({ "managers": people })).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(count("manager").await, MAX);
    let mut again = people[..MAX / 2].to_vec();
    again.extend_from_slice(&people[..MAX / 2]);
    let r = s.post(&role, Some(&tok), json!({ "unjoined": again })).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(count("manager").await, MAX / 2);
    // a non-member in a long list: 400 on the field, nothing changes
    let r = s.post(&role, Some(&tok), json!({ "joined": people })).await;
    assert_eq!(r.json()["errors"][0]["field"], "joined", "{}", r.text);
    assert_eq!(count("manager").await, MAX / 2);
}

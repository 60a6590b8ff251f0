//! Legal pages (SPEC §10 People): staff's revisions (`hearth legal` writes them through
//! `db::legal`), the one in force per policy, members' answers, and markup kept safe.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

fn add(
    s: &TestServer,
    policy: &'static str,
    title: &'static str,
    body: &'static str,
    from: i64,
) -> i64 {
    let now = s.clock.now();
    s.db_write(move |tx| hearth::db::legal::add(tx, policy, title, body, from, now))
}

#[tokio::test]
async fn the_revision_in_force_is_asked_for_and_answered() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let now = s.clock.now();
    let old = add(&s, "tec", "Terms 1", "<p>Be kind.</p>", now - 10);
    let terms = add(
        &s,
        "tec",
        "Terms 2",
        "<p>Be kind.</p><script>alert(1)</script><p onclick=\"x()\">Really.</p>",
        now - 5,
    );
    let later = add(&s, "tec", "Terms 3", "<p>Soon.</p>", now + 3_600_000_000);
    let privacy = add(&s, "privacy", "Privacy", "We keep your e-mail.", now - 5);
    let docs = s.get("/api/v2/legal_page/last_revisions/", Some(&a)).await.json();
    let ids: Vec<i64> =
        docs.as_array().unwrap().iter().map(|d| d["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [terms, privacy], "the newest valid revision of each, not the future one");
    let t = &docs[0];
    assert_eq!(
        (t["slug"].clone(), t["active"].clone(), t["ack"].clone()),
        (json!(format!("tec-{terms}")), json!(true), Value::Null)
    );
    let html = t["html_body"].as_str().unwrap();
    assert!(
        html.contains("Be kind.") && !html.contains("<script") && !html.contains("onclick"),
        "{html}"
    );
    // accepted, then the answer shows everywhere
    let r =
        s.post(&format!("/api/v2/legal_page/{terms}/ack/"), Some(&a), json!({"accept": "1"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        (r.json()["custom_page"].clone(), r.json()["user"].clone()),
        (json!(terms), json!(alice))
    );
    assert!(r.json()["accepted_at"].is_string() && r.json()["not_accepted_at"].is_null());
    let t = s.get("/api/v2/legal_page/tec/", Some(&a)).await.json();
    assert!(t["ack"]["accepted_at"].is_string());
    assert_eq!(
        s.get("/api/v2/legal_page/tec/", None).await.json()["ack"],
        Value::Null,
        "anonymous"
    );
    // declined: replaces
    s.post(&format!("/api/v2/legal_page/{terms}/ack/"), Some(&a), json!({"accept": 0})).await;
    let ack = s.get(&format!("/api/v2/legal_page/{terms}/user_ack/"), Some(&a)).await.json();
    assert!(ack["accepted_at"].is_null() && ack["not_accepted_at"].is_string());
    assert_eq!(s.get("/api/v2/legal_page/user_acks/", Some(&a)).await.json()["count"], 1);
    // lists
    let all = s.get("/api/v2/legal_page/?policy=tec", None).await.json();
    assert_eq!(all["count"], 3);
    assert_eq!(s.get("/api/v2/legal_page/tec/revisions/", None).await.json()["count"], 3);
    assert_eq!(s.get(&format!("/api/v2/legal_page/{old}/"), None).await.json()["active"], false);
    let _ = later;
}

#[tokio::test]
async fn bad_answers_and_unknown_pages_are_refused() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let now = s.clock.now();
    let p = add(&s, "privacy", "Privacy", "x", now);
    for bad in
        [json!({}), json!({"accept": 2}), json!({"accept": "yes"}), json!({"accept": 1, "x": 1})]
    {
        let r = s.post(&format!("/api/v2/legal_page/{p}/ack/"), Some(&a), bad.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(
        s.post("/api/v2/legal_page/999/ack/", Some(&a), json!({"accept": 1})).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.post(&format!("/api/v2/legal_page/{p}/ack/"), None, json!({"accept": 1})).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        s.get(&format!("/api/v2/legal_page/{p}/user_ack/"), Some(&a)).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.get("/api/v2/legal_page/tec/", None).await.status,
        StatusCode::NOT_FOUND,
        "no terms yet"
    );
    assert_eq!(
        s.get("/api/v2/legal_page/?policy=cookies", None).await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn a_policys_revisions_are_listed_newest_first_with_the_callers_answers() {
    // the SDK's `LegalPageRevisions`: `/legal_page/{policy}/revisions/`, tec or privacy
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let now = s.clock.now();
    let first = add(&s, "tec", "Terms 1", "<p>One</p>", now - 20);
    let second =
        add(&s, "tec", "Terms <b>2</b>", "<p>Two</p><img src=x onerror=alert(1)>", now - 10);
    let future = add(&s, "tec", "Terms 3", "<p>Three</p>", now + 3_600_000_000);
    let privacy = add(&s, "privacy", "Privacy", "<p>P</p>", now - 10);
    let r =
        s.post(&format!("/api/v2/legal_page/{second}/ack/"), Some(&a), json!({"accept": 1})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let page = s.get("/api/v2/legal_page/tec/revisions/", Some(&a)).await.json();
    let ids: Vec<i64> =
        page["results"].as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [future, second, first], "the terms only, newest first, the future one too");
    assert_eq!(page["count"], 3);
    let active: Vec<bool> =
        page["results"].as_array().unwrap().iter().map(|p| p["active"] == true).collect();
    assert_eq!(active, [false, true, false], "only the one in force is active");
    assert!(page["results"][1]["ack"]["accepted_at"].is_string(), "alice's answer");
    assert!(page["results"][0]["ack"].is_null() && page["results"][2]["ack"].is_null());
    let html = page["results"][1]["html_body"].as_str().unwrap();
    assert!(html.contains("Two") && !html.contains("onerror"), "{html}");
    // another member sees no answer of alice's; an anonymous caller none at all
    let theirs = s.get("/api/v2/legal_page/tec/revisions/", Some(&b)).await.json();
    assert!(theirs["results"][1]["ack"].is_null());
    let anon = s.get("/api/v2/legal_page/tec/revisions/?limit=1&offset=1", None).await.json();
    assert_eq!(anon["results"][0]["id"], second);
    assert!(anon["results"][0]["ack"].is_null() && anon["next"].is_string());
    assert_eq!(
        s.get("/api/v2/legal_page/privacy/revisions/", None).await.json()["results"][0]["id"],
        privacy
    );
    // the platform's two policies only; a bad token or page is refused
    assert_eq!(
        s.get("/api/v2/legal_page/cookies/revisions/", None).await.status,
        StatusCode::NOT_FOUND
    );
    let r = s.get("/api/v2/legal_page/tec/revisions/", Some("not-a-token.at.all")).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "authentication_failed");
    s.get("/api/v2/legal_page/tec/revisions/?limit=0", None)
        .await
        .assert_field_error("limit", "invalid");
}

//! Community info and contact us (SPEC §10): the one community from hearth's own
//! preferences, and a member's message to staff, off until the preference says so,
//! checked field by field, stored for the CLI, mailed to staff through the relay, and
//! limited per member and per client address under parallel requests.

use reqwest::StatusCode;
use serde_json::json;

use crate::common::TestServer;
use crate::smtp_sink::Sink;

#[tokio::test]
async fn the_community_is_one_named_by_its_preference_without_paywalls() {
    let s = TestServer::start().await;
    s.set_pref("text", "application_name", json!("Gardeners"));
    let r = s.get("/api/v2/community/", None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(j["count"], 1);
    let c = &j["results"][0];
    assert_eq!(
        (c["id"].clone(), c["name"].clone(), c["paywalls"].clone(), c["payment_order"].clone()),
        (json!(1), json!("Gardeners"), json!([]), json!(null))
    );
    assert_eq!(c["url"], s.url.as_str());
    assert_eq!(&s.get("/api/v2/community/1/", None).await.json(), c);
    assert_eq!(s.get("/api/v2/community/2/", None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/api/v2/community/?offset=1", None).await.json()["results"], json!([]));
}

async fn with_relay(rate: u32) -> (TestServer, Sink) {
    let sink = Sink::start().await;
    let url = sink.url.parse().unwrap();
    let s = TestServer::start_with(|c| {
        c.smtp_url = Some(url);
        c.mail_rate = rate;
    })
    .await;
    s.set_pref("configurations", "contact_api_enabled", json!(true));
    (s, sink)
}

fn stored(s: &TestServer) -> i64 {
    s.db_read(|c| c.query_row("SELECT count(*) FROM contact_request", [], |r| r.get(0)))
}

#[tokio::test]
async fn contact_requests_are_off_until_the_preference_turns_them_on() {
    let s = TestServer::start().await;
    let t = s.jwt(s.user("ann", None, false));
    let r = s.post("/api/v2/contact/request/", Some(&t), json!({"message": "hi"})).await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    s.set_pref("configurations", "contact_api_enabled", json!(true));
    let r = s.post("/api/v2/contact/request/", None, json!({"message": "hi"})).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    let r = s.post("/api/v2/contact/request/", Some(&t), json!({"message": "hi"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // no relay: stored for staff all the same, with the member's own address
    let j = r.json();
    assert_eq!((j["email"].clone(), j["message"].clone()), (json!("ann@example.org"), json!("hi")));
    assert_eq!(stored(&s), 1);
}

#[tokio::test]
async fn a_contact_request_is_checked_field_by_field() {
    let s = TestServer::start().await;
    s.set_pref("configurations", "contact_api_enabled", json!(true));
    let t = s.jwt(s.user("ann", None, false));
    for (body, field, code) in [
        (json!({}), "message", "required"),
        (json!({"message": "   "}), "message", "required"),
        (json!({"message": "x".repeat(5001)}), "message", "max_length"),
        (json!({"message": "a\u{1b}[2Jb"}), "message", "invalid"),
        (json!({"message": "hi", "email": "not an address"}), "email", "invalid"),
        (json!({"message": "hi", "name": "x".repeat(151)}), "name", "max_length"),
        (json!({"message": "hi", "surname": ["x"]}), "surname", "invalid"),
        (json!({"message": "hi", "name": "a\nb"}), "name", "invalid"),
        (json!({"message": "hi", "phone": "123"}), "phone", "invalid"),
    ] {
        let r = s.post("/api/v2/contact/request/", Some(&t), body.clone()).await;
        r.assert_field_error(field, code);
    }
    let r = s.post("/api/v2/contact/request/", Some(&t), json!(["message"])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(stored(&s), 0, "nothing of a refused request is kept");
    // a member without an address must give one
    let nobody = s.user("nomail", None, false);
    s.db_write(move |tx| tx.execute("UPDATE user SET email = NULL WHERE id = ?1", [nobody]));
    let t = s.jwt(nobody);
    let r = s.post("/api/v2/contact/request/", Some(&t), json!({"message": "hi"})).await;
    r.assert_field_error("email", "required");
    let body = json!({"message": "Multi\nline\tok", "email": "me@example.net", "name": " Ann ", "surname": null});
    let r = s.post("/api/v2/contact/request/", Some(&t), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let j = r.json();
    assert_eq!(
        (j["name"].clone(), j["surname"].clone(), j["message"].clone()),
        (json!("Ann"), json!(""), json!("Multi\nline\tok"))
    );
}

#[tokio::test]
async fn a_contact_request_is_mailed_to_staff_as_plain_text() {
    let (s, sink) = with_relay(10).await;
    s.user("boss", None, true);
    s.user("helper", None, true);
    let t = s.jwt(s.user("ann", None, false));
    let body = json!({"name": "Ann", "surname": "Lee", "message": "<b>Hello</b> staff", "email": "ann@home.example"});
    let r = s.post("/api/v2/contact/request/", Some(&t), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let mails = sink.wait_for(2).await;
    let mut to: Vec<String> = mails.iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    assert_eq!(to, ["boss@example.org", "helper@example.org"]);
    let data = &mails[0].data;
    assert!(data.contains("Ann Lee <ann@home.example>"), "{data}");
    assert!(data.contains("<b>Hello</b> staff"), "plain text, as written: {data}");
    assert!(data.to_ascii_lowercase().contains("content-type: text/plain"), "{data}");
}

#[tokio::test]
async fn contact_requests_per_member_hold_under_parallel_requests() {
    let (s, sink) = with_relay(3).await;
    s.user("boss", None, true);
    let t = s.jwt(s.user("ann", None, false));
    let asks = (0..50).map(|i| {
        s.post("/api/v2/contact/request/", Some(&t), json!({"message": format!("number {i}")}))
    });
    let answers = futures_util::future::join_all(asks).await;
    let made = answers.iter().filter(|r| r.status == StatusCode::CREATED).count();
    let throttled: Vec<_> =
        answers.iter().filter(|r| r.status == StatusCode::TOO_MANY_REQUESTS).collect();
    assert_eq!((made, throttled.len()), (3, 47), "three requests an hour for one member");
    assert!(throttled.iter().all(|r| r.header("retry-after").is_some()));
    assert_eq!(stored(&s), 3, "a refused request stores nothing");
    assert_eq!(sink.wait_for(3).await.len(), 3);
    // another member from the same client address is limited by the address
    let bob = s.user("bob", None, false);
    let t2 = s.jwt(bob);
    let r = s.post("/api/v2/contact/request/", Some(&t2), json!({"message": "hi"})).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    // an hour later, again
    s.clock.advance(3600 * hearth::clock::SECOND);
    let t2 = s.jwt(bob);
    let r = s.post("/api/v2/contact/request/", Some(&t2), json!({"message": "hi"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

#[tokio::test]
async fn a_members_contact_requests_are_in_their_export_and_go_with_the_account() {
    let s = TestServer::start().await;
    s.set_pref("configurations", "contact_api_enabled", json!(true));
    let (ann, t) = s.login("ann");
    let r = s.post("/api/v2/contact/request/", Some(&t), json!({"message": "mine"})).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let now = s.clock.now();
    let files = s.db_read(move |c| hearth::db::export::files(c, ann, now, &|_, _| {})).unwrap();
    let (_, bytes) = files.iter().find(|(n, _)| n == "contact_requests.json").unwrap();
    let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(v[0]["message"], "mine");
    s.db_write(move |tx| hearth::db::account::erase(tx, ann, false));
    assert_eq!(stored(&s), 0);
}

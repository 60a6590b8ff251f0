//! Data portability (SPEC §10 People, `/api/v2/udp/`): a member asks for their export,
//! follows it, downloads a zip holding their data and nobody else's; once a day; one job
//! however many ask at once.

use std::io::Read;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

/// Polls the status until the export is made (the job runs on its own task).
async fn made(s: &TestServer, token: &str) -> Value {
    for _ in 0..500 {
        let st = s.get("/api/v2/udp/", Some(token)).await.json();
        if st["computing"] == false && st["generated_at"].is_string() {
            return st;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the export was not made in 5 s");
}

fn files(zip: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    (0..z.len())
        .map(|i| {
            let mut f = z.by_index(i).unwrap();
            let mut out = Vec::new();
            f.read_to_end(&mut out).unwrap();
            (f.name().unwrap().to_string(), out)
        })
        .collect()
}

#[tokio::test]
async fn the_export_holds_the_members_data_and_nobody_elses() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    s.create_id("/api/v2/post/", &a, json!({"text": "alice's sourdough diary"})).await;
    let theirs = s.create_id("/api/v2/post/", &b, json!({"text": "bob's secret recipe"})).await;
    // alice follows bob's post and stops its notifications: both are hers
    for switch in ["follow", "suspend"] {
        s.post_empty(&format!("/api/v2/post/{theirs}/{switch}/"), Some(&a)).await;
    }
    s.create_id("/api/v2/comment/", &a, json!({"post": theirs, "text": "alice says hi"})).await;
    s.post_empty(&format!("/api/v2/user/{bob}/follow/"), Some(&a)).await;
    // private messages: alice's thread with bob, and one between bob and carol
    s.set_pref("addons", "private_messages_enabled", json!(true));
    let (carol, c) = s.login("carol");
    for (tok, to, text) in [
        (&a, bob, "alice writes to bob"),
        (&b, alice, "bob writes back"),
        (&c, bob, "carol to bob"),
    ] {
        let r =
            s.post("/api/v2/pm/", Some(tok), json!({"recipients": [to], "message": text})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let _ = carol;
    // a group's thread: alice's message is hers, bob's is not
    s.set_pref("configurations", "groups_enabled", json!(true));
    let g = s.create_id("/api/v2/group/", &a, json!({"name": "Bakers"})).await;
    s.post_empty(&format!("/api/v2/group/{g}/subscribe/"), Some(&b)).await;
    for (tok, text) in [(&a, "alice to the bakers"), (&b, "bob to the bakers")] {
        let r = s.post("/api/v2/pm/", Some(tok), json!({"group": g, "message": text})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    // a tag staff gave alice and keep off her profile: hers to see in the export
    let now = s.clock.now();
    s.db_write(move |tx| {
        let t = hearth::model::tag::TagInput {
            name: Some("Watch list".into()),
            visible: Some(false),
            ..Default::default()
        };
        let id = hearth::db::tags::insert(tx, &t.new_tag(now), None)?;
        hearth::db::tags::assign(tx, id, alice)
    });
    assert_eq!(s.get("/api/v2/udp/download/", Some(&a)).await.status, StatusCode::NOT_FOUND);
    let st = s.get("/api/v2/udp/", Some(&a)).await.json();
    assert_eq!((st["computing"].clone(), st["requested_at"].clone()), (json!(false), Value::Null));
    let r = s.post_empty("/api/v2/udp/", Some(&a)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let st = made(&s, &a).await;
    assert_eq!(st["downloaded_at"], Value::Null);
    let r = s
        .client
        .get(format!("{}/api/v2/udp/download/", s.url))
        .bearer_auth(&a)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "application/zip");
    assert!(r.headers()["content-disposition"].to_str().unwrap().starts_with("attachment"));
    let all = files(&r.bytes().await.unwrap());
    for f in ["README.txt", "profile.json", "contributions.json", "followings.json", "votes.json"] {
        assert!(all.contains_key(f), "{f} in {:?}", all.keys().collect::<Vec<_>>());
    }
    let profile: Value = serde_json::from_slice(&all["profile.json"]).unwrap();
    assert_eq!(
        (profile["id"].clone(), profile["email"].clone()),
        (json!(alice), json!("alice@example.org"))
    );
    let mine = String::from_utf8_lossy(&all["contributions.json"]).to_string();
    assert!(mine.contains("alice's sourdough diary") && mine.contains("alice says hi"), "{mine}");
    assert!(!mine.contains("bob's secret recipe"), "another member's post: {mine}");
    let follows: Value = serde_json::from_slice(&all["followings.json"]).unwrap();
    assert_eq!(follows[0]["username"], "bob");
    let pms: Value = serde_json::from_slice(&all["private_messages.json"]).unwrap();
    let texts: Vec<&str> =
        pms.as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["alice writes to bob", "bob writes back"], "not bob's thread with carol");
    assert_eq!(
        (pms[1]["sender"].clone(), pms[1]["receiver"].clone()),
        (json!("bob"), json!("alice"))
    );
    for file in ["items_followed.json", "items_notifications_off.json"] {
        let items: Value = serde_json::from_slice(&all[file]).unwrap();
        assert_eq!(
            (items[0]["kind"].clone(), items[0]["id"].clone()),
            (json!("post"), json!(theirs))
        );
    }
    let group_pms: Value = serde_json::from_slice(&all["group_messages.json"]).unwrap();
    assert_eq!(
        (group_pms[0]["text"].clone(), group_pms[0]["group_name"].clone(), group_pms[1].clone()),
        (json!("alice to the bakers"), json!("Bakers"), Value::Null)
    );
    let tags: Value = serde_json::from_slice(&all["tags.json"]).unwrap();
    assert_eq!(
        (tags[0]["name"].clone(), tags[0]["visible"].clone()),
        (json!("Watch list"), json!(0))
    );
    assert!(s.get("/api/v2/udp/", Some(&a)).await.json()["downloaded_at"].is_string());
    // bob has none of his own; alice's is not his
    assert_eq!(s.get("/api/v2/udp/download/", Some(&b)).await.status, StatusCode::NOT_FOUND);
    // once a day
    let r = s.post_empty("/api/v2/udp/", Some(&a)).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(r.header("retry-after").is_some_and(|v| v.parse::<u64>().unwrap() > 86_000));
    s.clock.advance(24 * 3600 * hearth::clock::SECOND);
    let a = s.jwt(alice); // (the first one has expired meanwhile)
    assert_eq!(s.post_empty("/api/v2/udp/", Some(&a)).await.status, StatusCode::OK);
    made(&s, &a).await;
}

#[tokio::test]
async fn many_requests_at_once_make_one_export_and_a_read_only_token_only_reads() {
    let s = TestServer::start_with(|c| c.max_connections_per_address = 64).await;
    let (alice, a) = s.login("alice");
    let asks = (0..20).map(|_| {
        let (s, a) = (&s, a.clone());
        async move { s.post_empty("/api/v2/udp/", Some(&a)).await.status }
    });
    let codes = futures_util::future::join_all(asks).await;
    // the first made it or all raced in before: none is refused but for the day's limit
    assert!(
        codes.iter().all(|c| *c == StatusCode::OK || *c == StatusCode::TOO_MANY_REQUESTS),
        "{codes:?}"
    );
    made(&s, &a).await;
    let n =
        s.db_read(|c| c.query_row("SELECT count(*) FROM data_export", [], |r| r.get::<_, i64>(0)));
    assert_eq!(n, 1);
    let read = s.oauth_token(alice, "read");
    assert_eq!(s.post_empty("/api/v2/udp/", Some(&read)).await.status, StatusCode::FORBIDDEN);
    assert_eq!(s.get("/api/v2/udp/download/", Some(&read)).await.status, StatusCode::OK);
    assert_eq!(
        s.get("/api/v2/udp/", Some(&read)).await.json()["downloaded_at"],
        Value::Null,
        "not recorded"
    );
    assert_eq!(s.get("/api/v2/udp/", None).await.status, StatusCode::UNAUTHORIZED);
}

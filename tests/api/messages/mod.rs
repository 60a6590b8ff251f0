//! Private messages (SPEC §10, the kit's `pm/` rows): threads between two users,
//! snippets with unread counts, reading marks read, delete for me / for everyone, the
//! live push the kit parses, who may write to whom, rich text, files, and the counters
//! under parallel writers.

mod files;
mod group;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::common::TestServer;

/// A server with private messages on, and alice, bob, carol signed in.
async fn on() -> (TestServer, [(i64, String); 3]) {
    let s = TestServer::start().await;
    s.set_pref("addons", "private_messages_enabled", json!(true));
    let users = [s.login("alice"), s.login("bob"), s.login("carol")];
    (s, users)
}

async fn send(s: &TestServer, token: &str, to: Value, text: &str) -> crate::common::Resp {
    s.post("/api/v2/pm/", Some(token), json!({"recipients": to, "message": text})).await
}

/// Sends one message; its JSON.
async fn sent(s: &TestServer, token: &str, to: i64, text: &str) -> Value {
    let r = send(s, token, json!([to]), text).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()[0].clone()
}

async fn snippets(s: &TestServer, token: &str) -> Value {
    let r = s.get("/api/v2/pm/", Some(token)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json()
}

async fn thread(s: &TestServer, token: &str, query: &str) -> Value {
    let r = s.get(&format!("/api/v2/pm/?{query}"), Some(token)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json()
}

fn messages_of(page: &Value) -> Vec<String> {
    page["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn two_users_exchange_messages_with_snippets_unread_counts_and_notifications() {
    let (s, [(alice, a), (bob, b), (_, c)]) = on().await;
    let m = sent(&s, &a, bob, "hello bob").await;
    assert_eq!(
        (m["sender"]["id"].as_i64(), m["receiver"]["id"].as_i64()),
        (Some(alice), Some(bob))
    );
    assert_eq!(
        (m["message"].clone(), m["status"].clone(), m["group"].clone()),
        (json!("hello bob"), json!("seen"), Value::Null)
    );
    s.clock.advance(1_000);
    sent(&s, &a, bob, "are you there?").await;
    // bob: one thread, new, two unread; a notification each
    let sn = snippets(&s, &b).await;
    assert_eq!(sn["count"], 1);
    let one = &sn["results"][0];
    assert_eq!(
        (one["thread_status"].clone(), one["unread_count"].clone()),
        (json!("new"), json!(2))
    );
    assert_eq!(
        (one["headline"].clone(), one["sender"]["id"].as_i64()),
        (json!("are you there?"), Some(alice))
    );
    assert_eq!(one["id"], m["thread_id"]);
    let me = s.get("/api/v2/user/me/", Some(&b)).await.json();
    assert_eq!(me["unseen_interactions_counter"], 2);
    // alice's side of the same thread has nothing unread
    let sn = snippets(&s, &a).await;
    assert_eq!(
        (sn["results"][0]["thread_status"].clone(), sn["results"][0]["unread_count"].clone()),
        (json!("seen"), json!(0))
    );
    // a read-only token reads the thread without marking it
    let ro = s.oauth_token(bob, "read");
    assert_eq!(thread(&s, &ro, &format!("user={alice}")).await["count"], 2);
    assert_eq!(snippets(&s, &b).await["results"][0]["unread_count"], 2);
    // bob reads the thread (by user, as the kit does): marked read, notifications seen
    let t = thread(&s, &b, &format!("user={alice}&limit=10")).await;
    assert_eq!(messages_of(&t), ["hello bob", "are you there?"]);
    assert_eq!(t["count"], 2);
    let sn = snippets(&s, &b).await;
    assert_eq!(
        (sn["results"][0]["thread_status"].clone(), sn["results"][0]["unread_count"].clone()),
        (json!("seen"), json!(0))
    );
    assert_eq!(s.get("/api/v2/user/me/", Some(&b)).await.json()["unseen_interactions_counter"], 0);
    let notes = s.get("/api/v2/notification/", Some(&b)).await.json();
    let n = &notes["results"][0]["aggregated"][0];
    assert_eq!(
        (n["type"].clone(), n["message"]["message"].clone()),
        (json!("private_message"), json!("are you there?"))
    );
    // bob answers: the same thread, and the thread by its id reads the same
    s.clock.advance(1_000);
    let answer = sent(&s, &b, alice, "yes!").await;
    assert_eq!(answer["thread_id"], m["thread_id"]);
    let t = thread(&s, &a, &format!("thread={}", m["thread_id"])).await;
    assert_eq!(messages_of(&t), ["hello bob", "are you there?", "yes!"]);
    // one message alone; a stranger's view of it is 404
    let id = m["id"].as_i64().unwrap();
    assert_eq!(s.get(&format!("/api/v2/pm/{id}/"), Some(&b)).await.json()["message"], "hello bob");
    assert_eq!(s.status(&format!("/api/v2/pm/{id}/"), Some(&c)).await, StatusCode::NOT_FOUND);
    assert_eq!(
        s.status(&format!("/api/v2/pm/?thread={}", m["thread_id"]), Some(&c)).await,
        StatusCode::NOT_FOUND
    );
    // a thread with a user one never wrote to is empty
    assert_eq!(thread(&s, &c, &format!("user={alice}")).await["count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn a_thread_pages_from_its_newest_messages_backwards_as_the_kit_walks_it() {
    let (s, [(alice, a), (bob, b), _]) = on().await;
    for i in 0..25 {
        sent(&s, &a, bob, &format!("m{i}")).await;
        s.clock.advance(1_000);
    }
    let first = thread(&s, &b, &format!("user={alice}&limit=10")).await;
    let want = |r: std::ops::Range<i32>| r.map(|i| format!("m{i}")).collect::<Vec<_>>();
    assert_eq!(messages_of(&first), want(15..25));
    assert_eq!(first["count"], 25);
    // the kit: `next` with `before_message` = the oldest shown, without `offset`
    let oldest = first["results"][0]["id"].as_i64().unwrap();
    let next = first["next"].as_str().expect("a next page");
    assert!(next.contains("offset=10"), "{next}");
    let second = thread(&s, &b, &format!("user={alice}&limit=10&before_message={oldest}")).await;
    assert_eq!(messages_of(&second), want(5..15));
    let oldest = second["results"][0]["id"].as_i64().unwrap();
    let last = thread(&s, &b, &format!("user={alice}&limit=10&before_message={oldest}")).await;
    assert_eq!(messages_of(&last), want(0..5));
    assert!(last["next"].is_null(), "no page past the first message");
    // from a message on, oldest first
    let from = thread(&s, &b, &format!("user={alice}&limit=3&from_message={oldest}")).await;
    assert_eq!(messages_of(&from), want(5..8));
    s.get(&format!("/api/v2/pm/?user={alice}&before_message=x"), Some(&b))
        .await
        .assert_field_error("before_message", "invalid");
    // groups are off here: a group thread is 404, as the group
    assert_eq!(s.status("/api/v2/pm/?group=1", Some(&b)).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_sender_takes_a_message_back_for_everyone_and_the_receiver_for_themselves() {
    let (s, [(alice, a), (bob, b), (_, c)]) = on().await;
    let young = sent(&s, &a, bob, "oops").await;
    let young_id = young["id"].as_i64().unwrap();
    // another user's message is 404, the receiver's own deletion is theirs only
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{young_id}/"), Some(&c)).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{young_id}/"), Some(&a)).await.status,
        StatusCode::NO_CONTENT
    );
    // younger than a minute: gone for both, with its notification; no snippet left
    assert_eq!(thread(&s, &b, &format!("user={alice}")).await["count"], 0);
    assert_eq!(snippets(&s, &b).await["count"], 0);
    assert_eq!(s.get("/api/v2/user/me/", Some(&b)).await.json()["unseen_interactions_counter"], 0);
    let old = sent(&s, &a, bob, "<p>kept</p>").await;
    s.clock.advance(61_000_000);
    let later = sent(&s, &a, bob, "later").await;
    let old_id = old["id"].as_i64().unwrap();
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{old_id}/"), Some(&a)).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(snippets(&s, &b).await["results"][0]["unread_count"], 1, "only `later` is unread");
    // older: a deleted message for both
    for t in [&a, &b] {
        let page = thread(&s, t, &format!("thread={}", old["thread_id"])).await;
        let first = &page["results"][0];
        assert_eq!(
            (first["id"].as_i64(), first["status"].clone(), first["message"].clone()),
            (Some(old_id), json!("hidden"), json!(""))
        );
    }
    // bob deletes `later` for himself: alice still has it; bob's snippet steps back
    let later_id = later["id"].as_i64().unwrap();
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{later_id}/"), Some(&b)).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{later_id}/"), Some(&b)).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(s.status(&format!("/api/v2/pm/{later_id}/"), Some(&b)).await, StatusCode::NOT_FOUND);
    assert_eq!(
        s.get(&format!("/api/v2/pm/{later_id}/"), Some(&a)).await.json()["message"],
        "later"
    );
    let sn = snippets(&s, &b).await;
    assert_eq!(
        (sn["results"][0]["id"].clone(), sn["results"][0]["unread_count"].clone()),
        (old["thread_id"].clone(), json!(0))
    );
    assert_eq!(snippets(&s, &a).await["results"][0]["headline"], "later");
    // alice deletes the thread for herself: bob keeps his side
    let r = s.delete(&format!("/api/v2/pm/?user={bob}"), Some(&a)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(snippets(&s, &a).await["count"], 0);
    assert_eq!(thread(&s, &a, &format!("user={bob}")).await["count"], 0);
    assert_eq!(snippets(&s, &b).await["count"], 1);
    s.delete("/api/v2/pm/", Some(&a)).await.assert_field_error("user", "required");
    assert_eq!(
        s.delete(&format!("/api/v2/pm/?user={}", alice + 100), Some(&a)).await.status,
        StatusCode::NOT_FOUND
    );
    // a new message brings the thread back, with only what came since
    sent(&s, &b, alice, "back?").await;
    assert_eq!(messages_of(&thread(&s, &a, &format!("user={bob}")).await), ["back?"]);
    s.assert_consistent();
}

#[tokio::test]
async fn who_may_write_to_whom_and_what_a_message_may_be() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (carol, c) = s.login("carol");
    // off by default: every route says so
    assert_eq!(send(&s, &a, json!([bob]), "x").await.status, StatusCode::FORBIDDEN);
    assert_eq!(s.status("/api/v2/pm/", Some(&a)).await, StatusCode::FORBIDDEN);
    assert_eq!(
        s.get(&format!("/api/v2/user/{bob}/"), Some(&a)).await.json()["can_send_pm_to"],
        false
    );
    s.set_pref("addons", "private_messages_enabled", json!(true));
    assert_eq!(
        s.get(&format!("/api/v2/user/{bob}/"), Some(&a)).await.json()["can_send_pm_to"],
        true
    );
    assert_eq!(
        s.get(&format!("/api/v2/user/{alice}/"), Some(&a)).await.json()["can_send_pm_to"],
        false
    );
    assert!(
        s.get(&format!("/api/v2/user/{bob}/"), None).await.json().get("can_send_pm_to").is_none()
    );
    assert_eq!(s.status("/api/v2/pm/", None).await, StatusCode::UNAUTHORIZED);
    // the body's rules
    send(&s, &a, json!([alice]), "me").await.assert_field_error("recipients", "invalid");
    send(&s, &a, json!([99_999]), "nobody").await.assert_field_error("recipients", "invalid");
    send(&s, &a, json!([bob]), "  ").await.assert_field_error("message", "required");
    send(&s, &a, json!([bob]), &"x".repeat(10_001))
        .await
        .assert_field_error("message", "max_length");
    s.post("/api/v2/pm/", Some(&a), json!({"message": "x"}))
        .await
        .assert_field_error("recipients", "required");
    s.post("/api/v2/pm/", Some(&a), json!({"group": 1, "recipients": [bob], "message": "x"}))
        .await
        .assert_field_error("recipients", "invalid");
    let many: Vec<i64> = (1..=101).collect();
    send(&s, &a, json!(many), "x").await.assert_field_error("recipients", "max_length");
    // all or nothing: one bad recipient sends nothing
    send(&s, &a, json!([bob, 99_999]), "x").await.assert_field_error("recipients", "invalid");
    assert_eq!(snippets(&s, &b).await["count"], 0);
    // several recipients: a thread each
    let r = send(&s, &a, json!([bob, carol]), "to you both").await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.json().as_array().unwrap().len(), 2);
    // hiding (SPEC §8), either way, stops writing both ways
    s.post(&format!("/api/v2/user/{alice}/hide/"), Some(&b), json!({})).await;
    assert_eq!(send(&s, &a, json!([bob]), "hi").await.status, StatusCode::FORBIDDEN);
    assert_eq!(send(&s, &b, json!([alice]), "hi").await.status, StatusCode::FORBIDDEN);
    assert_eq!(
        s.get(&format!("/api/v2/user/{bob}/"), Some(&a)).await.json()["can_send_pm_to"],
        false
    );
    // the recipient picker leaves out the caller and users hidden either way
    let r = s.get("/api/v2/pm/search/?user=", Some(&a)).await;
    assert_eq!(r.json()["count"], 0);
    s.login("bobby");
    let names = |r: &crate::common::Resp| -> Vec<String> {
        r.json()["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["username"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&s.get("/api/v2/pm/search/?user=BO", Some(&a)).await), ["bobby"]);
    assert_eq!(names(&s.get("/api/v2/pm/search/?user=a", Some(&c)).await), ["alice"]);
    assert_eq!(names(&s.get("/api/v2/pm/search/?user=a", Some(&a)).await), Vec::<String>::new());
    // a deleted user takes no messages
    s.soft_delete_user(carol);
    send(&s, &a, json!([carol]), "x").await.assert_field_error("recipients", "invalid");
    s.assert_consistent();
}

#[tokio::test]
async fn a_message_is_rich_text_and_the_xss_corpus_comes_back_sanitized() {
    let (s, [(alice, a), (bob, b), _]) = on().await;
    let corpus: Vec<Value> =
        serde_json::from_str(include_str!("../../ui/xss-corpus.json")).unwrap();
    for p in &corpus {
        let text = p["text"].as_str().unwrap();
        let m = sent(&s, &a, bob, text).await;
        let want = hearth::model::rich_text::render(text).html;
        assert_eq!(m["message"], want, "{}", p["id"]);
        let back = s.get(&format!("/api/v2/pm/{}/", m["id"]), Some(&b)).await.json();
        assert_eq!(back["message"], want);
        assert_tags_safe(&want);
        let sn = snippets(&s, &b).await;
        assert_eq!(sn["results"][0]["headline"], want);
    }
    // the kit's editor markup is kept
    let m = sent(&s, &b, alice, r#"<p class="SCEditor-paragraph" dir="ltr"><b><strong class="SCEditor-textBold">hi</strong></b></p>"#).await;
    assert_eq!(
        m["message"],
        r#"<p class="SCEditor-paragraph" dir="ltr"><b><strong class="SCEditor-textBold">hi</strong></b></p>"#
    );
}

/// No tag of `html` is a script, frame or SVG, nor carries an event handler, a style or
/// a script URL (the text between tags may name them: the corpus' markers do).
fn assert_tags_safe(html: &str) {
    for tag in html.split('<').skip(1).map(|t| t.split('>').next().unwrap_or("").to_lowercase()) {
        let name = tag.trim_start_matches('/').split_whitespace().next().unwrap_or("");
        assert!(
            !["script", "iframe", "svg", "math", "object", "embed", "form", "style"]
                .contains(&name),
            "{html}"
        );
        let attrs = tag.split_whitespace().skip(1).map(|a| a.split('=').next().unwrap_or(""));
        for a in attrs {
            assert!(!a.starts_with("on") && a != "style" && a != "srcdoc", "{a} in {html}");
        }
        assert!(
            !tag.contains("javascript:") && !tag.contains("data:") && !tag.contains("vbscript:"),
            "{html}"
        );
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn socket(s: &TestServer, token: &str) -> Socket {
    let url = format!("{}/ws/notify?subscribe-user", s.url).replace("http://", "ws://");
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("sec-websocket-protocol", HeaderValue::from_str(&format!("__{token}")).unwrap());
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

#[tokio::test]
async fn the_recipients_open_socket_gets_the_message_as_the_kit_parses_it_within_a_second() {
    let (s, [(alice, a), (bob, b), _]) = on().await;
    let mut ws = socket(&s, &b).await;
    let started = std::time::Instant::now();
    let m = sent(&s, &a, bob, "<p>live</p>").await;
    let push = loop {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(1), ws.next())
            .await
            .expect("the push within 1 s of the commit")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            break serde_json::from_str::<Value>(&t).unwrap();
        }
    };
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    // react-core: `type` interaction, `activity_type` 37 is `private_message`;
    // react-ui's thread and snippets: `thread_id`, `notification_obj.message`/`.snippet`
    assert_eq!(push["type"], "interaction");
    let d = &push["data"];
    assert_eq!(
        (d["activity_type"].clone(), d["thread_id"].clone()),
        (json!(37), m["thread_id"].clone())
    );
    let obj = &d["notification_obj"];
    assert_eq!(
        (obj["type"].clone(), obj["message"]["id"].clone(), obj["message"]["message"].clone()),
        (json!("private_message"), m["id"].clone(), json!("<p>live</p>"))
    );
    assert_eq!(
        (obj["message"]["sender"]["id"].as_i64(), obj["message"]["status"].clone()),
        (Some(alice), json!("new"))
    );
    assert_eq!(
        (
            obj["snippet"]["thread_status"].clone(),
            obj["snippet"]["headline"].clone(),
            obj["snippet"]["receiver"]["id"].as_i64()
        ),
        (json!("new"), json!("<p>live</p>"), Some(bob))
    );
    assert_eq!(d["count_interactions"], 1);
}

#[tokio::test]
async fn unread_counts_stay_exact_under_fifty_parallel_writers() {
    let (s, [(alice, a), _, _]) = on().await;
    let mut tokens = Vec::new();
    for i in 0..50 {
        tokens.push(s.login(&format!("u{i}")).1);
    }
    // fifty users write to alice at once, twice each; then half of them at once take
    // their second message back while alice reads her snippets
    let round = |text: &'static str| {
        let (s, tokens) = (&s, &tokens);
        async move {
            let calls = tokens.iter().map(|t| async move {
                let r = send(s, t, json!([alice]), text).await;
                assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
                r.json()[0]["id"].as_i64().unwrap()
            });
            futures_util::future::join_all(calls).await
        }
    };
    round("one").await;
    let second = round("two").await;
    let sn = s.get("/api/v2/pm/?limit=100", Some(&a)).await.json();
    assert_eq!(sn["count"], 50);
    assert!(sn["results"].as_array().unwrap().iter().all(|x| x["unread_count"] == 2));
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&a)).await.json()["unseen_interactions_counter"],
        100
    );
    let takes = tokens.iter().zip(&second).step_by(2).map(|(t, id)| {
        let s = &s;
        async move {
            assert_eq!(
                s.delete(&format!("/api/v2/pm/{id}/"), Some(t)).await.status,
                StatusCode::NO_CONTENT
            );
        }
    });
    futures_util::future::join_all(takes).await;
    let sn = s.get("/api/v2/pm/?limit=100", Some(&a)).await.json();
    let total: i64 =
        sn["results"].as_array().unwrap().iter().map(|x| x["unread_count"].as_i64().unwrap()).sum();
    assert_eq!(total, 75);
    assert_eq!(s.get("/api/v2/user/me/", Some(&a)).await.json()["unseen_interactions_counter"], 75);
    s.assert_consistent();
}

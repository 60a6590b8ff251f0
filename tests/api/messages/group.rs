//! A group's thread (the kit's `?group=` threads): its members send, read, mark read,
//! delete for themselves and take back; outsiders and leavers are refused; files, the
//! live push to every member's socket, rich text, hidden members, and the kept counts
//! under fifty parallel senders.

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::{messages_of, snippets, socket, thread};
use crate::common::TestServer;

/// A server with private messages and groups on; alice's public group "Bakers", which
/// bob joined; carol is not a member. (server, group, users)
async fn group_on() -> (TestServer, i64, [(i64, String); 3]) {
    let s = TestServer::start().await;
    s.set_pref("addons", "private_messages_enabled", json!(true));
    s.set_pref("configurations", "groups_enabled", json!(true));
    let users = [s.login("alice"), s.login("bob"), s.login("carol")];
    let g = s.create_id("/api/v2/group/", &users[0].1, json!({"name": "Bakers"})).await;
    join(&s, g, &users[1].1).await;
    (s, g, users)
}

async fn join(s: &TestServer, g: i64, token: &str) {
    let r = s.post_empty(&format!("/api/v2/group/{g}/subscribe/"), Some(token)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
}

async fn send_group(s: &TestServer, token: &str, g: i64, text: &str) -> crate::common::Resp {
    // what react-ui's thread sends for a group
    s.post("/api/v2/pm/", Some(token), json!({"group": g, "message": text, "file_uuid": null}))
        .await
}

async fn said(s: &TestServer, token: &str, g: i64, text: &str) -> Value {
    let r = send_group(s, token, g, text).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()[0].clone()
}

/// `token`'s snippet of group `g`'s thread, if listed.
async fn group_snippet(s: &TestServer, token: &str, g: i64) -> Option<Value> {
    let sn = snippets(s, token).await;
    sn["results"].as_array().unwrap().iter().find(|x| x["group"]["id"] == g).cloned()
}

#[tokio::test]
async fn members_share_a_groups_thread_with_their_own_read_marks() {
    let (s, g, [(alice, a), (bob, b), (_, c)]) = group_on().await;
    let m = said(&s, &a, g, "fresh bread at noon").await;
    assert_eq!(
        (m["group"]["id"].as_i64(), m["receiver"].clone(), m["sender"]["id"].as_i64()),
        (Some(g), Value::Null, Some(alice))
    );
    assert_eq!((m["thread_id"].clone(), m["status"].clone()), (json!(-g), json!("seen")));
    s.clock.advance(1_000);
    // a pair thread of bob's beside it
    let pair = s.post("/api/v2/pm/", Some(&c), json!({"recipients": [bob], "message": "hi"})).await;
    assert_eq!(pair.status, StatusCode::CREATED, "{}", pair.text);
    s.clock.advance(1_000);
    said(&s, &a, g, "bring jars").await;
    // bob: the group's snippet first (newest), group set, receiver null, two unread
    let sn = snippets(&s, &b).await;
    assert_eq!(sn["count"], 2);
    let first = &sn["results"][0];
    assert_eq!(
        (first["group"]["id"].as_i64(), first["group"]["name"].clone(), first["id"].clone()),
        (Some(g), json!("Bakers"), json!(-g))
    );
    assert_eq!(
        (first["unread_count"].clone(), first["thread_status"].clone(), first["receiver"].clone()),
        (json!(2), json!("new"), Value::Null)
    );
    assert_eq!(sn["results"][1]["group"], Value::Null);
    // no notification row per member: bob's interactions count only carol's message
    assert_eq!(s.get("/api/v2/user/me/", Some(&b)).await.json()["unseen_interactions_counter"], 1);
    // a read-only token reads without marking; bob's read (the kit's call) marks
    let ro = s.oauth_token(bob, "read");
    let t = thread(&s, &ro, &format!("group={g}&limit=10")).await;
    assert_eq!((t["count"].clone(), t["results"][1]["status"].clone()), (json!(2), json!("new")));
    assert_eq!(group_snippet(&s, &b, g).await.unwrap()["unread_count"], 2);
    let t = thread(&s, &b, &format!("group={g}&limit=10")).await;
    assert_eq!(messages_of(&t), ["fresh bread at noon", "bring jars"]);
    assert_eq!(group_snippet(&s, &b, g).await.unwrap()["unread_count"], 0);
    assert_eq!(thread(&s, &b, &format!("group={g}")).await["results"][1]["status"], "seen");
    // alice's own messages are never unread for her; the thread by id reads the same
    assert_eq!(group_snippet(&s, &a, g).await.unwrap()["unread_count"], 0);
    assert_eq!(messages_of(&thread(&s, &a, &format!("thread={}", -g)).await).len(), 2);
    // bob answers; one message alone
    let r = said(&s, &b, g, "I will").await;
    let one = s.get(&format!("/api/v2/pm/{}/", r["id"]), Some(&a)).await;
    assert_eq!(one.json()["message"], "I will");
    assert_eq!(group_snippet(&s, &a, g).await.unwrap()["unread_count"], 1);
    s.assert_consistent();
}

#[tokio::test]
async fn outsiders_leavers_and_a_deleted_group_have_no_thread() {
    let (s, g, [(_, a), (_, b), (carol, c)]) = group_on().await;
    let m = said(&s, &a, g, "members only").await;
    let path = format!("/api/v2/pm/?group={g}");
    // carol sees the (public) group and is not a member: 403 to read and to send
    assert_eq!(s.status(&path, Some(&c)).await, StatusCode::FORBIDDEN);
    assert_eq!(send_group(&s, &c, g, "let me in").await.status, StatusCode::FORBIDDEN);
    assert_eq!(
        s.status(&format!("/api/v2/pm/{}/", m["id"]), Some(&c)).await,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{}/", m["id"]), Some(&c)).await.status,
        StatusCode::NOT_FOUND
    );
    assert!(group_snippet(&s, &c, g).await.is_none());
    // no such group: 404; bad ids: 400; a group and recipients at once: 400
    assert_eq!(s.status("/api/v2/pm/?group=9999", Some(&a)).await, StatusCode::NOT_FOUND);
    assert_eq!(send_group(&s, &a, 9999, "x").await.status, StatusCode::NOT_FOUND);
    s.get("/api/v2/pm/?group=x", Some(&a)).await.assert_field_error("group", "invalid");
    for q in ["group=-1", "thread=-9223372036854775808", "group=9223372036854775807"] {
        assert_eq!(
            s.status(&format!("/api/v2/pm/?{q}"), Some(&a)).await,
            StatusCode::NOT_FOUND,
            "{q}"
        );
    }
    s.post("/api/v2/pm/", Some(&a), json!({"group": g, "recipients": [carol], "message": "x"}))
        .await
        .assert_field_error("recipients", "invalid");
    // carol joins: she reads what is there
    join(&s, g, &c).await;
    assert_eq!(messages_of(&thread(&s, &c, &format!("group={g}")).await), ["members only"]);
    // bob leaves: the thread is gone for him
    let r = s.delete(&format!("/api/v2/group/{g}/subscribe/"), Some(&b)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(s.status(&path, Some(&b)).await, StatusCode::FORBIDDEN);
    assert_eq!(send_group(&s, &b, g, "bye").await.status, StatusCode::FORBIDDEN);
    assert!(group_snippet(&s, &b, g).await.is_none());
    assert_eq!(
        s.status(&format!("/api/v2/pm/{}/", m["id"]), Some(&b)).await,
        StatusCode::NOT_FOUND
    );
    // groups off: 404, and no group snippets
    s.set_pref("configurations", "groups_enabled", json!(false));
    assert_eq!(s.status(&path, Some(&a)).await, StatusCode::NOT_FOUND);
    assert_eq!(send_group(&s, &a, g, "x").await.status, StatusCode::NOT_FOUND);
    assert_eq!(snippets(&s, &a).await["count"], 0);
    s.set_pref("configurations", "groups_enabled", json!(true));
    // private messages off: 403 as every pm route
    s.set_pref("addons", "private_messages_enabled", json!(false));
    assert_eq!(s.status(&path, Some(&a)).await, StatusCode::FORBIDDEN);
    s.set_pref("addons", "private_messages_enabled", json!(true));
    // the group deleted: 404
    assert_eq!(
        s.delete(&format!("/api/v2/group/{g}/"), Some(&a)).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(s.status(&path, Some(&a)).await, StatusCode::NOT_FOUND);
    assert_eq!(send_group(&s, &a, g, "x").await.status, StatusCode::NOT_FOUND);
    assert!(group_snippet(&s, &a, g).await.is_none());
    s.assert_consistent();
}

#[tokio::test]
async fn deleting_for_oneself_and_taking_back_in_a_groups_thread() {
    let (s, g, [(_, a), (_, b), (_, c)]) = group_on().await;
    join(&s, g, &c).await;
    let young = said(&s, &a, g, "oops").await;
    // younger than a minute, taken back by its sender: gone for everyone
    let del = |id: &Value, t: &str| {
        let (s, path) = (&s, format!("/api/v2/pm/{id}/"));
        let t = t.to_owned();
        async move { s.delete(&path, Some(&t)).await.status }
    };
    assert_eq!(del(&young["id"], &a).await, StatusCode::NO_CONTENT);
    assert_eq!(thread(&s, &b, &format!("group={g}")).await["count"], 0);
    assert!(group_snippet(&s, &b, g).await.is_none());
    let old = said(&s, &a, g, "kept").await;
    s.clock.advance(61_000_000);
    let later = said(&s, &a, g, "later").await;
    // older: a deleted message for all
    assert_eq!(del(&old["id"], &a).await, StatusCode::NO_CONTENT);
    for t in [&a, &b, &c] {
        let page = thread(&s, t, &format!("group={g}")).await;
        assert_eq!(
            (
                page["count"].clone(),
                page["results"][0]["status"].clone(),
                page["results"][0]["message"].clone()
            ),
            (json!(2), json!("hidden"), json!(""))
        );
    }
    // bob hides `later` for himself; twice is 404; the others keep it
    assert_eq!(del(&later["id"], &b).await, StatusCode::NO_CONTENT);
    assert_eq!(del(&later["id"], &b).await, StatusCode::NOT_FOUND);
    assert_eq!(thread(&s, &b, &format!("group={g}")).await["count"], 1);
    assert_eq!(thread(&s, &c, &format!("group={g}")).await["count"], 2);
    assert_eq!(group_snippet(&s, &b, g).await.unwrap()["headline"], "");
    // carol deletes the thread for herself: gone from her snippets, the others keep it
    let r = s.delete(&format!("/api/v2/pm/?group={g}"), Some(&c)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert!(group_snippet(&s, &c, g).await.is_none());
    assert_eq!(thread(&s, &c, &format!("group={g}")).await["count"], 0);
    assert_eq!(thread(&s, &a, &format!("group={g}")).await["count"], 2);
    // a new message brings it back with only what came since; a young one taken back
    // after carol's deletion leaves every count exact
    s.clock.advance(1_000);
    let next = said(&s, &b, g, "back?").await;
    assert_eq!(messages_of(&thread(&s, &c, &format!("group={g}")).await), ["back?"]);
    assert_eq!(group_snippet(&s, &a, g).await.unwrap()["unread_count"], 1);
    assert_eq!(del(&next["id"], &b).await, StatusCode::NO_CONTENT);
    assert_eq!(thread(&s, &c, &format!("group={g}")).await["count"], 0);
    assert_eq!(group_snippet(&s, &a, g).await.unwrap()["unread_count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn a_group_message_carries_a_file_and_rich_text_comes_back_sanitized() {
    let (s, g, [(_, a), (_, b), _]) = group_on().await;
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"%PDF-1.7 menu".to_vec()).file_name("menu.pdf"),
    );
    let r =
        crate::common::multipart(&s, reqwest::Method::POST, "/api/v2/pm/upload/", &a, form).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let uuid = r.json()["file_uuid"].as_str().unwrap().to_owned();
    // another member cannot send alice's file
    let r = s
        .post("/api/v2/pm/", Some(&b), json!({"group": g, "message": "", "file_uuid": uuid}))
        .await;
    r.assert_field_error("file_uuid", "invalid");
    let r = s
        .post("/api/v2/pm/", Some(&a), json!({"group": g, "message": "", "file_uuid": uuid}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let page = thread(&s, &b, &format!("group={g}")).await;
    let file = &page["results"][0]["file"];
    assert_eq!(
        (file["uuid"].as_str(), file["mimetype"].clone()),
        (Some(uuid.as_str()), json!("application/pdf"))
    );
    // the XSS corpus through a group thread: stored as the sanitizer renders it
    let corpus: Vec<Value> =
        serde_json::from_str(include_str!("../../ui/xss-corpus.json")).unwrap();
    for p in &corpus {
        let text = p["text"].as_str().unwrap();
        let m = said(&s, &a, g, text).await;
        let want = hearth::model::rich_text::render(text).html;
        assert_eq!(m["message"], want, "{}", p["id"]);
        let back = s.get(&format!("/api/v2/pm/{}/", m["id"]), Some(&b)).await.json();
        assert_eq!(back["message"], want);
        super::assert_tags_safe(&want);
    }
    s.assert_consistent();
}

#[tokio::test]
async fn a_member_staff_blocked_reads_and_marks_the_thread_and_cannot_write_to_it() {
    let (s, g, [(_, a), (bob, b), _]) = group_on().await;
    said(&s, &a, g, "before the block").await;
    let staff = s.jwt(s.user("moira", None, true));
    let r = s
        .patch(
            &format!("/api/v2/moderation/user/{bob}/?days_blocked=2"),
            Some(&staff),
            json!({"status": "b"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // a staff-blocked member writes nothing (SPEC §10 People): not to a group either
    assert_eq!(send_group(&s, &b, g, "still here").await.status, StatusCode::FORBIDDEN);
    let ro = s.oauth_token(bob, "read");
    assert_eq!(messages_of(&thread(&s, &ro, &format!("group={g}")).await), ["before the block"]);
    // reading marks read (the reader's own marks): a blocked member may, as they may
    // mark notifications read
    assert_eq!(group_snippet(&s, &b, g).await.unwrap()["unread_count"], 1);
    assert_eq!(messages_of(&thread(&s, &b, &format!("group={g}")).await), ["before the block"]);
    assert_eq!(group_snippet(&s, &b, g).await.unwrap()["unread_count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn a_member_hidden_by_another_is_a_deleted_message_to_them() {
    let (s, g, [(alice, a), (_, b), _]) = group_on().await;
    // bob hides alice (SPEC §8): her group messages show to him without text, and are
    // not unread for him; the others read them
    s.post(&format!("/api/v2/user/{alice}/hide/"), Some(&b), json!({})).await;
    said(&s, &a, g, "from alice").await;
    let page = thread(&s, &b, &format!("group={g}")).await;
    assert_eq!(
        (page["results"][0]["status"].clone(), page["results"][0]["message"].clone()),
        (json!("hidden"), json!(""))
    );
    assert_eq!(group_snippet(&s, &b, g).await.unwrap()["unread_count"], 0);
    s.assert_consistent();
}

/// The next JSON push on `ws` (heartbeats aside), within a second.
async fn next_push(ws: &mut super::Socket) -> Value {
    loop {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(1), ws.next())
            .await
            .expect("the push within 1 s of the commit")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            return serde_json::from_str::<Value>(&t).unwrap();
        }
    }
}

#[tokio::test]
async fn every_members_open_socket_gets_a_group_message() {
    let (s, g, [(alice, a), (bob, b), (_, c)]) = group_on().await;
    join(&s, g, &c).await;
    let (mut wb, mut wc) = (socket(&s, &b).await, socket(&s, &c).await);
    let mut wa = socket(&s, &a).await;
    let m = said(&s, &a, g, "<p>live to all</p>").await;
    for (ws, viewer) in [(&mut wb, bob), (&mut wc, 0)] {
        let push = next_push(ws).await;
        let d = &push["data"];
        assert_eq!((d["activity_type"].clone(), d["thread_id"].clone()), (json!(37), json!(-g)));
        let obj = &d["notification_obj"];
        assert_eq!(
            (obj["type"].clone(), obj["message"]["id"].clone(), obj["message"]["message"].clone()),
            (json!("private_message"), m["id"].clone(), json!("<p>live to all</p>"))
        );
        assert_eq!(
            (obj["message"]["sender"]["id"].as_i64(), obj["message"]["status"].clone()),
            (Some(alice), json!("new"))
        );
        assert_eq!(
            (
                obj["snippet"]["id"].clone(),
                obj["snippet"]["group"]["id"].as_i64(),
                obj["snippet"]["unread_count"].clone()
            ),
            (json!(-g), Some(g), json!(1))
        );
        let _ = viewer;
    }
    // the sender's own socket gets nothing: her next push is bob's answer
    said(&s, &b, g, "got it").await;
    let push = next_push(&mut wa).await;
    assert_eq!(push["data"]["notification_obj"]["message"]["message"], "got it");
}

#[tokio::test]
async fn fifty_parallel_senders_in_one_group_thread_keep_every_count_exact() {
    let (s, g, [(_, a), (_, b), _]) = group_on().await;
    let mut tokens = Vec::new();
    for i in 0..50 {
        let t = s.login(&format!("u{i}")).1;
        join(&s, g, &t).await;
        tokens.push(t);
    }
    let round = |text: &'static str| {
        let (s, tokens) = (&s, &tokens);
        async move {
            let calls = tokens.iter().map(|t| async move {
                let r = send_group(s, t, g, text).await;
                assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
                r.json()[0]["id"].as_i64().unwrap()
            });
            futures_util::future::join_all(calls).await
        }
    };
    round("one").await;
    let second = round("two").await;
    assert_eq!(group_snippet(&s, &a, g).await.unwrap()["unread_count"], 100);
    assert_eq!(thread(&s, &b, &format!("group={g}&limit=5")).await["count"], 100);
    // half take their second back at once (young: gone) while bob hides and reads
    let takes = tokens.iter().zip(&second).step_by(2).map(|(t, id)| {
        let s = &s;
        async move {
            assert_eq!(
                s.delete(&format!("/api/v2/pm/{id}/"), Some(t)).await.status,
                StatusCode::NO_CONTENT
            );
        }
    });
    let hides = second.iter().skip(1).step_by(2).take(10).map(|id| {
        let (s, b) = (&s, &b);
        async move {
            assert_eq!(
                s.delete(&format!("/api/v2/pm/{id}/"), Some(b)).await.status,
                StatusCode::NO_CONTENT
            );
        }
    });
    futures_util::future::join(
        futures_util::future::join_all(takes),
        futures_util::future::join_all(hides),
    )
    .await;
    assert_eq!(group_snippet(&s, &a, g).await.unwrap()["unread_count"], 75);
    assert_eq!(thread(&s, &a, &format!("group={g}&limit=5")).await["count"], 75);
    assert_eq!(thread(&s, &b, &format!("group={g}&limit=5")).await["count"], 65);
    s.assert_consistent();
}

#[tokio::test]
async fn an_erased_member_leaves_their_marks_behind_and_their_messages_stay() {
    let (s, g, [(alice, a), (bob, b), _]) = group_on().await;
    let m = said(&s, &a, g, "from alice").await;
    said(&s, &b, g, "from bob").await;
    // bob reads (a read mark) and hides alice's message (a hide): rows of his own
    thread(&s, &b, &format!("group={g}")).await;
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{}/", m["id"]), Some(&b)).await.status,
        StatusCode::NO_CONTENT
    );
    let marks = |user: i64| {
        s.db_read(move |c| {
            c.query_row(
                "SELECT (SELECT count(*) FROM pm_group_member WHERE user_id = ?1)
                      + (SELECT count(*) FROM pm_group_hidden WHERE user_id = ?1)",
                [user],
                |r| r.get::<_, i64>(0),
            )
        })
    };
    assert_eq!(marks(bob), 2);
    let r = s.call(reqwest::Method::DELETE, &format!("/api/v2/user/{bob}/"), Some(&b), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(marks(bob), 0, "his marks go with his account");
    // his message stays in the thread, a deleted user's
    let page = thread(&s, &a, &format!("group={g}")).await;
    assert_eq!(messages_of(&page), ["from alice", "from bob"]);
    assert_eq!(page["results"][1]["sender"]["deleted"], true);
    let _ = alice;
    s.assert_consistent();
}

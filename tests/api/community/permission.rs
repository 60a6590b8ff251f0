//! What the caller may create (`GET /api/v2/user/me/permission/`, and `permission` in
//! `GET /api/v2/user/me/`, which the kit's composer menu and create buttons read): each
//! flag is true exactly when the write it names is taken, for a member and for staff,
//! under each preference that decides it.

use serde_json::{Value, json};

use crate::common::TestServer;

/// The caller's permission, the same from both routes.
async fn permission(s: &TestServer, tok: &str) -> Value {
    let p = s.get("/api/v2/user/me/permission/", Some(tok)).await.json();
    assert_eq!(s.get("/api/v2/user/me/", Some(tok)).await.json()["permission"], p);
    p
}

/// Whether each create is taken now: the flags' writes, tried.
async fn taken(s: &TestServer, tok: &str, n: usize) -> Value {
    let at = |h: i64| hearth::clock::rfc3339(s.clock.now() + h * 3600 * hearth::clock::SECOND);
    let poll = json!({"title": "Rye or wheat?", "multiple_choices": false,
                      "choices": [{"choice": "rye"}, {"choice": "wheat"}]});
    let tries = [
        ("create_post", "/api/v2/post/", json!({"text": format!("post {n}")})),
        ("create_poll", "/api/v2/post/", json!({"text": format!("poll {n}"), "poll": poll})),
        ("create_group", "/api/v2/group/", json!({"name": format!("Group {n}")})),
        (
            "create_event",
            "/api/v2/event/",
            json!({"name": format!("Event {n}"), "start_date": at(1), "end_date": at(2),
                   "recurring": "never", "location": "virtual", "link": "https://meet.example/r"}),
        ),
        (
            "create_course",
            "/api/v2/course/",
            json!({"name": format!("Course {n}"), "type": "self-paced"}),
        ),
    ];
    let mut out = serde_json::Map::new();
    for (flag, path, body) in tries {
        let r = s.post(path, Some(tok), body).await;
        // refused as each write refuses: 403, 404 while an area is off, 400 on `poll`
        let poll_refused = flag == "create_poll" && r.text.contains(r#""field":"poll""#);
        let refused = [403, 404].contains(&r.status.as_u16()) || poll_refused;
        assert!(r.status.is_success() || refused, "{path}: {}", r.text);
        out.insert(flag.into(), json!(r.status.is_success()));
    }
    Value::Object(out)
}

/// The flags of `p` that [`taken`] tries.
fn flags(p: &Value) -> Value {
    let keys = ["create_post", "create_poll", "create_group", "create_event", "create_course"];
    Value::Object(keys.iter().map(|k| ((*k).to_owned(), p[*k].clone())).collect())
}

#[tokio::test]
async fn each_create_flag_is_what_its_write_answers() {
    let s = TestServer::start().await;
    let (_, member) = s.login("ann");
    let staff = s.jwt(s.user("moira", None, true));
    let settings: [&[(&str, &str, bool)]; 4] = [
        // the defaults: groups and events off, polls off, everything open
        &[],
        &[
            ("configurations", "groups_enabled", true),
            ("configurations", "events_enabled", true),
            ("addons", "polls_enabled", true),
        ],
        &[
            ("configurations", "groups_only_staff_enabled", true),
            ("configurations", "events_only_staff_enabled", true),
            ("configurations", "courses_only_staff_enabled", true),
        ],
        &[("configurations", "post_only_staff_enabled", true), ("addons", "polls_enabled", false)],
    ];
    let mut n = 0;
    let mut seen = Vec::new();
    for set in settings {
        for (section, name, value) in set {
            s.set_pref(section, name, json!(value));
        }
        for tok in [&member, &staff] {
            n += 1;
            let p = permission(&s, tok).await;
            assert_eq!(flags(&p), taken(&s, tok, n).await, "{set:?}");
            assert_eq!(p["create_contribute"], p["create_post"]);
            assert_eq!(
                (p["create_live_stream"].clone(), p["locate_post"].clone()),
                (json!(false), json!(false))
            );
            seen.push(flags(&p));
        }
    }
    // every flag was seen both ways
    for k in ["create_post", "create_poll", "create_group", "create_event", "create_course"] {
        let values: Vec<&Value> = seen.iter().map(|p| &p[k]).collect();
        assert!(
            values.contains(&&json!(true)) && values.contains(&&json!(false)),
            "{k}: {values:?}"
        );
    }
}

#[tokio::test]
async fn following_and_connections_follow_their_preferences() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let p = permission(&s, &a).await;
    assert_eq!(
        (p["follow_user"].clone(), p["request_connection"].clone(), p["accept_connection"].clone()),
        (json!(true), json!(false), json!(false))
    );
    s.set_pref("configurations", "follow_enabled", json!(false));
    s.set_pref("configurations", "connection_enabled", json!(true));
    let p = permission(&s, &a).await;
    assert_eq!(
        (p["follow_user"].clone(), p["request_connection"].clone(), p["accept_connection"].clone()),
        (json!(false), json!(true), json!(true))
    );
    assert_eq!(s.status("/api/v2/user/me/permission/", None).await, 401);
    assert_eq!(s.status("/api/v2/user/me/permission/", Some("not-a-token")).await, 401);
}

/// A member staff blocked may create nothing (every write of theirs is refused), so
/// every flag is false until the block ends; the kit's create buttons read only these.
#[tokio::test]
async fn a_blocked_member_may_create_nothing_until_the_block_ends() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    s.set_pref("configurations", "groups_enabled", json!(true));
    s.set_pref("configurations", "events_enabled", json!(true));
    s.set_pref("addons", "polls_enabled", json!(true));
    let r = s
        .patch(
            &format!("/api/v2/moderation/user/{bob}/?days_blocked=1"),
            Some(&staff),
            json!({"status": "b"}),
        )
        .await;
    assert!(r.status.is_success(), "{}", r.text);
    let p = permission(&s, &b).await;
    let granted: Vec<&String> = p
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| **v != json!(false))
        .map(|(k, _)| k)
        .collect();
    assert!(granted.is_empty(), "{p}");
    assert_eq!(flags(&p), taken(&s, &b, 1).await);
    s.clock.advance(hearth::clock::SECOND * 86_400);
    let b = s.jwt(bob); // the first one expired with the day
    let p = permission(&s, &b).await;
    assert_eq!(flags(&p), taken(&s, &b, 2).await);
    assert_eq!(p["create_group"], json!(true));
}

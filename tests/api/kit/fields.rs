//! The contribution fields the kit reads besides votes: slug, last_activity_at, and the
//! ones hearth keeps nothing of, always present with the value that is true.

use hearth::clock::{SECOND, rfc3339};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{comment, create, no_content, post, start};
use crate::common::TestServer;

/// The fields every kind has, with the value hearth always gives them.
fn fixed() -> Vec<(&'static str, Value)> {
    vec![
        ("view_count", json!(0)),
        ("share_count", json!(0)),
        ("flag_count", json!(0)),
        ("follower_count", json!(0)),
        ("followed", json!(false)),
        ("collapsed", json!(false)),
        ("suspended", json!(false)),
        ("medias", json!([])),
        ("addressing", json!([])),
        ("tags", json!([])),
        ("location", Value::Null),
        ("poll", Value::Null),
        ("group", Value::Null),
        ("event", Value::Null),
    ]
}

#[tokio::test]
async fn every_kind_has_every_field_the_kit_reads() {
    let (s, w) = start().await;
    let ann = w.ann_t.as_str();
    let d = create(&s, ann, "discussion", json!({"title": "Ça va, Zoë?", "text": "t"})).await;
    let p = post(&s, ann, "Hello   World!! 2026").await;
    let st = create(&s, ann, "status", json!({"text": "🙂🙂", "action": "reading"})).await;
    let c = comment(&s, &w.bob_t, "discussion", d, "Nice one").await;
    for (kind, id, slug) in [
        ("discussion", d, "ca-va-zoe"),
        ("post", p, "hello-world-2026"),
        ("status", st, "status"),
        ("comment", c, "nice-one"),
    ] {
        // the answer of the create, the item and the list agree
        for v in [
            s.get(&format!("/api/v2/{kind}/{id}/"), None).await.json(),
            s.get(&format!("/api/v2/{kind}/"), None).await.json()["results"][0].clone(),
        ] {
            assert_eq!(v["id"], id, "{kind}");
            assert_eq!(v["slug"], slug, "{kind}");
            for (k, want) in fixed() {
                assert_eq!(v[k], want, "{kind}.{k}");
            }
            for k in ["vote_count", "reactions_count", "voted", "reaction", "last_activity_at"] {
                assert!(v.get(k).is_some(), "{kind} lacks {k}");
            }
            let comment_only = ["in_reply_to", "latest_comments"];
            for k in comment_only {
                assert_eq!(v.get(k).is_some(), kind == "comment", "{kind}.{k}");
            }
        }
    }
    let v = s.get(&format!("/api/v2/comment/{c}/"), None).await.json();
    assert_eq!((v["in_reply_to"].clone(), v["latest_comments"].clone()), (Value::Null, json!([])));
    // the create answers with them too
    let r = s.post("/api/v2/post/", Some(&w.bob_t), json!({"text": "fresh"})).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let v = r.json();
    assert_eq!(
        (v["slug"].as_str(), v["vote_count"].as_i64(), v["voted"].as_bool()),
        (Some("fresh"), Some(0), Some(false))
    );
    assert_eq!(v["last_activity_at"], v["added_at"]);
}

async fn item(s: &TestServer, p: i64) -> Value {
    s.get(&format!("/api/v2/post/{p}/"), None).await.json()
}

#[tokio::test]
async fn last_activity_is_the_newest_live_comment() {
    let (s, w) = start().await;
    let start = s.clock.now();
    let p = post(&s, &w.ann_t, "p").await;
    let at = |v: &Value| v["last_activity_at"].as_str().unwrap().to_owned();

    assert_eq!(at(&item(&s, p).await), rfc3339(start));
    s.clock.advance(10 * SECOND);
    let c1 = comment(&s, &w.bob_t, "post", p, "one").await;
    assert_eq!(at(&item(&s, p).await), rfc3339(start + 10 * SECOND));
    s.clock.advance(10 * SECOND);
    let c2 = comment(&s, &w.cy_t, "post", p, "two").await;
    assert_eq!(at(&item(&s, p).await), rfc3339(start + 20 * SECOND));
    // a reply is a comment on the item too, and the newest activity of its parent
    s.clock.advance(10 * SECOND);
    let r = s
        .post("/api/v2/comment/", Some(&w.ann_t), json!({"text": "re", "post": p, "parent": c1}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let reply = r.json()["id"].as_i64().unwrap();
    assert_eq!(at(&item(&s, p).await), rfc3339(start + 30 * SECOND));
    let parent = s.get(&format!("/api/v2/comment/{c1}/"), None).await.json();
    assert_eq!(at(&parent), rfc3339(start + 30 * SECOND));
    let other = s.get(&format!("/api/v2/comment/{c2}/"), None).await.json();
    assert_eq!(at(&other), rfc3339(start + 20 * SECOND), "no reply: its own creation");
    // deleted comments do not count; restored ones do again
    no_content(&s.delete(&format!("/api/v2/comment/{reply}/"), Some(&w.ann_t)).await);
    assert_eq!(at(&item(&s, p).await), rfc3339(start + 20 * SECOND));
    no_content(
        &s.call(Method::POST, &format!("/api/v2/comment/{reply}/restore/"), Some(&w.ann_t), None)
            .await,
    );
    assert_eq!(at(&item(&s, p).await), rfc3339(start + 30 * SECOND));
}

#[tokio::test]
async fn a_long_text_makes_a_short_slug() {
    let (s, w) = start().await;
    let long = "word ".repeat(50_000);
    let p = post(&s, &w.ann_t, &long).await;
    let v = s.get(&format!("/api/v2/post/{p}/"), None).await.json();
    let slug = v["slug"].as_str().unwrap();
    assert!(slug.len() <= 100 && slug.starts_with("word-word"), "{slug}");
    assert!(!slug.ends_with('-'));
}

#[tokio::test]
async fn the_toolbar_reads_numbers_and_staff_read_as_admins() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let root = s.user("root", None, true);
    let me = s.get("/api/v2/user/me/", Some(&a)).await.json();
    // the kit adds these up for its badge: a number each, never absent (NaN)
    assert_eq!(me["unseen_interactions_counter"], 0);
    assert_eq!(me["unseen_notification_banners_counter"], 0);
    assert_eq!(me["role"], Value::Null);
    let staff = s.get("/api/v2/user/me/", Some(&s.jwt(root))).await.json();
    assert_eq!(staff["role"], "admin");
    // another user's JSON has the role, never the caller's own counters
    let other = s.get(&format!("/api/v2/user/{root}/"), Some(&a)).await.json();
    assert_eq!(other["role"], "admin");
    assert!(other.get("unseen_interactions_counter").is_none() && other.get("email").is_none());
    // the role follows the staff flag
    s.db_write(|c| c.execute("UPDATE user SET is_staff = 0 WHERE id = ?1", [root]));
    let other = s.get(&format!("/api/v2/user/{root}/"), Some(&a)).await.json();
    assert_eq!(other["role"], Value::Null);
}

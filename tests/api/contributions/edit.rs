//! Editing (`PUT /api/v2/{type}/{id}/`, the kit's Composer in edit mode and its comment
//! editor): the author alone rewrites the text, title, action, categories and
//! addressing; where an item was made stays; the index, the mentions and every count
//! follow.

use hearth::model::contribution::Kind;
use reqwest::StatusCode;
use serde_json::json;

use super::{a_post, body, create_id, item};
use crate::common::TestServer;

#[tokio::test]
async fn the_author_edits_each_kind_and_what_follows_the_new_text() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let [bread, music] = s.categories(["Bread", "Music"]);
    let host = a_post(&s, &a).await;
    for kind in Kind::ALL {
        let id = create_id(&s, &a, kind, body(kind, host)).await;
        s.clock.advance(5_000);
        let edit = match kind {
            Kind::Discussion => {
                json!({"title": "  New title ", "text": "rye <script>x()</script>", "categories": [music]})
            }
            Kind::Post => {
                json!({"text": "<p>rye <b>loaf</b><img src=x onerror=alert(1)></p>", "categories": [music, bread]})
            }
            Kind::Status => json!({"text": "rye mood", "action": "baking", "categories": [music]}),
            Kind::Comment => json!({"text": "rye <i>indeed</i>", "post": 999_999, "parent": 1}),
        };
        let r = s.put(&item(kind, id), Some(&a), edit).await;
        assert_eq!(r.status, StatusCode::OK, "{kind:?}: {}", r.text);
        let j = r.json();
        let html = j["html"].as_str().unwrap();
        assert!(
            html.contains("rye") && !html.contains("<script") && !html.contains("<img"),
            "{kind:?}: {j}"
        );
        assert!(j["last_edited_at"].is_string(), "{kind:?}: {j}");
        let read = s.get(&item(kind, id), Some(&a)).await.json();
        assert_eq!(read["html"], j["html"], "{kind:?}");
        match kind {
            Kind::Discussion => assert_eq!(read["title"], "New title"),
            Kind::Status => assert_eq!(read["action"], "baking"),
            // a comment stays on its post
            Kind::Comment => assert_eq!(read["post"], host),
            Kind::Post => {
                let cats: Vec<i64> = read["categories"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["id"].as_i64().unwrap())
                    .collect();
                assert_eq!(cats.len(), 2, "{read}");
            }
        }
    }
    // search follows the new text: the old words are gone
    let found = |q: &'static str| {
        let (s, a) = (&s, a.clone());
        async move {
            s.get(&format!("/api/v2/search/?search={q}"), Some(&a)).await.json()["count"].clone()
        }
    };
    assert_eq!(found("rye").await, 3, "the discussion, the post and the status");
    assert_eq!(found("talk").await, 0);
    // the category feeds follow the new categories
    let music_feed = s.get(&format!("/api/v2/category/{music}/feed/"), None).await.json();
    assert_eq!(music_feed["count"], 3);
    s.assert_consistent();
}

#[tokio::test]
async fn only_the_author_edits_a_live_item_it_can_see() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let staff = s.jwt(s.user("moira", None, true));
    let p = a_post(&s, &a).await;
    let path = item(Kind::Post, p);
    for tok in [&b, &staff] {
        let r = s.put(&path, Some(tok), json!({"text": "mine now"})).await;
        r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    assert_eq!(s.put(&path, None, json!({"text": "x"})).await.status, StatusCode::UNAUTHORIZED);
    let ro = s.oauth_token(alice, "read");
    assert_eq!(s.put(&path, Some(&ro), json!({"text": "x"})).await.status, StatusCode::FORBIDDEN);
    s.put(&item(Kind::Post, 999_999), Some(&a), json!({"text": "x"}))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    // bad input is 400 on its field, and changes nothing
    for (bad, field) in [
        (json!({"text": ""}), "text"),
        (json!({"text": 5}), "text"),
        (json!({"text": "x", "categories": [999]}), "categories"),
        (json!({"text": "x", "categories": "1"}), "categories"),
        (json!({"text": "x", "group": 1}), "group"),
        (json!({"text": "x", "addressing": [999]}), "addressing"),
    ] {
        let r = s.put(&path, Some(&a), bad.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.text);
        assert!(r.text.contains(field), "{bad}: {}", r.text);
    }
    let r = s
        .put(
            &item(
                Kind::Discussion,
                create_id(&s, &a, Kind::Discussion, body(Kind::Discussion, p)).await,
            ),
            Some(&a),
            json!({"title": " ", "text": "x"}),
        )
        .await;
    r.assert_field_error("title", "required");
    assert_eq!(s.get(&path, Some(&a)).await.json()["html"], "host");
    // deleted: 404, for its author too
    s.delete(&path, Some(&a)).await;
    s.put(&path, Some(&a), json!({"text": "back"}))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    // a blocked member may not edit
    let q = a_post(&s, &b).await;
    s.db_write(|c| c.execute("UPDATE user SET blocked_at = 0 WHERE username = 'bob'", []));
    let r = s.put(&item(Kind::Post, q), Some(&b), json!({"text": "x"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
}

/// A mention added by an edit notifies once; one already there is not notified again.
#[tokio::test]
async fn an_edit_notifies_the_users_it_mentions_for_the_first_time() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (carol, c) = s.login("carol");
    let m = |ids: &[i64]| {
        ids.iter()
            .map(|i| format!(r#"<mention id="{i}">@u</mention>"#))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let p =
        create_id(&s, &a, Kind::Post, json!({"text": format!("<p>hi {}</p>", m(&[bob]))})).await;
    for text in [m(&[bob, carol]), m(&[bob, carol]), format!("again {}", m(&[carol, bob]))] {
        let r =
            s.put(&item(Kind::Post, p), Some(&a), json!({"text": format!("<p>{text}</p>")})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    let mentions = |tok: String| {
        let s = &s;
        async move {
            let r = s.get("/api/v2/notification/", Some(&tok)).await.json();
            r["results"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["aggregated"].as_array().unwrap().clone())
                .filter(|n| n["type"] == "mention")
                .count()
        }
    };
    assert_eq!(mentions(b.clone()).await, 1);
    assert_eq!(mentions(c.clone()).await, 1);
}

/// Addressing on an edit: the tags the item has stay allowed after the author lost
/// them, a new one must be the author's, and un-addressing shows the item to all.
#[tokio::test]
async fn an_edit_re_addresses_by_the_create_rules() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("carol");
    let team = s.create_id("/api/v2/tag/", &staff, json!({"name": "Team"})).await;
    let other = s.create_id("/api/v2/tag/", &staff, json!({"name": "Other"})).await;
    s.post(&format!("/api/v2/tag/{team}/assign/"), Some(&staff), json!({"user": bob})).await;
    let p = create_id(&s, &b, Kind::Post, json!({"text": "x", "addressing": [team]})).await;
    let path = item(Kind::Post, p);
    s.db_write(move |c| c.execute("DELETE FROM user_tag WHERE user_id = ?1", [bob]));
    let r = s.put(&path, Some(&b), json!({"text": "y", "addressing": [team]})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    s.put(&path, Some(&b), json!({"text": "y", "addressing": [team, other]}))
        .await
        .assert_field_error("addressing", "invalid");
    assert_eq!(s.status(&path, Some(&c)).await, StatusCode::NOT_FOUND);
    // the Composer leaves `addressing` out for "everyone": the item is for everyone again
    let r = s.put(&path, Some(&b), json!({"text": "for all"})).await;
    assert_eq!(r.json()["addressing"], json!([]));
    assert_eq!(s.status(&path, Some(&c)).await, StatusCode::OK);
    s.assert_consistent();
}

/// Parallel edits of one item: each answered, the last one written whole (text, its
/// index entry and its categories agree: `hearth check`).
#[tokio::test]
async fn parallel_edits_leave_one_whole_version() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let cats = s.categories(["A", "B", "C"]);
    let p = a_post(&s, &a).await;
    let path = item(Kind::Post, p);
    let calls = (0..24).map(|i| {
        let (s, a, path) = (&s, a.clone(), path.clone());
        let body = json!({"text": format!("version{i}"), "categories": [cats[i % 3]]});
        async move { s.put(&path, Some(&a), body).await.status }
    });
    let done = futures_util::future::join_all(calls).await;
    assert!(done.iter().all(|st| *st == StatusCode::OK), "{done:?}");
    let now = s.get(&path, Some(&a)).await.json();
    let text =
        now["html"].as_str().unwrap().trim_start_matches("<p>").trim_end_matches("</p>").to_owned();
    let i: usize = text.trim_start_matches("version").parse().unwrap();
    assert_eq!(now["categories"][0]["id"], cats[i % 3]);
    assert_eq!(now["categories"].as_array().unwrap().len(), 1);
    let found = s.get(&format!("/api/v2/search/?search={text}"), Some(&a)).await.json();
    assert_eq!(found["count"], 1);
    s.assert_consistent();
}

//! Links and shares in posts (`POST /api/v2/media/`, the kit's Composer link button and
//! a feed card's Share): a link is a card of its site's name, never fetched; a share
//! names an item everyone may see, comes alone, and counts in the shared item's
//! `share_count` and `shares_users` while the sharing item lives; the click tracker
//! answers who may see a media.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestServer, png};
use crate::events::gallery::upload;

async fn media(s: &TestServer, tok: &str, body: Value) -> Value {
    let r = s.post("/api/v2/media/", Some(tok), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()
}

fn id(v: &Value) -> i64 {
    v["id"].as_i64().unwrap()
}

/// A link is stored as the `url` crate writes it back and shown as the kit's `sc_link`
/// card of its host; a post shows it; what is not an absolute http(s) URL is refused.
#[tokio::test]
async fn a_link_is_a_card_of_its_site_and_only_http_links_are_taken() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let link =
        media(&s, &a, json!({"type": "url", "url": " HTTPS://Bakery.Example/rye?x=1#top "})).await;
    assert_eq!(link["type"], "url");
    assert_eq!(link["url"], "https://bakery.example/rye?x=1#top");
    assert_eq!(link["title"], "bakery.example");
    assert_eq!(link["image"], Value::Null);
    assert_eq!(link["embed"]["embed_type"], "sc_link");
    assert_eq!(link["embed"]["metadata"]["url"], "https://bakery.example/rye?x=1#top");
    assert_eq!(link["embed"]["metadata"]["title"], "bakery.example");
    assert_eq!(link["embed"]["metadata"]["images"], json!([]));
    let post = s.create("/api/v2/post/", &a, json!({"medias": [id(&link)]})).await;
    assert_eq!(post["medias"][0]["embed"]["metadata"]["url"], link["url"]);
    let long = format!("https://a.example/{}", "x".repeat(2000));
    for bad in [
        "javascript:alert(1)",
        "/relative/path",
        "ftp://files.example/x",
        "https://user:pw@bakery.example/",
        "data:text/html,<script>alert(1)</script>",
        "https://",
        long.as_str(),
    ] {
        let r = s.post("/api/v2/media/", Some(&a), json!({"type": "url", "url": bad})).await;
        r.assert_field_error("url", "invalid");
    }
    let r = s.post("/api/v2/media/", Some(&a), json!({"type": "url"})).await;
    r.assert_field_error("url", "required");
    for t in ["image", "document", ""] {
        let r = s
            .post("/api/v2/media/", Some(&a), json!({"type": t, "url": "https://a.example/"}))
            .await;
        r.assert_field_error("type", "invalid_choice");
    }
    // a link is not a gallery's picture
    let r =
        s.post("/api/v2/media/", None, json!({"type": "url", "url": "https://a.example/"})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

/// A share, while sharing is on: of an item everyone may see, alone in its post; the
/// shared item counts the live posts that share it and lists their authors; a deleted
/// sharing post stops counting until restored.
#[tokio::test]
async fn a_share_counts_while_its_post_lives() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let (_, b) = s.login("bob");
    let (_, c) = s.login("cat");
    let shared = s.create_id("/api/v2/discussion/", &a, json!({"title": "Rye", "text": "t"})).await;
    let r =
        s.post("/api/v2/media/", Some(&b), json!({"type": "share", "shared_object": shared})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    s.set_pref("addons", "share_post_enabled", json!(true));
    let share = media(&s, &b, json!({"type": "share", "shared_object": shared})).await;
    assert_eq!(share["type"], "share");
    assert_eq!(share["embed"]["embed_type"], "sc_shared_object");
    assert_eq!(share["embed"]["metadata"], json!({"id": shared, "type": "discussion"}));
    // alone: not with a picture, not with another share
    let pic = id(&upload(&s, &b, &png(10, 10)).await);
    let other = media(&s, &b, json!({"type": "share", "shared_object": shared})).await;
    for medias in [json!([id(&share), pic]), json!([id(&share), id(&other)])] {
        let r = s.post("/api/v2/post/", Some(&b), json!({"medias": medias})).await;
        r.assert_field_error("medias", "invalid");
    }
    let bobs = s.create_id("/api/v2/post/", &b, json!({"medias": [id(&share)]})).await;
    s.clock.advance(hearth::clock::SECOND);
    let cats_share = media(&s, &c, json!({"type": "share", "shared_object": shared})).await;
    s.create_id("/api/v2/post/", &c, json!({"text": "look", "medias": [id(&cats_share)]})).await;
    let path = format!("/api/v2/discussion/{shared}/");
    assert_eq!(s.get(&path, None).await.json()["share_count"], 2);
    let sharers = s.get(&format!("/api/v2/discussion/{shared}/shares_users/"), None).await.json();
    assert_eq!(sharers["count"], 2);
    let names: Vec<&str> = sharers["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cat", "bob"]);
    assert_eq!(s.delete(&format!("/api/v2/post/{bobs}/"), Some(&b)).await.status, 204);
    assert_eq!(s.get(&path, None).await.json()["share_count"], 1);
    let sharers = s.get(&format!("/api/v2/discussion/{shared}/shares_users/"), None).await.json();
    assert_eq!(sharers["count"], 1);
    let r = s
        .call(reqwest::Method::POST, &format!("/api/v2/post/{bobs}/restore/"), Some(&b), None)
        .await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(s.get(&path, None).await.json()["share_count"], 2);
    // deleting the share media takes the share out
    assert_eq!(
        s.delete(&format!("/api/v2/media/{}/", id(&cats_share)), Some(&c)).await.status,
        204
    );
    assert_eq!(s.get(&path, None).await.json()["share_count"], 1);
    s.assert_consistent();
}

/// What only some members see is not shared, nor an unknown or deleted item, nor an
/// event; an id an older community gave to several items needs its kind.
#[tokio::test]
async fn only_what_everyone_sees_is_shared() {
    let s = TestServer::start().await;
    s.set_pref("addons", "share_post_enabled", json!(true));
    s.set_pref("configurations", "groups_enabled", json!(true));
    s.set_pref("configurations", "groups_private_enabled", json!(true));
    let (_, a) = s.login("ann");
    let g = s.create_id("/api/v2/group/", &a, json!({"name": "Inner", "privacy": "private"})).await;
    let inner = s.create_id("/api/v2/post/", &a, json!({"text": "in", "group": g})).await;
    let gone = s.create_id("/api/v2/post/", &a, json!({"text": "gone"})).await;
    assert_eq!(s.delete(&format!("/api/v2/post/{gone}/"), Some(&a)).await.status, 204);
    for shared in [json!(inner), json!(gone), json!(99_999), json!("x")] {
        let r = s
            .post("/api/v2/media/", Some(&a), json!({"type": "share", "shared_object": shared}))
            .await;
        r.assert_field_error("shared_object", "invalid");
    }
    let r = s.post("/api/v2/media/", Some(&a), json!({"type": "share", "event_object": 1})).await;
    r.assert_field_error("event_object", "invalid");
    // two items with one id, as an older hearth numbered them per kind
    let post = s.create_id("/api/v2/post/", &a, json!({"text": "p"})).await;
    let d = s.create_id("/api/v2/discussion/", &a, json!({"title": "D", "text": "t"})).await;
    s.db_write(move |c| {
        c.execute(
            "UPDATE contribution SET id = ?1 WHERE kind = 'discussion' AND id = ?2",
            [post, d],
        )
    });
    let r =
        s.post("/api/v2/media/", Some(&a), json!({"type": "share", "shared_object": post})).await;
    r.assert_field_error("shared_object", "invalid");
    for kind in ["discussion", "post"] {
        let body = json!({"type": "share", "shared_object": post, "shared_object_type": kind});
        let shared = media(&s, &a, body).await;
        assert_eq!(shared["embed"]["metadata"], json!({"id": post, "type": kind}));
    }
    let body = json!({"type": "share", "shared_object": post, "shared_object_type": "comment"});
    let r = s.post("/api/v2/media/", Some(&a), body).await;
    r.assert_field_error("shared_object_type", "invalid_choice");
}

/// The click tracker answers 204 for a media the caller may see (anonymous readers of
/// a public post included) and 404 otherwise; it writes nothing.
#[tokio::test]
async fn a_click_is_answered_for_what_the_caller_sees() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let (_, b) = s.login("bob");
    let link = id(&media(&s, &a, json!({"type": "url", "url": "https://a.example/"})).await);
    let click = format!("/api/v2/media/{link}/click/");
    assert_eq!(s.post(&click, Some(&b), json!({})).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.post(&click, Some(&a), json!({})).await.status, StatusCode::NO_CONTENT);
    s.create("/api/v2/post/", &a, json!({"text": "see", "medias": [link]})).await;
    assert_eq!(s.post(&click, Some(&b), json!({})).await.status, StatusCode::NO_CONTENT);
    assert_eq!(s.post(&click, None, json!({"ip": "1.2.3.4"})).await.status, StatusCode::NO_CONTENT);
    let r = s.post("/api/v2/media/99999/click/", None, json!({})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

/// A share is checked again when a post shows it: not once its item is gone or sharing
/// is off, not in the item it shares; an item shared from a private group counts in
/// `share_count` but is listed only to who sees it; an erased sharer's shares keep the
/// counts exact.
#[tokio::test]
async fn a_share_is_checked_when_shown_and_counts_stay_exact() {
    let s = TestServer::start().await;
    s.set_pref("addons", "share_post_enabled", json!(true));
    s.set_pref("configurations", "groups_enabled", json!(true));
    s.set_pref("configurations", "groups_private_enabled", json!(true));
    let (_, a) = s.login("ann");
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("cat");
    let share_of = |item: i64| json!({"type": "share", "shared_object": item});
    // gone since the share was made
    let gone = s.create_id("/api/v2/post/", &a, json!({"text": "gone"})).await;
    let stale = id(&media(&s, &b, share_of(gone)).await);
    assert_eq!(s.delete(&format!("/api/v2/post/{gone}/"), Some(&a)).await.status, 204);
    let r = s.post("/api/v2/post/", Some(&b), json!({"medias": [stale]})).await;
    r.assert_field_error("medias", "invalid");
    // sharing turned off since
    let kept = s.create_id("/api/v2/post/", &a, json!({"text": "kept"})).await;
    let later = id(&media(&s, &b, share_of(kept)).await);
    s.set_pref("addons", "share_post_enabled", json!(false));
    let r = s.post("/api/v2/post/", Some(&b), json!({"medias": [later]})).await;
    r.assert_field_error("medias", "invalid");
    s.set_pref("addons", "share_post_enabled", json!(true));
    // an item does not share itself
    let own = id(&media(&s, &a, share_of(kept)).await);
    let r = s
        .put(&format!("/api/v2/post/{kept}/"), Some(&a), json!({"text": "kept", "medias": [own]}))
        .await;
    r.assert_field_error("medias", "invalid");
    // shared into bob's private group: counted, listed to its members only
    let g = s.create_id("/api/v2/group/", &b, json!({"name": "Inner", "privacy": "private"})).await;
    s.create_id("/api/v2/post/", &b, json!({"text": "in", "group": g, "medias": [later]})).await;
    let path = format!("/api/v2/post/{kept}/");
    assert_eq!(s.get(&path, None).await.json()["share_count"], 1);
    let users = format!("/api/v2/post/{kept}/shares_users/");
    assert_eq!(s.get(&users, Some(&c)).await.json()["count"], 0);
    assert_eq!(s.get(&users, Some(&b)).await.json()["count"], 1);
    // a share swapped for another by an edit moves the count
    let other = s.create_id("/api/v2/post/", &a, json!({"text": "other"})).await;
    let cats = id(&media(&s, &c, share_of(kept)).await);
    let cats_post = s.create_id("/api/v2/post/", &c, json!({"medias": [cats]})).await;
    assert_eq!(s.get(&path, None).await.json()["share_count"], 2);
    let swap = id(&media(&s, &c, share_of(other)).await);
    let r = s.put(&format!("/api/v2/post/{cats_post}/"), Some(&c), json!({"medias": [swap]})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(s.get(&path, None).await.json()["share_count"], 1);
    assert_eq!(s.get(&format!("/api/v2/post/{other}/"), None).await.json()["share_count"], 1);
    s.assert_consistent();
    // bob's account erased: his media go with it, and his share with them
    let r = s
        .call(reqwest::Method::DELETE, &format!("/api/v2/user/{bob}/?hard=1"), Some(&b), None)
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(s.get(&path, None).await.json()["share_count"], 0);
    s.assert_consistent();
}

/// A member has at most 20 links and shares that no item shows, however many are asked
/// for at once; those older than a day go when the next is made.
#[tokio::test]
async fn loose_links_are_capped_and_swept() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let link = json!({"type": "url", "url": "https://a.example/"});
    let first = id(&media(&s, &a, link.clone()).await);
    let tries = (0..30).map(|_| s.post("/api/v2/media/", Some(&a), link.clone()));
    let answers = futures_util::future::join_all(tries).await;
    let made = answers.iter().filter(|r| r.status == StatusCode::CREATED).count();
    assert_eq!(made, 19, "{:?}", answers.iter().map(|r| r.status).collect::<Vec<_>>());
    assert!(
        answers
            .iter()
            .all(|r| r.status == StatusCode::CREATED || r.status == StatusCode::FORBIDDEN)
    );
    // one shown in a post frees a place
    s.create("/api/v2/post/", &a, json!({"medias": [first]})).await;
    media(&s, &a, link.clone()).await;
    // a day later (the rows' age, not the clock's: the token would expire too)
    let day = 25 * 3600 * hearth::clock::SECOND;
    s.db_write(move |c| c.execute("UPDATE media_item SET created_at = created_at - ?1", [day]));
    for _ in 0..20 {
        media(&s, &a, link.clone()).await;
    }
    // the post's link stays
    assert_eq!(s.get(&format!("/api/v2/media/{first}/"), Some(&a)).await.status, StatusCode::OK);
}

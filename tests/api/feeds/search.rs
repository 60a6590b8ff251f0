//! Full-text search, the navbar autocomplete and the suggestions.

use reqwest::StatusCode;
use serde_json::json;

use super::units;
use crate::common::TestServer;

#[tokio::test]
async fn search_finds_words_by_their_start_with_accents_folded_and_privacy_first() {
    let s = TestServer::start().await;
    let [barbara, bart, _] = s.users(["barbara_smith", "Bartholomew", "zed"]);
    let (_, a) = s.login("anna");
    let (_, z) = s.login("zoé");
    let p = s
        .create_id("/api/v2/post/", &a, json!({"text": "<p>Baking <b>bread</b> at dawn</p>"}))
        .await;
    let d = s
        .create_id("/api/v2/discussion/", &z, json!({"title": "Crème brûlée", "text": "sugar"}))
        .await;
    let _ = s.create_id("/api/v2/post/", &z, json!({"text": "日本語のテキスト"})).await;
    let [cat] = s.categories(["Bakery"]);
    let get = |q: &'static str| {
        let s = &s;
        let a = a.clone();
        async move {
            let r = s.get(&format!("/api/v2/search/?{q}"), Some(&a)).await;
            assert_eq!(r.status, StatusCode::OK, "{q}: {}", r.text);
            r.json()
        }
    };
    assert_eq!(units(&get("search=bre").await), vec![("post".into(), p)]);
    assert_eq!(units(&get("search=creme").await), vec![("discussion".into(), d)], "accents fold");
    assert_eq!(units(&get("search=BRULEE").await), vec![("discussion".into(), d)]);
    assert_eq!(get("search=日本語のテキスト").await["count"], 1, "non-Latin scripts");
    assert_eq!(units(&get("search=b").await).len(), 2, "one letter is a prefix too");
    // markup is not text: a tag name finds nothing
    assert_eq!(get("search=p").await["count"], 0);
    let users = get("search=ba&type=user").await;
    assert_eq!(users["count"], 2);
    let mut found = crate::common::ids(&users);
    found.sort_unstable();
    assert_eq!(found, vec![barbara, bart]);
    assert_eq!(crate::common::ids(&get("search=smith&type=user").await), vec![barbara]);
    assert_eq!(crate::common::ids(&get("search=bak&type=category").await), vec![cat]);
    // quotes, operators and stray symbols are text, never syntax
    for q in ["search=%22", "search=ba%22%20OR%20*", "search=NEAR(a", "search=-", "search="] {
        assert_eq!(
            s.get(&format!("/api/v2/search/?{q}"), None).await.status,
            StatusCode::OK,
            "{q}"
        );
    }
    s.get("/api/v2/search/?search=x&type=nope", None).await.assert_field_error("type", "invalid");
    let long = "a".repeat(201);
    s.get(&format!("/api/v2/search/?search={long}"), None)
        .await
        .assert_field_error("search", "max_length");
    // deleted items and users, hidden users and their items are never found
    s.delete(&format!("/api/v2/post/{p}/"), Some(&a)).await;
    assert_eq!(get("search=bread").await["count"], 0);
    s.post(&format!("/api/v2/post/{p}/restore/"), Some(&a), json!({})).await;
    assert_eq!(get("search=bread").await["count"], 1, "a restored item is found again");
    s.soft_delete_user(bart);
    assert_eq!(crate::common::ids(&get("search=ba&type=user").await), vec![barbara]);
    let zoe = s.db_read(|c| {
        c.query_row("SELECT id FROM user WHERE username = 'zoé'", [], |r| r.get::<_, i64>(0))
    });
    s.post(&format!("/api/v2/user/{zoe}/hide/"), Some(&a), json!({})).await;
    assert_eq!(get("search=creme").await["count"], 0);
    assert_eq!(get("search=zoe&type=user").await["count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn the_navbar_suggests_categories_then_users() {
    let s = TestServer::start().await;
    let [barb] = s.users(["barbara"]);
    let [cat] = s.categories(["Bakery"]);
    let r = s.get("/api/v2/suggestion/?search=ba", None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(j["count"], 2);
    assert_eq!(j["results"][0]["type"], "category");
    assert_eq!(j["results"][0]["category"]["id"], cat);
    assert_eq!(j["results"][1]["type"], "user");
    assert_eq!(j["results"][1]["user"]["id"], barb);
    let r = s.get("/api/v2/suggestion/?search=ba&limit=1&offset=1", None).await;
    assert_eq!(r.json()["results"][0]["user"]["id"], barb);
    assert_eq!(s.get("/api/v2/suggestion/?search=", None).await.json()["count"], 0);
}

#[tokio::test]
async fn suggestions_offer_the_most_followed_not_yet_followed() {
    let s = TestServer::start().await;
    let (me, t) = s.login("me");
    let [a, b, c] = s.users(["a", "b", "c"]);
    let (_, x) = s.login("x");
    let (_, y) = s.login("y");
    for (fan, star) in [(&x, b), (&y, b), (&x, c)] {
        s.post(&format!("/api/v2/user/{star}/follow/"), Some(fan), json!({})).await;
    }
    s.post(&format!("/api/v2/user/{c}/follow/"), Some(&t), json!({})).await;
    let r = s.get("/api/v2/suggestion/user/", Some(&t)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let ids = r.ids();
    assert_eq!(ids[0], b, "most followed first");
    assert!(!ids.contains(&c) && !ids.contains(&me), "{ids:?}");
    assert!(ids.contains(&a));
    s.post(&format!("/api/v2/user/{a}/hide/"), Some(&t), json!({})).await;
    assert!(!s.get("/api/v2/suggestion/user/", Some(&t)).await.ids().contains(&a));
    let [k1, k2] = s.categories(["K1", "K2"]);
    s.post(&format!("/api/v2/category/{k2}/follow/"), Some(&x), json!({})).await;
    s.post(&format!("/api/v2/category/{k1}/follow/"), Some(&t), json!({})).await;
    assert_eq!(s.get("/api/v2/suggestion/category/", Some(&t)).await.ids(), vec![k2]);
    assert_eq!(s.status("/api/v2/suggestion/user/", None).await, StatusCode::UNAUTHORIZED);
    // the composer's audience picker
    let r = s.get("/api/v2/user/autocomplete/?search=x", Some(&t)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["results"][0]["username"], "x");
}

//! What the kit's pages search for (SPEC §10): users by the start of their username
//! (the editors' @-mentions) and the items related to one.

use reqwest::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn mentions_find_live_users_by_the_start_of_their_username() {
    let s = TestServer::start().await;
    let [bart, barb, ben] = s.users(["Bart", "barbara", "ben"]);
    let (_, a) = s.login("anna");
    let names = |q: &'static str| {
        let s = &s;
        let a = a.clone();
        async move {
            let r = s.get(&format!("/api/v2/user/search/?{q}"), Some(&a)).await;
            assert_eq!(r.status, StatusCode::OK, "{q}: {}", r.text);
            (r.json()["count"].as_i64().unwrap(), r.ids())
        }
    };
    // what the mention picker sends: a prefix, any case, five at most
    assert_eq!(names("user=bar&limit=5").await, (2, vec![barb, bart]));
    assert_eq!(names("user=BA").await, (2, vec![barb, bart]));
    assert_eq!(names("search=b&limit=2").await, (3, vec![barb, bart]));
    assert_eq!(names("user=b&limit=2&offset=2").await, (3, vec![ben]));
    assert_eq!(names("user=zz").await, (0, vec![]));
    // wildcards are text, never patterns
    assert_eq!(names("user=%25").await, (0, vec![]));
    assert_eq!(names("user=_").await, (0, vec![]));
    // deleted users are never offered
    s.soft_delete_user(bart);
    assert_eq!(names("user=bar").await, (1, vec![barb]));
    let r = s.get("/api/v2/user/search/?user=b", None).await;
    assert_eq!(r.json()["results"][0]["username"], "barbara");
    // the page is full User JSON
    assert_eq!(r.json()["results"][0]["role"], json!(null));
}

#[tokio::test]
async fn related_items_share_a_category_newest_first_without_the_hidden() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let [bread, cheese] = s.categories(["Bread", "Cheese"]);
    let post = |token: String, cats: serde_json::Value, text: &'static str| {
        let s = &s;
        s.clock.advance(1_000_000);
        async move {
            s.create_id("/api/v2/post/", &token, json!({"text": text, "categories": cats})).await
        }
    };
    let main = post(a.clone(), json!([bread, cheese]), "main").await;
    let p1 = post(a.clone(), json!([bread]), "one").await;
    let p2 = post(b.clone(), json!([cheese]), "two").await;
    let both = post(a.clone(), json!([bread, cheese]), "both").await;
    let _none = post(a.clone(), json!([]), "none").await;
    let gone = post(a.clone(), json!([bread]), "gone").await;
    s.delete(&format!("/api/v2/post/{gone}/"), Some(&a)).await;
    let d =
        s.create_id("/api/v2/discussion/", &a, json!({"title": "d", "categories": [cheese]})).await;

    let r = s.get(&format!("/api/v2/post/{main}/related/"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let types: Vec<(String, i64)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["type"].as_str().unwrap().to_owned(), o["id"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        types,
        [("discussion".into(), d), ("post".into(), both), ("post".into(), p2), ("post".into(), p1)]
    );
    assert_eq!(r.json()["count"], 4);
    let r = s.get(&format!("/api/v2/post/{main}/related/?limit=2&offset=1"), None).await;
    assert_eq!(r.ids(), vec![both, p2]);
    // the authors the caller hides are left out
    s.post(&format!("/api/v2/user/{bob}/hide/"), Some(&a), json!({})).await;
    let r = s.get(&format!("/api/v2/post/{main}/related/"), Some(&a)).await;
    assert_eq!(r.json()["count"], 3);
    // an item without categories has none; a deleted or unknown one is 404
    let lone = s.create_id("/api/v2/status/", &a, json!({"text": "s"})).await;
    assert_eq!(s.get(&format!("/api/v2/status/{lone}/related/"), None).await.json()["count"], 0);
    assert_eq!(
        s.get(&format!("/api/v2/post/{gone}/related/"), None).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(s.get("/api/v2/discussion/999/related/", None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/api/v2/comment/1/related/", None).await.status, StatusCode::NOT_FOUND);
}

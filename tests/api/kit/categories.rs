//! Categories as the kit reads them: the JSON, the lists, following (toggle, exact
//! counters under concurrency, `hearth check`), popular, a user's categories.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{crowd, no_content, start};
use crate::common::{TestServer, ids};

fn follow(
    s: &TestServer,
    id: i64,
    t: &str,
) -> impl std::future::Future<Output = crate::common::Resp> {
    let path = format!("/api/v2/category/{id}/follow/");
    let (s, t) = (s, t.to_owned());
    async move { s.post_empty(&path, Some(&t)).await }
}

fn set(s: &TestServer, sql: &str) {
    let sql = sql.to_owned();
    s.db_write(move |tx| tx.execute_batch(&sql));
}

#[tokio::test]
async fn category_json_has_what_the_kit_reads() {
    let (s, w) = start().await;
    let c = s.category("Science");
    let v = s.get(&format!("/api/v2/category/{c}/"), None).await.json();
    for (k, want) in [
        ("id", json!(c)),
        ("name", json!("Science")),
        ("slug", json!("science")),
        ("active", json!(true)),
        ("deleted", json!(false)),
        ("order", json!(0)),
        ("description", json!("")),
        ("followers_counter", json!(0)),
        ("followed", json!(false)),
    ] {
        assert_eq!(v[k], want, "{k}: {v}");
    }
    let default = format!("{}/static/default/category.svg", s.url);
    for k in ["image_original", "image_bigger", "image_big", "image_medium", "image_small"] {
        assert_eq!(v[k], default.as_str(), "{k}");
    }
    assert_eq!(v["emotional_image_original"], format!("{}/static/default/cover.svg", s.url));
    // the default images are served
    for img in [&default, v["emotional_image_original"].as_str().unwrap()] {
        let r = s.client.get(img).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{img}");
        assert_eq!(r.headers()["content-type"], "image/svg+xml");
    }
    // an image of its own, local or absolute, is absolute
    set(&s, &format!("UPDATE category SET image_medium = '/media/c.png' WHERE id = {c}"));
    let v = s.get(&format!("/api/v2/category/{c}/"), None).await.json();
    assert_eq!(v["image_small"], format!("{}/media/c.png", s.url));
    // followed for the caller, on the category and wherever it is embedded
    no_content(&follow(&s, c, &w.bob_t).await);
    let post = s
        .post("/api/v2/post/", Some(&w.bob_t), json!({"text": "p", "categories": [c]}))
        .await
        .json();
    assert_eq!(post["categories"][0]["followed"], true);
    assert_eq!(post["categories"][0]["followers_counter"], 1);
    let course = s
        .post(
            "/api/v2/course/",
            Some(&w.bob_t),
            json!({"name": "C", "type": "self-paced", "privacy": "open", "categories": [c]}),
        )
        .await
        .json();
    assert_eq!(course["categories"], post["categories"]);
    for (t, followed) in [(Some(&w.bob_t), true), (Some(&w.cy_t), false), (None, false)] {
        let t = t.map(String::as_str);
        let p = s.get(&format!("/api/v2/post/{}/", post["id"]), t).await.json();
        assert_eq!(p["categories"][0]["followed"], followed);
        let k = s.get(&format!("/api/v2/course/{}/", course["id"]), t).await.json();
        assert_eq!(k["categories"][0]["followed"], followed);
        assert_eq!(s.get(&format!("/api/v2/category/{c}/"), t).await.json()["followed"], followed);
    }
}

#[tokio::test]
async fn the_category_list_filters_orders_and_pages() {
    let (s, w) = start().await;
    let [a, b, c] = s.categories(["Zebras", "Ärger", "apples"]);
    set(
        &s,
        &format!(
            r#"UPDATE category SET "order" = 2 WHERE id = {a}; UPDATE category SET "order" = 1 WHERE id = {b}; UPDATE category SET active = 0 WHERE id = {c}"#
        ),
    );
    // the list, and the same under api-services' `searchCategory` (the editor's hashtags)
    for list in ["/api/v2/category/", "/api/v2/category/search/"] {
        let get = |q: &str| {
            let path = format!("{list}{q}");
            let s = &s;
            async move { s.get(&path, None).await }
        };
        let v = get("").await.json();
        assert_eq!((ids(&v), v["count"].as_i64()), (vec![c, b, a], Some(3)), "{list}");
        assert_eq!(ids(&get("?active=true").await.json()), [b, a], "{list}");
        assert_eq!(ids(&get("?active=0").await.json()), [c], "{list}");
        assert_eq!(ids(&get("?search=ÄR").await.json()), [b], "{list}");
        assert_eq!(ids(&get("?search=e").await.json()), [c, b, a], "{list}");
        let page = get("?search=e&active=true&limit=1&offset=1").await.json();
        assert_eq!((ids(&page), page["count"].as_i64()), (vec![a], Some(2)), "{list}");
        assert!(page["previous"].is_string() && page["next"].is_null(), "{list}: {page}");
        get("?active=maybe").await.assert_field_error("active", "invalid");
        get("?limit=0").await.assert_field_error("limit", "invalid");
    }
    // a deleted category is in no list and 404
    set(&s, &format!("UPDATE category SET deleted = 1 WHERE id = {a}"));
    assert_eq!(ids(&s.get("/api/v2/category/", None).await.json()), [c, b]);
    assert_eq!(ids(&s.get("/api/v2/category/search/?search=e", None).await.json()), [c, b]);
    for path in [
        format!("/api/v2/category/{a}/"),
        "/api/v2/category/999/".into(),
        "/api/v2/category/x/".into(),
    ] {
        assert_eq!(s.get(&path, None).await.status, StatusCode::NOT_FOUND, "{path}");
    }
    let r = follow(&s, a, &w.bob_t).await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    // CA
    s.set_pref("configurations", "content_availability", json!(false));
    for path in [
        "/api/v2/category/",
        "/api/v2/category/search/",
        "/api/v2/category/popular/",
        &format!("/api/v2/category/{b}/"),
        &format!("/api/v2/user/{}/categories/", w.bob),
    ] {
        s.get(path, None).await.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
        assert_eq!(s.get(path, Some(&w.cy_t)).await.status, StatusCode::OK, "{path}");
    }
}

#[tokio::test]
async fn following_toggles_and_every_counter_follows() {
    let (s, w) = start().await;
    let [a, b] = s.categories(["A", "B"]);
    let is_followed = |id: i64, t: &str| {
        let path = format!("/api/v2/category/{id}/is_followed/");
        let (s, t) = (&s, t.to_owned());
        async move { s.get(&path, Some(&t)).await.json()["is_followed"].clone() }
    };
    assert_eq!(is_followed(a, &w.bob_t).await, false);
    no_content(&follow(&s, a, &w.bob_t).await);
    no_content(&s.post(&format!("/api/v2/category/{b}/follow/"), Some(&w.bob_t), json!({})).await);
    no_content(&follow(&s, a, &w.cy_t).await);
    assert_eq!(is_followed(a, &w.bob_t).await, true);
    let me = s.get("/api/v2/user/me/", Some(&w.bob_t)).await.json();
    assert_eq!(me["categories_counter"], 2);
    assert_eq!(
        s.get(&format!("/api/v2/user/{}/", w.cy), None).await.json()["categories_counter"],
        1
    );
    assert_eq!(s.get(&format!("/api/v2/category/{a}/"), None).await.json()["followers_counter"], 2);
    // popular: most followed first, then id
    assert_eq!(ids(&s.get("/api/v2/category/popular/", None).await.json()), [a, b]);
    // unfollow
    no_content(&follow(&s, a, &w.bob_t).await);
    assert_eq!(is_followed(a, &w.bob_t).await, false);
    assert_eq!(s.get("/api/v2/user/me/", Some(&w.bob_t)).await.json()["categories_counter"], 1);
    assert_eq!(s.get(&format!("/api/v2/category/{a}/"), None).await.json()["followers_counter"], 1);
    // popular leaves out inactive categories; ties by id
    let c = s.category("C");
    no_content(&follow(&s, c, &w.ann_t).await);
    assert_eq!(ids(&s.get("/api/v2/category/popular/", None).await.json()), [a, b, c]);
    set(&s, &format!("UPDATE category SET active = 0 WHERE id = {b}"));
    let v = s.get("/api/v2/category/popular/?limit=1", None).await.json();
    assert_eq!((ids(&v), v["count"].as_i64()), (vec![a], Some(2)));
    // a deleted user's follows stop counting for the category
    s.soft_delete_user(w.cy);
    assert_eq!(s.get(&format!("/api/v2/category/{a}/"), None).await.json()["followers_counter"], 0);
    s.assert_consistent();
    // errors: a body, unknown and non-integer ids, anonymous, read-only, wrong method
    let r = s.post(&format!("/api/v2/category/{a}/follow/"), Some(&w.bob_t), json!({"x": 1})).await;
    r.assert_error(StatusCode::BAD_REQUEST, "parse_error");
    follow(&s, 999, &w.bob_t).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        s.get("/api/v2/category/999/is_followed/", Some(&w.bob_t)).await.status,
        StatusCode::NOT_FOUND
    );
    s.post_empty("/api/v2/category/999/follow/", None)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    s.get(&format!("/api/v2/category/{a}/is_followed/"), None)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    let read = s.oauth_token(w.bob, "read");
    follow(&s, a, &read).await.assert_error(StatusCode::FORBIDDEN, "insufficient_scope");
    assert_eq!(
        s.get(&format!("/api/v2/category/{a}/is_followed/"), Some(&read)).await.status,
        StatusCode::OK
    );
    let r = s.delete(&format!("/api/v2/category/{a}/follow/"), Some(&w.bob_t)).await;
    assert_eq!((r.status, r.header("allow")), (StatusCode::METHOD_NOT_ALLOWED, Some("POST")));
    assert_eq!(
        s.get("/api/v2/user/me/", Some(&w.bob_t)).await.json()["categories_counter"],
        1,
        "nothing changed"
    );
    s.assert_consistent();
}

#[tokio::test]
async fn parallel_follows_keep_the_counters_exact() {
    let s = TestServer::start().await;
    let a = s.category("Busy");
    let fans = crowd(&s, 20);
    let calls = fans.iter().map(|(_, t)| follow(&s, a, t));
    for r in futures_util::future::join_all(calls).await {
        no_content(&r);
    }
    assert_eq!(
        s.get(&format!("/api/v2/category/{a}/"), None).await.json()["followers_counter"],
        20
    );
    s.assert_consistent();
    // each fan twice at once: a toggle applied twice ends where it began
    let calls = fans.iter().flat_map(|(_, t)| [follow(&s, a, t), follow(&s, a, t)]);
    for r in futures_util::future::join_all(calls).await {
        no_content(&r);
    }
    assert_eq!(
        s.get(&format!("/api/v2/category/{a}/"), None).await.json()["followers_counter"],
        20
    );
    // half of them once more
    let calls = fans.iter().step_by(2).map(|(_, t)| follow(&s, a, t));
    for r in futures_util::future::join_all(calls).await {
        no_content(&r);
    }
    assert_eq!(
        s.get(&format!("/api/v2/category/{a}/"), None).await.json()["followers_counter"],
        10
    );
    let (one, t) = &fans[1];
    assert_eq!(
        s.get(&format!("/api/v2/user/{one}/"), Some(t)).await.json()["categories_counter"],
        1
    );
    s.assert_consistent();
}

#[tokio::test]
async fn a_users_categories_are_an_array_for_the_sdk_and_a_page_on_request() {
    let (s, w) = start().await;
    let [a, _not_followed, c] = s.categories(["A", "B", "C"]);
    set(&s, &format!(r#"UPDATE category SET "order" = -1 WHERE id = {c}"#));
    for id in [a, c] {
        no_content(&follow(&s, id, &w.bob_t).await);
    }
    let path = format!("/api/v2/user/{}/categories/", w.bob);
    // the SDK reads a plain array (UserService.getUserFollowedCategories)
    let v: Value = s.get(&path, None).await.json();
    assert!(v.is_array(), "{v}");
    assert_eq!(ids(&v), [c, a]);
    assert_eq!(v[0]["followed"], false, "anonymous");
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.json()[0]["followed"], true);
    let unknown_query = s.get(&format!("{path}?mutual=1"), None).await.json();
    assert!(unknown_query.is_array(), "unknown parameters change nothing");
    // a page when limit or offset is given
    let v = s.get(&format!("{path}?limit=1"), None).await.json();
    assert_eq!((ids(&v), v["count"].as_i64()), (vec![c], Some(2)));
    assert!(v["next"].as_str().unwrap().ends_with("categories/?limit=1&offset=1"));
    assert_eq!(ids(&s.get(&format!("{path}?offset=1"), None).await.json()), [a]);
    s.get(&format!("{path}?limit=x"), None).await.assert_field_error("limit", "invalid");
    // nobody followed, unknown or deleted users
    assert_eq!(s.get(&format!("/api/v2/user/{}/categories/", w.cy), None).await.json(), json!([]));
    assert_eq!(
        ids(&s.get(&format!("/api/v2/user/{}/categories/", w.cy), None).await.json()),
        Vec::<i64>::new()
    );
    assert_eq!(s.get("/api/v2/user/999/categories/", None).await.status, StatusCode::NOT_FOUND);
    s.soft_delete_user(w.bob);
    assert_eq!(s.get(&path, None).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_categorys_followers_are_listed_most_recent_first() {
    let s = TestServer::start().await;
    let [bread] = s.categories(["Bread"]);
    let mut ids = Vec::new();
    for name in ["ann", "bob", "cy", "dee"] {
        let (id, t) = s.login(name);
        s.clock.advance(1_000_000);
        let r = s.post_empty(&format!("/api/v2/category/{bread}/follow/"), Some(&t)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
        ids.push(id);
    }
    let path = format!("/api/v2/category/{bread}/followers/");
    let r = s.get(&format!("{path}?limit=2"), None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!((r.json()["count"].clone(), r.ids()), (json!(4), vec![ids[3], ids[2]]));
    assert_eq!(s.get(&format!("{path}?limit=2&offset=2"), None).await.ids(), vec![ids[1], ids[0]]);
    // a deleted follower leaves the list and its count
    s.soft_delete_user(ids[2]);
    let r = s.get(&path, None).await;
    assert_eq!((r.json()["count"].clone(), r.ids()), (json!(3), vec![ids[3], ids[1], ids[0]]));
    assert_eq!(r.json()["results"][0]["username"], "dee");
    assert_eq!(s.get("/api/v2/category/999/followers/", None).await.status, StatusCode::NOT_FOUND);
    s.assert_consistent();
}

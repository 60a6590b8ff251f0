//! What a create accepts and refuses: every field's errors, comment hosts and parents,
//! categories, lengths, and bodies that are not JSON objects.

use hearth::model::contribution::Kind;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{a_post, body, create, create_id, item, me, path};
use crate::common::{CATEGORY_KEYS, Resp, TestServer};

/// A create body for a kind and the `(field, code)` errors it must get.
type Case = (Kind, Value, Vec<(&'static str, &'static str)>);

async fn send_raw(
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    content_type: Option<&str>,
    raw: &'static str,
) -> Resp {
    let mut rb = s.client.request(method, format!("{}{path}", s.url)).bearer_auth(token).body(raw);
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    TestServer::read(rb.send().await.unwrap()).await
}

#[tokio::test]
async fn validation_errors_name_every_field() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let host = a_post(&s, &a).await;
    let gone = a_post(&s, &a).await;
    s.delete(&item(Kind::Post, gone), Some(&a)).await;
    let status = create_id(&s, &a, Kind::Status, json!({"text": "s"})).await;
    let on_status = create_id(&s, &a, Kind::Comment, json!({"text": "c", "status": status})).await;
    let long = "x".repeat(251);
    let cases: Vec<Case> = vec![
        (Kind::Discussion, json!({}), vec![("title", "required")]),
        (Kind::Discussion, json!({"title": ""}), vec![("title", "required")]),
        (Kind::Discussion, json!({"title": null}), vec![("title", "null")]),
        (Kind::Discussion, json!({"title": 5}), vec![("title", "invalid")]),
        (Kind::Discussion, json!({"title": long}), vec![("title", "max_length")]),
        (
            Kind::Discussion,
            json!({"title": "", "text": 1, "categories": [999]}),
            vec![("title", "required"), ("text", "invalid"), ("categories", "invalid")],
        ),
        (Kind::Post, json!({"title": "only"}), vec![("text", "required")]),
        (Kind::Post, json!({"text": "   "}), vec![("text", "required")]),
        (Kind::Post, json!({"text": "t", "categories": "1"}), vec![("categories", "invalid")]),
        (Kind::Post, json!({"text": "t", "categories": ["a"]}), vec![("categories", "invalid")]),
        (Kind::Post, json!({"text": "t", "categories": [12345]}), vec![("categories", "invalid")]),
        (Kind::Status, json!({"action": "a"}), vec![("text", "required")]),
        (Kind::Status, json!({"text": "t", "action": []}), vec![("action", "invalid")]),
        (Kind::Comment, json!({"post": host}), vec![("text", "required")]),
        (Kind::Comment, json!({"text": "c"}), vec![("non_field_errors", "required")]),
        (
            Kind::Comment,
            json!({"text": "c", "post": host, "status": status}),
            vec![("non_field_errors", "invalid")],
        ),
        (Kind::Comment, json!({"text": "c", "post": 999}), vec![("post", "invalid")]),
        (Kind::Comment, json!({"text": "c", "post": gone}), vec![("post", "invalid")]),
        (Kind::Comment, json!({"text": "c", "discussion": 1}), vec![("discussion", "invalid")]),
        (Kind::Comment, json!({"text": "c", "status": "x"}), vec![("status", "invalid")]),
        (
            Kind::Comment,
            json!({"text": "c", "post": host, "parent": on_status}),
            vec![("parent", "invalid")],
        ),
        (
            Kind::Comment,
            json!({"text": "", "post": host, "parent": 999}),
            vec![("text", "required"), ("parent", "invalid")],
        ),
    ];
    for (kind, b, want) in cases {
        let r = s.post(&path(kind), Some(&a), b.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{kind:?} {b}: {}", r.text);
        let j = r.json();
        assert_eq!(j["detail"], "Invalid input.");
        let got: Vec<(String, String)> = j["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["field"].as_str().unwrap().to_owned(),
                    e["messages"][0]["code"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: Vec<(String, String)> =
            want.into_iter().map(|(f, c)| (f.to_owned(), c.to_owned())).collect();
        assert_eq!(got, want, "{kind:?} {b}");
    }
    // nothing was created by the failures
    let m = me(&s, &a).await;
    assert_eq!(m["posts_counter"], 1);
    assert_eq!(s.get(&path(Kind::Comment), None).await.json()["count"], 1);
    s.assert_consistent();
}

#[tokio::test]
async fn comments_accept_string_ids_parents_and_unknown_fields() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let d = create_id(&s, &a, Kind::Discussion, json!({"title": "t"})).await;
    let top = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "top", "discussion": d.to_string(), "post": null, "extra": 1}),
    )
    .await;
    assert_eq!(top["discussion"], d);
    let reply = create(
        &s,
        &a,
        Kind::Comment,
        json!({"text": "reply", "discussion": d, "parent": top["id"].to_string()}),
    )
    .await;
    assert_eq!(reply["parent"], top["id"]);
    assert_eq!(reply["discussion"], d);
    let dj = s.get(&item(Kind::Discussion, d), None).await.json();
    assert_eq!(dj["comment_count"], 2);
    // a deleted parent is refused
    let top_id = top["id"].as_i64().unwrap();
    s.delete(&item(Kind::Comment, top_id), Some(&a)).await;
    let r = s
        .post(
            &path(Kind::Comment),
            Some(&a),
            json!({"text": "r", "discussion": d, "parent": top_id}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["errors"][0]["field"], "parent");
    s.assert_consistent();
}

#[tokio::test]
async fn categories_by_id_and_required_by_preference() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let [c1, c2] = s.categories(["Science", "Art"]);
    let j =
        create(&s, &a, Kind::Post, json!({"text": "t", "categories": [c2.to_string(), c1, c2]}))
            .await;
    let cats = j["categories"].as_array().unwrap();
    assert_eq!(cats.len(), 2);
    assert_eq!(cats[0]["id"], c1);
    assert_eq!(cats[0]["name"], "Science");
    for field in CATEGORY_KEYS {
        assert!(cats[0].get(field).is_some(), "Category JSON has {field}");
    }

    s.set_pref("configurations", "post_category_required_enabled", json!(true));
    for kind in [Kind::Discussion, Kind::Post, Kind::Status] {
        for missing in [json!(null), json!([])] {
            let mut b = body(kind, 0);
            b["categories"] = missing;
            let r = s.post(&path(kind), Some(&a), b).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{kind:?}");
            assert_eq!(r.json()["errors"][0]["field"], "categories");
            assert_eq!(r.error_code(), "required");
        }
        let mut b = body(kind, 0);
        b["categories"] = json!([c1]);
        create(&s, &a, kind, b).await;
    }
    // comments take no categories
    let post = j["id"].as_i64().unwrap();
    create(&s, &a, Kind::Comment, json!({"text": "c", "post": post})).await;
    s.assert_consistent();
}

#[tokio::test]
async fn summary_is_200_characters_and_title_250() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let text = "ä".repeat(300);
    let j = create(&s, &a, Kind::Discussion, json!({"title": "t".repeat(250), "text": text})).await;
    assert_eq!(j["summary"].as_str().unwrap().chars().count(), 200);
    assert_eq!(j["text"], text);
    assert_eq!(j["title"].as_str().unwrap().len(), 250);
}

#[tokio::test]
async fn bodies_must_be_json_objects() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    for kind in Kind::ALL {
        let p = path(kind);
        let r = send_raw(&s, Method::POST, &p, &a, Some("text/plain"), "{}").await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{kind:?}");
        let r = send_raw(&s, Method::POST, &p, &a, None, "").await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{kind:?}");
        for bad in ["{", "[1]", "\"x\"", ""] {
            let r = send_raw(&s, Method::POST, &p, &a, Some("application/json"), bad).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{kind:?} {bad:?}");
            assert_eq!(r.error_code(), "parse_error");
        }
        // an anonymous call is 401 whatever its body
        let r = s
            .client
            .post(format!("{}{p}", s.url))
            .header("content-type", "text/plain")
            .body("{")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
}

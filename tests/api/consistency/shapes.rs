//! Shared JSON alike everywhere: User Minimal, Category, and the unknown-category error.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::start;
use crate::common::CATEGORY_KEYS;

/// One user looks the same as an author, a course creator and a member; one category
/// looks the same on a contribution and a course.
#[tokio::test]
async fn user_minimal_and_category_json_are_the_same_everywhere() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let post =
        s.post("/api/v2/post/", Some(t), json!({"text": "p", "categories": [w.cat]})).await.json();
    let course = s
        .post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "privacy": "open", "categories": [w.cat]}),
        )
        .await
        .json();
    let members = s.get(&format!("/api/v2/course/{}/join/", course["id"]), Some(t)).await.json();
    let mut member = members["results"][0].clone();
    let status = member.as_object_mut().unwrap().remove("join_status");
    assert_eq!(status, Some(json!("creator")));
    assert_eq!(post["author"], course["created_by"]);
    assert_eq!(post["author"], member);
    let keys: Vec<&String> = post["author"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6, "{keys:?}");
    assert_eq!(post["author"]["id"], w.ann);
    let me = s.get("/api/v2/user/me/", Some(t)).await.json();
    for k in ["id", "username", "real_name", "avatar", "community_badge", "deleted"] {
        assert_eq!(post["author"][k], me[k], "{k}");
    }
    assert_eq!(post["categories"], course["categories"]);
    let cat: &Value = &post["categories"][0];
    for k in CATEGORY_KEYS {
        assert!(cat.get(k).is_some(), "category lacks {k}: {cat}");
    }
}

/// An unknown category id is the same 400 on contributions and courses.
#[tokio::test]
async fn unknown_category_is_the_same_error_everywhere() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let a = s.post("/api/v2/post/", Some(t), json!({"text": "p", "categories": [999]})).await;
    let b = s
        .post(
            "/api/v2/course/",
            Some(t),
            json!({"name": "C", "type": "self-paced", "categories": [999]}),
        )
        .await;
    for r in [&a, &b] {
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
        assert_eq!(r.json()["errors"][0]["field"], "categories", "{}", r.text);
        assert_eq!(r.error_code(), "invalid", "{}", r.text);
    }
    assert_eq!(a.json()["errors"], b.json()["errors"]);
}

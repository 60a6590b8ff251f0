//! `GET /api/v2/{type}/{id}/contributors/`: who commented, each once, most recent first;
//! deleted comments, deleted users and users the caller hides left out.

use hearth::clock::SECOND;
use reqwest::StatusCode;
use serde_json::json;

use super::{comment, create, no_content, post, start};
use crate::common::ids;

#[tokio::test]
async fn contributors_are_the_commenters_most_recent_first_each_once() {
    let (s, w) = start().await;
    let (dan, dan_t) = s.login("dan");
    let p = post(&s, &w.ann_t, "p").await;
    let path = format!("/api/v2/post/{p}/contributors/");
    assert_eq!(s.get(&path, None).await.json()["count"], 0, "the author is no contributor");
    // bob, cy, bob again, dan: by each one's newest comment, dan, bob, cy
    for t in [&w.bob_t, &w.cy_t, &w.bob_t, &dan_t] {
        s.clock.advance(SECOND);
        comment(&s, t, "post", p, "c").await;
    }
    let v = s.get(&path, None).await.json();
    assert_eq!(v["count"], 3);
    assert_eq!(ids(&v), [dan, w.bob, w.cy]);
    assert_eq!(v["results"][0]["username"], "dan");
    assert!(v["results"][0].get("followers_counter").is_some(), "User JSON");
    // paginated
    let v = s.get(&format!("{path}?limit=2&offset=1"), None).await.json();
    assert_eq!(ids(&v), [w.bob, w.cy]);
    assert!(v["previous"].is_string());
    // a deleted comment no longer makes its author a contributor (when it was its only
    // one), a deleted user never is
    s.clock.advance(SECOND);
    let last = comment(&s, &w.ann_t, "post", p, "the author comments too").await;
    assert_eq!(ids(&s.get(&path, None).await.json()), [w.ann, dan, w.bob, w.cy]);
    no_content(&s.delete(&format!("/api/v2/comment/{last}/"), Some(&w.ann_t)).await);
    s.soft_delete_user(dan);
    let v = s.get(&path, None).await.json();
    assert_eq!((ids(&v), v["count"].as_i64()), (vec![w.bob, w.cy], Some(2)));
    // the caller's follow status shows
    no_content(&s.post_empty(&format!("/api/v2/user/{}/follow/", w.cy), Some(&w.bob_t)).await);
    let v = s.get(&path, Some(&w.bob_t)).await.json();
    assert_eq!(v["results"][1]["connection_status"], "followed");
}

#[tokio::test]
async fn contributors_of_each_kind_and_their_errors() {
    let (s, w) = start().await;
    let d = create(&s, &w.ann_t, "discussion", json!({"title": "d"})).await;
    let st = create(&s, &w.ann_t, "status", json!({"text": "s"})).await;
    comment(&s, &w.bob_t, "discussion", d, "c").await;
    comment(&s, &w.cy_t, "status", st, "c").await;
    for (kind, id, who) in [("discussion", d, w.bob), ("status", st, w.cy)] {
        let list = format!("/api/v2/{kind}/{id}/contributors/");
        assert_eq!(s.list_ids(&list, None).await, [who], "{list}");
    }
    // a comment has no contributors route (its replies are comments on its item)
    let c = comment(&s, &w.bob_t, "discussion", d, "c2").await;
    assert_eq!(
        s.get(&format!("/api/v2/comment/{c}/contributors/"), None).await.status,
        StatusCode::NOT_FOUND
    );
    // unknown, not an id, deleted (404 except for its creator)
    for path in ["/api/v2/discussion/999/contributors/", "/api/v2/discussion/x/contributors/"] {
        assert_eq!(s.get(path, Some(&w.bob_t)).await.status, StatusCode::NOT_FOUND, "{path}");
    }
    no_content(&s.delete(&format!("/api/v2/discussion/{d}/"), Some(&w.ann_t)).await);
    let path = format!("/api/v2/discussion/{d}/contributors/");
    s.get(&path, Some(&w.bob_t)).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(s.get(&path, Some(&w.ann_t)).await.json()["count"], 1);
    // CA
    s.set_pref("configurations", "content_availability", json!(false));
    let path = format!("/api/v2/status/{st}/contributors/");
    s.assert_needs_caller(&path, "bad").await;
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.status, StatusCode::OK);
    assert_eq!(
        s.get(&format!("{path}?offset=-1"), Some(&w.bob_t)).await.status,
        StatusCode::BAD_REQUEST
    );
}

//! Cross-area consistency (SPEC §3, §5): the same situation gets the same answer in
//! every area: bodies, content types, pagination, booleans, CA, trailing slashes,
//! and the shared User Minimal / Category JSON; the helpers shared by the files below.

use reqwest::StatusCode;

use crate::common::{Resp, TestServer};

mod bodies;
mod queries;
mod routes;
mod shapes;

struct World {
    ann: i64,
    bob: i64,
    ann_t: String,
    bob_t: String,
    cat: i64,
}

/// A server with ann (staff), bob and a category.
async fn start() -> (TestServer, World) {
    let s = TestServer::start().await;
    let w = world(&s);
    (s, w)
}

fn world(s: &TestServer) -> World {
    let ann = s.user("ann", None, true);
    let bob = s.user("bob", None, false);
    let cat = s.category("General");
    World { ann, bob, ann_t: s.jwt(ann), bob_t: s.jwt(bob), cat }
}

async fn created(r: Resp) -> i64 {
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()["id"].as_i64().unwrap()
}

/// One discussion, post, status and comment (on the post) by `t`'s user:
/// `(discussion, post, status, comment)`.
async fn contributions(s: &TestServer, t: &str) -> (i64, i64, i64, i64) {
    let d = created(
        s.post("/api/v2/discussion/", Some(t), serde_json::json!({"title": "d", "text": "d"}))
            .await,
    )
    .await;
    let p = created(s.post("/api/v2/post/", Some(t), serde_json::json!({"text": "p"})).await).await;
    let st =
        created(s.post("/api/v2/status/", Some(t), serde_json::json!({"text": "s"})).await).await;
    let c = created(
        s.post("/api/v2/comment/", Some(t), serde_json::json!({"text": "c", "post": p})).await,
    )
    .await;
    (d, p, st, c)
}

/// An open course named `name` by `t`'s user.
async fn open_course(s: &TestServer, t: &str, name: &str) -> i64 {
    s.course(t, name, "open").await
}

/// An open course named `name` by `t`'s user, with one section: `(course, section)`.
async fn course_with_section(s: &TestServer, t: &str, name: &str) -> (i64, i64) {
    let course = open_course(s, t, name).await;
    let path = format!("/api/v2/course/{course}/section/");
    let body = serde_json::json!({"name": "x"});
    let sec = created(s.post(&path, Some(t), body).await).await;
    (course, sec)
}

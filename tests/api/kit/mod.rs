//! SPEC §8, what the platform's UI kit reads: features, votes, the contribution fields,
//! contributors, categories and following them, a user's courses, hiding users and user
//! settings; one file per area, the helpers they share here.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

mod categories;
mod contributors;
mod custom;
mod features;
mod fields;
mod hiding;
mod menus;
mod profile;
mod search;
mod settings;
mod user_courses;
mod votes;

/// Three users and their JWTs.
struct World {
    ann: i64,
    bob: i64,
    cy: i64,
    ann_t: String,
    bob_t: String,
    cy_t: String,
}

/// A server with ann, bob and cy.
async fn start() -> (TestServer, World) {
    let s = TestServer::start().await;
    let w = world(&s);
    (s, w)
}

fn world(s: &TestServer) -> World {
    let [ann, bob, cy] = s.users(["ann", "bob", "cy"]);
    World { ann, bob, cy, ann_t: s.jwt(ann), bob_t: s.jwt(bob), cy_t: s.jwt(cy) }
}

/// Creates an item of `kind` (`discussion`, `post`, `status`; a comment needs a
/// target: [`comment`]) and returns its id.
async fn create(s: &TestServer, t: &str, kind: &str, body: Value) -> i64 {
    s.create_id(&format!("/api/v2/{kind}/"), t, body).await
}

/// A post with `text`.
async fn post(s: &TestServer, t: &str, text: &str) -> i64 {
    create(s, t, "post", json!({ "text": text })).await
}

/// A comment on `kind` `id`.
async fn comment(s: &TestServer, t: &str, kind: &str, id: i64, text: &str) -> i64 {
    create(s, t, "comment", json!({ "text": text, kind: id })).await
}

/// Asserts a 204.
fn no_content(r: &Resp) {
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
}

/// `users` (ids) with JWTs, made for a test that needs many callers.
fn crowd(s: &TestServer, n: usize) -> Vec<(i64, String)> {
    (0..n)
        .map(|i| {
            let id = s.user(&format!("crowd{i}"), None, false);
            (id, s.jwt(id))
        })
        .collect()
}

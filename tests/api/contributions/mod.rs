//! Contributions (SPEC §5): create, read, list, soft delete and restore for the four
//! kinds, their validation, permissions and counters; the helpers shared by the files below.

use hearth::model::contribution::Kind;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

mod access;
mod edit;
mod lifecycle;
mod lists;
mod pictures;
mod polls;
mod rich_text;
mod shares;
mod threads;
mod validation;

fn path(kind: Kind) -> String {
    format!("/api/v2/{}/", kind.as_str())
}

fn item(kind: Kind, id: i64) -> String {
    format!("/api/v2/{}/{id}/", kind.as_str())
}

fn restore(kind: Kind, id: i64) -> String {
    format!("/api/v2/{}/{id}/restore/", kind.as_str())
}

/// A valid create body; comments go on `post`.
fn body(kind: Kind, post: i64) -> Value {
    match kind {
        Kind::Discussion => json!({"title": "A <title>", "text": "Let's talk & see"}),
        Kind::Post => json!({"text": "Hello <b>world</b>", "title": "ignored"}),
        Kind::Status => json!({"text": "feeling fine", "action": "feeling"}),
        Kind::Comment => json!({"text": "nice one", "post": post}),
    }
}

async fn create(s: &TestServer, token: &str, kind: Kind, body: Value) -> Value {
    s.create(&path(kind), token, body).await
}

/// [`create`], returning the id.
async fn create_id(s: &TestServer, token: &str, kind: Kind, body: Value) -> i64 {
    s.create_id(&path(kind), token, body).await
}

/// Creates a post to hang comments on; returns its id.
async fn a_post(s: &TestServer, token: &str) -> i64 {
    create_id(s, token, Kind::Post, json!({"text": "host"})).await
}

async fn me(s: &TestServer, token: &str) -> Value {
    let r = s.get("/api/v2/user/me/", Some(token)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json()
}

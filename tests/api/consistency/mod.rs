//! Cross-area consistency (SPEC §3, §5): the same situation gets the same answer in
//! every area: bodies, content types, pagination, booleans, CA, trailing slashes,
//! and the shared User Minimal / Category JSON; the helpers shared by the files below.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use reqwest::{Method, StatusCode};

use crate::common::{Resp, TestServer};

mod bodies;
mod queries;
mod routes;
mod shapes;

/// Sends a raw body with an optional content type.
async fn raw(
    s: &TestServer,
    m: Method,
    path: &str,
    token: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> Resp {
    let mut rb = s
        .client
        .request(m, format!("{}{}", s.url, path))
        .bearer_auth(token);
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    TestServer::read(rb.body(body).send().await.unwrap()).await
}

struct World {
    ann: i64,
    bob: i64,
    ann_t: String,
    bob_t: String,
    cat: i64,
}

async fn world(s: &TestServer) -> World {
    let ann = s.user("ann", None, true);
    let bob = s.user("bob", None, false);
    let cat = s.category("General");
    World {
        ann,
        bob,
        ann_t: s.jwt(ann),
        bob_t: s.jwt(bob),
        cat,
    }
}

async fn created(r: Resp) -> i64 {
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()["id"].as_i64().unwrap()
}

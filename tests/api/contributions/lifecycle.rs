//! The life of a contribution: create, read, delete, restore for every kind, the counters
//! that follow, the restore routes and methods, and the OpenAPI description.

use hearth::model::contribution::Kind;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{a_post, body, create, create_id, item, me, path, restore};
use crate::common::TestServer;

#[tokio::test]
async fn create_delete_vanish_restore_for_every_kind() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let host = a_post(&s, &a).await;
    for kind in Kind::ALL {
        let j = create(&s, &a, kind, body(kind, host)).await;
        let id = j["id"].as_i64().unwrap();
        assert_eq!(j["type"], kind.as_str());
        assert_eq!(j["author"]["id"], alice);
        assert_eq!(j["author"]["username"], "alice");
        assert_eq!(j["deleted"], false);
        assert_eq!(j["last_edited_at"], Value::Null);
        assert_eq!(j["comment_count"], 0);
        assert_eq!(j["categories"], json!([]));
        assert!(j["added_at"].as_str().unwrap().ends_with('Z'));
        assert!(!j["html"].as_str().unwrap().contains('<'));
        match kind {
            Kind::Discussion => {
                assert_eq!(j["title"], "A <title>");
                assert_eq!(j["html"], "Let&#x27;s talk &amp; see");
                assert_eq!(j["summary"], "Let's talk &amp; see", "text, never markup");
            }
            Kind::Post => {
                assert!(j.get("title").is_none(), "post has no title");
                assert_eq!(j["html"], "Hello &lt;b&gt;world&lt;/b&gt;");
                assert_eq!(j["summary"], "Hello &lt;b&gt;world&lt;/b&gt;");
            }
            Kind::Status => assert_eq!(j["action"], "feeling"),
            Kind::Comment => {
                assert_eq!(j["post"], host);
                assert_eq!(j["discussion"], Value::Null);
                assert_eq!(j["status"], Value::Null);
                assert_eq!(j["parent"], Value::Null);
            }
        }
        let seen = s.get(&item(kind, id), Some(&b)).await;
        assert_eq!(seen.status, StatusCode::OK);
        assert_eq!(seen.json(), j, "{kind:?}: GET returns what POST did");
        assert!(s.get(&path(kind), None).await.ids().contains(&id));

        let r = s.delete(&item(kind, id), Some(&a)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{kind:?}");
        assert!(r.text.is_empty());
        assert_eq!(
            s.get(&item(kind, id), Some(&b)).await.status,
            StatusCode::NOT_FOUND,
            "{kind:?} deleted is 404 for others"
        );
        assert_eq!(s.get(&item(kind, id), None).await.status, StatusCode::NOT_FOUND);
        let own = s.get(&item(kind, id), Some(&a)).await;
        assert_eq!(own.status, StatusCode::OK);
        assert_eq!(own.json()["deleted"], true);
        for who in [Some(a.as_str()), Some(b.as_str()), None] {
            assert!(!s.get(&path(kind), who).await.ids().contains(&id), "{kind:?}");
        }
        // deleting again is 204
        let r = s.delete(&item(kind, id), Some(&a)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);

        let r = s.call(Method::POST, &restore(kind, id), Some(&a), None).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{kind:?}: {}", r.text);
        assert!(r.text.is_empty());
        let back = s.get(&item(kind, id), Some(&b)).await;
        assert_eq!(back.status, StatusCode::OK);
        assert_eq!(back.json(), j);
        assert!(s.get(&path(kind), Some(&b)).await.ids().contains(&id));
        // restoring a live item is 204 too
        let r = s.call(Method::POST, &restore(kind, id), Some(&a), None).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
    }
    s.assert_consistent();
}

#[tokio::test]
async fn counters_are_exact_across_delete_and_restore() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let p1 = a_post(&s, &a).await;
    let p2 = a_post(&s, &a).await;
    let d = create_id(&s, &a, Kind::Discussion, json!({"title": "t"})).await;
    create(&s, &a, Kind::Status, json!({"text": "s"})).await;
    let m = me(&s, &a).await;
    assert_eq!(counters(&m), (2, 1));

    // comments by both users, on a post and on the discussion
    let c1 = create_id(&s, &b, Kind::Comment, json!({"text": "x", "post": p1})).await;
    let r1 = create_id(&s, &a, Kind::Comment, json!({"text": "y", "post": p1, "parent": c1})).await;
    create(&s, &b, Kind::Comment, json!({"text": "z", "discussion": d})).await;
    let count = |kind: Kind, id: i64| {
        let s = &s;
        let a = a.clone();
        async move { s.get(&item(kind, id), Some(&a)).await.json()["comment_count"].clone() }
    };
    assert_eq!(count(Kind::Post, p1).await, 2);
    assert_eq!(count(Kind::Post, p2).await, 0);
    assert_eq!(count(Kind::Discussion, d).await, 1);
    assert_eq!(count(Kind::Comment, c1).await, 1, "a comment counts its live replies");
    s.delete(&item(Kind::Comment, r1), Some(&a)).await;
    assert_eq!((count(Kind::Comment, c1).await, count(Kind::Post, p1).await), (0.into(), 1.into()));
    s.assert_consistent();
    s.call(Method::POST, &restore(Kind::Comment, r1), Some(&a), None).await;
    assert_eq!((count(Kind::Comment, c1).await, count(Kind::Post, p1).await), (1.into(), 2.into()));

    s.delete(&item(Kind::Comment, c1), Some(&b)).await;
    assert_eq!(count(Kind::Post, p1).await, 1);
    s.delete(&item(Kind::Comment, c1), Some(&b)).await;
    assert_eq!(count(Kind::Post, p1).await, 1, "second delete changes nothing");
    s.assert_consistent();
    s.call(Method::POST, &restore(Kind::Comment, c1), Some(&b), None).await;
    s.call(Method::POST, &restore(Kind::Comment, c1), Some(&b), None).await;
    assert_eq!(count(Kind::Post, p1).await, 2);

    for _ in 0..2 {
        s.delete(&item(Kind::Post, p1), Some(&a)).await;
        s.delete(&item(Kind::Discussion, d), Some(&a)).await;
    }
    let m = me(&s, &a).await;
    assert_eq!(counters(&m), (1, 0));
    let u = s.get("/api/v2/user/me/", Some(&b)).await.json();
    assert_eq!(u["posts_counter"], 0, "comments have no user counter");
    s.assert_consistent();
    for _ in 0..2 {
        s.call(Method::POST, &restore(Kind::Post, p1), Some(&a), None).await;
        s.delete(&restore(Kind::Discussion, d), Some(&a)).await;
    }
    let m = me(&s, &a).await;
    assert_eq!(counters(&m), (2, 1));
    assert_eq!(count(Kind::Post, p1).await, 2);
    s.assert_consistent();
}

/// `(posts_counter, discussions_counter)` of a User JSON.
fn counters(u: &Value) -> (i64, i64) {
    (u["posts_counter"].as_i64().unwrap(), u["discussions_counter"].as_i64().unwrap())
}

/// Discussions, posts and statuses take their ids from one sequence (as on the hosted
/// platform, where the kit's share names an item by its id alone); comments number
/// their own.
#[tokio::test]
async fn items_share_one_sequence_of_ids_and_comments_number_their_own() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let mut got = Vec::new();
    for kind in Kind::ALL {
        let j = create(&s, &a, kind, body(kind, 2)).await;
        got.push(j["id"].as_i64().unwrap());
    }
    // the comment's host is post 2, the loop's post
    assert_eq!(got, vec![1, 2, 3, 1]);
    assert_eq!(create(&s, &a, Kind::Post, body(Kind::Post, 2)).await["id"], 4);
    assert_eq!(create(&s, &a, Kind::Comment, body(Kind::Comment, 2)).await["id"], 2);
    s.assert_consistent();
}

#[tokio::test]
async fn restore_routes_methods_and_slashless_comment_form() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let host = a_post(&s, &a).await;
    let d = create_id(&s, &a, Kind::Discussion, body(Kind::Discussion, 0)).await;
    let c = create_id(&s, &a, Kind::Comment, body(Kind::Comment, host)).await;

    // discussions restore with DELETE (SEED-API) and POST (its example)
    for m in [Method::DELETE, Method::POST] {
        s.delete(&item(Kind::Discussion, d), Some(&a)).await;
        let r = s.call(m.clone(), &restore(Kind::Discussion, d), Some(&a), None).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{m}");
        assert_eq!(s.get(&item(Kind::Discussion, d), None).await.json()["deleted"], false);
    }
    // the comment's slashless form
    s.delete(&item(Kind::Comment, c), Some(&a)).await;
    let slashless = format!("/api/v2/comment/{c}/restore");
    let r = s.call(Method::POST, &slashless, Some(&a), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&item(Kind::Comment, c), None).await.status, StatusCode::OK);
    for kind in [Kind::Post, Kind::Status, Kind::Discussion] {
        let p = format!("/api/v2/{}/1/restore", kind.as_str());
        assert_eq!(
            s.call(Method::POST, &p, Some(&a), None).await.status,
            StatusCode::NOT_FOUND,
            "{p} is only served with its slash"
        );
    }

    // wrong methods: 405 with Allow
    let cases = [
        (Method::GET, restore(Kind::Post, 1), "POST"),
        (Method::DELETE, restore(Kind::Comment, c), "POST"),
        (Method::GET, slashless.clone(), "POST"),
        (Method::GET, restore(Kind::Discussion, d), "POST, DELETE"),
        (Method::PATCH, item(Kind::Post, 1), "GET, HEAD, PUT, DELETE"),
        (Method::PATCH, path(Kind::Status), "GET, HEAD, POST"),
    ];
    for (m, p, allow) in cases {
        let r = s.call(m.clone(), &p, Some(&a), None).await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{m} {p}");
        assert_eq!(r.header("allow"), Some(allow), "{m} {p}");
    }
    // ids that are not integers match no route, before authentication
    for p in ["/api/v2/post/abc/", "/api/v2/comment/1x/restore/", "/api/v2/status/x/restore/"] {
        assert_eq!(s.get(p, None).await.status, StatusCode::NOT_FOUND, "{p}");
        assert_eq!(s.call(Method::POST, p, None, None).await.status, StatusCode::NOT_FOUND, "{p}");
    }
    s.assert_consistent();
}

#[tokio::test]
async fn the_schema_describes_every_contribution_route() {
    let s = TestServer::start().await;
    let doc = s.get("/api/v2/schema/", None).await.json();
    for kind in Kind::ALL {
        let k = kind.as_str();
        let want = [
            (format!("/api/v2/{k}/"), vec!["get", "post"]),
            (format!("/api/v2/{k}/{{id}}/"), vec!["get", "delete"]),
            (format!("/api/v2/{k}/{{id}}/restore/"), vec!["post"]),
        ];
        for (p, methods) in want {
            for m in methods {
                assert!(doc["paths"][&p][m].is_object(), "{m} {p}");
            }
        }
    }
    assert!(doc["paths"]["/api/v2/discussion/{id}/restore/"]["delete"].is_object());
    assert!(doc["paths"]["/api/v2/comment/{id}/restore"]["post"].is_object());
    for name in ["Discussion", "Post", "Status", "Comment", "CommentCreate"] {
        assert!(doc["components"]["schemas"][name].is_object(), "{name}");
    }
}

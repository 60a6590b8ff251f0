//! The caller's course list, the search with its filters and orderings, and deletion.

use reqwest::StatusCode;
use serde_json::json;

use super::set_status;
use crate::common::{Resp, TestServer};

#[tokio::test]
async fn lists_search_and_delete() {
    let s = TestServer::start().await;
    let [alice, bob] = s.users(["alice", "bob"]);
    let (ta, tb) = (s.jwt(alice), s.jwt(bob));
    let [sci, art] = s.categories(["Science", "Art"]);
    let mk = |name: &str, privacy: &str, cats: Vec<i64>, desc: &str| json!({"name": name, "type": "self-paced", "privacy": privacy, "categories": cats, "description": desc});
    let new = "/api/v2/course/";
    let a = s.create_id(new, &ta, mk("Alpha Physics", "open", vec![sci], "")).await;
    s.clock.advance(1_000_000);
    let about = "About ÉTUDES and physics";
    let b = s.create_id(new, &ta, mk("beta", "private", vec![art], about)).await;
    s.clock.advance(1_000_000);
    let c = s.create_id(new, &tb, mk("Gamma", "open", vec![sci, art], "")).await;
    let d = s.create_id(new, &tb, mk("Delta", "", vec![], "physics")).await;
    let ids = |r: &Resp| -> Vec<i64> {
        r.json()["results"].as_array().unwrap().iter().map(|x| x["id"].as_i64().unwrap()).collect()
    };
    // my courses: creator, manager, joined by default, newest first
    let r = s.get("/api/v2/course/", Some(&ta)).await;
    assert_eq!(ids(&r), vec![b, a]);
    s.post(&format!("/api/v2/course/{c}/join/"), Some(&ta), json!({})).await;
    let r = s.get("/api/v2/course/", Some(&ta)).await;
    assert_eq!(ids(&r), vec![c, b, a]);
    let r = s.get("/api/v2/course/?statuses=joined", Some(&ta)).await;
    assert_eq!(ids(&r), vec![c]);
    let r = s.get("/api/v2/course/?statuses=nope", Some(&ta)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(s.get("/api/v2/course/", None).await.status, StatusCode::UNAUTHORIZED);
    let r = s.get("/api/v2/course/?limit=1", Some(&ta)).await;
    assert_eq!(r.json()["count"], 3);
    assert_eq!(r.json()["next"], format!("{}/api/v2/course/?limit=1&offset=1", s.url).as_str());
    // search: visible only, default -id
    let r = s.get("/api/v2/course/search/", None).await;
    assert_eq!(ids(&r), vec![c, b, a]);
    let r = s.get("/api/v2/course/search/", Some(&tb)).await;
    assert_eq!(ids(&r), vec![d, c, b, a]);
    let r = s.get("/api/v2/course/search/?search=PHYSICS", Some(&tb)).await;
    assert_eq!(ids(&r), vec![d, b, a]);
    let r = s.get("/api/v2/course/search/?search=%C3%A9tudes", None).await;
    assert_eq!(ids(&r), Vec::<i64>::new(), "description match is ASCII case-insensitive only");
    let r = s.get("/api/v2/course/search/?search=ALPHA", None).await;
    assert_eq!(ids(&r), vec![a]);
    let r = s.get(&format!("/api/v2/course/search/?categories={art}"), None).await;
    assert_eq!(ids(&r), vec![c, b]);
    let r =
        s.get(&format!("/api/v2/course/search/?categories={sci},{art}&ordering=id"), None).await;
    assert_eq!(ids(&r), vec![a, b, c]);
    // the SDK (axios) sends lists as categories[]=1&categories[]=2
    let r = s
        .get(
            &format!(
                "/api/v2/course/search/?categories%5B%5D={sci}&categories%5B%5D={art}&ordering=id"
            ),
            None,
        )
        .await;
    assert_eq!(ids(&r), vec![a, b, c]);
    let r = s.get("/api/v2/course/search/?ordering=name", None).await;
    assert_eq!(ids(&r), vec![a, b, c]);
    let r = s.get("/api/v2/course/search/?ordering=-name", None).await;
    assert_eq!(ids(&r), vec![c, b, a]);
    let r = s.get("/api/v2/course/search/?ordering=created_at", None).await;
    assert_eq!(ids(&r)[0], a);
    for bad in ["ordering=slug", "ordering=--id", "categories=x", "limit=0"] {
        let r = s.get(&format!("/api/v2/course/search/?{bad}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    // delete: creator only; deleted courses vanish except for their creator
    let path = format!("/api/v2/course/{c}/");
    set_status(&s, c, alice, "manager");
    let r = s.delete(&path, Some(&ta)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.delete(&path, Some(&tb)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.delete(&path, Some(&tb)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.get(&path, Some(&tb)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["deleted"], true);
    assert_eq!(s.get(&path, Some(&ta)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&path, None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(ids(&s.get("/api/v2/course/search/", Some(&tb)).await), vec![d, b, a]);
    assert_eq!(ids(&s.get("/api/v2/course/", Some(&tb)).await), vec![d]);
    assert_eq!(ids(&s.get("/api/v2/course/", Some(&ta)).await), vec![b, a]);
    s.assert_consistent();
}

/// The search's count is one row the triggers keep (schema 6): creations, privacy
/// changes and deletions sent at once leave it equal to the courses listed.
#[tokio::test]
async fn the_count_stays_exact_under_parallel_creations_changes_and_deletions() {
    let s = TestServer::start().await;
    let [alice, bob] = s.users(["alice", "bob"]);
    let tokens = [s.jwt(alice), s.jwt(bob)];
    let privacies = ["open", "private", "secret", ""];
    let made = futures_util::future::join_all((0..24).map(|i| {
        let (s, t) = (&s, &tokens[i % 2]);
        async move { s.course(t, &format!("Course {i}"), privacies[i % 4]).await }
    }))
    .await;
    let count = |r: &Resp| r.json()["count"].as_i64().unwrap();
    assert_eq!(count(&s.get("/api/v2/course/search/", None).await), 12, "open and private");
    // at once: a third deleted, a third made secret, a third made open
    let changes = made.iter().enumerate().map(|(i, id)| {
        let (s, t, path) = (&s, &tokens[i % 2], format!("/api/v2/course/{id}/"));
        async move {
            match i % 3 {
                0 => s.delete(&path, Some(t)).await,
                1 => s.patch(&path, Some(t), json!({"privacy": "secret"})).await,
                _ => s.patch(&path, Some(t), json!({"privacy": "open"})).await,
            }
        }
    });
    for r in futures_util::future::join_all(changes).await {
        assert!(r.status.is_success(), "{:?}", r.status);
    }
    // listed now: the 8 made open (a draft may leave draft, never go back to it)
    assert_eq!(count(&s.get("/api/v2/course/search/", None).await), 8);
    s.assert_consistent();
}

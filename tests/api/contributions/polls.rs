//! Polls on discussions and posts (SPEC §10 People): made with their item while
//! `addons.polls_enabled` is on (or by staff), voted by members (a toggle; a single
//! choice moves), their counts exact under parallel voters, closed polls refused.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

fn poll(multiple: bool) -> Value {
    json!({"title": "Rye or wheat?", "multiple_choices": multiple, "expiration_at": null,
           "choices": [{"choice": "rye"}, {"choice": "wheat"}, {"choice": "both"}]})
}

fn counts(item: &Value) -> Vec<(i64, bool)> {
    item["poll"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["vote_count"].as_i64().unwrap(), c["voted"].as_bool().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_poll_is_made_with_its_post_only_while_polls_are_on_or_by_staff() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let staff = s.jwt(s.user("moira", None, true));
    let r = s.post("/api/v2/post/", Some(&a), json!({"text": "q", "poll": poll(false)})).await;
    r.assert_field_error("poll", "invalid");
    let r = s.post("/api/v2/post/", Some(&staff), json!({"text": "q", "poll": poll(false)})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    s.set_pref("addons", "polls_enabled", json!(true));
    let r = s
        .post(
            "/api/v2/discussion/",
            Some(&a),
            json!({"title": "Flour", "text": "q", "poll": poll(true)}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let j = r.json();
    assert_eq!(
        (j["poll"]["title"].clone(), j["poll"]["multiple_choices"].clone()),
        (json!("Rye or wheat?"), json!(true))
    );
    assert_eq!(counts(&j), [(0, false), (0, false), (0, false)]);
    let past = json!({"title": "q", "expiration_at": "2000-01-01T00:00:00Z", "choices": [{"choice": "a"}, {"choice": "b"}]});
    s.post("/api/v2/post/", Some(&a), json!({"text": "q", "poll": past}))
        .await
        .assert_field_error("poll", "invalid");
    s.post("/api/v2/status/", Some(&a), json!({"text": "q", "poll": poll(false)}))
        .await
        .assert_field_error("poll", "invalid");
    assert_eq!(s.get("/api/v2/user/me/", Some(&a)).await.json()["polls_counter"], json!(1));
    s.assert_consistent();
}

async fn item(s: &TestServer, id: i64, token: &str) -> Value {
    s.get(&format!("/api/v2/post/{id}/"), Some(token)).await.json()
}

#[tokio::test]
async fn a_single_choice_vote_moves_and_a_second_vote_takes_it_back() {
    let s = TestServer::start().await;
    s.set_pref("addons", "polls_enabled", json!(true));
    let (_, a) = s.login("ann");
    let (_, b) = s.login("bob");
    let post = s.create("/api/v2/post/", &a, json!({"text": "q", "poll": poll(false)})).await;
    let (id, choices) = (post["id"].as_i64().unwrap(), post["poll"]["choices"].clone());
    let choice = |i: usize| choices[i]["id"].as_i64().unwrap();
    let vote_path = format!("/api/v2/post/{id}/poll/vote/");
    let vote = |c: i64| s.post(&vote_path, Some(&b), json!({"choice": c}));
    assert_eq!(vote(choice(0)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(counts(&item(&s, id, &b).await), [(1, true), (0, false), (0, false)]);
    assert_eq!(
        counts(&item(&s, id, &a).await),
        [(1, false), (0, false), (0, false)],
        "ann did not vote"
    );
    assert_eq!(vote(choice(1)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(
        counts(&item(&s, id, &b).await),
        [(0, false), (1, true), (0, false)],
        "the vote moved"
    );
    assert_eq!(vote(choice(1)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(counts(&item(&s, id, &b).await), [(0, false), (0, false), (0, false)], "taken back");
    vote(choice(2)).await;
    let list = s.get(&format!("/api/v2/post/{id}/poll/vote/"), Some(&a)).await.json();
    assert_eq!(
        (list["count"].clone(), list["results"][0]["choice"].clone()),
        (json!(1), json!(choice(2)))
    );
    // another poll's choice, a post without a poll, a deleted post
    let other = s.create("/api/v2/post/", &a, json!({"text": "q2", "poll": poll(false)})).await;
    let foreign = other["poll"]["choices"][0]["id"].as_i64().unwrap();
    vote(foreign).await.assert_field_error("choice", "invalid");
    let plain = s.create_id("/api/v2/post/", &a, json!({"text": "no poll"})).await;
    let r = s
        .post(&format!("/api/v2/post/{plain}/poll/vote/"), Some(&b), json!({"choice": choice(0)}))
        .await;
    r.assert_field_error("choice", "invalid");
    s.delete(&format!("/api/v2/post/{id}/"), Some(&a)).await;
    assert_eq!(vote(choice(0)).await.status, StatusCode::NOT_FOUND);
    s.assert_consistent();
}

#[tokio::test]
async fn fifty_parallel_voters_are_counted_exactly_and_a_closed_poll_takes_no_vote() {
    let s = TestServer::start().await;
    s.set_pref("addons", "polls_enabled", json!(true));
    let (_, a) = s.login("ann");
    let soon = hearth::clock::rfc3339(s.clock.now() + 60 * hearth::clock::SECOND);
    let mut p = poll(true);
    p["expiration_at"] = json!(soon);
    let post = s.create("/api/v2/post/", &a, json!({"text": "q", "poll": p})).await;
    let id = post["id"].as_i64().unwrap();
    let (c0, c1) = (
        post["poll"]["choices"][0]["id"].as_i64().unwrap(),
        post["poll"]["choices"][1]["id"].as_i64().unwrap(),
    );
    let tokens: Vec<String> = (0..50).map(|i| s.login(&format!("voter{i}")).1).collect();
    let path = format!("/api/v2/post/{id}/poll/vote/");
    // 50 voters at once (the per-address connection cap allows them), each voting both
    let votes = tokens.iter().map(|t| async {
        let first = s.post(&path, Some(t), json!({"choice": c0})).await.status;
        let second = s.post(&path, Some(t), json!({"choice": c1})).await.status;
        (first, second)
    });
    let answers = futures_util::future::join_all(votes).await;
    assert!(answers.iter().all(|r| *r == (StatusCode::NO_CONTENT, StatusCode::NO_CONTENT)));
    let item = s.get(&format!("/api/v2/post/{id}/"), Some(&a)).await.json();
    assert_eq!(counts(&item)[..2], [(50, false), (50, false)]);
    s.assert_consistent();
    s.clock.advance(61 * hearth::clock::SECOND);
    let t = s.jwt(s.user("late", None, false));
    let r = s.post(&format!("/api/v2/post/{id}/poll/vote/"), Some(&t), json!({"choice": c0})).await;
    r.assert_field_error("choice", "invalid");
}

/// The kit's poll suggestion widget (`GET /api/v2/suggestion/poll/`): the open polls a
/// member has neither answered nor written, the newest first, and only on the items
/// explore shows that member.
#[tokio::test]
async fn the_polls_suggested_are_the_open_unanswered_ones_a_member_may_see() {
    let s = TestServer::start().await;
    s.set_pref("addons", "polls_enabled", json!(true));
    s.set_pref("configurations", "groups_enabled", json!(true));
    let (_, a) = s.login("ann");
    let (eve, e) = s.login("eve");
    let (_, b) = s.login("bob");
    let with_poll = |p: Value| json!({"text": "q", "poll": p});
    let open = make(&s, &a, with_poll(poll(false))).await["id"].as_i64().unwrap();
    let mut p = poll(false);
    p["expiration_at"] = json!(hearth::clock::rfc3339(s.clock.now() + 60 * hearth::clock::SECOND));
    let expiring = make(&s, &a, with_poll(p)).await["id"].as_i64().unwrap();
    let voted = make(&s, &a, with_poll(poll(true))).await;
    let closed = make(&s, &a, with_poll(poll(false))).await["id"].as_i64().unwrap();
    let collapsed = make(&s, &a, with_poll(poll(false))).await["id"].as_i64().unwrap();
    let gone = make(&s, &a, with_poll(poll(false))).await["id"].as_i64().unwrap();
    make(&s, &b, with_poll(poll(false))).await; // bob's own
    make(&s, &e, with_poll(poll(false))).await; // by eve, whom bob hides
    make(&s, &a, json!({"text": "no poll"})).await;
    let g = s.create_id("/api/v2/group/", &a, json!({"name": "Bakers"})).await;
    make(&s, &a, json!({"text": "in a group", "group": g, "poll": poll(false)})).await;
    let discussion = s
        .create_id(
            "/api/v2/discussion/",
            &a,
            json!({"title": "Ovens", "text": "q", "poll": poll(false)}),
        )
        .await;

    let path = format!("/api/v2/post/{}/poll/vote/", voted["id"]);
    let choice = voted["poll"]["choices"][0]["id"].clone();
    assert_eq!(s.post(&path, Some(&b), json!({"choice": choice})).await.status, 204);
    assert_eq!(s.post(&format!("/api/v2/user/{eve}/hide/"), Some(&b), json!({})).await.status, 204);
    assert_eq!(s.delete(&format!("/api/v2/post/{gone}/"), Some(&a)).await.status, 204);
    s.db_write(|tx| {
        let set = |column: &str, table: &str, key: &str, id: i64| {
            tx.execute(
                &format!(
                    "UPDATE {table} SET {column} = 1
                     WHERE {key} = (SELECT pk FROM contribution WHERE kind = 'post' AND id = ?1)"
                ),
                [id],
            )
        };
        set("closed", "poll", "contribution_pk", closed)?;
        set("collapsed", "contribution", "pk", collapsed)
    });

    let r = s.get("/api/v2/suggestion/poll/", Some(&b)).await;
    assert_eq!(r.ids(), [discussion, expiring, open], "{}", r.text);
    assert_eq!(r.json()["count"], 3);
    let first = &r.json()["results"][0];
    assert_eq!(
        (first["type"].clone(), first["poll"]["title"].clone()),
        (json!("discussion"), json!("Rye or wheat?"))
    );
    assert_eq!(first["author"]["username"], "ann");
    let r = s.get("/api/v2/suggestion/poll/?limit=1&offset=1", Some(&b)).await;
    assert_eq!((r.ids(), r.json()["count"].clone()), (vec![expiring], json!(3)));
    // ann wrote them all: only eve's is hers to answer
    assert_eq!(s.get("/api/v2/suggestion/poll/", Some(&a)).await.json()["count"], 2);
    s.clock.advance(61 * hearth::clock::SECOND);
    assert_eq!(s.list_ids("/api/v2/suggestion/poll/", Some(&b)).await, [discussion, open]);
    s.assert_needs_caller("/api/v2/suggestion/poll/", "not-a-token").await;
}

async fn make(s: &TestServer, token: &str, body: Value) -> Value {
    s.create("/api/v2/post/", token, body).await
}

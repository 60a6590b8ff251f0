//! Addressing items to user tags (SPEC §10 People, issue 32; docs/decisions.md): a
//! discussion or post addressed to tags is shown only to its author, staff and the
//! holders of one of its tags, on every read path, and its comments with it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestServer, ids, unit_ids};

fn names(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// Staff may address to every active tag, a member to the active tags they hold; an
/// unknown, inactive, deleted or unheld tag is 400 on `addressing`, as is addressing a
/// status or an item made in a group.
#[tokio::test]
async fn who_may_address_to_which_tags() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    let tag = |name: &'static str| {
        let (s, staff) = (&s, staff.clone());
        async move { s.create_id("/api/v2/tag/", &staff, json!({"name": name})).await }
    };
    let (team, other, off, gone) =
        (tag("Team").await, tag("Other").await, tag("Off").await, tag("Gone").await);
    for t in [team, off, gone] {
        s.post(&format!("/api/v2/tag/{t}/assign/"), Some(&staff), json!({"user": bob})).await;
    }
    s.patch(&format!("/api/v2/tag/{off}/"), Some(&staff), json!({"active": false})).await;
    s.patch(&format!("/api/v2/tag/{gone}/"), Some(&staff), json!({"deleted": true})).await;
    let offered = |tok: String| {
        let s = &s;
        async move {
            let r = s.get("/api/v2/user/tag/tags_to_address_a_contribution/", Some(&tok)).await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            names(&r.json())
        }
    };
    assert_eq!(offered(b.clone()).await, ["Team"]);
    assert_eq!(offered(staff.clone()).await, ["Team", "Other"]);
    assert_eq!(
        s.status("/api/v2/user/tag/tags_to_address_a_contribution/", None).await,
        StatusCode::UNAUTHORIZED
    );
    for bad in [other, off, gone, 999_999] {
        let r = s.post("/api/v2/post/", Some(&b), json!({"text": "x", "addressing": [bad]})).await;
        r.assert_field_error("addressing", "invalid");
    }
    let r = s
        .post(
            "/api/v2/status/",
            Some(&b),
            json!({"action": "x", "text": "y", "addressing": [team]}),
        )
        .await;
    r.assert_field_error("addressing", "invalid");
    for bad in [json!("1"), json!(["x"]), json!({"id": team})] {
        let r = s.post("/api/v2/post/", Some(&b), json!({"text": "x", "addressing": bad})).await;
        r.assert_field_error("addressing", "invalid");
    }
    let p = s.create("/api/v2/post/", &b, json!({"text": "x", "addressing": [team, team]})).await;
    assert_eq!(names(&p["addressing"]), ["Team"], "{p}");
    let d = s
        .create(
            "/api/v2/discussion/",
            &staff,
            json!({"title": "t", "text": "x", "addressing": [other]}),
        )
        .await;
    assert_eq!(names(&d["addressing"]), ["Other"]);
    // nothing was written by the refused calls
    assert_eq!(s.get("/api/v2/post/", Some(&staff)).await.json()["count"], 1);
    s.assert_consistent();
}

/// `configurations.post_addressing_required_enabled`: a discussion or post outside
/// groups and events needs a tag; comments and statuses do not.
#[tokio::test]
async fn required_addressing_is_enforced() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    let team = s.create_id("/api/v2/tag/", &staff, json!({"name": "Team"})).await;
    s.post(&format!("/api/v2/tag/{team}/assign/"), Some(&staff), json!({"user": bob})).await;
    s.set_pref("configurations", "post_addressing_required_enabled", json!(true));
    for body in [json!({"text": "x"}), json!({"text": "x", "addressing": []})] {
        s.post("/api/v2/post/", Some(&b), body).await.assert_field_error("addressing", "required");
    }
    let r = s.post("/api/v2/discussion/", Some(&b), json!({"title": "t", "text": "x"})).await;
    r.assert_field_error("addressing", "required");
    let p = s.create_id("/api/v2/post/", &b, json!({"text": "x", "addressing": [team]})).await;
    s.create_id("/api/v2/comment/", &b, json!({"post": p, "text": "fine"})).await;
    s.create_id("/api/v2/status/", &b, json!({"action": "fine", "text": "y"})).await;
}

/// The platform's addressing to users (`recipients`, which the Composer sends with
/// `configurations.post_user_addressing_enabled`) would make an item only they see:
/// hearth does not keep it, so an item that names users is refused, on create and on
/// edit, rather than published to everyone. An empty or null list is no addressing.
#[tokio::test]
async fn an_item_addressed_to_users_is_refused_not_made_public() {
    let s = TestServer::start().await;
    let (ann, a) = s.login("ann");
    let (bob, b) = s.login("bob");
    s.set_pref("configurations", "post_user_addressing_enabled", json!(true));
    let feed = |tok: String| {
        let s = &s;
        async move { s.get("/api/v2/feed/explore/", Some(&tok)).await.json()["count"].clone() }
    };
    let before = feed(b.clone()).await;
    for (path, body) in [
        ("/api/v2/post/", json!({"text": "for ann only", "recipients": [ann]})),
        ("/api/v2/discussion/", json!({"title": "t", "text": "x", "recipients": [ann, bob]})),
        ("/api/v2/status/", json!({"action": "x", "text": "y", "recipients": [ann]})),
        ("/api/v2/post/", json!({"text": "x", "recipients": "1"})),
    ] {
        s.post(path, Some(&b), body).await.assert_field_error("recipients", "invalid");
    }
    assert_eq!(feed(b.clone()).await, before);
    assert_eq!(feed(a.clone()).await, before);
    let p = s.create_id("/api/v2/post/", &b, json!({"text": "x", "recipients": []})).await;
    s.create_id("/api/v2/post/", &b, json!({"text": "y", "recipients": null})).await;
    let r = s
        .put(&format!("/api/v2/post/{p}/"), Some(&b), json!({"text": "z", "recipients": [ann]}))
        .await;
    r.assert_field_error("recipients", "invalid");
    let shown = s.get(&format!("/api/v2/post/{p}/"), Some(&a)).await.json();
    assert!(shown["html"].as_str().unwrap().contains('x'), "{shown}");
}

/// The item and everything about it, as each kind of caller sees it: the holder of
/// the tag, the author, staff see it; another member and anonymous callers do not,
/// on every read path, and are not notified of a mention in it.
#[tokio::test]
async fn an_addressed_item_is_shown_to_its_tags_holders_its_author_and_staff_only() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let (carol, c) = s.login("carol");
    let team = s.create_id("/api/v2/tag/", &staff, json!({"name": "Team"})).await;
    for u in [alice, bob] {
        s.post(&format!("/api/v2/tag/{team}/assign/"), Some(&staff), json!({"user": u})).await;
    }
    let [cat] = s.categories(["Bakery"]);
    // carol follows alice and the category: her home feed would show alice's posts
    s.post(&format!("/api/v2/user/{alice}/follow/"), Some(&c), json!({})).await;
    s.post(&format!("/api/v2/category/{cat}/follow/"), Some(&c), json!({})).await;
    let open = s
        .create_id("/api/v2/post/", &a, json!({"text": "open sourdough", "categories": [cat]}))
        .await;
    s.clock.advance(1_000);
    let mention = format!(
        r#"<p>team sourdough <mention id="{bob}">@bob</mention> <mention id="{carol}">@carol</mention></p>"#
    );
    let hush = s
        .create_id(
            "/api/v2/post/",
            &a,
            json!({"text": mention, "categories": [cat], "addressing": [team]}),
        )
        .await;
    let note = s.create_id("/api/v2/comment/", &b, json!({"post": hush, "text": "ok"})).await;

    let holders = [Some(a.clone()), Some(b.clone()), Some(staff.clone())];
    let others = [Some(c.clone()), None];
    let names = ["alice", "bob", "staff", "carol", "anonymous"];
    let callers = holders.iter().map(|t| (t, true)).chain(others.iter().map(|t| (t, false)));
    for ((tok, sees), who) in callers.zip(names) {
        let tok = tok.as_deref();
        let want = |v: StatusCode| if sees { StatusCode::OK } else { v };
        assert_eq!(
            s.status(&format!("/api/v2/post/{hush}/"), tok).await,
            want(StatusCode::NOT_FOUND),
            "{who}"
        );
        assert_eq!(
            s.status(&format!("/api/v2/comment/{note}/"), tok).await,
            want(StatusCode::NOT_FOUND),
            "{who}"
        );
        // every comment, unfiltered: the one on the addressed post is its holders'
        let all = s.get("/api/v2/comment/", tok).await.json();
        let listed = usize::from(sees);
        assert_eq!(
            (ids(&all).len(), all["count"].clone()),
            (listed, json!(listed)),
            "{who}: {all}"
        );
        let r = s.get(&format!("/api/v2/comment/?post={hush}"), tok).await;
        assert_eq!(r.status, StatusCode::OK, "{who}: {}", r.text);
        assert_eq!(ids(&r.json()), if sees { vec![note] } else { vec![] }, "{who}");
        for path in [
            format!("/api/v2/post/{hush}/vote/"),
            format!("/api/v2/post/{hush}/contributors/"),
            format!("/api/v2/post/{hush}/related/"),
        ] {
            assert_eq!(s.status(&path, tok).await, want(StatusCode::NOT_FOUND), "{who} {path}");
        }
        let expect = if sees { vec![hush, open] } else { vec![open] };
        for path in [
            "/api/v2/feed/explore/".to_owned(),
            format!("/api/v2/user/{alice}/feed/"),
            format!("/api/v2/category/{cat}/feed/"),
        ] {
            let r = s.get(&path, tok).await;
            assert_eq!(r.status, StatusCode::OK, "{who} {path}: {}", r.text);
            assert_eq!(unit_ids(&r.json()), expect, "{who} {path}");
            assert_eq!(r.json()["count"], expect.len(), "{who} {path}");
        }
        let list = s.get("/api/v2/post/", tok).await.json();
        assert_eq!(
            (ids(&list), list["count"].clone()),
            (expect.clone(), json!(expect.len())),
            "{who}"
        );
        let found = s.get("/api/v2/search/?search=sourdough", tok).await;
        assert_eq!(found.json()["count"], expect.len(), "{who}: {}", found.text);
        // the open post's related items are the addressed one only for those who see it
        let r = s.get(&format!("/api/v2/post/{open}/related/"), tok).await;
        assert_eq!(ids(&r.json()), if sees { vec![hush] } else { vec![] }, "{who}");
    }
    // home: carol follows the author and the category, and still does not get it
    let home = s.get("/api/v2/feed/", Some(&c)).await.json();
    assert_eq!((unit_ids(&home), home["count"].clone()), (vec![open], json!(1)));
    let home = s.get("/api/v2/feed/", Some(&b)).await.json();
    assert_eq!(unit_ids(&home), [hush, open]);
    // carol may not comment on, vote on or flag what she may not see
    let r = s.post("/api/v2/comment/", Some(&c), json!({"post": hush, "text": "hi"})).await;
    r.assert_field_error("post", "invalid");
    let r = s.post(&format!("/api/v2/post/{hush}/vote/"), Some(&c), json!({})).await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    let r = s.post(&format!("/api/v2/post/{hush}/flag/"), Some(&c), json!({"flag_type": 0})).await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
    // the mention reached bob, who holds the tag, and not carol
    let kinds = |tok: String| {
        let s = &s;
        async move {
            let r = s.get("/api/v2/notification/", Some(&tok)).await.json();
            r["results"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["aggregated"].as_array().unwrap().clone())
                .map(|n| n["type"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(kinds(b.clone()).await, ["mention"]);
    assert_eq!(kinds(c.clone()).await, Vec::<String>::new());
    // once carol is given the tag, she sees it all
    s.post(&format!("/api/v2/tag/{team}/assign/"), Some(&staff), json!({"user": carol})).await;
    assert_eq!(s.status(&format!("/api/v2/post/{hush}/"), Some(&c)).await, StatusCode::OK);
    let home = s.get("/api/v2/feed/", Some(&c)).await.json();
    assert_eq!((unit_ids(&home), home["count"].clone()), (vec![hush, open], json!(2)));
    s.assert_consistent();
}

/// Many addressed posts written at once, by holders and by staff: each stored with
/// its tag, and every feed count exact for holders and others alike.
#[tokio::test]
async fn parallel_addressed_posts_keep_every_count_exact() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (bob, b) = s.login("bob");
    let (_, c) = s.login("carol");
    let team = s.create_id("/api/v2/tag/", &staff, json!({"name": "Team"})).await;
    s.post(&format!("/api/v2/tag/{team}/assign/"), Some(&staff), json!({"user": bob})).await;
    let mut calls = Vec::new();
    for i in 0..30 {
        let (s, tok) = (&s, if i % 3 == 0 { staff.clone() } else { b.clone() });
        let body = if i % 2 == 0 {
            json!({"text": format!("p{i}"), "addressing": [team]})
        } else {
            json!({"text": format!("p{i}")})
        };
        calls.push(async move { s.post("/api/v2/post/", Some(&tok), body).await.status });
    }
    let done = futures_util::future::join_all(calls).await;
    assert!(done.iter().all(|st| *st == StatusCode::CREATED), "{done:?}");
    for (tok, want) in [(Some(&b), 30), (Some(&staff), 30), (Some(&c), 15), (None, 15)] {
        let tok = tok.map(String::as_str);
        let r = s.get("/api/v2/feed/explore/?limit=50", tok).await.json();
        assert_eq!((r["count"].clone(), unit_ids(&r).len()), (json!(want), want), "{tok:?}");
        assert_eq!(s.get("/api/v2/post/?limit=50", tok).await.json()["count"], want, "{tok:?}");
    }
    s.assert_consistent();
}

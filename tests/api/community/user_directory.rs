//! The community's users as members list and name them (SPEC §10 People, issue 32):
//! `GET /api/v2/user/`, `POST /api/v2/user/match/`, and the control panel's link for
//! staff, `GET /api/v2/user/me/platform_url/`.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestServer, ids};

/// ann, bob, cid, dan (deleted), eve (whom ann hides) and fay (blocked by staff); ann's
/// token.
async fn community(s: &TestServer) -> ([i64; 6], String) {
    let [ann, bob, cid, dan, eve, fay] = s.users(["ann", "bob", "cid", "dan", "eve", "fay"]);
    let a = s.jwt(ann);
    s.soft_delete_user(dan);
    let r = s.post(&format!("/api/v2/user/{eve}/hide/"), Some(&a), json!({})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let now = s.clock.now();
    s.db_write(move |tx| hearth::db::user_blocks::block(tx, fay, now, None).map(|_| ()));
    ([ann, bob, cid, dan, eve, fay], a)
}

#[tokio::test]
async fn the_list_shows_members_every_live_user_they_do_not_hide() {
    let s = TestServer::start().await;
    let ([ann, bob, cid, _dan, eve, fay], a) = community(&s).await;
    let all = s.get("/api/v2/user/", Some(&a)).await;
    assert_eq!(all.status, StatusCode::OK, "{}", all.text);
    let j = all.json();
    assert_eq!(ids(&j), [ann, bob, cid, fay], "by join date; the deleted and the hidden left out");
    assert_eq!(j["count"], 4);
    // User JSON, email never in a list, the caller's relation to each
    assert_eq!(j["results"][1]["username"], "bob");
    assert!(j["results"][1].get("email").is_none(), "{}", j["results"][1]);
    assert!(j["results"][1].get("connection_status").is_some());
    // bob hides nobody: he sees eve
    let b = s.jwt(bob);
    assert_eq!(s.list_ids("/api/v2/user/?ordering=-id", Some(&b)).await, [fay, eve, cid, bob, ann]);
    // orders and pages
    let by_name = s.list_ids("/api/v2/user/?ordering=-username", Some(&a)).await;
    assert_eq!(by_name, [fay, cid, bob, ann]);
    let p = s.get("/api/v2/user/?ordering=username&limit=2&offset=2", Some(&a)).await.json();
    assert_eq!((ids(&p), p["count"].clone()), (vec![cid, fay], json!(4)));
    assert!(p["next"].is_null() && p["previous"].as_str().unwrap().contains("ordering=username"));
    // one username, whatever its case (SPEC §4); the deleted and the hidden name nobody
    assert_eq!(s.list_ids("/api/v2/user/?username=BoB", Some(&a)).await, [bob]);
    for gone in ["dan", "eve", "nobody", "<b>bob</b>"] {
        let r = s.get(&format!("/api/v2/user/?username={gone}"), Some(&a)).await.json();
        assert_eq!((r["count"].clone(), r["results"].clone()), (json!(0), json!([])), "{gone}");
    }
    // search, as the user search finds them
    assert_eq!(s.list_ids("/api/v2/user/?search=bo", Some(&a)).await, [bob]);
    assert_eq!(s.list_ids("/api/v2/user/?search=ev", Some(&a)).await, Vec::<i64>::new());
    assert_eq!(s.list_ids("/api/v2/user/?search=%3Cscript%3E", Some(&a)).await, Vec::<i64>::new());
    // a read-only token reads it
    let read = s.oauth_token(ann, "read");
    assert_eq!(s.status("/api/v2/user/", Some(&read)).await, StatusCode::OK);
}

#[tokio::test]
async fn the_list_needs_a_caller_and_refuses_what_it_does_not_serve() {
    let s = TestServer::start().await;
    let (_, a) = community(&s).await;
    s.assert_needs_caller("/api/v2/user/", "not-a-token.at.all").await;
    let refused = [
        ("gender=Male", "gender", "invalid"),
        ("real_name=Ann", "real_name", "invalid"),
        ("location=Rome", "location", "invalid"),
        ("description=x", "description", "invalid"),
        ("ordering=password", "ordering", "invalid_choice"),
        ("ordering=email", "ordering", "invalid_choice"),
        ("search=bo&username=bob", "username", "invalid"),
        ("search=bo&ordering=username", "ordering", "invalid"),
        ("limit=0", "limit", "invalid"),
        ("offset=-1", "offset", "invalid"),
        ("offset=10001", "offset", "max_value"),
    ];
    for (query, field, code) in refused {
        let r = s.get(&format!("/api/v2/user/?{query}"), Some(&a)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{query}: {}", r.text);
        r.assert_field_error(field, code);
    }
    let long = "a".repeat(201);
    s.get(&format!("/api/v2/user/?search={long}"), Some(&a))
        .await
        .assert_field_error("search", "max_length");
    // a username past any length names nobody
    let r = s.get(&format!("/api/v2/user/?username={}", "b".repeat(5000)), Some(&a)).await;
    assert_eq!((r.status, r.json()["count"].clone()), (StatusCode::OK, json!(0)));
    // no write on this path
    let r = s.post("/api/v2/user/", Some(&a), json!({"username": "mallory"})).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
}

async fn matched(s: &TestServer, token: &str, body: Value) -> crate::common::Resp {
    s.post("/api/v2/user/match/", Some(token), body).await
}

fn usernames(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn pasted_usernames_name_the_live_users_the_caller_may_see() {
    let s = TestServer::start().await;
    let ([ann, bob, ..], a) = community(&s).await;
    let body = json!(["BOB", "ann", "nobody", "<b>cid</b>", "bob", "eve", "dan", "", "Cid"]);
    let r = matched(&s, &a, body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(usernames(&j), ["bob", "ann", "cid"], "as first named, each once");
    assert_eq!((j[0]["id"].clone(), j[1]["id"].clone()), (json!(bob), json!(ann)));
    assert!(j[0]["avatar"].as_str().unwrap().starts_with("http"), "{}", j[0]);
    assert!(j[0].get("email").is_none());
    // nothing pasted, nothing matched
    assert_eq!(matched(&s, &a, json!([])).await.json(), json!([]));
    // a name far past any username's length costs nothing and names nobody
    assert_eq!(matched(&s, &a, json!(["x".repeat(100_000)])).await.json(), json!([]));
    // 1000 names are taken; one more is refused before any is looked up
    let many: Vec<String> = (0..1000).map(|i| format!("user{i}")).collect();
    assert_eq!(matched(&s, &a, json!(many)).await.status, StatusCode::OK);
    let mut over = many.clone();
    over.push("bob".into());
    matched(&s, &a, json!(over)).await.assert_field_error("usernames", "max_length");
    // 50 at once, each answered whole
    let calls = (0..50).map(|_| matched(&s, &a, json!(["bob", "ann"])));
    for r in futures_util::future::join_all(calls).await {
        assert_eq!(usernames(&r.json()), ["bob", "ann"]);
    }
}

#[tokio::test]
async fn a_match_needs_a_caller_with_the_write_scope_and_a_list_of_names() {
    let s = TestServer::start().await;
    let ([ann, ..], a) = community(&s).await;
    for bad in
        [json!({"usernames": ["bob"]}), json!("bob"), json!([1]), json!([["bob"]]), json!([null])]
    {
        matched(&s, &a, bad.clone()).await.assert_field_error("usernames", "invalid");
    }
    let r = s
        .client
        .post(format!("{}/api/v2/user/match/", s.url))
        .bearer_auth(&a)
        .header("content-type", "application/json")
        .body("[\"bob\"")
        .send()
        .await
        .unwrap();
    assert_eq!(TestServer::read(r).await.status, StatusCode::BAD_REQUEST);
    let r = s.post("/api/v2/user/match/", None, json!(["bob"])).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    let r = s.post("/api/v2/user/match/", Some("not-a-token.at.all"), json!(["bob"])).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "authentication_failed");
    let read = s.oauth_token(ann, "read");
    let r = s.post("/api/v2/user/match/", Some(&read), json!(["bob"])).await;
    r.assert_error(StatusCode::FORBIDDEN, "insufficient_scope");
    // a deleted user's token is 401 even with a body that is no list
    let (gone, g) = s.login("gone");
    s.soft_delete_user(gone);
    let r = s.post("/api/v2/user/match/", Some(&g), json!({"x": 1})).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "authentication_failed");
}

const PANEL: &str = "https://panel.example.org/admin";

#[tokio::test]
async fn without_a_control_panel_the_link_is_404_and_only_staff_ask() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (_, a) = s.login("ann");
    s.assert_needs_caller("/api/v2/user/me/platform_url/", "not-a-token.at.all").await;
    let r = s.get("/api/v2/user/me/platform_url/", Some(&a)).await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let r = s.get("/api/v2/user/me/platform_url/?next=/moderation/flags/", Some(&staff)).await;
    r.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn the_operators_control_panel_is_linked_with_a_path_and_nothing_else() {
    let s = TestServer::start_with(|c| c.platform_url = Some(PANEL.into())).await;
    let staff = s.jwt(s.user("moira", None, true));
    let (ann, a) = s.login("ann");
    let get = |q: &'static str, t: String| {
        let s = &s;
        async move { s.get(&format!("/api/v2/user/me/platform_url/{q}"), Some(&t)).await }
    };
    let r = get("", staff.clone()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json(), json!({"platform_url": PANEL, "token_details": null}));
    assert_eq!(get("?next=", staff.clone()).await.json()["platform_url"], PANEL);
    let r = get("?next=/moderation/user/%3Fusername%3Dann", staff.clone()).await;
    assert_eq!(
        r.json()["platform_url"],
        format!("{PANEL}?next=%2Fmoderation%2Fuser%2F%3Fusername%3Dann")
    );
    // a member is refused, even with the scope and the panel named
    get("", a.clone()).await.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    let read = s.oauth_token(ann, "read");
    get("", read).await.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    // `next` is a path on the panel, never an address elsewhere
    for bad in [
        "?next=https://evil.example/",
        "?next=//evil.example/",
        "?next=/%5Cevil.example",
        "?next=javascript:alert(1)",
        "?next=/a%0Ab",
        "?next=moderation",
    ] {
        get(bad, staff.clone()).await.assert_field_error("next", "invalid");
    }
    let long = format!("?next=/{}", "a".repeat(1000));
    let r = s.get(&format!("/api/v2/user/me/platform_url/{long}"), Some(&staff)).await;
    r.assert_field_error("next", "invalid");
}

#[tokio::test]
async fn a_panel_url_with_a_query_keeps_it() {
    let s = TestServer::start_with(|c| c.platform_url = Some(format!("{PANEL}?site=3"))).await;
    let staff = s.jwt(s.user("moira", None, true));
    let r = s.get("/api/v2/user/me/platform_url/?next=/contents/interests/", Some(&staff)).await;
    assert_eq!(r.json()["platform_url"], format!("{PANEL}?site=3&next=%2Fcontents%2Finterests%2F"));
}

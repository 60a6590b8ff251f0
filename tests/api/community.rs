//! Issue 5: reactions, dynamic preferences, users and followings, over real HTTP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use hearth::clock::SECOND;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

fn ids(r: &Resp) -> Vec<i64> {
    r.json()["results"]
        .as_array()
        .unwrap_or(&vec![])
        .iter()
        .map(|x| x["id"].as_i64().unwrap())
        .collect()
}

fn labels(r: &Resp) -> Vec<String> {
    r.json()["results"]
        .as_array()
        .unwrap_or(&vec![])
        .iter()
        .map(|x| x["label"].as_str().unwrap().to_owned())
        .collect()
}

fn soft_delete(s: &TestServer, id: i64) {
    s.state
        .db
        .write_blocking(|tx| {
            hearth::db::users::soft_delete(tx, id).map_err(hearth::db::DbError::from)
        })
        .unwrap();
}

fn check_is_clean(s: &TestServer) {
    let problems = s
        .state
        .db
        .read_blocking(|c| hearth::db::check::run(c).map_err(hearth::db::DbError::from))
        .unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

/// POST with no body at all (what the SDK sends), with a content type.
async fn post_empty(s: &TestServer, path: &str, token: &str) -> Resp {
    let r = s
        .client
        .post(format!("{}{}", s.url, path))
        .bearer_auth(token)
        .header("Content-Type", "application/json")
        .send()
        .await
        .unwrap();
    TestServer::read(r).await
}

// ---------------------------------------------------------------- reactions

#[tokio::test]
async fn reactions_list_the_defaults_with_absolute_images() {
    let s = TestServer::start().await;
    for path in ["/api/v2/reaction/search/", "/api/v2/reaction/"] {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        let j = r.json();
        assert_eq!(j["count"], 6);
        assert_eq!(j["next"], Value::Null);
        assert_eq!(j["previous"], Value::Null);
        assert_eq!(
            labels(&r),
            ["like", "love", "haha", "wow", "sad", "angry"],
            "{path}"
        );
        assert_eq!(
            j["results"][0],
            json!({"id": 1, "label": "like", "sentiment": 1,
                   "image": format!("{}/static/reactions/like.svg", s.url), "active": true})
        );
        assert_eq!(j["results"][4]["sentiment"], -1);
    }
    let r = s.get("/api/v2/reaction/4/", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["label"], "wow");
    assert_eq!(r.json()["sentiment"], 0);
    // the image URL is served
    let img = s.get("/static/reactions/wow.svg", None).await;
    assert_eq!(img.status, StatusCode::OK);
    for (path, status) in [
        ("/api/v2/reaction/99/", StatusCode::NOT_FOUND),
        ("/api/v2/reaction/abc/", StatusCode::NOT_FOUND),
        ("/api/v2/reaction/1", StatusCode::NOT_FOUND),
    ] {
        assert_eq!(s.get(path, None).await.status, status, "{path}");
    }
    let r = s.post("/api/v2/reaction/", None, json!({})).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
}

#[tokio::test]
async fn reactions_filter_by_search_and_active() {
    let s = TestServer::start().await;
    s.state
        .db
        .write_blocking(|tx| {
            hearth::db::reactions::insert(
                tx,
                &hearth::model::reaction::Reaction {
                    id: 0,
                    label: "Clap".into(),
                    sentiment: 2,
                    image: None,
                    active: false,
                },
            )
            .map_err(hearth::db::DbError::from)
        })
        .unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("search=LI", &["like"]),
        ("search=a", &["haha", "sad", "angry", "Clap"]),
        ("search=cla", &["Clap"]),
        (
            "search=",
            &["like", "love", "haha", "wow", "sad", "angry", "Clap"],
        ),
        ("active=false", &["Clap"]),
        ("active=FALSE", &["Clap"]),
        ("active=0", &["Clap"]),
        ("active=True&search=a", &["haha", "sad", "angry"]),
        ("active=1&search=zzz", &[]),
    ];
    for (qs, want) in cases {
        let r = s.get(&format!("/api/v2/reaction/search/?{qs}"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{qs}");
        assert_eq!(labels(&r), *want, "{qs}");
        assert_eq!(r.json()["count"], want.len(), "{qs}");
    }
    let r = s.get("/api/v2/reaction/7/", None).await;
    assert_eq!(
        r.json()["image"],
        format!("{}/static/reactions/default.svg", s.url)
    );
    assert_eq!(r.json()["active"], false);
    for bad in ["yes", "", "2", "tru", "on"] {
        let r = s
            .get(&format!("/api/v2/reaction/search/?active={bad}"), None)
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "active={bad}");
        assert_eq!(r.json()["errors"][0]["field"], "active");
    }
}

#[tokio::test]
async fn pagination_rules_and_links() {
    let s = TestServer::start().await;
    let r = s
        .get("/api/v2/reaction/?active=true&limit=2&offset=2", None)
        .await;
    assert_eq!(ids(&r), [3, 4]);
    let j = r.json();
    assert_eq!(j["count"], 6);
    assert_eq!(
        j["next"],
        format!("{}/api/v2/reaction/?active=true&limit=2&offset=4", s.url)
    );
    assert_eq!(
        j["previous"],
        format!("{}/api/v2/reaction/?active=true&limit=2", s.url)
    );
    // following the links walks the list
    let next = s
        .client
        .get(j["next"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    let next = TestServer::read(next).await;
    assert_eq!(ids(&next), [5, 6]);
    assert_eq!(next.json()["next"], Value::Null);
    // clamped to 100
    let r = s.get("/api/v2/reaction/?limit=1000", None).await;
    assert_eq!(ids(&r).len(), 6);
    // beyond the end: empty page, link back
    let r = s.get("/api/v2/reaction/?limit=2&offset=10", None).await;
    assert_eq!(ids(&r), Vec::<i64>::new());
    assert_eq!(r.json()["count"], 6);
    assert_eq!(
        r.json()["previous"],
        format!("{}/api/v2/reaction/?limit=2&offset=8", s.url)
    );
    let lists = [
        "/api/v2/reaction/",
        "/api/v2/reaction/search/",
        "/api/v2/dynamic_preference/",
        "/api/v2/dynamic_preference/search/",
        "/api/v2/user/1/followings/",
        "/api/v2/user/1/followers/",
    ];
    s.user("pager", None, false);
    for list in lists {
        // integers too large for 64 bits saturate: clamped limit, empty page
        let r = s
            .get(
                &format!("{list}?limit=99999999999999999999&offset=99999999999999999999"),
                None,
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{list}");
        assert_eq!(r.json()["results"], json!([]), "{list}");
        assert_eq!(r.json()["next"], Value::Null, "{list}");
        for (qs, field) in [
            ("limit=0", "limit"),
            ("limit=-1", "limit"),
            ("limit=x", "limit"),
            ("limit=", "limit"),
            ("limit=1.5", "limit"),
            ("offset=-1", "offset"),
            ("offset=", "offset"),
            ("offset=x", "offset"),
        ] {
            let r = s.get(&format!("{list}?{qs}"), None).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{list}?{qs}");
            assert_eq!(r.json()["errors"][0]["field"], field, "{list}?{qs}");
        }
    }
}

// ---------------------------------------------------------------- preferences

#[tokio::test]
async fn preferences_are_typed_and_all_in_one_page() {
    let s = TestServer::start().await;
    let total = s
        .state
        .db
        .read_blocking(|c| hearth::db::prefs::list(c, None).map_err(hearth::db::DbError::from))
        .unwrap()
        .len();
    assert!(total > 20);
    for path in [
        "/api/v2/dynamic_preference/",
        "/api/v2/dynamic_preference/search/",
    ] {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::OK);
        let j = r.json();
        assert_eq!(j["count"], total);
        assert_eq!(j["results"].as_array().unwrap().len(), total);
        assert_eq!(j["next"], Value::Null);
        let ids = ids(&r);
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ordered by id");
    }
    let r = s
        .get(
            "/api/v2/dynamic_preference/search/?keys=configurations.content_availability,covers.covers_visibility,no.such",
            None,
        )
        .await;
    let j = r.json();
    assert_eq!(j["count"], 2);
    let by_name: Vec<(&str, &Value)> = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), &p["value"]))
        .collect();
    assert!(by_name.contains(&("content_availability", &json!(true))));
    assert!(
        by_name
            .iter()
            .any(|(n, v)| *n == "covers_visibility" && v.is_i64())
    );
    let one = &j["results"][0];
    let keys: Vec<&String> = one.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4);
    // detail
    let id = one["id"].as_i64().unwrap();
    let r = s
        .get(&format!("/api/v2/dynamic_preference/{id}/"), None)
        .await;
    assert_eq!(r.json(), *one);
    assert_eq!(
        s.get("/api/v2/dynamic_preference/99999/", None)
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn preference_filters_orderings_and_limits() {
    let s = TestServer::start().await;
    let all = s
        .state
        .db
        .read_blocking(|c| hearth::db::prefs::list(c, None).map_err(hearth::db::DbError::from))
        .unwrap();
    let list = |qs: &str| format!("/api/v2/dynamic_preference/search/?{qs}");
    // section (exact)
    let r = s.get(&list("section=colors"), None).await;
    let n = all.iter().filter(|p| p.section == "colors").count();
    assert_eq!(r.json()["count"], n);
    assert!(n > 0);
    assert_eq!(
        s.get(&list("section=COLORS"), None).await.json()["count"],
        0
    );
    // search: section or name, any case
    let r = s.get(&list("search=COLOR"), None).await;
    let n = all
        .iter()
        .filter(|p| p.section.contains("color") || p.name.contains("color"))
        .count();
    assert_eq!(r.json()["count"], n);
    // orderings
    let r = s.get(&list("ordering=-id"), None).await;
    let got = ids(&r);
    assert!(got.windows(2).all(|w| w[0] > w[1]));
    let r = s.get(&list("ordering=section,-name"), None).await;
    let rows: Vec<(String, String)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["section"].as_str().unwrap().to_owned(),
                p["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut want = rows.clone();
    want.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    assert_eq!(rows, want);
    // limit: a page, links keep the other parameters; clamped to 1000
    let r = s.get(&list("section=colors&limit=2&offset=1"), None).await;
    assert_eq!(ids(&r).len(), 2);
    assert_eq!(
        r.json()["next"],
        format!(
            "{}/api/v2/dynamic_preference/search/?section=colors&limit=2&offset=3",
            s.url
        )
    );
    assert_eq!(
        r.json()["previous"],
        format!(
            "{}/api/v2/dynamic_preference/search/?section=colors&limit=2",
            s.url
        )
    );
    let r = s.get(&list("limit=5000"), None).await;
    assert_eq!(ids(&r).len(), all.len());
    assert_eq!(r.json()["next"], Value::Null);
    // 400s
    for (qs, field) in [
        ("ordering=value", "ordering"),
        ("ordering=id,-", "ordering"),
        ("ordering=--id", "ordering"),
        ("ordering=id,", "ordering"),
        ("keys=configurations", "keys"),
        ("keys=configurations.content_availability,colors", "keys"),
        ("keys=.x", "keys"),
    ] {
        let r = s.get(&list(qs), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{qs}");
        assert_eq!(r.json()["errors"][0]["field"], field, "{qs}");
    }
}

#[tokio::test]
async fn patching_preferences_is_staff_only_and_all_or_nothing() {
    let s = TestServer::start().await;
    let staff = s.user("boss", None, true);
    let member = s.user("member", None, false);
    let path = "/api/v2/dynamic_preference/";
    let patch = |token: Option<String>, body: Value| {
        let s = &s;
        async move {
            s.call(Method::PATCH, path, token.as_deref(), Some(body))
                .await
        }
    };
    let body = json!({"configurations.content_availability": false, "covers.covers_visibility": 3});
    // who may
    let r = patch(None, body.clone()).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.error_code(), "not_authenticated");
    let r = patch(Some(s.jwt(member)), body.clone()).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.error_code(), "permission_denied");
    let r = patch(Some(s.oauth_token(staff, "read")), body.clone()).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.error_code(), "insufficient_scope");
    // an anonymous call with a bad body is still 401
    let r = s
        .client
        .patch(format!("{}{path}", s.url))
        .body("nonsense")
        .send()
        .await
        .unwrap();
    assert_eq!(TestServer::read(r).await.status, StatusCode::UNAUTHORIZED);
    // staff
    let r = patch(Some(s.jwt(staff)), body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    let arr = j.as_array().unwrap();
    assert_eq!(arr.len(), 2);
    for p in arr {
        match p["name"].as_str().unwrap() {
            "content_availability" => assert_eq!(p["value"], json!(false)),
            "covers_visibility" => assert_eq!(p["value"], json!(3)),
            other => panic!("unexpected {other}"),
        }
    }
    // wrong types or unknown keys: 400 naming the key, nothing changes
    let cases = [
        (
            json!({"covers.covers_visibility": 5, "configurations.content_availability": "true"}),
            "configurations.content_availability",
        ),
        (
            json!({"covers.covers_visibility": 5, "configurations.content_availability": 1}),
            "configurations.content_availability",
        ),
        (
            json!({"configurations.content_availability": true, "covers.covers_visibility": 1.5}),
            "covers.covers_visibility",
        ),
        (
            json!({"configurations.content_availability": true, "covers.covers_visibility": "5"}),
            "covers.covers_visibility",
        ),
        (
            json!({"configurations.content_availability": true, "no.such_pref": 1}),
            "no.such_pref",
        ),
        (
            json!({"configurations.content_availability": true, "nodot": 1}),
            "nodot",
        ),
    ];
    for (body, key) in cases {
        let r = patch(Some(s.jwt(staff)), body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(r.json()["errors"][0]["field"], key, "{body}");
        let now = s
            .get(
                "/api/v2/dynamic_preference/?keys=configurations.content_availability,covers.covers_visibility",
                Some(&s.jwt(staff)),
            )
            .await;
        let values: Vec<Value> = now.json()["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["value"].clone())
            .collect();
        assert!(values.contains(&json!(false)), "{body}: {values:?}");
        assert!(values.contains(&json!(3)), "{body}: {values:?}");
    }
    // an empty object changes nothing
    let r = patch(Some(s.jwt(staff)), json!({})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), json!([]));
    // not a JSON object
    let r = patch(Some(s.jwt(staff)), json!([1])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s
        .client
        .patch(format!("{}{path}", s.url))
        .bearer_auth(s.jwt(staff))
        .header("Content-Type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(
        TestServer::read(r).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let r = s
        .call(Method::DELETE, path, Some(&s.jwt(staff)), None)
        .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD, PATCH"));
}

// ---------------------------------------------------------------- users and followings

/// a, b, c, d; a follows b, c, d (in that order, one second apart) and b follows a.
async fn community() -> (TestServer, [i64; 4]) {
    let s = TestServer::start().await;
    let a = s.user("alice", None, false);
    let b = s.user("bob", None, false);
    let c = s.user("carol", None, false);
    let d = s.user("dave", None, false);
    for (who, whom) in [(a, b), (a, c), (a, d), (b, a)] {
        s.clock.advance(SECOND);
        let r = s
            .post(
                &format!("/api/v2/user/{whom}/follow/"),
                Some(&s.jwt(who)),
                json!({}),
            )
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
        assert_eq!(r.text, "");
    }
    (s, [a, b, c, d])
}

#[tokio::test]
async fn followings_are_mutual_first_then_newest() {
    let (s, [a, b, c, d]) = community().await;
    let path = format!("/api/v2/user/{a}/followings/");
    let cases = [
        ("", vec![b, d, c]),
        ("?mutual=1", vec![b]),
        ("?mutual=0", vec![d, c]),
    ];
    for (qs, want) in &cases {
        let r = s.get(&format!("{path}{qs}"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{qs}");
        assert_eq!(ids(&r), *want, "{qs}");
        assert_eq!(r.json()["count"], want.len(), "{qs}");
    }
    let r = s.get(&format!("/api/v2/user/{a}/followers/"), None).await;
    assert_eq!(ids(&r), [b]);
    let r = s
        .get(&format!("/api/v2/user/{b}/followers/?mutual=1"), None)
        .await;
    assert_eq!(ids(&r), [a]);
    let r = s
        .get(&format!("/api/v2/user/{c}/followers/?mutual=0"), None)
        .await;
    assert_eq!(ids(&r), [a]);
    // pagination keeps mutual
    let r = s.get(&format!("{path}?mutual=0&limit=1"), None).await;
    assert_eq!(ids(&r), [d]);
    assert_eq!(
        r.json()["next"],
        format!("{}{path}?mutual=0&limit=1&offset=1", s.url)
    );
    for bad in ["true", "2", "", "01", "yes", "-1"] {
        let r = s.get(&format!("{path}?mutual={bad}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "mutual={bad}");
        assert_eq!(r.json()["errors"][0]["field"], "mutual");
    }
    // full User JSON with exact counters
    let r = s.get(&path, None).await;
    let bob = &r.json()["results"][0];
    let keys: Vec<&str> = bob
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 29, "{keys:?}");
    assert!(!keys.contains(&"email"));
    assert_eq!(bob["username"], "bob");
    assert_eq!(bob["followings_counter"], 1);
    assert_eq!(bob["followers_counter"], 1);
    assert_eq!(bob["connection_status"], Value::Null);
    assert_eq!(
        bob["avatar"],
        format!("{}/static/default/avatar.svg", s.url)
    );
    assert_eq!(bob["tags"], json!([]));
    assert_eq!(bob["gender"], "Unspecified");
    let r = s.get(&format!("/api/v2/user/{a}/"), None).await;
    assert_eq!(r.json()["followings_counter"], 3);
    assert_eq!(r.json()["followers_counter"], 1);
    check_is_clean(&s);
}

#[tokio::test]
async fn ties_break_by_user_id_and_deleted_users_vanish() {
    let s = TestServer::start().await;
    let a = s.user("alice", None, false);
    let others: Vec<i64> = (0..4)
        .map(|i| s.user(&format!("u{i}"), None, false))
        .collect();
    // same instant for all four edges, followed in reverse id order
    for &o in others.iter().rev() {
        let r = post_empty(&s, &format!("/api/v2/user/{o}/follow/"), &s.jwt(a)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    }
    let path = format!("/api/v2/user/{a}/followings/");
    assert_eq!(ids(&s.get(&path, None).await), others);
    soft_delete(&s, others[1]);
    let r = s.get(&path, None).await;
    assert_eq!(ids(&r), [others[0], others[2], others[3]]);
    assert_eq!(r.json()["count"], 3);
    let r = s.get(&format!("/api/v2/user/{a}/"), None).await;
    assert_eq!(r.json()["followings_counter"], 3);
    check_is_clean(&s);
    // unknown and deleted users are 404 everywhere
    let t = s.jwt(a);
    let gone = others[1];
    for id in [gone, 9999] {
        for sub in [
            "",
            "followings/",
            "followers/",
            "is_followed/",
            "is_follower/",
        ] {
            let r = s.get(&format!("/api/v2/user/{id}/{sub}"), Some(&t)).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{id}/{sub}");
        }
        let r = s
            .post(&format!("/api/v2/user/{id}/follow/"), Some(&t), json!({}))
            .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "follow {id}");
    }
    assert_eq!(
        s.get("/api/v2/user/abc/followings/", None).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn following_toggles_and_keeps_both_sides_exact() {
    let (s, [a, b, c, _d]) = community().await;
    let ta = s.jwt(a);
    let tb = s.jwt(b);
    let rel = |caller: &str, id: i64, what: &str| {
        let s = &s;
        let caller = caller.to_owned();
        let what = what.to_owned();
        async move {
            let r = s
                .get(&format!("/api/v2/user/{id}/{what}/"), Some(&caller))
                .await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            r.json()[what.as_str()].as_bool().unwrap()
        }
    };
    assert!(rel(&ta, b, "is_followed").await);
    assert!(rel(&ta, b, "is_follower").await);
    assert!(rel(&ta, c, "is_followed").await);
    assert!(!rel(&ta, c, "is_follower").await);
    assert!(!rel(&tb, c, "is_followed").await);
    // a unfollows b: b's edge to a is no longer mutual
    let r = s
        .post(&format!("/api/v2/user/{b}/follow/"), Some(&ta), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert!(!rel(&ta, b, "is_followed").await);
    assert!(rel(&ta, b, "is_follower").await);
    let r = s
        .get(&format!("/api/v2/user/{b}/followings/?mutual=0"), None)
        .await;
    assert_eq!(ids(&r), [a]);
    let r = s
        .get(&format!("/api/v2/user/{b}/followings/?mutual=1"), None)
        .await;
    assert_eq!(r.json()["count"], 0);
    let r = s.get(&format!("/api/v2/user/{a}/"), None).await;
    assert_eq!(r.json()["followings_counter"], 2);
    check_is_clean(&s);
    // and follows again (no body at all, as the SDK posts): mutual again, newest edge
    let r = post_empty(&s, &format!("/api/v2/user/{b}/follow/"), &ta).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s
        .get(&format!("/api/v2/user/{b}/followings/?mutual=1"), None)
        .await;
    assert_eq!(ids(&r), [a]);
    check_is_clean(&s);
    // following yourself
    let r = s
        .post(&format!("/api/v2/user/{a}/follow/"), Some(&ta), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // a body is refused
    let r = s
        .post(
            &format!("/api/v2/user/{c}/follow/"),
            Some(&ta),
            json!({"x": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // auth and scope
    let r = s
        .post(&format!("/api/v2/user/{c}/follow/"), None, json!({}))
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.error_code(), "not_authenticated");
    let r = s
        .post(
            &format!("/api/v2/user/{c}/follow/"),
            Some(&s.oauth_token(a, "read")),
            json!({}),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.error_code(), "insufficient_scope");
    let r = s
        .get(
            &format!("/api/v2/user/{c}/is_followed/"),
            Some(&s.oauth_token(a, "read")),
        )
        .await;
    assert_eq!(r.json(), json!({"is_followed": true}));
    for sub in ["is_followed", "is_follower"] {
        let r = s.get(&format!("/api/v2/user/{c}/{sub}/"), None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{sub}");
        assert_eq!(r.error_code(), "not_authenticated");
    }
    let r = s.get(&format!("/api/v2/user/{c}/follow/"), Some(&ta)).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("POST"));
}

#[tokio::test]
async fn connection_status_is_the_callers_relation() {
    let (s, [a, b, c, d]) = community().await;
    // carol follows dave
    let tc = s.jwt(c);
    s.post(&format!("/api/v2/user/{d}/follow/"), Some(&tc), json!({}))
        .await;
    let r = s
        .get(&format!("/api/v2/user/{a}/followings/"), Some(&tc))
        .await;
    let status: Vec<(i64, Value)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["id"].as_i64().unwrap(), u["connection_status"].clone()))
        .collect();
    assert_eq!(
        status,
        [(b, Value::Null), (d, json!("followed")), (c, Value::Null)]
    );
    let r = s.get(&format!("/api/v2/user/{d}/"), Some(&tc)).await;
    assert_eq!(r.json()["connection_status"], "followed");
    let r = s.get(&format!("/api/v2/user/{d}/"), None).await;
    assert_eq!(r.json()["connection_status"], Value::Null);
    assert_eq!(r.json()["followers_counter"], 2);
}

#[tokio::test]
async fn content_availability_false_needs_a_caller() {
    let (s, [a, ..]) = community().await;
    s.set_pref("configurations", "content_availability", json!(false));
    let ta = s.jwt(a);
    for path in [
        format!("/api/v2/user/{a}/"),
        format!("/api/v2/user/{a}/followings/"),
        format!("/api/v2/user/{a}/followers/"),
    ] {
        let r = s.get(&path, None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(r.error_code(), "not_authenticated");
        assert_eq!(
            s.get(&path, Some(&ta)).await.status,
            StatusCode::OK,
            "{path}"
        );
    }
    // reactions and preferences are not (CA)
    for path in [
        "/api/v2/reaction/search/",
        "/api/v2/dynamic_preference/search/",
    ] {
        assert_eq!(s.get(path, None).await.status, StatusCode::OK, "{path}");
    }
}

#[tokio::test]
async fn bad_tokens_are_401_even_on_public_routes() {
    let s = TestServer::start().await;
    let u = s.user("someone", None, false);
    let bad = crate::common::bad_tokens(&s).await;
    let public = [
        "/api/v2/reaction/search/".to_owned(),
        "/api/v2/reaction/".to_owned(),
        "/api/v2/reaction/1/".to_owned(),
        "/api/v2/dynamic_preference/search/".to_owned(),
        "/api/v2/dynamic_preference/".to_owned(),
        "/api/v2/dynamic_preference/1/".to_owned(),
        format!("/api/v2/user/{u}/"),
        format!("/api/v2/user/{u}/followings/"),
        format!("/api/v2/user/{u}/followers/"),
    ];
    for path in &public {
        for (what, token) in &bad {
            let r = s.get(path, token.as_deref()).await;
            match token {
                None => assert_eq!(r.status, StatusCode::OK, "{path} {what}"),
                Some(_) => {
                    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path} {what}");
                    assert_eq!(r.error_code(), "authentication_failed", "{path} {what}");
                    assert!(
                        r.header("www-authenticate")
                            .unwrap_or("")
                            .contains("invalid_token")
                    );
                }
            }
        }
        // a bad token is 401 before a bad parameter is 400
        let r = s
            .get(&format!("{path}?limit=0"), Some("not-a-token.at.all"))
            .await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
    }
    let protected = [
        (Method::POST, format!("/api/v2/user/{u}/follow/")),
        (Method::GET, format!("/api/v2/user/{u}/is_followed/")),
        (Method::GET, format!("/api/v2/user/{u}/is_follower/")),
        (Method::PATCH, "/api/v2/dynamic_preference/".to_owned()),
    ];
    for (method, path) in &protected {
        for (what, token) in &bad {
            let body = (*method != Method::GET).then(|| json!({}));
            let r = s.call(method.clone(), path, token.as_deref(), body).await;
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{method} {path} {what}");
        }
    }
}

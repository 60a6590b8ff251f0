//! Reactions: the defaults, their images, the search and `active` filters, and the
//! pagination rules every list follows.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{BAD_PAGES, TestServer, texts};

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
            texts(&r.json(), "label"),
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
    s.db_write(|tx| {
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
    });
    let cases: &[(&str, &[&str])] = &[
        ("search=LI", &["like"]),
        ("search=a", &["haha", "sad", "angry", "Clap"]),
        ("search=cla", &["Clap"]),
        ("search=", &["like", "love", "haha", "wow", "sad", "angry", "Clap"]),
        ("active=false", &["Clap"]),
        ("active=FALSE", &["Clap"]),
        ("active=0", &["Clap"]),
        ("active=True&search=a", &["haha", "sad", "angry"]),
        ("active=1&search=zzz", &[]),
    ];
    for (qs, want) in cases {
        let r = s.get(&format!("/api/v2/reaction/search/?{qs}"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{qs}");
        assert_eq!(texts(&r.json(), "label"), *want, "{qs}");
        assert_eq!(r.json()["count"], want.len(), "{qs}");
    }
    let r = s.get("/api/v2/reaction/7/", None).await;
    assert_eq!(r.json()["image"], format!("{}/static/reactions/default.svg", s.url));
    assert_eq!(r.json()["active"], false);
    // a bad `active`: consistency::queries::boolean_query_parameters
}

#[tokio::test]
async fn pagination_rules_and_links() {
    let s = TestServer::start().await;
    let r = s.get("/api/v2/reaction/?active=true&limit=2&offset=2", None).await;
    assert_eq!(r.ids(), [3, 4]);
    let j = r.json();
    assert_eq!(j["count"], 6);
    assert_eq!(j["next"], format!("{}/api/v2/reaction/?active=true&limit=2&offset=4", s.url));
    assert_eq!(j["previous"], format!("{}/api/v2/reaction/?active=true&limit=2", s.url));
    // following the links walks the list
    let next = s.client.get(j["next"].as_str().unwrap()).send().await.unwrap();
    let next = TestServer::read(next).await;
    assert_eq!(next.ids(), [5, 6]);
    assert_eq!(next.json()["next"], Value::Null);
    // clamped to 100
    let r = s.get("/api/v2/reaction/?limit=1000", None).await;
    assert_eq!(r.ids().len(), 6);
    // beyond the end: empty page, link back
    let r = s.get("/api/v2/reaction/?limit=2&offset=10", None).await;
    assert_eq!(r.ids(), Vec::<i64>::new());
    assert_eq!(r.json()["count"], 6);
    assert_eq!(r.json()["previous"], format!("{}/api/v2/reaction/?limit=2&offset=8", s.url));
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
        // integers too large for 64 bits saturate: a clamped limit; an offset past
        // the cap (10,000) is 400, at it an empty page
        let r = s.get(&format!("{list}?limit=99999999999999999999&offset=10000"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{list}");
        assert_eq!(r.json()["results"], json!([]), "{list}");
        assert_eq!(r.json()["next"], Value::Null, "{list}");
        let r = s.get(&format!("{list}?offset=99999999999999999999"), None).await;
        r.assert_field_error("offset", "max_value");
        for (qs, field) in BAD_PAGES {
            let r = s.get(&format!("{list}?{qs}"), None).await;
            r.assert_field_error(field, "invalid");
        }
    }
}

//! Dynamic preferences: typed values in one page, filters and orderings, and the staff-only,
//! all-or-nothing PATCH.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;

#[tokio::test]
async fn preferences_are_typed_and_all_in_one_page() {
    let s = TestServer::start().await;
    let total = s.db_read(|c| hearth::db::preferences::list(c, None)).len();
    assert!(total > 20);
    for path in ["/api/v2/dynamic_preference/", "/api/v2/dynamic_preference/search/"] {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::OK);
        let j = r.json();
        assert_eq!(j["count"], total);
        assert_eq!(j["results"].as_array().unwrap().len(), total);
        assert_eq!(j["next"], Value::Null);
        let ids = r.ids();
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
    assert!(by_name.iter().any(|(n, v)| *n == "covers_visibility" && v.is_i64()));
    let one = &j["results"][0];
    let keys: Vec<&String> = one.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4);
    // detail
    let id = one["id"].as_i64().unwrap();
    let r = s.get(&format!("/api/v2/dynamic_preference/{id}/"), None).await;
    assert_eq!(r.json(), *one);
    assert_eq!(
        s.get("/api/v2/dynamic_preference/99999/", None).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn preference_filters_orderings_and_limits() {
    let s = TestServer::start().await;
    let all = s.db_read(|c| hearth::db::preferences::list(c, None));
    let list = |qs: &str| format!("/api/v2/dynamic_preference/search/?{qs}");
    // section (exact)
    let r = s.get(&list("section=colors"), None).await;
    let n = all.iter().filter(|p| p.section == "colors").count();
    assert_eq!(r.json()["count"], n);
    assert!(n > 0);
    assert_eq!(s.get(&list("section=COLORS"), None).await.json()["count"], 0);
    // search: section or name, any case
    let r = s.get(&list("search=COLOR"), None).await;
    let n = all.iter().filter(|p| p.section.contains("color") || p.name.contains("color")).count();
    assert_eq!(r.json()["count"], n);
    // orderings
    let r = s.get(&list("ordering=-id"), None).await;
    let got = r.ids();
    assert!(got.windows(2).all(|w| w[0] > w[1]));
    let r = s.get(&list("ordering=section,-name"), None).await;
    let rows: Vec<(String, String)> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (p["section"].as_str().unwrap().to_owned(), p["name"].as_str().unwrap().to_owned())
        })
        .collect();
    let mut want = rows.clone();
    want.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    assert_eq!(rows, want);
    // limit: a page, links keep the other parameters; clamped to 1000
    let r = s.get(&list("section=colors&limit=2&offset=1"), None).await;
    assert_eq!(r.ids().len(), 2);
    assert_eq!(
        r.json()["next"],
        format!("{}/api/v2/dynamic_preference/search/?section=colors&limit=2&offset=3", s.url)
    );
    assert_eq!(
        r.json()["previous"],
        format!("{}/api/v2/dynamic_preference/search/?section=colors&limit=2", s.url)
    );
    let r = s.get(&list("limit=5000"), None).await;
    assert_eq!(r.ids().len(), all.len());
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
        async move { s.patch(path, token.as_deref(), body).await }
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
    let r = s.client.patch(format!("{}{path}", s.url)).body("nonsense").send().await.unwrap();
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
        (json!({"configurations.content_availability": true, "no.such_pref": 1}), "no.such_pref"),
        (json!({"configurations.content_availability": true, "nodot": 1}), "nodot"),
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
        let values: Vec<Value> =
            now.json()["results"].as_array().unwrap().iter().map(|p| p["value"].clone()).collect();
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
    assert_eq!(TestServer::read(r).await.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let r = s.delete(path, Some(&s.jwt(staff))).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD, PATCH"));
}

#[tokio::test]
async fn logos_are_absolute_urls_with_a_served_default_and_polls_are_off() {
    let s = TestServer::start().await;
    let got = |key: &'static str| {
        let s = &s;
        async move {
            let r = s.get(&format!("/api/v2/dynamic_preference/?keys={key}"), None).await;
            r.json()["results"][0]["value"].clone()
        }
    };
    // unset: hearth's own logo, as an absolute URL that serves an image
    let logo = got("logo.navbar_logo").await;
    assert_eq!(logo, format!("{}/static/default/logo.svg", s.url));
    let r = s.get("/static/default/logo.svg", None).await;
    assert_eq!((r.status, r.header("content-type")), (StatusCode::OK, Some("image/svg+xml")));
    // a local path is made absolute, an absolute URL kept
    s.set_pref("logo", "navbar_logo", json!("/media/logo.png"));
    assert_eq!(got("logo.navbar_logo").await, format!("{}/media/logo.png", s.url));
    s.set_pref("logo", "logo_dark", json!("https://cdn.example.org/l.png"));
    assert_eq!(got("logo.logo_dark").await, "https://cdn.example.org/l.png");
    // hearth keeps no polls: the kit must not offer them
    assert_eq!(got("addons.polls_enabled").await, false);
}

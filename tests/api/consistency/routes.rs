//! Routes alike everywhere: `content_availability` on every (CA) read, trailing slashes.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{contributions, course_with_section, created, start};

/// Every read marked (CA) in SPEC §5 needs a caller when `content_availability` is off;
/// the public reads (reactions, preferences) do not.
#[tokio::test]
async fn content_availability_applies_to_every_ca_read() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let (d, p, st, c) = contributions(&s, t).await;
    let (course, sec) = course_with_section(&s, t, "C").await;
    let ca = [
        format!("/api/v2/user/{}/", w.bob),
        format!("/api/v2/user/{}/followings/", w.bob),
        format!("/api/v2/user/{}/followers/", w.bob),
        "/api/v2/discussion/".into(),
        format!("/api/v2/discussion/{d}/"),
        "/api/v2/post/".into(),
        format!("/api/v2/post/{p}/"),
        "/api/v2/status/".into(),
        format!("/api/v2/status/{st}/"),
        "/api/v2/comment/".into(),
        format!("/api/v2/comment/{c}/"),
        format!("/api/v2/course/{course}/"),
        format!("/api/v2/course/{course}/status/"),
        "/api/v2/course/search/".into(),
        format!("/api/v2/course/{course}/section/"),
        format!("/api/v2/course/{course}/section/{sec}/"),
        // SPEC §8
        format!("/api/v2/discussion/{d}/vote/"),
        format!("/api/v2/post/{p}/vote/"),
        format!("/api/v2/status/{st}/vote/"),
        format!("/api/v2/comment/{c}/vote/"),
        format!("/api/v2/discussion/{d}/contributors/"),
        format!("/api/v2/post/{p}/contributors/"),
        format!("/api/v2/status/{st}/contributors/"),
        "/api/v2/category/".into(),
        "/api/v2/category/popular/".into(),
        format!("/api/v2/category/{}/", w.cat),
        format!("/api/v2/user/{}/categories/", w.bob),
        format!("/api/v2/user/{}/courses/", w.ann),
    ];
    let public = [
        "/api/v2/feature/",
        "/api/v2/reaction/search/",
        "/api/v2/reaction/1/",
        "/api/v2/dynamic_preference/",
        "/api/v2/dynamic_preference/search/",
    ];
    for path in ca.iter().map(String::as_str).chain(public) {
        assert_eq!(s.get(path, None).await.status, StatusCode::OK, "{path}");
    }
    s.set_pref("configurations", "content_availability", json!(false));
    for path in &ca {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(r.error_code(), "not_authenticated", "{path}");
        assert_eq!(r.header("www-authenticate"), Some(r#"Bearer realm="api""#));
        assert_eq!(s.get(path, Some(&w.bob_t)).await.status, StatusCode::OK, "{path}");
    }
    // authentication comes before existence: an unknown id is 401 too
    for path in &ca {
        let unknown = path
            .split('/')
            .map(|seg| {
                let id = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
                if id { "999999" } else { seg }
            })
            .collect::<Vec<_>>()
            .join("/");
        if unknown == *path {
            continue;
        }
        let r = s.get(&unknown, None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{unknown}");
        assert_eq!(r.error_code(), "not_authenticated", "{unknown}");
    }
    for path in public {
        assert_eq!(s.get(path, None).await.status, StatusCode::OK, "{path}");
    }
}

/// SPEC §3: API paths only with their trailing slash, except the two slashless forms.
#[tokio::test]
async fn trailing_slash_rules() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let p = created(s.post("/api/v2/post/", Some(t), json!({"text": "p"})).await).await;
    let c =
        created(s.post("/api/v2/comment/", Some(t), json!({"text": "c", "post": p})).await).await;
    let (course, sec) = course_with_section(&s, t, "C").await;
    let b = w.bob;
    for path in [
        "/api/v2/user/me".to_owned(),
        format!("/api/v2/user/{b}"),
        format!("/api/v2/user/{b}/followings"),
        format!("/api/v2/user/{b}/followers"),
        format!("/api/v2/user/{b}/follow"),
        format!("/api/v2/user/{b}/is_followed"),
        format!("/api/v2/user/{b}/is_follower"),
        "/api/v2/reaction".into(),
        "/api/v2/reaction/search".into(),
        "/api/v2/reaction/1".into(),
        "/api/v2/dynamic_preference".into(),
        "/api/v2/dynamic_preference/search".into(),
        "/api/v2/dynamic_preference/1".into(),
        "/api/v2/jwt/verify_token".into(),
        "/api/v2/post".into(),
        format!("/api/v2/post/{p}"),
        format!("/api/v2/post/{p}/restore"),
        format!("/api/v2/comment/{c}"),
        "/api/v2/course".into(),
        "/api/v2/course/search".into(),
        format!("/api/v2/course/{course}"),
        format!("/api/v2/course/{course}/join"),
        format!("/api/v2/course/{course}/status"),
        format!("/api/v2/course/{course}/invite"),
        format!("/api/v2/course/{course}/request_join"),
        format!("/api/v2/course/{course}/role"),
        format!("/api/v2/course/{course}/section"),
        format!("/api/v2/course/{course}/section/{sec}"),
        "/oauth/token".into(),
        "/oauth/revoke_token".into(),
        "/accounts/login".into(),
        "/accounts/logout".into(),
        "/healthz/".into(),
        "/api/v2/schema".into(),
        // SPEC §8
        "/api/v2/feature".into(),
        format!("/api/v2/post/{p}/vote"),
        format!("/api/v2/comment/{c}/vote"),
        format!("/api/v2/post/{p}/contributors"),
        "/api/v2/category".into(),
        "/api/v2/category/popular".into(),
        "/api/v2/category/1/follow".into(),
        format!("/api/v2/user/{b}/categories"),
        format!("/api/v2/user/{b}/courses"),
        format!("/api/v2/user/{b}/hide"),
        "/api/v2/user/hidden_users_id".into(),
        format!("/api/v2/user/{b}/settings"),
    ] {
        for m in [Method::GET, Method::POST] {
            let r = s.call(m.clone(), &path, Some(t), None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{m} {path}: {}", r.text);
        }
    }
    // ids that are not integers match no route, before any authentication
    for path in [
        "/api/v2/user/x/",
        "/api/v2/post/1.5/",
        "/api/v2/course/abc/join/",
        "/api/v2/comment/x/restore",
    ] {
        let r = s.call(Method::POST, path, None, None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
    }
    // the two slashless forms
    let r = s.call(Method::POST, &format!("/api/v2/comment/{c}/restore"), Some(t), None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = s.get("/oauth/authorize", None).await;
    assert_ne!(r.status, StatusCode::NOT_FOUND);
}

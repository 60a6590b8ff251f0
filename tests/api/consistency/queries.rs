//! Query parameters alike everywhere: pagination, booleans, and bad list parameters.

use reqwest::StatusCode;

use super::{open_course, start};
use crate::common::{BAD_BOOLEANS, BAD_PAGES, TestServer};

/// Pagination errors are the same 400 on every paginated list.
#[tokio::test]
async fn pagination_errors_are_the_same_everywhere() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let course = open_course(&s, t, "C").await;
    let lists = [
        "/api/v2/reaction/search/".to_owned(),
        "/api/v2/reaction/".into(),
        "/api/v2/dynamic_preference/search/".into(),
        "/api/v2/dynamic_preference/".into(),
        format!("/api/v2/user/{}/followings/", w.bob),
        format!("/api/v2/user/{}/followers/", w.bob),
        "/api/v2/discussion/".into(),
        "/api/v2/post/".into(),
        "/api/v2/status/".into(),
        "/api/v2/comment/".into(),
        "/api/v2/course/".into(),
        "/api/v2/course/search/".into(),
        format!("/api/v2/course/{course}/join/"),
        format!("/api/v2/course/{course}/invite/"),
        format!("/api/v2/course/{course}/request_join/"),
    ];
    let mut failures = Vec::new();
    for list in &lists {
        let r = s.get(list, Some(t)).await;
        assert_eq!(r.status, StatusCode::OK, "{list}: {}", r.text);
        for (q, field) in BAD_PAGES {
            let r = s.get(&format!("{list}?{q}"), Some(t)).await;
            let j = r.json();
            if r.status != StatusCode::BAD_REQUEST
                || j["errors"][0]["field"] != field
                || r.error_code() != "invalid"
            {
                failures.push(format!("{list}?{q}: {} {}", r.status, r.text));
            }
        }
        let r = s.get(&format!("{list}?limit=1000000&offset=0"), Some(t)).await;
        if r.status != StatusCode::OK {
            failures.push(format!("{list} big limit: {} {}", r.status, r.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Boolean query parameters accept true/false/1/0 in any case; anything else is 400.
#[tokio::test]
async fn boolean_query_parameters() {
    let s = TestServer::start().await;
    for v in ["true", "FALSE", "1", "0", "True"] {
        let r = s.get(&format!("/api/v2/reaction/search/?active={v}"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{v}");
    }
    for v in BAD_BOOLEANS {
        let r = s.get(&format!("/api/v2/reaction/search/?active={v}"), None).await;
        r.assert_field_error("active", "invalid");
    }
}

/// A bad list parameter is a 400 naming that parameter, with the same code for the same
/// kind of mistake in every area (`invalid_choice` for a value outside a fixed set,
/// `invalid` for a malformed one).
#[tokio::test]
async fn bad_list_parameters_name_their_field() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let course = open_course(&s, t, "C").await;
    for (path, field, code) in [
        ("/api/v2/reaction/search/?active=maybe".to_owned(), "active", "invalid"),
        ("/api/v2/dynamic_preference/?ordering=value".into(), "ordering", "invalid_choice"),
        ("/api/v2/dynamic_preference/?keys=nodot".into(), "keys", "invalid"),
        (format!("/api/v2/user/{}/followers/?mutual=true", w.bob), "mutual", "invalid_choice"),
        ("/api/v2/comment/?discussion=abc".into(), "discussion", "invalid"),
        ("/api/v2/course/?statuses=nope".into(), "statuses", "invalid_choice"),
        ("/api/v2/course/search/?ordering=value".into(), "ordering", "invalid_choice"),
        ("/api/v2/course/search/?categories=abc".into(), "categories", "invalid"),
        (format!("/api/v2/course/{course}/join/?statuses=nope"), "statuses", "invalid_choice"),
    ] {
        let r = s.get(&path, Some(t)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {}", r.text);
        assert_eq!(r.json()["errors"][0]["field"], field, "{path}: {}", r.text);
        assert_eq!(r.error_code(), code, "{path}: {}", r.text);
        assert_eq!(r.json()["detail"], "Invalid input.", "{path}");
    }
}

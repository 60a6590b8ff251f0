//! `GET|PATCH /api/v2/user/{id}/settings/`: documented defaults, per-field validation,
//! all or nothing, the caller's own only.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::start;
use crate::common::TestServer;

fn defaults() -> serde_json::Value {
    json!({"qa_frequency": 1, "email_notification_not_qa": 1, "mobile_notifications_scmty": 1,
           "show_toast_notifications": 1, "toast_notifications_emit_sound": 1})
}

async fn patch(s: &TestServer, id: i64, t: &str, body: serde_json::Value) -> crate::common::Resp {
    s.patch(&format!("/api/v2/user/{id}/settings/"), Some(t), body).await
}

#[tokio::test]
async fn settings_start_at_their_defaults_and_keep_what_is_patched() {
    let (s, w) = start().await;
    let path = format!("/api/v2/user/{}/settings/", w.bob);
    let r = s.get(&path, Some(&w.bob_t)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json(), defaults());
    let r = patch(&s, w.bob, &w.bob_t, json!({"qa_frequency": -1, "show_toast_notifications": 0}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut want = defaults();
    want["qa_frequency"] = json!(-1);
    want["show_toast_notifications"] = json!(0);
    assert_eq!(r.json(), want, "the whole object");
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.json(), want);
    // again, and an empty patch changes nothing
    let r = patch(&s, w.bob, &w.bob_t, json!({"qa_frequency": 0})).await;
    want["qa_frequency"] = json!(0);
    assert_eq!(r.json(), want);
    assert_eq!(patch(&s, w.bob, &w.bob_t, json!({})).await.json(), want);
    // per user
    assert_eq!(
        s.get(&format!("/api/v2/user/{}/settings/", w.cy), Some(&w.cy_t)).await.json(),
        defaults()
    );
}

#[tokio::test]
async fn bad_settings_are_400_on_their_field_and_nothing_is_stored() {
    let (s, w) = start().await;
    for (body, field, code) in [
        (json!({"qa_frequency": "1"}), "qa_frequency", "invalid"),
        (json!({"qa_frequency": 1.5}), "qa_frequency", "invalid"),
        (json!({"qa_frequency": true}), "qa_frequency", "invalid"),
        (json!({"qa_frequency": null}), "qa_frequency", "invalid"),
        (json!({"qa_frequency": 2}), "qa_frequency", "invalid_choice"),
        (json!({"show_toast_notifications": -1}), "show_toast_notifications", "invalid_choice"),
        (json!({"theme": 1}), "theme", "invalid"),
    ] {
        let r = patch(&s, w.bob, &w.bob_t, body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        assert_eq!(r.json()["errors"][0]["field"], field, "{body}");
        assert_eq!(r.error_code(), code, "{body}");
    }
    // every error at once; the valid key of a bad body is not stored either
    let r = patch(
        &s,
        w.bob,
        &w.bob_t,
        json!({"qa_frequency": 0, "x": 1, "mobile_notifications_scmty": "no"}),
    )
    .await;
    let errors = r.json()["errors"].clone();
    let fields: Vec<&str> =
        errors.as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap()).collect();
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(fields, ["mobile_notifications_scmty", "x"], "{}", r.text);
    let path = format!("/api/v2/user/{}/settings/", w.bob);
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.json(), defaults());
    // not an object, not JSON, not JSON's type
    for (ct, body, status) in [
        ("application/json", "[1]", StatusCode::BAD_REQUEST),
        ("application/json", "{", StatusCode::BAD_REQUEST),
        ("text/plain", "qa_frequency=1", StatusCode::UNSUPPORTED_MEDIA_TYPE),
    ] {
        let r = s.raw(Method::PATCH, &path, Some(&w.bob_t), Some(ct), Some(body.into())).await;
        assert_eq!(r.status, status, "{ct} {body}: {}", r.text);
    }
    assert_eq!(s.get(&path, Some(&w.bob_t)).await.json(), defaults());
}

#[tokio::test]
async fn only_the_caller_reads_and_changes_its_settings() {
    let (s, w) = start().await;
    let bobs = format!("/api/v2/user/{}/settings/", w.bob);
    // another user's id (or one that does not exist) is 403, before the body is read
    for path in [bobs.as_str(), "/api/v2/user/999/settings/"] {
        s.get(path, Some(&w.cy_t)).await.assert_error(StatusCode::FORBIDDEN, "permission_denied");
        let r = s.patch(path, Some(&w.cy_t), json!({"qa_frequency": 0})).await;
        r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
        let r =
            s.raw(Method::PATCH, path, Some(&w.cy_t), Some("text/plain"), Some("x".into())).await;
        r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    }
    // anonymous 401, a bad token 401, a read-only token reads but does not write
    s.get(&bobs, None).await.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    let r = s.patch(&bobs, None, json!({"qa_frequency": 0})).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
    s.get(&bobs, Some("nope"))
        .await
        .assert_error(StatusCode::UNAUTHORIZED, "authentication_failed");
    let read = s.oauth_token(w.bob, "read");
    assert_eq!(s.get(&bobs, Some(&read)).await.json(), defaults());
    let r = s.patch(&bobs, Some(&read), json!({"qa_frequency": 0})).await;
    r.assert_error(StatusCode::FORBIDDEN, "insufficient_scope");
    assert_eq!(s.get(&bobs, Some(&w.bob_t)).await.json(), defaults(), "nothing changed");
    let r = s.put(&bobs, Some(&w.bob_t), defaults()).await;
    assert_eq!(
        (r.status, r.header("allow")),
        (StatusCode::METHOD_NOT_ALLOWED, Some("GET, HEAD, PATCH"))
    );
}

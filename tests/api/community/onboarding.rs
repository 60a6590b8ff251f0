//! Onboarding (SPEC §10, issue 32): staff read the six steps of the kit's widget and
//! record them started and completed; hearth generates nothing, so starting the
//! "contents" and "categories" steps is refused; members get 403.

use reqwest::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn staff_start_and_complete_steps_and_nothing_is_generated() {
    let s = TestServer::start().await;
    let staff = s.jwt(s.user("moira", None, true));
    let (_, b) = s.login("bob");
    let r = s.get("/api/v2/onboarding/", Some(&staff)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    let steps: Vec<(i64, String, String)> = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().unwrap(),
                s["step"].as_str().unwrap().into(),
                s["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(j["count"], json!(6));
    assert_eq!(steps[0], (1, "contents".into(), "not_started".into()));
    assert_eq!(steps[5], (6, "app".into(), "not_started".into()));
    assert_eq!(j["results"][0]["results"], json!([]));
    // members: 403
    s.get("/api/v2/onboarding/", Some(&b))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    s.get("/api/v2/onboarding/3/", Some(&b))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    s.post("/api/v2/onboarding/3/complete/", Some(&b), json!({}))
        .await
        .assert_error(StatusCode::FORBIDDEN, "permission_denied");
    // the generated steps cannot be started, and say why
    for id in [1, 2] {
        let r = s
            .post(
                &format!("/api/v2/onboarding/{id}/start/"),
                Some(&staff),
                json!({"num_posts": 10}),
            )
            .await;
        r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
        assert!(r.text.contains("does not generate"), "{}", r.text);
    }
    // appearance: started, then completed (100%); starting again keeps it completed
    let r = s.post("/api/v2/onboarding/3/start/", Some(&staff), json!({})).await;
    assert_eq!(
        (r.status, r.json()["status"].clone()),
        (StatusCode::OK, json!("in_progress")),
        "{}",
        r.text
    );
    let r = s.post("/api/v2/onboarding/3/complete/", Some(&staff), json!({})).await;
    assert_eq!(r.json()["status"], json!("completed"));
    assert_eq!(r.json()["completion_percentage"], json!(100));
    let r = s.post("/api/v2/onboarding/3/start/", Some(&staff), json!({})).await;
    assert_eq!(r.json()["status"], json!("completed"));
    // a generated step is completed by hand
    let r = s.post("/api/v2/onboarding/1/complete/", Some(&staff), json!({})).await;
    assert_eq!(r.json()["status"], json!("completed"));
    let r = s.get("/api/v2/onboarding/1/", Some(&staff)).await;
    assert_eq!(
        (r.json()["step"].clone(), r.json()["status"].clone()),
        (json!("contents"), json!("completed"))
    );
    // unknown steps: 404
    for path in ["/api/v2/onboarding/7/", "/api/v2/onboarding/0/"] {
        s.get(path, Some(&staff)).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    }
    s.post("/api/v2/onboarding/9/complete/", Some(&staff), json!({}))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let left: Vec<String> = s.get("/api/v2/onboarding/", Some(&staff)).await.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        left,
        ["completed", "not_started", "completed", "not_started", "not_started", "not_started"]
    );
}

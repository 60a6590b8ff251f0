//! A member edits their own profile (the kit's settings page: `PATCH /api/v2/user/{id}/`).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::TestServer;

#[tokio::test]
async fn a_member_edits_their_own_profile_field_by_field() {
    let s = TestServer::start().await;
    let (ann, a) = s.login("ann");
    let (bob, b) = s.login("bob");
    let path = format!("/api/v2/user/{ann}/");
    // what the settings page sends: the fields it edited
    let bio = "Baker <img src=x onerror=alert(1)>\nand gardener";
    let r = s
        .patch(&path, Some(&a), json!({"real_name": " Ann Smith ", "bio": bio, "website": "https://ann.example",
                                        "date_of_birth": "1990-02-03", "description": "d", "gender": "Female"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!((j["real_name"].clone(), j["bio"].clone()), (json!("Ann Smith"), json!(bio)));
    assert_eq!(
        (j["website"].clone(), j["date_of_birth"].clone()),
        (json!("https://ann.example"), json!("1990-02-03"))
    );
    assert!(j["email"].is_string(), "the caller's own JSON");
    // read back by anyone, the others untouched
    let back = s.get(&path, Some(&b)).await.json();
    assert_eq!(
        (back["bio"].clone(), back["gender"].clone(), back["location"].clone()),
        (json!(bio), json!("Female"), json!(""))
    );
    // PUT is the same edit; null clears
    let r = s.put(&path, Some(&a), json!({"date_of_birth": null, "location": "Rome"})).await;
    assert_eq!(
        (r.json()["date_of_birth"].clone(), r.json()["location"].clone()),
        (Value::Null, json!("Rome"))
    );
    // read-only fields are ignored, as the object read is sent back
    let r =
        s.patch(&path, Some(&a), json!({"username": "mallory", "id": 99, "email": "x@y.z"})).await;
    assert_eq!((r.status, r.json()["username"].clone()), (StatusCode::OK, json!("ann")));

    // every bad field at once, nothing changed
    let r = s
        .patch(&path, Some(&a), json!({"website": "javascript:alert(1)", "date_of_birth": "3/2/1990",
                                        "bio": "ok", "is_staff": true, "real_name": "x".repeat(256)}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let mut fields: Vec<String> = r.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect();
    fields.sort();
    assert_eq!(fields, ["date_of_birth", "is_staff", "real_name", "website"]);
    assert_eq!(s.get(&path, None).await.json()["bio"], json!(bio), "all or nothing");

    // another member's profile: 403; no token, a bad one, a read-only one: refused
    let r = s.patch(&format!("/api/v2/user/{bob}/"), Some(&a), json!({"bio": "pwned"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(s.get(&format!("/api/v2/user/{bob}/"), None).await.json()["bio"], "");
    assert_eq!(s.patch(&path, None, json!({"bio": "x"})).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        s.patch(&path, Some("nope"), json!({"bio": "x"})).await.status,
        StatusCode::UNAUTHORIZED
    );
    let read_only = s.oauth_token(ann, "read");
    assert_eq!(
        s.patch(&path, Some(&read_only), json!({"bio": "x"})).await.status,
        StatusCode::FORBIDDEN
    );
    let r = s.call(Method::PATCH, &path, Some(&a), Some(json!(["not", "an", "object"]))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

//! Single sign-on (`/api/v2/sso/`) and linked identities (`/api/v2/user/{id}/provider/`,
//! issue 32): staff make an integration's members and link identities; a member reads
//! and removes their own, nobody else's.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

/// A DELETE with a JSON body.
async fn unlink(s: &TestServer, id: i64, tok: Option<&str>, body: Value) -> Resp {
    let path = format!("/api/v2/user/{id}/provider/");
    s.raw(Method::DELETE, &path, tok, Some("application/json"), Some(body.to_string().into_bytes()))
        .await
}

/// Staff make a member with an integration's id, a password and a tag; the member signs
/// in with the password and a JWT, and `signin` tells who they are. The form's rules
/// hold, taken names, addresses and ext_ids are refused, and only staff make members.
#[tokio::test]
async fn staff_make_an_integrations_member_who_then_signs_in() {
    let s = TestServer::start().await;
    let admin = s.user("admin", None, true);
    let member = s.user("mia", None, false);
    let (ta, tm) = (s.jwt(admin), s.jwt(member));
    let tag =
        s.create("/api/v2/tag/", &ta, json!({"name": "Partners"})).await["id"].as_i64().unwrap();
    let body = json!({"username": "crm_ada", "email": "ada@example.org", "password": "correct horse",
                      "ext_id": 4711, "tags": [tag]});
    let made = s.create("/api/v2/sso/signup/", &ta, body.clone()).await;
    let id = made["id"].as_i64().unwrap();
    assert_eq!(
        made,
        json!({"id": id, "ext_id": 4711, "username": "crm_ada", "email": "ada@example.org",
               "role": null, "tags": [tag]})
    );
    // the integration's JWT (the shared secret) signs the member in
    let me = s.post_empty("/api/v2/sso/signin/", Some(&s.jwt(id))).await;
    assert_eq!(me.status, 200, "{}", me.text);
    assert_eq!(
        me.json(),
        json!({"id": id, "ext_id": 4711, "username": "crm_ada", "role": null, "tags": [tag]})
    );
    let admin_me = s.post_empty("/api/v2/sso/signin/", Some(&ta)).await.json();
    assert_eq!((admin_me["role"].as_str(), admin_me["ext_id"].is_null()), (Some("admin"), true));
    // a real account: its password is stored hashed, never as given
    let stored: String =
        s.db_read(|c| c.query_row("SELECT password FROM user WHERE id = ?1", [id], |r| r.get(0)));
    assert!(stored.starts_with("pbkdf2_sha256$") && !stored.contains("correct horse"), "{stored}");
    // taken: the username (any case), the address, the ext_id (as text too)
    for (change, field) in [
        (json!({"username": "CRM_Ada", "email": "x@example.org", "ext_id": null}), "username"),
        (json!({"username": "other", "email": "ADA@example.org", "ext_id": null}), "email"),
        (json!({"username": "other", "email": "x@example.org", "ext_id": "4711"}), "ext_id"),
    ] {
        let mut b = body.clone();
        b.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
        s.post("/api/v2/sso/signup/", Some(&ta), b).await.assert_field_error(field, "unique");
    }
    // the form's rules, field by field
    for (bad, field) in [
        (json!({"username": "<b>x</b>", "email": "b@example.org"}), "username"),
        (json!({"username": "bee", "email": "not mail"}), "email"),
        (json!({"username": "bee", "email": "b@example.org", "password": "short"}), "password"),
        (json!({"username": "bee", "email": "b@example.org", "role": "moderator"}), "role"),
        (json!({"username": "bee", "email": "b@example.org", "tags": [999]}), "tags"),
        (json!({"username": "bee", "email": "b@example.org", "tags": vec![tag; 51]}), "tags"),
        (json!({"username": "bee", "email": "b@example.org", "ext_id": "a\u{0}b"}), "ext_id"),
        (json!({"username": "bee", "email": "b@example.org", "ext_id": "x".repeat(256)}), "ext_id"),
        (json!({"username": "bee", "email": "b@example.org", "is_staff": true}), "is_staff"),
    ] {
        let r = s.post("/api/v2/sso/signup/", Some(&ta), bad).await;
        assert_eq!(r.status, 400, "{field}: {}", r.text);
        assert!(r.text.contains(field), "{field}: {}", r.text);
    }
    // only staff
    let r = s
        .post(
            "/api/v2/sso/signup/",
            Some(&tm),
            json!({"username": "bee", "email": "b@example.org"}),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(s.post("/api/v2/sso/signin/", None, json!({})).await.status, 401);
    // staff made with role admin are staff
    let boss = s
        .create(
            "/api/v2/sso/signup/",
            &ta,
            json!({"username": "boss", "email": "boss@example.org", "role": "admin"}),
        )
        .await;
    assert_eq!(boss["role"], "admin");
    s.assert_consistent();
    s.stop().await;
}

/// Staff link identities; the member and staff list them, nobody else; the member
/// removes one; an identity names one member; hostile values are refused; the export
/// carries them and erasing the account takes them.
#[tokio::test]
async fn linked_identities_are_the_members_and_staffs_alone() {
    let s = TestServer::start().await;
    let admin = s.user("admin", None, true);
    let [m, other] = s.users(["mia", "olaf"]);
    let (ta, tm, to) = (s.jwt(admin), s.jwt(m), s.jwt(other));
    let path = format!("/api/v2/user/{m}/provider/");
    assert_eq!(s.get(&path, Some(&tm)).await.json(), json!([]));
    let link = json!({"user_id": m, "provider": "google", "ext_id": "g-123",
                      "profile_url": "https://example.org/mia", "show_in_profile": true,
                      "metadata": {"locale": "it"}});
    let made = s.create(&path, &ta, link.clone()).await;
    assert_eq!(made, link);
    // a member cannot link (hearth cannot check they own it), not even their own
    let r = s.post(&path, Some(&tm), json!({"provider": "facebook", "ext_id": "f-1"})).await;
    assert_eq!(r.status, 403, "{}", r.text);
    // the member and staff read; another member is 403; a deleted member is 404
    assert_eq!(s.get(&path, Some(&tm)).await.json(), json!([link]));
    assert_eq!(s.get(&path, Some(&ta)).await.json(), json!([link]));
    assert_eq!(s.status(&path, Some(&to)).await, 403);
    assert_eq!(s.status(&path, None).await, 401);
    // refused: a second google, the same id for someone else, hostile values
    let other_path = format!("/api/v2/user/{other}/provider/");
    s.post(&path, Some(&ta), json!({"provider": "google", "ext_id": "g-9"}))
        .await
        .assert_field_error("provider", "unique");
    s.post(&other_path, Some(&ta), json!({"provider": "google", "ext_id": "g-123"}))
        .await
        .assert_field_error("ext_id", "unique");
    for (bad, field) in [
        (json!({"provider": "Google!", "ext_id": "x"}), "provider"),
        (json!({"provider": "x".repeat(33), "ext_id": "x"}), "provider"),
        (json!({"provider": "github"}), "ext_id"),
        (
            json!({"provider": "github", "ext_id": "x", "profile_url": "javascript:alert(1)"}),
            "profile_url",
        ),
        (json!({"provider": "github", "ext_id": "x", "profile_url": "/local"}), "profile_url"),
        (json!({"provider": "github", "ext_id": "x", "metadata": "<script>"}), "metadata"),
        (
            json!({"provider": "github", "ext_id": "x", "metadata": {"a": "x".repeat(5000)}}),
            "metadata",
        ),
        (json!({"provider": "github", "ext_id": "x", "user_id": other}), "user_id"),
    ] {
        let r = s.post(&path, Some(&ta), bad).await;
        assert_eq!(r.status, 400, "{field}: {}", r.text);
        assert!(r.text.contains(field), "{field}: {}", r.text);
    }
    // at most 16 a member
    for i in 0..15 {
        s.create(&path, &ta, json!({"provider": format!("p{i}"), "ext_id": "same"})).await;
    }
    let r = s.post(&path, Some(&ta), json!({"provider": "p99", "ext_id": "y"})).await;
    assert_eq!(r.status, 400, "{}", r.text);
    // another member cannot unlink it; the member does; then it is gone (404)
    assert_eq!(unlink(&s, m, Some(&to), json!({"provider": "google"})).await.status, 403);
    assert_eq!(
        unlink(&s, m, Some(&tm), json!({"provider": "google", "user_id": m})).await.status,
        204
    );
    assert_eq!(unlink(&s, m, Some(&tm), json!({"provider": "google"})).await.status, 404);
    assert_eq!(s.get(&path, Some(&tm)).await.json().as_array().unwrap().len(), 15);
    // erasing the account takes them
    assert_eq!(s.delete(&format!("/api/v2/user/{m}/"), Some(&tm)).await.status, 204);
    assert_eq!(
        s.db_read(|c| c.query_row(
            "SELECT count(*) FROM user_provider WHERE user_id = ?1",
            [m],
            |r| r.get::<_, i64>(0)
        )),
        0
    );
    s.assert_consistent();
    s.stop().await;
}

/// 50 parallel links of one external id to 50 members: exactly one is taken.
#[tokio::test]
async fn one_external_id_links_one_member_under_50_parallel_staff_requests() {
    let s = TestServer::start().await;
    let ta = s.jwt(s.user("admin", None, true));
    let ids: Vec<i64> = (0..50).map(|i| s.user(&format!("m{i}"), None, false)).collect();
    let paths: Vec<String> = ids.iter().map(|id| format!("/api/v2/user/{id}/provider/")).collect();
    let answers = futures_util::future::join_all(
        paths.iter().map(|p| s.post(p, Some(&ta), json!({"provider": "sso", "ext_id": "shared"}))),
    )
    .await;
    assert_eq!(answers.iter().filter(|r| r.status == 201).count(), 1);
    assert!(answers.iter().all(|r| r.status == 201 || r.status == 400));
    assert_eq!(s.db_read(|c| c.query_row("SELECT count(*) FROM user_provider", [], |r| r.get::<_, i64>(0))), 1);
    s.stop().await;
}

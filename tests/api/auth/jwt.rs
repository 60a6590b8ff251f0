//! JWTs over HTTP: the rules of SPEC §4, the grace period after a key rotation, and
//! `verify_token`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hearth::clock::SECOND;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::common::TestServer;

fn sign(header: &str, payload: &str, secret: &str) -> String {
    let input = format!("{}.{}", URL_SAFE_NO_PAD.encode(header), URL_SAFE_NO_PAD.encode(payload));
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
    let sig = ring::hmac::sign(&key, input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
}

const HS256: &str = r#"{"alg":"HS256","typ":"JWT"}"#;

#[tokio::test]
async fn jwt_rules_over_http() {
    let s = TestServer::start().await;
    let ann = s.user("ann", None, false);
    let secret = s.jwt_secret();
    let now = s.clock.now_secs();
    let payload = |extra: &str| {
        format!(
            r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{now},"jti":"j-{}"{extra}}}"#,
            now + 600,
            extra.len()
        )
    };
    let good = sign(HS256, &payload(""), &secret);
    assert_eq!(s.get("/api/v2/user/me/", Some(&good)).await.status, StatusCode::OK);
    // missing typ is accepted; ext_id rides along
    let ok2 = sign(r#"{"alg":"HS256"}"#, &payload(r#","ext_id":"x-1""#), &secret);
    assert_eq!(s.get("/api/v2/user/me/", Some(&ok2)).await.status, StatusCode::OK);
    let hs512 = {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"HS512","typ":"JWT"}"#),
            URL_SAFE_NO_PAD.encode(payload(""))
        );
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA512, secret.as_bytes());
        format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(ring::hmac::sign(&key, input.as_bytes()).as_ref())
        )
    };
    let bad = [
        (
            "alg none",
            format!(
                "{}.{}.",
                URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
                URL_SAFE_NO_PAD.encode(payload(""))
            ),
        ),
        ("HS512", hs512),
        ("wrong secret", sign(HS256, &payload(""), "another-secret-of-some-length-000000")),
        (
            "string user_id",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":"{ann}","token_type":"access","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "float user_id",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann}.5,"token_type":"access","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "refresh type",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"refresh","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "no jti",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{now}}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        (
            "expired now",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"access","exp":{now},"iat":{},"jti":"a"}}"#,
                    now - 10
                ),
                &secret,
            ),
        ),
        (
            "iat in the future",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{},"jti":"a"}}"#,
                    now + 600,
                    now + 61
                ),
                &secret,
            ),
        ),
        (
            "unknown user",
            sign(
                HS256,
                &format!(
                    r#"{{"user_id":999,"token_type":"access","exp":{},"iat":{now},"jti":"a"}}"#,
                    now + 600
                ),
                &secret,
            ),
        ),
        ("too long", sign(HS256, &payload(&format!(r#","pad":"{}""#, "x".repeat(8200))), &secret)),
        ("tampered", format!("{}x", &good[..good.len() - 1])),
    ];
    for (what, t) in &bad {
        let r = s.get("/api/v2/user/me/", Some(t)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{what}");
        assert_eq!(r.error_code(), "authentication_failed", "{what}");
    }
    // a bad token is refused on public routes too
    let r = s.post("/api/v2/jwt/verify_token/", Some("garbage"), json!({"token": good})).await;
    assert_eq!(r.status, StatusCode::OK, "verify_token takes no authentication");
    // iat up to 60 s ahead is fine; exp is exclusive
    let edge = sign(
        HS256,
        &format!(
            r#"{{"user_id":{ann},"token_type":"access","exp":{},"iat":{},"jti":"e"}}"#,
            now + 1,
            now + 60
        ),
        &secret,
    );
    assert_eq!(s.get("/api/v2/user/me/", Some(&edge)).await.status, StatusCode::OK);
    s.clock.advance(SECOND);
    assert_eq!(s.get("/api/v2/user/me/", Some(&edge)).await.status, StatusCode::UNAUTHORIZED);
    // deleted user
    s.db_write(|tx| hearth::db::users::soft_delete(tx, ann));
    assert_eq!(s.get("/api/v2/user/me/", Some(&good)).await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn grace_period_secret_after_rotation() {
    let s = TestServer::start().await;
    let (ann, old) = s.login("ann");
    let now = s.clock.now();
    s.db_write(|tx| {
        hearth::db::jwt::rotate(tx, &hearth::token::random_string(32), now, now + 100 * SECOND)
    });
    s.state.reload_keys().unwrap();
    let new = s.jwt(ann);
    for t in [&old, &new] {
        assert_eq!(s.get("/api/v2/user/me/", Some(t)).await.status, StatusCode::OK);
        assert_eq!(
            s.post("/api/v2/jwt/verify_token/", None, json!({"token": t})).await.status,
            StatusCode::OK
        );
    }
    s.clock.advance(100 * SECOND);
    s.state.reload_keys().unwrap();
    assert_eq!(s.get("/api/v2/user/me/", Some(&old)).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        s.post("/api/v2/jwt/verify_token/", None, json!({"token": old})).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(s.get("/api/v2/user/me/", Some(&new)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn verify_token_checks_signature_and_time_only() {
    let s = TestServer::start().await;
    let secret = s.jwt_secret();
    let now = s.clock.now_secs();
    let verify = |body: serde_json::Value| {
        let s = &s;
        async move { s.post("/api/v2/jwt/verify_token/", None, body).await }
    };
    // user_id, ext_id and token_type are not checked
    let loose = sign(
        HS256,
        &format!(
            r#"{{"user_id":"nobody","token_type":"refresh","exp":{},"iat":{now},"ext_id":5}}"#,
            now + 60
        ),
        &secret,
    );
    let r = verify(json!({"token": loose})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.is_empty());
    for t in [
        sign(HS256, &format!(r#"{{"exp":{now},"iat":{now}}}"#), &secret),
        sign(r#"{"alg":"HS512"}"#, &format!(r#"{{"exp":{},"iat":{now}}}"#, now + 60), &secret),
        // extensions hearth does not implement (RFC 7515 §4.1.11, RFC 7797; issue 27)
        sign(
            r#"{"alg":"HS256","typ":"JWT","crit":["x-hearth"],"x-hearth":1}"#,
            &format!(r#"{{"exp":{},"iat":{now}}}"#, now + 60),
            &secret,
        ),
        sign(
            r#"{"alg":"HS256","crit":["b64"],"b64":false}"#,
            &format!(r#"{{"exp":{},"iat":{now}}}"#, now + 60),
            &secret,
        ),
        sign(
            HS256,
            &format!(r#"{{"exp":{},"iat":{now}}}"#, now + 60),
            "not-the-secret-not-the-secret-000",
        ),
        "a.b.c".into(),
        "opaque".into(),
        String::new(),
    ] {
        let r = verify(json!({ "token": t })).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{t}");
        assert!(r.text.is_empty());
    }
    for body in [json!([]), json!({}), json!({"token": 5}), json!({"token": null}), json!("x")] {
        assert_eq!(verify(body.clone()).await.status, StatusCode::BAD_REQUEST, "{body}");
    }
    let r = s.call(Method::GET, "/api/v2/jwt/verify_token/", None, None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn verify_token_sees_a_revocation_written_by_another_process_after_a_reload() {
    let s = TestServer::start().await;
    let (_, t) = s.login("rev");
    let verify = |t: String| {
        let s = &s;
        async move { s.post("/api/v2/jwt/verify_token/", None, json!({"token": t})).await.status }
    };
    assert_eq!(verify(t.clone()).await, StatusCode::OK);
    let jti = hearth::token::jwt::verify_access(
        &t,
        &[&hearth::token::jwt::Key::new(&s.jwt_secret())],
        s.clock.now_secs(),
    )
    .unwrap()
    .jti;
    let now = s.clock.now();
    s.db_write(move |tx| {
        hearth::db::jwt::revoke(tx, &jti, now + 3600 * hearth::clock::SECOND, now)
    });
    // the server re-reads revocations with its keys (every 500 ms); force it here
    s.state.reload_keys().unwrap();
    assert_eq!(verify(t.clone()).await, StatusCode::UNAUTHORIZED);
    assert_eq!(s.get("/api/v2/user/me/", Some(&t)).await.status, StatusCode::UNAUTHORIZED);
}

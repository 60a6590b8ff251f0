//! The token endpoint's grants, code binding and reuse, refresh rotation, revocation.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use super::*;

#[tokio::test]
async fn code_is_single_use_and_reuse_revokes() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let code = code_for(&s, &c, &b, &[]).await;
    // a verifier for a code without a challenge is invalid_grant... but on a copy only
    let r = token(&s, &code_exchange(&c, &code, "")[..5]).await;
    assert_token_response(&r, true);
    let access = r.json()["access_token"].as_str().unwrap().to_owned();
    let refresh = r.json()["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(me(&s, &access).await, StatusCode::OK);
    let r = token(&s, &code_exchange(&c, &code, "")[..5]).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(me(&s, &access).await, StatusCode::UNAUTHORIZED);
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("client_secret", &c.secret),
            ("refresh_token", &refresh),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_grant");
}

#[tokio::test]
async fn code_binding_and_expiry() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let other = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let pkce = [
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
    ];
    // expired after 60 s
    let code = code_for(&s, &c, &b, &pkce).await;
    s.clock.advance(60 * SECOND);
    let r = token(&s, &code_exchange(&c, &code, VERIFIER)).await;
    assert_eq!(r.json()["error"], "invalid_grant", "{}", r.text);
    // wrong verifier, missing verifier
    for v in ["x".repeat(43), String::new()] {
        let code = code_for(&s, &c, &b, &pkce).await;
        let mut f = code_exchange(&c, &code, &v);
        if v.is_empty() {
            f.pop();
        }
        let r = token(&s, &f).await;
        assert_eq!(r.json()["error"], "invalid_grant", "{v}");
    }
    // verifier sent for a code without a challenge
    let code = code_for(&s, &c, &b, &[]).await;
    let r = token(&s, &code_exchange(&c, &code, VERIFIER)).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    // another client, another redirect_uri, no redirect_uri
    let code = code_for(&s, &c, &b, &pkce).await;
    let r = token(
        &s,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &other.id),
            ("client_secret", &other.secret),
            ("code", &code),
            ("redirect_uri", CB),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_grant");
    let mut f = code_exchange(&c, &code, VERIFIER);
    f.retain(|(k, _)| *k != "redirect_uri");
    let r = token(&s, &f).await;
    assert_eq!(r.json()["error"], "invalid_request");
    f.push(("redirect_uri", "https://app.example/other"));
    let r = token(&s, &f).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    // wrong secret, no secret for a confidential client
    let code = code_for(&s, &c, &b, &pkce).await;
    let mut f = code_exchange(&c, &code, VERIFIER);
    f[2] = ("client_secret", "wrong");
    let r = token(&s, &f).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.json()["error"], "invalid_client");
    assert!(r.header("www-authenticate").is_none());
    f.remove(2);
    let r = token(&s, &f).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    // the code survived the failed client authentications
    let r = token(&s, &code_exchange(&c, &code, VERIFIER)).await;
    assert_token_response(&r, true);
}

#[tokio::test]
async fn token_endpoint_errors() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let code_app = app(&s, AppGrant::AuthorizationCode, true, false);
    let pw_app = app(&s, AppGrant::Password, false, false);
    let r = token(
        &s,
        &[
            ("client_id", &pw_app.id),
            ("username", "ann"),
            ("password", "pw-ann"),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_request");
    let r = token(
        &s,
        &[
            ("grant_type", "client_credentials"),
            ("client_id", &pw_app.id),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "unsupported_grant_type");
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", &code_app.id),
            ("client_secret", &code_app.secret),
            ("username", "ann"),
            ("password", "pw-ann"),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "unauthorized_client");
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", "nobody"),
            ("username", "ann"),
            ("password", "pw-ann"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.json()["error"], "invalid_client");
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", &pw_app.id),
            ("username", "ann"),
            ("password", "pw-ann"),
            ("scope", "admin"),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_scope");
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("grant_type", "password"),
            ("client_id", &pw_app.id),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_request");
    // HTTP Basic with a bad secret: 401 with a Basic challenge
    let r = TestServer::read(
        s.client
            .post(format!("{}/oauth/token/", s.url))
            .basic_auth(&code_app.id, Some("wrong"))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", "x"),
                ("redirect_uri", CB),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.header("www-authenticate").unwrap().starts_with("Basic"));
    // an oversized form
    let big = "x".repeat(100 * 1024);
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", &pw_app.id),
            ("pad", &big),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.json()["error"], "invalid_request");
    // JSON is not a form
    let r = s
        .post(
            "/oauth/token/",
            None,
            serde_json::json!({"grant_type": "password"}),
        )
        .await;
    assert_eq!(r.json()["error"], "invalid_request");
    let r = s.get("/oauth/token/", None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn password_grant_refresh_rotation_and_reuse() {
    let s = TestServer::start().await;
    let ann = s.user("Ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Password, false, false);
    // usernames match case-insensitively
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", &c.id),
            ("username", "ANN"),
            ("password", "pw-ann"),
        ],
    )
    .await;
    assert_token_response(&r, true);
    let a1 = r.json()["access_token"].as_str().unwrap().to_owned();
    let r1 = r.json()["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(s.get("/api/v2/user/me/", Some(&a1)).await.json()["id"], ann);
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", &c.id),
            ("username", "ann"),
            ("password", "nope"),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_grant");

    // rotation: a new pair; the old refresh and access tokens stop working
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", &r1),
            ("scope", "read"),
        ],
    )
    .await;
    assert_token_response(&r, true);
    assert_eq!(r.json()["scope"], "read");
    let a2 = r.json()["access_token"].as_str().unwrap().to_owned();
    let r2 = r.json()["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(me(&s, &a1).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me(&s, &a2).await, StatusCode::OK);
    // scope may only narrow
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", &r2),
            ("scope", "read admin"),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_scope");
    // another client cannot use it
    let other = app(&s, AppGrant::Password, false, false);
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &other.id),
            ("refresh_token", &r2),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_grant");
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", &r2),
        ],
    )
    .await;
    assert_token_response(&r, true);
    assert_eq!(
        r.json()["scope"],
        "read write",
        "no scope: the one originally granted"
    );
    let a3 = r.json()["access_token"].as_str().unwrap().to_owned();
    let r3 = r.json()["refresh_token"].as_str().unwrap().to_owned();
    // reuse of a rotated token revokes the whole family
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", &r1),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(me(&s, &a3).await, StatusCode::UNAUTHORIZED);
    let r = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", &r3),
        ],
    )
    .await;
    assert_eq!(r.json()["error"], "invalid_grant");
    // a fresh login is unaffected
    let r = token(
        &s,
        &[
            ("grant_type", "password"),
            ("client_id", &c.id),
            ("username", "ann"),
            ("password", "pw-ann"),
        ],
    )
    .await;
    assert_token_response(&r, true);
}

#[tokio::test]
async fn revocation_of_each_token_kind() {
    let s = TestServer::start().await;
    let ann = s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Password, false, false);
    let other = app(&s, AppGrant::Password, false, false);
    let login = [
        ("grant_type", "password"),
        ("client_id", c.id.as_str()),
        ("username", "ann"),
        ("password", "pw-ann"),
    ];
    // access token: only it
    let j = token(&s, &login).await.json();
    let (a, r) = (
        j["access_token"].as_str().unwrap(),
        j["refresh_token"].as_str().unwrap(),
    );
    let resp = revoke(&s, &other, a).await;
    assert_eq!(
        resp.status,
        StatusCode::OK,
        "another client's token: no change"
    );
    assert_eq!(me(&s, a).await, StatusCode::OK);
    let resp = revoke(&s, &c, a).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp.text.is_empty());
    assert_eq!(me(&s, a).await, StatusCode::UNAUTHORIZED);
    let resp = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", r),
        ],
    )
    .await;
    assert_token_response(&resp, true);
    // refresh token: it and its access token
    let j = resp.json();
    let (a, r) = (
        j["access_token"].as_str().unwrap(),
        j["refresh_token"].as_str().unwrap(),
    );
    assert_eq!(revoke(&s, &c, r).await.status, StatusCode::OK);
    assert_eq!(me(&s, a).await, StatusCode::UNAUTHORIZED);
    let resp = token(
        &s,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", &c.id),
            ("refresh_token", r),
        ],
    )
    .await;
    assert_eq!(resp.json()["error"], "invalid_grant");
    // JWT: by any app, refused everywhere afterwards
    let jwt = s.jwt(ann);
    assert_eq!(
        s.post(
            "/api/v2/jwt/verify_token/",
            None,
            serde_json::json!({"token": jwt})
        )
        .await
        .status,
        StatusCode::OK
    );
    assert_eq!(revoke(&s, &other, &jwt).await.status, StatusCode::OK);
    assert_eq!(me(&s, &jwt).await, StatusCode::UNAUTHORIZED);
    assert_eq!(
        s.post(
            "/api/v2/jwt/verify_token/",
            None,
            serde_json::json!({"token": jwt})
        )
        .await
        .status,
        StatusCode::UNAUTHORIZED
    );
    // unknown tokens are fine; bad client credentials are not; no token is invalid_request
    assert_eq!(revoke(&s, &c, "no-such-token").await.status, StatusCode::OK);
    let bad = Client {
        id: c.id.clone(),
        secret: "wrong".into(),
    };
    let resp = revoke(&s, &bad, "x").await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(resp.json()["error"], "invalid_client");
    let resp = post_form(
        &s.client,
        &s,
        "/oauth/revoke_token/",
        &[("client_id", &c.id)],
    )
    .await;
    assert_eq!(resp.json()["error"], "invalid_request");
}

#[tokio::test]
async fn pages_answer_other_methods_with_405() {
    let s = TestServer::start().await;
    for (path, method) in [
        ("/accounts/logout/", reqwest::Method::GET),
        ("/oauth/revoke_token/", reqwest::Method::GET),
        ("/oauth/authorize/", reqwest::Method::DELETE),
    ] {
        let r = s.call(method, path, None, None).await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
    }
    let r: Value = s.get("/oauth/nothing/", None).await.json();
    assert_eq!(r["errors"][0]["code"], "not_found");
}

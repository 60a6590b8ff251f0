//! The token endpoint's grants, code binding and reuse, refresh rotation, revocation.

use super::*;

#[tokio::test]
async fn code_is_single_use_and_reuse_revokes() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let code = code_for(&s, &c, &b, &[]).await;
    // a verifier for a code without a challenge is invalid_grant... but on a copy only
    let r = token(&s, &code_exchange(&c, &code, "")[..5]).await;
    assert_token_response(&r, true);
    let (access, refresh) = issued(&r);
    assert_eq!(me(&s, &access).await, StatusCode::OK);
    let r = token(&s, &code_exchange(&c, &code, "")[..5]).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(me(&s, &access).await, StatusCode::UNAUTHORIZED);
    let mut f = refresh_grant(&c, &refresh);
    f.push(("client_secret", &c.secret));
    assert_eq!(token(&s, &f).await.json()["error"], "invalid_grant");
}

#[tokio::test]
async fn code_binding_and_expiry() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let other = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let pkce = S256;
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
        // retried with the right verifier: the code is spent, and nothing was revoked
        // because nothing was issued (the message must not claim otherwise)
        let r = token(&s, &code_exchange(&c, &code, VERIFIER)).await;
        assert_eq!(r.json()["error"], "invalid_grant", "{v}");
        let why = r.json()["error_description"].as_str().unwrap().to_owned();
        assert!(why.contains("issued no tokens") && !why.contains("are revoked"), "{why}");
    }
    // verifier sent for a code without a challenge
    let code = code_for(&s, &c, &b, &[]).await;
    let r = token(&s, &code_exchange(&c, &code, VERIFIER)).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    // another client, another redirect_uri, no redirect_uri
    let code = code_for(&s, &c, &b, &pkce).await;
    let r = token(&s, &code_exchange(&other, &code, VERIFIER)).await;
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

/// A form as the token endpoint reads it.
type Form<'a> = Vec<(&'a str, &'a str)>;

#[tokio::test]
async fn token_endpoint_errors() {
    let s = TestServer::start().await;
    let (_, code_app) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let pw_app = app(&s, AppGrant::Password, false, false);
    let (pw, code) = (pw_app.id.as_str(), code_app.id.as_str());
    let big = "x".repeat(100 * 1024);
    let login = [("username", "ann"), ("password", "pw-ann")];
    let cases: Vec<(Form, StatusCode, &str)> = vec![
        (
            [vec![("client_id", pw)], login.to_vec()].concat(),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            vec![("grant_type", "client_credentials"), ("client_id", pw)],
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
        ),
        (
            [
                vec![
                    ("grant_type", "password"),
                    ("client_id", code),
                    ("client_secret", code_app.secret.as_str()),
                ],
                login.to_vec(),
            ]
            .concat(),
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
        ),
        (
            [vec![("grant_type", "password"), ("client_id", "nobody")], login.to_vec()].concat(),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            [password_grant(&pw_app, "ann", "pw-ann"), vec![("scope", "admin")]].concat(),
            StatusCode::BAD_REQUEST,
            "invalid_scope",
        ),
        (
            vec![("grant_type", "password"), ("grant_type", "password"), ("client_id", pw)],
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        // an oversized form
        (
            vec![("grant_type", "password"), ("client_id", pw), ("pad", &big)],
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request",
        ),
    ];
    for (form, status, error) in cases {
        let r = token(&s, &form).await;
        assert_eq!((r.status, r.json()["error"].clone()), (status, error.into()), "{form:?}");
    }
    // HTTP Basic with a bad secret: 401 with a Basic challenge
    let form = [("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", CB)];
    let r = token_with(&s, &form, |rb| rb.basic_auth(code, Some("wrong"))).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.header("www-authenticate").unwrap().starts_with("Basic"));
    // JSON is not a form
    let r = s.post("/oauth/token/", None, serde_json::json!({"grant_type": "password"})).await;
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
    let r = token(&s, &password_grant(&c, "ANN", "pw-ann")).await;
    assert_token_response(&r, true);
    let (a1, r1) = issued(&r);
    assert_eq!(s.get("/api/v2/user/me/", Some(&a1)).await.json()["id"], ann);
    let r = token(&s, &password_grant(&c, "ann", "nope")).await;
    assert_eq!(r.json()["error"], "invalid_grant");

    // rotation: a new pair; the old refresh and access tokens stop working
    let r = token(&s, &[refresh_grant(&c, &r1), vec![("scope", "read")]].concat()).await;
    assert_token_response(&r, true);
    assert_eq!(r.json()["scope"], "read");
    let (a2, r2) = issued(&r);
    assert_eq!(me(&s, &a1).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me(&s, &a2).await, StatusCode::OK);
    // scope may only narrow
    let narrow = [refresh_grant(&c, &r2), vec![("scope", "read admin")]].concat();
    assert_eq!(token(&s, &narrow).await.json()["error"], "invalid_scope");
    // another client cannot use it
    let other = app(&s, AppGrant::Password, false, false);
    let r = token(&s, &refresh_grant(&other, &r2)).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    let r = token(&s, &refresh_grant(&c, &r2)).await;
    assert_token_response(&r, true);
    assert_eq!(r.json()["scope"], "read write", "no scope: the one originally granted");
    let (a3, r3) = issued(&r);
    // reuse of a rotated token revokes the whole family
    let r = token(&s, &refresh_grant(&c, &r1)).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    assert_eq!(me(&s, &a3).await, StatusCode::UNAUTHORIZED);
    let r = token(&s, &refresh_grant(&c, &r3)).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    // a fresh login is unaffected
    let r = token(&s, &password_grant(&c, "ann", "pw-ann")).await;
    assert_token_response(&r, true);
}

#[tokio::test]
async fn revocation_of_each_token_kind() {
    let s = TestServer::start().await;
    let (ann, c) = ann_with_app(&s, AppGrant::Password, false, false);
    let other = app(&s, AppGrant::Password, false, false);
    // access token: only it
    let (a, r) = issued(&token(&s, &password_grant(&c, "ann", "pw-ann")).await);
    let resp = revoke(&s, &other, &a).await;
    assert_eq!(resp.status, StatusCode::OK, "another client's token: no change");
    assert_eq!(me(&s, &a).await, StatusCode::OK);
    let resp = revoke(&s, &c, &a).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp.text.is_empty());
    assert_eq!(me(&s, &a).await, StatusCode::UNAUTHORIZED);
    let resp = token(&s, &refresh_grant(&c, &r)).await;
    assert_token_response(&resp, true);
    // refresh token: it and its access token
    let (a, r) = issued(&resp);
    assert_eq!(revoke(&s, &c, &r).await.status, StatusCode::OK);
    assert_eq!(me(&s, &a).await, StatusCode::UNAUTHORIZED);
    let resp = token(&s, &refresh_grant(&c, &r)).await;
    assert_eq!(resp.json()["error"], "invalid_grant");
    // JWT: by any app, refused everywhere afterwards
    let jwt = s.jwt(ann);
    let verify = || s.post("/api/v2/jwt/verify_token/", None, serde_json::json!({"token": jwt}));
    assert_eq!(verify().await.status, StatusCode::OK);
    assert_eq!(revoke(&s, &other, &jwt).await.status, StatusCode::OK);
    assert_eq!(me(&s, &jwt).await, StatusCode::UNAUTHORIZED);
    assert_eq!(verify().await.status, StatusCode::UNAUTHORIZED);
    // unknown tokens are fine; bad client credentials are not; no token is invalid_request
    assert_eq!(revoke(&s, &c, "no-such-token").await.status, StatusCode::OK);
    let bad = Client { id: c.id.clone(), secret: "wrong".into() };
    let resp = revoke(&s, &bad, "x").await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(resp.json()["error"], "invalid_client");
    let resp = post_form(&s.client, &s, "/oauth/revoke_token/", &[("client_id", &c.id)]).await;
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

#[tokio::test]
async fn a_member_awaiting_approval_signs_in_once_staff_approve() {
    // SPEC §10 People, `configurations.users_approval_enabled`: a sign-up made while
    // staff approve new members has `reg_approved` false until `hearth user approve`
    let s = TestServer::start().await;
    let ann = s.user("ann", Some("pw-ann"), false);
    s.db_write(move |tx| hearth::db::users::set_approved(tx, ann, false));
    let c = app(&s, AppGrant::Password, false, false);
    // the right password learns why; a wrong one learns nothing more
    let r = token(&s, &password_grant(&c, "ann", "pw-ann")).await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (StatusCode::BAD_REQUEST, "invalid_grant".into())
    );
    assert!(
        r.json()["error_description"].as_str().unwrap().contains("awaits approval"),
        "{}",
        r.text
    );
    let r = token(&s, &password_grant(&c, "ann", "nope")).await;
    assert_eq!(r.json()["error_description"], "Invalid credentials given.");
    // the login form opens no session either
    let b = browser();
    let page = get(&b, &s, "/accounts/login/").await;
    let mut form = hidden_fields(&page.text);
    form.extend([("username".into(), "ann".into()), ("password".into(), "pw-ann".into())]);
    let r = submit(&b, &s, "/accounts/login/", &form).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.contains("awaits approval"), "{}", r.text);
    assert!(r.header("set-cookie").is_none_or(|c| !c.contains("hearth_session")));
    // approved: in
    s.db_write(move |tx| hearth::db::users::set_approved(tx, ann, true));
    assert_token_response(&token(&s, &password_grant(&c, "ann", "pw-ann")).await, true);
}

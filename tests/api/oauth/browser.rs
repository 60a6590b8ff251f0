//! The browser flows: login and consent forms, redirects, errors that are pages, CSRF, sessions.

use super::*;

#[tokio::test]
async fn code_flow_with_pkce_through_login_and_consent() {
    let s = TestServer::start().await;
    let (ann, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let path = authorize_path(&c, "code", &S256);
    let consent = to_consent(&b, &s, &path).await;
    assert_eq!(consent.status, StatusCode::OK);
    assert_eq!(consent.header("x-frame-options"), Some("DENY"));
    assert_eq!(consent.header("cache-control"), Some("no-store"));
    let csp = consent.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("form-action 'self' https://app.example"), "{csp}");
    assert!(consent.text.contains("Test &lt;App&gt;"), "name escaped");
    assert!(consent.text.contains("Reads your things &amp; more"));
    assert!(consent.text.contains("https://app.example/logo.png"));
    assert!(!consent.text.contains("<script"));
    let loc = allow(&b, &s, &consent, "allow").await;
    assert!(loc.starts_with("https://app.example/cb?x=1&code="), "{loc}");
    let p = params(&loc, false);
    assert_eq!(p["state"], "xyz 1");
    assert_eq!(p["x"], "1");
    let r = token(&s, &code_exchange(&c, &p["code"], VERIFIER)).await;
    assert_token_response(&r, true);
    assert_eq!(r.json()["scope"], "read write");
    let access = r.json()["access_token"].as_str().unwrap().to_owned();
    let me = s.get("/api/v2/user/me/", Some(&access)).await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.json()["id"], ann);
}

#[tokio::test]
async fn code_flow_with_http_basic_and_narrow_scope_and_plain_pkce() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let verifier = "p".repeat(50);
    let code = code_for(
        &s,
        &c,
        &b,
        &[("scope", "read"), ("code_challenge", &verifier), ("code_challenge_method", "plain")],
    )
    .await;
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", CB),
        ("code_verifier", verifier.as_str()),
    ];
    let r = token_with(&s, &form, |rb| rb.basic_auth(&c.id, Some(&c.secret))).await;
    assert_token_response(&r, true);
    assert_eq!(r.json()["scope"], "read");
}

#[tokio::test]
async fn public_code_app_requires_pkce_and_skip_consent_skips() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, false, true);
    let b = browser();
    // no challenge: invalid_request at once, before any login
    let r = get(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert_eq!(r.status, StatusCode::FOUND);
    let p = params(&location(&r), false);
    assert_eq!(p["error"], "invalid_request");
    assert_eq!(p["state"], "xyz 1");
    // with a challenge: login, then straight back to the client (no consent page)
    let path = authorize_path(&c, "code", &S256);
    let r = get(&b, &s, &path).await;
    // the login form's post ends at the client: its origin is an allowed form-action
    let page = get(&b, &s, &location(&r)).await;
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("form-action 'self' https://app.example"), "{csp}");
    let r = sign_in(&b, &s, &location(&r), "ann", "pw-ann").await;
    let r = get(&b, &s, &location(&r)).await;
    assert_eq!(r.status, StatusCode::FOUND);
    let code = params(&location(&r), false)["code"].clone();
    // a public client sends no secret
    let r = token(
        &s,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &c.id),
            ("code", &code),
            ("redirect_uri", CB),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_token_response(&r, true);
}

#[tokio::test]
async fn deny_redirects_access_denied() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let consent = to_consent(&b, &s, &authorize_path(&c, "code", &[])).await;
    let loc = allow(&b, &s, &consent, "deny").await;
    let p = params(&loc, false);
    assert_eq!(p["error"], "access_denied");
    assert_eq!(p["state"], "xyz 1");
    assert!(!p.contains_key("code"));
}

#[tokio::test]
async fn implicit_flow_puts_the_token_in_the_fragment() {
    let s = TestServer::start().await;
    let (ann, c) = ann_with_app(&s, AppGrant::Implicit, false, false);
    let b = browser();
    // the no-slash form of the path works too
    let path =
        authorize_path(&c, "token", &[]).replacen("/oauth/authorize/", "/oauth/authorize", 1);
    let consent = to_consent(&b, &s, &path).await;
    assert_eq!(consent.status, StatusCode::OK, "{}", consent.text);
    let loc = allow(&b, &s, &consent, "allow").await;
    assert!(loc.starts_with("https://app.example/cb?x=1#access_token="), "{loc}");
    assert!(
        loc.contains("&expires_in=36000&token_type=Bearer&scope=read+write&state=xyz+1"),
        "{loc}"
    );
    let p = params(&loc, true);
    assert!(!p.contains_key("refresh_token"));
    let me = s.get("/api/v2/user/me/", Some(&p["access_token"])).await;
    assert_eq!(me.json()["id"], ann);
    // errors of the implicit flow go in the fragment
    let r = get(&b, &s, &authorize_path(&c, "token", &[("scope", "admin")])).await;
    let p = params(&location(&r), true);
    assert_eq!(p["error"], "invalid_scope");
}

#[tokio::test]
async fn request_errors_redirect_before_login() {
    let s = TestServer::start().await;
    let code_app = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    for (rt, extra, want) in [
        ("id_token", vec![], "unsupported_response_type"),
        ("", vec![], "invalid_request"),
        ("token", vec![], "unauthorized_client"),
        ("code", vec![("scope", "read delete")], "invalid_scope"),
        (
            "code",
            vec![("code_challenge", CHALLENGE), ("code_challenge_method", "S512")],
            "invalid_request",
        ),
        ("code", vec![("code_challenge_method", "S256")], "invalid_request"),
        ("code", vec![("code_challenge", "short")], "invalid_request"),
        ("code", vec![("scope", "read"), ("scope", "write")], "invalid_request"),
    ] {
        let r = get(&b, &s, &authorize_path(&code_app, rt, &extra)).await;
        assert_eq!(r.status, StatusCode::FOUND, "{rt} {extra:?}");
        let loc = location(&r);
        assert!(loc.starts_with(CB), "{loc}");
        let p = params(&loc, rt == "token");
        assert_eq!(p["error"], want, "{rt} {extra:?}");
        assert_eq!(p["state"], "xyz 1");
    }
}

#[tokio::test]
async fn unknown_client_and_redirect_mismatch_are_pages_not_redirects() {
    let s = TestServer::start().await;
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let r = get(&b, &s, "/oauth/authorize/?response_type=code&client_id=nope&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fx%3D1").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.header("location").is_none());
    assert!(r.text.contains("invalid_client"));
    assert_eq!(r.header("x-frame-options"), Some("DENY"));
    for uri in [
        None,
        Some("https://app.example/cb"), // prefix (query dropped)
        Some("https://app.example/cb?x=1&y=2"), // extra query
        Some("https://app.example/cb?x=12"), // suffix
        Some("https://APP.example/cb?x=1"), // case
        Some("https://app.example/cb/x?x=1"), // extra path
        Some("https://app.example/c"),  // prefix of the path
        Some("https://evil.example/cb?x=1"),
        Some("https://app.example/cb?x=1#f"),
    ] {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("response_type", "code").append_pair("client_id", &c.id);
        if let Some(u) = uri {
            q.append_pair("redirect_uri", u);
        }
        let r = get(&b, &s, &format!("/oauth/authorize/?{}", q.finish())).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{uri:?}");
        assert!(r.header("location").is_none(), "{uri:?}");
        assert!(r.text.contains("redirect_uri_mismatch"), "{uri:?}");
    }
}

#[tokio::test]
async fn next_cannot_redirect_off_site() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    for evil in [
        "//evil.example/x",
        "/\\evil.example",
        "https://evil.example/",
        "/\t/evil.example",
        "javascript:alert(1)",
    ] {
        let b = browser();
        let q =
            url::form_urlencoded::Serializer::new(String::new()).append_pair("next", evil).finish();
        let page = get(&b, &s, &format!("/accounts/login/?{q}")).await;
        assert!(!page.text.contains("evil.example"), "{evil}");
        let mut form = hidden_fields(&page.text);
        form.retain(|(k, _)| k != "next");
        form.push(("next".into(), evil.into()));
        form.push(("username".into(), "ann".into()));
        form.push(("password".into(), "pw-ann".into()));
        let r = submit(&b, &s, "/accounts/login/", &form).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{evil}");
        assert_eq!(location(&r), "/accounts/login/", "{evil}");
        // and a signed-in GET with an evil next shows the page instead of redirecting
        let r = get(&b, &s, &format!("/accounts/login/?{q}")).await;
        assert_eq!(r.status, StatusCode::OK, "{evil}");
        assert!(r.text.contains("signed in as"));
    }
}

#[tokio::test]
async fn form_posts_without_csrf_are_refused() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    // login without (or with a wrong) token
    let r =
        post_form(&b, &s, "/accounts/login/", &[("username", "ann"), ("password", "pw-ann")]).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.header("set-cookie").is_none_or(|c| !c.contains("hearth_session")));
    let _ = get(&b, &s, "/accounts/login/").await;
    let r = post_form(
        &b,
        &s,
        "/accounts/login/",
        &[("csrfmiddlewaretoken", &"a".repeat(43)), ("username", "ann"), ("password", "pw-ann")],
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // consent without the token: no code
    let consent = to_consent(&b, &s, &authorize_path(&c, "code", &[])).await;
    let mut form = hidden_fields(&consent.text);
    form.retain(|(k, _)| k != "csrfmiddlewaretoken");
    form.push(("allow".into(), "x".into()));
    let r = submit(&b, &s, "/oauth/authorize/", &form).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.header("location").is_none());
    // logout without the token keeps the session; with it ends it
    let r = post_form(&b, &s, "/accounts/logout/", &[]).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let page = get(&b, &s, "/accounts/login/").await;
    assert!(page.text.contains("signed in as"));
    let r = submit(&b, &s, "/accounts/logout/", &hidden_fields(&page.text)).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = get(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert!(location(&r).starts_with("/accounts/login/"), "signed out");
}

#[tokio::test]
async fn sessions_expire() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let consent = to_consent(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert_eq!(consent.status, StatusCode::OK);
    s.clock.advance(12 * 3600 * SECOND);
    let r = get(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert_eq!(r.status, StatusCode::FOUND);
    assert!(location(&r).starts_with("/accounts/login/"));
    // and the old consent form no longer works
    let r = decide(&b, &s, &consent, "allow").await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn cookies_are_secure_behind_https() {
    let s = TestServer::start_with(|c| {
        c.public_url = hearth::model::PublicUrl("https://hearth.example".into());
    })
    .await;
    s.user("ann", Some("pw-ann"), false);
    let b = browser();
    let page = get(&b, &s, "/accounts/login/").await;
    let csrf_cookie = page.header("set-cookie").unwrap();
    // `__Host-`: Secure, Path=/, no Domain (no subdomain can plant it)
    assert!(csrf_cookie.starts_with("__Host-hearth_csrf="), "{csrf_cookie}");
    assert!(csrf_cookie.contains("; Secure") && csrf_cookie.contains("; Path=/"), "{csrf_cookie}");
    assert!(!csrf_cookie.to_ascii_lowercase().contains("domain="), "{csrf_cookie}");
    // the test client speaks plain http, so send the cookie by hand
    let cookie = csrf_cookie.split(';').next().unwrap().to_owned();
    let csrf = hidden_fields(&page.text)[0].1.clone();
    let r = TestServer::read(
        b.post(format!("{}/accounts/login/", s.url))
            .header("cookie", cookie)
            .form(&[
                ("csrfmiddlewaretoken", csrf.as_str()),
                ("username", "ann"),
                ("password", "pw-ann"),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let session = r.header("set-cookie").unwrap();
    assert!(
        session.starts_with("hearth_session=")
            && session.contains("; Secure")
            && session.contains("HttpOnly"),
        "{session}"
    );
}

/// Login CSRF (issue 27, Low 14): the login form's field is signed over its cookie's
/// nonce and the client's address, so a cookie/field pair an attacker plants in a
/// victim's browser cannot sign the victim in (as the attacker): neither a made-up pair
/// (a plain double submit took any equal pair) nor one the server minted for the
/// attacker's own browser. The victim's own form still works.
#[tokio::test]
async fn planted_login_csrf_pairs_are_refused() {
    let s =
        TestServer::start_with(|c| c.trusted_proxies = hearth::config::loopback_proxies()).await;
    s.user("mallory", Some("pw-mallory"), false);
    s.user("ann", Some("pw-ann"), false);
    // a login post from `client` with this cookie header and field
    let post = async |client: &str, cookie: &str, field: &str, user: &str, pw: &str| {
        TestServer::read(
            s.client
                .post(format!("{}/accounts/login/", s.url))
                .header("x-forwarded-for", client)
                .header("cookie", cookie.to_owned())
                .form(&[("csrfmiddlewaretoken", field), ("username", user), ("password", pw)])
                .send()
                .await
                .unwrap(),
        )
        .await
    };
    // the form as a browser at `client` gets it: its cookie and field
    let form = async |client: &str| {
        let r = TestServer::read(
            reqwest::Client::new()
                .get(format!("{}/accounts/login/", s.url))
                .header("x-forwarded-for", client)
                .send()
                .await
                .unwrap(),
        )
        .await;
        let cookie = r.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
        (cookie, hidden_fields(&r.text)[0].1.clone())
    };
    let refused = |r: &Resp| {
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
        assert!(r.header("set-cookie").is_none_or(|c| !c.contains("hearth_session=")));
    };
    let victim = "198.51.100.20";
    // a made-up pair: cookie and field equal, a valid-looking token
    let made_up = token::new_token();
    let r =
        post(victim, &format!("hearth_csrf={made_up}"), &made_up, "mallory", "pw-mallory").await;
    refused(&r);
    // the pair the server gave the attacker's own browser, planted in the victim's
    let (cookie, field) = form("203.0.113.66").await;
    refused(&post(victim, &cookie, &field, "mallory", "pw-mallory").await);
    // the attacker's field with the victim's own cookie
    let (victim_cookie, victim_field) = form(victim).await;
    refused(&post(victim, &victim_cookie, &field, "mallory", "pw-mallory").await);
    // the victim's own form signs the victim in
    let r = post(victim, &victim_cookie, &victim_field, "ann", "pw-ann").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.text);
    assert!(r.header("set-cookie").unwrap().starts_with("hearth_session="));
}

//! OAuth 2.0 over real HTTP: the browser flows through the login and consent forms,
//! the token endpoint's grants, refresh rotation, revocation, and the brute-force limit.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use std::collections::HashMap;

use hearth::clock::SECOND;
use hearth::db::apps::{App, AppGrant};
use hearth::token;
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::{Resp, TestServer};

const CB: &str = "https://app.example/cb?x=1";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// A registered app.
struct Client {
    id: String,
    secret: String,
}

fn app(s: &TestServer, grant: AppGrant, confidential: bool, skip_consent: bool) -> Client {
    let id = token::random_string(12);
    let secret = token::new_token();
    let a = App {
        id: 0,
        client_id: id.clone(),
        secret_hash: token::storage_hash(&secret).to_vec(),
        name: "Test <App>".into(),
        description: "Reads your things & more".into(),
        image: "https://app.example/logo.png".into(),
        grant,
        confidential,
        skip_consent,
        redirect_uris: if grant == AppGrant::Password {
            vec![]
        } else {
            vec![CB.into(), "https://app.example/other".into()]
        },
        created_at: s.clock.now(),
    };
    s.state
        .db
        .write_blocking(|tx| hearth::db::apps::insert(tx, &a).map_err(hearth::db::DbError::from))
        .unwrap();
    Client { id, secret }
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn get(b: &reqwest::Client, s: &TestServer, path: &str) -> Resp {
    TestServer::read(b.get(format!("{}{}", s.url, path)).send().await.unwrap()).await
}

async fn post_form(b: &reqwest::Client, s: &TestServer, path: &str, form: &[(&str, &str)]) -> Resp {
    TestServer::read(
        b.post(format!("{}{}", s.url, path))
            .form(form)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn token(s: &TestServer, form: &[(&str, &str)]) -> Resp {
    post_form(&s.client, s, "/oauth/token/", form).await
}

fn unescape(v: &str) -> String {
    v.replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The hidden fields of the page's (first) form.
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    html.split("<input type=\"hidden\" ")
        .skip(1)
        .map(|chunk| {
            let name = chunk
                .split("name=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let value = chunk
                .split("value=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            (unescape(name), unescape(value))
        })
        .collect()
}

fn location(r: &Resp) -> String {
    r.header("location").unwrap_or_default().to_owned()
}

/// Query (or fragment) parameters of a URL.
fn params(url: &str, fragment: bool) -> HashMap<String, String> {
    let u = url::Url::parse(url).unwrap();
    let raw = if fragment {
        u.fragment().unwrap_or("").to_owned()
    } else {
        u.query().unwrap_or("").to_owned()
    };
    url::form_urlencoded::parse(raw.as_bytes())
        .into_owned()
        .collect()
}

fn authorize_path(c: &Client, response_type: &str, extra: &[(&str, &str)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("response_type", response_type)
        .append_pair("client_id", &c.id)
        .append_pair("redirect_uri", CB)
        .append_pair("state", "xyz 1");
    for (k, v) in extra {
        q.append_pair(k, v);
    }
    format!("/oauth/authorize/?{}", q.finish())
}

/// Signs in through the login form found at `login_url`; returns the redirect target.
async fn sign_in(
    b: &reqwest::Client,
    s: &TestServer,
    login_url: &str,
    user: &str,
    pw: &str,
) -> Resp {
    let page = get(b, s, login_url).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    let mut form = hidden_fields(&page.text);
    form.push(("username".into(), user.into()));
    form.push(("password".into(), pw.into()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    post_form(b, s, "/accounts/login/", &form).await
}

/// Runs the browser part of a flow up to the consent page; returns it.
async fn to_consent(b: &reqwest::Client, s: &TestServer, path: &str) -> Resp {
    let r = get(b, s, path).await;
    if r.status == StatusCode::OK {
        return r; // already signed in
    }
    assert_eq!(r.status, StatusCode::FOUND, "{}", r.text);
    let login = location(&r);
    assert!(login.starts_with("/accounts/login/?next="), "{login}");
    let r = sign_in(b, s, &login, "ann", "pw-ann").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.text);
    let back = location(&r);
    assert!(back.starts_with("/oauth/authorize/?"), "{back}");
    let cookie = r.header("set-cookie").unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"));
    get(b, s, &back).await
}

/// Allows on a consent page; returns the redirect to the client.
async fn allow(b: &reqwest::Client, s: &TestServer, consent: &Resp, decision: &str) -> String {
    let mut form = hidden_fields(&consent.text);
    form.push((decision.into(), "x".into()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = post_form(b, s, "/oauth/authorize/", &form).await;
    assert_eq!(r.status, StatusCode::FOUND, "{}", r.text);
    location(&r)
}

async fn code_for(
    s: &TestServer,
    c: &Client,
    b: &reqwest::Client,
    extra: &[(&str, &str)],
) -> String {
    let consent = to_consent(b, s, &authorize_path(c, "code", extra)).await;
    let loc = allow(b, s, &consent, "allow").await;
    params(&loc, false)["code"].clone()
}

fn code_exchange<'a>(c: &'a Client, code: &'a str, verifier: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("grant_type", "authorization_code"),
        ("client_id", &c.id),
        ("client_secret", &c.secret),
        ("code", code),
        ("redirect_uri", CB),
        ("code_verifier", verifier),
    ]
}

fn assert_token_response(r: &Resp, refresh: bool) {
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let j = r.json();
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    let mut want = vec!["access_token", "expires_in", "token_type", "scope"];
    if refresh {
        want.push("refresh_token");
    }
    assert_eq!(keys.len(), want.len(), "{j}");
    for k in want {
        assert!(j.get(k).is_some(), "{k} in {j}");
    }
    assert_eq!(j["token_type"], "Bearer");
    assert_eq!(j["expires_in"], 36000);
    // serialised in SPEC's order
    assert!(r.text.starts_with("{\"access_token\""), "{}", r.text);
}

async fn me(s: &TestServer, t: &str) -> StatusCode {
    s.get("/api/v2/user/me/", Some(t)).await.status
}

#[tokio::test]
async fn code_flow_with_pkce_through_login_and_consent() {
    let s = TestServer::start().await;
    let ann = s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let path = authorize_path(
        &c,
        "code",
        &[
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    );
    let consent = to_consent(&b, &s, &path).await;
    assert_eq!(consent.status, StatusCode::OK);
    assert_eq!(consent.header("x-frame-options"), Some("DENY"));
    assert_eq!(consent.header("cache-control"), Some("no-store"));
    let csp = consent.header("content-security-policy").unwrap();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert!(
        csp.contains("form-action 'self' https://app.example"),
        "{csp}"
    );
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
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let verifier = "p".repeat(50);
    let code = code_for(
        &s,
        &c,
        &b,
        &[
            ("scope", "read"),
            ("code_challenge", &verifier),
            ("code_challenge_method", "plain"),
        ],
    )
    .await;
    let r = TestServer::read(
        s.client
            .post(format!("{}/oauth/token/", s.url))
            .basic_auth(&c.id, Some(&c.secret))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("redirect_uri", CB),
                ("code_verifier", verifier.as_str()),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_token_response(&r, true);
    assert_eq!(r.json()["scope"], "read");
}

#[tokio::test]
async fn public_code_app_requires_pkce_and_skip_consent_skips() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, false, true);
    let b = browser();
    // no challenge: invalid_request at once, before any login
    let r = get(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert_eq!(r.status, StatusCode::FOUND);
    let p = params(&location(&r), false);
    assert_eq!(p["error"], "invalid_request");
    assert_eq!(p["state"], "xyz 1");
    // with a challenge: login, then straight back to the client (no consent page)
    let path = authorize_path(
        &c,
        "code",
        &[
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    );
    let r = get(&b, &s, &path).await;
    // the login form's post ends at the client: its origin is an allowed form-action
    let page = get(&b, &s, &location(&r)).await;
    let csp = page.header("content-security-policy").unwrap();
    assert!(
        csp.contains("form-action 'self' https://app.example"),
        "{csp}"
    );
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
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
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
    let ann = s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Implicit, false, false);
    let b = browser();
    // the no-slash form of the path works too
    let path =
        authorize_path(&c, "token", &[]).replacen("/oauth/authorize/", "/oauth/authorize", 1);
    let consent = to_consent(&b, &s, &path).await;
    assert_eq!(consent.status, StatusCode::OK, "{}", consent.text);
    let loc = allow(&b, &s, &consent, "allow").await;
    assert!(
        loc.starts_with("https://app.example/cb?x=1#access_token="),
        "{loc}"
    );
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
            vec![
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "S512"),
            ],
            "invalid_request",
        ),
        (
            "code",
            vec![("code_challenge_method", "S256")],
            "invalid_request",
        ),
        ("code", vec![("code_challenge", "short")], "invalid_request"),
        (
            "code",
            vec![("scope", "read"), ("scope", "write")],
            "invalid_request",
        ),
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
        q.append_pair("response_type", "code")
            .append_pair("client_id", &c.id);
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
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("next", evil)
            .finish();
        let page = get(&b, &s, &format!("/accounts/login/?{q}")).await;
        assert!(!page.text.contains("evil.example"), "{evil}");
        let mut form = hidden_fields(&page.text);
        form.retain(|(k, _)| k != "next");
        form.push(("next".into(), evil.into()));
        form.push(("username".into(), "ann".into()));
        form.push(("password".into(), "pw-ann".into()));
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let r = post_form(&b, &s, "/accounts/login/", &form).await;
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
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    // login without (or with a wrong) token
    let r = post_form(
        &b,
        &s,
        "/accounts/login/",
        &[("username", "ann"), ("password", "pw-ann")],
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(
        r.header("set-cookie")
            .is_none_or(|c| !c.contains("hearth_session"))
    );
    let _ = get(&b, &s, "/accounts/login/").await;
    let r = post_form(
        &b,
        &s,
        "/accounts/login/",
        &[
            ("csrfmiddlewaretoken", &"a".repeat(43)),
            ("username", "ann"),
            ("password", "pw-ann"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // consent without the token: no code
    let consent = to_consent(&b, &s, &authorize_path(&c, "code", &[])).await;
    let mut form = hidden_fields(&consent.text);
    form.retain(|(k, _)| k != "csrfmiddlewaretoken");
    form.push(("allow".into(), "x".into()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = post_form(&b, &s, "/oauth/authorize/", &form).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.header("location").is_none());
    // logout without the token keeps the session; with it ends it
    let r = post_form(&b, &s, "/accounts/logout/", &[]).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let page = get(&b, &s, "/accounts/login/").await;
    assert!(page.text.contains("signed in as"));
    let form = hidden_fields(&page.text);
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = post_form(&b, &s, "/accounts/logout/", &form).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = get(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert!(location(&r).starts_with("/accounts/login/"), "signed out");
}

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

async fn revoke(s: &TestServer, c: &Client, t: &str) -> Resp {
    post_form(
        &s.client,
        s,
        "/oauth/revoke_token/",
        &[
            ("client_id", &c.id),
            ("client_secret", &c.secret),
            ("token", t),
        ],
    )
    .await
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
async fn brute_force_limit_on_the_password_grant() {
    let s = TestServer::start_with(|c| {
        c.login_max_failures = 3;
        c.trust_proxy = true;
    })
    .await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Password, false, false);
    let attempt = |user: &'static str, pw: &'static str, ip: &'static str| {
        let s = &s;
        let id = c.id.clone();
        async move {
            TestServer::read(
                s.client
                    .post(format!("{}/oauth/token/", s.url))
                    .header("x-forwarded-for", format!("{ip}, 10.0.0.1"))
                    .form(&[
                        ("grant_type", "password"),
                        ("client_id", id.as_str()),
                        ("username", user),
                        ("password", pw),
                    ])
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    // per username, whatever the address
    for ip in ["192.0.2.1", "192.0.2.2", "192.0.2.3"] {
        assert_eq!(
            attempt("ann", "wrong", ip).await.json()["error"],
            "invalid_grant"
        );
    }
    let r = attempt("ANN", "pw-ann", "192.0.2.4").await;
    assert_eq!(
        r.status,
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password"
    );
    let secs: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=300).contains(&secs));
    assert!(r.json()["error"].is_string());
    s.clock.advance(300 * SECOND);
    // a success resets the username's count
    assert_eq!(
        attempt("ann", "wrong", "192.0.2.5").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        attempt("ann", "wrong", "192.0.2.6").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        attempt("ann", "pw-ann", "192.0.2.7").await.status,
        StatusCode::OK
    );
    assert_eq!(
        attempt("ann", "wrong", "192.0.2.8").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        attempt("ann", "wrong", "192.0.2.9").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        attempt("ann", "pw-ann", "192.0.2.10").await.status,
        StatusCode::OK
    );
    // per address, unknown usernames included
    for u in ["nobody1", "nobody2", "nobody3"] {
        assert_eq!(
            attempt(u, "x", "198.51.100.1").await.status,
            StatusCode::BAD_REQUEST
        );
    }
    assert_eq!(
        attempt("ann", "pw-ann", "198.51.100.1").await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        attempt("ann", "pw-ann", "198.51.100.2").await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn brute_force_limit_on_the_login_form() {
    let s = TestServer::start_with(|c| c.login_max_failures = 2).await;
    s.user("ann", Some("pw-ann"), false);
    let b = browser();
    for _ in 0..2 {
        let r = sign_in(&b, &s, "/accounts/login/", "ann", "wrong").await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(
            r.text
                .contains("Please enter a correct username and password")
        );
    }
    let r = sign_in(&b, &s, "/accounts/login/", "ann", "pw-ann").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(r.header("retry-after").is_some());
    assert!(r.text.contains("<form") && r.text.contains("Too many failed sign-in attempts"));
    s.clock.advance(301 * SECOND);
    let r = sign_in(&b, &s, "/accounts/login/", "ann", "pw-ann").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
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
async fn cookies_are_secure_behind_https() {
    let s = TestServer::start_with(|c| {
        c.public_url = hearth::model::PublicUrl("https://hearth.example".into());
    })
    .await;
    s.user("ann", Some("pw-ann"), false);
    let b = browser();
    let page = get(&b, &s, "/accounts/login/").await;
    let csrf_cookie = page.header("set-cookie").unwrap();
    assert!(csrf_cookie.contains("; Secure"), "{csrf_cookie}");
    // the test client speaks plain http, so send the cookie by hand
    let csrf = hidden_fields(&page.text)[0].1.clone();
    let r = TestServer::read(
        b.post(format!("{}/accounts/login/", s.url))
            .header("cookie", format!("hearth_csrf={csrf}"))
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

#[tokio::test]
async fn sessions_expire() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::AuthorizationCode, true, false);
    let b = browser();
    let consent = to_consent(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert_eq!(consent.status, StatusCode::OK);
    s.clock.advance(12 * 3600 * SECOND);
    let r = get(&b, &s, &authorize_path(&c, "code", &[])).await;
    assert_eq!(r.status, StatusCode::FOUND);
    assert!(location(&r).starts_with("/accounts/login/"));
    // and the old consent form no longer works
    let mut form = hidden_fields(&consent.text);
    form.push(("allow".into(), "x".into()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = post_form(&b, &s, "/oauth/authorize/", &form).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
}

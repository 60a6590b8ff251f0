//! OAuth 2.0 over real HTTP: the browser flows through the login and consent forms,
//! the token endpoint's grants, refresh rotation, revocation, and the brute-force limit.

use std::collections::HashMap;

use hearth::clock::SECOND;
use hearth::model::app::{App, AppGrant};
use hearth::token;
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::{Resp, TestServer};

mod browser;
mod forms;
mod grants;
mod limits;

const CB: &str = "https://app.example/cb?x=1";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
/// The authorize parameters of an S256 challenge for [`VERIFIER`].
const S256: [(&str, &str); 2] = [("code_challenge", CHALLENGE), ("code_challenge_method", "S256")];

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
    s.db_write(|tx| hearth::db::apps::insert(tx, &a));
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
    TestServer::read(b.post(format!("{}{}", s.url, path)).form(form).send().await.unwrap()).await
}

async fn token(s: &TestServer, form: &[(&str, &str)]) -> Resp {
    token_with(s, form, |r| r).await
}

/// POSTs a form to the token endpoint with `extra` request settings (HTTP Basic,
/// `X-Forwarded-For`).
async fn token_with(
    s: &TestServer,
    form: &[(&str, &str)],
    extra: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
) -> Resp {
    let rb = s.client.post(format!("{}/oauth/token/", s.url)).form(form);
    TestServer::read(extra(rb).send().await.unwrap()).await
}

/// POSTs owned form fields (hidden fields read from a page, and more).
async fn submit(
    b: &reqwest::Client,
    s: &TestServer,
    path: &str,
    form: &[(String, String)],
) -> Resp {
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    post_form(b, s, path, &form).await
}

/// The user ann (password `pw-ann`) and an app: how most flows start.
fn ann_with_app(
    s: &TestServer,
    grant: AppGrant,
    confidential: bool,
    skip_consent: bool,
) -> (i64, Client) {
    let ann = s.user("ann", Some("pw-ann"), false);
    (ann, app(s, grant, confidential, skip_consent))
}

/// A password grant's form.
fn password_grant<'a>(c: &'a Client, user: &'a str, pw: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![("grant_type", "password"), ("client_id", &c.id), ("username", user), ("password", pw)]
}

/// A refresh grant's form (no client secret).
fn refresh_grant<'a>(c: &'a Client, refresh: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![("grant_type", "refresh_token"), ("client_id", &c.id), ("refresh_token", refresh)]
}

/// The access and refresh tokens of a token response.
fn issued(r: &Resp) -> (String, String) {
    let j = r.json();
    let text = |k: &str| j[k].as_str().unwrap().to_owned();
    (text("access_token"), text("refresh_token"))
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
            let name = chunk.split("name=\"").nth(1).unwrap().split('"').next().unwrap();
            let value = chunk.split("value=\"").nth(1).unwrap().split('"').next().unwrap();
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
    url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect()
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
    submit(b, s, "/accounts/login/", &form).await
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
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(!cookie.contains("Secure"));
    get(b, s, &back).await
}

/// Sends a consent page's form with `decision` (allow or deny).
async fn decide(b: &reqwest::Client, s: &TestServer, consent: &Resp, decision: &str) -> Resp {
    let mut form = hidden_fields(&consent.text);
    form.push((decision.into(), "x".into()));
    submit(b, s, "/oauth/authorize/", &form).await
}

/// Decides on a consent page; returns the redirect to the client.
async fn allow(b: &reqwest::Client, s: &TestServer, consent: &Resp, decision: &str) -> String {
    let r = decide(b, s, consent, decision).await;
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

async fn revoke(s: &TestServer, c: &Client, t: &str) -> Resp {
    post_form(
        &s.client,
        s,
        "/oauth/revoke_token/",
        &[("client_id", &c.id), ("client_secret", &c.secret), ("token", t)],
    )
    .await
}

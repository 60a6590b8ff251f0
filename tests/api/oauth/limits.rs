//! The brute-force limit on password checks.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

use super::*;

#[tokio::test]
async fn brute_force_limit_on_the_password_grant() {
    let s = TestServer::start_with(|c| {
        c.login_max_failures = 3;
        // the test client on loopback is a proxy, and so is 10.0.0.1, the hop it names
        c.trusted_proxies = hearth::config::loopback_proxies();
        c.trusted_proxies
            .push(hearth::config::parse_trusted_proxy("10.0.0.0/8").unwrap());
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
async fn forwarded_for_is_ignored_without_trust_proxy() {
    let s = TestServer::start_with(|c| c.login_max_failures = 2).await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Password, false, false);
    let mut last = StatusCode::OK;
    for (i, user) in ["u1", "u2", "ann"].iter().enumerate() {
        let r = TestServer::read(
            s.client
                .post(format!("{}/oauth/token/", s.url))
                .header("x-forwarded-for", format!("203.0.113.{i}"))
                .form(&[
                    ("grant_type", "password"),
                    ("client_id", c.id.as_str()),
                    ("username", user),
                    ("password", if *user == "ann" { "pw-ann" } else { "x" }),
                ])
                .send()
                .await
                .unwrap(),
        )
        .await;
        last = r.status;
    }
    assert_eq!(
        last,
        StatusCode::TOO_MANY_REQUESTS,
        "the TCP peer is the address"
    );
}

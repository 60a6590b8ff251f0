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

/// 40 wrong passwords for one username, all at once: each request reserves its check
/// before hashing, so no more than the limit are ever checked (SPEC §4).
#[tokio::test]
async fn parallel_wrong_passwords_get_at_most_the_limit_of_checks() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Password, false, false);
    let form = [
        ("grant_type", "password"),
        ("client_id", c.id.as_str()),
        ("username", "ann"),
        ("password", "wrong"),
    ];
    let burst = (0..40).map(|_| token(&s, &form));
    let answers = futures_util::future::join_all(burst).await;
    let checked = answers
        .iter()
        .filter(|r| r.status == StatusCode::BAD_REQUEST)
        .count();
    let throttled = answers
        .iter()
        .filter(|r| r.status == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(checked, 10, "password checks that ran");
    assert_eq!(throttled, 30);
}

/// The same through the login form.
#[tokio::test]
async fn parallel_wrong_passwords_on_the_login_form() {
    let s = TestServer::start().await;
    s.user("ann", Some("pw-ann"), false);
    let b = browser();
    let page = get(&b, &s, "/accounts/login/").await;
    let mut form = hidden_fields(&page.text);
    form.push(("username".into(), "ann".into()));
    form.push(("password".into(), "wrong".into()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let burst = (0..30).map(|_| post_form(&b, &s, "/accounts/login/", &form));
    let answers = futures_util::future::join_all(burst).await;
    let checked = answers
        .iter()
        .filter(|r| r.status == StatusCode::OK)
        .count();
    let throttled = answers
        .iter()
        .filter(|r| r.status == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!((checked, throttled), (10, 20));
}

/// Behind a trusted proxy the client writes the left of `X-Forwarded-For` and the proxy
/// appends the address it saw: rotating the left part changes nothing.
#[tokio::test]
async fn spoofed_forwarded_for_entries_do_not_escape_the_address_limit() {
    let s = TestServer::start_with(|c| {
        c.login_max_failures = 3;
        c.trusted_proxies = hearth::config::loopback_proxies();
    })
    .await;
    s.user("ann", Some("pw-ann"), false);
    let c = app(&s, AppGrant::Password, false, false);
    let mut statuses = Vec::new();
    for i in 0..6 {
        let r = TestServer::read(
            s.client
                .post(format!("{}/oauth/token/", s.url))
                // what the client wrote, then what the proxy saw
                .header("x-forwarded-for", format!("10.9.9.{i}, 203.0.113.7"))
                .form(&[
                    ("grant_type", "password"),
                    ("client_id", c.id.as_str()),
                    ("username", format!("nobody{i}").as_str()),
                    ("password", "x"),
                ])
                .send()
                .await
                .unwrap(),
        )
        .await;
        statuses.push(r.status.as_u16());
    }
    assert_eq!(statuses, [400, 400, 400, 429, 429, 429]);
    // another real client behind the same proxy is not affected
    let r = TestServer::read(
        s.client
            .post(format!("{}/oauth/token/", s.url))
            .header("x-forwarded-for", "203.0.113.8")
            .form(&[
                ("grant_type", "password"),
                ("client_id", c.id.as_str()),
                ("username", "ann"),
                ("password", "pw-ann"),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
}

/// Clients that hang up while their (right) password is being checked: each check
/// still runs to its end and counts for what it found, so the address is not throttled
/// by checks that succeeded (wrk closing its connections at the end of a run did that).
#[tokio::test]
async fn hung_up_checks_count_for_what_they_found() {
    let s = TestServer::start_with(|c| c.login_max_failures = 3).await;
    let ann = s.user("ann", None, false);
    // a slow hash, so that every client below hangs up in the middle of its check
    let slow = hearth::token::password::hash("pw-ann", 200_000);
    s.state
        .db
        .with_writer(|c| c.execute("UPDATE user SET password = ?1 WHERE id = ?2", (slow, ann)))
        .unwrap();
    let c = app(&s, AppGrant::Password, false, false);
    let impatient = reqwest::Client::builder()
        .timeout(std::time::Duration::from_millis(30))
        .build()
        .unwrap();
    let form = [
        ("grant_type", "password"),
        ("client_id", c.id.as_str()),
        ("username", "ann"),
        ("password", "pw-ann"),
    ];
    let url = format!("{}/oauth/token/", s.url);
    // as many as the limit: while they run they count (SPEC §4), so a fourth would be
    // refused; once they end, they count for what they found
    for _ in 0..3 {
        let r = impatient.post(&url).form(&form).send().await;
        assert!(r.is_err(), "answered before the client hung up");
    }
    // the clock stands still: a check counted as a failure would throttle for good
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let r = token(&s, &form).await;
        if r.status == StatusCode::OK {
            break;
        }
        assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text);
        assert!(
            std::time::Instant::now() < deadline,
            "still throttled: the hung-up checks were counted as failures"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

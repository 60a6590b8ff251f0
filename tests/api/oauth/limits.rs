//! The brute-force limit on password checks.

use super::*;

#[tokio::test]
async fn brute_force_limit_on_the_password_grant() {
    let s = TestServer::start_with(|c| {
        c.login_max_failures = 3;
        // the test client on loopback is a proxy, and so is 10.0.0.1, the hop it names
        c.trusted_proxies = hearth::config::loopback_proxies();
        c.trusted_proxies.push(hearth::config::parse_trusted_proxy("10.0.0.0/8").unwrap());
    })
    .await;
    let (_, c) = ann_with_app(&s, AppGrant::Password, false, false);
    let attempt = |user: &'static str, pw: &'static str, ip: &'static str| {
        let (s, c) = (&s, &c);
        async move {
            let forwarded = format!("{ip}, 10.0.0.1");
            let form = password_grant(c, user, pw);
            token_with(s, &form, |rb| rb.header("x-forwarded-for", forwarded)).await
        }
    };
    // per username, whatever the address
    for ip in ["192.0.2.1", "192.0.2.2", "192.0.2.3"] {
        assert_eq!(attempt("ann", "wrong", ip).await.json()["error"], "invalid_grant");
    }
    let r = attempt("ANN", "pw-ann", "192.0.2.4").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "even the right password");
    let secs: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=300).contains(&secs));
    assert!(r.json()["error"].is_string());
    s.clock.advance(300 * SECOND);
    let (bad, ok, many) = (StatusCode::BAD_REQUEST, StatusCode::OK, StatusCode::TOO_MANY_REQUESTS);
    for (user, pw, ip, want) in [
        // a success resets the username's count
        ("ann", "wrong", "192.0.2.5", bad),
        ("ann", "wrong", "192.0.2.6", bad),
        ("ann", "pw-ann", "192.0.2.7", ok),
        ("ann", "wrong", "192.0.2.8", bad),
        ("ann", "wrong", "192.0.2.9", bad),
        ("ann", "pw-ann", "192.0.2.10", ok),
        // per address, unknown usernames included
        ("nobody1", "x", "198.51.100.1", bad),
        ("nobody2", "x", "198.51.100.1", bad),
        ("nobody3", "x", "198.51.100.1", bad),
        ("ann", "pw-ann", "198.51.100.1", many),
        ("ann", "pw-ann", "198.51.100.2", ok),
    ] {
        assert_eq!(attempt(user, pw, ip).await.status, want, "{user} from {ip}");
    }
}

#[tokio::test]
async fn brute_force_limit_on_the_login_form() {
    let s = TestServer::start_with(|c| c.login_max_failures = 2).await;
    s.user("ann", Some("pw-ann"), false);
    let b = browser();
    for _ in 0..2 {
        let r = sign_in(&b, &s, "/accounts/login/", "ann", "wrong").await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(r.text.contains("Please enter a correct username and password"));
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
    let (_, c) = ann_with_app(&s, AppGrant::Password, false, false);
    let mut last = StatusCode::OK;
    for (i, user) in ["u1", "u2", "ann"].iter().enumerate() {
        let form = password_grant(&c, user, if *user == "ann" { "pw-ann" } else { "x" });
        let forwarded = format!("203.0.113.{i}");
        last = token_with(&s, &form, |rb| rb.header("x-forwarded-for", forwarded)).await.status;
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS, "the TCP peer is the address");
}

/// 40 wrong passwords for one username, all at once: each request reserves its check
/// before hashing, so no more than the limit are ever checked (SPEC §4).
#[tokio::test]
async fn parallel_wrong_passwords_get_at_most_the_limit_of_checks() {
    let s = TestServer::start().await;
    let (_, c) = ann_with_app(&s, AppGrant::Password, false, false);
    let form = password_grant(&c, "ann", "wrong");
    let burst = (0..40).map(|_| token(&s, &form));
    let answers = futures_util::future::join_all(burst).await;
    let checked = count(&answers, StatusCode::BAD_REQUEST);
    assert_eq!(checked, 10, "password checks that ran");
    assert_eq!(count(&answers, StatusCode::TOO_MANY_REQUESTS), 30);
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
    let burst = (0..30).map(|_| submit(&b, &s, "/accounts/login/", &form));
    let answers = futures_util::future::join_all(burst).await;
    let checked = count(&answers, StatusCode::OK);
    let throttled = count(&answers, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!((checked, throttled), (10, 20));
}

/// How many of `answers` have `status`.
fn count(answers: &[Resp], status: StatusCode) -> usize {
    answers.iter().filter(|r| r.status == status).count()
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
    let (_, c) = ann_with_app(&s, AppGrant::Password, false, false);
    let mut statuses = Vec::new();
    for i in 0..6 {
        let user = format!("nobody{i}");
        let form = password_grant(&c, &user, "x");
        // what the client wrote, then what the proxy saw
        let forwarded = format!("10.9.9.{i}, 203.0.113.7");
        let r = token_with(&s, &form, |rb| rb.header("x-forwarded-for", forwarded)).await;
        statuses.push(r.status.as_u16());
    }
    assert_eq!(statuses, [400, 400, 400, 429, 429, 429]);
    // another real client behind the same proxy is not affected
    let form = password_grant(&c, "ann", "pw-ann");
    let r = token_with(&s, &form, |rb| rb.header("x-forwarded-for", "203.0.113.8")).await;
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
    let impatient =
        reqwest::Client::builder().timeout(std::time::Duration::from_millis(30)).build().unwrap();
    let form = password_grant(&c, "ann", "pw-ann");
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

/// Issue 27, Medium 7: an imported hash at another iteration count (Django's 36,000,
/// here 1,000) is replaced by one at hearth's own cost on the next sign-in, which
/// keeps working; a hash over the maximum is never checked (the user is refused, the
/// answer as fast as any other).
#[tokio::test]
async fn an_imported_hash_is_rehashed_at_the_next_sign_in() {
    use hearth::token::password::{DEFAULT_ITERATIONS, MAX_ITERATIONS, hash};
    let s = TestServer::start().await;
    let (ann, c) = ann_with_app(&s, AppGrant::Password, false, false);
    let stored = |id: i64| {
        s.db_read(move |conn| {
            conn.query_row("SELECT password FROM user WHERE id = ?1", [id], |r| {
                r.get::<_, String>(0)
            })
        })
    };
    let set = |id: i64, h: String| {
        s.db_write(move |tx| {
            tx.execute("UPDATE user SET password = ?2 WHERE id = ?1", rusqlite::params![id, h])
        });
    };
    set(ann, hash("pw-ann", 1000));
    // a wrong guess leaves the hash alone
    let r = token(&s, &password_grant(&c, "ann", "wrong")).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    assert!(stored(ann).starts_with("pbkdf2_sha256$1000$"));
    let r = token(&s, &password_grant(&c, "ann", "pw-ann")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let now = stored(ann);
    assert!(now.starts_with(&format!("pbkdf2_sha256${DEFAULT_ITERATIONS}$")), "{now}");
    assert!(hearth::token::password::verify("pw-ann", &now));
    // and the new hash works (and is left as it is)
    let r = token(&s, &password_grant(&c, "ann", "pw-ann")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(stored(ann), now);
    // more iterations than hearth's own are brought down too
    set(ann, hash("pw-ann", DEFAULT_ITERATIONS + 1));
    assert_eq!(token(&s, &password_grant(&c, "ann", "pw-ann")).await.status, StatusCode::OK);
    assert!(stored(ann).starts_with(&format!("pbkdf2_sha256${DEFAULT_ITERATIONS}$")));
    // over the maximum (a row from before the importer refused it): never checked
    let huge = hash("pw-ann", 1).replacen("$1$", &format!("${}$", MAX_ITERATIONS + 1), 1);
    set(ann, huge.clone());
    let started = std::time::Instant::now();
    let r = token(&s, &password_grant(&c, "ann", "pw-ann")).await;
    assert_eq!(r.json()["error"], "invalid_grant");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(stored(ann), huge);
}

/// Issue 27, Low 13: the login limiter counts an IPv6 client by its /64, so the 2^64
/// addresses one subscriber holds are one address to it; another /64 is another client.
#[tokio::test]
async fn ipv6_clients_are_limited_by_their_slash_64() {
    let s = TestServer::start_with(|c| {
        c.login_max_failures = 3;
        c.trusted_proxies = hearth::config::loopback_proxies();
    })
    .await;
    let (_, c) = ann_with_app(&s, AppGrant::Password, false, false);
    s.user("bob", Some("pw-bob"), false);
    let attempt = |user: &'static str, pw: &'static str, ip: &'static str| {
        let (s, c) = (&s, &c);
        async move {
            let form = password_grant(c, user, pw);
            token_with(s, &form, |rb| rb.header("x-forwarded-for", ip)).await
        }
    };
    // three failures from three addresses of one /64, each for another username
    for (user, ip) in
        [("x1", "2001:db8:1:2::1"), ("x2", "2001:db8:1:2::2"), ("x3", "2001:db8:1:2:f::3")]
    {
        assert_eq!(attempt(user, "wrong", ip).await.status, StatusCode::BAD_REQUEST);
    }
    let r = attempt("ann", "pw-ann", "2001:db8:1:2:ffff::9").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "a fourth address of the /64: {}", r.text);
    // the next /64 is someone else
    let r = attempt("bob", "pw-bob", "2001:db8:1:3::1").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

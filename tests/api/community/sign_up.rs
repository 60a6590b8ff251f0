//! Sign-up and password recovery by mail (SPEC §10 People): off without a relay, a
//! mailed code that works once and not for long, an answer that never tells whether an
//! address has an account, and limits that hold under parallel requests.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};
use crate::smtp_sink::{Sink, code_in};

async fn with_relay(rate: u32) -> (TestServer, Sink) {
    let sink = Sink::start().await;
    let url = sink.url.parse().unwrap();
    let s = TestServer::start_with(|c| {
        c.smtp_url = Some(url);
        c.mail_rate = rate;
    })
    .await;
    (s, sink)
}

fn stored_password(s: &TestServer, username: &str) -> Option<String> {
    let name = username.to_owned();
    s.db_read(move |c| {
        c.query_row("SELECT max(password) FROM user WHERE username = ?1", [&name], |r| r.get(0))
    })
}

#[tokio::test]
async fn without_a_relay_sign_up_and_recovery_are_off_and_say_so() {
    let s = TestServer::start().await;
    let body = json!({"username": "ann", "email": "ann@example.org", "password": "long enough"});
    let r = s.post("/api/v2/account/create/", None, body).await;
    r.assert_error(StatusCode::FORBIDDEN, "permission_denied");
    assert!(
        r.text.contains("Sign-up, password recovery and address changes are off"),
        "{}",
        r.text
    );
    let r = s.post("/api/v2/account/recover/", None, json!({"email": "ann@example.org"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(
        s.db_read(|c| c.query_row("SELECT count(*) FROM user", [], |r| r.get::<_, i64>(0))),
        0
    );
}

#[tokio::test]
async fn a_sign_up_is_made_by_its_mailed_code_once_and_signs_the_member_in() {
    let (s, sink) = with_relay(10).await;
    s.db_write(|tx| {
        tx.execute(
            "UPDATE preference SET value = '\"https://site.example/verify/{validation_code}\"'
             WHERE section = 'configurations' AND name = 'url_template_verify_email'",
            [],
        )
    });
    let body = json!({"username": "Ann", "email": "ann@example.org", "password": "long enough"});
    let r = s.post("/api/v2/account/create/", None, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.json(), json!({"username": "Ann", "email": "ann@example.org"}));
    let mail = &sink.wait_for(1).await[0];
    assert_eq!(mail.to, ["ann@example.org"]);
    let code = code_in(mail);
    assert!(mail.data.contains(&format!("https://site.example/verify/{code}")), "{}", mail.data);
    // no account until the code comes back, and the code is not stored as sent
    assert_eq!(stored_password(&s, "Ann"), None);
    let kept: Vec<u8> =
        s.db_read(|c| c.query_row("SELECT code_hash FROM account_code", [], |r| r.get(0)));
    assert_eq!(kept, hearth::token::storage_hash(&code).to_vec());
    let r = s.post("/api/v2/account/verify/", None, json!({"validation_code": "nope"})).await;
    r.assert_field_error("validation_code", "invalid");
    let r = s.post("/api/v2/account/verify/", None, json!({"validation_code": code})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(j["user_awaiting_approval"], json!(false));
    let token = j["token"]["access_token"].as_str().unwrap().to_owned();
    let me = s.get("/api/v2/user/me/", Some(&token)).await.json();
    assert_eq!(
        (me["username"].clone(), me["email"].clone()),
        (json!("Ann"), json!("ann@example.org"))
    );
    let hash = stored_password(&s, "Ann").unwrap();
    assert!(hearth::token::password::verify("long enough", &hash));
    // once
    let r = s.post("/api/v2/account/verify/", None, json!({"validation_code": code})).await;
    r.assert_field_error("validation_code", "invalid");
    // the name is taken now, whatever its case
    let again = json!({"username": "ANN", "email": "other@example.org", "password": "long enough"});
    s.post("/api/v2/account/create/", None, again).await.assert_field_error("username", "unique");
    s.assert_consistent();
}

#[tokio::test]
async fn while_staff_approve_new_members_a_verified_sign_up_waits_for_them() {
    let (s, sink) = with_relay(10).await;
    s.set_pref("configurations", "users_approval_enabled", json!(true));
    let body = json!({"username": "ann", "email": "ann@example.org", "password": "long enough"});
    assert_eq!(s.post("/api/v2/account/create/", None, body).await.status, StatusCode::CREATED);
    let code = code_in(&sink.wait_for(1).await[0]);
    let r = s.post("/api/v2/account/verify/", None, json!({"validation_code": code})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json(), json!({"user_awaiting_approval": true, "token": null}), "no token");
    let id: i64 =
        s.db_read(|c| c.query_row("SELECT id FROM user WHERE username = 'ann'", [], |r| r.get(0)));
    let (_, t) = s.login("bob");
    assert_eq!(s.get(&format!("/api/v2/user/{id}/"), Some(&t)).await.json()["reg_approved"], false);
    let waiting = s.db_read(hearth::db::users::awaiting_approval);
    assert_eq!(waiting.iter().map(|u| u.id).collect::<Vec<_>>(), [id]);
    // with the preference off again, a new sign-up is a member at once; ann still waits
    s.set_pref("configurations", "users_approval_enabled", json!(false));
    let body = json!({"username": "cid", "email": "cid@example.org", "password": "long enough"});
    assert_eq!(s.post("/api/v2/account/create/", None, body).await.status, StatusCode::CREATED);
    let code = code_in(&sink.wait_for(2).await[1]);
    let r = s.post("/api/v2/account/verify/", None, json!({"validation_code": code})).await;
    assert_eq!(r.json()["user_awaiting_approval"], false);
    assert!(r.json()["token"]["access_token"].is_string());
    assert_eq!(s.db_read(hearth::db::users::awaiting_approval).len(), 1);
}

#[tokio::test]
async fn signing_up_with_a_members_address_tells_only_the_address() {
    let (s, sink) = with_relay(10).await;
    s.db_write(|tx| {
        tx.execute("INSERT INTO user (username, username_key, email, date_joined) VALUES ('bob', 'bob', 'bob@example.org', 0)", [])
    });
    let body = json!({"username": "bobby", "email": "BOB@example.org", "password": "long enough"});
    let r = s.post("/api/v2/account/create/", None, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "the same answer as for a new address");
    let mail = &sink.wait_for(1).await[0];
    assert!(mail.data.contains("It already has one: bob"), "{}", mail.data);
    assert!(!mail.data.contains("enter this code"), "no code: {}", mail.data);
    assert_eq!(
        s.db_read(|c| c.query_row("SELECT count(*) FROM account_code", [], |r| r.get::<_, i64>(0))),
        0
    );
}

#[tokio::test]
async fn sign_up_checks_each_field() {
    let (s, sink) = with_relay(10).await;
    let cases = [
        (json!({"email": "a@example.org", "password": "long enough"}), "username", "required"),
        (
            json!({"username": "a b", "email": "a@example.org", "password": "long enough"}),
            "username",
            "invalid",
        ),
        (
            json!({"username": "a", "email": "not-an-address", "password": "long enough"}),
            "email",
            "invalid",
        ),
        (
            json!({"username": "a", "email": "a@example.org\r\nBcc: x@evil.example", "password": "long enough"}),
            "email",
            "invalid",
        ),
        (
            json!({"username": "a", "email": "a@example.org", "password": "short"}),
            "password",
            "invalid",
        ),
        (
            json!({"username": "a", "email": "a@example.org", "password": "long enough", "invite_code": "X"}),
            "invite_code",
            "invalid",
        ),
        (
            json!({"username": "a", "email": "a@example.org", "password": "long enough", "is_staff": true}),
            "is_staff",
            "invalid",
        ),
    ];
    for (body, field, code) in cases {
        let r = s.post("/api/v2/account/create/", None, body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text);
        assert!(r.text.contains(field), "{body}: {}", r.text);
        let _ = code;
    }
    assert!(sink.mails().is_empty());
}

#[tokio::test]
async fn recovery_answers_alike_for_every_address_and_its_code_sets_a_password_once() {
    let (s, sink) = with_relay(10).await;
    let ann = s.user("ann", Some("old password"), false);
    s.db_write(move |tx| {
        tx.execute("UPDATE user SET email = 'ann@example.org' WHERE id = ?1", [ann])
    });
    let r = s.post("/api/v2/account/recover/", None, json!({"email": "nobody@example.org"})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = s.post("/api/v2/account/recover/", None, json!({"email": "ANN@example.org"})).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let mails = sink.wait_for(1).await;
    assert_eq!(mails.len(), 1, "only the member's address gets mail");
    assert_eq!(mails[0].to, ["ann@example.org"]);
    let code = code_in(&mails[0]);
    let valid = |c: &str| json!({"validation_code": c});
    let r = s.post("/api/v2/account/verify/validation_code/", None, valid(&code)).await;
    assert_eq!(r.json(), json!({"is_valid": true}));
    let r = s.post("/api/v2/account/verify/validation_code/", None, valid("guess")).await;
    assert_eq!(r.json(), json!({"is_valid": false}));
    // a sign-up code is no recovery code
    let r = s
        .post(
            "/api/v2/account/reset/",
            None,
            json!({"validation_code": "guess", "password": "new password"}),
        )
        .await;
    r.assert_field_error("validation_code", "invalid");
    let r = s
        .post("/api/v2/account/reset/", None, json!({"validation_code": code, "password": "short"}))
        .await;
    r.assert_field_error("password", "invalid");
    let r = s
        .post(
            "/api/v2/account/reset/",
            None,
            json!({"validation_code": code, "password": "new password"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert!(hearth::token::password::verify("new password", &stored_password(&s, "ann").unwrap()));
    let r = s
        .post(
            "/api/v2/account/reset/",
            None,
            json!({"validation_code": code, "password": "third password"}),
        )
        .await;
    r.assert_field_error("validation_code", "invalid");
    let r = s.post("/api/v2/account/verify/validation_code/", None, valid(&code)).await;
    assert_eq!(r.json(), json!({"is_valid": false}));
}

#[tokio::test]
async fn a_recovery_code_expires_after_an_hour_and_a_newer_one_replaces_it() {
    let (s, sink) = with_relay(10).await;
    s.db_write(|tx| tx.execute("INSERT INTO user (username, username_key, email, date_joined) VALUES ('ann', 'ann', 'ann@example.org', 0)", []));
    let ask = || s.post("/api/v2/account/recover/", None, json!({"email": "ann@example.org"}));
    assert_eq!(ask().await.status, StatusCode::NO_CONTENT);
    let first = code_in(&sink.wait_for(1).await[0]);
    assert_eq!(ask().await.status, StatusCode::NO_CONTENT);
    let second = code_in(&sink.wait_for(2).await[1]);
    let valid = |c: &str| {
        s.post("/api/v2/account/verify/validation_code/", None, json!({"validation_code": c}))
    };
    assert_eq!(valid(&first).await.json(), json!({"is_valid": false}), "replaced");
    assert_eq!(valid(&second).await.json(), json!({"is_valid": true}));
    s.clock.advance(3600 * hearth::clock::SECOND);
    assert_eq!(valid(&second).await.json(), json!({"is_valid": false}), "expired");
}

#[tokio::test]
async fn mails_per_address_hold_under_parallel_requests() {
    let (s, sink) = with_relay(3).await;
    let asks = (0..12).map(|i| {
        let email = format!("someone{i}@example.org");
        let body =
            json!({"username": format!("someone{i}"), "email": email, "password": "long enough"});
        s.post("/api/v2/account/create/", None, body)
    });
    let answers = futures_util::future::join_all(asks).await;
    let made = answers.iter().filter(|r| r.status == StatusCode::CREATED).count();
    let throttled: Vec<_> =
        answers.iter().filter(|r| r.status == StatusCode::TOO_MANY_REQUESTS).collect();
    assert_eq!((made, throttled.len()), (3, 9), "three mails an hour for one client");
    assert!(throttled.iter().all(|r| r.header("retry-after").is_some()));
    assert_eq!(sink.wait_for(3).await.len(), 3);
}

async fn change(s: &TestServer, who: i64, token: &str, body: Value) -> Resp {
    s.patch(&format!("/api/v2/user/{who}/change_email/"), Some(token), body).await
}

async fn confirm(s: &TestServer, who: i64, token: &str, body: Value) -> Resp {
    s.post(&format!("/api/v2/user/{who}/confirm_email/"), Some(token), body).await
}

async fn check(s: &TestServer, token: &str, who: i64, code: &str) -> Resp {
    s.get(&format!("/api/v2/user/{who}/check_email_token/?email_token={code}"), Some(token)).await
}

#[tokio::test]
async fn a_new_address_is_the_members_only_once_its_mailed_code_comes_back() {
    let (s, sink) = with_relay(10).await;
    let (ann, a) = s.login("ann");
    let (bob, b) = s.login("bob");
    s.db_write(move |tx| {
        tx.execute("UPDATE user SET email = 'ann@example.org' WHERE id = ?1", [ann])?;
        tx.execute("UPDATE user SET email = 'bob@example.org' WHERE id = ?1", [bob])
    });
    // another member's id, another member's address, no proof, not an address
    assert_eq!(
        change(&s, ann, &b, json!({"new_email": "x@example.org", "confirm": true})).await.status,
        StatusCode::FORBIDDEN
    );
    change(&s, ann, &a, json!({"new_email": "BOB@example.org", "confirm": true}))
        .await
        .assert_field_error("new_email", "unique");
    change(&s, ann, &a, json!({"new_email": "new@example.org", "confirm": false}))
        .await
        .assert_field_error("confirm", "invalid");
    change(&s, ann, &a, json!({"new_email": "nope", "confirm": true}))
        .await
        .assert_field_error("new_email", "invalid");
    let r = change(
        &s,
        ann,
        &a,
        json!({"new_email": "new@example.org", "confirm": true, "send_email": true}),
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let mail = &sink.wait_for(1).await[0];
    assert_eq!(mail.to, ["new@example.org"], "the code goes to the new address");
    let code = code_in(mail);
    let address = |id: i64| {
        s.db_read(move |c| {
            c.query_row("SELECT email FROM user WHERE id = ?1", [id], |r| r.get::<_, String>(0))
        })
    };
    assert_eq!(address(ann), "ann@example.org", "nothing changes before the code comes back");
    assert_eq!(check(&s, &a, ann, &code).await.json(), json!({"is_valid": true}));
    assert_eq!(check(&s, &b, ann, &code).await.status, StatusCode::FORBIDDEN);
    // bob cannot use ann's code, not even on his own account
    let r = confirm(&s, bob, &b, json!({"new_email": "new@example.org", "validation_code": code}))
        .await;
    r.assert_field_error("validation_code", "invalid");
    let r =
        confirm(&s, ann, &a, json!({"new_email": "other@example.org", "validation_code": code}))
            .await;
    r.assert_field_error("validation_code", "invalid");
    let r = confirm(&s, ann, &a, json!({"new_email": "new@example.org", "validation_code": code}))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(address(ann), "new@example.org");
    assert_eq!(address(bob), "bob@example.org");
    let r = confirm(&s, ann, &a, json!({"new_email": "new@example.org", "validation_code": code}))
        .await;
    r.assert_field_error("validation_code", "invalid");
    assert_eq!(check(&s, &a, ann, &code).await.json(), json!({"is_valid": false}));
}

//! The route tables: every protected route rejects bad tokens and read-only writes, every
//! public read rejects bad tokens, and the tables, the router and the OpenAPI document agree.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]

use reqwest::{Method, StatusCode};
use serde_json::json;

use hearth::http::route::Auth;

use crate::common::{self, TestServer};

/// The endpoint declaration, as `(METHOD, documented template, auth class)`: the
/// tables of this file come from it, so a new endpoint is tested by being declared.
fn declared() -> Vec<(String, String, Auth)> {
    hearth::api::router()
        .endpoints()
        .map(|e| (e.method.to_string(), e.path.replace("{*", "{"), e.auth))
        .collect()
}

/// Every API endpoint that needs a caller (SPEC §5 "auth").
fn protected_routes() -> Vec<(String, String)> {
    declared()
        .into_iter()
        .filter(|(_, _, a)| matches!(a, Auth::User | Auth::Write | Auth::Staff))
        .map(|(m, p, _)| (m, p))
        .collect()
}

/// The API reads that need no caller (some only while `content_availability` is on);
/// a bad token on them is still 401 (SPEC §4).
fn public_routes() -> Vec<(String, String)> {
    declared()
        .into_iter()
        .filter(|(_, _, a)| matches!(a, Auth::Public | Auth::Ca))
        .map(|(m, p, _)| (m, p))
        .collect()
}

/// The API's POSTs for callers without an account: `verify_token` (it checks the body,
/// not a caller) and sign-up and recovery (SPEC §10 People: who calls them has no token
/// yet, or has lost its password). They ignore bearer tokens, take a few KiB at most
/// and are limited per client address (tests/api/community/sign_up.rs).
const NO_CALLER: [&str; 6] = [
    "/api/v2/jwt/verify_token/",
    "/api/v2/account/create/",
    "/api/v2/account/verify/",
    "/api/v2/account/verify/validation_code/",
    "/api/v2/account/recover/",
    "/api/v2/account/reset/",
];

/// The API's POSTs that only read: the kit's click tracker, which readers without an
/// account call too and which hearth answers without writing (tests/api/contributions/
/// shares.rs).
const READS_BY_POST: [&str; 1] = ["/api/v2/media/{id}/click/"];

#[test]
fn every_api_write_needs_the_write_scope_and_every_open_route_only_reads() {
    for (m, path, auth) in declared() {
        let reads = READS_BY_POST.contains(&path.as_str());
        let api = path.starts_with("/api/v2/") && !NO_CALLER.contains(&path.as_str()) && !reads;
        if api && m != "GET" {
            assert!(matches!(auth, Auth::Write | Auth::Staff), "{m} {path} is {auth:?}");
        }
        if matches!(auth, Auth::Public | Auth::Ca) && !reads {
            assert_eq!(m, "GET", "{path} is open to anonymous callers and writes");
        }
        if auth == Auth::None {
            assert!(!api || path == "/api/v2/schema/", "{m} {path} ignores bearer tokens");
        }
    }
}

/// One item of every kind, owned by `owner`, for the route tables.
struct Fixtures {
    owner: i64,
    media: i64,
    other: i64,
    discussion: i64,
    post: i64,
    status: i64,
    comment: i64,
    course: i64,
    section: i64,
    lesson: i64,
    lesson_comment: i64,
    category: i64,
    legal: i64,
    message: i64,
    group: i64,
    event: i64,
    tag: i64,
    adv: i64,
    page: i64,
}

impl Fixtures {
    async fn make(s: &TestServer) -> Fixtures {
        let owner = s.user("owner", None, false);
        let other = s.user("other", None, false);
        let t = s.jwt(owner);
        let create = |path: &'static str, body: serde_json::Value| {
            let t = t.clone();
            async move {
                let r = s.post(path, Some(&t), body).await;
                assert_eq!(r.status, StatusCode::CREATED, "{path}: {}", r.text);
                r.json()["id"].as_i64().unwrap()
            }
        };
        let discussion = create("/api/v2/discussion/", json!({"title": "d", "text": "d"})).await;
        let post = create("/api/v2/post/", json!({"text": "p"})).await;
        let status = create("/api/v2/status/", json!({"text": "s"})).await;
        let comment =
            create("/api/v2/comment/", json!({"text": "c", "discussion": discussion})).await;
        let course = create(
            "/api/v2/course/",
            json!({"name": "Fixture", "type": "self-paced", "privacy": "open"}),
        )
        .await;
        let r = s
            .post(&format!("/api/v2/course/{course}/section/"), Some(&t), json!({"name": "one"}))
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let section = r.json()["id"].as_i64().unwrap();
        // a published lesson in it, with a comment of the owner's
        let lessons = format!("/api/v2/course/{course}/section/{section}/lesson/");
        let r = s.post(&lessons, Some(&t), json!({"name": "L", "status": "published"})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let lesson = r.json()["id"].as_i64().unwrap();
        let r =
            s.post(&format!("{lessons}{lesson}/comment/"), Some(&t), json!({"text": "c"})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let lesson_comment = r.json()["id"].as_i64().unwrap();
        let category = s.category("Fixture category");
        // groups are on (their routes are 404 while off), one public group of the owner's
        s.set_pref("configurations", "groups_enabled", json!(true));
        let group = create("/api/v2/group/", json!({"name": "Fixture group"})).await;
        // events are on too, one public event of the owner's
        s.set_pref("configurations", "events_enabled", json!(true));
        let event = create(
            "/api/v2/event/",
            json!({"name": "Fixture event", "start_date": "2030-01-01T10:00:00Z",
                   "end_date": "2030-01-01T12:00:00Z", "recurring": "never",
                   "location": "virtual", "link": "https://meet.example/fixture"}),
        )
        .await;
        // a made data export of the owner's, for `/udp/download/`
        let now = s.clock.now();
        s.db_write(move |tx| {
            hearth::db::export::requested(tx, owner, now)?;
            hearth::db::export::generated(tx, owner, b"an archive", now)
        });
        // the terms and the privacy policy in force, for `/legal_page/...`
        let legal = s.db_write(move |tx| {
            hearth::db::legal::add(tx, "privacy", "Privacy", "<p>p</p>", now, now)?;
            let tec = hearth::db::legal::add(tx, "tec", "Terms", "<p>t</p>", now, now)?;
            // the owner's answer, for `/legal_page/{id}/user_ack/`
            hearth::db::legal::acknowledge(tx, tec, owner, true, now)?;
            Ok(tec)
        });
        // a private message from the owner, for `/pm/{id}/` (private messages on)
        s.set_pref("addons", "private_messages_enabled", json!(true));
        let r =
            s.post("/api/v2/pm/", Some(&t), json!({"recipients": [other], "message": "m"})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let message = r.json()[0]["id"].as_i64().unwrap();
        // a user tag, for `/tag/{id}/`
        let tag = s.db_write(move |tx| {
            let t = hearth::model::tag::TagInput {
                name: Some("Fixture tag".into()),
                ..Default::default()
            };
            hearth::db::tags::insert(tx, &t.new_tag(now), None)
        });
        // a picture of the owner's in the public event's gallery, for `/media/{id}/`
        let png = crate::common::png(2, 2);
        let media = s.db_write(move |tx| {
            let m =
                hearth::db::media_items::create(tx, owner, "png", "image/png", 2, 2, &png, now)?;
            hearth::db::events::gallery::add(tx, event, m, now)?;
            Ok(m)
        });
        // an active adv and a published custom page, for `/custom_adv/{id}/` and
        // `/custom_page/{id}/`; contact requests on, for `/contact/request/`
        let (adv, page) = s.db_write(move |tx| {
            use hearth::db::custom_content::{self, NewPage};
            let a = hearth::model::custom_adv::NewAdv {
                position: "BELOW_TOPBAR".into(),
                image: Some("/static/a.png".into()),
                active: true,
                ..Default::default()
            };
            let adv = custom_content::add_adv(tx, None, &a, now, now)?;
            let p = NewPage {
                id: None,
                slug: "about",
                title: "About",
                body: "<p>a</p>",
                valid_from: now,
                valid_to: None,
                active: true,
                created_at: now,
                updated_at: now,
            };
            Ok((adv, custom_content::add_page(tx, &p)?))
        });
        s.set_pref("configurations", "contact_api_enabled", json!(true));
        Fixtures {
            tag,
            media,
            adv,
            page,
            message,
            owner,
            other,
            discussion,
            post,
            status,
            comment,
            course,
            section,
            lesson,
            lesson_comment,
            category,
            legal,
            group,
            event,
        }
    }

    /// The path with its `{id}` (chosen by the segment before it; a user's settings and
    /// linked identities are the owner's, the only ones its token may read), `{section_id}` and `{path}` filled
    /// in; `unknown` fills ids that do not exist instead.
    fn fill(&self, path: &str, unknown: bool) -> String {
        // the reads of one's own account: the owner's id
        let settings = path.ends_with("/settings/")
            || path.ends_with("/check_email_token/")
            || path.ends_with("/provider/");
        let mut out = Vec::new();
        let mut prev = "";
        for seg in path.split('/') {
            let filled = match seg {
                "{id}" if unknown => "999999".to_owned(),
                "{section_id}" if unknown => "999998".to_owned(),
                "{lesson_id}" if unknown => "999997".to_owned(),
                "{comment_id}" if unknown => "999996".to_owned(),
                "{id}" => match prev {
                    "user" if settings => self.owner,
                    "user" => self.other,
                    "category" => self.category,
                    "discussion" => self.discussion,
                    "post" => self.post,
                    "status" => self.status,
                    "comment" => self.comment,
                    "course" => self.course,
                    "reaction" => 1,
                    "dynamic_preference" => 1,
                    "custom_menu" => 1,
                    // the moderation routes: the post (their `contribution_type` is a query)
                    "contribution" => self.post,
                    "legal_page" => self.legal,
                    "pm" => self.message,
                    "group" => self.group,
                    "event" => self.event,
                    "tag" => self.tag,
                    // the "appearance" step, which hearth may start
                    "onboarding" => 3,
                    "media" => self.media,
                    "custom_adv" => self.adv,
                    "custom_page" => self.page,
                    "community" => 1,
                    other => panic!("no fixture for {other}/{{id}}"),
                }
                .to_string(),
                "{section_id}" => self.section.to_string(),
                "{lesson_id}" => self.lesson.to_string(),
                "{comment_id}" => self.lesson_comment.to_string(),
                "{path}" => "reactions/like.svg".to_owned(),
                s => s.to_owned(),
            };
            prev = seg;
            out.push(filled);
        }
        let path = out.join("/");
        // the moderation routes of one contribution name its kind in the query
        if path.starts_with("/api/v2/moderation/contribution/") && path.ends_with("/status/")
            || path.starts_with("/api/v2/moderation/contribution/") && path.ends_with("/flag/")
        {
            return format!("{path}?contribution_type=post");
        }
        path
    }
}

/// The routes only staff may call (a member is 403 whatever its token): moderation,
/// the flag lists, user tags, onboarding and the control panel's link.
fn staff_only(m: &str, template: &str) -> bool {
    template == "/api/v2/user/me/platform_url/"
        || template.starts_with("/api/v2/moderation/")
        || (m == "GET" && template.ends_with("/flag/"))
        || template.starts_with("/api/v2/tag/")
        || template.starts_with("/api/v2/onboarding/")
        || template == "/api/v2/sso/signup/"
        || (m == "POST" && template == "/api/v2/user/{id}/provider/")
}

fn method(m: &str) -> Method {
    Method::from_bytes(m.as_bytes()).unwrap()
}

fn body_for(m: &Method) -> Option<serde_json::Value> {
    (m != Method::GET && m != Method::HEAD).then(|| json!({}))
}

/// The bodies a bad-token call sends: none on a read; on a write an empty object and one
/// that is not an object, which must not matter before authentication either.
fn bad_token_bodies(m: &str) -> Vec<Option<serde_json::Value>> {
    let Some(empty) = body_for(&method(m)) else {
        return vec![None];
    };
    vec![Some(empty), Some(json!("not an object"))]
}

#[tokio::test]
async fn every_protected_route_rejects_bad_tokens() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let cases = common::bad_tokens(&s).await;
    for (m, template) in &protected_routes() {
        let bodies = bad_token_bodies(m);
        // auth is checked before existence: unknown ids are 401 too
        for unknown in [false, true] {
            let path = fx.fill(template, unknown);
            for ((what, token), body) in
                cases.iter().flat_map(|c| bodies.iter().map(move |b| (c, b)))
            {
                let r = s.call(method(m), &path, token.as_deref(), body.clone()).await;
                let at = format!("{m} {path}: {what}, body {body:?}");
                assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{at}");
                let (code, header) = if token.is_none() {
                    ("not_authenticated", r#"Bearer realm="api""#)
                } else {
                    ("authentication_failed", r#"Bearer realm="api", error="invalid_token""#)
                };
                assert_eq!(r.error_code(), code, "{at}");
                assert_eq!(r.header("www-authenticate"), Some(header), "{at}");
            }
        }
    }
}

#[tokio::test]
async fn a_read_only_token_may_not_write_anywhere() {
    // a control panel named, so that its link is served (else 404 by design)
    let s = TestServer::start_with(|c| c.platform_url = Some("https://panel.example".into())).await;
    let fx = Fixtures::make(&s).await;
    let read = s.oauth_token(fx.owner, "read");
    let staff_read = s.oauth_token(s.user("staffer", None, true), "read");
    let protected = protected_routes();
    for (m, template) in protected.iter().filter(|(m, _)| m != "GET") {
        for unknown in [false, true] {
            let path = fx.fill(template, unknown);
            let r = s.call(method(m), &path, Some(&read), body_for(&method(m))).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {path}: {}", r.text);
            assert_eq!(r.error_code(), "insufficient_scope", "{m} {path}");
            assert!(
                r.header("www-authenticate")
                    .is_some_and(|h| h.contains(r#"error="insufficient_scope""#)),
                "{m} {path}: {:?}",
                r.header("www-authenticate")
            );
        }
    }
    // and the reads still work with it, protected and public
    for (m, template) in protected.iter().filter(|(m, _)| m == "GET").chain(&public_routes()) {
        let path = fx.fill(template, false);
        let token = if staff_only(m, template) { &staff_read } else { &read };
        let r = s.call(method(m), &path, Some(token), None).await;
        assert!(r.status.is_success(), "{m} {path}: {}", r.text);
    }
}

#[tokio::test]
async fn a_bad_token_on_a_public_route_is_401() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let cases = common::bad_tokens(&s).await;
    for (m, template) in &public_routes() {
        let path = fx.fill(template, false);
        for (what, token) in &cases {
            let r = s.call(method(m), &path, token.as_deref(), None).await;
            if token.is_none() {
                assert!(r.status.is_success(), "{m} {path}: {what}: {}", r.text);
                continue;
            }
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{m} {path}: {what}");
            assert_eq!(r.error_code(), "authentication_failed", "{m} {path}");
            assert_eq!(
                r.header("www-authenticate"),
                Some(r#"Bearer realm="api", error="invalid_token""#),
                "{m} {path}: {what}"
            );
        }
        // a bad token is 401 before a bad parameter is 400
        let r =
            s.call(method(m), &format!("{path}?limit=0"), Some("not-a-token.at.all"), None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{m} {path}?limit=0");
    }
}

#[tokio::test]
async fn the_openapi_document_and_the_router_agree() {
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let token = s.jwt(fx.owner);
    let doc = s.get("/api/v2/schema/", None).await.json();
    // the document is sound on its own (structure, references, SPEC §3 responses)
    let problems = crate::openapi::problems(&doc);
    assert!(
        problems.is_empty(),
        "the OpenAPI document has {} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let paths = doc["paths"].as_object().unwrap();
    // every declared endpoint is described, with its method and auth class
    for (m, template, auth) in declared() {
        let described = &paths[&template][m.to_ascii_lowercase()];
        assert_eq!(described["x-hearth-auth"], auth.as_str(), "{m} {template}");
    }
    // every described path is served: one of its methods answers something but 404
    // (reads first, so the walk deletes nothing it still needs)
    for (template, item) in paths {
        let mut methods: Vec<&str> = ["get", "post", "put", "patch", "delete"]
            .into_iter()
            .filter(|m| item.get(*m).is_some())
            .collect();
        assert!(!methods.is_empty(), "{template} documents no method");
        if template == "/media/{path}" {
            // served, but only for stored images: an unknown one is 404 by design
            continue;
        }
        methods.truncate(1);
        let path = fx.fill(template, false);
        let m = method(&methods[0].to_ascii_uppercase());
        let r = s.call(m.clone(), &path, Some(&token), body_for(&m)).await;
        assert_ne!(r.status, StatusCode::NOT_FOUND, "{m} {path}: {}", r.text);
        assert_ne!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{m} {path}");
        // and what it answered is documented for that operation
        let code = r.status.as_str();
        let op = &item[methods[0]];
        assert!(
            op["responses"].get(code).is_some() || op["responses"].get("default").is_some(),
            "{m} {path} answered {code}, which its operation does not document: {}",
            r.text
        );
    }
    // every operation that takes a typed body (JSON or multipart) refuses text/plain
    // with a 415 that it documents (preferences are staff-only: a staff caller there)
    let staff = s.jwt(s.user("staffer", None, true));
    for (template, item) in paths {
        for (m, op) in item.as_object().unwrap() {
            let body = &op["requestBody"];
            let typed = body["content"].get("application/json").is_some()
                || body["content"].get("multipart/form-data").is_some();
            if body["required"] != true || !typed {
                continue;
            }
            let path = fx.fill(template, false);
            let r = s
                .client
                .request(method(&m.to_ascii_uppercase()), format!("{}{path}", s.url))
                .bearer_auth(
                    if template.contains("dynamic_preference")
                        || staff_only(&m.to_ascii_uppercase(), template)
                    {
                        &staff
                    } else {
                        &token
                    },
                )
                .header("content-type", "text/plain")
                .body("x")
                .send()
                .await
                .unwrap();
            let r = TestServer::read(r).await;
            assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{m} {path}");
            assert!(op["responses"].get("415").is_some(), "{m} {template}: 415 undocumented");
        }
    }
    // and every documented path is declared (nothing described that is not served)
    let known: std::collections::BTreeSet<String> =
        declared().into_iter().map(|(_, p, _)| p).collect();
    for template in paths.keys() {
        assert!(known.contains(template), "{template} is documented, not declared");
    }
}

/// Whether an operation of the served document takes the shared `offset` parameter.
fn paginated(op: &serde_json::Value) -> bool {
    op["parameters"].as_array().is_some_and(|ps| {
        ps.iter().any(|p| p["$ref"] == "#/components/parameters/offset" || p["name"] == "offset")
    })
}

#[tokio::test]
async fn every_paginated_list_serves_offsets_up_to_the_cap_and_refuses_deeper_ones() {
    // issue 27 item 4: OFFSET costs what it skips, so every list stops at one cap
    let cap = hearth::http::pagination::MAX_OFFSET;
    let s = TestServer::start().await;
    let fx = Fixtures::make(&s).await;
    let owner = s.jwt(fx.owner);
    let staff = s.jwt(s.user("staffer", None, true));
    let doc = s.get("/api/v2/schema/", None).await.json();
    let mut lists = Vec::new();
    for (template, ops) in doc["paths"].as_object().unwrap() {
        if ops.get("get").is_some_and(paginated) {
            lists.push((fx.fill(template, false), staff_only("GET", template)));
        }
    }
    assert!(lists.len() >= 20, "the paginated lists of the document: {lists:?}");
    for (list, staff_only) in &lists {
        let token = if *staff_only { staff.clone() } else { owner.clone() };
        let sep = if list.contains('?') { '&' } else { '?' };
        let at = s.get(&format!("{list}{sep}offset={cap}"), Some(&token)).await;
        assert_eq!(at.status, StatusCode::OK, "{list} at the cap: {}", at.text);
        assert_eq!(at.json()["results"], json!([]), "{list}");
        for past in [format!("{}", cap + 1), "99999999999999999999".to_owned()] {
            let r = s.get(&format!("{list}{sep}limit=5&offset={past}"), Some(&token)).await;
            r.assert_field_error("offset", "max_value");
            assert!(
                r.text.contains(&cap.to_string()),
                "{list}: the message says the cap: {}",
                r.text
            );
        }
    }
}

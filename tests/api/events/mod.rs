//! Events (SPEC §10 "Groups, events and private messages"): the switch and its
//! preferences, the record and the kit's form, times in a named zone with recurrence,
//! the lists and their filters; the helpers shared by the scenario files below.

use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

mod feed;
pub(crate) mod gallery;
mod members;
mod privacy;

/// A server with events on (and private and hidden events allowed).
async fn server() -> TestServer {
    let s = TestServer::start().await;
    s.set_pref("configurations", "events_enabled", json!(true));
    s.set_pref("configurations", "events_private_enabled", json!(true));
    s.set_pref("configurations", "events_visibility_enabled", json!(true));
    s
}

/// RFC 3339 for the server's clock plus `hours`.
fn at(s: &TestServer, hours: i64) -> String {
    hearth::clock::rfc3339(s.clock.now() + hours * 3600 * hearth::clock::SECOND)
}

/// A JSON body for an online event from `from` to `to` hours from now, `extra` merged.
fn body(s: &TestServer, name: &str, from: i64, to: i64, extra: Value) -> Value {
    let mut b = json!({"name": name, "start_date": at(s, from), "end_date": at(s, to),
                       "recurring": "never", "location": "virtual",
                       "link": "https://meet.example/room"});
    if let (Some(o), Value::Object(e)) = (b.as_object_mut(), extra) {
        o.extend(e);
    }
    b
}

async fn create(s: &TestServer, tok: &str, body: Value) -> Value {
    s.create("/api/v2/event/", tok, body).await
}

/// The notifications of `tok`'s user: (type, event id) of each, newest first.
async fn event_notes(s: &TestServer, tok: &str) -> Vec<(String, i64)> {
    let page = s.get("/api/v2/notification/", Some(tok)).await.json();
    let mut out = Vec::new();
    for g in page["results"].as_array().unwrap() {
        for n in g["aggregated"].as_array().unwrap() {
            if let Some(id) = n["event"]["id"].as_i64() {
                out.push((n["type"].as_str().unwrap().to_owned(), id));
            }
        }
    }
    out
}

fn ok(r: &Resp) -> Value {
    assert!(r.status.is_success(), "{}: {}", r.status, r.text);
    r.json()
}

fn field_codes(r: &Resp) -> Vec<(String, String)> {
    assert_eq!(r.status, 400, "{}", r.text);
    r.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["field"].as_str().unwrap().into(), e["messages"][0]["code"].as_str().unwrap().into())
        })
        .collect()
}

/// While `configurations.events_enabled` is off (the default) every event route is
/// 404 and the features list leaves `event` out; on, they answer and it is listed
/// (with `tagging`, which the kit's CreateEventButton also needs); the staff-only,
/// private and hidden switches.
#[tokio::test]
async fn events_are_off_until_their_preference_is_on() {
    let s = TestServer::start().await;
    let a = s.user("ann", None, false);
    let t = s.jwt(a);
    let features = |v: Value| crate::common::texts(&v["results"], "name");
    assert!(!features(s.get("/api/v2/feature/", None).await.json()).contains(&"event".into()));
    for path in
        ["/api/v2/event/search/", "/api/v2/event/", "/api/v2/event/1/", "/api/v2/suggestion/event/"]
    {
        assert_eq!(s.status(path, Some(&t)).await, 404, "{path}");
    }
    let r = s.post("/api/v2/event/", Some(&t), body(&s, "Meetup", 1, 2, json!({}))).await;
    assert_eq!(r.status, 404, "{}", r.text);
    s.set_pref("configurations", "events_enabled", json!(true));
    let names = features(s.get("/api/v2/feature/", None).await.json());
    assert!(names.contains(&"event".into()) && names.contains(&"tagging".into()), "{names:?}");
    let e = create(&s, &t, body(&s, "Meetup", 1, 2, json!({}))).await;
    assert_eq!(e["privacy"], "public");
    s.set_pref("configurations", "events_only_staff_enabled", json!(true));
    let r = s.post("/api/v2/event/", Some(&t), body(&s, "Again", 1, 2, json!({}))).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let staff = s.jwt(s.user("root", None, true));
    let r = s
        .post(
            "/api/v2/event/",
            Some(&staff),
            body(&s, "Secret", 1, 2, json!({"privacy": "private"})),
        )
        .await;
    r.assert_field_error("privacy", "invalid_choice");
    let r = s
        .post("/api/v2/event/", Some(&staff), body(&s, "Secret", 1, 2, json!({"visible": false})))
        .await;
    r.assert_field_error("visible", "invalid");
    s.set_pref("configurations", "events_private_enabled", json!(true));
    let e = create(&s, &staff, body(&s, "Secret", 1, 2, json!({"privacy": "private"}))).await;
    assert_eq!(e["privacy"], "private");
    s.assert_consistent();
    s.stop().await;
}

/// The kit's form (multipart, with an image and invitations), the JSON it answers,
/// the rules of a body all at once, edits by admins only, and delete.
#[tokio::test]
async fn an_event_made_through_the_kits_form() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let (ta, tb) = (s.jwt(a), s.jwt(b));
    let form = reqwest::multipart::Form::new()
        .text("name", "Picnic <b>day</b>")
        .text("start_date", at(&s, 24))
        .text("end_date", at(&s, 27))
        .text("recurring", "never")
        .text("location", "in person")
        .text("geolocation", "Villa Borghese, Rome")
        .text("geolocation_lat", "41.914")
        .text("geolocation_lng", "12.485")
        .text("link", "")
        .text("live_stream_settings", "null")
        .text("privacy", "public")
        .text("visible", "true")
        .text("products", "[]")
        .text("description", "Bring <script>food</script>")
        .text("invite_users[0]", b.to_string())
        .text("invite_users[1]", c.to_string())
        .part(
            "image_original",
            crate::common::image_part(crate::common::png(700, 500), "a.png", "image/png"),
        );
    let r = crate::common::multipart(&s, reqwest::Method::POST, "/api/v2/event/", &ta, form).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let e = r.json();
    let id = e["id"].as_i64().unwrap();
    assert_eq!(e["name"], "Picnic <b>day</b>");
    assert_eq!(e["slug"], "picnic-b-day-b");
    assert_eq!(e["description"], "Bring <script>food</script>", "plain text, shown as text");
    assert_eq!(e["location"], "in person");
    assert_eq!(e["geolocation"], "Villa Borghese, Rome");
    assert_eq!(e["geolocation_lat"], 41.914);
    assert_eq!(e["link"], Value::Null);
    assert_eq!(e["timezone"], "UTC");
    assert_eq!(e["start_date"], at(&s, 24));
    assert_eq!(
        (e["running"].clone(), e["next_start_date"].clone()),
        (json!(false), json!(at(&s, 24)))
    );
    assert_eq!(e["subscription_status"], "going", "the creator goes");
    assert_eq!(
        (e["subscribers_counter"].clone(), e["goings_counter"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(e["managed_by"]["id"], a);
    // the answer is the event as its creator reads it (read once the write committed)
    let read = s.get(&format!("/api/v2/event/{id}/"), Some(&ta)).await;
    assert_eq!((read.status, read.json()), (reqwest::StatusCode::OK, e.clone()));
    for key in ["image_bigger", "image_big", "image_medium", "image_small"] {
        let url = e[key].as_str().unwrap();
        let path = url.split_once("/media/").map(|(_, p)| format!("/media/{p}")).unwrap();
        assert!(path.starts_with("/media/event/"), "{key}: {url}");
        assert_eq!(s.client.get(format!("{}{path}", s.url)).send().await.unwrap().status(), 200);
    }
    let invited = ok(&s.get(&format!("/api/v2/event/{id}/invite/"), Some(&ta)).await);
    assert_eq!(crate::common::ids(&invited["results"]), [b, c]);
    assert_eq!(event_notes(&s, &tb).await, [("user_invited_to_join_event".into(), id)]);
    assert_eq!(
        ok(&s.get(&format!("/api/v2/event/{id}/status/"), Some(&tb)).await)["status"],
        "invited"
    );
    // the rules of a body, all at once
    let r = s
        .post(
            "/api/v2/event/",
            Some(&ta),
            json!({"name": "x".repeat(51), "start_date": "next tuesday", "end_date": at(&s, 1),
                   "recurring": "yearly", "location": "live_stream", "timezone": "Mars/Olympus",
                   "link": "javascript:alert(1)", "invite_users": [999]}),
        )
        .await;
    let want = ["start_date", "recurring", "location", "timezone", "name", "link", "invite_users"];
    let got = field_codes(&r);
    assert_eq!(got.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>(), want, "{got:?}");
    let r = s.post("/api/v2/event/", Some(&ta), json!({"description": "nothing else"})).await;
    let got = field_codes(&r);
    for f in ["name", "start_date", "end_date", "recurring", "location"] {
        assert!(got.contains(&(f.into(), "required".into())), "{f}: {got:?}");
    }
    let r =
        s.post("/api/v2/event/", Some(&ta), body(&s, "Backwards", 5, 4, json!({"link": ""}))).await;
    assert_eq!(
        field_codes(&r),
        [("end_date".into(), "invalid".into()), ("link".into(), "required".into())]
    );
    // edits: admins only; to online (the place goes); a private event stays private
    let path = format!("/api/v2/event/{id}/");
    let r = s.patch(&path, Some(&tb), json!({"name": "Mine"})).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = s.patch(&path, Some(&ta), json!({"location": "virtual", "link": "https://meet.example/p", "image_original": null})).await;
    let e = ok(&r);
    assert_eq!(
        (e["geolocation"].clone(), e["link"].clone()),
        (Value::Null, json!("https://meet.example/p"))
    );
    assert!(e["image_big"].as_str().unwrap().ends_with("/static/default/cover.svg"));
    let r = s.put(&path, Some(&ta), json!({"name": "Only a name"})).await;
    r.assert_field_error("start_date", "required");
    let r = s.patch(&path, Some(&ta), json!({"privacy": "private"})).await;
    assert_eq!(ok(&r)["privacy"], "private");
    let r = s.patch(&path, Some(&ta), json!({"privacy": "public"})).await;
    r.assert_field_error("privacy", "invalid");
    // delete: the creator only; then nobody sees it, nor the invitation about it
    assert_eq!(s.delete(&path, Some(&tb)).await.status, 403);
    assert_eq!(s.delete(&path, Some(&ta)).await.status, 204);
    assert_eq!(s.status(&path, Some(&ta)).await, 404);
    assert!(s.list_ids("/api/v2/event/search/", Some(&ta)).await.is_empty());
    assert!(event_notes(&s, &tb).await.is_empty());
    s.assert_consistent();
    s.stop().await;
}

/// Times: a weekly event planned in Europe/Rome keeps its local hour; running and
/// next occurrences; the search's date filters, location and text, and its order.
#[tokio::test]
async fn recurring_events_and_the_search_filters() {
    let s = server().await;
    let a = s.user("ann", None, false);
    let ta = s.jwt(a);
    // under way now, weekly
    let weekly = create(
        &s,
        &ta,
        body(
            &s,
            "Weekly standup",
            -1,
            1,
            json!({"recurring": "weekly", "timezone": "Europe/Rome"}),
        ),
    )
    .await;
    assert_eq!(weekly["timezone"], "Europe/Rome");
    assert_eq!(weekly["running"], true);
    assert_eq!(weekly["running_start_date"], at(&s, -1));
    let next = weekly["next_start_date"].as_str().unwrap();
    let gap = hearth::clock::parse_rfc3339(next).unwrap()
        - hearth::clock::parse_rfc3339(&at(&s, -1)).unwrap();
    let hours = gap / (3600 * hearth::clock::SECOND);
    assert!((167..=169).contains(&hours), "a week on, in local time: {hours} h");
    let w = weekly["id"].as_i64().unwrap();
    let over = create(&s, &ta, body(&s, "Last year's party", -24 * 300, -24 * 300 + 3, json!({})))
        .await["id"]
        .as_i64()
        .unwrap();
    let later = create(
        &s,
        &ta,
        body(
            &s,
            "Conference",
            24 * 40,
            24 * 42,
            json!({"location": "in person", "geolocation": "Milan"}),
        ),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let search = async |q: &str| s.list_ids(&format!("/api/v2/event/search/?{q}"), None).await;
    assert_eq!(
        search("").await,
        [w, later, over],
        "under way or to come, soonest first; then the past"
    );
    assert_eq!(search("date_filter=not_past").await, [w, later]);
    assert_eq!(
        search("date_filter=past").await,
        [over],
        "the first occurrence under way: not past"
    );
    assert_eq!(search("date_filter=all&location=in%20person").await, [later]);
    assert_eq!(search("location=virtual&search=STAND").await, [w]);
    assert_eq!(search("date_filter=today").await, [w]);
    assert_eq!(
        search("date_filter=this_month&timezone=Pacific/Kiritimati").await.first(),
        Some(&w)
    );
    // a weekly event begun eight days ago: an occurrence is over, the next is to come
    let old = create(
        &s,
        &ta,
        body(&s, "Old weekly", -24 * 8, -24 * 8 + 1, json!({"recurring": "weekly"})),
    )
    .await;
    let o = old["id"].as_i64().unwrap();
    assert_eq!(old["next_start_date"], at(&s, 24 * 6));
    assert!(search("date_filter=past").await.contains(&o));
    assert!(search("date_filter=not_past").await.contains(&o));
    assert!(
        search("date_filter=next_week").await.contains(&o)
            || search("date_filter=this_week").await.contains(&o)
    );
    let r = s.get("/api/v2/event/search/?date_filter=yesterday", None).await;
    r.assert_field_error("date_filter", "invalid_choice");
    let r = s.get("/api/v2/event/search/?timezone=Nowhere/Land", None).await;
    r.assert_field_error("timezone", "invalid");
    let r = s.get("/api/v2/event/search/?location=moon", None).await;
    r.assert_field_error("location", "invalid_choice");
    // the caller's lists
    assert_eq!(
        s.list_ids("/api/v2/event/?subscription_status=going", Some(&ta)).await,
        [w, o, later, over]
    );
    assert_eq!(s.list_ids("/api/v2/event/?past=true", Some(&ta)).await, [o, over]);
    assert_eq!(s.list_ids("/api/v2/event/created/?search=conf", Some(&ta)).await, [later]);
    assert_eq!(s.list_ids(&format!("/api/v2/user/{a}/events/"), None).await, [w, o, later, over]);
    assert_eq!(s.list_ids(&format!("/api/v2/event/{w}/related/"), None).await, [o, later]);
    let r =
        s.patch(&format!("/api/v2/event/{w}/"), Some(&ta), json!({"timezone": "Mars/Base"})).await;
    r.assert_field_error("timezone", "invalid");
    s.assert_consistent();
    s.stop().await;
}

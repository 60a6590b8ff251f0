//! Groups (SPEC §10 "Groups, events and private messages"): the switch, the record and
//! its form, membership with its notifications, the feed and the privacy of what is
//! made in a private group; the helpers shared by the scenario files below.

use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

mod members;
mod privacy;

/// A server with groups on (and private and hidden groups allowed).
async fn server() -> TestServer {
    let s = TestServer::start().await;
    s.set_pref("configurations", "groups_enabled", json!(true));
    s.set_pref("configurations", "groups_private_enabled", json!(true));
    s.set_pref("configurations", "groups_visibility_enabled", json!(true));
    s
}

async fn create(s: &TestServer, tok: &str, body: Value) -> Value {
    s.create("/api/v2/group/", tok, body).await
}

/// The notifications of `tok`'s user: (type, group id) of each, newest first.
async fn group_notes(s: &TestServer, tok: &str) -> Vec<(String, i64)> {
    let page = s.get("/api/v2/notification/", Some(tok)).await.json();
    let mut out = Vec::new();
    for g in page["results"].as_array().unwrap() {
        for n in g["aggregated"].as_array().unwrap() {
            if let Some(id) = n["group"]["id"].as_i64() {
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

/// While `configurations.groups_enabled` is off (the default) every group route is
/// 404 and the features list leaves `grouping` out; on, they answer and it is listed.
#[tokio::test]
async fn groups_are_off_until_their_preference_is_on() {
    let s = TestServer::start().await;
    let a = s.user("ann", None, false);
    let t = s.jwt(a);
    let features = |v: Value| crate::common::texts(&v["results"], "name");
    assert!(!features(s.get("/api/v2/feature/", None).await.json()).contains(&"grouping".into()));
    for path in ["/api/v2/group/search/", "/api/v2/group/", "/api/v2/group/1/"] {
        assert_eq!(s.status(path, Some(&t)).await, 404, "{path}");
    }
    let r = s.post("/api/v2/group/", Some(&t), json!({"name": "Hikers"})).await;
    assert_eq!(r.status, 404, "{}", r.text);
    s.set_pref("configurations", "groups_enabled", json!(true));
    let names = features(s.get("/api/v2/feature/", None).await.json());
    assert!(names.contains(&"grouping".into()) && names.contains(&"tagging".into()), "{names:?}");
    let g = create(&s, &t, json!({"name": "Hikers"})).await;
    assert_eq!(g["privacy"], "public");
    // only staff make groups when the community says so (403 before the body)
    s.set_pref("configurations", "groups_only_staff_enabled", json!(true));
    let r = s.post("/api/v2/group/", Some(&t), json!({"name": "Climbers"})).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let staff = s.user("root", None, true);
    create(&s, &s.jwt(staff), json!({"name": "Climbers"})).await;
    // private and hidden groups only where the community has them
    s.set_pref("configurations", "groups_private_enabled", json!(false));
    let r = s
        .post(
            "/api/v2/group/",
            Some(&s.jwt(staff)),
            json!({"name": "Secret", "privacy": "private"}),
        )
        .await;
    r.assert_field_error("privacy", "invalid_choice");
    s.set_pref("configurations", "groups_visibility_enabled", json!(false));
    let r = s
        .post("/api/v2/group/", Some(&s.jwt(staff)), json!({"name": "Secret", "visible": false}))
        .await;
    r.assert_field_error("visible", "invalid");
    s.assert_consistent();
    s.stop().await;
}

/// The kit's form (multipart, with an avatar, a cover and invitations), the JSON it
/// answers, the rules of a body, edits by admins only, the slug, and delete.
#[tokio::test]
async fn a_group_made_through_the_kits_form() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let (ta, tb) = (s.jwt(a), s.jwt(b));
    let png = crate::common::png(700, 500);
    let form = reqwest::multipart::Form::new()
        .text("name", "Trail <b>Runners</b>")
        .text("description", "We run <script>x</script>")
        .text("privacy", "private")
        .text("visible", "true")
        .text("products", "[]")
        .text("invite_users[0]", b.to_string())
        .text("invite_users[1]", c.to_string())
        .part("image_original", crate::common::image_part(png.clone(), "a.png", "image/png"))
        .part("emotional_image_original", crate::common::image_part(png, "c.png", "image/png"));
    let r = crate::common::multipart(&s, reqwest::Method::POST, "/api/v2/group/", &ta, form).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let g = r.json();
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["name"], "Trail <b>Runners</b>");
    assert_eq!(g["slug"], "trail-b-runners-b");
    assert_eq!(
        g["description"], "We run <script>x</script>",
        "plain text, which the kit shows as text"
    );
    assert_eq!(g["privacy"], "private");
    assert_eq!(g["subscription_status"], "subscribed");
    assert_eq!(g["subscribers_counter"], 1);
    assert_eq!(g["managed_by"]["id"], a);
    // the answer is the group as its creator reads it (read once the write committed)
    assert_eq!(ok(&s.get(&format!("/api/v2/group/{id}/"), Some(&ta)).await), g);
    for key in ["image_bigger", "image_big", "image_medium", "image_small", "emotional_image"] {
        let url = g[key].as_str().unwrap();
        assert!(url.contains("/media/group/"), "{key}: {url}");
        let path = url.split_once("/media/").map(|(_, p)| format!("/media/{p}")).unwrap();
        let img = s.client.get(format!("{}{path}", s.url)).send().await.unwrap();
        assert_eq!(img.status(), 200, "{path}");
    }
    // the invited users are invited and notified
    let invited = s.get(&format!("/api/v2/group/{id}/invite/"), Some(&ta)).await.json();
    assert_eq!(crate::common::ids(&invited["results"]), [b, c]);
    assert_eq!(group_notes(&s, &tb).await, [("user_invited_to_join_group".into(), id)]);
    assert_eq!(
        ok(&s.get(&format!("/api/v2/group/{id}/status/"), Some(&tb)).await)["status"],
        "invited"
    );
    // the rules of a body
    let r = s.post("/api/v2/group/", Some(&ta), json!({"name": "trail <B>runners</b>"})).await;
    r.assert_field_error("name", "unique");
    let r = s
        .post(
            "/api/v2/group/",
            Some(&ta),
            json!({"name": "x".repeat(41), "description": "d".repeat(501), "privacy": "secret", "invite_users": [999]}),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let found: Vec<(String, String)> = r.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["field"].as_str().unwrap().into(), e["messages"][0]["code"].as_str().unwrap().into())
        })
        .collect();
    let want = [
        ("name", "max_length"),
        ("description", "max_length"),
        ("privacy", "invalid_choice"),
        ("invite_users", "invalid"),
    ];
    assert_eq!(found, want.map(|(f, c)| (f.to_owned(), c.to_owned())), "all at once");
    let r = s.post("/api/v2/group/", Some(&ta), json!({"description": "no name"})).await;
    r.assert_field_error("name", "required");
    // edits: admins only; a private group stays private; the cover back to the default
    let r = s.patch(&format!("/api/v2/group/{id}/"), Some(&tb), json!({"name": "Mine"})).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = s.patch(&format!("/api/v2/group/{id}/"), Some(&ta), json!({"privacy": "public"})).await;
    r.assert_field_error("privacy", "invalid");
    let r = s
        .patch(
            &format!("/api/v2/group/{id}/"),
            Some(&ta),
            json!({"description": "Runs", "emotional_image_original": null}),
        )
        .await;
    let g = ok(&r);
    assert_eq!(g["description"], "Runs");
    assert!(g["emotional_image"].as_str().unwrap().ends_with("/static/default/cover.svg"));
    let r = s.put(&format!("/api/v2/group/{id}/"), Some(&ta), json!({"description": "only"})).await;
    r.assert_field_error("name", "required");
    // delete: the creator only; then nobody sees it
    let r = s.delete(&format!("/api/v2/group/{id}/"), Some(&tb)).await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(s.delete(&format!("/api/v2/group/{id}/"), Some(&ta)).await.status, 204);
    assert_eq!(s.status(&format!("/api/v2/group/{id}/"), Some(&ta)).await, 404);
    assert!(s.list_ids("/api/v2/group/search/", Some(&ta)).await.is_empty());
    s.assert_consistent();
    s.stop().await;
}

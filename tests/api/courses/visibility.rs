//! Who sees a course, by its privacy and the caller's role, in the detail, the sections
//! and the search alike; `content_availability`.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{create, set_status};
use crate::common::TestServer;

#[tokio::test]
async fn visibility_by_privacy_and_role() {
    let s = TestServer::start().await;
    let [creator, manager, member, invited, other] =
        s.users(["creator", "manager", "member", "invited", "other"]);
    let tc = s.jwt(creator);
    let mut ids = Vec::new();
    for (i, privacy) in ["", "open", "private", "secret"].iter().enumerate() {
        let c = create(
            &s,
            &tc,
            json!({"name": format!("C{i}"), "type": "self-paced", "privacy": privacy}),
        )
        .await;
        let id = c["id"].as_i64().unwrap();
        set_status(&s, id, manager, "manager");
        set_status(&s, id, member, "joined");
        set_status(&s, id, invited, "invited");
        ids.push(id);
    }
    let tokens = [
        ("creator", Some(s.jwt(creator))),
        ("manager", Some(s.jwt(manager))),
        ("member", Some(s.jwt(member))),
        ("invited", Some(s.jwt(invited))),
        ("other", Some(s.jwt(other))),
        ("anonymous", None),
    ];
    // rows: privacy; columns: the callers above
    let table: [(&str, [bool; 6]); 4] = [
        ("", [true, true, false, false, false, false]),
        ("open", [true; 6]),
        ("private", [true; 6]),
        ("secret", [true, true, true, true, false, false]),
    ];
    for ((privacy, row), id) in table.iter().zip(&ids) {
        for ((who, tok), visible) in tokens.iter().zip(row) {
            let want = if *visible { StatusCode::OK } else { StatusCode::NOT_FOUND };
            let r = s.get(&format!("/api/v2/course/{id}/"), tok.as_deref()).await;
            assert_eq!(r.status, want, "{privacy:?} seen by {who}");
            let r = s.get(&format!("/api/v2/course/{id}/section/"), tok.as_deref()).await;
            assert_eq!(r.status, want, "sections of {privacy:?} for {who}");
            let r = s.get(&format!("/api/v2/course/{id}/?view=user"), tok.as_deref()).await;
            assert_eq!(r.status, want, "the course page's view of {privacy:?} for {who}");
            // the search agrees with the detail
            let r = s.get("/api/v2/course/search/?limit=100", tok.as_deref()).await;
            let found = r.json()["results"].as_array().unwrap().iter().any(|c| c["id"] == *id);
            assert_eq!(found, *visible, "search: {privacy:?} for {who}");
        }
    }
    // join_status is the caller's, null for anonymous
    let r = s.get(&format!("/api/v2/course/{}/", ids[1]), tokens[2].1.as_deref()).await;
    assert_eq!(r.json()["join_status"], "joined");
    let r = s.get(&format!("/api/v2/course/{}/", ids[1]), None).await;
    assert_eq!(r.json()["join_status"], Value::Null);
    // content_availability off: anonymous reads are 401
    s.set_pref("configurations", "content_availability", json!(false));
    for path in [
        format!("/api/v2/course/{}/", ids[1]),
        "/api/v2/course/search/".to_owned(),
        format!("/api/v2/course/{}/section/", ids[1]),
        format!("/api/v2/course/{}/status/", ids[1]),
    ] {
        assert_eq!(s.get(&path, None).await.status, StatusCode::UNAUTHORIZED, "{path}");
    }
    s.assert_consistent();
}

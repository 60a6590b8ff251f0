//! Broadcast banners as a member sees, reads and dismisses them.

use reqwest::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn each_member_reads_and_dismisses_banners_for_itself() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let make = |title: &str| {
        let banner = hearth::model::banner::Banner {
            id: 0,
            title: title.into(),
            body_text: "text".into(),
            link: String::new(),
            link_text: String::new(),
            open_in_new_tab: false,
            created_at: s.clock.now(),
            viewed_at: None,
            disposed_at: None,
        };
        s.db_write(|tx| hearth::db::banners::create(tx, &banner))
    };
    let one = make("one");
    let two = make("two");
    let counts = |t: String| {
        let s = &s;
        async move {
            let me = s.get("/api/v2/user/me/", Some(&t)).await.json();
            let unseen = s.get("/api/v2/notification/banner/unseen/count/", Some(&t)).await.json();
            let left =
                s.get("/api/v2/notification/banner/undisposed/count/", Some(&t)).await.json();
            (
                me["unseen_notification_banners_counter"].clone(),
                unseen["count"].clone(),
                left["count"].clone(),
            )
        }
    };
    assert_eq!(counts(a.clone()).await, (json!(2), json!(2), json!(2)));
    let r = s.get("/api/v2/notification/banner/", Some(&a)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.ids(), vec![two, one]);
    assert_eq!(r.json()["results"][0]["banner"]["type_banner"], "notification_banner");
    let r = s
        .post("/api/v2/notification/banner/read/", Some(&a), json!({"banner_ids": [one, 999]}))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(counts(a.clone()).await, (json!(1), json!(1), json!(2)));
    s.post("/api/v2/notification/banner/dispose/", Some(&a), json!({"banner_ids": [two]})).await;
    assert_eq!(counts(a.clone()).await, (json!(0), json!(0), json!(1)));
    assert_eq!(s.get("/api/v2/notification/banner/", Some(&a)).await.ids(), vec![one]);
    // bob's are his own
    assert_eq!(counts(b.clone()).await, (json!(2), json!(2), json!(2)));
    s.post("/api/v2/notification/banner/read/", Some(&a), json!({"banner_ids": "x"}))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "parse_error");
    assert_eq!(s.status("/api/v2/notification/banner/", None).await, StatusCode::UNAUTHORIZED);
    s.assert_consistent();
}

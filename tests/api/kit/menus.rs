//! Custom menus (SPEC §10): the footer's menus by the names the kit asks for and by id,
//! empty by default, their items in order, public.

use hearth::db::custom_menus;
use reqwest::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn the_footer_menus_are_served_by_name_and_id_empty_then_in_order() {
    let s = TestServer::start().await;
    // what the kit's footer asks for, signed in or not: an empty menu, never a 404
    for (id, name) in [(1, "base"), (2, "not_logged"), (3, "user")] {
        let r = s.get(&format!("/api/v2/custom_menu/{name}/"), None).await;
        assert_eq!(r.status, StatusCode::OK, "{name}");
        let j = r.json();
        assert_eq!(
            (j["id"].clone(), j["name"].clone(), j["items"].clone()),
            (json!(id), json!(name), json!([]))
        );
        assert_eq!(s.get(&format!("/api/v2/custom_menu/{id}/"), None).await.json()["name"], name);
    }
    assert_eq!(s.get("/api/v2/custom_menu/9/", None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/api/v2/custom_menu/other/", None).await.status, StatusCode::NOT_FOUND);

    let now = s.clock.now();
    s.db_write(|tx| {
        custom_menus::add_item(tx, 1, "Privacy", "/privacy/", 2, now)?;
        custom_menus::add_item(tx, 1, "About", "https://example.org/about", 1, now)?;
        custom_menus::add_item(tx, 2, "Join", "/join/", 0, now)
    });
    let j = s.get("/api/v2/custom_menu/base/", None).await.json();
    let labels: Vec<&str> =
        j["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["About", "Privacy"]);
    assert_eq!(j["items"][0]["custom_menu"], 1);
    assert_eq!(j["items"][0]["order"], "1");
    assert_eq!(j["items"][0]["attrs"], "");
    let r = s.get("/api/v2/custom_menu/?limit=2", None).await;
    assert_eq!((r.json()["count"].clone(), r.ids()), (json!(3), vec![1, 2]));
    assert_eq!(s.get("/api/v2/custom_menu/search/?search=LOGGED", None).await.ids(), vec![2]);
    assert_eq!(
        s.get("/api/v2/custom_menu/search/?search=%25", None).await.ids(),
        Vec::<i64>::new()
    );
}

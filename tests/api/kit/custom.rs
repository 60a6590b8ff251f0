//! Custom advs and custom pages (SPEC §10 "Custom ADV, menus & pages"): empty by
//! default, the kit's CustomAdv search by slot and categories, sanitized HTML, and what
//! is inactive or unpublished shown to staff alone.

use hearth::clock::SECOND;
use hearth::db::custom_content::{self, NewPage};
use hearth::model::custom_adv::NewAdv;
use reqwest::StatusCode;
use serde_json::json;

use crate::common::TestServer;

fn adv(position: &str, active: bool, category: Option<i64>, title: &str) -> NewAdv {
    NewAdv {
        position: position.into(),
        title: Some(title.into()),
        image: Some(format!("https://ads.example/{title}.png")),
        active,
        category,
        ..NewAdv::default()
    }
    .check()
    .unwrap()
}

#[tokio::test]
async fn there_are_no_advs_or_pages_until_staff_add_them() {
    let s = TestServer::start().await;
    for path in [
        "/api/v2/custom_adv/",
        "/api/v2/custom_adv/search/?active=true&position=BELOW_TOPBAR&categories=%5B%5D",
        "/api/v2/custom_page/",
        "/api/v2/custom_page/search/?search=about",
    ] {
        let r = s.get(path, None).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert_eq!(r.json()["count"], 0, "{path}");
    }
    assert_eq!(s.get("/api/v2/custom_adv/1/", None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/api/v2/custom_page/1/", None).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_kits_adv_search_finds_a_slots_active_advs_for_the_pages_categories() {
    let s = TestServer::start().await;
    let [cat, other] = s.categories(["Cat", "Other"]);
    let now = s.clock.now();
    let [everywhere, in_cat, off, feed, in_other] = s.db_write(move |tx| {
        let mut ids = [0; 5];
        for (i, a) in [
            adv("BELOW_TOPBAR", true, None, "everywhere"),
            adv("BELOW_TOPBAR", true, Some(cat), "cat"),
            adv("BELOW_TOPBAR", false, None, "off"),
            adv("IN_STREAM", true, None, "feed"),
            adv("BELOW_TOPBAR", true, Some(other), "other"),
        ]
        .iter()
        .enumerate()
        {
            ids[i] = custom_content::add_adv(tx, None, a, now, now)?;
        }
        Ok(ids)
    });
    // exactly what the kit's useSCFetchCustomAdv asks
    let search =
        |q: &str| format!("/api/v2/custom_adv/search/?active=true&position=BELOW_TOPBAR&{q}");
    assert_eq!(s.list_ids(&search("categories=%5B%5D"), None).await, vec![everywhere]);
    assert_eq!(
        s.list_ids(&search(&format!("categories=%5B{cat}%5D")), None).await,
        vec![everywhere, in_cat]
    );
    assert_eq!(
        s.list_ids(&search(&format!("categories=%5B{cat},{other}%5D")), None).await,
        vec![everywhere, in_cat, in_other]
    );
    assert_eq!(s.list_ids(&search(&format!("category={other}")), None).await, vec![in_other]);
    assert_eq!(s.list_ids("/api/v2/custom_adv/?position=IN_STREAM", None).await, vec![feed]);
    // inactive advs are staff's alone: `active=false` finds nothing for anyone else
    let member = s.jwt(s.user("member", None, false));
    let staff = s.jwt(s.user("boss", None, true));
    assert_eq!(s.list_ids("/api/v2/custom_adv/", Some(&member)).await.len(), 4);
    assert_eq!(s.list_ids("/api/v2/custom_adv/?active=false", None).await, Vec::<i64>::new());
    assert_eq!(s.list_ids("/api/v2/custom_adv/?active=false", Some(&staff)).await, vec![off]);
    assert_eq!(s.list_ids("/api/v2/custom_adv/", Some(&staff)).await.len(), 5);
    assert_eq!(
        s.get(&format!("/api/v2/custom_adv/{off}/"), Some(&member)).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.get(&format!("/api/v2/custom_adv/{off}/"), Some(&staff)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        s.get(&format!("/api/v2/custom_adv/{off}/?active=true"), Some(&staff)).await.status,
        StatusCode::NOT_FOUND
    );
    // the shape the kit reads
    let j = s.get(&format!("/api/v2/custom_adv/{in_cat}/?active=true"), None).await.json();
    assert_eq!(
        (j["position"].clone(), j["category"].clone(), j["image"].clone(), j["embed_code"].clone()),
        (json!("BELOW_TOPBAR"), json!(cat), json!("https://ads.example/cat.png"), json!(null))
    );
    assert!(j["lastmod_datetime"].is_string() && j["created_at"].is_string());
    assert_eq!(s.list_ids("/api/v2/custom_adv/search/?search=EVERY", None).await, vec![everywhere]);
    // bad input names its parameter
    for (q, field) in [
        ("position=SIDEBAR", "position"),
        ("categories=%5Bx%5D", "categories"),
        ("category=x", "category"),
        ("active=maybe", "active"),
        ("limit=0", "limit"),
    ] {
        let r = s.get(&format!("/api/v2/custom_adv/search/?{q}"), None).await;
        r.assert_field_error(field, if field == "position" { "invalid_choice" } else { "invalid" });
    }
}

#[tokio::test]
async fn an_advs_embed_code_is_sanitized_before_it_is_stored() {
    let s = TestServer::start().await;
    let a = NewAdv {
        position: "TOOLS_COLUMN".into(),
        embed_code: Some(
            r#"<p>Our <a href="https://shop.example/">shop</a><img src="x" onerror="alert(1)"></p><script>alert(2)</script><iframe src="https://evil.example/"></iframe>"#.into(),
        ),
        active: true,
        ..NewAdv::default()
    }
    .check()
    .unwrap();
    let now = s.clock.now();
    let id = s.db_write(move |tx| custom_content::add_adv(tx, None, &a, now, now));
    let code = s.get(&format!("/api/v2/custom_adv/{id}/"), None).await.json()["embed_code"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(code.contains(r#"href="https://shop.example/""#), "{code}");
    for bad in ["script", "onerror", "iframe", "alert"] {
        assert!(!code.contains(bad), "{bad} in {code}");
    }
}

#[tokio::test]
async fn only_published_pages_are_shown_but_to_staff() {
    let s = TestServer::start().await;
    let now = s.clock.now();
    let hour = 3600 * SECOND;
    let [live, off, later, ended] = s.db_write(move |tx| {
        let mut ids = [0; 4];
        for (i, (slug, active, from, to)) in [
            ("about", true, now - hour, None),
            ("draft", false, now - hour, None),
            ("later", true, now + hour, None),
            ("ended", true, now - 2 * hour, Some(now - hour)),
        ]
        .into_iter()
        .enumerate()
        {
            let body = format!("<h2>{slug}</h2><p onclick=\"x()\">Hello<script>x()</script></p>");
            ids[i] = custom_content::add_page(
                tx,
                &NewPage {
                    id: None,
                    slug,
                    title: &slug.to_uppercase(),
                    body: &body,
                    valid_from: from,
                    valid_to: to,
                    active,
                    created_at: now,
                    updated_at: now,
                },
            )?;
        }
        Ok(ids)
    });
    let member = s.jwt(s.user("member", None, false));
    let staff = s.jwt(s.user("boss", None, true));
    for token in [None, Some(member.as_str())] {
        assert_eq!(s.list_ids("/api/v2/custom_page/", token).await, vec![live]);
        assert_eq!(s.list_ids("/api/v2/custom_page/?active=false", token).await, Vec::<i64>::new());
        for id in [off, later, ended] {
            let r = s.get(&format!("/api/v2/custom_page/{id}/"), token).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "page {id}");
        }
    }
    assert_eq!(
        s.list_ids("/api/v2/custom_page/", Some(&staff)).await,
        vec![live, off, later, ended]
    );
    assert_eq!(s.list_ids("/api/v2/custom_page/?active=false", Some(&staff)).await, vec![off]);
    assert_eq!(
        s.get(&format!("/api/v2/custom_page/{off}/"), Some(&staff)).await.status,
        StatusCode::OK
    );
    assert_eq!(s.list_ids("/api/v2/custom_page/search/?search=ABO", None).await, vec![live]);
    assert_eq!(
        s.list_ids("/api/v2/custom_page/search/?search=draft", None).await,
        Vec::<i64>::new()
    );
    // the page the kit reads, its HTML sanitized
    let j = s.get(&format!("/api/v2/custom_page/{live}/"), None).await.json();
    assert_eq!(
        (j["type"].clone(), j["slug"].clone(), j["title"].clone()),
        (json!("normal"), json!("about"), json!("ABOUT"))
    );
    let html = j["html_body"].as_str().unwrap();
    assert!(html.contains("<h2>about</h2>") && html.contains("Hello"), "{html}");
    assert!(!html.contains("script") && !html.contains("onclick"), "{html}");
    assert_eq!(j["valid_to"], json!(null));
    // a page comes into force, and one ends, as time passes
    s.clock.advance(2 * hour);
    assert_eq!(s.list_ids("/api/v2/custom_page/", None).await, vec![live, later]);
    s.get("/api/v2/custom_page/?active=maybe", None).await.assert_field_error("active", "invalid");
}

//! `hearth adv`, `hearth page`, `hearth contact` and the `custom_adv` and `custom_page`
//! import records (SPEC §10 "Custom ADV, menus & pages", "Contact us"): staff's content
//! with the API's checks, HTML through the one sanitizer.

use serde_json::json;

use crate::{Env, fails, succeeded};

#[test]
fn advs_are_added_switched_listed_and_removed_with_safe_html_only() {
    let e = Env::initialised();
    assert_eq!(e.json(&["adv", "list", "--json"]), json!([]), "none by default");
    let html = e.dir.path().join("adv.html");
    std::fs::write(
        &html,
        r#"<p>Spring <a href="https://shop.example/">sale</a></p><script>x()</script>"#,
    )
    .unwrap();
    let a = e.json(&[
        "adv",
        "add",
        "--position",
        "BELOW_TOPBAR",
        "--title",
        "Sale",
        "--link",
        "https://shop.example/",
        "--embed-file",
        html.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        (a["id"].clone(), a["active"].clone(), a["category"].clone()),
        (json!(1), json!(true), json!(null))
    );
    let code = a["embed_code"].as_str().unwrap();
    assert!(code.contains("sale") && !code.contains("script"), "{code}");
    e.ok(&["category", "create", "--name", "Garden"]);
    let b = e.json(&[
        "adv",
        "add",
        "--position",
        "IN_STREAM",
        "--image",
        "/media/b.png",
        "--category",
        "1",
        "--inactive",
        "--json",
    ]);
    assert_eq!((b["category"].clone(), b["active"].clone()), (json!(1), json!(false)));
    e.ok(&["adv", "activate", "2"]);
    e.ok(&["adv", "deactivate", "1"]);
    let all = e.json(&["adv", "list", "--json"]);
    assert_eq!((all[0]["active"].clone(), all[1]["active"].clone()), (json!(false), json!(true)));
    assert!(e.ok(&["adv", "list"]).contains("BELOW_TOPBAR"));
    e.assert_fails(&[
        (&["adv", "add", "--position", "SIDEBAR", "--image", "/a.png"], "position"),
        (&["adv", "add", "--position", "IN_STREAM"], "image or some embed code"),
        (&["adv", "add", "--position", "IN_STREAM", "--image", "javascript:alert(1)"], "image"),
        (
            &["adv", "add", "--position", "IN_STREAM", "--image", "/a.png", "--link", "data:x"],
            "link",
        ),
        (
            &["adv", "add", "--position", "IN_STREAM", "--image", "/a.png", "--category", "9"],
            "no category",
        ),
        (&["adv", "activate", "9"], "no adv"),
        (&["adv", "remove", "9"], "no adv"),
    ]);
    e.ok(&["adv", "remove", "1"]);
    assert_eq!(e.sql("SELECT count(*) FROM custom_adv"), 1);
}

#[test]
fn pages_are_added_with_unique_slugs_and_sanitized_bodies() {
    let e = Env::initialised();
    let body = e.dir.path().join("about.html");
    std::fs::write(
        &body,
        "<h2>Who we are</h2><p onclick=\"x()\">Gardeners.</p><script>x()</script>",
    )
    .unwrap();
    let body = body.to_str().unwrap();
    let p = e.json(&["page", "add", "--title", "About us", "--body-file", body, "--json"]);
    assert_eq!(
        (p["slug"].clone(), p["type"].clone(), p["active"].clone()),
        (json!("about-us"), json!("normal"), json!(true))
    );
    let html = p["html_body"].as_str().unwrap();
    assert!(
        html.contains("<h2>Who we are</h2>")
            && !html.contains("script")
            && !html.contains("onclick"),
        "{html}"
    );
    // the same title again gets its own slug; a slug given twice is refused
    let p = e.json(&["page", "add", "--title", "About us", "--body-file", body, "--json"]);
    assert_eq!(p["slug"], "about-us-2");
    let p = e.json(&[
        "page",
        "add",
        "--title",
        "Rules",
        "--slug",
        "rules",
        "--body-file",
        body,
        "--inactive",
        "--valid-from",
        "2030-01-01T00:00:00Z",
        "--valid-to",
        "2031-01-01T00:00:00Z",
        "--json",
    ]);
    assert_eq!(
        (p["valid_from"].clone(), p["active"].clone()),
        (json!("2030-01-01T00:00:00.000000Z"), json!(false))
    );
    e.assert_fails(&[
        (
            &["page", "add", "--title", "R", "--slug", "rules", "--body-file", body],
            "already has the slug",
        ),
        (&["page", "add", "--title", "R", "--slug", "Not A Slug", "--body-file", body], "slug"),
        (&["page", "add", "--title", " ", "--body-file", body], "title"),
        (&["page", "add", "--title", "R", "--body-file", "/nonexistent/x.html"], "nonexistent"),
        (&["page", "add", "--title", "R", "--body-file", body, "--valid-from", "soon"], "RFC 3339"),
        (
            &[
                "page",
                "add",
                "--title",
                "R",
                "--body-file",
                body,
                "--valid-from",
                "2030-01-01T00:00:00Z",
                "--valid-to",
                "2029-01-01T00:00:00Z",
            ],
            "after",
        ),
        (&["page", "deactivate", "9"], "no page"),
    ]);
    e.ok(&["page", "activate", "3"]);
    e.ok(&["page", "deactivate", "1"]);
    let out = e.ok(&["page", "list"]);
    assert!(out.contains("unpublished") && out.contains("about-us-2"), "{out}");
    e.ok(&["page", "remove", "2"]);
    assert_eq!(e.json(&["page", "list", "--json"]).as_array().unwrap().len(), 2);
}

#[test]
fn contact_requests_are_listed_newest_first() {
    let e = Env::initialised();
    assert_eq!(e.json(&["contact", "list", "--json"]), json!([]));
    e.conn()
        .execute_batch(
            "INSERT INTO contact_request (user_id, name, surname, email, message, created_at)
             VALUES (NULL, 'Ann', 'Lee', 'ann@example.org', 'first', 1),
                    (NULL, '', '', 'bob@example.org', 'second\nline', 2);",
        )
        .unwrap();
    let all = e.json(&["contact", "list", "--json"]);
    assert_eq!(
        (all[0]["message"].clone(), all[1]["name"].clone()),
        (json!("second\nline"), json!("Ann"))
    );
    let out = e.ok(&["contact", "list", "--limit", "1"]);
    assert!(
        out.contains("bob@example.org") && out.contains("      line") && !out.contains("Ann"),
        "{out}"
    );
}

#[test]
fn advs_and_pages_import_with_the_apis_checks() {
    let lines: Vec<String> = [
        r#"{"record":"category","id":1,"name":"Garden"}"#,
        r#"{"record":"custom_adv","id":5,"position":"TOOLS_COLUMN","image":"https://ads.example/a.png","link":"https://shop.example/","category":1,"created_at":"2025-01-01T00:00:00Z"}"#,
        r#"{"record":"custom_adv","id":6,"position":"BELOW_TOPBAR","embed_code":"<p>Hi</p><script>x()</script>","active":false}"#,
        r#"{"record":"custom_page","id":3,"type":"normal","slug":"about","title":"About","html_body":"<p>Us</p><script>x()</script>","valid_from":"2025-01-01T00:00:00Z"}"#,
        r#"{"record":"custom_page","id":4,"title":"About!","html_body":"plain text","active":false}"#,
    ]
    .map(str::to_owned)
    .to_vec();
    let e = Env::imported(&lines);
    e.assert_sql(&[
        ("SELECT count(*) FROM custom_adv", 2),
        ("SELECT category_id FROM custom_adv WHERE id = 5", 1),
        ("SELECT active FROM custom_adv WHERE id = 6", 0),
        ("SELECT instr(embed_code, 'script') FROM custom_adv WHERE id = 6", 0),
        ("SELECT instr(html_body, 'script') FROM custom_page WHERE id = 3", 0),
        ("SELECT slug = 'about-2' FROM custom_page WHERE id = 4", 1),
    ]);
    assert!(e.ok(&["check"]).contains("ok"));
    for (line, why) in [
        (r#"{"record":"custom_adv","id":7,"position":"NOWHERE","image":"/a.png"}"#, "position"),
        (r#"{"record":"custom_adv","id":7,"position":"IN_STREAM"}"#, "image or some embed code"),
        (
            r#"{"record":"custom_adv","id":7,"position":"IN_STREAM","image":"/a.png","category":9}"#,
            "category 9",
        ),
        (
            r#"{"record":"custom_adv","id":5,"position":"IN_STREAM","image":"/a.png"}"#,
            "already exists",
        ),
        (
            r#"{"record":"custom_adv","id":7,"position":"IN_STREAM","image":"/a.png","clicks":3}"#,
            "clicks",
        ),
        (
            r#"{"record":"custom_page","id":9,"type":"legal","title":"T","html_body":"x"}"#,
            "legal_page",
        ),
        (r#"{"record":"custom_page","id":9,"slug":"about","title":"T","html_body":"x"}"#, "slug"),
        (r#"{"record":"custom_page","id":3,"title":"T","html_body":"x"}"#, "already exists"),
        (r#"{"record":"custom_page","id":0,"title":"T","html_body":"x"}"#, "positive"),
    ] {
        let out = fails(e.import(&[line.to_owned()]), &["import"]);
        assert!(out.contains(why), "{line}: {out}");
    }
    succeeded(&e.import(&[
        r#"{"record":"custom_page","id":9,"title":"Later","html_body":"x"}"#.to_owned(),
    ]));
}

//! reaction and category: labels, names and slugs.

use serde_json::Value;

use crate::Env;

#[test]
fn reactions_add_and_set() {
    let e = Env::initialised();
    let r = e.json(&["reaction", "add", "--label", "clap", "--sentiment", "1", "--json"]);
    assert_eq!(r["id"], 7);
    assert_eq!(r["image"], Value::Null, "no image: the default is used by the API");
    let r = e.json(&[
        "reaction",
        "add",
        "--label",
        "meh",
        "--sentiment",
        "-1",
        "--inactive",
        "--image",
        "https://img.example/m.png",
        "--json",
    ]);
    assert_eq!(r["active"], false);
    let r = e.json(&["reaction", "set", "7", "--active", "false", "--sentiment", "0", "--json"]);
    assert_eq!((r["active"].clone(), r["sentiment"].clone()), (Value::Bool(false), Value::from(0)));
    e.assert_fails(&[
        (&["reaction", "set", "99", "--active", "true"], "no reaction"),
        (&["reaction", "add", "--label", "", "--sentiment", "1"], "label"),
        (&["reaction", "add", "--label", "x", "--sentiment", "1", "--image", "not a url"], "image"),
        (
            &[
                "reaction",
                "add",
                "--label",
                "x",
                "--sentiment",
                "1",
                "--image",
                "javascript:alert(1)",
            ],
            "image",
        ),
        (
            &[
                "reaction",
                "add",
                "--label",
                "x",
                "--sentiment",
                "1",
                "--image",
                "data:image/png;base64,AA",
            ],
            "image",
        ),
        (&["reaction", "set", "1", "--image", "vbscript:x"], "image"),
    ]);
}

#[test]
fn categories_with_generated_and_chosen_slugs() {
    let e = Env::initialised();
    assert_eq!(
        e.json(&["category", "create", "--name", "Größe & Co", "--json"])["slug"],
        "grosse-co"
    );
    assert_eq!(
        e.json(&["category", "create", "--name", "Grösse Co", "--json"])["slug"],
        "grosse-co-2"
    );
    assert_eq!(
        e.json(&["category", "create", "--name", "Tips", "--slug", "tips", "--json"])["slug"],
        "tips"
    );
    e.assert_fails(&[
        (&["category", "create", "--name", "More tips", "--slug", "tips"], "taken"),
        (&["category", "create", "--name", "Bad", "--slug", "Bad_Slug"], "slug"),
        (&["category", "create", "--name", ""], "name"),
    ]);
    assert_eq!(e.json(&["category", "list", "--json"]).as_array().unwrap().len(), 3);
}

#[test]
fn reaction_labels_are_unique_case_insensitively() {
    let e = Env::initialised();
    for label in ["like", "LIKE", "Like"] {
        let err = e.fails(&["reaction", "add", "--label", label, "--sentiment", "1"]);
        assert_eq!(err, format!("error: a reaction labelled \"{label}\" already exists"));
    }
    // Unicode lowercase (as usernames), not SQLite's ASCII-only NOCASE
    e.ok(&["reaction", "add", "--label", "Ärger", "--sentiment", "-1"]);
    assert!(
        e.fails(&["reaction", "add", "--label", "ärger", "--sentiment", "-1"])
            .contains("already exists")
    );
    // set: to another reaction's label is refused, to its own in another case is fine
    assert_eq!(
        e.fails(&["reaction", "set", "2", "--label", "Like"]),
        "error: a reaction labelled \"Like\" already exists"
    );
    assert_eq!(e.sql("SELECT count(*) FROM reaction WHERE id = 2 AND label = 'love'"), 1);
    e.ok(&["reaction", "set", "1", "--label", "Like"]);
    e.assert_sql(&[
        ("SELECT count(*) FROM reaction WHERE id = 1 AND label = 'Like'", 1),
        ("SELECT count(*) FROM reaction", 7),
    ]);
}

#[test]
fn category_names_and_slugs_are_unique_case_insensitively() {
    let e = Env::initialised();
    let news = e.json(&["category", "create", "--name", "News", "--json"]);
    assert_eq!(news["slug"], "news");
    assert_eq!(
        e.fails(&["category", "create", "--name", "NEWS"]),
        "error: a category named \"NEWS\" already exists"
    );
    e.ok(&["category", "create", "--name", "Éclair"]);
    assert!(
        e.fails(&["category", "create", "--name", "éCLAIR", "--slug", "other"])
            .contains("already exists")
    );
    // a slug taken behind hearth's back in another case still counts
    e.conn().execute("UPDATE category SET slug = 'TIPS' WHERE id = 2", []).unwrap();
    assert!(
        e.fails(&["category", "create", "--name", "Tips", "--slug", "tips"])
            .contains("slug \"tips\" is already taken")
    );
    assert_eq!(
        e.json(&["category", "create", "--name", "Tips", "--json"])["slug"],
        "tips-2",
        "a generated slug avoids it too"
    );
    assert_eq!(e.sql("SELECT count(*) FROM category"), 3);
}

#[test]
fn category_update_changes_what_is_given() {
    let e = Env::initialised();
    e.ok(&["category", "create", "--name", "News"]);
    e.ok(&["category", "create", "--name", "Tips"]);
    let c = e.json(&[
        "category",
        "update",
        "1",
        "--name",
        "World news",
        "--slug",
        "world",
        "--active",
        "false",
        "--order",
        "-3",
        "--json",
    ]);
    assert_eq!(c["name"], "World news");
    assert_eq!(c["slug"], "world");
    assert_eq!(c["active"], false);
    assert_eq!(c["order"], -3);
    // its own name in another case is fine
    e.ok(&["category", "update", "1", "--name", "WORLD NEWS"]);
    let row = || {
        rusqlite::Connection::open(e.db())
            .unwrap()
            .query_row(
                r#"SELECT name || '|' || slug || '|' || active || '|' || "order" FROM category WHERE id = 1"#,
                [],
                |r| r.get::<_, String>(0),
            )
            .unwrap()
    };
    assert_eq!(row(), "WORLD NEWS|world|0|-3");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--name", "tips"], "a category named \"tips\" already exists"),
        (vec!["--slug", "tips"], "slug \"tips\" is already taken"),
        (vec!["--slug", "Bad_Slug"], "slug"),
        (vec!["--name", ""], "name"),
        (vec!["--active", "maybe"], ""),
        (vec![], "nothing to change"),
    ];
    for (args, why) in cases {
        let mut all = vec!["category", "update", "1"];
        all.extend(&args);
        let err = e.fails(&all);
        assert!(err.contains(why), "{args:?}: {err}");
        assert_eq!(row(), "WORLD NEWS|world|0|-3", "{args:?}: nothing changed");
    }
    assert!(e.fails(&["category", "update", "9", "--name", "x"]).contains("no category"));
}

#[test]
fn menu_items_are_added_listed_and_removed_with_safe_urls_only() {
    let e = Env::initialised();
    let menus = e.json(&["menu", "list", "--json"]);
    let names: Vec<&str> =
        menus.as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["base", "not_logged", "user"]);
    let item =
        e.json(&["menu", "add-item", "base", "--label", "About", "--url", "/about/", "--json"]);
    assert_eq!(
        (item["custom_menu"].clone(), item["label"].clone()),
        (Value::from(1), Value::from("About"))
    );
    e.ok(&[
        "menu",
        "add-item",
        "2",
        "--label",
        "Docs",
        "--url",
        "https://docs.example.org/",
        "--order",
        "-1",
    ]);
    let menus = e.json(&["menu", "list", "--json"]);
    assert_eq!(menus[0]["items"][0]["url"], "/about/");
    assert_eq!(menus[1]["items"][0]["order"], "-1");
    e.assert_fails(&[
        (
            &["menu", "add-item", "base", "--label", "x", "--url", "javascript:alert(1)"],
            "http(s) URL",
        ),
        (&["menu", "add-item", "base", "--label", "x", "--url", "//evil.example/"], "http(s) URL"),
        (&["menu", "add-item", "base", "--label", "x", "--url", "data:text/html,x"], "http(s) URL"),
        (&["menu", "add-item", "base", "--label", "", "--url", "/a/"], "label"),
        (&["menu", "add-item", "nowhere", "--label", "x", "--url", "/a/"], "no menu"),
        (&["menu", "remove-item", "99"], "no menu item"),
    ]);
    let id = item["id"].as_i64().unwrap().to_string();
    e.ok(&["menu", "remove-item", &id]);
    assert_eq!(e.json(&["menu", "list", "--json"])[0]["items"], serde_json::json!([]));
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn banners_are_made_listed_and_deleted_with_plain_texts_and_safe_links_only() {
    let e = Env::initialised();
    let b = e.json(&[
        "banner",
        "create",
        "--title",
        "<b>Maintenance</b> tonight",
        "--body",
        "Back at 6.",
        "--link",
        "/status/",
        "--link-text",
        "Status",
        "--json",
    ]);
    // the texts are plain text, kept as typed: the kit puts them in text nodes
    assert_eq!(b["banner"]["title"], "<b>Maintenance</b> tonight");
    assert_eq!(
        (b["banner"]["link"].clone(), b["viewed_at"].clone()),
        (Value::from("/status/"), Value::Null)
    );
    e.ok(&["banner", "create", "--title", "Second"]);
    let all = e.json(&["banner", "list", "--json"]);
    assert_eq!(all[0]["banner"]["title"], "Second", "newest first");
    e.assert_fails(&[
        (
            &[
                "banner",
                "create",
                "--title",
                "x",
                "--link",
                "javascript:alert(1)",
                "--link-text",
                "x",
            ],
            "http(s) URL",
        ),
        (&["banner", "create", "--title", "x", "--link", "/a/"], "go together"),
        (&["banner", "create", "--title", " "], "title"),
        (&["banner", "delete", "99"], "no banner"),
    ]);
    let id = b["id"].as_i64().unwrap().to_string();
    e.ok(&["banner", "delete", &id]);
    assert_eq!(e.json(&["banner", "list", "--json"]).as_array().unwrap().len(), 1);
    assert!(e.ok(&["check"]).contains("ok"));
}

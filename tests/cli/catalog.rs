//! reaction and category: labels, names and slugs.

use serde_json::Value;

use crate::Env;

#[test]
fn reactions_add_and_set() {
    let e = Env::new();
    e.init();
    let r = e.json(&[
        "reaction",
        "add",
        "--label",
        "clap",
        "--sentiment",
        "1",
        "--json",
    ]);
    assert_eq!(r["id"], 7);
    assert_eq!(
        r["image"],
        Value::Null,
        "no image: the default is used by the API"
    );
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
    let r = e.json(&[
        "reaction",
        "set",
        "7",
        "--active",
        "false",
        "--sentiment",
        "0",
        "--json",
    ]);
    assert_eq!(
        (r["active"].clone(), r["sentiment"].clone()),
        (Value::Bool(false), Value::from(0))
    );
    assert!(
        e.fails(&["reaction", "set", "99", "--active", "true"])
            .contains("no reaction")
    );
    assert!(
        e.fails(&["reaction", "add", "--label", "", "--sentiment", "1"])
            .contains("label")
    );
    assert!(
        e.fails(&[
            "reaction",
            "add",
            "--label",
            "x",
            "--sentiment",
            "1",
            "--image",
            "not a url"
        ])
        .contains("image")
    );
}

#[test]
fn categories_with_generated_and_chosen_slugs() {
    let e = Env::new();
    e.init();
    assert_eq!(
        e.json(&["category", "create", "--name", "Größe & Co", "--json"])["slug"],
        "grosse-co"
    );
    assert_eq!(
        e.json(&["category", "create", "--name", "Grösse Co", "--json"])["slug"],
        "grosse-co-2"
    );
    assert_eq!(
        e.json(&[
            "category", "create", "--name", "Tips", "--slug", "tips", "--json"
        ])["slug"],
        "tips"
    );
    assert!(
        e.fails(&[
            "category",
            "create",
            "--name",
            "More tips",
            "--slug",
            "tips"
        ])
        .contains("taken")
    );
    assert!(
        e.fails(&["category", "create", "--name", "Bad", "--slug", "Bad_Slug"])
            .contains("slug")
    );
    assert!(
        e.fails(&["category", "create", "--name", ""])
            .contains("name")
    );
    assert_eq!(
        e.json(&["category", "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

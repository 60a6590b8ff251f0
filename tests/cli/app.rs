//! app: OAuth applications.

use crate::Env;

#[test]
fn app_create_list_show_rotate_delete() {
    let e = Env::new();
    e.init();
    let a = e.json(&[
        "app",
        "create",
        "--name",
        "Web",
        "--grant",
        "authorization-code",
        "--redirect-uri",
        "https://a.example/cb",
        "--json",
    ]);
    let id = a["client_id"].as_str().unwrap().to_owned();
    assert!(a["secret_key"].as_str().unwrap().len() >= 43);
    assert_eq!(a["client_type"], "confidential");
    assert_eq!(a["name"], "Web");
    // the secret is stored hashed only
    assert_eq!(
        e.sql(&format!(
            "SELECT count(*) FROM oauth_app WHERE client_id = '{id}' AND length(secret_hash) = 32"
        )),
        1
    );
    let p = e.json(&[
        "app", "create", "--name", "SDK", "--grant", "password", "--json",
    ]);
    assert_eq!(p["client_type"], "public");
    let i = e.json(&[
        "app",
        "create",
        "--name",
        "JS",
        "--grant",
        "implicit",
        "--redirect-uri",
        "https://a.example/i",
        "--json",
    ]);
    assert_eq!(i["client_type"], "public");
    let list = e.json(&["app", "list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 3);
    assert!(
        list[0].get("secret_key").is_none(),
        "list never shows secrets"
    );
    let shown = e.json(&["app", "show", &id, "--json"]);
    assert_eq!(shown["redirect_uris"][0], "https://a.example/cb");
    assert!(shown.get("secret_key").is_none());
    let rotated = e.json(&["app", "rotate-secret", &id, "--json"]);
    assert_ne!(rotated["secret_key"], a["secret_key"]);
    e.ok(&["app", "delete", &id]);
    assert!(e.fails(&["app", "show", &id]).contains("no application"));
    assert!(
        e.fails(&["app", "delete", "nope"])
            .contains("no application")
    );
}

#[test]
fn app_create_validates_its_input() {
    let e = Env::new();
    e.init();
    let long = "x".repeat(256);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--name", &long, "--grant", "password"], "at most 255"),
        (
            vec!["--name", "a", "--grant", "password", "--description", &long],
            "at most 255",
        ),
        (
            vec!["--name", "a", "--grant", "authorization-code"],
            "redirect-uri",
        ),
        (vec!["--name", "a", "--grant", "implicit"], "redirect-uri"),
        (
            vec![
                "--name",
                "a",
                "--grant",
                "authorization-code",
                "--redirect-uri",
                "https://a.example/cb#frag",
            ],
            "fragment",
        ),
        (
            vec![
                "--name",
                "a",
                "--grant",
                "authorization-code",
                "--redirect-uri",
                "/relative",
            ],
            "absolute",
        ),
        (vec!["--name", "", "--grant", "password"], "empty"),
        (vec!["--name", "a", "--grant", "client-credentials"], ""),
    ];
    for (args, why) in cases {
        let mut all = vec!["app", "create"];
        all.extend(&args);
        let err = e.fails(&all);
        assert!(err.contains(why), "{args:?}: {err}");
    }
    assert_eq!(
        e.sql("SELECT count(*) FROM oauth_app"),
        0,
        "nothing was created"
    );
    // exactly 255 is fine
    let ok = "y".repeat(255);
    e.ok(&["app", "create", "--name", &ok, "--grant", "password"]);
}

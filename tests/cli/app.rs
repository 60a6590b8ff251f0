//! app: OAuth applications.

use crate::Env;

#[test]
fn app_create_list_show_rotate_delete() {
    let e = Env::initialised();
    let a = e.code_app("Web", &[]);
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
    let p = e.json(&["app", "create", "--name", "SDK", "--grant", "password", "--json"]);
    assert_eq!(p["client_type"], "public");
    assert!(p.get("secret_key").is_none(), "a public app gets no secret: it never uses one");
    let text = e.ok(&["app", "create", "--name", "SDK2", "--grant", "password"]);
    assert!(!text.contains("secret_key") && !text.contains("store it safely"), "{text}");
    let public_id = p["client_id"].as_str().unwrap().to_owned();
    let line = e.fails(&["app", "rotate-secret", &public_id]);
    assert!(line.contains("public app") && line.contains("no secret"), "{line}");
    let line = e.fails(&["app", "create", "--name", "X", "--grant", "authorization-code"]);
    assert!(line.contains("an authorization-code app needs"), "{line}");
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
    assert_eq!(list.as_array().unwrap().len(), 4);
    assert!(list[0].get("secret_key").is_none(), "list never shows secrets");
    let shown = e.json(&["app", "show", &id, "--json"]);
    assert_eq!(shown["redirect_uris"][0], "https://a.example/cb");
    assert!(shown.get("secret_key").is_none());
    let rotated = e.json(&["app", "rotate-secret", &id, "--json"]);
    assert_ne!(rotated["secret_key"], a["secret_key"]);
    e.ok(&["app", "delete", &id]);
    e.assert_fails(&[
        (&["app", "show", &id], "no application"),
        (&["app", "delete", "nope"], "no application"),
    ]);
}

#[test]
fn app_create_validates_its_input() {
    let e = Env::initialised();
    let long = "x".repeat(256);
    let code_to = |uri| {
        let code = ["--name", "a", "--grant", "authorization-code"];
        [&code[..], &["--redirect-uri", uri]].concat()
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--name", &long, "--grant", "password"], "at most 255"),
        (vec!["--name", "a", "--grant", "password", "--description", &long], "at most 255"),
        (vec!["--name", "a", "--grant", "authorization-code"], "redirect-uri"),
        (vec!["--name", "a", "--grant", "implicit"], "redirect-uri"),
        (code_to("https://a.example/cb#frag"), "fragment"),
        (code_to("/relative"), "absolute"),
        (vec!["--name", "", "--grant", "password"], "empty"),
        (vec!["--name", "a", "--grant", "client-credentials"], ""),
    ];
    for (args, why) in cases {
        let mut all = vec!["app", "create"];
        all.extend(&args);
        let err = e.fails(&all);
        assert!(err.contains(why), "{args:?}: {err}");
    }
    assert_eq!(e.sql("SELECT count(*) FROM oauth_app"), 0, "nothing was created");
    // exactly 255 is fine
    let ok = "y".repeat(255);
    e.ok(&["app", "create", "--name", &ok, "--grant", "password"]);
}

fn app_row(e: &Env, client_id: &str) -> (String, String, String, String, i64) {
    e.conn()
        .query_row(
            "SELECT name, description, image, redirect_uris, skip_consent FROM oauth_app WHERE client_id = ?1",
            [client_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap()
}

#[test]
fn redirect_uris_follow_the_registration_rule() {
    let e = Env::initialised();
    let refused = [
        ("javascript:alert(1)", "scheme \"javascript\""),
        ("data:text/html,<script>x</script>", "scheme \"data\""),
        ("file:///etc/passwd", "scheme \"file\""),
        ("ftp://files.example/cb", "scheme \"ftp\""),
        ("myapp:/cb", "scheme \"myapp\""),
        ("http://example.org/cb", "not loopback"),
        ("http://10.0.0.1/cb", "not loopback"),
        ("https://a.example/cb#x", "fragment"),
        ("com.example.app:/cb#x", "fragment"),
        ("https://user:pw@a.example/cb", "user information"),
        ("https://user@a.example/cb", "user information"),
        ("relative/cb", "absolute"),
    ];
    for (uri, why) in refused {
        for grant in ["authorization-code", "implicit"] {
            let err = e.fails(&[
                "app",
                "create",
                "--name",
                "a",
                "--grant",
                grant,
                "--redirect-uri",
                "https://fine.example/cb",
                "--redirect-uri",
                uri,
            ]);
            assert!(err.contains(why), "{uri}: {err}");
            assert!(err.contains(uri), "{uri}: the error names the URI: {err}");
        }
    }
    assert_eq!(e.sql("SELECT count(*) FROM oauth_app"), 0, "nothing created");
    let allowed = [
        "https://a.example/cb?x=1",
        "http://127.0.0.1:8000/cb",
        "http://[::1]/cb",
        "http://localhost:3000/cb",
        "com.example.app:/oauth2redirect",
    ];
    let mut args = vec!["app", "create", "--name", "a", "--grant", "authorization-code"];
    for uri in allowed {
        args.extend(["--redirect-uri", uri]);
    }
    args.push("--json");
    let a = e.json(&args);
    assert_eq!(a["redirect_uris"].as_array().unwrap().len(), allowed.len());
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn app_update_changes_what_is_given_and_checks_it_as_create_does() {
    let e = Env::initialised();
    let a = e.code_app("Web", &["--redirect-uri", "https://a.example/cb2"]);
    let id = a["client_id"].as_str().unwrap().to_owned();
    let secret_before = e.sql(&format!(
        "SELECT count(*) FROM oauth_app WHERE client_id = '{id}' AND length(secret_hash) = 32"
    ));
    let u = e.json(&[
        "app",
        "update",
        &id,
        "--name",
        "Web 2",
        "--description",
        "the new one",
        "--image",
        "https://img.example/i.png",
        "--redirect-uri",
        "https://b.example/cb",
        "--skip-consent",
        "true",
        "--json",
    ]);
    assert_eq!(u["name"], "Web 2");
    assert_eq!(u["skip_consent"], true);
    assert!(u.get("secret_key").is_none(), "update never shows a secret");
    assert_eq!(
        app_row(&e, &id),
        (
            "Web 2".into(),
            "the new one".into(),
            "https://img.example/i.png".into(),
            "https://b.example/cb".into(),
            1
        ),
        "--redirect-uri replaced the whole list"
    );
    assert_eq!(secret_before, 1);
    // only what is given changes
    e.ok(&["app", "update", &id, "--skip-consent", "false"]);
    let row = app_row(&e, &id);
    assert_eq!((row.0.as_str(), row.4), ("Web 2", 0));
    assert_eq!(row.3, "https://b.example/cb");
    let long = "x".repeat(256);
    let before = app_row(&e, &id);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--name", &long], "at most 255"),
        (vec!["--name", " "], "empty"),
        (vec!["--description", &long], "at most 255"),
        (vec!["--redirect-uri", "javascript:alert(1)"], "javascript"),
        (vec!["--redirect-uri", "http://example.org/cb"], "loopback"),
        (vec!["--redirect-uri", "https://a.example/#f"], "fragment"),
        (vec!["--redirect-uri", "https://ok.example/cb", "--redirect-uri", "data:,x"], "data"),
        (vec!["--image", "javascript:alert(1)"], "image"),
        (vec!["--skip-consent", "maybe"], ""),
        (vec![], "nothing to change"),
    ];
    for (args, why) in cases {
        let mut all = vec!["app", "update", &id];
        all.extend(&args);
        let err = e.fails(&all);
        assert!(err.contains(why), "{args:?}: {err}");
        assert_eq!(app_row(&e, &id), before, "{args:?}: nothing changed");
    }
    assert!(e.fails(&["app", "update", "nope", "--name", "x"]).contains("no application"));
    // a password app may have no redirect URI, and gets its first one by update
    let p = e.json(&["app", "create", "--name", "SDK", "--grant", "password", "--json"]);
    let pid = p["client_id"].as_str().unwrap();
    e.ok(&["app", "update", pid, "--redirect-uri", "com.example.sdk:/cb"]);
    assert_eq!(app_row(&e, pid).3, "com.example.sdk:/cb");
}

#[test]
fn check_reports_stored_redirect_uris_that_break_the_rule() {
    let e = Env::initialised();
    let a = e.code_app("Old", &[]);
    let id = a["client_id"].as_str().unwrap().to_owned();
    assert_eq!(e.json(&["check", "--json"]), serde_json::json!([]));
    // registered before the rule existed (or behind hearth's back)
    e.conn()
        .execute(
            "UPDATE oauth_app SET redirect_uris = 'https://a.example/cb' || char(10) || 'http://example.org/cb' || char(10) || 'javascript:alert(1)'",
            [],
        )
        .unwrap();
    let out = e.run(&["check"]);
    assert!(!out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "one line per bad URI: {text}");
    assert!(lines[0].starts_with("problem: app ") && lines[0].contains(&id));
    assert!(lines[0].contains("http://example.org/cb"));
    assert!(lines[1].contains("javascript:alert(1)"));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("2 problems found: give each app named a valid one with `hearth app update"),
        "{err}"
    );
    let out = e.run(&["check", "--json"]);
    assert!(!out.status.success(), "--json exits 1 too");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["check"], "redirect_uris");
    assert_eq!(list[0]["count"], 1);
    assert!(list[1]["problem"].as_str().unwrap().contains("javascript"));
    // fixing it by update makes check pass again
    e.ok(&["app", "update", &id, "--redirect-uri", "https://a.example/cb"]);
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn a_client_id_may_start_with_a_dash() {
    let e = Env::initialised();
    e.ok(&["app", "create", "--name", "SDK", "--grant", "password", "--confidential"]);
    // random client ids are URL-safe base64: one in 64 starts with '-'
    e.conn().execute("UPDATE oauth_app SET client_id = '-Hx9'", []).unwrap();
    assert_eq!(e.json(&["app", "show", "-Hx9", "--json"])["name"], "SDK");
    e.ok(&["app", "update", "-Hx9", "--name", "SDK 2"]);
    assert_eq!(e.json(&["app", "rotate-secret", "-Hx9", "--json"])["client_id"], "-Hx9");
    e.ok(&["app", "delete", "-Hx9"]);
    assert_eq!(e.sql("SELECT count(*) FROM oauth_app"), 0);
}

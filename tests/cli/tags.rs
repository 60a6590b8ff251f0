//! User tags from the command line and in an import (SPEC §10 People, issue 32):
//! `hearth tag add|assign|unassign|list`, and the `tag` / `user_tag` records a
//! migrating community brings, with the API's rules and every bad line named; and the
//! `user_provider` records (identities elsewhere linked to users).

use crate::{Env, fails};

fn lines() -> Vec<String> {
    let mut l: Vec<String> =
        (1..=2).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    l.extend(
        [
            r##"{"record":"tag","id":5,"name":"Mentor","color":"#3F51B5","description":"Helps","created_at":"2024-01-02T03:04:05Z"}"##,
            r#"{"record":"tag","id":6,"name":"Staff only","visible":false}"#,
            r#"{"record":"user_tag","user":1,"tag":5}"#,
            r#"{"record":"user_tag","user":2,"tag":5}"#,
            r#"{"record":"user_tag","user":2,"tag":6}"#,
        ]
        .map(str::to_owned),
    );
    l
}

#[test]
fn tags_and_holders_import_and_the_cli_keeps_them() {
    let e = Env::imported(&lines());
    assert!(e.ok(&["check"]).contains("ok"));
    e.assert_sql(&[
        ("SELECT count(*) FROM tag WHERE id = 5 AND color = '#3f51b5' AND created_at > 0", 1),
        ("SELECT visible FROM tag WHERE id = 6", 0),
        ("SELECT count(*) FROM user_tag", 3),
    ]);
    let list = e.json(&["tag", "list", "--json"]);
    assert_eq!(list[0]["name"], "Mentor");
    assert_eq!(list[0]["holders"], 2);
    let added = e.json(&["tag", "add", "Guide", "--color", "#00ff00", "--json"]);
    assert_eq!(added["color"], "#00ff00");
    assert!(e.ok(&["tag", "assign", "Guide", "u1"]).contains("u1 now holds tag"));
    assert!(e.ok(&["tag", "assign", "Guide", "u1"]).contains("already held"));
    assert!(e.ok(&["tag", "unassign", "5", "u2"]).contains("no longer holds"));
    e.assert_sql(&[("SELECT count(*) FROM user_tag", 3)]);
    e.assert_fails(&[
        (&["tag", "add", "mentor"], "already exists"),
        (&["tag", "add", "x", "--color", "blue"], "hexadecimal"),
        (&["tag", "assign", "Nope", "u1"], "no tag"),
        (&["tag", "assign", "5", "nobody"], "no user"),
    ]);
}

#[test]
fn a_bad_tag_line_is_named_and_nothing_of_its_batch_is_written() {
    let cases = [
        (r#"{"record":"tag","id":7,"name":""}"#, "name"),
        (r#"{"record":"tag","id":7,"name":"x","color":"red"}"#, "color"),
        (r#"{"record":"tag","id":7,"name":"x","type":"category"}"#, "user tags only"),
        (r#"{"record":"tag","id":7,"name":"x","owner":1}"#, "owner"),
        (r#"{"record":"tag","id":7,"name":"MENTOR"}"#, "already exists"),
        (r#"{"record":"tag","id":5,"name":"again"}"#, "tag 5"),
        (r#"{"record":"user_tag","user":9,"tag":5}"#, "user 9 does not exist"),
        (r#"{"record":"user_tag","user":1,"tag":9}"#, "tag 9 does not exist"),
        (r#"{"record":"user_tag","user":1,"tag":5}"#, "already holds"),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = lines();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 8:"), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM tag"), 0, "{bad}: rolled back");
    }
}

/// A migrating community's addressed posts keep their tags, by the API's rules: a
/// status, an item in a group, an unknown tag are each a named bad line.
#[test]
fn addressed_items_import_with_their_tags() {
    let mut good = lines();
    good.extend(
        [
            r#"{"record":"post","id":1,"author":1,"text":"for mentors","addressing":[5,6]}"#,
            r#"{"record":"discussion","id":1,"author":2,"title":"t","text":"x","addressing":[5]}"#,
            r#"{"record":"post","id":2,"author":1,"text":"for all"}"#,
        ]
        .map(str::to_owned),
    );
    let e = Env::imported(&good);
    assert!(e.ok(&["check"]).contains("ok"));
    e.assert_sql(&[
        ("SELECT count(*) FROM contribution_addressing", 3),
        (
            "SELECT count(*) FROM contribution_addressing a JOIN contribution c ON c.pk = a.contribution_pk
             WHERE c.kind = 'post' AND c.id = 1",
            2,
        ),
    ]);
    for (bad, why) in [
        (
            r#"{"record":"status","id":1,"author":1,"action":"x","text":"y","addressing":[5]}"#,
            "discussions and posts",
        ),
        (
            r#"{"record":"post","id":9,"author":1,"text":"x","addressing":[9]}"#,
            "tag 9 does not exist",
        ),
        (r#"{"record":"post","id":9,"author":1,"text":"x","addressing":["x"]}"#, "invalid type"),
    ] {
        let e = Env::initialised();
        let mut all = lines();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 8:") && err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM contribution"), 0, "{bad}: rolled back");
    }
}

/// Identities linked to users (issue 32) import with the API's rules: each bad line
/// is named, and a good one is what `GET /user/{id}/provider/` lists.
#[test]
fn linked_identities_import_by_the_apis_rules() {
    let mut good = lines();
    good.extend(
        [
            r#"{"record":"user_provider","user":1,"provider":"google","ext_id":"g-1","profile_url":"https://example.org/u1","show_in_profile":true,"metadata":{"locale":"it"},"created_at":"2024-01-02T03:04:05Z"}"#,
            r#"{"record":"user_provider","user":2,"provider":"sso","ext_id":4711}"#,
        ]
        .map(str::to_owned),
    );
    let e = Env::imported(&good);
    assert!(e.ok(&["check"]).contains("ok"));
    e.assert_sql(&[
        ("SELECT count(*) FROM user_provider WHERE user_id = 1 AND show_in_profile = 1 AND metadata = '{\"locale\":\"it\"}'", 1),
        ("SELECT count(*) FROM user_provider WHERE user_id = 2 AND ext_id = '4711'", 1),
    ]);
    let cases = [
        (r#"{"record":"user_provider","user":9,"provider":"google","ext_id":"x"}"#, "user 9"),
        (r#"{"record":"user_provider","user":1,"provider":"Google!","ext_id":"x"}"#, "provider"),
        (r#"{"record":"user_provider","user":1,"provider":"github","ext_id":""}"#, "ext_id"),
        (
            r#"{"record":"user_provider","user":1,"provider":"github","ext_id":"x","profile_url":"javascript:alert(1)"}"#,
            "profile_url",
        ),
        (
            r#"{"record":"user_provider","user":1,"provider":"github","ext_id":"x","metadata":"<script>"}"#,
            "metadata",
        ),
        (
            r#"{"record":"user_provider","user":1,"provider":"github","ext_id":"x","password":"p"}"#,
            "password",
        ),
        (r#"{"record":"user_provider","user":1,"provider":"google","ext_id":"g-2"}"#, "already"),
        (
            r#"{"record":"user_provider","user":2,"provider":"google","ext_id":"g-1"}"#,
            "linked to a user already",
        ),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = good.clone();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 10:"), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user_provider"), 0, "{bad}: rolled back");
    }
}

//! The import records of SPEC §10 Groups: groups and their members load with an exact
//! `subscribers_counter` (the schema's triggers), items and their comments keep their
//! group, every bad line is named, and `hearth check` agrees.

use crate::{Env, fails};

/// Users 1-3; a private group of user 1 with member 2 and invited 3; a post in it with
/// a comment; a public group.
fn lines() -> Vec<String> {
    let mut l: Vec<String> =
        (1..=3).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    l.extend(
        [
            r#"{"record":"group","id":7,"name":"Inner circle","created_by":1,"privacy":"private","description":"<b>us</b>"}"#,
            r#"{"record":"group_member","group":7,"user":2,"join_status":"joined"}"#,
            r#"{"record":"group_member","group":7,"user":3,"join_status":"invited"}"#,
            r#"{"record":"post","id":1,"author":2,"text":"inside","group":7}"#,
            r#"{"record":"comment","id":1,"author":1,"text":"yes","post":1}"#,
            r#"{"record":"group","id":8,"name":"Inner circle!","created_by":2}"#,
        ]
        .map(str::to_owned),
    );
    l
}

#[test]
fn groups_and_members_import_with_exact_counters() {
    let e = Env::imported(&lines());
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    e.assert_sql(&[
        ("SELECT subscribers_counter FROM community_group WHERE id = 7", 2),
        ("SELECT subscribers_counter FROM community_group WHERE id = 8", 1),
        ("SELECT count(*) FROM community_group WHERE slug = 'inner-circle-2'", 1),
        ("SELECT count(*) FROM contribution WHERE group_id = 7", 2),
        ("SELECT live FROM contribution_space_tally WHERE kind = 'post'", 1),
    ]);
}

#[test]
fn a_bad_group_line_is_named_and_nothing_of_its_batch_is_written() {
    let cases: Vec<(&str, &str)> = vec![
        (r#"{"record":"group","id":9,"name":"x","created_by":99}"#, "created_by 99 does not exist"),
        (r#"{"record":"group","id":9,"name":"","created_by":1}"#, "a name of 1 to 40"),
        (
            r#"{"record":"group","id":9,"name":"y","created_by":1,"privacy":"secret"}"#,
            "not a valid choice",
        ),
        (r#"{"record":"group","id":9,"name":"inner CIRCLE","created_by":1}"#, "already"),
        (
            r#"{"record":"group_member","group":9,"user":2,"join_status":"joined"}"#,
            "group 9 does not exist",
        ),
        (
            r#"{"record":"group_member","group":7,"user":1,"join_status":"joined"}"#,
            "creator's join_status",
        ),
        (r#"{"record":"group_member","group":7,"user":2,"join_status":"joined"}"#, "group_member"),
        (r#"{"record":"post","id":2,"author":1,"text":"x","group":9}"#, "group 9 does not exist"),
        (r#"{"record":"status","id":1,"author":1,"text":"x","group":7}"#, "no group or event"),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = lines();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 10:"), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "{bad}: rolled back");
    }
}

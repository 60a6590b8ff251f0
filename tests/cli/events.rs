//! The import records of SPEC §10 Events: events (the API's body rules) and their
//! members load with exact `subscribers_counter` and `goings_counter` (the schema's
//! triggers), every bad line is named, and `hearth check` agrees.

use crate::{Env, fails};

/// Users 1-3; a private weekly event of user 1 with member 2 going and invited 3; a
/// public event of user 2 that user 1 says no to; a post in the first with a comment.
fn lines() -> Vec<String> {
    let mut l: Vec<String> =
        (1..=3).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    l.extend(
        [
            r#"{"record":"event","id":7,"created_by":1,"name":"Standup","start_date":"2026-03-24T18:00:00Z","end_date":"2026-03-24T18:15:00Z","timezone":"Europe/Rome","recurring":"weekly","location":"virtual","link":"https://meet.example/s","privacy":"private"}"#,
            r#"{"record":"event_member","event":7,"user":2,"join_status":"joined","going":true}"#,
            r#"{"record":"event_member","event":7,"user":3,"join_status":"invited"}"#,
            r#"{"record":"event","id":8,"created_by":2,"name":"Standup","start_date":"2026-05-01T10:00:00+02:00","end_date":"2026-05-01T12:00:00+02:00","recurring":"never","location":"in person","geolocation":"Milan"}"#,
            r#"{"record":"event_member","event":8,"user":1,"join_status":"joined","going":false}"#,
            r#"{"record":"post","id":1,"author":2,"text":"agenda","event":7}"#,
            r#"{"record":"comment","id":1,"author":1,"text":"ok","post":1}"#,
        ]
        .map(str::to_owned),
    );
    l
}

#[test]
fn events_and_members_import_with_exact_counters() {
    let e = Env::imported(&lines());
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    e.assert_sql(&[
        ("SELECT subscribers_counter FROM event WHERE id = 7", 2),
        ("SELECT goings_counter FROM event WHERE id = 7", 2),
        ("SELECT subscribers_counter FROM event WHERE id = 8", 2),
        ("SELECT goings_counter FROM event WHERE id = 8", 1),
        ("SELECT count(*) FROM event WHERE slug = 'standup-2'", 1),
        ("SELECT count(*) FROM event WHERE timezone = 'Europe/Rome' AND recurring = 'weekly'", 1),
        ("SELECT count(*) FROM contribution WHERE event_id = 7", 2),
        ("SELECT live FROM contribution_space_tally WHERE kind = 'post'", 1),
    ]);
}

#[test]
fn a_bad_event_line_is_named_and_nothing_of_its_batch_is_written() {
    let ok = r#""start_date":"2026-01-01T10:00:00Z","end_date":"2026-01-01T11:00:00Z","recurring":"never","location":"virtual","link":"https://x.example""#;
    let cases: Vec<(String, &str)> = vec![
        (format!(r#"{{"record":"event","id":9,"created_by":99,"name":"x",{ok}}}"#), "created_by 99 does not exist"),
        (format!(r#"{{"record":"event","id":9,"created_by":1,"name":"",{ok}}}"#), "name"),
        (format!(r#"{{"record":"event","id":9,"created_by":1,"name":"x","timezone":"Mars/Base",{ok}}}"#), "timezone"),
        (format!(r#"{{"record":"event","id":9,"created_by":1,"name":"x","products":[],{ok}}}"#), "unknown field `products`"),
        (
            r#"{"record":"event","id":9,"created_by":1,"name":"x","start_date":"2026-01-01T10:00:00Z","end_date":"2026-01-01T09:00:00Z","recurring":"never","location":"virtual","link":"https://x.example"}"#.into(),
            "end_date",
        ),
        (format!(r#"{{"record":"event","id":7,"created_by":1,"name":"again",{ok}}}"#), "event 7"),
        (r#"{"record":"event_member","event":9,"user":2,"join_status":"joined"}"#.into(), "event 9 does not exist"),
        (r#"{"record":"event_member","event":7,"user":1,"join_status":"joined"}"#.into(), "creator's join_status"),
        (r#"{"record":"event_member","event":7,"user":2,"join_status":"joined"}"#.into(), "already in event 7"),
        (r#"{"record":"event_member","event":8,"user":3,"join_status":"invited","going":true}"#.into(), "only members answer"),
        (r#"{"record":"post","id":2,"author":1,"text":"x","event":9}"#.into(), "event 9 does not exist"),
        (r#"{"record":"post","id":2,"author":1,"text":"x","event":7,"group":1}"#.into(), "not in both"),
        (r#"{"record":"status","id":1,"author":1,"text":"x","event":7}"#.into(), "no group or event"),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = lines();
        all.push(bad.clone());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 11:"), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "{bad}: rolled back");
    }
}

//! The import records of SPEC §10 People (issue 32): connections and connection requests
//! load with exact counters (the schema's triggers), every bad line is named, and a
//! broken counter is found by `hearth check`.

use crate::{Env, fails, succeeded};

/// Users 1-4 and a deleted user 5 (5 lines), then 1-2 connected, 3 asking 1, 4 asking 1
/// (rejected, seen), user 2's flag on user 1's post, the terms and user 2's acceptance.
fn lines() -> Vec<String> {
    let mut l: Vec<String> =
        (1..=4).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    l.extend([
        r#"{"record":"user","id":5,"username":"gone","deleted":true}"#.to_owned(),
        r#"{"record":"connection","user":1,"other":2,"created_at":"2025-03-01T00:00:00Z"}"#
            .to_owned(),
        r#"{"record":"connection_request","from_user":3,"to_user":1}"#.to_owned(),
        r#"{"record":"connection_request","from_user":4,"to_user":1,"rejected_at":"2025-03-02T00:00:00Z","viewed_at":"2025-03-02T00:00:00Z"}"#.to_owned(),
        r#"{"record":"post","id":1,"author":1,"text":"hello"}"#.to_owned(),
        r#"{"record":"flag","user":2,"post":1,"flag_type":3,"created_at":"2025-03-03T00:00:00Z"}"#.to_owned(),
        r#"{"record":"legal_page","id":1,"policy":"tec","title":"Terms","body":"<p>Be kind.</p><script>x()</script>"}"#.to_owned(),
        r#"{"record":"legal_ack","user":2,"page":1,"accepted_at":"2025-03-04T00:00:00Z"}"#.to_owned(),
    ]);
    l
}

#[test]
fn connections_and_requests_import_with_exact_counters() {
    let e = Env::imported(&lines());
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    e.assert_sql(&[
        ("SELECT count(*) FROM connection", 2),
        ("SELECT connections_counter FROM user WHERE id = 1", 1),
        ("SELECT connections_counter FROM user WHERE id = 2", 1),
        ("SELECT created_at FROM connection WHERE user_id = 2", 1_740_787_200_000_000),
        // the rejected request is not counted as received
        ("SELECT connection_requests_received_counter FROM user WHERE id = 1", 1),
        ("SELECT connection_requests_sent_counter FROM user WHERE id = 4", 1),
        ("SELECT flag_type FROM flag WHERE user_id = 2", 3),
        ("SELECT last_flagged_at FROM moderation", 1_740_960_000_000_000),
        ("SELECT count(*) FROM legal_ack WHERE user_id = 2 AND accepted_at IS NOT NULL", 1),
        ("SELECT instr(html_body, 'script') FROM legal_page WHERE id = 1", 0),
    ]);
    let out = e.import(&[r#"{"record":"connection","user":3,"other":4}"#.to_owned()]);
    succeeded(&out);
    assert_eq!(e.sql("SELECT connections_counter FROM user WHERE id = 4"), 1);
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn a_bad_connection_line_is_named_and_nothing_of_its_batch_is_written() {
    let cases: Vec<(&str, &str)> = vec![
        (r#"{"record":"connection","user":1,"other":9}"#, "other 9 does not exist"),
        (r#"{"record":"connection","user":1,"other":1}"#, "the same user"),
        (r#"{"record":"connection","user":1,"other":5}"#, "other 5 is deleted"),
        (r#"{"record":"connection","user":2,"other":1}"#, "already connected"),
        (r#"{"record":"connection","user":1}"#, "other"),
        (r#"{"record":"connection_request","from_user":1,"to_user":2}"#, "connected already"),
        (r#"{"record":"connection_request","from_user":3,"to_user":1}"#, "already asked"),
        (r#"{"record":"connection_request","from_user":5,"to_user":1}"#, "from_user 5 is deleted"),
        (r#"{"record":"connection_request","from_user":3,"to_user":2,"seen":1}"#, "seen"),
        (
            r#"{"record":"connection_request","from_user":3,"to_user":2,"rejected_at":"no"}"#,
            "RFC 3339",
        ),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = lines();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 13:"), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "{bad}: rolled back");
    }
}

#[test]
fn staff_add_legal_revisions_with_the_cli() {
    let e = Env::initialised();
    let body = e.dir.path().join("terms.html");
    std::fs::write(&body, "<p>Be kind.</p><script>alert(1)</script>").unwrap();
    let b = body.to_str().unwrap();
    let out = e.ok(&["legal", "add", "--policy", "tec", "--title", "Terms", "--body-file", b]);
    assert!(out.contains("added tec revision 1"), "{out}");
    let later = ["legal", "add", "--policy", "privacy", "--title", "Privacy", "--body-file", b];
    e.ok(&[&later[..], &["--valid-from", "2030-01-01T00:00:00Z"]].concat());
    let list: serde_json::Value =
        serde_json::from_str(&e.ok(&["legal", "list", "--json"])).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(2));
    let html: String = e.value("SELECT html_body FROM legal_page WHERE id = 1");
    assert!(html.contains("Be kind.") && !html.contains("script"), "{html}");
    for (args, why) in [
        (vec!["--policy", "cookies", "--title", "C", "--body-file", b], "one of tec, privacy"),
        (vec!["--policy", "tec", "--title", " ", "--body-file", b], "--title"),
        (vec!["--policy", "tec", "--title", "T", "--body-file", "/nonexistent"], "/nonexistent"),
        (
            vec!["--policy", "tec", "--title", "T", "--body-file", b, "--valid-from", "soon"],
            "RFC 3339",
        ),
    ] {
        let err = e.fails(&[&["legal", "add"][..], &args].concat());
        assert!(err.contains(why), "{args:?}: {err}");
    }
}

#[test]
fn staff_list_the_flagged_contributions_with_the_cli() {
    // the imported flag puts user 1's post in the queue
    let e = Env::imported(&lines());
    let out = e.ok(&["flag", "list"]);
    assert!(
        out.contains("post")
            && out.contains("1 flag(s)")
            && out.contains("open")
            && out.contains("u1"),
        "{out}"
    );
    let list: serde_json::Value = serde_json::from_str(&e.ok(&["flag", "list", "--json"])).unwrap();
    assert_eq!(list[0]["contribution_type"], "post");
    assert_eq!(
        (list[0]["flags"].clone(), list[0]["author"].clone()),
        (serde_json::json!(1), serde_json::json!("u1"))
    );
}

#[test]
fn user_suspend_blocks_a_member_and_unsuspend_lifts_it() {
    let e = Env::initialised();
    e.ok(&["user", "create", "--username", "bob", "--no-password"]);
    e.ok(&["user", "create", "--username", "moira", "--staff", "--no-password"]);
    let out = e.ok(&["user", "suspend", "bob", "--days", "3"]);
    assert!(out.contains("bob is blocked until"), "{out}");
    assert_eq!(
        e.sql("SELECT count(*) FROM user WHERE username = 'bob' AND blocked_until IS NOT NULL"),
        1
    );
    assert!(e.fails(&["user", "suspend", "moira"]).contains("take staff away first"));
    e.fails(&["user", "suspend", "bob", "--days", "0"]);
    e.ok(&["user", "unsuspend", "bob"]);
    assert_eq!(e.sql("SELECT count(*) FROM user WHERE blocked_at IS NOT NULL"), 0);
}

#[test]
fn private_messages_import_into_threads_with_exact_unread_counts() {
    let mut all = lines();
    all.extend([
        r#"{"record":"private_message","sender":1,"receiver":2,"message":"hi <script>x()</script>","created_at":"2025-03-05T00:00:00Z"}"#.to_owned(),
        r#"{"record":"private_message","sender":2,"receiver":1,"message":"hello","read":false}"#.to_owned(),
        r#"{"record":"private_message","sender":3,"receiver":1,"message":"one","read":false}"#.to_owned(),
        r#"{"record":"private_message","sender":5,"receiver":1,"message":"from a deleted user"}"#.to_owned(),
    ]);
    let e = Env::imported(&all);
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    e.assert_sql(&[
        ("SELECT count(*) FROM pm_thread", 3),
        ("SELECT unread FROM pm_member WHERE user_id = 1 AND other_id = 2", 1),
        ("SELECT unread FROM pm_member WHERE user_id = 2 AND other_id = 1", 0),
        ("SELECT sum(unread) FROM pm_member WHERE user_id = 1", 2),
        // plain text: escaped, as the API renders it
        ("SELECT html = 'hi &lt;script&gt;x()&lt;/script&gt;' FROM private_message WHERE sender_id = 1", 1),
        ("SELECT count(*) FROM notification WHERE type = 'private_message'", 0),
    ]);
    for (bad, why) in [
        (r#"{"record":"private_message","sender":1,"receiver":1,"message":"x"}"#, "same user"),
        (
            r#"{"record":"private_message","sender":1,"receiver":9,"message":"x"}"#,
            "receiver 9 does not exist",
        ),
        (r#"{"record":"private_message","sender":1,"receiver":2,"message":" "}"#, "empty"),
        (r#"{"record":"private_message","sender":1,"receiver":2}"#, "message"),
    ] {
        let e = Env::initialised();
        let mut all = lines();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 13:") && err.contains(why), "{bad}: {err}");
    }
}

#[test]
fn group_thread_messages_import_from_members_only() {
    let mut all = lines();
    all.extend([
        r#"{"record":"group","id":7,"name":"Bakers","created_by":1}"#.to_owned(),
        r#"{"record":"group_member","group":7,"user":2,"join_status":"joined"}"#.to_owned(),
        r#"{"record":"group_member","group":7,"user":3,"join_status":"invited"}"#.to_owned(),
        r#"{"record":"private_message","sender":1,"group":7,"message":"<b>welcome</b>"}"#
            .to_owned(),
        r#"{"record":"private_message","sender":2,"group":7,"message":"thanks"}"#.to_owned(),
        r#"{"record":"private_message","sender":2,"group":7,"message":"unread","read":false}"#
            .to_owned(),
    ]);
    let e = Env::imported(&all);
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    e.assert_sql(&[
        ("SELECT count(*) FROM private_message WHERE group_id = 7 AND thread_id IS NULL", 3),
        ("SELECT messages FROM pm_group_thread WHERE group_id = 7", 3),
        // read by every member up to the last line that was: the last is unread
        (
            "SELECT read_floor = (SELECT id FROM private_message WHERE text = 'thanks')
             FROM pm_group_thread",
            1,
        ),
        ("SELECT last_id = (SELECT max(id) FROM private_message) FROM pm_group_thread", 1),
        ("SELECT html = '<b>welcome</b>' FROM private_message WHERE sender_id = 1", 1),
        ("SELECT count(*) FROM notification WHERE type = 'private_message'", 0),
    ]);
    let group = r#"{"record":"group","id":7,"name":"Bakers","created_by":1}"#;
    let invited = r#"{"record":"group_member","group":7,"user":3,"join_status":"invited"}"#;
    for (bad, why) in [
        (r#"{"record":"private_message","sender":3,"group":7,"message":"x"}"#, "not a member"),
        (r#"{"record":"private_message","sender":1,"group":8,"message":"x"}"#, "not a member"),
        (
            r#"{"record":"private_message","sender":1,"receiver":2,"group":7,"message":"x"}"#,
            "either a receiver or a group",
        ),
        (
            r#"{"record":"private_message","sender":1,"message":"x"}"#,
            "either a receiver or a group",
        ),
    ] {
        let e = Env::initialised();
        let mut all = lines();
        all.extend([group.to_owned(), invited.to_owned(), bad.to_owned()]);
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 15:") && err.contains(why), "{bad}: {err}");
    }
}

/// Members following items (`item_follow`) import with the items' `follower_count`
/// exact (the triggers), and each bad line is named.
#[test]
fn item_follows_import_with_exact_counts() {
    let mut good = lines();
    good.extend([
        r#"{"record":"item_follow","user":2,"post":1,"created_at":"2025-03-05T00:00:00Z"}"#
            .to_owned(),
        r#"{"record":"item_follow","user":3,"post":1}"#.to_owned(),
    ]);
    let e = Env::imported(&good);
    assert!(e.ok(&["check"]).contains("ok"));
    e.assert_sql(&[
        ("SELECT follower_count FROM contribution WHERE kind = 'post' AND id = 1", 2),
        ("SELECT created_at FROM contribution_follow WHERE user_id = 2", 1_741_132_800_000_000),
    ]);
    for (bad, why) in [
        (r#"{"record":"item_follow","user":2,"post":9}"#, "post 9 does not exist"),
        (r#"{"record":"item_follow","user":9,"post":1}"#, "user 9"),
        (r#"{"record":"item_follow","user":2,"comment":1}"#, "comment"),
        (r#"{"record":"item_follow","user":2,"post":1,"status":1}"#, "a follow"),
    ] {
        let e = Env::initialised();
        let mut all = lines();
        all.extend([r#"{"record":"item_follow","user":2,"post":1}"#.to_owned(), bad.to_owned()]);
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 14:") && err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "{bad}: rolled back");
    }
    let e = Env::initialised();
    let mut twice = lines();
    twice.extend(vec![r#"{"record":"item_follow","user":2,"post":1}"#.to_owned(); 2]);
    assert!(fails(e.import(&twice), &["import"]).contains("already follows"));
}

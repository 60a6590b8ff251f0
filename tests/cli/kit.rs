//! The import records and `hearth check` invariants SPEC §8 added: votes and category
//! follows load with exact counters, every bad line is named, and a broken counter is
//! found.

use crate::{Env, bad_batch, broken_check, fails, succeeded};

/// Two categories, users 1-4 and a deleted user 5, a post, a discussion and a comment
/// (11 lines), then votes and category follows.
fn lines() -> Vec<String> {
    let mut l = vec![
        r#"{"record":"category","id":1,"name":"Science"}"#.to_owned(),
        r#"{"record":"category","id":2,"name":"Art"}"#.to_owned(),
    ];
    for i in 1..=4 {
        l.push(format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#));
    }
    l.extend([
        r#"{"record":"user","id":5,"username":"gone","deleted":true}"#.to_owned(),
        r#"{"record":"post","id":1,"author":1,"text":"hello"}"#.to_owned(),
        r#"{"record":"discussion","id":1,"author":2,"title":"Q","text":"?"}"#.to_owned(),
        r#"{"record":"comment","id":1,"author":2,"text":"c","post":1}"#.to_owned(),
        r#"{"record":"reaction","id":7,"label":"clap","sentiment":1,"active":false}"#.to_owned(),
        // votes: the deleted user's is kept but not counted; an inactive reaction is history
        r#"{"record":"vote","user":1,"reaction":1,"post":1,"voted_at":"2025-02-01T00:00:00Z"}"#
            .to_owned(),
        r#"{"record":"vote","user":2,"reaction":2,"post":1}"#.to_owned(),
        r#"{"record":"vote","user":3,"reaction":1,"post":1}"#.to_owned(),
        r#"{"record":"vote","user":5,"reaction":1,"post":1}"#.to_owned(),
        r#"{"record":"vote","user":4,"reaction":7,"post":1}"#.to_owned(),
        r#"{"record":"vote","user":1,"reaction":3,"comment":1}"#.to_owned(),
        r#"{"record":"vote","user":1,"reaction":1,"discussion":1}"#.to_owned(),
        r#"{"record":"category_follow","user":1,"category":1,"created_at":"2025-03-01T00:00:00Z"}"#
            .to_owned(),
        r#"{"record":"category_follow","user":1,"category":2}"#.to_owned(),
        r#"{"record":"category_follow","user":2,"category":1}"#.to_owned(),
        r#"{"record":"category_follow","user":5,"category":1}"#.to_owned(),
    ]);
    l
}

#[test]
fn votes_and_category_follows_import_with_exact_counters() {
    let e = Env::imported(&lines());
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    let tally = |reaction: i64| {
        e.sql(&format!(
            "SELECT COALESCE(sum(t.n), 0) FROM vote_tally t JOIN contribution c ON c.pk = t.contribution_pk
             WHERE c.kind = 'post' AND c.id = 1 AND t.reaction_id = {reaction}"
        ))
    };
    assert_eq!((tally(1), tally(2), tally(7)), (2, 1, 1), "user 5 is deleted");
    assert_eq!(e.sql("SELECT count(*) FROM vote"), 7, "every vote is kept");
    e.assert_sql(&[
        ("SELECT voted_at FROM vote WHERE user_id = 1 AND reaction_id = 1 ORDER BY voted_at LIMIT 1", 1_738_368_000_000_000),
        ("SELECT categories_counter FROM user WHERE id = 1", 2),
        ("SELECT categories_counter FROM user WHERE id = 5", 1),
        ("SELECT followers_counter FROM category WHERE id = 1", 2),
        ("SELECT followers_counter FROM category WHERE id = 2", 1),
    ]);
    // a second import adds to what the first counted
    let more = vec![
        r#"{"record":"vote","user":4,"reaction":1,"discussion":1}"#.to_owned(),
        r#"{"record":"category_follow","user":3,"category":2}"#.to_owned(),
    ];
    let out = e.import(&more);
    succeeded(&out);
    assert_eq!(e.sql("SELECT followers_counter FROM category WHERE id = 2"), 2);
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn a_bad_vote_or_category_follow_line_is_named_and_nothing_of_its_batch_is_written() {
    let cases: Vec<(&str, &str)> = vec![
        (r#"{"record":"vote","user":1,"reaction":1}"#, "exactly one"),
        (r#"{"record":"vote","user":1,"reaction":1,"post":1,"comment":1}"#, "exactly one"),
        (r#"{"record":"vote","user":1,"reaction":99,"post":1}"#, "reaction 99 does not exist"),
        (r#"{"record":"vote","user":1,"reaction":1,"post":77}"#, "post 77 does not exist"),
        (r#"{"record":"vote","user":99,"reaction":1,"post":1}"#, "user 99 does not exist"),
        (r#"{"record":"vote","user":1,"post":1}"#, "reaction"),
        (r#"{"record":"vote","user":1,"reaction":1,"post":1,"voted_at":"soon"}"#, "RFC 3339"),
        (r#"{"record":"vote","user":1,"reaction":1,"post":1,"weight":2}"#, "weight"),
        (r#"{"record":"category_follow","user":1,"category":42}"#, "category 42 does not exist"),
        (r#"{"record":"category_follow","user":42,"category":1}"#, "user 42 does not exist"),
        (r#"{"record":"category_follow","user":1}"#, "category"),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let all = bad_batch(&lines(), bad);
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains("line 12:"), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "{bad}: rolled back");
    }
    // the same vote or follow twice
    for (dup, why) in [
        (r#"{"record":"vote","user":2,"reaction":1,"post":1}"#, "already voted post 1"),
        (r#"{"record":"category_follow","user":2,"category":1}"#, "already follows category 1"),
    ] {
        let e = Env::initialised();
        let mut all = lines();
        all.push(dup.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains(&format!("line {}:", all.len())), "{dup}: {err}");
        assert!(err.contains(why), "{dup}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM vote"), 0, "{dup}: rolled back");
    }
}

#[test]
fn check_finds_each_broken_kit_counter() {
    let e = Env::imported(&lines());
    e.conn()
        .execute_batch(
            "UPDATE vote_tally SET n = n + 1 WHERE reaction_id = 2;
             DELETE FROM vote_tally WHERE reaction_id = 3;
             UPDATE user SET categories_counter = 0 WHERE id = 1;
             UPDATE category SET followers_counter = 3 WHERE id = 1;",
        )
        .unwrap();
    broken_check(
        &e,
        &[("vote_tally", 2), ("categories_counter", 1), ("category_followers_counter", 1)],
    );
}

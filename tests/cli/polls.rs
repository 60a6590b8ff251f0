//! Polls in the import format: an item line's `poll` and `poll_vote` lines load with
//! the choices' ids, exact vote counts and `polls_counter`, and every bad line is named.

use crate::{Env, fails, succeeded};

/// Users 1-3 and a deleted user 4, a post with a single-choice poll (choices 11, 12),
/// a discussion with a closed multiple-choice poll (choices 21-23, expired long ago)
/// and a plain post: 8 lines, then votes.
fn lines() -> Vec<String> {
    let mut l: Vec<String> =
        (1..=3).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    l.extend([
        r#"{"record":"user","id":4,"username":"gone","deleted":true}"#.to_owned(),
        r#"{"record":"post","id":1,"author":1,"text":"pick","poll":{"title":"Rye or wheat?","choices":[{"id":11,"choice":"rye"},{"id":12,"choice":"wheat"}]}}"#.to_owned(),
        r#"{"record":"discussion","id":2,"author":2,"title":"Ovens","text":"which","poll":{"title":"Which ovens?","multiple_choices":true,"closed":true,"expiration_at":"2020-01-01T00:00:00Z","choices":[{"id":21,"choice":"wood"},{"id":22,"choice":"gas"},{"id":23,"choice":"electric"}]}}"#.to_owned(),
        r#"{"record":"post","id":3,"author":1,"text":"no poll"}"#.to_owned(),
        r#"{"record":"post","id":4,"author":3,"text":"ids picked here","poll":{"title":"Yes?","choices":[{"choice":"yes"},{"choice":"no"}]}}"#.to_owned(),
        r#"{"record":"poll_vote","user":2,"choice":11,"voted_at":"2025-02-01T00:00:00Z"}"#.to_owned(),
        r#"{"record":"poll_vote","user":3,"choice":12}"#.to_owned(),
        r#"{"record":"poll_vote","user":1,"choice":21}"#.to_owned(),
        r#"{"record":"poll_vote","user":1,"choice":22}"#.to_owned(),
        r#"{"record":"poll_vote","user":3,"choice":22}"#.to_owned(),
    ]);
    l
}

#[test]
fn polls_and_their_votes_import_with_their_ids_and_exact_counts() {
    let e = Env::imported(&lines());
    assert!(e.ok(&["check"]).contains("ok"), "every counter holds");
    e.assert_sql(&[
        ("SELECT vote_count FROM poll_choice WHERE id = 11", 1),
        ("SELECT vote_count FROM poll_choice WHERE id = 12", 1),
        ("SELECT vote_count FROM poll_choice WHERE id = 22", 2),
        ("SELECT vote_count FROM poll_choice WHERE id = 23", 0),
        ("SELECT position FROM poll_choice WHERE id = 23", 2),
        ("SELECT count(*) FROM poll_choice", 7),
        ("SELECT closed FROM poll p JOIN contribution c ON c.pk = p.contribution_pk WHERE c.kind = 'discussion'", 1),
        ("SELECT multiple_choices FROM poll p JOIN contribution c ON c.pk = p.contribution_pk WHERE c.kind = 'discussion'", 1),
        ("SELECT added_at FROM poll_vote WHERE choice_id = 11", 1_738_368_000_000_000),
        ("SELECT polls_counter FROM user WHERE id = 1", 1),
        ("SELECT polls_counter FROM user WHERE id = 2", 1),
        ("SELECT polls_counter FROM user WHERE id = 3", 1),
    ]);
    // a later import votes in an earlier one's poll
    succeeded(&e.import(&[r#"{"record":"poll_vote","user":1,"choice":11}"#.to_owned()]));
    assert_eq!(e.sql("SELECT vote_count FROM poll_choice WHERE id = 11"), 2);
    assert!(e.ok(&["check"]).contains("ok"));
}

#[test]
fn a_bad_poll_or_poll_vote_line_is_named_and_nothing_is_written() {
    let base = lines();
    let cases: Vec<(&str, &str)> = vec![
        (r#"{"record":"poll_vote","user":2,"choice":99}"#, "poll choice 99 does not exist"),
        (r#"{"record":"poll_vote","user":9,"choice":11}"#, "user 9 does not exist"),
        (r#"{"record":"poll_vote","user":4,"choice":11}"#, "user 4 is deleted"),
        (r#"{"record":"poll_vote","user":2,"choice":12}"#, "single-choice poll"),
        (r#"{"record":"poll_vote","user":2,"choice":11}"#, "voted choice 11 already"),
        (r#"{"record":"poll_vote","user":2}"#, "choice"),
        (r#"{"record":"poll_vote","user":2,"choice":11,"weight":2}"#, "weight"),
        (
            r#"{"record":"status","id":9,"author":1,"text":"s","poll":{"title":"q","choices":[{"choice":"a"},{"choice":"b"}]}}"#,
            "a status has no poll",
        ),
        (
            r#"{"record":"post","id":9,"author":1,"text":"p","poll":{"title":"q","choices":[{"choice":"a"}]}}"#,
            "2 to 20 choices",
        ),
        (
            r#"{"record":"post","id":9,"author":1,"text":"p","poll":{"title":"","choices":[{"choice":"a"},{"choice":"b"}]}}"#,
            "title",
        ),
        (
            r#"{"record":"post","id":9,"author":1,"text":"p","poll":{"title":"q","choices":[{"id":11,"choice":"a"},{"choice":"b"}]}}"#,
            "poll choice 11 already exists",
        ),
        (
            r#"{"record":"post","id":9,"author":1,"text":"p","poll":{"title":"q","closed":1,"choices":[{"choice":"a"},{"choice":"b"}]}}"#,
            "closed is true or false",
        ),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = base.clone();
        all.push(bad.to_owned());
        let err = fails(e.import(&all), &["import"]);
        assert!(err.contains(&format!("line {}:", all.len())), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM poll_vote"), 0, "{bad}: rolled back");
    }
}

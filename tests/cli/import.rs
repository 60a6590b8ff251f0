//! import: NDJSON loads, bad lines, index rebuilding.

use crate::{Env, bad_batch, fails, succeeded};

const DJANGO_HASH: &str =
    "pbkdf2_sha256$1000$seasalt1234$jBDdGsGENB62UuRQcZMCu3TOrj3OU1a+qSSLI6qfg90=";

fn community_lines() -> Vec<String> {
    let mut l = vec![
        r#"{"record":"category","id":1,"name":"Science"}"#.to_owned(),
        r#"{"record":"preference","section":"text","name":"application_name","value":"imported"}"#
            .to_owned(),
        r#"{"record":"reaction","id":7,"label":"clap","sentiment":1}"#.to_owned(),
    ];
    for i in 1..=4 {
        l.push(format!(
            r#"{{"record":"user","id":{i},"username":"u{i}","email":"u{i}@x.org","password":"{DJANGO_HASH}","is_staff":{},"date_joined":"2024-01-0{i}T10:00:00.5Z","bio":"hi","gender":"Female"}}"#,
            i == 1
        ));
    }
    l.push(r#"{"record":"user","id":5,"username":"gone","deleted":true}"#.to_owned());
    for (a, b) in [(1, 2), (2, 1), (1, 3), (3, 4), (4, 3), (5, 1), (1, 5)] {
        l.push(format!(r#"{{"record":"follow","follower":{a},"followed":{b},"created_at":"2025-01-01T00:00:0{a}Z"}}"#));
    }
    l.extend([
        r#"{"record":"course","id":10,"created_by":1,"name":"Rust 101","type":"self-paced","privacy":"open","categories":[1]}"#.to_owned(),
        r#"{"record":"course_member","course":10,"user":2,"join_status":"joined"}"#.to_owned(),
        r#"{"record":"course_member","course":10,"user":1,"join_status":"creator"}"#.to_owned(),
        r#"{"record":"post","id":1,"author":1,"text":"hello","categories":[1]}"#.to_owned(),
        r#"{"record":"post","id":2,"author":1,"text":"old","deleted":true}"#.to_owned(),
        r#"{"record":"discussion","id":1,"author":2,"title":"Q","text":"?"}"#.to_owned(),
        r#"{"record":"status","id":1,"author":3,"text":"s","action":"reading"}"#.to_owned(),
        r#"{"record":"comment","id":1,"author":2,"text":"c","post":1}"#.to_owned(),
        r#"{"record":"comment","id":2,"author":3,"text":"r","post":1,"parent":1}"#.to_owned(),
        r#"{"record":"comment","id":3,"author":3,"text":"x","discussion":1,"deleted":true}"#.to_owned(),
    ]);
    l
}

#[test]
fn import_loads_a_community_with_exact_counters() {
    let e = Env::initialised();
    let out = e.import(&community_lines());
    succeeded(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("imported"));
    assert!(e.ok(&["check"]).contains("ok"), "every counter and invariant holds after import");
    // Django hashes are kept as they are
    let hash: String = e.value("SELECT password FROM user WHERE id = 1");
    assert_eq!(hash, DJANGO_HASH);
    // followers leave out the deleted user 5; 1<->2 is mutual
    e.assert_sql(&[
        ("SELECT followers_counter FROM user WHERE id = 1", 1),
        ("SELECT followings_counter FROM user WHERE id = 1", 2),
        ("SELECT mutuals_counter FROM user WHERE id = 1", 1),
        ("SELECT mutual FROM follow WHERE follower = 2 AND followed = 1", 1),
        ("SELECT mutual FROM follow WHERE follower = 1 AND followed = 3", 0),
    ]);
    assert_eq!(
        e.sql("SELECT posts_counter FROM user WHERE id = 1"),
        1,
        "the deleted post is not counted"
    );
    e.assert_sql(&[
        ("SELECT comment_count FROM contribution WHERE kind = 'post' AND id = 1", 2),
        ("SELECT count(*) FROM course_member WHERE course_id = 10", 2),
        ("SELECT count(*) FROM course_member WHERE course_id = 10 AND user_id = 1 AND join_status = 'creator'", 1),
        ("SELECT count(*) FROM reaction", 7),
    ]);
    assert_eq!(e.json(&["pref", "get", "text.application_name", "--json"])["value"], "imported");
    assert_eq!(e.sql("SELECT date_joined FROM user WHERE id = 1"), 1_704_103_200_500_000);
}

#[test]
fn import_reads_stdin() {
    let e = Env::initialised();
    let out = e.run_stdin(&["import", "-"], Some(r#"{"record":"user","id":1,"username":"solo"}"#));
    let said = succeeded(&out);
    assert!(said.starts_with("imported 1 line in "), "one line, not \"1 lines\": {said}");
    assert_eq!(e.sql("SELECT count(*) FROM user"), 1);
}

#[test]
fn a_bad_line_stops_the_import_with_its_number_and_writes_nothing_of_its_batch() {
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "line 12"),
        (r#"{"record":"spaceship","id":1}"#.into(), "unknown record"),
        (r#"{"type":"user","id":9,"username":"x"}"#.into(), "record"),
        (r#"{"record":"user","id":9}"#.into(), "username"),
        (r#"{"record":"user","id":9,"username":"U1"}"#.into(), "user 9 (U1): its username is already taken"),
        (r#"{"record":"user","id":1,"username":"new"}"#.into(), "user 1 (new) already exists"),
        (r#"{"record":"user","id":9,"username":"z","password":"plain"}"#.into(), "Django"),
        (r#"{"record":"follow","follower":1,"followed":99}"#.into(), "does not exist"),
        (r#"{"record":"follow","follower":1,"followed":2}"#.into(), "already exists"),
        (r#"{"record":"course","id":11,"created_by":1,"name":"X","type":"weird"}"#.into(), r#"type "weird" is not self-paced, structured or scheduled"#),
        (r#"{"record":"course","id":11,"created_by":1,"name":"X","type":"structured","privacy":"public"}"#.into(), r#"privacy "public" is not "", open, private or secret"#),
        (r#"{"record":"course_member","course":10,"user":2,"join_status":"owner"}"#.into(), r#"join_status "owner" is not one of manager, joined, invited, requested"#),
        (r#"{"record":"course","id":11,"created_by":1,"name":"rust 101","type":"structured"}"#.into(), "its name is already taken"),
        (r#"{"record":"comment","id":9,"author":1,"text":"t"}"#.into(), "exactly one"),
        (r#"{"record":"comment","id":9,"author":1,"text":"t","post":77}"#.into(), "does not exist"),
        (r#"{"record":"preference","section":"configurations","name":"content_availability","value":"no"}"#.into(), "boolean"),
        (r#"{"record":"preference","section":"x","name":"y","value":1}"#.into(), "no preference"),
        (r#"{"record":"course_member","course":10,"user":1,"join_status":"joined"}"#.into(), "creator"),
        // foreign keys are off during an import: every reference is checked by the importer
        (r#"{"record":"course_member","course":10,"user":99,"join_status":"joined"}"#.into(), "user 99 does not exist"),
        (r#"{"record":"course","id":11,"created_by":99,"name":"X","type":"structured"}"#.into(), "created_by 99 does not exist"),
        (r#"{"record":"course","id":11,"created_by":1,"name":"X","type":"structured","categories":[1,42]}"#.into(), "category 42"),
        (r#"{"record":"post","id":9,"author":1,"text":"t","categories":[42]}"#.into(), "category 42"),
        (r#"{"record":"post","id":9,"author":99,"text":"t"}"#.into(), "author 99 does not exist"),
        (r#"{"record":"follow","follower":99,"followed":1}"#.into(), "follower 99 does not exist"),
        (r#"{"record":"follow","follower":1,"followed":1}"#.into(), "itself"),
        (r#"{"record":"follow","follower":1,"followed":3,"created_at":"yesterday"}"#.into(), "RFC 3339"),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = bad_batch(&community_lines(), &bad);
        if bad.contains("course_member") || bad.contains("rust 101") {
            all.insert(11, community_lines()[15].clone());
        }
        let err = fails(e.import(&all), &["import"]);
        let n = all.iter().position(|l| *l == bad).unwrap() + 1;
        assert!(err.contains(&format!("line {n}:")), "{bad}: {err}");
        assert!(err.contains(why), "{bad}: {err}");
        assert!(!err.contains("constraint failed"), "no SQL in messages: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "{bad}: the batch was rolled back");
        assert_eq!(e.sql("SELECT count(*) FROM follow"), 0);
    }
}

fn follow_index_state(e: &Env) -> (i64, i64) {
    (
        e.sql("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN ('follow_followings', 'follow_followers')"),
        e.sql("SELECT count(*) FROM dropped_index"),
    )
}

#[test]
fn an_import_into_an_empty_follow_table_rebuilds_its_indexes_even_when_a_later_batch_fails() {
    let e = Env::initialised();
    let mut lines: Vec<String> =
        (1..=4).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    for (a, b) in [(1, 2), (2, 3), (3, 1), (2, 1), (4, 1), (1, 4)] {
        lines.push(format!(r#"{{"record":"follow","follower":{a},"followed":{b}}}"#));
    }
    // batches of 4 lines: users | 1>2 2>3 3>1 2>1 | 4>1 1>4 bad
    lines.push(r#"{"record":"follow","follower":4,"followed":9}"#.to_owned());
    let path = e.dir.path().join("in.ndjson");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let err = fails(e.run(&["import", path.to_str().unwrap(), "--batch-lines", "4"]), &["import"]);
    assert!(err.contains("line 11: followed 9 does not exist"), "{err}");
    assert!(err.contains("lines 1-8 were imported"), "{err}");
    assert_eq!(follow_index_state(&e), (2, 0), "both indexes are back");
    assert_eq!(e.sql("SELECT count(*) FROM follow"), 4, "the failed batch is not there");
    e.assert_sql(&[
        ("SELECT mutual FROM follow WHERE follower = 1 AND followed = 2", 1),
        ("SELECT mutual FROM follow WHERE follower = 2 AND followed = 3", 0),
        ("SELECT mutuals_counter FROM user WHERE id = 2", 1),
    ]);
    assert!(e.ok(&["check"]).contains("ok"));
    // the planner uses the rebuilt index for a followings page
    let plan: String = e.conn()
        .query_row(
            "EXPLAIN QUERY PLAN SELECT followed FROM follow WHERE follower = 1 ORDER BY mutual DESC, created_at DESC, followed",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("follow_followings"), "{plan}");
}

#[test]
fn an_interrupted_import_has_its_indexes_rebuilt_by_the_next_open() {
    let e = Env::initialised();
    {
        // what a killed import leaves: the indexes dropped, their definitions recorded
        let c = e.conn();
        c.execute_batch(
            "BEGIN;
             INSERT INTO dropped_index (name, sql) SELECT name, sql FROM sqlite_schema
                 WHERE type = 'index' AND tbl_name = 'follow' AND sql IS NOT NULL;
             DROP INDEX follow_followings; DROP INDEX follow_followers;
             COMMIT;",
        )
        .unwrap();
    }
    assert_eq!(follow_index_state(&e), (0, 2));
    assert!(e.ok(&["check"]).contains("ok"));
    assert_eq!(follow_index_state(&e), (2, 0));
}

#[test]
fn a_second_import_sees_the_edges_of_the_first() {
    let e = Env::initialised();
    let users: Vec<String> =
        (1..=3).map(|i| format!(r#"{{"record":"user","id":{i},"username":"u{i}"}}"#)).collect();
    let mut first = users.clone();
    first.push(r#"{"record":"follow","follower":1,"followed":2}"#.to_owned());
    assert!(e.import(&first).status.success());
    let out = e.import(&[
        r#"{"record":"follow","follower":2,"followed":1}"#.to_owned(),
        r#"{"record":"follow","follower":3,"followed":1}"#.to_owned(),
    ]);
    succeeded(&out);
    assert_eq!(
        e.sql("SELECT count(*) FROM follow WHERE mutual = 1"),
        2,
        "1>2, written by the first import, became mutual"
    );
    e.assert_sql(&[
        ("SELECT mutuals_counter FROM user WHERE id = 1", 1),
        ("SELECT followers_counter FROM user WHERE id = 1", 2),
    ]);
    assert!(e.ok(&["check"]).contains("ok"));
    let err = fails(
        e.import(&[r#"{"record":"follow","follower":1,"followed":2}"#.to_owned()]),
        &["import"],
    );
    assert!(err.contains("line 1: follow 1 -> 2 already exists"), "{err}");
    assert_eq!(follow_index_state(&e), (2, 0));
}

#[test]
fn a_duplicate_reaction_label_or_category_name_is_a_bad_line() {
    let cases: Vec<(&str, &str)> = vec![
        (
            r#"{"record":"reaction","id":8,"label":"LIKE","sentiment":1}"#,
            "line 2: a reaction labelled \"LIKE\" already exists",
        ),
        (
            r#"{"record":"reaction","id":8,"label":"Clap","sentiment":1}"#,
            "line 2: a reaction labelled \"Clap\" already exists",
        ),
        (
            r#"{"record":"category","id":2,"name":"SCIENCE"}"#,
            "line 2: a category named \"SCIENCE\" already exists",
        ),
        (
            r#"{"record":"category","id":2,"name":"Other","slug":"science"}"#,
            "line 2: a category with slug \"science\" already exists",
        ),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let lines = vec![
            r#"{"record":"category","id":1,"name":"Science"}"#.to_owned(),
            bad.to_owned(),
            r#"{"record":"user","id":1,"username":"after"}"#.to_owned(),
        ];
        let mut all = lines.clone();
        if bad.contains("Clap") {
            all.insert(
                1,
                r#"{"record":"reaction","id":7,"label":"clap","sentiment":1}"#.to_owned(),
            );
            all[2] = bad.to_owned();
        }
        let err = fails(e.import(&all), &["import"]);
        let want =
            if bad.contains("Clap") { why.replace("line 2", "line 3") } else { why.to_owned() };
        assert!(err.contains(&want), "{bad}: {err}");
        assert_eq!(e.sql("SELECT count(*) FROM category"), 0, "{bad}: rolled back");
        assert_eq!(e.sql("SELECT count(*) FROM reaction"), 6);
    }
    // the same id with its label in another case updates that reaction
    let e = Env::initialised();
    let out =
        e.import(&[r#"{"record":"reaction","id":1,"label":"Like","sentiment":1}"#.to_owned()]);
    succeeded(&out);
    assert_eq!(e.sql("SELECT count(*) FROM reaction WHERE id = 1 AND label = 'Like'"), 1);
}

/// Issue 27, Medium 7: a hash asking for more than 2,000,000 PBKDF2 iterations is no
/// hash (one 120M-iteration user made each guess cost minutes of CPU); the counts real
/// Django exports carry import as they are; `hearth check` reports a stored one.
#[test]
fn password_hashes_over_the_iteration_bound_are_refused_and_reported() {
    let e = Env::initialised();
    let user = |id: i64, iterations: u64| {
        let hash = DJANGO_HASH.replacen("$1000$", &format!("${iterations}$"), 1);
        format!(r#"{{"record":"user","id":{id},"username":"u{id}","password":"{hash}"}}"#)
    };
    succeeded(&e.import(&[user(1, 36_000), user(2, 600_000), user(3, 2_000_000)]));
    for over in [2_000_001, 120_000_000, 4_294_967_295] {
        let out = e.import(&[user(4, over)]);
        assert!(!out.status.success(), "{over} iterations imported");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("2000000"), "{err}");
    }
    assert_eq!(e.sql("SELECT count(*) FROM user"), 3);
    assert!(e.ok(&["check"]).contains("ok"));
    // a row from before the bound (or written by hand) is reported
    let huge = DJANGO_HASH.replacen("$1000$", "$120000000$", 1);
    e.conn().execute("UPDATE user SET password = ?1 WHERE id = 2", [huge]).unwrap();
    crate::broken_check(&e, &[("password_iterations", 1)]);
}

#[test]
fn the_importer_holds_lines_to_the_apis_own_rules() {
    let base = [
        r#"{"record":"user","id":1,"username":"a"}"#.to_owned(),
        r#"{"record":"post","id":1,"author":1,"text":"one"}"#.to_owned(),
        r#"{"record":"post","id":2,"author":1,"text":"two"}"#.to_owned(),
        r#"{"record":"comment","id":1,"author":1,"text":"c","post":1}"#.to_owned(),
    ];
    let big = "x".repeat((1 << 20) + 1);
    let cases: Vec<(String, &str)> = vec![
        (r#"{"record":"user","id":0,"username":"zero"}"#.into(), "id 0 is not a positive integer"),
        (r#"{"record":"user","id":-5,"username":"neg"}"#.into(), "id -5 is not a positive integer"),
        (r#"{"record":"post","id":0,"author":1,"text":"t"}"#.into(), "positive"),
        (
            r#"{"record":"user","id":9,"username":"z","avatar":"javascript:alert(1)"}"#.into(),
            "avatar",
        ),
        (
            r#"{"record":"user","id":9,"username":"z","website":"data:text/html,x"}"#.into(),
            "website",
        ),
        (
            r#"{"record":"user","id":9,"username":"z","cover":"//evil.example/c.png"}"#.into(),
            "cover",
        ),
        (
            r#"{"record":"reaction","id":9,"label":"x","sentiment":1,"image":"JaVaScRiPt:x"}"#
                .into(),
            "image",
        ),
        (
            r#"{"record":"comment","id":2,"author":1,"text":"r","post":2,"parent":1}"#.into(),
            "parent comment 1 is on another item",
        ),
        (
            format!(r#"{{"record":"post","id":3,"author":1,"text":"{big}"}}"#),
            "more than the 1048576",
        ),
    ];
    for (bad, why) in cases {
        let e = Env::initialised();
        let mut all = base.to_vec();
        all.push(bad.clone());
        let err = fails(e.import(&all), &["import"]);
        assert!(
            err.contains("line 5:") && err.contains(why),
            "{}: {err}",
            &bad[..bad.len().min(80)]
        );
        assert_eq!(e.sql("SELECT count(*) FROM user"), 0, "the batch was rolled back");
    }
    // a line longer than any record can be is refused without being read whole
    let e = Env::initialised();
    let huge =
        format!(r#"{{"record":"post","id":3,"author":1,"text":"{}"}}"#, "y".repeat(40 << 20));
    let mut all = base.to_vec();
    all.push(huge);
    let err = fails(e.import(&all), &["import"]);
    assert!(err.contains("line 5:") && err.contains("longer than"), "{err}");
    // safe links and a reply on its own item import
    let e = Env::initialised();
    let mut all = base.to_vec();
    all.push(r#"{"record":"user","id":2,"username":"b","avatar":"/media/a.png","website":"https://b.example"}"#.into());
    all.push(r#"{"record":"comment","id":2,"author":2,"text":"r","post":1,"parent":1}"#.into());
    succeeded(&e.import(&all));
    assert_eq!(
        e.sql("SELECT comment_count FROM contribution WHERE kind = 'comment' AND id = 1"),
        1
    );
    assert!(e.ok(&["check"]).contains("ok"));
    // rows written around the rules (by hand, or before them) are reported
    let c = e.conn();
    c.execute_batch(
        "UPDATE user SET website = 'javascript:alert(1)' WHERE id = 2;
         UPDATE reaction SET image = 'data:image/svg+xml,x' WHERE id = 1;
         UPDATE contribution SET text = zeroblob(1048577) WHERE kind = 'post' AND id = 2;",
    )
    .unwrap();
    drop(c);
    crate::broken_check(&e, &[("unsafe_links", 2), ("text_size", 1)]);
}

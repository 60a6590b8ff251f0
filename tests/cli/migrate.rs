//! Schema migrations: an older file is brought up to date in place, without losing a
//! row, by whichever command opens it first.

use std::path::Path;

use serde_json::Value;

use crate::{Env, succeeded};

/// The schema version this hearth writes (`db::engine::migrate::VERSION`).
pub const CURRENT: i64 = 14;

/// The `application_id` of hearth files.
const APPLICATION_ID: i32 = 0x6872_7468;

/// The git blob of `schema.sql` as each version released it: version 1 as it stood at
/// ff570f9 (before 0142309 made version 2), version 2 at 3f25b4c (before 37dc92e made
/// version 3), version 3 at 0b5b07b (before e9b2a64 made version 4), version 4 at
/// a4c0f0e-era main (schema.sql unchanged since e9b2a64, before the commit that made
/// version 5), version 5 at dae9b35 (before the commit that made version 6), version 6
/// at f6e9eba (before the commit that made version 7), version 9 as stop 36 landed it
/// (c2cbbf0), version 11 as stop 39 landed it (bedd5d5), version 12 as stop 40 landed it
/// (a489d25), version 13 as stop 45 landed it (3d42490).
///
/// A blob id is the SHA-1 of the file's bytes, so these are the released schemas to the
/// byte, frozen: no later commit, rebase or merge can change what they name, and
/// `src/db/engine/migrate.rs` has no part in them. They are read from the repository's history
/// instead of being kept again as copies of `schema.sql` beside the tests. Every
/// scripts/test makes sure the checkout has its history (it unshallows a shallow clone)
/// and fails these tests without it; a plain `cargo test` where the blobs are missing
/// (a shallow clone, a source tarball) skips each test that needs them with a SKIPPED
/// line ([`history`], `crate::run::needs`).
const RELEASED_SCHEMAS: [(i32, &str); 13] = [
    (1, "2ecf91e3864d954b05c4d7002832d67a70910a2a"),
    (2, "a593b0b989beee52c167923a844ffaa60b4b0783"),
    (3, "aae257d3b7a4b7e726ced07b40450f1ad6d22b80"),
    (4, "8589ba88f0a6c774f52c3c77d377487196d1fc17"),
    (5, "ccf785dd722dd6afef48dd39e9d41ad2a881bf8f"),
    (6, "57a0fc53d7f599ca6689c6dffcfdafd8290bab5b"),
    (7, "d9be2800be43a4574b43d0b21747faf1d2f4baee"),
    (8, "2842c5360000650121914df5e5c34f5386f13e2e"),
    (9, "ca639f0988386f05afa41d466e3ff11219ba260b"),
    (10, "19035baf7e979e137458fa613b13d74f870f0938"),
    (11, "6a23b1a66efd24ac2d2e914cfe03e4dd2400a4b5"),
    (12, "6afa6e03412bb72cdd6a1d1716745a071289db13"),
    (13, "9570a69b49a3f3c574a018de51c176fe8b141405"),
];

/// Whether every released schema is in the checkout's git history; a test that builds
/// a released schema starts with it (`crate::run::needs`: scripts/test fails without
/// the history, a plain `cargo test` skips the test with a SKIPPED line).
pub fn history() -> bool {
    static HERE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let here = *HERE.get_or_init(|| {
        RELEASED_SCHEMAS.iter().all(|(_, blob)| {
            std::process::Command::new("git")
                .args(["-C", env!("CARGO_MANIFEST_DIR"), "cat-file", "-e", blob])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
    });
    crate::run::needs(
        "the git history of schema.sql",
        here,
        "run from a full git clone (`git fetch --unshallow` fixes a shallow one)",
    )
}

/// `schema.sql` exactly as schema `version` was released, from git history.
fn released_schema(version: i32) -> String {
    let (_, blob) = RELEASED_SCHEMAS
        .iter()
        .find(|(v, _)| *v == version)
        .unwrap_or_else(|| panic!("no released schema {version} is recorded"));
    let out = std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "cat-file", "blob", blob])
        .output()
        .unwrap_or_else(|e| panic!("the migration tests need git to read schema {version}: {e}"));
    assert!(
        out.status.success(),
        "the migration tests read schema version {version} as released from git history \
         (blob {blob}), which this checkout lacks: run them from a full clone \
         (`git fetch --unshallow` fixes a shallow one): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes a version-1 hearth database at `path` with the default reactions, a JWT
/// secret, and the rows of `extra` (SQL).
pub fn write_v1(path: &Path, extra: &str) {
    let rows = "INSERT INTO jwt_secret (secret, created_at) VALUES ('v1-secret-v1-secret-v1-secret-v1-secret-xx', 0);
         INSERT INTO reaction (id, label, sentiment, image) VALUES
             (1, 'like', 1, '/static/reactions/like.svg'), (2, 'love', 1, '/static/reactions/love.svg'),
             (3, 'haha', 1, '/static/reactions/haha.svg'), (4, 'wow', 1, '/static/reactions/wow.svg'),
             (5, 'sad', -1, '/static/reactions/sad.svg'), (6, 'angry', -1, '/static/reactions/angry.svg');";
    write_old(path, 1, &[&released_schema(1), rows, extra]);
}

/// A fresh `Env` whose database is schema `version` as released, with a JWT secret
/// and the rows of `rows` (SQL).
fn released_env(version: i32, rows: &str) -> Env {
    let old = Env::new();
    let secret = format!(
        "INSERT INTO jwt_secret (secret, created_at) VALUES ('{}', 0);",
        format!("v{version}-secret-").repeat(5)
    );
    write_old(&old.db(), version, &[&released_schema(version), &secret, rows]);
    old
}

/// Writes a hearth database of schema `version` at `path` from SQL `batches` (the
/// released schema first), with hearth's `application_id`.
fn write_old(path: &Path, version: i32, batches: &[&str]) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
    c.pragma_update(None, "user_version", version).unwrap();
    for sql in batches {
        c.execute_batch(sql).unwrap();
    }
}

fn schema_shape(path: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut out = Vec::new();
    let mut stmt = c
        .prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        .unwrap();
    let objects: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (kind, name, table) in objects {
        out.push(format!("{kind} {name} on {table}"));
        if kind == "table" {
            let mut cols = c
                .prepare(&format!("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('{name}')"))
                .unwrap();
            for col in cols
                .query_map([], |r| {
                    Ok(format!(
                        "  {} {} notnull={} default={:?} pk={}",
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, i64>(4)?
                    ))
                })
                .unwrap()
            {
                out.push(col.unwrap());
            }
        }
        if kind == "index" {
            let mut cols = c
                .prepare(&format!(
                    "SELECT name, coll FROM pragma_index_xinfo('{name}') WHERE key = 1"
                ))
                .unwrap();
            for col in cols
                .query_map([], |r| {
                    Ok(format!("  {:?} {}", r.get::<_, Option<String>>(0)?, r.get::<_, String>(1)?))
                })
                .unwrap()
            {
                out.push(col.unwrap());
            }
        }
    }
    out
}

/// Every trigger's name and SQL.
fn triggers(path: &Path) -> Vec<(String, String)> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut stmt = c
        .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// Opens `old` with `hearth check`, which migrates it, and asserts that it is then at
/// the current version with exactly the tables, columns and indexes of a fresh file.
fn assert_migrated_like_fresh(old: &Env) {
    let fresh = Env::initialised();
    assert!(old.ok(&["check"]).contains("ok"));
    assert_eq!(
        triggers(&old.db()),
        triggers(&fresh.db()),
        "a migrated file's triggers are a fresh file's, to the letter"
    );
    assert_eq!(old.sql("PRAGMA user_version"), CURRENT);
    assert_eq!(
        schema_shape(&old.db()),
        schema_shape(&fresh.db()),
        "a migrated file has exactly the tables, columns and indexes of a fresh one"
    );
}

#[test]
fn a_version_1_file_is_migrated_and_its_schema_is_the_fresh_one() {
    if !history() {
        return;
    }
    let old = Env::new();
    write_v1(&old.db(), "");
    assert_eq!(old.sql("PRAGMA user_version"), 1);
    assert_migrated_like_fresh(&old);
    assert!(
        old.fails(&["reaction", "add", "--label", "LIKE", "--sentiment", "1"])
            .contains("already exists")
    );
}

#[test]
fn migrating_renames_case_insensitive_duplicates_and_loses_nothing() {
    if !history() {
        return;
    }
    let e = Env::new();
    write_v1(
        &e.db(),
        "INSERT INTO reaction (id, label, sentiment, active) VALUES
             (7, 'Like', 1, 1), (8, 'LIKE', 0, 0), (9, 'like (8)', 1, 1);
         INSERT INTO category (id, name, slug, created_at) VALUES
             (1, 'News', 'news', 0), (2, 'news', 'news-2', 0), (3, 'Café', 'cafe', 0), (4, 'CAFÉ', 'CAFE', 0);
         INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'alice', 'alice', 0);
         INSERT INTO contribution (pk, kind, id, author_id, text, added_at) VALUES (1, 'post', 1, 1, 'hi', 0);
         INSERT INTO contribution_category (contribution_pk, category_id) VALUES (1, 2), (1, 4);
         UPDATE user SET posts_counter = 1;",
    );
    let out = e.run(&["reaction", "list", "--json"]);
    succeeded(&out);
    let log = String::from_utf8(out.stderr).unwrap();
    assert_eq!(log.matches("WARN").count(), 5, "each rename is logged: {log}");
    let reactions: Value = serde_json::from_slice(&out.stdout).unwrap();
    let labels: Vec<(i64, &str, i64, bool)> = reactions
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["label"].as_str().unwrap(),
                r["sentiment"].as_i64().unwrap(),
                r["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        labels[6..],
        [(7, "Like (7)", 1, true), (8, "LIKE (8.2)", 0, false), (9, "like (8)", 1, true)],
        "the oldest keeps its label; later ones get their id, avoiding every other label"
    );
    assert_eq!(labels[0].1, "like");
    let cats = e.json(&["category", "list", "--json"]);
    let cats: Vec<(&str, &str)> = cats
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["slug"].as_str().unwrap()))
        .collect();
    assert_eq!(
        cats,
        [("News", "news"), ("news (2)", "news-2"), ("Café", "cafe"), ("CAFÉ (4)", "CAFE-4")]
    );
    assert_eq!(e.sql("SELECT count(*) FROM contribution_category"), 2, "references unchanged");
    assert!(e.ok(&["check"]).contains("ok"));
    assert_eq!(e.sql("PRAGMA user_version"), CURRENT);
}

/// A version-2 file (the last before the UI kit's tables) with a community in it.
fn write_v2(path: &Path) {
    let rows = "INSERT INTO jwt_secret (secret, created_at) VALUES ('v2-secret-v2-secret-v2-secret-v2-secret-xx', 0);
         INSERT INTO reaction (id, label, label_key, sentiment) VALUES (1, 'like', 'like', 1);
         INSERT INTO category (id, name, name_key, slug, created_at) VALUES (1, 'News', 'news', 'news', 0);
         INSERT INTO user (id, username, username_key, date_joined, followers_counter) VALUES
             (1, 'alice', 'alice', 0, 1), (2, 'bob', 'bob', 0, 0);
         UPDATE user SET followings_counter = 1 WHERE id = 2;
         INSERT INTO follow (follower, followed, created_at) VALUES (2, 1, 0);
         INSERT INTO contribution (pk, kind, id, author_id, text, added_at) VALUES (1, 'post', 1, 1, 'hi', 0);
         INSERT INTO contribution_category (contribution_pk, category_id) VALUES (1, 1);
         UPDATE user SET posts_counter = 1 WHERE id = 1;";
    write_old(path, 2, &[&released_schema(2), rows]);
}

#[test]
fn a_version_2_file_gains_the_kit_tables_in_place_and_keeps_every_row() {
    if !history() {
        return;
    }
    let old = Env::new();
    write_v2(&old.db());
    assert_migrated_like_fresh(&old);
    old.assert_sql(&[
        ("SELECT count(*) FROM user", 2),
        ("SELECT count(*) FROM follow", 1),
        ("SELECT posts_counter FROM user WHERE id = 1", 1),
        ("SELECT count(*) FROM contribution_category", 1),
        ("SELECT categories_counter FROM user WHERE id = 2", 0),
        ("SELECT followers_counter FROM category WHERE id = 1", 0),
    ]);
    // and the new tables take what they were made for
    let path = old.dir.path().join("kit.ndjson");
    std::fs::write(
        &path,
        "{\"record\":\"vote\",\"user\":2,\"reaction\":1,\"post\":1}\n\
         {\"record\":\"category_follow\",\"user\":2,\"category\":1}\n",
    )
    .unwrap();
    old.ok(&["import", path.to_str().unwrap()]);
    old.assert_sql(&[
        ("SELECT n FROM vote_tally", 1),
        ("SELECT categories_counter FROM user WHERE id = 2", 1),
    ]);
    assert!(old.ok(&["check"]).contains("ok"));
}

#[test]
fn a_version_3_file_gains_the_replication_position_in_place() {
    if !history() {
        return;
    }
    let old = released_env(
        3,
        "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'alice', 'alice', 0);",
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT count(*) FROM user"), 1);
    assert_eq!(old.sql("SELECT position FROM hearth_position"), 0);
    // every write transaction moves it on, CLI commands included
    old.ok(&["user", "create", "--username", "bob", "--no-password"]);
    old.ok(&["category", "create", "--name", "News"]);
    assert_eq!(old.sql("SELECT position FROM hearth_position"), 2);
    assert_eq!(old.sql("SELECT count(*) FROM hearth_position"), 1);
}

#[test]
fn a_version_4_file_gains_the_contribution_tally_counted_from_its_rows() {
    if !history() {
        return;
    }
    let old = released_env(
        4,
        "INSERT INTO user (id, username, username_key, date_joined, posts_counter, discussions_counter) VALUES (1, 'alice', 'alice', 0, 2, 1);
             INSERT INTO contribution (pk, kind, id, author_id, text, added_at, deleted) VALUES
                 (1, 'post', 1, 1, 'a', 0, 0), (2, 'post', 2, 1, 'b', 0, 0),
                 (3, 'post', 3, 1, 'c', 0, 1), (4, 'discussion', 1, 1, 'd', 0, 0);",
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT live FROM contribution_tally WHERE kind = 'post'"), 2);
    assert_eq!(old.sql("SELECT live FROM contribution_tally WHERE kind = 'discussion'"), 1);
    // from then on the triggers keep it: `check` compares it with a count
    kept_by_the_triggers(
        &old,
        "UPDATE contribution SET deleted = 1 WHERE pk = 2;
         UPDATE user SET posts_counter = 1 WHERE id = 1;",
        ("SELECT live FROM contribution_tally WHERE kind = 'post'", 1),
        ("UPDATE contribution_tally SET live = 7 WHERE kind = 'post'", "contribution_tally"),
    );
}

/// After a migration added a count kept by triggers: `writes` (SQL) leave `count` at
/// the value it names and `check` clean; then `corrupt` (SQL) is reported by the check
/// it names.
fn kept_by_the_triggers(old: &Env, writes: &str, count: (&str, i64), corrupt: (&str, &str)) {
    let c = rusqlite::Connection::open(old.db()).unwrap();
    c.execute_batch(writes).unwrap();
    assert_eq!(old.sql(count.0), count.1, "{writes}");
    assert!(old.ok(&["check"]).contains("ok"));
    c.execute_batch(corrupt.0).unwrap();
    drop(c);
    crate::broken_check(old, &[(corrupt.1, 1)]);
}

#[test]
fn a_version_5_file_gains_the_listed_course_count_summed_from_its_blocks() {
    if !history() {
        return;
    }
    // courses 1..=6: 1, 2, 5 and 6 listed (open or private), 3 secret, 4 deleted; 2000 in
    // another block of 1024 ids
    let old = released_env(
        5,
        "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'alice', 'alice', 0);
             INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by, deleted) VALUES
                 (1, 'A', 'a', 'a', 'self-paced', 'open', 0, 1, 0), (2, 'B', 'b', 'b', 'self-paced', 'private', 0, 1, 0),
                 (3, 'C', 'c', 'c', 'self-paced', 'secret', 0, 1, 0), (4, 'D', 'd', 'd', 'self-paced', 'open', 0, 1, 1),
                 (5, 'E', 'e', 'e', 'self-paced', 'open', 0, 1, 0), (6, 'F', 'f', 'f', 'self-paced', 'open', 0, 1, 0),
                 (2000, 'G', 'g', 'g', 'self-paced', 'open', 0, 1, 0);
             INSERT INTO course_member (course_id, user_id, join_status, created_at)
                 SELECT id, 1, 'creator', 0 FROM course;",
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT n FROM course_listed_count"), 5);
    // from then on the triggers keep it: a course listed, one hidden, one deleted
    kept_by_the_triggers(
        &old,
        "UPDATE course SET privacy = 'open' WHERE id = 3;
         UPDATE course SET privacy = 'secret' WHERE id = 1;
         DELETE FROM course WHERE id = 2000;",
        ("SELECT n FROM course_listed_count", 4),
        ("UPDATE course_listed_count SET n = 9", "course_listed_count"),
    );
}

#[test]
fn a_version_6_file_gains_each_courses_category_ids_from_its_links() {
    if !history() {
        return;
    }
    // course 1 in categories 3 and 1 (linked in that order), course 2 in none, course 3 in 2
    let old = released_env(
        6,
        "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'alice', 'alice', 0);
             INSERT INTO category (id, name, name_key, slug, created_at) VALUES
                 (1, 'One', 'one', 'one', 0), (2, 'Two', 'two', 'two', 0), (3, 'Three', 'three', 'three', 0);
             INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by) VALUES
                 (1, 'A', 'a', 'a', 'self-paced', 'open', 0, 1), (2, 'B', 'b', 'b', 'self-paced', 'open', 0, 1),
                 (3, 'C', 'c', 'c', 'self-paced', 'open', 0, 1);
             INSERT INTO course_member (course_id, user_id, join_status, created_at)
                 SELECT id, 1, 'creator', 0 FROM course;
             INSERT INTO course_category (course_id, category_id) VALUES (1, 3), (1, 1), (3, 2);",
    );
    assert_migrated_like_fresh(&old);
    let ids = |id: i64| -> String {
        let c = rusqlite::Connection::open(old.db()).unwrap();
        c.query_row("SELECT category_ids FROM course WHERE id = ?1", [id], |r| r.get(0)).unwrap()
    };
    assert_eq!((ids(1), ids(2), ids(3)), ("[1,3]".into(), "[]".into(), "[2]".into()));
    // from then on the write path keeps them (tests/api/courses/crud.rs); a column that
    // no longer matches its links is reported by `check`
    let c = rusqlite::Connection::open(old.db()).unwrap();
    c.execute_batch("INSERT INTO course_category (course_id, category_id) VALUES (2, 1)").unwrap();
    drop(c);
    crate::broken_check(&old, &[("course_category_ids", 1)]);
}

#[test]
fn a_version_7_file_is_rendered_as_rich_text_and_counts_replies() {
    if !history() {
        return;
    }
    // a post written with the kit's editor, a script posted as a comment on it, a reply
    let old = released_env(
        7,
        r#"INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'alice', 'alice', 0);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, comment_count) VALUES
               (1, 'post', 1, 1, '<p class="SCEditor-paragraph"><b>Bold</b> &amp; <a href="javascript:x()">go</a></p>', 0, 2);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, target_pk) VALUES
               (2, 'comment', 1, 1, '<img src=x onerror=alert(1)>hi', 0, 1);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, target_pk, parent_pk) VALUES
               (3, 'comment', 2, 1, 'plain <b>&</b>', 0, 1, 2);
           UPDATE user SET posts_counter = 1;"#,
    );
    assert_migrated_like_fresh(&old);
    let c = rusqlite::Connection::open(old.db()).unwrap();
    let row = |pk: i64| -> (String, String, String, i64) {
        c.query_row(
            "SELECT html, summary, summary_html, comment_count FROM contribution WHERE pk = ?1",
            [pk],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap()
    };
    assert_eq!(
        row(1),
        (
            r#"<p class="SCEditor-paragraph"><b>Bold</b> &amp; <a rel="nofollow noopener noreferrer">go</a></p>"#.into(),
            "Bold &amp; go".into(),
            String::new(),
            2
        )
    );
    // (summary_html is kept only when it differs from html: a truncated text's)
    assert_eq!(row(2), ("hi".into(), "hi".into(), String::new(), 1), "a comment counts its reply");
    assert_eq!(row(3).0, "plain &lt;b&gt;&amp;&lt;/b&gt;");
}

#[test]
fn a_version_8_file_gains_feed_order_and_search_from_its_rows() {
    if !history() {
        return;
    }
    // a post with a comment and a deleted one, in a category; a discussion; a deleted
    // post; a deleted user
    let old = released_env(
        8,
        r#"INSERT INTO user (id, username, username_key, real_name, date_joined) VALUES
               (1, 'barbara', 'barbara', 'Barbara Crème', 0);
           INSERT INTO user (id, username, username_key, date_joined, deleted) VALUES (2, 'gone', 'gone', 0, 1);
           INSERT INTO category (id, name, slug, created_at, name_key) VALUES (1, 'Bakery', 'bakery', 0, 'bakery');
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, comment_count) VALUES
               (1, 'post', 1, 1, '<p>Sourdough <b>bread</b></p>', 10, 1);
           INSERT INTO contribution (pk, kind, id, author_id, title, text, added_at) VALUES
               (2, 'discussion', 1, 1, 'Crème brûlée', 'sugar', 20);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, deleted) VALUES
               (3, 'post', 2, 1, 'bread gone', 30, 1);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, target_pk) VALUES
               (4, 'comment', 1, 1, 'yum', 40, 1);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, target_pk, deleted) VALUES
               (5, 'comment', 2, 1, 'later, deleted', 50, 1, 1);
           INSERT INTO contribution_category (contribution_pk, category_id) VALUES (1, 1);
           UPDATE user SET posts_counter = 1, discussions_counter = 1 WHERE id = 1;"#,
    );
    assert_migrated_like_fresh(&old);
    let c = rusqlite::Connection::open(old.db()).unwrap();
    let activity = |pk: i64| -> i64 {
        c.query_row("SELECT last_activity_at FROM contribution WHERE pk = ?1", [pk], |r| r.get(0))
            .unwrap()
    };
    assert_eq!((activity(1), activity(2), activity(4)), (40, 20, 40), "the newest live comment");
    let linked: i64 = c
        .query_row(
            "SELECT last_activity_at FROM contribution_category WHERE contribution_pk = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(linked, 40, "a category link carries its item's activity");
    let found = |table: &str, q: &str| -> Vec<i64> {
        c.prepare(&format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid"))
            .unwrap()
            .query_map([q], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(found("search_item", "\"bread\"*"), vec![1], "live items only, by their plain text");
    assert_eq!(found("search_item", "\"creme\"*"), vec![2]);
    assert!(found("search_item", "\"b\"").is_empty(), "markup is not indexed");
    assert_eq!(found("search_user", "\"creme\"*"), vec![1]);
    assert!(found("search_user", "\"gone\"*").is_empty(), "deleted users are not indexed");
    assert_eq!(found("search_category", "\"bak\"*"), vec![1]);
    // and the triggers keep it from then on
    c.execute_batch("UPDATE contribution SET deleted = 0 WHERE pk = 5").unwrap();
    assert_eq!(activity(1), 50);
}

/// Versions 10 to 14, each from the version before it.
mod later;

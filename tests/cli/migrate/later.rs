//! The migrations to versions 10 to 14, each from a file as the version before it was
//! released ([`super::released_env`]).

use super::*;

#[test]
fn a_version_9_file_gains_version_10_in_place_and_keeps_every_row() {
    if !history() {
        return;
    }
    // rows whose search entries the application keeps (not triggers): a deleted user
    // has none, so the file passes `hearth check` as written
    let old = released_env(
        9,
        "INSERT INTO user (id, username, username_key, date_joined, deleted) VALUES (1, 'gone', 'gone', 0, 1);",
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT count(*) FROM user WHERE username = 'gone' AND deleted = 1"), 1);
}

#[test]
fn a_version_10_file_gains_version_11_in_place_with_its_feed_counts() {
    if !history() {
        return;
    }
    // a group with two live posts, a deleted one and a comment; an event with one post
    let old = released_env(
        10,
        r#"INSERT INTO user (id, username, username_key, date_joined, deleted, posts_counter)
               VALUES (1, 'gone', 'gone', 0, 1, 3);
           INSERT INTO community_group (id, name, name_key, slug, privacy, created_at, created_by)
               VALUES (1, 'Bakers', 'bakers', 'bakers', 'public', 0, 1);
           INSERT INTO group_member (group_id, user_id, join_status, created_at) VALUES (1, 1, 'creator', 0);
           INSERT INTO event (id, name, slug, privacy, start_at, end_at, recurring, location, created_at, created_by)
               VALUES (1, 'Bake-off', 'bake-off', 'public', 0, 10, 'never', 'virtual', 0, 1);
           INSERT INTO event_member (event_id, user_id, join_status, created_at) VALUES (1, 1, 'creator', 0);
           INSERT INTO event (id, name, slug, description, privacy, start_at, end_at, timezone, recurring,
                              location, created_at, created_by)
               VALUES (2, 'Weekly bake', 'weekly-bake', 'Sourdough at 19:00', 'public',
                       1578333600000000, 1578340800000000, 'Europe/Rome', 'weekly', 'virtual', 0, 1);
           INSERT INTO event_member (event_id, user_id, join_status, created_at) VALUES (2, 1, 'creator', 0);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, last_activity_at, deleted,
                                     comment_count, group_id, event_id) VALUES
               (1, 'post', 1, 1, 'a', 10, 40, 0, 1, 1, NULL), (2, 'post', 2, 1, 'b', 20, 20, 0, 0, 1, NULL),
               (3, 'post', 3, 1, 'c', 30, 30, 1, 0, 1, NULL), (5, 'post', 4, 1, 'd', 50, 50, 0, 0, NULL, 1);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, last_activity_at, target_pk, group_id)
               VALUES (4, 'comment', 1, 1, 'yum', 40, 40, 1, 1);
           INSERT INTO search_item (rowid, title, body) VALUES (1, '', 'a'), (2, '', 'b'), (5, '', 'd');"#,
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT items_counter FROM community_group WHERE id = 1"), 2);
    assert_eq!(old.sql("SELECT items_counter FROM event WHERE id = 1"), 1);
    // the events' order keys (issue 33): the single event is over, keyed by its times;
    // the weekly one (since Monday 2020-01-06, 19:00 in Rome) by its occurrence that
    // ends after now, the one before it a week earlier, both at 19:00 in Rome
    assert_eq!(
        old.sql(
            "SELECT over * 100 + (next_start = 0) * 10 + (next_end = 10) FROM event WHERE id = 1"
        ),
        111
    );
    let now_us = old.sql("SELECT CAST(unixepoch('subsec') * 1000000 AS INTEGER)");
    assert_eq!(old.sql("SELECT over FROM event WHERE id = 2"), 0);
    let next_end = old.sql("SELECT next_end FROM event WHERE id = 2");
    assert!(next_end > now_us && next_end <= now_us + 7 * 86_400_000_000, "{next_end} at {now_us}");
    assert_eq!(
        old.sql(
            "SELECT (next_end - prev_end) / 3600000000 BETWEEN 167 AND 169 FROM event WHERE id = 2"
        ),
        1
    );
    assert_eq!(
        old.sql(
            "SELECT strftime('%H', next_start / 1000000, 'unixepoch', '+1 hour') IN ('19', '18')
                 AND strftime('%w', next_start / 1000000, 'unixepoch') = '1' FROM event WHERE id = 2"
        ),
        1
    );
    // and the events' text index, from the live rows
    let c = rusqlite::Connection::open(old.db()).unwrap();
    let found = |q: &str| -> i64 {
        c.query_row(
            "SELECT coalesce(sum(rowid), 0) FROM search_event WHERE search_event MATCH ?1",
            [q],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!((found("\"ake-o\""), found("\"SOURDOUGH AT\""), found("\"bake\"")), (1, 2, 3));
    drop(c);
    // and the triggers keep them from then on
    let c = rusqlite::Connection::open(old.db()).unwrap();
    c.execute_batch("UPDATE contribution SET deleted = 1 WHERE pk = 1; UPDATE contribution SET deleted = 0 WHERE pk = 3;
                     UPDATE contribution SET deleted = 1 WHERE pk = 5;")
        .unwrap();
    drop(c);
    assert_eq!(old.sql("SELECT items_counter FROM community_group WHERE id = 1"), 2);
    assert_eq!(old.sql("SELECT items_counter FROM event WHERE id = 1"), 0);
}

#[test]
fn a_version_10_file_keeps_its_private_messages_through_the_rebuild_of_version_11() {
    if !history() {
        return;
    }
    // a pair thread with four messages (one with a file, one that alice hid, one that
    // she took back), a message's notification: version 11 rebuilds private_message
    // (its thread and receiver become nullable) with foreign keys off, and counts what
    // each side sees
    let old = released_env(
        10,
        r#"INSERT INTO user (id, username, username_key, date_joined, unseen_notifications) VALUES
               (1, 'alice', 'alice', 0, 0), (2, 'bob', 'bob', 0, 0);
           INSERT INTO pm_thread (id, low_id, high_id, created_at) VALUES (1, 1, 2, 0);
           INSERT INTO pm_file (uuid, owner_id, filename, mimetype, filesize, path, created_at)
               VALUES ('f1', 1, 'menu.pdf', 'application/pdf', 9, '/media/pm/f1', 0);
           INSERT INTO private_message (id, thread_id, sender_id, receiver_id, text, html, summary,
                                        file_uuid, created_at, is_read, withdrawn, sender_hidden, receiver_hidden)
               VALUES (1, 1, 1, 2, 'hi', 'hi', 'hi', 'f1', 10, 1, 0, 0, 0),
                      (2, 1, 2, 1, 'yo', 'yo', 'yo', NULL, 20, 1, 0, 0, 1),
                      (3, 1, 1, 2, '', '', '', NULL, 30, 0, 1, 0, 0),
                      (4, 1, 1, 2, 'new', 'new', 'new', NULL, 40, 0, 0, 0, 0);
           INSERT INTO pm_member (thread_id, user_id, other_id, last_id, last_at, unread) VALUES
               (1, 1, 2, 4, 40, 0), (1, 2, 1, 4, 40, 1);
           INSERT INTO notification (id, user_id, type, actor_id, created_at, is_new, message_id)
               VALUES (1, 2, 'private_message', 1, 40, 1, 4);"#,
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT count(*) FROM private_message WHERE group_id IS NULL"), 4);
    assert_eq!(
        old.sql("SELECT count(*) FROM private_message WHERE file_uuid = 'f1' AND id = 1"),
        1
    );
    assert_eq!(old.sql("SELECT message_id FROM notification WHERE id = 1"), 4);
    assert_eq!(old.sql("SELECT visible FROM pm_member WHERE user_id = 1"), 3);
    assert_eq!(old.sql("SELECT visible FROM pm_member WHERE user_id = 2"), 4);
    let c = rusqlite::Connection::open(old.db()).unwrap();
    let keys: Vec<String> = c
        .prepare("PRAGMA foreign_key_check")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(keys.is_empty(), "{keys:?}");
    // the rebuilt table takes a group thread's message, and refuses a half one
    c.execute_batch(
        "INSERT INTO community_group (id, name, name_key, slug, privacy, created_at, created_by)
             VALUES (1, 'Bakers', 'bakers', 'bakers', 'public', 0, 1);
         INSERT INTO private_message (group_id, sender_id, text, html, summary, created_at)
             VALUES (1, 1, 'all', 'all', 'all', 50);",
    )
    .unwrap();
    let half = c.execute_batch(
        "INSERT INTO private_message (group_id, thread_id, sender_id, receiver_id, text, html, summary, created_at)
             VALUES (1, 1, 1, 2, 'x', 'x', 'x', 60)",
    );
    assert!(half.is_err(), "a message is a pair's or a group's");
}

#[test]
fn a_version_11_file_gains_version_12_with_its_addressed_items_marked() {
    // an item addressed to a tag with a comment on it, and an item for everyone
    let old = released_env(
        11,
        r#"INSERT INTO user (id, username, username_key, date_joined, deleted, posts_counter)
               VALUES (1, 'gone', 'gone', 0, 1, 2);
           INSERT INTO tag (id, name, created_at) VALUES (1, 'Team', 0);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, last_activity_at, comment_count)
               VALUES (1, 'post', 1, 1, 'a', 10, 30, 1), (2, 'post', 2, 1, 'b', 20, 40, 1);
           INSERT INTO contribution (pk, kind, id, author_id, text, added_at, last_activity_at, target_pk)
               VALUES (3, 'comment', 1, 1, 'c', 30, 30, 1), (4, 'comment', 2, 1, 'd', 40, 40, 2);
           INSERT INTO search_item (rowid, title, body) VALUES (1, '', 'a'), (2, '', 'b');
           INSERT INTO contribution_addressing (contribution_pk, tag_id) VALUES (1, 1);"#,
    );
    assert_migrated_like_fresh(&old);
    let c = rusqlite::Connection::open(old.db()).unwrap();
    let marked = |c: &rusqlite::Connection| -> String {
        c.query_row("SELECT group_concat(pk) FROM contribution WHERE addressed = 1", [], |r| {
            r.get(0)
        })
        .unwrap()
    };
    assert_eq!(marked(&c), "1,3");
    // the triggers keep it from then on: a new comment takes its item's mark, and an
    // item's last tag taken off clears it on the item and its comments
    c.execute_batch(
        "INSERT INTO contribution (pk, kind, id, author_id, added_at, target_pk)
             VALUES (5, 'comment', 3, 1, 0, 1);
         INSERT INTO contribution_addressing (contribution_pk, tag_id) VALUES (2, 1);",
    )
    .unwrap();
    assert_eq!(marked(&c), "1,2,3,4,5");
    c.execute_batch("DELETE FROM contribution_addressing WHERE contribution_pk = 1").unwrap();
    assert_eq!(marked(&c), "2,4");
    drop(c);
    // `hearth check`'s invariant
    assert_eq!(
        old.sql(
            "SELECT count(*) FROM contribution c WHERE c.addressed <> EXISTS (SELECT 1
               FROM contribution_addressing a WHERE a.contribution_pk = coalesce(c.target_pk, c.pk))"
        ),
        0
    );
}

#[test]
fn a_version_12_file_gains_version_13_with_lessons_it_can_write() {
    if !history() {
        return;
    }
    // a course with a section and a lesson as version 12 stored them (no lesson of an
    // older file came through the API: hearth served none)
    let old = released_env(
        12,
        r#"INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'a', 'a', 0);
           INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by)
               VALUES (1, 'C', 'c', 'c', 'self-paced', 'open', 0, 1);
           INSERT INTO course_member (course_id, user_id, join_status, created_at)
               VALUES (1, 1, 'creator', 0);
           INSERT INTO course_section (id, course_id, name, created_at) VALUES (1, 1, 'S', 0);
           INSERT INTO course_lesson (id, section_id, name, created_at) VALUES (1, 1, 'L', 0);"#,
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(
        old.sql(
            "SELECT count(*) FROM course_lesson l JOIN course_section s ON s.id = l.section_id
             WHERE l.type = 'lesson' AND l.status = 'draft' AND l.comments_enabled = 1
               AND l.comment_count = 0 AND s.lessons_order = '[]'"
        ),
        1
    );
    // the new table and its counting triggers work on the migrated file
    let c = rusqlite::Connection::open(old.db()).unwrap();
    c.execute_batch(
        "INSERT INTO course_lesson_comment (lesson_id, course_id, text, html, created_at, created_by)
             VALUES (1, 1, 't', 't', 0, 1), (1, 1, 'u', 'u', 0, 1);
         DELETE FROM course_lesson_comment WHERE text = 'u';",
    )
    .unwrap();
    drop(c);
    assert_eq!(old.sql("SELECT comment_count FROM course_lesson WHERE id = 1"), 1);
    assert!(old.ok(&["check"]).contains("ok"));
}

/// Version 14 adds the media items show: a version 13 file with a picture keeps it in
/// the rebuilt `media_item`, which then takes links and shares, a share counting on its
/// item; the file passes `hearth check`.
#[test]
fn a_version_13_file_gains_version_14_with_links_shares_and_their_counts() {
    if !history() {
        return;
    }
    let old = released_env(
        13,
        r#"INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'a', 'a', 0);
           INSERT INTO media_item (id, owner_id, type, path, mimetype, width, height, size, created_at)
               VALUES (1, 1, 'image', 'm/x.png', 'image/png', 1, 1, 1, 0);"#,
    );
    assert_migrated_like_fresh(&old);
    assert_eq!(old.sql("SELECT count(*) FROM contribution_media"), 0);
    assert_eq!(old.sql("SELECT count(*) FROM media_item WHERE type = 'image'"), 1);
    // the rebuilt table takes links and shares, and a share counts on its item
    let c = rusqlite::Connection::open(old.db()).unwrap();
    c.execute_batch(
        "INSERT INTO contribution (kind, id, author_id, text, added_at, last_activity_at)
             VALUES ('post', 1, 1, 'shared', 0, 0), ('post', 2, 1, 'sharing', 0, 0);
         INSERT INTO media_item (id, owner_id, type, path, mimetype, width, height, size, created_at, url)
             VALUES (2, 1, 'url', '', '', 0, 0, 0, 0, 'https://a.example/');
         INSERT INTO media_item (id, owner_id, type, path, mimetype, width, height, size, created_at, shared_pk)
             VALUES (3, 1, 'share', '', '', 0, 0, 0, 0, (SELECT pk FROM contribution WHERE id = 1));
         INSERT INTO contribution_media (contribution_pk, position, media_id)
             VALUES ((SELECT pk FROM contribution WHERE id = 2), 0, 3);",
    )
    .unwrap();
    drop(c);
    assert_eq!(old.sql("SELECT share_count FROM contribution WHERE id = 1"), 1);
    // the rows made by hand here go again (the API keeps what they lack: search,
    // counters), the share's count with them
    let c = rusqlite::Connection::open(old.db()).unwrap();
    c.execute_batch("DELETE FROM contribution_media; DELETE FROM media_item WHERE id = 3;")
        .unwrap();
    assert_eq!(
        c.query_row("SELECT share_count FROM contribution WHERE id = 1", [], |r| r
            .get::<_, i64>(0))
            .unwrap(),
        0
    );
    c.execute_batch("DELETE FROM contribution; DELETE FROM media_item WHERE id = 2;").unwrap();
    drop(c);
    assert!(old.ok(&["check"]).contains("ok"));
}

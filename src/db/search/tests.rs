use super::match_expr;

#[test]
fn what_was_typed_becomes_quoted_prefixes_and_never_syntax() {
    assert_eq!(match_expr("ba").as_deref(), Some("\"ba\"*"));
    assert_eq!(match_expr("  Crème  brûlée ").as_deref(), Some("\"Crème\"* \"brûlée\"*"));
    // operators, quotes and columns are separators, not syntax
    assert_eq!(match_expr("a\" OR title:b*").as_deref(), Some("\"a\"* \"OR\"* \"title\"* \"b\"*"));
    assert_eq!(match_expr("NEAR(x"), Some("\"NEAR\"* \"x\"*".to_owned()));
    assert_eq!(match_expr("\"*-^:()"), None);
    assert_eq!(match_expr(""), None);
    // at most eight words
    assert_eq!(match_expr("a b c d e f g h i j").map(|e| e.matches('*').count()), Some(8));
}

#[test]
fn the_indexes_stay_whole_through_updates_and_deletes() {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    let conn = crate::db::migrate::test_db();
    conn.execute_batch(
        "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'ann', 'ann', 0), (2, 'bob', 'bob', 0);
         UPDATE user SET deleted = 1 WHERE id = 2;
         UPDATE user SET real_name = 'Ann A' WHERE id = 1;
         UPDATE user SET deleted = 0 WHERE id = 2;",
    )
    .unwrap();
    let bad = crate::db::integrity::integrity(&conn).unwrap();
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
/// Items go in and out of the index with the writes that make them, and a reader's
/// integrity check after another connection's writes finds the index whole (it once
/// compared them with a structure cached by its previous check: `db::integrity`).
fn a_readers_integrity_check_sees_the_writers_index() {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use crate::db::contributions::{NewContribution, insert};
    use crate::model::contribution::Kind;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db");
    crate::db::create_if_missing(&path, 0).unwrap();
    let db = crate::db::Db::open(&path).unwrap();
    let new = |text: &str| NewContribution {
        kind: Kind::Post,
        author_id: 1,
        title: None,
        action: None,
        text: text.into(),
        added_at: 1,
        target_pk: None,
        parent_pk: None,
        categories: vec![],
        group_id: None,
        event_id: None,
        addressing: vec![],
    };
    db.write_blocking(|tx| {
        tx.execute_batch("INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'ann', 'ann', 0);").map_err(crate::db::DbError::from)
    }).unwrap();
    for i in 0..3 {
        // the same text each time (the case that showed it)
        db.write_blocking(|tx| insert(tx, &new("host")).map_err(crate::db::DbError::from)).unwrap();
        let bad2: Vec<String> = db
            .write_blocking(|c| {
                crate::db::integrity::integrity(c).map_err(crate::db::DbError::from)
            })
            .unwrap();
        assert!(bad2.is_empty(), "writer {i}: {bad2:?}");
        let bad: Vec<String> = db
            .read_blocking(|c| crate::db::integrity::integrity(c).map_err(crate::db::DbError::from))
            .unwrap();
        assert!(bad.is_empty(), "{i}: {bad:?}");
    }
}

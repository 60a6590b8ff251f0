#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

use rusqlite::Connection;

use super::*;
use crate::model::group::GroupPrivacy;

fn user(conn: &Connection, id: i64) {
    conn.execute(
        "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?1, ?1, 0)",
        [id],
    )
    .unwrap();
}

fn group(conn: &Connection, name: &str, privacy: GroupPrivacy, visible: bool) -> i64 {
    let mut g = Group::new(1, 0);
    g.name = name.into();
    g.slug = name.into();
    g.privacy = privacy;
    g.visible = visible;
    create(conn, &g).unwrap()
}

/// The two rules, as each kind of caller meets them: a public group and its items
/// for everyone; a private visible group for everyone, its items for members only;
/// a hidden one for members, invited users and requesters only; a deleted one for
/// nobody.
#[test]
fn who_sees_a_group_and_its_items() {
    let conn = crate::db::migrate::test_db();
    for id in 1..=4 {
        user(&conn, id);
    }
    let public = group(&conn, "public", GroupPrivacy::Public, true);
    let private = group(&conn, "private", GroupPrivacy::Private, true);
    let hidden = group(&conn, "hidden", GroupPrivacy::Private, false);
    members::set(&conn, Roster::Group, private, 2, JoinStatus::Joined, 0).unwrap();
    members::set(&conn, Roster::Group, hidden, 2, JoinStatus::Joined, 0).unwrap();
    members::set(&conn, Roster::Group, hidden, 3, JoinStatus::Invited, 0).unwrap();
    members::set(&conn, Roster::Group, private, 3, JoinStatus::Requested, 0).unwrap();
    let sees = |g: i64, v: Option<i64>| seen(&conn, g, v).unwrap().is_some();
    // an item in each group, and one in none (contribution pk = 10 + group, 10)
    for g in [None, Some(public), Some(private), Some(hidden)] {
        conn.execute(
            "INSERT INTO contribution (pk, kind, id, author_id, added_at, group_id)
             VALUES (10 + coalesce(?1, 0), 'post', 10 + coalesce(?1, 0), 1, 0, ?1)",
            [g],
        )
        .unwrap();
    }
    let items = |g: i64, v: Option<i64>| crate::db::spaces::shows_item(&conn, 10 + g, v).unwrap();
    for v in [None, Some(1), Some(2), Some(3), Some(4)] {
        assert!(sees(public, v) && items(public, v), "{v:?}");
        assert!(sees(private, v), "{v:?}");
        assert!(crate::db::spaces::shows_item(&conn, 10, v).unwrap());
    }
    assert_eq!(
        [None, Some(1), Some(2), Some(3), Some(4)].map(|v| items(private, v)),
        [false, true, true, false, false]
    );
    assert_eq!(
        [None, Some(1), Some(2), Some(3), Some(4)].map(|v| sees(hidden, v)),
        [false, true, true, true, false]
    );
    assert_eq!(search(&conn, None, None, 10, 0).unwrap(), (2, vec![private, public]));
    assert_eq!(search(&conn, Some(3), Some("HID"), 10, 0).unwrap(), (1, vec![hidden]));
    let counter = |g: i64| get(&conn, g).unwrap().unwrap().subscribers_counter;
    assert_eq!([public, private, hidden].map(counter), [1, 2, 2]);
    members::set(&conn, Roster::Group, private, 3, JoinStatus::Joined, 0).unwrap();
    members::remove(&conn, Roster::Group, hidden, 2).unwrap();
    assert_eq!([public, private, hidden].map(counter), [1, 3, 1]);
    let mut g = get(&conn, public).unwrap().unwrap();
    g.deleted = true;
    update(&conn, &g).unwrap();
    assert!(!sees(public, Some(1)) && !items(public, Some(1)));
    let plan: String = conn
        .query_row(
            &format!(
                "EXPLAIN QUERY PLAN SELECT g.id FROM community_group g INDEXED BY community_group_live
                 WHERE g.deleted = 0 AND {} ORDER BY g.id DESC LIMIT 5",
                visible(1)
            ),
            [None::<i64>],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("community_group_live"), "{plan}");
}

//! Suggestions (SPEC §10, the kit's "who to follow", "categories to follow" and "polls"
//! widgets): the most followed live users and active categories the caller does not
//! follow yet, and the newest open polls it has not answered, at most [`WINDOW`] of
//! each. Users leave out the caller and those it hides. A suggestion walks
//! `user_popular` / the categories by followers / the polls newest first, skipping what
//! does not qualify: it costs the window plus what it skips.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::db::feed::not_hidden;
use crate::db::tags::addressing_shown;

/// The most suggestions of each kind.
pub const WINDOW: i64 = 100;

/// The ids of the users suggested to `user`, most followed first (ties by id).
pub fn users(conn: &Connection, user: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT u.id FROM user u INDEXED BY user_popular
         WHERE u.deleted = 0 AND u.id <> ?1
           AND NOT EXISTS (SELECT 1 FROM follow f WHERE f.follower = ?1 AND f.followed = u.id)
           AND NOT EXISTS (SELECT 1 FROM user_hide h WHERE h.user_id = ?1 AND h.hidden_id = u.id)
         ORDER BY u.followers_counter DESC, u.id LIMIT ?2",
    )?
    .query_map(params![user, WINDOW], |r| r.get(0))?
    .collect()
}

/// The ids of the active categories suggested to `user`, most followed first (ties by
/// id).
pub fn categories(conn: &Connection, user: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(
        "SELECT c.id FROM category c
         WHERE c.active = 1 AND c.deleted = 0
           AND NOT EXISTS (SELECT 1 FROM category_follow f WHERE f.user_id = ?1 AND f.category_id = c.id)
         ORDER BY c.followers_counter DESC, c.id LIMIT ?2",
    )?
    .query_map(params![user, WINDOW], |r| r.get(0))?
    .collect()
}

/// How many of the newest polls a poll suggestion looks at: closed and expired polls
/// pile up over a community's years, and a walk past them all would cost the whole
/// table; an open poll older than these is no longer suggested.
pub const POLL_WALK: i64 = 1_000;

/// The pks of the discussions and posts whose poll is suggested to `user` at `now`,
/// the newest item first, among the [`POLL_WALK`] newest polls: the poll is open (not
/// closed, not expired), the caller did not write the item nor vote in it, and the
/// item is one explore shows the caller (live, not collapsed by a moderator, in no
/// group or event, its author not one the caller hides, its addressing one the caller
/// may see).
pub fn polls(conn: &Connection, user: i64, now: Timestamp) -> rusqlite::Result<Vec<i64>> {
    polls_within(conn, user, now, POLL_WALK)
}

/// [`polls`] among the `walk` newest polls: the table's own order, newest first, from
/// the `walk`-th newest poll's key on (a constant, found on the table's keys alone), so
/// the walk stops as soon as the window is full (`CROSS JOIN` keeps the planner from
/// starting at the items).
fn polls_within(
    conn: &Connection,
    user: i64,
    now: Timestamp,
    walk: i64,
) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached(polls_sql())?
        .query_map(params![user, now, WINDOW, walk], |r| r.get(0))?
        .collect()
}

/// [`polls_within`]'s statement (`?1` the caller, `?2` now, `?3` the window, `?4` the
/// walk).
fn polls_sql() -> &'static str {
    sql!(
        "SELECT p.contribution_pk FROM poll p
         CROSS JOIN contribution c ON c.pk = p.contribution_pk
         WHERE p.contribution_pk >= coalesce((SELECT contribution_pk FROM poll
                                              ORDER BY contribution_pk DESC LIMIT 1 OFFSET ?4 - 1), 0)
           AND p.closed = 0 AND (p.expiration_at IS NULL OR p.expiration_at > ?2)
           AND c.deleted = 0 AND c.collapsed = 0 AND c.author_id <> ?1
           AND c.group_id IS NULL AND c.event_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM poll_vote v
                           WHERE v.contribution_pk = p.contribution_pk AND v.user_id = ?1)
           AND {} AND {}
         ORDER BY p.contribution_pk DESC LIMIT ?3",
        not_hidden(1),
        addressing_shown(1)
    )
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    /// Polls 1-5 on posts by user 1 (3 closed, 4 expired at 10); user 2 voted in 5.
    fn community() -> rusqlite::Connection {
        let conn = crate::db::migrate::test_db();
        conn.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'ann', 'ann', 0), (2, 'bob', 'bob', 0);
             INSERT INTO contribution (pk, kind, id, author_id, added_at) VALUES
               (1, 'post', 1, 1, 1), (2, 'post', 2, 1, 2), (3, 'post', 3, 1, 3), (4, 'post', 4, 1, 4), (5, 'post', 5, 1, 5);
             INSERT INTO poll (contribution_pk, title, closed, expiration_at, added_at) VALUES
               (1, 'a', 0, NULL, 1), (2, 'b', 0, NULL, 2), (3, 'c', 1, NULL, 3), (4, 'd', 0, 10, 4), (5, 'e', 0, NULL, 5);
             INSERT INTO poll_choice (id, contribution_pk, position, choice, added_at) VALUES (50, 5, 0, 'x', 5);
             INSERT INTO poll_vote (choice_id, user_id, contribution_pk, added_at) VALUES (50, 2, 5, 6);",
        )
        .unwrap();
        conn
    }

    #[test]
    fn the_open_unanswered_polls_of_the_newest_walked_are_suggested() {
        let conn = community();
        assert_eq!(super::polls(&conn, 2, 5).unwrap(), [4, 2, 1]);
        assert_eq!(super::polls(&conn, 2, 10).unwrap(), [2, 1], "4 expired at 10");
        assert!(super::polls(&conn, 1, 5).unwrap().is_empty(), "the author's own");
        // the walk looks at the newest polls only, whatever they are
        assert_eq!(super::polls_within(&conn, 2, 5, 4).unwrap(), [4, 2]);
        assert_eq!(super::polls_within(&conn, 2, 5, 2).unwrap(), [4]);
    }

    /// The walk is a range of the poll table's keys, newest first, stopping at the
    /// window: no sort of everything it walked.
    #[test]
    fn the_walk_is_a_key_range_in_order() {
        let conn = community();
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", super::polls_sql()))
            .unwrap()
            .query_map(rusqlite::params![2, 5, 100, 1000], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            plan.iter().any(|l| l.starts_with("SEARCH p USING INTEGER PRIMARY KEY")),
            "{plan:?}"
        );
        assert!(!plan.iter().any(|l| l.contains("TEMP B-TREE")), "{plan:?}");
    }
}

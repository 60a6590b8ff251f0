//! Follow edges: the toggle (which keeps the counters of both users and the `mutual`
//! flag of both edges in step, in the caller's transaction) and the followings /
//! followers pages.
//!
//! The pages are index walks: `follow_followings (follower, mutual DESC, created_at
//! DESC, followed)` and `follow_followers (followed, mutual DESC, created_at DESC,
//! follower)` give SPEC's order (mutual first, newest edge first, user id ascending)
//! directly, and the page's `count` comes from counter columns, so neither a page nor its
//! count scans the follow table or sorts. The test at the bottom keeps that plan.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::user::{Tag, User};

/// Which side of the edges a list walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The users that `{id}` follows.
    Followings,
    /// The users that follow `{id}`.
    Followers,
}

/// What a toggle did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toggled {
    /// The edge was created.
    Followed,
    /// The edge was removed.
    Unfollowed,
}

/// Whether `follower` follows `followed`.
pub fn is_following(conn: &Connection, follower: i64, followed: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM follow WHERE follower = ?1 AND followed = ?2")?
        .exists([follower, followed])
}

/// Follows `followed`, or unfollows it when `follower` already follows it. Both users
/// must be live and distinct (the handler checks); run inside a write transaction.
pub fn toggle(
    conn: &Connection,
    follower: i64,
    followed: i64,
    now: Timestamp,
) -> rusqlite::Result<Toggled> {
    let removed: Option<bool> = conn
        .prepare_cached(
            "DELETE FROM follow WHERE follower = ?1 AND followed = ?2 RETURNING mutual",
        )?
        .query_row([follower, followed], |r| r.get(0))
        .optional()?;
    let (outcome, delta, was_mutual) = match removed {
        Some(mutual) => (Toggled::Unfollowed, -1i64, mutual),
        None => {
            let reverse = is_following(conn, followed, follower)?;
            conn.prepare_cached(
                "INSERT INTO follow (follower, followed, created_at, mutual) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![follower, followed, now, reverse])?;
            (Toggled::Followed, 1, reverse)
        }
    };
    use super::users::{Counter, add_to};
    add_to(conn, Counter::Followings, follower, delta)?;
    add_to(conn, Counter::Followers, followed, delta)?;
    if was_mutual {
        // the reverse edge exists: its flag and both users' mutual counters follow
        conn.prepare_cached("UPDATE follow SET mutual = ?3 WHERE follower = ?1 AND followed = ?2")?
            .execute(params![followed, follower, delta > 0])?;
        conn.prepare_cached(
            "UPDATE user SET mutuals_counter = mutuals_counter + ?3 WHERE id IN (?1, ?2)",
        )?
        .execute([follower, followed, delta])?;
    }
    // SPEC §10: the followed user is notified; an unfollow takes it back
    use super::notifications::{Cause, Type, forget, notify};
    let cause = Cause {
        user: followed,
        actor: follower,
        kind: Type::UserFollow,
        item_pk: None,
        comment_pk: None,
    };
    match outcome {
        Toggled::Followed => notify(conn, cause, now)?,
        Toggled::Unfollowed => forget(conn, cause)?,
    }
    Ok(outcome)
}

/// The counters a list's `count` is read from: `(followings, followers, mutuals)` of a
/// live user, `None` when the user is missing or deleted.
pub fn live_counters(conn: &Connection, id: i64) -> rusqlite::Result<Option<(i64, i64, i64)>> {
    conn.prepare_cached(
        "SELECT followings_counter, followers_counter, mutuals_counter FROM user
         WHERE id = ?1 AND deleted = 0",
    )?
    .query_row([id], |r| r.try_into())
    .optional()
}

/// The number of rows [`page`] walks for a list: counters only, no scan.
pub fn count(counters: (i64, i64, i64), dir: Direction, mutual: Option<bool>) -> i64 {
    let (followings, followers, mutuals) = counters;
    let all = match dir {
        Direction::Followings => followings,
        Direction::Followers => followers,
    };
    match mutual {
        None => all,
        Some(true) => mutuals,
        Some(false) => all - mutuals,
    }
}

/// The SQL of a page. Only constant fragments are put together here (the direction
/// and the mutual filter choose among them); every value is a parameter.
fn page_sql(dir: Direction, mutual: Option<bool>) -> String {
    let (me, other) = match dir {
        Direction::Followings => ("follower", "followed"),
        Direction::Followers => ("followed", "follower"),
    };
    let filter = match mutual {
        None => "",
        Some(true) => "AND f.mutual = 1",
        Some(false) => "AND f.mutual = 0",
    };
    // CROSS JOIN pins follow as the outer loop: the planner may not start from user.
    format!(
        "SELECT {cols}, EXISTS (SELECT 1 FROM follow c WHERE c.follower = ?2 AND c.followed = u.id)
         FROM follow f CROSS JOIN user u ON u.id = f.{other}
         WHERE f.{me} = ?1 {filter} AND u.deleted = 0
         ORDER BY f.mutual DESC, f.created_at DESC, f.{other} ASC
         LIMIT ?3 OFFSET ?4",
        cols = super::users::columns_as("u"),
    )
}

/// [`page_sql`] of each direction and filter, formatted once for the process.
fn page_text(dir: Direction, mutual: Option<bool>) -> &'static str {
    const FILTERS: [Option<bool>; 3] = [None, Some(true), Some(false)];
    static ALL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        [Direction::Followings, Direction::Followers]
            .into_iter()
            .flat_map(|d| FILTERS.map(|m| page_sql(d, m)))
            .collect()
    });
    let row = match dir {
        Direction::Followings => 0,
        Direction::Followers => FILTERS.len(),
    };
    let column = FILTERS.iter().position(|m| *m == mutual).unwrap_or_default();
    all.get(row + column).map_or("", String::as_str)
}

/// One page of a followings/followers list: each user with whether `caller` follows
/// them (the page's `connection_status`), in one query.
pub fn page(
    conn: &Connection,
    id: i64,
    dir: Direction,
    mutual: Option<bool>,
    caller: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<(User, bool)>> {
    static COLUMNS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let n = *COLUMNS.get_or_init(|| super::users::COLUMNS.split(", ").count());
    let mut stmt = conn.prepare_cached(page_text(dir, mutual))?;
    let rows = stmt.query_map(params![id, caller, limit, offset], |r| {
        Ok((super::users::from_row(r)?, r.get(n)?))
    })?;
    rows.collect()
}

/// The tags the profiles of several users show, in one query ([`super::tags`]).
pub fn tags_of(conn: &Connection, ids: &[i64]) -> rusqlite::Result<HashMap<i64, Vec<Tag>>> {
    super::tags::shown_of_users(conn, ids)
}

/// Recomputes every `mutual` flag and every follow counter from the edges (for bulk
/// loads such as `hearth import`, which insert edges without [`toggle`]).
pub fn recount(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "UPDATE follow SET mutual = EXISTS (SELECT 1 FROM follow r
             WHERE r.follower = follow.followed AND r.followed = follow.follower);
         UPDATE user SET
           followings_counter = (SELECT count(*) FROM follow f JOIN user v ON v.id = f.followed
                                 WHERE f.follower = user.id AND v.deleted = 0),
           followers_counter = (SELECT count(*) FROM follow f JOIN user v ON v.id = f.follower
                                 WHERE f.followed = user.id AND v.deleted = 0),
           mutuals_counter = (SELECT count(*) FROM follow f JOIN user v ON v.id = f.followed
                                 WHERE f.follower = user.id AND f.mutual = 1 AND v.deleted = 0);",
    )
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        // the planner policy of every hearth connection
        crate::db::stable_plans(&c).unwrap();
        c.execute_batch(include_str!("../../schema.sql")).unwrap();
        crate::db::jwt::insert_secret(&c, "test-secret", 0, None).unwrap();
        for (id, name) in [(1, "a"), (2, "b"), (3, "c"), (4, "d")] {
            super::super::users::insert(
                &c,
                &super::super::users::NewUser {
                    id: Some(id),
                    username: name.into(),
                    ..Default::default()
                },
            )
            .unwrap();
        }
        c
    }

    fn plan(c: &Connection, sql: &str) -> String {
        let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map(params![1, 2, 20, 0], |r| r.get::<_, String>(3)).unwrap();
        rows.map(|r| r.unwrap()).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn the_kept_texts_are_the_texts_of_each_variant() {
        for dir in [Direction::Followings, Direction::Followers] {
            for mutual in [None, Some(true), Some(false)] {
                assert_eq!(page_text(dir, mutual), page_sql(dir, mutual));
            }
        }
    }

    #[test]
    fn a_cached_page_is_not_compiled_again_for_new_values() {
        let c = db();
        c.execute_batch("ANALYZE").unwrap();
        for (caller, limit, offset) in [(None, 20, 0), (Some(2), 5, 1), (Some(3), 20, 40)] {
            page(&c, 1, Direction::Followings, None, caller, limit, offset).unwrap();
        }
        let stmt = c.prepare_cached(&page_sql(Direction::Followings, None)).unwrap();
        // without the policy SQLite recompiles it on every run (LIMIT ?, OFFSET ?)
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
        let bare = Connection::open_in_memory().unwrap();
        bare.execute_batch(include_str!("../../schema.sql")).unwrap();
        for (limit, offset) in [(20, 0), (5, 1)] {
            page(&bare, 1, Direction::Followings, None, None, limit, offset).unwrap();
        }
        let stmt = bare.prepare_cached(&page_sql(Direction::Followings, None)).unwrap();
        assert!(
            stmt.get_status(rusqlite::StatementStatus::RePrepare) > 0,
            "SQLite no longer recompiles for LIMIT ?: the policy may be unneeded"
        );
    }

    #[test]
    fn pages_walk_the_index_without_scan_or_sort() {
        let c = db();
        // give the planner realistic statistics: many edges, few per user
        c.execute_batch("ANALYZE").unwrap();
        for dir in [Direction::Followings, Direction::Followers] {
            for mutual in [None, Some(true), Some(false)] {
                let p = plan(&c, &page_sql(dir, mutual));
                assert!(!p.contains("SCAN f"), "{dir:?} {mutual:?}:\n{p}");
                assert!(!p.contains("SCAN follow"), "{dir:?} {mutual:?}:\n{p}");
                assert!(!p.contains("TEMP B-TREE"), "{dir:?} {mutual:?}:\n{p}");
                let index = match dir {
                    Direction::Followings => "follow_followings",
                    Direction::Followers => "follow_followers",
                };
                assert!(p.contains(index), "{dir:?} {mutual:?}:\n{p}");
                assert!(p.contains("SEARCH u USING INTEGER PRIMARY KEY"), "{p}");
            }
        }
    }

    #[test]
    fn toggle_keeps_flags_and_counters_exact() {
        let c = db();
        assert_eq!(toggle(&c, 1, 2, 10).unwrap(), Toggled::Followed);
        assert_eq!(live_counters(&c, 1).unwrap(), Some((1, 0, 0)));
        assert_eq!(toggle(&c, 2, 1, 20).unwrap(), Toggled::Followed);
        assert_eq!(live_counters(&c, 1).unwrap(), Some((1, 1, 1)));
        assert_eq!(live_counters(&c, 2).unwrap(), Some((1, 1, 1)));
        let page1 = page(&c, 1, Direction::Followings, Some(true), Some(3), 20, 0).unwrap();
        assert_eq!(page1.len(), 1);
        assert!(crate::db::check::run(&c).unwrap().is_empty());
        assert_eq!(toggle(&c, 1, 2, 30).unwrap(), Toggled::Unfollowed);
        assert_eq!(live_counters(&c, 1).unwrap(), Some((0, 1, 0)));
        assert_eq!(live_counters(&c, 2).unwrap(), Some((1, 0, 0)));
        assert!(crate::db::check::run(&c).unwrap().is_empty());
        // deleting a mutual friend keeps the counters exact
        toggle(&c, 1, 2, 40).unwrap();
        toggle(&c, 3, 1, 50).unwrap();
        crate::db::users::soft_delete(&c, 2).unwrap();
        assert_eq!(live_counters(&c, 1).unwrap(), Some((0, 1, 0)));
        assert!(crate::db::check::run(&c).unwrap().is_empty());
        // recount agrees with the toggles
        recount(&c).unwrap();
        assert_eq!(live_counters(&c, 1).unwrap(), Some((0, 1, 0)));
    }

    #[test]
    fn random_toggles_match_a_naive_model() {
        use std::collections::BTreeMap;
        let c = db();
        let n = 12i64;
        for id in 5..=n {
            super::super::users::insert(
                &c,
                &super::super::users::NewUser {
                    id: Some(id),
                    username: format!("u{id}"),
                    ..Default::default()
                },
            )
            .unwrap();
        }
        // (follower, followed) -> created_at
        let mut model: BTreeMap<(i64, i64), i64> = BTreeMap::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for step in 0..3000i64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = 1 + (x % 12) as i64;
            let b = 1 + ((x >> 8) % 12) as i64;
            if a == b {
                continue;
            }
            let now = step / 3; // equal times happen: ties go by user id
            match toggle(&c, a, b, now).unwrap() {
                Toggled::Followed => assert!(model.insert((a, b), now).is_none()),
                Toggled::Unfollowed => assert!(model.remove(&(a, b)).is_some()),
            }
        }
        assert!(crate::db::check::run(&c).unwrap().is_empty());
        for id in 1..=n {
            for dir in [Direction::Followings, Direction::Followers] {
                for mutual in [None, Some(true), Some(false)] {
                    let mut want: Vec<(bool, i64, i64)> = model
                        .iter()
                        .filter_map(|(&(f, t), &at)| {
                            let other = match dir {
                                Direction::Followings if f == id => t,
                                Direction::Followers if t == id => f,
                                _ => return None,
                            };
                            let m = model.contains_key(&(t, f));
                            mutual.is_none_or(|w| w == m).then_some((m, at, other))
                        })
                        .collect();
                    want.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
                    let want: Vec<i64> = want.into_iter().map(|w| w.2).collect();
                    let got: Vec<i64> = page(&c, id, dir, mutual, None, 1000, 0)
                        .unwrap()
                        .into_iter()
                        .map(|(u, _)| u.id)
                        .collect();
                    assert_eq!(got, want, "{id} {dir:?} {mutual:?}");
                    let counters = live_counters(&c, id).unwrap().unwrap();
                    assert_eq!(count(counters, dir, mutual), want.len() as i64);
                }
            }
        }
    }
}

//! The community's users as a member may list them (`GET /api/v2/user/`) and the users a
//! list of usernames names (`POST /api/v2/user/match/`): live users, less those the
//! caller hides ([`super::hides::not_hidden_user`], the rule the user search and the
//! autocomplete apply). Users whom staff blocked are listed: a block stops their writes,
//! not their presence.
//!
//! Cost: a page walks the rowid (by join date) or the `username_key` index (by
//! username) in the page's order, reading the offset before it (at most
//! `http::pagination::MAX_OFFSET`) and its own rows; the count walks at most
//! [`COUNT_CAP`] rows. Neither grows with the community past that.

use rusqlite::{Connection, params};

use super::hides::not_hidden_user;
use crate::model::user::{User, username_key, validate_username};

/// The most users the list counts (the deepest page served starts there anyway).
pub const COUNT_CAP: i64 = 10_000;

/// The orders of the list (`ordering`: the platform's DRF names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By join date (the id), oldest first: the default.
    Joined,
    /// By join date, newest first.
    JoinedDesc,
    /// By username (case-insensitive), A to Z.
    Username,
    /// By username, Z to A.
    UsernameDesc,
}

impl Order {
    /// The `ordering` values taken (`id` and `date_joined` are the same order: ids are
    /// given in join order).
    pub const CHOICES: &'static str = "id, -id, date_joined, -date_joined, username, -username";

    /// Reads an `ordering` value; None for any other.
    pub fn parse(s: &str) -> Option<Order> {
        Some(match s {
            "id" | "date_joined" => Order::Joined,
            "-id" | "-date_joined" => Order::JoinedDesc,
            "username" => Order::Username,
            "-username" => Order::UsernameDesc,
            _ => return None,
        })
    }

    /// The page's query (`?1` the viewer, `?2` the limit, `?3` the offset): one
    /// statement an order, each an index walk without a sort.
    fn sql(self) -> &'static str {
        match self {
            Order::Joined => sql!(
                "SELECT {} FROM user u WHERE u.deleted = 0 AND {} ORDER BY u.id LIMIT ?2 OFFSET ?3",
                super::users::columns_as("u"),
                not_hidden_user("u.id", 1)
            ),
            Order::JoinedDesc => sql!(
                "SELECT {} FROM user u WHERE u.deleted = 0 AND {} ORDER BY u.id DESC LIMIT ?2 OFFSET ?3",
                super::users::columns_as("u"),
                not_hidden_user("u.id", 1)
            ),
            Order::Username => sql!(
                "SELECT {} FROM user u WHERE u.deleted = 0 AND {} ORDER BY u.username_key LIMIT ?2 OFFSET ?3",
                super::users::columns_as("u"),
                not_hidden_user("u.id", 1)
            ),
            Order::UsernameDesc => sql!(
                "SELECT {} FROM user u WHERE u.deleted = 0 AND {} ORDER BY u.username_key DESC LIMIT ?2 OFFSET ?3",
                super::users::columns_as("u"),
                not_hidden_user("u.id", 1)
            ),
        }
    }
}

/// One page of the live users `viewer` does not hide, in `order`, and how many there
/// are (at most [`COUNT_CAP`]).
pub fn page(
    conn: &Connection,
    viewer: i64,
    order: Order,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let count = conn
        .prepare_cached(sql!(
            "SELECT count(*) FROM (SELECT 1 FROM user u WHERE u.deleted = 0 AND {} LIMIT ?2)",
            not_hidden_user("u.id", 1)
        ))?
        .query_row(params![viewer, COUNT_CAP], |r| r.get(0))?;
    let users = conn
        .prepare_cached(order.sql())?
        .query_map(params![viewer, limit, offset], super::users::from_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, users))
}

/// The live users, not hidden by `viewer`, whose usernames `names` holds
/// (case-insensitively, SPEC §4), each once, in the order of their first mention.
/// What cannot be a username (markup, spaces, too long) names nobody and costs no
/// query; a name costs one lookup of the `username_key` index.
pub fn by_usernames(
    conn: &Connection,
    names: &[String],
    viewer: i64,
) -> rusqlite::Result<Vec<User>> {
    let mut stmt = conn.prepare_cached(sql!(
        "SELECT {} FROM user u WHERE u.username_key = ?1 AND u.deleted = 0 AND {}",
        super::users::columns_as("u"),
        not_hidden_user("u.id", 2)
    ))?;
    let mut out: Vec<User> = Vec::new();
    for name in names {
        if validate_username(name).is_err() {
            continue;
        }
        let found = stmt.query_map(params![username_key(name), viewer], super::users::from_row)?;
        for u in found {
            let u = u?;
            if !out.iter().any(|o| o.id == u.id) {
                out.push(u);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    fn plan(c: &Connection, sql: &str) -> Vec<String> {
        let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        stmt.query_map(params![1, 20, 0], |r| r.get(3)).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn every_order_walks_an_index_without_a_sort() {
        let c = crate::db::migrate::test_db();
        for order in [Order::Joined, Order::JoinedDesc, Order::Username, Order::UsernameDesc] {
            let p = plan(&c, order.sql());
            assert!(!p.iter().any(|l| l.contains("TEMP B-TREE")), "{order:?}: {p:?}");
            // the user table is walked in order: its rowid or the username index
            let walk = p.iter().find(|l| l.starts_with("SCAN u")).unwrap();
            match order {
                Order::Joined | Order::JoinedDesc => assert_eq!(walk, "SCAN u", "{p:?}"),
                _ => assert!(walk.contains("INDEX sqlite_autoindex_user"), "{p:?}"),
            }
        }
    }

    #[test]
    fn names_are_matched_once_case_insensitively_and_bad_ones_cost_nothing() {
        let c = crate::db::migrate::test_db();
        c.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES
               (1, 'Ann', 'ann', 0), (2, 'bob', 'bob', 0), (3, 'gone', 'gone', 0);
             UPDATE user SET deleted = 1 WHERE id = 3;
             INSERT INTO user_hide (user_id, hidden_id, created_at) VALUES (1, 2, 0);",
        )
        .unwrap();
        let names: Vec<String> =
            ["BOB", "ann", "ANN", "gone", "<b>x</b>", "nobody"].map(String::from).to_vec();
        let ids = |v: i64| -> Vec<i64> {
            by_usernames(&c, &names, v).unwrap().iter().map(|u| u.id).collect()
        };
        assert_eq!(ids(3), [2, 1], "in the order named, once, the deleted one left out");
        assert_eq!(ids(1), [1], "ann hides bob");
        let listed = |v: i64, order: Order| -> (i64, Vec<i64>) {
            let (n, users) = page(&c, v, order, 10, 0).unwrap();
            (n, users.iter().map(|u| u.id).collect())
        };
        assert_eq!(listed(1, Order::Username), (1, vec![1]));
        assert_eq!(listed(2, Order::JoinedDesc), (2, vec![2, 1]));
    }
}

//! Users following categories (SPEC §8): the toggle, which keeps the follower's
//! `categories_counter` and the category's `followers_counter` exact in the caller's
//! transaction (`hearth check` recomputes both), the caller's `followed` marks, and the
//! lists that follow from it: a user's categories and the popular ones.

use rusqlite::Connection;

use crate::clock::Timestamp;
use crate::db::categories::{self, COLUMNS};
use crate::db::users::{Counter, Paged, add_to};
use crate::model::category::Category;

/// Whether `user` follows `category`.
pub fn is_following(conn: &Connection, user: i64, category: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM category_follow WHERE user_id = ?1 AND category_id = ?2")?
        .exists([user, category])
}

/// `user` (live) follows `category` (which exists), or stops following it when it
/// already does; answers whether it follows it now. Run inside a write transaction.
pub fn toggle(
    conn: &Connection,
    user: i64,
    category: i64,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    let follows = super::pair::toggle_pair(
        conn,
        "DELETE FROM category_follow WHERE user_id = ?1 AND category_id = ?2 RETURNING 1",
        "INSERT INTO category_follow (user_id, category_id, created_at) VALUES (?1, ?2, ?3)",
        (user, category),
        now,
    )?;
    let delta: i64 = if follows { 1 } else { -1 };
    add_to(conn, Counter::FollowedCategories, user, delta)?;
    add_to(conn, Counter::CategoryFollowers, category, delta)?;
    Ok(follows)
}

/// Sets `followed` on each category for `viewer` (false for anonymous callers): one
/// primary-key lookup a category.
pub fn mark(
    conn: &Connection,
    mut cats: Vec<Category>,
    viewer: Option<i64>,
) -> rusqlite::Result<Vec<Category>> {
    if let Some(v) = viewer {
        for c in &mut cats {
            c.followed = is_following(conn, v, c.id)?;
        }
    }
    Ok(cats)
}

/// The live categories `user` follows, by `order` then id: (count, page).
pub fn followed_by(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Category>)> {
    let columns = categories::columns_as("g");
    let followed = Paged {
        columns: &columns,
        from: "FROM category_follow f JOIN category g ON g.id = f.category_id
               WHERE f.user_id = ?1 AND g.deleted = 0",
        order: r#"g."order", g.id"#,
    };
    followed.run(conn, &[&user], (limit, offset), categories::from_row)
}

/// The active, live categories by `followers_counter` descending, then id: (count,
/// page).
pub fn popular(
    conn: &Connection,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Category>)> {
    let popular = Paged {
        columns: COLUMNS,
        from: "FROM category WHERE active = 1 AND deleted = 0",
        order: "followers_counter DESC, id",
    };
    popular.run(conn, &[], (limit, offset), categories::from_row)
}

/// One page of the live users following `category`, the most recent follow first (ties
/// by user id): a walk of `category_follow_newest` that costs the page, whatever the
/// category's following. Its total is the category's `followers_counter`.
pub fn followers(
    conn: &Connection,
    category: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<crate::model::user::User>> {
    conn.prepare_cached(sql!(
        "SELECT {} FROM category_follow f INDEXED BY category_follow_newest
         JOIN user u ON u.id = f.user_id
         WHERE f.category_id = ?1 AND u.deleted = 0
         ORDER BY f.created_at DESC, f.user_id LIMIT ?2 OFFSET ?3",
        crate::db::users::qualified(crate::db::users::COLUMNS, "u")
    ))?
    .query_map(rusqlite::params![category, limit, offset], crate::db::users::from_row)?
    .collect()
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn a_categorys_followers_page_walks_its_index_without_a_sort() {
        let c = crate::db::migrate::test_db();
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT u.id FROM category_follow f INDEXED BY category_follow_newest
             JOIN user u ON u.id = f.user_id WHERE f.category_id = 1 AND u.deleted = 0
             ORDER BY f.created_at DESC, f.user_id LIMIT 20 OFFSET {}",
            0
        );
        let mut stmt = c.prepare(&sql).unwrap();
        let plan: Vec<String> =
            stmt.query_map([], |r| r.get(3)).unwrap().map(Result::unwrap).collect();
        assert!(plan.iter().any(|l| l.contains("category_follow_newest")), "{plan:?}");
        assert!(!plan.iter().any(|l| l.contains("TEMP B-TREE")), "{plan:?}");
    }

    #[test]
    fn toggling_keeps_both_counters() {
        let c = crate::db::migrate::test_db();
        c.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'a', 'a', 0), (2, 'b', 'b', 0);
             INSERT INTO category (id, name, name_key, slug, created_at) VALUES (1, 'A', 'a', 'a', 0), (2, 'B', 'b', 'b', 0);",
        )
        .unwrap();
        assert!(toggle(&c, 1, 2, 5).unwrap());
        assert!(toggle(&c, 2, 2, 6).unwrap());
        assert!(toggle(&c, 1, 1, 7).unwrap());
        assert!(!toggle(&c, 1, 1, 8).unwrap());
        let (n, cats) = popular(&c, 10, 0).unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            cats.iter().map(|k| (k.id, k.followers_counter)).collect::<Vec<_>>(),
            [(2, 2), (1, 0)]
        );
        let (n, mine) = followed_by(&c, 1, 10, 0).unwrap();
        assert_eq!((n, mine.len(), mine[0].id), (1, 1, 2));
        let marked = mark(&c, cats, Some(2)).unwrap();
        assert_eq!(marked.iter().map(|k| k.followed).collect::<Vec<_>>(), [true, false]);
        // a course's categories come marked, read by the ids its row keeps
        c.execute_batch(
            "INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by)
               VALUES (5, 'C', 'c', 'c', 'self-paced', 'open', 0, 1);
             INSERT INTO course_member (course_id, user_id, join_status, created_at)
               VALUES (5, 1, 'creator', 0);",
        )
        .unwrap();
        crate::db::courses::set_categories(&c, 5, &[2, 1]).unwrap();
        let ids: String =
            c.query_row("SELECT category_ids FROM course WHERE id = 5", [], |r| r.get(0)).unwrap();
        let ids: Vec<i64> = serde_json::from_str(&ids).unwrap();
        let linked = |viewer| {
            categories::with_ids(&c, &ids, viewer)
                .unwrap()
                .iter()
                .map(|k| (k.id, k.followed))
                .collect::<Vec<_>>()
        };
        assert_eq!(linked(Some(2)), [(1, false), (2, true)]);
        assert_eq!(linked(Some(1)), [(1, false), (2, true)]);
        assert!(toggle(&c, 1, 1, 9).unwrap());
        assert_eq!(linked(Some(1)), [(1, true), (2, true)]);
        assert_eq!(linked(None), [(1, false), (2, false)]);
        // the only complaint a bare test database may have: no JWT secret
        let problems = crate::db::check::problems(&c).unwrap();
        assert!(problems.iter().all(|p| p.check == "jwt_secret"), "{problems:?}");
    }
}

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

use super::merge::{AUTHOR_AFTER, CATEGORY_AFTER, EXPLORE_AFTER};
use super::{author_sql, category_sql, explore_sql};

/// The plan of `sql`'s statement: its detail lines.
fn plan(sql: &str) -> Vec<String> {
    let conn = crate::db::migrate::test_db();
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let n = stmt.parameter_count();
    let params: Vec<i64> = (0..n).map(|_| 1).collect();
    stmt.query_map(rusqlite::params_from_iter(params), |r| r.get(3))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Every feed statement walks its index in the feed's order: no sort, so a page costs
/// its own rows (and the offset), whatever the community's size.
#[test]
fn every_feed_walks_its_index_in_order() {
    let capped = |(from, pk, order): (&str, &str, &str)| {
        format!("SELECT {pk} {from} ORDER BY {order} LIMIT ?3 OFFSET ?4")
    };
    for (sql, index) in [
        (explore_sql(), "contribution_feed"),
        (capped(author_sql()), "contribution_author_feed"),
        (capped(category_sql()), "contribution_category_feed"),
        (AUTHOR_AFTER.to_owned(), "contribution_author_feed"),
        (CATEGORY_AFTER.to_owned(), "contribution_category_feed"),
        (EXPLORE_AFTER.to_owned(), "contribution_feed"),
    ] {
        let plan = plan(&sql);
        assert!(!plan.iter().any(|l| l.contains("TEMP B-TREE")), "{sql}: {plan:?}");
        assert!(plan.iter().any(|l| l.contains(index)), "{sql}: {plan:?}");
    }
}

/// The keyset reads seek to the key: a range of the index, never a scan from its start.
#[test]
fn the_merge_seeks_after_its_key() {
    for sql in [AUTHOR_AFTER, CATEGORY_AFTER, EXPLORE_AFTER] {
        let plan = plan(sql);
        assert!(
            plan.iter().any(|l| l.contains("<?") || l.contains("(last_activity_at")),
            "{sql}: {plan:?}"
        );
    }
}

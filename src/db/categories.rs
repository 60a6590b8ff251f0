//! Categories (used by contributions and courses).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::category::Category;

/// Column list matching [`from_row`].
pub const COLUMNS: &str =
    r#"id, name, slug, active, deleted, "order", image_medium, followers_counter"#;

/// How many columns [`COLUMNS`] names (what a query selects after them starts here).
const COLUMN_COUNT: usize = 8;

/// Maps a row selected with [`COLUMNS`] (optionally with a table prefix).
pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Category> {
    Ok(from_columns!(r => Category {
        id, name, slug, active, deleted, order, image_medium, followers_counter;
        followed: false,
    }))
}

/// [`COLUMNS`] prefixed with `alias.` for joins.
pub fn columns_as(alias: &str) -> String {
    super::users::qualified(COLUMNS, alias)
}

/// Whether `?2`, the viewer, follows category `g` (false for anonymous callers: NULL).
const FOLLOWED: &str =
    "EXISTS (SELECT 1 FROM category_follow f WHERE f.user_id = ?2 AND f.category_id = g.id)";

/// The statement of [`of_contribution`]: `?1` the contribution, `?2` the viewer.
fn of_contribution_sql() -> &'static str {
    sql!(
        "SELECT {}, {FOLLOWED} FROM contribution_category l
         JOIN category g ON g.id = l.category_id
         WHERE l.contribution_pk = ?1 ORDER BY l.category_id",
        columns_as("g")
    )
}

/// The categories of contribution `pk`, by id, each marked `followed` when `viewer`
/// follows it (never for anonymous callers): one statement, the follow looked up by its
/// primary key beside each category (was a statement a category, issue 17). Ordered by
/// the link's own key (`l.category_id`, equal to `g.id`), which the primary key already
/// yields: `ORDER BY g.id` made SQLite sort in a temporary B-tree per call.
pub fn of_contribution(
    conn: &Connection,
    pk: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Vec<Category>> {
    let mut stmt = conn.prepare_cached(of_contribution_sql())?;
    let rows = stmt.query_map(params![pk, viewer], marked)?;
    rows.collect()
}

/// The categories `ids` (ascending, as `course.category_ids` keeps a course's), each
/// marked `followed` when `viewer` follows it; an id with no category is skipped. A
/// course's categories are read this way, by key in the short category table whose
/// pages stay cached, rather than through `course_category`: at a million courses that
/// table's page for a random course is a read from the file (issue 17).
pub fn with_ids(
    conn: &Connection,
    ids: &[i64],
    viewer: Option<i64>,
) -> rusqlite::Result<Vec<Category>> {
    let mut stmt =
        conn.prepare_cached(sql!("SELECT {COLUMNS}, {FOLLOWED} FROM category g WHERE g.id = ?1"))?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(c) = stmt.query_row(params![id, viewer], marked).optional()? {
            out.push(c);
        }
    }
    Ok(out)
}

/// Maps a row selected with [`COLUMNS`] then [`FOLLOWED`].
fn marked(r: &rusqlite::Row<'_>) -> rusqlite::Result<Category> {
    let mut category = from_row(r)?;
    category.followed = r.get(COLUMN_COUNT)?;
    Ok(category)
}

/// All categories by id.
pub fn list(conn: &Connection) -> rusqlite::Result<Vec<Category>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM category ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    rows.collect()
}

/// What `GET /api/v2/category/` filters on (the name, and whether active).
pub type Filter = crate::model::listing::NameFilter;

/// One page of the live categories that match, by `order` then id, and how many match.
/// The category table is a short admin-kept list, so it is filtered here with full
/// Unicode case folding rather than SQLite's ASCII-only `lower()` (as reactions are).
pub fn page(
    conn: &Connection,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Category>)> {
    let mut stmt = conn.prepare_cached(&format!(
        r#"SELECT {COLUMNS} FROM category WHERE deleted = 0 ORDER BY "order", id"#
    ))?;
    let all = stmt.query_map([], from_row)?.collect::<Result<Vec<_>, _>>()?;
    let all = f.apply(all, |c| (c.name.as_str(), c.active));
    Ok(crate::model::listing::page(all, limit, offset))
}

/// One category.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Category>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM category WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// The categories with these ids, in id order (unknown ids are skipped).
pub fn many(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Vec<Category>> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(c) = get(conn, *id)? {
            out.push(c);
        }
    }
    out.sort_by_key(|c| c.id);
    Ok(out)
}

/// Whether a live (not deleted) category exists.
pub fn exists(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM category WHERE id = ?1 AND deleted = 0")?.exists([id])
}

/// The first of `ids` (in their order) that is not a live category, in one query
/// however long the list.
pub fn first_missing(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Option<i64>> {
    super::users::first_not_live(conn, super::users::Live::Category, ids)
}

/// The key that makes names unique case-insensitively (`category.name_key`): the
/// Unicode lowercase, the folding usernames and course names use.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// What a unique violation on `category` was about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// Another category has the name, in any case.
    Name,
    /// Another category has the slug, in any case.
    Slug,
    /// The id is in use.
    Id,
}

/// Which unique rule an insert or update broke, if it broke one.
pub fn taken(e: &rusqlite::Error) -> Option<Taken> {
    if !super::is_unique_violation(e) {
        return None;
    }
    let m = e.to_string();
    Some(if m.contains("category.name_key") {
        Taken::Name
    } else if m.contains("category.slug") {
        Taken::Slug
    } else {
        Taken::Id
    })
}

/// Whether a slug is taken, in any case (slugs are ASCII, so `NOCASE` is exact; the
/// comparison uses the `category_slug_nocase` index).
pub fn slug_taken(conn: &Connection, slug: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM category WHERE slug = ?1 COLLATE NOCASE")?.exists([slug])
}

/// Whether another category than `except` has the name, in any case.
pub fn name_taken(conn: &Connection, name: &str, except: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM category WHERE name_key = ?1 AND id <> ?2")?
        .exists(params![name_key(name), except])
}

/// Inserts a category with the given id (or a new one when `id` is `None`). A name or
/// slug taken in any case is a unique violation ([`taken`]).
pub fn insert(
    conn: &Connection,
    id: Option<i64>,
    name: &str,
    slug: &str,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO category (id, name, name_key, slug, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![id, name, name_key(name), slug, now])?;
    Ok(conn.last_insert_rowid())
}

/// Replaces what `category update` may change: name, slug, active and order.
pub fn update(conn: &Connection, c: &Category) -> rusqlite::Result<()> {
    conn.prepare_cached(
        r#"UPDATE category SET name = ?2, name_key = ?3, slug = ?4, active = ?5, "order" = ?6 WHERE id = ?1"#,
    )?
    .execute(params![c.id, c.name, name_key(&c.name), c.slug, c.active, c.order])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    #[test]
    fn a_contributions_categories_come_in_key_order_without_a_sort() {
        let conn = crate::db::migrate::test_db();
        let mut stmt =
            conn.prepare(&format!("EXPLAIN QUERY PLAN {}", of_contribution_sql())).unwrap();
        let plan: Vec<String> =
            stmt.query_map(params![1, 2], |r| r.get(3)).unwrap().collect::<Result<_, _>>().unwrap();
        let plan = plan.join("\n");
        assert!(plan.contains("USING PRIMARY KEY"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }

    #[test]
    fn categories_by_id_come_in_the_order_given_marked_and_the_missing_skipped() {
        let conn = crate::db::migrate::test_db();
        conn.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'u', 'u', 0);
             INSERT INTO category (id, name, name_key, slug, created_at)
               VALUES (1, 'One', 'one', 'one', 0), (2, 'Two', 'two', 'two', 0);
             INSERT INTO category_follow (user_id, category_id, created_at) VALUES (1, 2, 0);",
        )
        .unwrap();
        let got = |ids: &[i64], viewer| {
            with_ids(&conn, ids, viewer)
                .unwrap()
                .into_iter()
                .map(|c| (c.id, c.name, c.followed))
                .collect::<Vec<_>>()
        };
        assert_eq!(got(&[1, 2], Some(1)), [(1, "One".into(), false), (2, "Two".into(), true)]);
        assert_eq!(got(&[1, 2, 3], None), [(1, "One".into(), false), (2, "Two".into(), false)]);
        assert!(got(&[], Some(1)).is_empty());
    }
}

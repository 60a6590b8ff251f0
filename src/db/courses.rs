//! Courses: the course record, its categories, lists and search, counts, sections.
//! Memberships are in [`super::members`], sections in [`super::course_sections`]
//! (re-exported here).

use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::members::Roster;
use crate::model::course::{Course, JoinStatus, name_key};

pub use super::course_sections::{
    delete_section, insert_section, rename_section, section, sections, set_lessons_order,
};

const COLUMNS: &str = "id, name, slug, description, type, privacy, enforce_lessons_order, \
    new_comment_notification_enabled, hide_member_count, meta_title, meta_description, \
    og_title, og_description, og_image, sections_order, image_key, deleted, created_at, created_by";

/// [`COLUMNS`] prefixed with `alias.` for joins.
pub(super) fn columns_as(alias: &str) -> String {
    super::users::qualified(COLUMNS, alias)
}

/// Maps a row selected with [`COLUMNS`] (first; columns after them are not read).
pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Course> {
    let order: String = r.get(14)?;
    Ok(Course {
        id: r.get(0)?,
        name: r.get(1)?,
        slug: r.get(2)?,
        description: r.get(3)?,
        kind: r.get(4)?,
        privacy: r.get(5)?,
        enforce_lessons_order: r.get(6)?,
        new_comment_notification_enabled: r.get(7)?,
        hide_member_count: r.get(8)?,
        meta_title: r.get(9)?,
        meta_description: r.get(10)?,
        og_title: r.get(11)?,
        og_description: r.get(12)?,
        og_image: r.get(13)?,
        sections_order: serde_json::from_str(&order).unwrap_or_default(),
        image_key: r.get(15)?,
        deleted: r.get(16)?,
        created_at: r.get(17)?,
        created_by: r.get(18)?,
    })
}

/// The columns an insert and an update both write, in the order both name them
/// (`name` through `deleted`).
/// `derived`: the name's key and the sections' order as JSON ([`derived`]).
fn stored<'a>(c: &'a Course, (name_key, order): &'a (String, String)) -> [&'a dyn ToSql; 17] {
    [
        &c.name,
        name_key,
        &c.slug,
        &c.description,
        &c.kind,
        &c.privacy,
        &c.enforce_lessons_order,
        &c.new_comment_notification_enabled,
        &c.hide_member_count,
        &c.meta_title,
        &c.meta_description,
        &c.og_title,
        &c.og_description,
        &c.og_image,
        order,
        &c.image_key,
        &c.deleted,
    ]
}

/// The columns computed from a course: its name's key, its sections' order as JSON.
fn derived(c: &Course) -> (String, String) {
    (name_key(&c.name), order_json(c))
}

fn order_json(c: &Course) -> String {
    serde_json::to_string(&c.sections_order).unwrap_or_else(|_| "[]".into())
}

/// One course (deleted ones included).
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Course>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM course WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// Whether another course has this name (compared by its lowercase key).
pub fn name_taken(conn: &Connection, key: &str, except: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM course WHERE name_key = ?1 AND id <> ?2")?
        .exists(params![key, except])
}

/// Whether another course has this slug.
pub fn slug_taken(conn: &Connection, slug: &str, except: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM course WHERE slug = ?1 AND id <> ?2")?
        .exists(params![slug, except])
}

/// Inserts a course (its `id` is ignored; `None` in `id` assigns one) and returns its id.
fn insert(conn: &Connection, c: &Course, id: Option<i64>) -> rusqlite::Result<i64> {
    let derived = derived(c);
    conn.prepare_cached(
        "INSERT INTO course (id, name, name_key, slug, description, type, privacy,
            enforce_lessons_order, new_comment_notification_enabled, hide_member_count,
            meta_title, meta_description, og_title, og_description, og_image, sections_order,
            image_key, deleted, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
    )?
    .execute(params_from_iter(
        [&id as &dyn ToSql]
            .into_iter()
            .chain(stored(c, &derived))
            .chain([&c.created_at as &dyn ToSql, &c.created_by]),
    ))?;
    Ok(conn.last_insert_rowid())
}

/// Creates a course (its `id` is ignored; `None` in `id` assigns one) with its
/// creator's membership, from the course's `created_at`, and its categories: what the
/// API's create and the importer both write. Returns the id.
pub fn create(
    conn: &Connection,
    c: &Course,
    id: Option<i64>,
    categories: &[i64],
) -> rusqlite::Result<i64> {
    let id = insert(conn, c, id)?;
    let (by, at) = (c.created_by, c.created_at);
    super::members::set(conn, Roster::Course, id, by, JoinStatus::Creator, at)?;
    add_categories(conn, id, categories)?;
    Ok(id)
}

/// Writes every writable column of a course back.
pub fn update(conn: &Connection, c: &Course) -> rusqlite::Result<()> {
    let derived = derived(c);
    conn.prepare_cached(
        "UPDATE course SET name = ?2, name_key = ?3, slug = ?4, description = ?5, type = ?6,
            privacy = ?7, enforce_lessons_order = ?8, new_comment_notification_enabled = ?9,
            hide_member_count = ?10, meta_title = ?11, meta_description = ?12, og_title = ?13,
            og_description = ?14, og_image = ?15, sections_order = ?16, image_key = ?17,
            deleted = ?18
         WHERE id = ?1",
    )?
    .execute(params_from_iter([&c.id as &dyn ToSql].into_iter().chain(stored(c, &derived))))?;
    Ok(())
}

/// Replaces the categories of a course.
pub fn set_categories(conn: &Connection, course: i64, ids: &[i64]) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM course_category WHERE course_id = ?1")?.execute([course])?;
    add_categories(conn, course, ids)
}

/// Links a course to categories (kept if linked), then writes its `category_ids` once:
/// that column's only writer besides migration 7 (not a trigger per link: quadratic).
pub fn add_categories(conn: &Connection, course: i64, ids: &[i64]) -> rusqlite::Result<()> {
    let mut ins = conn.prepare_cached(
        "INSERT OR IGNORE INTO course_category (course_id, category_id) VALUES (?1, ?2)",
    )?;
    for id in ids {
        ins.execute(params![course, id])?;
    }
    conn.prepare_cached(sql!("UPDATE course SET category_ids = {CATEGORY_IDS} WHERE id = ?1"))?
        .execute([course])?;
    Ok(())
}

/// The JSON array of the category ids, ascending, linked to the course `course.id`:
/// what `course.category_ids` holds. Ordered by a subquery, not `json_group_array(x
/// ORDER BY x)`, which SQLite before 3.44 (Debian 12's sqlite3) cannot parse.
pub(super) const CATEGORY_IDS: &str = "(SELECT json_group_array(category_id) FROM
    (SELECT l.category_id FROM course_category l WHERE l.course_id = course.id
     ORDER BY l.category_id))";

/// Ordering allow-list of the search: (parameter, ORDER BY clause).
pub const SEARCH_ORDERINGS: [(&str, &str); 6] = [
    ("id", "c.id"),
    ("-id", "c.id DESC"),
    ("name", "c.name_key, c.id"),
    ("-name", "c.name_key DESC, c.id DESC"),
    ("created_at", "c.created_at, c.id"),
    ("-created_at", "c.created_at DESC, c.id DESC"),
];

/// Filters of the course search.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The caller (None: anonymous).
    pub user: Option<i64>,
    /// Case-insensitive text in the name or the description.
    pub text: Option<String>,
    /// Any of these categories.
    pub categories: Option<Vec<i64>>,
    /// An ORDER BY clause from [`SEARCH_ORDERINGS`].
    pub order_by: &'static str,
}

fn like_pattern(s: &str) -> String {
    let mut p = String::with_capacity(s.len() + 2);
    p.push('%');
    for c in s.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// Visible courses: open or private, or secret and the caller is a member, invited or
/// manager, or a draft the caller created or manages; never deleted.
///
/// `EXPLAIN QUERY PLAN` on 100k courses (bundled SQLite, after `ANALYZE`; the ignored
/// test `search_on_100k_courses` prints it):
/// - the count: `MULTI-INDEX OR`, each branch `SEARCH c USING INDEX course_visible
///   (deleted=? AND privacy=?)`; the caller's memberships are `LIST SUBQUERY`s built
///   once by `SEARCH m USING COVERING INDEX course_member_user (user_id=? AND
///   join_status=?)` (with a bloom filter);
/// - the page, default `-id`: `SCAN c` backwards in rowid order (no sort step),
///   stopping after `LIMIT` matches, with the same member lists; `name` ordering walks
///   the unique `name_key` index instead. Debug build, 100k courses: 45 ms
///   anonymous, 60–125 ms for a member, 210 ms with a text search (count included).
pub(crate) const VISIBLE: &str = "c.deleted = 0 AND (
        c.privacy IN ('open', 'private')
        OR (c.privacy = 'secret' AND c.id IN (SELECT m.course_id FROM course_member m
              WHERE m.user_id = ?1 AND m.join_status IN ('creator', 'manager', 'joined', 'invited')))
        OR (c.privacy = '' AND c.id IN (SELECT m.course_id FROM course_member m
              WHERE m.user_id = ?1 AND m.join_status IN ('creator', 'manager'))))
    AND (?2 IS NULL OR c.name_key LIKE ?2 ESCAPE '\\' OR c.description LIKE ?2 ESCAPE '\\')
    AND (?3 IS NULL OR c.id IN (SELECT cc.course_id FROM course_category cc
              WHERE cc.category_id IN (SELECT value FROM json_each(?3))))";

/// One page of the search: (total count, ids in order).
pub fn search(
    conn: &Connection,
    s: &Search,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let text = s.text.as_deref().map(like_pattern);
    let cats =
        s.categories.as_ref().map(|c| serde_json::to_string(c).unwrap_or_else(|_| "[]".into()));
    let count: i64 = conn
        .prepare_cached(sql!("SELECT count(*) FROM course c WHERE {VISIBLE}"))?
        .query_row(params![s.user, text, cats], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT c.id FROM course c WHERE {VISIBLE} ORDER BY {} LIMIT ?4 OFFSET ?5",
        s.order_by
    ))?;
    let ids = stmt
        .query_map(params![s.user, text, cats, limit, offset], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok((count, ids))
}

/// The secret and draft courses `?1` may see, in no order. Written so that SQLite builds
/// no ephemeral table on each run: `<> 'requested'` for the four statuses that see a
/// secret course (an `IN` list of more than two constants is one), and sorted by the
/// caller (`ORDER BY c.id` over the membership index is a temporary B-tree).
const EXTRA: &str = "SELECT c.id FROM course_member m JOIN course c ON c.id = m.course_id
     WHERE m.user_id = ?1 AND c.deleted = 0
       AND ((c.privacy = 'secret' AND m.join_status <> 'requested')
         OR (c.privacy = '' AND m.join_status IN ('creator', 'manager')))";

/// The common search, newest first with no text and no category filter, in time that
/// does not grow with the offset: (total count, ids of the page).
///
/// The visible courses are the listed ones (not deleted, open or private; the partial
/// index `course_listed`, counted per block of 1024 ids in `course_listed_block` and in
/// all in `course_listed_count`) plus
/// the few secret or draft courses the caller may see (`extra`, from its
/// memberships). The page starts `extra.len()` rows early in the listed sequence, found
/// by walking the blocks and then at most 1024 index entries, and `extra` is merged in.
pub fn search_newest(
    conn: &Connection,
    user: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let mut extra: Vec<i64> = match user {
        None => Vec::new(),
        Some(u) => {
            conn.prepare_cached(EXTRA)?.query_map([u], |r| r.get(0))?.collect::<Result<_, _>>()?
        }
    };
    extra.sort_unstable_by(|a, b| b.cmp(a));
    // one row kept by the triggers: at 1M courses the sum over ~1000 blocks was a
    // tenth of a first page, and what made it slower at 10x than at 1x (issue 17)
    let listed: i64 =
        conn.prepare_cached("SELECT n FROM course_listed_count")?.query_row([], |r| r.get(0))?;
    let extra_n = i64::try_from(extra.len()).unwrap_or(i64::MAX);
    let count = listed + extra_n;
    if offset >= count {
        return Ok((count, Vec::new()));
    }
    // the listed rank to start from: early enough that no extra course before the page
    // is missed
    let start_rank = (offset - extra_n).max(0);
    let first = if start_rank == 0 {
        // the first page starts at the newest listed course
        Some(i64::MAX)
    } else {
        listed_at(conn, start_rank)?
    };
    let window: Vec<i64> = match first {
        None => Vec::new(),
        Some(first) => conn
            .prepare_cached(
                "SELECT id FROM course INDEXED BY course_listed
                 WHERE deleted = 0 AND privacy IN ('open', 'private') AND id <= ?1
                 ORDER BY id DESC LIMIT ?2",
            )?
            .query_map(params![first, limit + extra_n], |r| r.get(0))?
            .collect::<Result<_, _>>()?,
    };
    let exhausted = start_rank + i64::try_from(window.len()).unwrap_or(0) >= listed;
    // extras above the window come before it; those inside (or below, when the listed
    // courses run out) are merged into it
    let top = window.first().copied();
    let bottom = window.last().copied();
    let before = match top {
        Some(t) if start_rank > 0 => extra.iter().filter(|&&e| e > t).count(),
        _ => 0,
    };
    let mut merged: Vec<i64> = window;
    merged.extend(extra.iter().copied().filter(|&e| {
        let below_top = start_rank == 0 || top.is_none_or(|t| e < t);
        let above_bottom = exhausted || bottom.is_none_or(|b| e > b);
        below_top && above_bottom
    }));
    merged.sort_unstable_by(|a, b| b.cmp(a));
    let first_pos =
        if start_rank == 0 { 0 } else { start_rank + i64::try_from(before).unwrap_or(0) };
    let skip = usize::try_from(offset - first_pos).unwrap_or(0);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    Ok((count, merged.into_iter().skip(skip).take(take).collect()))
}

/// The id of the listed course at `rank` (0 = highest id), or None past the end.
fn listed_at(conn: &Connection, rank: i64) -> rusqlite::Result<Option<i64>> {
    // the blocks newest first, read only as far as the rank (a deep page of a large
    // catalogue walks a few hundred of them, the first pages one)
    let mut blocks = conn.prepare_cached(
        "SELECT block, n FROM course_listed_block WHERE n > 0 ORDER BY block DESC",
    )?;
    let mut rows = blocks.query([])?;
    let mut before = 0;
    while let Some(row) = rows.next()? {
        let (block, n): (i64, i64) = (row.get(0)?, row.get(1)?);
        if rank < before + n {
            return conn
                .prepare_cached(
                    "SELECT id FROM course INDEXED BY course_listed
                     WHERE deleted = 0 AND privacy IN ('open', 'private') AND id >= ?1 AND id < ?2
                     ORDER BY id DESC LIMIT 1 OFFSET ?3",
                )?
                .query_row(params![block << 10, (block + 1) << 10, rank - before], |r| r.get(0))
                .optional();
        }
        before += n;
    }
    Ok(None)
}

/// The search's query plan (for the docs and a test).
pub fn explain_search(conn: &Connection, order_by: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!(
        "EXPLAIN QUERY PLAN SELECT c.id FROM course c WHERE {VISIBLE} ORDER BY {order_by} LIMIT ?4 OFFSET ?5"
    ))?;
    let rows = stmt.query_map(params![Some(1i64), None::<String>, None::<String>, 20, 0], |r| {
        r.get::<_, String>(3)
    })?;
    rows.collect()
}

/// Courses where `user`'s status is one of `statuses`, newest first: (count, ids).
pub fn list_for_user(
    conn: &Connection,
    user: i64,
    statuses: &[JoinStatus],
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let statuses = serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into());
    let count: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM course_member m JOIN course c ON c.id = m.course_id
             WHERE m.user_id = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))
               AND c.deleted = 0",
        )?
        .query_row(params![user, statuses], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(
        "SELECT c.id FROM course_member m JOIN course c ON c.id = m.course_id
         WHERE m.user_id = ?1 AND m.join_status IN (SELECT value FROM json_each(?2))
           AND c.deleted = 0
         ORDER BY c.created_at DESC, c.id DESC LIMIT ?3 OFFSET ?4",
    )?;
    let ids = stmt
        .query_map(params![user, statuses, limit, offset], |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok((count, ids))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("A_b%"), "%a\\_b\\%%");
    }

    #[test]
    fn a_courses_category_ids_are_written_once_however_many_links_change() {
        // SPEC §2: a list of up to 1000 items costs linear work; the array is rebuilt once
        // per change, not once per link
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let conn = crate::db::migrate::test_db();
        conn.execute_batch(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'u', 'u', 0);
             WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 1000)
             INSERT INTO category (id, name, name_key, slug, created_at)
               SELECT v, 'c' || v, 'c' || v, 'c' || v, 0 FROM n;
             INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by)
               VALUES (7, 'C', 'c', 'c', 'self-paced', 'open', 0, 1);
             INSERT INTO course_member (course_id, user_id, join_status, created_at)
               VALUES (7, 1, 'creator', 0);",
        )
        .unwrap();
        let course_writes = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&course_writes);
        conn.update_hook(Some(move |_: rusqlite::hooks::Action, _: &str, table: &str, _: i64| {
            if table == "course" {
                seen.fetch_add(1, Ordering::Relaxed);
            }
        }))
        .unwrap();
        let kept = |conn: &Connection| -> Vec<i64> {
            let text: String = conn
                .query_row("SELECT category_ids FROM course WHERE id = 7", [], |r| r.get(0))
                .unwrap();
            serde_json::from_str(&text).unwrap()
        };
        let all: Vec<i64> = (1..=1000).rev().collect();
        set_categories(&conn, 7, &all).unwrap();
        assert_eq!(course_writes.swap(0, Ordering::Relaxed), 1);
        assert_eq!(kept(&conn), (1..=1000).collect::<Vec<_>>());
        set_categories(&conn, 7, &[9, 3]).unwrap();
        assert_eq!(course_writes.swap(0, Ordering::Relaxed), 1);
        assert_eq!(kept(&conn), [3, 9]);
        add_categories(&conn, 7, &[3, 5]).unwrap();
        assert_eq!(kept(&conn), [3, 5, 9]);
        set_categories(&conn, 7, &[]).unwrap();
        assert!(kept(&conn).is_empty());
        conn.update_hook(None::<fn(rusqlite::hooks::Action, &str, &str, i64)>).unwrap();
        let problems = crate::db::check::problems(&conn).unwrap();
        assert!(problems.iter().all(|p| p.check == "jwt_secret"), "{problems:?}");
    }

    #[test]
    fn search_plan_uses_the_indexes() {
        let conn = crate::db::migrate::test_db();
        let plan = explain_search(&conn, "c.id DESC").unwrap().join("\n");
        assert!(plan.contains("course_member_user"), "{plan}");
    }

    #[test]
    fn the_callers_own_courses_build_no_ephemeral_table() {
        let conn = crate::db::migrate::test_db();
        assert_eq!(crate::db::migrate::ephemeral_tables(&conn, EXTRA), 0);
    }

    #[test]
    fn newest_fast_path_agrees_with_the_general_search_at_every_offset() {
        let conn = crate::db::migrate::test_db();
        for u in 1..=3 {
            conn.execute(
                "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?2, ?2, 0)",
                params![u, format!("u{u}")],
            )
            .unwrap();
        }
        let privacies = ["", "open", "private", "secret", "open", "open"];
        // ids spread over several 1024-blocks, with gaps
        for i in 0..700i64 {
            let id = 1 + i * 7 + (i % 5) * 300;
            let owner = i % 3 + 1;
            let privacy = privacies[(i % 6) as usize];
            conn.execute(
                "INSERT OR IGNORE INTO course (id, name, name_key, slug, type, privacy, created_at, created_by, deleted)
                 VALUES (?1, ?2, lower(?2), ?3, 'self-paced', ?4, ?1, ?5, ?6)",
                params![id, format!("C{id}"), format!("c-{id}"), privacy, owner, i % 17 == 0],
            )
            .unwrap();
            conn.execute(
                "INSERT OR IGNORE INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, 'creator', 0)",
                params![id, owner],
            )
            .unwrap();
            // another user in every status a member may have: only some see a secret
            // course, fewer a draft
            let status = ["joined", "invited", "requested", "manager"][(i % 4) as usize];
            conn.execute(
                "INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, ?3, 0)",
                params![id, (i + 1) % 3 + 1, status],
            )
            .unwrap();
        }
        // a privacy change and a delete go through the triggers
        conn.execute("UPDATE course SET privacy = 'open' WHERE privacy = '' AND id % 2 = 0", [])
            .unwrap();
        conn.execute("UPDATE course SET deleted = 1 WHERE id % 11 = 0", []).unwrap();
        let problems = crate::db::check::run(&conn).unwrap();
        assert!(!problems.iter().any(|p| p.contains("course_listed")), "{problems:?}");
        for user in [None, Some(1), Some(2), Some(3)] {
            let general = Search { user, text: None, categories: None, order_by: "c.id DESC" };
            let (total, _) = search(&conn, &general, 1, 0).unwrap();
            for offset in (0..total + 3).step_by(13) {
                for limit in [1, 7, 20] {
                    let want = search(&conn, &general, limit, offset).unwrap();
                    let got = search_newest(&conn, user, limit, offset).unwrap();
                    assert_eq!(got, want, "user {user:?} offset {offset} limit {limit}");
                }
            }
        }
    }

    /// `cargo test --lib search_on_100k -- --ignored --nocapture`: the plan and timings
    /// quoted in docs/query-plans.md.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn search_on_100k_courses() {
        let conn = crate::db::migrate::test_db();
        conn.execute_batch("BEGIN").unwrap();
        for u in 1..=1000 {
            conn.execute(
                "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?2, ?2, 0)",
                params![u, format!("u{u}")],
            )
            .unwrap();
        }
        let privacies = ["", "open", "private", "secret"];
        for id in 1..=100_000i64 {
            let owner = id % 1000 + 1;
            conn.execute(
                "INSERT INTO course (id, name, name_key, slug, type, privacy, created_at, created_by)
                 VALUES (?1, ?2, lower(?2), ?3, 'self-paced', ?4, ?1, ?5)",
                params![id, format!("Course {id}"), format!("c-{id}"), privacies[(id % 4) as usize], owner],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, 'creator', 0)",
                params![id, owner],
            )
            .unwrap();
            conn.execute(
                "INSERT OR IGNORE INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, 'joined', 0)",
                params![id, (id * 7) % 1000 + 1],
            )
            .unwrap();
        }
        conn.execute_batch("COMMIT; ANALYZE").unwrap();
        let mut stmt = conn
            .prepare(&format!("EXPLAIN QUERY PLAN SELECT count(*) FROM course c WHERE {VISIBLE}"))
            .unwrap();
        let plan: Vec<String> = stmt
            .query_map(params![Some(1i64), None::<String>, None::<String>], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        println!("count:\n  {}", plan.join("\n  "));
        for order in ["c.id DESC", "c.name_key, c.id"] {
            println!("ORDER BY {order}:\n  {}", explain_search(&conn, order).unwrap().join("\n  "));
        }
        for (user, text, order) in [
            (None, None, "c.id DESC"),
            (Some(5), None, "c.id DESC"),
            (Some(5), Some("course 99".to_owned()), "c.id DESC"),
            (Some(5), None, "c.name_key, c.id"),
        ] {
            let s = Search { user, text: text.clone(), categories: None, order_by: order };
            let t = crate::clock::instant();
            let (count, ids) = search(&conn, &s, 20, 0).unwrap();
            println!(
                "user {user:?} text {text:?} order {order}: count {count}, {} ids, {:?}",
                ids.len(),
                t.elapsed()
            );
        }
    }
}

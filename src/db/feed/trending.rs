//! A category's trending items and people (the kit's category page widgets,
//! `GET /api/v2/category/{id}/feed/trending/` and `/followers/trending/`).
//!
//! Trending is read from a bounded window: the category's [`WINDOW`] most recently
//! active live items (a walk of `contribution_category_feed`). Items: that window by
//! how much was said and voted on them (live comments plus votes), ties by recency.
//! People: the authors of that window who follow the category, by how many of its
//! items they wrote, ties by recency. A page costs the window, whatever the size of
//! the category.

use std::collections::HashMap;

use rusqlite::{Connection, params};

/// How many of the category's most recently active items trending looks at.
pub const WINDOW: i64 = 500;

/// The window's rows: (pk, author, comments + votes), most recently active first.
fn window(
    conn: &Connection,
    category: i64,
    viewer: Option<i64>,
) -> rusqlite::Result<Vec<(i64, i64, i64)>> {
    conn.prepare_cached(sql!(
        "SELECT c.pk, c.author_id, c.comment_count
                + coalesce((SELECT sum(t.n) FROM vote_tally t WHERE t.contribution_pk = c.pk), 0)
         FROM contribution_category cc INDEXED BY contribution_category_feed
         JOIN contribution c ON c.pk = cc.contribution_pk
         WHERE cc.category_id = ?1 AND c.target_pk IS NULL AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
           AND {} AND {}
         ORDER BY cc.last_activity_at DESC, cc.contribution_pk DESC LIMIT ?3",
        super::not_hidden(2),
        crate::db::tags::addressing_shown(2)
    ))?
    .query_map(params![category, viewer, WINDOW], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
    .collect()
}

/// All trending items of a category (at most [`WINDOW`]), best first.
pub fn items(conn: &Connection, category: i64, viewer: Option<i64>) -> rusqlite::Result<Vec<i64>> {
    let mut rows = window(conn, category, viewer)?;
    // stable: equal scores keep the window's recency order
    rows.sort_by_key(|&(_, _, score)| std::cmp::Reverse(score));
    Ok(rows.into_iter().map(|(pk, _, _)| pk).collect())
}

/// The ids of a category's trending people (live followers of it), best first.
pub fn people(conn: &Connection, category: i64, viewer: Option<i64>) -> rusqlite::Result<Vec<i64>> {
    let mut order: Vec<i64> = Vec::new();
    let mut written: HashMap<i64, i64> = HashMap::new();
    for (_, author, _) in window(conn, category, viewer)? {
        let n = written.entry(author).or_insert(0);
        if *n == 0 {
            order.push(author);
        }
        *n += 1;
    }
    let mut follows = conn.prepare_cached(
        "SELECT 1 FROM category_follow f JOIN user u ON u.id = f.user_id
         WHERE f.user_id = ?1 AND f.category_id = ?2 AND u.deleted = 0",
    )?;
    let mut people = Vec::new();
    for author in order {
        if follows.exists([author, category])? {
            people.push(author);
        }
    }
    people.sort_by_key(|a| std::cmp::Reverse(written.get(a).copied().unwrap_or(0)));
    Ok(people)
}

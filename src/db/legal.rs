//! Legal pages and acknowledgements (`model::legal`).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::legal::{Ack, Page};

const COLUMNS: &str =
    "id, policy, title, html_body, html_summary, valid_from, valid_to, created_at";

fn page_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Page> {
    Ok(Page {
        id: r.get(0)?,
        policy: r.get(1)?,
        title: r.get(2)?,
        html_body: r.get(3)?,
        html_summary: r.get(4)?,
        valid_from: r.get(5)?,
        valid_to: r.get(6)?,
        created_at: r.get(7)?,
    })
}

/// Adds a revision of `policy`; its id.
pub fn add(
    conn: &Connection,
    policy: &str,
    title: &str,
    body: &str,
    valid_from: Timestamp,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    let r = crate::model::rich_text::render(body);
    conn.prepare_cached(
        "INSERT INTO legal_page (policy, title, body, html_body, html_summary, valid_from, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![policy, title, body, r.html, r.summary_html, valid_from, now])?;
    Ok(conn.last_insert_rowid())
}

/// A revision by id.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Page>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM legal_page WHERE id = ?1"))?
        .query_row([id], page_row)
        .optional()
}

/// The revision of `policy` in force at `now`: the newest valid from `now` or before
/// and not ended.
pub fn current(conn: &Connection, policy: &str, now: Timestamp) -> rusqlite::Result<Option<Page>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM legal_page WHERE policy = ?1 AND valid_from <= ?2
           AND (valid_to IS NULL OR valid_to > ?2)
         ORDER BY valid_from DESC, id DESC LIMIT 1"
    ))?
    .query_row(params![policy, now], page_row)
    .optional()
}

/// One page of the revisions (of `policy` when given), newest first: (count, page). A
/// policy's page walks the `legal_page_policy` index in its order.
pub fn page(
    conn: &Connection,
    policy: Option<&str>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Page>)> {
    let (count_sql, rows_sql) = page_sql(policy.is_some());
    let count = conn.prepare_cached(count_sql)?.query_row([policy], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(rows_sql)?
        .query_map(params![policy, limit, offset], page_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, rows))
}

/// [`page`]'s count and rows statements (`?1` the policy, `?2`/`?3` limit and offset).
fn page_sql(of_policy: bool) -> (&'static str, &'static str) {
    if of_policy {
        (
            "SELECT count(*) FROM legal_page WHERE policy = ?1",
            sql!(
                "SELECT {COLUMNS} FROM legal_page WHERE policy = ?1
                 ORDER BY valid_from DESC, id DESC LIMIT ?2 OFFSET ?3"
            ),
        )
    } else {
        (
            "SELECT count(*) FROM legal_page WHERE ?1 IS NULL",
            sql!(
                "SELECT {COLUMNS} FROM legal_page WHERE ?1 IS NULL
                 ORDER BY valid_from DESC, id DESC LIMIT ?2 OFFSET ?3"
            ),
        )
    }
}

fn ack_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Ack> {
    Ok(Ack {
        id: r.get(0)?,
        page_id: r.get(1)?,
        user_id: r.get(2)?,
        accepted_at: r.get(3)?,
        not_accepted_at: r.get(4)?,
    })
}

/// `user`'s acknowledgement of revision `page`, if any.
pub fn ack_of(conn: &Connection, page: i64, user: i64) -> rusqlite::Result<Option<Ack>> {
    conn.prepare_cached(
        "SELECT id, page_id, user_id, accepted_at, not_accepted_at FROM legal_ack
         WHERE page_id = ?1 AND user_id = ?2",
    )?
    .query_row([page, user], ack_row)
    .optional()
}

/// `user` accepts (or declines) revision `page`: the answer replaces an earlier one.
pub fn acknowledge(
    conn: &Connection,
    page: i64,
    user: i64,
    accept: bool,
    now: Timestamp,
) -> rusqlite::Result<Ack> {
    let (accepted, declined) = if accept { (Some(now), None) } else { (None, Some(now)) };
    conn.prepare_cached(
        "INSERT INTO legal_ack (page_id, user_id, accepted_at, not_accepted_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (page_id, user_id) DO UPDATE SET accepted_at = excluded.accepted_at,
             not_accepted_at = excluded.not_accepted_at",
    )?
    .execute(params![page, user, accepted, declined])?;
    ack_of(conn, page, user)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
}

/// One page of `user`'s acknowledgements, in order: (count, page).
pub fn acks(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Ack>)> {
    let count = conn
        .prepare_cached("SELECT count(*) FROM legal_ack WHERE user_id = ?1")?
        .query_row([user], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(
            "SELECT id, page_id, user_id, accepted_at, not_accepted_at FROM legal_ack
             WHERE user_id = ?1 ORDER BY id LIMIT ?2 OFFSET ?3",
        )?
        .query_map([user, limit, offset], ack_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, rows))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    #[test]
    fn a_policys_revisions_walk_its_index_without_a_sort() {
        let c = crate::db::migrate::test_db();
        let sql = format!("EXPLAIN QUERY PLAN {}", super::page_sql(true).1);
        let mut stmt = c.prepare(&sql).unwrap();
        let plan: Vec<String> = stmt
            .query_map(rusqlite::params!["tec", 20, 0], |r| r.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(plan.iter().any(|l| l.contains("legal_page_policy")), "{plan:?}");
        assert!(!plan.iter().any(|l| l.contains("TEMP B-TREE")), "{plan:?}");
    }
}

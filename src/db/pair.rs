//! Pair tables: a row per (a, b), there or not.

use rusqlite::Connection;

/// A row of a pair table (`category_follow`, `user_hide`) removed when it is there and
/// inserted when it is not: whether it is there now. `delete` takes the pair as ?1,
/// ?2 and returns a row when it removed one; `insert` takes the pair and `now` (?3).
pub(super) fn toggle_pair(
    conn: &Connection,
    delete: &str,
    insert: &str,
    pair: (i64, i64),
    now: crate::clock::Timestamp,
) -> rusqlite::Result<bool> {
    use rusqlite::OptionalExtension as _;
    let removed =
        conn.prepare_cached(delete)?.query_row([pair.0, pair.1], |_| Ok(())).optional()?.is_some();
    if !removed {
        conn.prepare_cached(insert)?.execute(rusqlite::params![pair.0, pair.1, now])?;
    }
    Ok(!removed)
}

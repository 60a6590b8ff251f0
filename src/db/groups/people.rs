//! Groups and people: the groups a user belongs to, and the users a group's admin may
//! invite.

use rusqlite::{Connection, params};

use super::visible;
use crate::model::course::JoinStatus;
use crate::model::user::{User, username_key};

/// One page of the groups `viewer` may see in which `user` has a status among
/// `statuses`, newest membership first (then by group id, newest first), and how many.
/// A walk of `group_member_user`.
pub fn user_groups(
    conn: &Connection,
    user: i64,
    statuses: &[JoinStatus],
    viewer: Option<i64>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<i64>)> {
    let statuses = serde_json::to_string(statuses).unwrap_or_else(|_| "[]".into());
    let from = sql!(
        "FROM group_member m INDEXED BY group_member_user
         JOIN community_group g ON g.id = m.group_id
         WHERE m.user_id = ?2 AND m.join_status IN (SELECT value FROM json_each(?3)) AND {}",
        visible(1)
    );
    let count = conn
        .prepare_cached(&format!("SELECT count(*) {from}"))?
        .query_row(params![viewer, user, statuses], |r| r.get(0))?;
    let ids = conn
        .prepare_cached(&format!(
            "SELECT g.id {from} ORDER BY m.created_at DESC, g.id DESC LIMIT ?4 OFFSET ?5"
        ))?
        .query_map(params![viewer, user, statuses, limit, offset], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok((count, ids))
}

/// The most a suggestion counts (as the mention picker's).
pub const COUNT_CAP: i64 = 1000;

/// One page of live users whose username starts with `prefix` (case-insensitively),
/// by username, leaving out `except` and, for a group, its members, invited users and
/// requesters (`group`; none for a group being made), and how many (up to
/// [`COUNT_CAP`]). A range of the `username_key` index.
pub fn suggested_users(
    conn: &Connection,
    group: Option<i64>,
    except: i64,
    prefix: &str,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<User>)> {
    let low = username_key(prefix);
    let high = format!("{low}\u{10FFFF}");
    const WHERE: &str = "username_key >= ?1 AND username_key < ?2 AND deleted = 0 AND id <> ?3
        AND NOT EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = ?4 AND m.user_id = user.id)";
    let count = conn
        .prepare_cached(sql!(
            "SELECT count(*) FROM (SELECT 1 FROM user WHERE {WHERE} LIMIT {COUNT_CAP})"
        ))?
        .query_row(params![low, high, except, group], |r| r.get(0))?;
    let users = conn
        .prepare_cached(sql!(
            "SELECT {} FROM user WHERE {WHERE} ORDER BY username_key LIMIT ?5 OFFSET ?6",
            crate::db::users::COLUMNS
        ))?
        .query_map(params![low, high, except, group, limit, offset], crate::db::users::from_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, users))
}

/// Whether `status` makes a member (who sees a private group's items).
pub const fn is_member(status: Option<JoinStatus>) -> bool {
    matches!(status, Some(JoinStatus::Creator | JoinStatus::Manager | JoinStatus::Joined))
}

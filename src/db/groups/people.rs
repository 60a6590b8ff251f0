//! Groups and people: the groups a user belongs to.

use rusqlite::{Connection, params};

use super::visible;
use crate::model::course::JoinStatus;

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

/// Whether `status` makes a member (who sees a private group's items).
pub const fn is_member(status: Option<JoinStatus>) -> bool {
    matches!(status, Some(JoinStatus::Creator | JoinStatus::Manager | JoinStatus::Joined))
}

//! User JSON for the lists of users (voters, contributors, hidden users, connections),
//! as a caller sees them: `connection_status` says where the caller stands with each.

use rusqlite::Connection;

use crate::db;
use crate::error::ApiError;
use crate::model::PublicUrl;
use crate::model::user::{User, UserJson};

/// How a caller stands with other users, as User JSON's `connection_status` says it:
/// with connections on (`db::connections::enabled`), the connection status; otherwise
/// `followed` when the caller follows the user. One definition for every route.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Relations {
    connections: bool,
}

impl Relations {
    /// Reads whether connections are on.
    pub(crate) fn load(c: &Connection) -> rusqlite::Result<Self> {
        Ok(Relations { connections: db::connections::enabled(c)? })
    }

    /// `viewer`'s status towards `other` (`None` for an anonymous viewer).
    pub(crate) fn of(
        self,
        c: &Connection,
        viewer: Option<i64>,
        other: i64,
    ) -> rusqlite::Result<Option<&'static str>> {
        let Some(v) = viewer else { return Ok(None) };
        if self.connections {
            return Ok(db::connections::status(c, v, other)?.map(|s| s.as_str()));
        }
        Ok(db::follows::is_following(c, v, other)?.then_some("followed"))
    }

    /// [`Self::of`] where the list already knows whether the viewer follows `other`.
    pub(crate) fn known(
        self,
        c: &Connection,
        viewer: Option<i64>,
        other: i64,
        followed: bool,
    ) -> rusqlite::Result<Option<&'static str>> {
        if self.connections {
            return self.of(c, viewer, other);
        }
        Ok(followed.then_some("followed"))
    }
}

/// The User JSON of `users`, in their order, for `viewer`: one query for every user's
/// tags and one primary-key lookup a user for the relation.
pub(crate) fn users_json(
    c: &Connection,
    users: Vec<User>,
    viewer: Option<i64>,
    base: &PublicUrl,
) -> Result<Vec<UserJson>, ApiError> {
    let ids: Vec<i64> = users.iter().map(|u| u.id).collect();
    let mut tags = db::follows::tags_of(c, &ids)?;
    let relations = Relations::load(c)?;
    let mut out = Vec::with_capacity(users.len());
    for u in users {
        let status = relations.of(c, viewer, u.id)?;
        let t = tags.remove(&u.id).unwrap_or_default();
        out.push(u.to_json(base, status, t));
    }
    Ok(out)
}

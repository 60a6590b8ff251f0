//! The four kinds of contribution (SPEC §5) and their names.

/// The four kinds of contribution. Discussions, posts and statuses take their ids from
/// one sequence; comments number their own (`db::contributions::next_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `/api/v2/discussion/`
    Discussion,
    /// `/api/v2/post/`
    Post,
    /// `/api/v2/status/`
    Status,
    /// `/api/v2/comment/`
    Comment,
}

impl Kind {
    /// Every kind, in SPEC order.
    pub const ALL: [Kind; 4] = [Kind::Discussion, Kind::Post, Kind::Status, Kind::Comment];

    /// The kinds a comment can belong to, which are also its body fields.
    pub const TARGETS: [Kind; 3] = [Kind::Discussion, Kind::Post, Kind::Status];

    /// The name used in the JSON `type`, the URL segment and the `kind` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Discussion => "discussion",
            Kind::Post => "post",
            Kind::Status => "status",
            Kind::Comment => "comment",
        }
    }

    /// The inverse of [`Kind::as_str`].
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The `kind` column: an unknown name is a conversion error naming it.
impl rusqlite::types::FromSql for Kind {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let s = value.as_str()?;
        Kind::parse(s).ok_or_else(|| {
            rusqlite::types::FromSqlError::Other(format!("unknown contribution kind {s:?}").into())
        })
    }
}

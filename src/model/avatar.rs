//! A member's uploaded avatars (`SCAvatarType`, SPEC §10 People).

use serde::Serialize;

use super::PublicUrl;
use crate::clock::{Timestamp, rfc3339};

/// Most avatars one member keeps: an upload past it is refused (delete one first).
pub const MAX_AVATARS: i64 = 20;

/// An avatar as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Avatar {
    pub id: i64,
    pub user_id: i64,
    /// The media path (`/media/avatar/...`).
    pub path: String,
    pub created_at: Timestamp,
}

/// Avatar JSON.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Avatar)]
pub struct AvatarJson {
    pub id: i64,
    /// Whether it is the member's avatar now (User JSON's `avatar`).
    pub primary: bool,
    #[schema(format = "uri")]
    pub avatar: String,
    #[schema(format = DateTime)]
    pub date_uploaded: String,
    /// The member's id.
    pub user: i64,
}

impl Avatar {
    /// Its JSON; `current` is the member's `avatar` path now.
    pub fn to_json(&self, base: &PublicUrl, current: &str) -> AvatarJson {
        AvatarJson {
            id: self.id,
            primary: self.path == current,
            avatar: base.at(&self.path),
            date_uploaded: rfc3339(self.created_at),
            user: self.user_id,
        }
    }
}

//! Users: validation rules and the User / User Minimal JSON shapes of SPEC §4.

use serde::Serialize;

use super::PublicUrl;
use crate::clock::{Timestamp, rfc3339};

/// Default avatar, served by hearth.
pub const DEFAULT_AVATAR: &str = "/static/default/avatar.svg";
/// Default cover, served by hearth.
pub const DEFAULT_COVER: &str = "/static/default/cover.svg";
/// Longest username.
pub const USERNAME_MAX: usize = 150;

/// Checks a username: 1–150 characters of letters, digits and `@.+-_`.
pub fn validate_username(u: &str) -> Result<(), String> {
    let n = u.chars().count();
    if n == 0 || n > USERNAME_MAX {
        return Err(format!("username must be 1 to {USERNAME_MAX} characters"));
    }
    if let Some(c) = u.chars().find(|c| !(c.is_alphanumeric() || "@.+-_".contains(*c))) {
        return Err(format!("username may only contain letters, digits and @.+-_ (found {c:?})"));
    }
    Ok(())
}

/// Longest mail address (RFC 5321's path limit).
pub const EMAIL_MAX: usize = 254;

/// Checks a mail address: one `@`, something before it, a dotted domain after it, no
/// spaces or control characters, at most [`EMAIL_MAX`] bytes.
pub fn validate_email(e: &str) -> Result<(), String> {
    let ok = e.len() <= EMAIL_MAX
        && !e.chars().any(|c| c.is_whitespace() || c.is_control())
        && e.split_once('@').is_some_and(|(l, d)| {
            !l.is_empty()
                && d.contains('.')
                && !d.starts_with('.')
                && !d.ends_with('.')
                && !d.contains('@')
        });
    if ok { Ok(()) } else { Err(format!("{e:?} is not a valid email address")) }
}

/// The key usernames are unique and looked up by (case-insensitive).
pub fn username_key(u: &str) -> String {
    u.to_lowercase()
}

/// A user as stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub email: Option<String>,
    pub real_name: String,
    pub is_staff: bool,
    pub ext_id: Option<String>,
    pub avatar: String,
    pub cover: String,
    pub bio: String,
    pub location: String,
    pub location_lat_lng: Option<String>,
    pub position_lat_lng: Option<String>,
    pub date_of_birth: Option<String>,
    pub description: String,
    pub gender: String,
    pub website: String,
    pub reputation: i64,
    pub community_badge: bool,
    pub reg_approved: bool,
    pub company_name: String,
    pub company_role: String,
    pub followings_counter: i64,
    pub followers_counter: i64,
    pub posts_counter: i64,
    pub discussions_counter: i64,
    pub polls_counter: i64,
    pub date_joined: Timestamp,
    pub deleted: bool,
    /// Categories this user follows.
    pub categories_counter: i64,
    /// This user's connections (friendships, SPEC §10 People).
    pub connections_counter: i64,
}

/// A tag on a user (`SCTagType`): the User JSON lists the user's visible, active tags.
pub use super::tag::TagJson as Tag;

/// User JSON: the User table of SEED-API.md, every field, in that order.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = User)]
pub struct UserJson {
    pub id: i64,
    pub username: String,
    pub real_name: String,
    /// Absolute URL; hearth's default avatar when unset.
    #[schema(format = "uri")]
    pub avatar: String,
    /// "" when unset.
    pub ext_id: String,
    /// Live users this user follows.
    pub followings_counter: i64,
    /// Live users following this user.
    pub followers_counter: i64,
    pub posts_counter: i64,
    pub discussions_counter: i64,
    pub polls_counter: i64,
    /// Where the caller stands with this user (null for anonymous callers): with
    /// connections on (`configurations.connection_enabled`) `connected`,
    /// `sent_connection_request` or `received_connection_request`; otherwise
    /// `followed` when the caller follows this user; else null.
    pub connection_status: Option<&'static str>,
    /// Categories this user follows.
    pub categories_counter: i64,
    /// This user's connections (friendships, SPEC §10 People: kept whether or not
    /// connections are on).
    pub connections_counter: i64,
    #[schema(format = DateTime)]
    pub date_joined: String,
    pub bio: String,
    pub location: String,
    pub location_lat_lng: Option<String>,
    pub position_lat_lng: Option<String>,
    #[schema(format = Date)]
    pub date_of_birth: Option<String>,
    pub description: String,
    pub gender: String,
    pub website: String,
    /// Absolute URL; hearth's default cover when unset.
    #[schema(format = "uri")]
    pub cover: String,
    pub tags: Vec<Tag>,
    pub reputation: i64,
    pub community_badge: bool,
    pub reg_approved: bool,
    pub deleted: bool,
    pub company_name: String,
    pub company_role: String,
    /// The staff role the kit reads (react-core's `getUserRole`): `admin` for staff
    /// (hearth has one staff flag, `hearth user set-staff`), null for members
    pub role: Option<&'static str>,
    /// Only in `GET /api/v2/user/me/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Only in `GET /api/v2/user/me/`: `"a"` (approved) or `"b"` (blocked by staff, SPEC
    /// §10 People), which the kit's `UserUtils.isBlocked` reads to explain a refusal
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    /// Only in `GET /api/v2/user/me/`: the caller's unseen notifications (0 until
    /// hearth writes notifications, SPEC §10)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unseen_interactions_counter: Option<i64>,
    /// Only in `GET /api/v2/user/me/`: the caller's unseen broadcast banners (0 until
    /// hearth keeps banners, SPEC §10)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unseen_notification_banners_counter: Option<i64>,
    /// Only in `GET /api/v2/user/me/`: the connection requests the caller sent, open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_requests_sent_counter: Option<i64>,
    /// Only in `GET /api/v2/user/me/`: the connection requests the caller received and
    /// has not answered or rejected (the kit's requests widget shows it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_requests_received_counter: Option<i64>,
    /// Only in `GET /api/v2/user/{id}/` for a signed-in caller: whether the caller may
    /// send this user a private message (private messages on, a live user other than
    /// the caller, not hidden either way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub can_send_pm_to: Option<bool>,
    /// Only in `GET /api/v2/user/me/`: what the caller may create, as
    /// `GET /api/v2/user/me/permission/` answers it (the kit's composer menu and its
    /// create buttons read it here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<Permission>,
}

/// What the caller may do (`SCUserPermissionType`, and the `create_course`,
/// `create_event` and `create_live_stream` the kit's composer menu reads besides), as
/// hearth enforces it: each flag is true exactly when the matching write would be
/// taken (all false while staff block the member).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = UserPermission)]
pub struct Permission {
    /// Publishing discussions, posts and statuses (comments are always open).
    pub create_contribute: bool,
    /// Adding a poll to a discussion or post (`addons.polls_enabled`; staff always).
    pub create_poll: bool,
    /// Creating a group (groups on; `configurations.groups_only_staff_enabled`).
    pub create_group: bool,
    /// Creating an event (events on; `configurations.events_only_staff_enabled`).
    pub create_event: bool,
    /// Creating a course (`configurations.courses_only_staff_enabled`).
    pub create_course: bool,
    /// Always false: hearth has no live streams.
    pub create_live_stream: bool,
    /// Always false: hearth keeps no location of an item.
    pub locate_post: bool,
    /// As `create_contribute`.
    pub create_post: bool,
    /// As `create_contribute`.
    pub create_post_with_category: bool,
    /// Following members (`configurations.follow_enabled`).
    pub follow_user: bool,
    /// Asking for a connection (`configurations.connection_enabled`).
    pub request_connection: bool,
    /// Accepting one (the same).
    pub accept_connection: bool,
}

impl Permission {
    /// Nothing (a member staff blocked).
    pub const NONE: Permission = Permission {
        create_contribute: false,
        create_poll: false,
        create_group: false,
        create_event: false,
        create_course: false,
        create_live_stream: false,
        locate_post: false,
        create_post: false,
        create_post_with_category: false,
        follow_user: false,
        request_connection: false,
        accept_connection: false,
    };
}

/// The `role` of a user with these staff flags.
pub fn role(is_staff: bool) -> Option<&'static str> {
    is_staff.then_some("admin")
}

/// User Minimal JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = UserMinimal)]
pub struct UserMinimal {
    pub id: i64,
    pub username: String,
    pub real_name: String,
    #[schema(format = "uri")]
    pub avatar: String,
    pub community_badge: bool,
    pub deleted: bool,
}

impl User {
    /// User JSON. `connection_status` is where the caller stands with this user.
    pub fn to_json(
        &self,
        base: &PublicUrl,
        connection_status: Option<&'static str>,
        tags: Vec<Tag>,
    ) -> UserJson {
        UserJson {
            id: self.id,
            username: self.username.clone(),
            real_name: self.real_name.clone(),
            avatar: base.resolve(&self.avatar, DEFAULT_AVATAR),
            ext_id: self.ext_id.clone().unwrap_or_default(),
            followings_counter: self.followings_counter,
            followers_counter: self.followers_counter,
            posts_counter: self.posts_counter,
            discussions_counter: self.discussions_counter,
            polls_counter: self.polls_counter,
            connection_status,
            categories_counter: self.categories_counter,
            connections_counter: self.connections_counter,
            date_joined: rfc3339(self.date_joined),
            bio: self.bio.clone(),
            location: self.location.clone(),
            location_lat_lng: self.location_lat_lng.clone(),
            position_lat_lng: self.position_lat_lng.clone(),
            date_of_birth: self.date_of_birth.clone(),
            description: self.description.clone(),
            gender: self.gender.clone(),
            website: self.website.clone(),
            cover: base.resolve(&self.cover, DEFAULT_COVER),
            tags,
            reputation: self.reputation,
            community_badge: self.community_badge,
            reg_approved: self.reg_approved,
            deleted: self.deleted,
            company_name: self.company_name.clone(),
            company_role: self.company_role.clone(),
            role: role(self.is_staff),
            email: None,
            status: None,
            unseen_interactions_counter: None,
            unseen_notification_banners_counter: None,
            connection_requests_sent_counter: None,
            connection_requests_received_counter: None,
            can_send_pm_to: None,
            permission: None,
        }
    }

    /// User Minimal JSON.
    pub fn minimal(&self, base: &PublicUrl) -> UserMinimal {
        UserMinimal {
            id: self.id,
            username: self.username.clone(),
            real_name: self.real_name.clone(),
            avatar: base.resolve(&self.avatar, DEFAULT_AVATAR),
            community_badge: self.community_badge,
            deleted: self.deleted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        assert!(validate_username("alice").is_ok());
        assert!(validate_username("a.b+c-d_e@f").is_ok());
        assert!(validate_username("jörg").is_ok());
        assert!(validate_username("").is_err());
        assert!(validate_username("has space").is_err());
        assert!(validate_username("semi;colon").is_err());
        assert!(validate_username(&"x".repeat(150)).is_ok());
        assert!(validate_username(&"x".repeat(151)).is_err());
    }

    #[test]
    fn json_field_order_follows_the_seed_table() {
        let base = PublicUrl("http://h".into());
        let u =
            User { id: 1, username: "a".into(), gender: "Unspecified".into(), ..User::default() };
        let s = serde_json::to_string(&u.to_json(&base, None, vec![])).unwrap_or_default();
        let keys: Vec<&str> = s.split("\":").filter_map(|p| p.rsplit('"').next()).collect();
        assert_eq!(&keys[..5], ["id", "username", "real_name", "avatar", "ext_id"]);
        assert!(s.contains(r#""avatar":"http://h/static/default/avatar.svg""#));
        assert!(s.contains(r#""connection_status":null"#));
        assert!(s.contains(r#""date_of_birth":null"#));
        assert!(!s.contains("email") && !s.contains("unseen"));
        assert!(s.contains(r#""role":null"#));
        let staff = User { is_staff: true, ..u };
        let s = serde_json::to_string(&staff.to_json(&base, None, vec![])).unwrap_or_default();
        assert!(s.contains(r#""role":"admin""#));
    }
}

//! The NDJSON import format (SPEC §2): one JSON object per line, its kind under
//! `"record"`. These types are what a line may hold; `db::import` writes them.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;

pub use super::custom_import::{CustomAdvLine, CustomPageLine};
pub use super::event_import::{EVENT_FIELDS, EventLine, EventMemberLine};
pub use super::poll_import::{ImportedPoll, PollVoteLine};
pub use super::tag::{TagLine, UserTagLine};
pub use super::user_provider::UserProviderLine;

use super::course::{CourseType, JoinStatus, Privacy};
use crate::clock::{Timestamp, parse_rfc3339};

/// One line of an import file.
#[derive(Debug, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Line {
    /// A user.
    User(Box<UserLine>),
    /// A follow edge.
    Follow(FollowLine),
    /// A category.
    Category(CategoryLine),
    /// A reaction (an existing id is replaced).
    Reaction(ReactionLine),
    /// A value for an existing preference.
    Preference(PreferenceLine),
    /// A course; `created_by` becomes its creator member.
    Course(Box<CourseLine>),
    /// A course membership.
    CourseMember(CourseMemberLine),
    /// A discussion.
    Discussion(ContributionLine),
    /// A post.
    Post(ContributionLine),
    /// A status.
    Status(ContributionLine),
    /// A comment.
    Comment(CommentLine),
    /// A vote: a user's reaction to a contribution.
    Vote(VoteLine),
    /// A user following a category.
    CategoryFollow(CategoryFollowLine),
    /// A connection (friendship) between two users.
    Connection(ConnectionLine),
    /// An open connection request.
    ConnectionRequest(ConnectionRequestLine),
    /// A member's flag on a contribution.
    Flag(FlagLine),
    /// A member following a discussion, post or status.
    ItemFollow(ItemFollowLine),
    /// A revision of the terms or the privacy policy.
    LegalPage(LegalPageLine),
    /// A member's answer to a legal page revision.
    LegalAck(LegalAckLine),
    /// A private message between two users.
    PrivateMessage(PrivateMessageLine),
    /// A group (SPEC §10 Groups); `created_by` becomes its creator member.
    Group(GroupLine),
    /// A group membership (the course members' statuses).
    GroupMember(GroupMemberLine),
    /// An event (SPEC §10 Events); `created_by` becomes its creator member, going.
    Event(EventLine),
    /// An event membership (the course members' statuses) with its answer.
    EventMember(EventMemberLine),
    /// A member's vote for a choice of a discussion's or post's poll.
    PollVote(PollVoteLine),
    /// A user tag (SPEC §10 People).
    Tag(TagLine),
    /// A user holding a tag.
    UserTag(UserTagLine),
    /// An identity elsewhere linked to a user (issue 32).
    UserProvider(UserProviderLine),
    /// A custom adv (SPEC §10), its embed code through the sanitizer.
    CustomAdv(CustomAdvLine),
    /// A custom page (SPEC §10), its body through the sanitizer.
    CustomPage(CustomPageLine),
}

impl Line {
    /// The id the line gives its record, for the records that carry one.
    pub fn own_id(&self) -> Option<i64> {
        match self {
            Line::User(u) => Some(u.id),
            Line::Category(c) => Some(c.id),
            Line::Reaction(r) => Some(r.id),
            Line::Course(c) => Some(c.id),
            Line::Discussion(d) | Line::Post(d) | Line::Status(d) => Some(d.id),
            Line::Comment(c) => Some(c.id),
            Line::LegalPage(p) => Some(p.id),
            Line::Group(g) => Some(g.id),
            Line::Event(e) => Some(e.id),
            Line::Tag(t) => Some(t.id),
            Line::CustomAdv(a) => Some(a.id),
            Line::CustomPage(p) => Some(p.id),
            _ => None,
        }
    }
}

/// `{"record":"user", ...}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserLine {
    pub id: i64,
    pub username: String,
    pub email: Option<String>,
    #[serde(default)]
    pub real_name: String,
    /// A Django-format hash, or absent for no password.
    pub password: Option<String>,
    #[serde(default)]
    pub is_staff: bool,
    pub ext_id: Option<Value>,
    #[serde(default, deserialize_with = "time")]
    pub date_joined: Option<Timestamp>,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub avatar: String,
    #[serde(default)]
    pub cover: String,
    #[serde(default)]
    pub bio: String,
    #[serde(default)]
    pub location: String,
    pub location_lat_lng: Option<String>,
    pub position_lat_lng: Option<String>,
    pub date_of_birth: Option<String>,
    #[serde(default)]
    pub description: String,
    pub gender: Option<String>,
    #[serde(default)]
    pub website: String,
    #[serde(default)]
    pub reputation: i64,
    #[serde(default)]
    pub community_badge: bool,
    pub reg_approved: Option<bool>,
    #[serde(default)]
    pub company_name: String,
    #[serde(default)]
    pub company_role: String,
}

/// `{"record":"follow","follower":1,"followed":2}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowLine {
    pub follower: i64,
    pub followed: i64,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

/// `{"record":"category","id":1,"name":"..."}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryLine {
    pub id: i64,
    pub name: String,
    pub slug: Option<String>,
}

/// `{"record":"reaction","id":7,"label":"clap","sentiment":1}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReactionLine {
    pub id: i64,
    pub label: String,
    pub sentiment: i64,
    pub image: Option<String>,
    #[serde(default = "yes")]
    pub active: bool,
}

/// `{"record":"preference","section":"...","name":"...","value":...}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreferenceLine {
    pub section: String,
    pub name: String,
    pub value: Value,
}

/// `{"record":"course", ...}`: the writable Course fields.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CourseLine {
    pub id: i64,
    pub created_by: i64,
    pub name: String,
    pub slug: Option<String>,
    #[serde(default)]
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub privacy: String,
    #[serde(default)]
    pub enforce_lessons_order: bool,
    #[serde(default = "yes")]
    pub new_comment_notification_enabled: bool,
    #[serde(default)]
    pub hide_member_count: bool,
    #[serde(default)]
    pub meta_title: String,
    #[serde(default)]
    pub meta_description: String,
    #[serde(default)]
    pub og_title: String,
    #[serde(default)]
    pub og_description: String,
    #[serde(default)]
    pub og_image: String,
    #[serde(default)]
    pub categories: Vec<i64>,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
    #[serde(default)]
    pub deleted: bool,
}

impl CourseLine {
    /// The line's `type` and `privacy`, or the importer's message about the first of
    /// them that is not one of its choices.
    pub fn choices(&self) -> Result<(CourseType, Privacy), String> {
        let kind = CourseType::parse(&self.kind).map_err(|_| {
            format!("type {:?} is not self-paced, structured or scheduled", self.kind)
        })?;
        let privacy = Privacy::parse(&self.privacy).map_err(|_| {
            format!("privacy {:?} is not \"\", open, private or secret", self.privacy)
        })?;
        Ok((kind, privacy))
    }
}

/// `{"record":"course_member","course":1,"user":2,"join_status":"joined"}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CourseMemberLine {
    pub course: i64,
    pub user: i64,
    pub join_status: String,
}

impl CourseMemberLine {
    /// The line's `join_status`, or the importer's message when it is not one (a
    /// `creator` line is accepted here: the creator's own is checked against the
    /// course).
    pub fn status(&self) -> Result<JoinStatus, String> {
        JoinStatus::parse(&self.join_status).map_err(|_| {
            format!(
                "join_status {:?} is not one of manager, joined, invited, requested",
                self.join_status
            )
        })
    }
}

/// A discussion, post or status.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContributionLine {
    pub id: i64,
    pub author: i64,
    #[serde(default)]
    pub text: String,
    pub title: Option<String>,
    pub action: Option<String>,
    #[serde(default)]
    pub categories: Vec<i64>,
    #[serde(default, deserialize_with = "time")]
    pub added_at: Option<Timestamp>,
    #[serde(default)]
    pub deleted: bool,
    /// Discussions and posts: the group it was made in.
    pub group: Option<i64>,
    /// Discussions and posts: the event it was made in (not with `group`).
    pub event: Option<i64>,
    /// Discussions and posts made in no group or event: the tags it is addressed to
    /// (tags of earlier lines); only their holders, its author and staff see it.
    #[serde(default)]
    pub addressing: Vec<i64>,
    /// Discussions and posts: their poll ([`ImportedPoll`]).
    pub poll: Option<Value>,
}

/// `{"record":"group","id":1,"name":"Hikers","created_by":1}`: optional `description`,
/// `privacy` (`public`, the default, or `private`), `visible` (default true), `color`,
/// `created_at`, `deleted`. The slug comes from the name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupLine {
    pub id: i64,
    pub name: String,
    pub created_by: i64,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub color: String,
    pub privacy: Option<String>,
    pub visible: Option<bool>,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
    #[serde(default)]
    pub deleted: bool,
}

/// `{"record":"group_member","group":1,"user":2,"join_status":"joined"}` (`manager`:
/// an admin; `invited`, `requested`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupMemberLine {
    pub group: i64,
    pub user: i64,
    pub join_status: String,
}

/// A comment: exactly one of `discussion`, `post`, `status`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommentLine {
    pub id: i64,
    pub author: i64,
    #[serde(default)]
    pub text: String,
    pub discussion: Option<i64>,
    pub post: Option<i64>,
    pub status: Option<i64>,
    pub parent: Option<i64>,
    #[serde(default, deserialize_with = "time")]
    pub added_at: Option<Timestamp>,
    #[serde(default)]
    pub deleted: bool,
}

/// `{"record":"vote","user":2,"reaction":1,"post":7}`: exactly one of `discussion`,
/// `post`, `status`, `comment`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteLine {
    pub user: i64,
    pub reaction: i64,
    pub discussion: Option<i64>,
    pub post: Option<i64>,
    pub status: Option<i64>,
    pub comment: Option<i64>,
    #[serde(default, deserialize_with = "time")]
    pub voted_at: Option<Timestamp>,
}

impl CommentLine {
    /// What the comment is on: `(kind, id)`.
    pub fn target(&self) -> Result<(&'static str, i64), String> {
        exactly_one(
            "a comment",
            [("discussion", self.discussion), ("post", self.post), ("status", self.status)],
        )
    }
}

/// `{"record":"flag","user":3,"post":1,"flag_type":0}`: a member's flag on one of
/// `discussion`, `post`, `status`, `comment`, for a reason 0–4.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagLine {
    pub user: i64,
    pub flag_type: i64,
    pub discussion: Option<i64>,
    pub post: Option<i64>,
    pub status: Option<i64>,
    pub comment: Option<i64>,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

/// `{"record":"item_follow","user":3,"post":1}`: a member following one of `discussion`,
/// `post`, `status` (told of new comments on it).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemFollowLine {
    pub user: i64,
    pub discussion: Option<i64>,
    pub post: Option<i64>,
    pub status: Option<i64>,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

impl ItemFollowLine {
    /// What is followed: `(kind, id)`.
    pub fn target(&self) -> Result<(&'static str, i64), String> {
        exactly_one(
            "a follow",
            [("discussion", self.discussion), ("post", self.post), ("status", self.status)],
        )
    }
}

/// `{"record":"legal_page","id":1,"policy":"tec","title":"Terms","body":"<p>...</p>"}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegalPageLine {
    pub id: i64,
    pub policy: String,
    pub title: String,
    pub body: String,
    #[serde(default, deserialize_with = "time")]
    pub valid_from: Option<Timestamp>,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

/// `{"record":"legal_ack","user":3,"page":1,"accepted_at":"..."}`: exactly one of
/// `accepted_at`, `not_accepted_at`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegalAckLine {
    pub user: i64,
    pub page: i64,
    #[serde(default, deserialize_with = "time")]
    pub accepted_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "time")]
    pub not_accepted_at: Option<Timestamp>,
}

impl FlagLine {
    /// What the flag is on: `(kind, id)`.
    pub fn target(&self) -> Result<(&'static str, i64), String> {
        item("a flag", [self.discussion, self.post, self.status, self.comment])
    }
}

impl VoteLine {
    /// What the vote is on: `(kind, id)`.
    pub fn target(&self) -> Result<(&'static str, i64), String> {
        item("a vote", [self.discussion, self.post, self.status, self.comment])
    }
}

/// The one of a line's discussion, post, status and comment ids that is set.
fn item(what: &str, [d, p, s, c]: [Option<i64>; 4]) -> Result<(&'static str, i64), String> {
    exactly_one(what, [("discussion", d), ("post", p), ("status", s), ("comment", c)])
}

/// The one field of `fields` that is set, or the error naming them all.
fn exactly_one<const N: usize>(
    what: &str,
    fields: [(&'static str, Option<i64>); N],
) -> Result<(&'static str, i64), String> {
    let set: Vec<(&'static str, i64)> =
        fields.iter().filter_map(|&(k, id)| id.map(|id| (k, id))).collect();
    match set[..] {
        [one] => Ok(one),
        _ => {
            let names: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
            Err(format!("{what} needs exactly one of {}", names.join(", ")))
        }
    }
}

/// `{"record":"category_follow","user":2,"category":1}`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryFollowLine {
    pub user: i64,
    pub category: i64,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

/// `{"record":"connection","user":1,"other":2}`: the two users are connected (one line
/// for both sides).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionLine {
    pub user: i64,
    pub other: i64,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

/// `{"record":"connection_request","from_user":1,"to_user":2}`: an open request,
/// optionally rejected or seen by its receiver.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionRequestLine {
    pub from_user: i64,
    pub to_user: i64,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "time")]
    pub rejected_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "time")]
    pub viewed_at: Option<Timestamp>,
}

/// `{"record":"private_message","sender":1,"receiver":2,"message":"hi"}`: a message in
/// the two users' thread (made with the first), read by its receiver unless `read` is
/// false; optional `created_at`. With `"group": 3` instead of `receiver`, a message in
/// that group's thread, read by every member unless `read` is false (then unread for
/// each until they read the thread). The text is rich text, rendered as the API renders
/// it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivateMessageLine {
    pub sender: i64,
    #[serde(default)]
    pub receiver: Option<i64>,
    #[serde(default)]
    pub group: Option<i64>,
    pub message: String,
    #[serde(default = "yes")]
    pub read: bool,
    #[serde(default, deserialize_with = "time")]
    pub created_at: Option<Timestamp>,
}

fn yes() -> bool {
    true
}

/// Reads an optional RFC 3339 time as a [`Timestamp`], without copying the string
/// (this runs on the import's parsing thread, once per follow).
pub(super) fn time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    struct Time;
    impl<'de> Visitor<'de> for Time {
        type Value = Option<Timestamp>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an RFC 3339 time")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            parse_rfc3339(s)
                .map(Some)
                .ok_or_else(|| E::custom(format!("{s:?} is not an RFC 3339 time")))
        }
    }
    d.deserialize_option(Time)
}

/// Parses one line; the error says what is wrong in the words of the format.
pub fn parse(line: &str) -> Result<Line, String> {
    serde_json::from_str(line).map_err(|e| {
        let msg = e.to_string();
        if msg.contains("unknown variant") {
            format!("unknown record kind ({msg})")
        } else if msg.contains("missing field `record`") {
            "missing \"record\"".to_owned()
        } else {
            msg
        }
    })
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;

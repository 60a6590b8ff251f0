//! Feed units (SPEC §10, `SCFeedUnitType` of `@selfcommunity/types`): an item of a
//! feed, with whether the caller has seen it since its last activity and its latest
//! activities (`SCFeedUnitActivityType`).

use serde::Serialize;

use super::PublicUrl;
use super::contribution::{Contribution, ContributionJson, Kind};
use super::user::{User, UserMinimal};
use crate::clock::{Timestamp, rfc3339};

/// What happened on an item.
#[derive(Debug, Clone, PartialEq)]
pub enum What {
    /// A live comment (or reply) on the item.
    Comment(Box<Contribution>),
    /// A vote on the item.
    Vote,
}

/// One activity on an item: what, by whom, when.
#[derive(Debug, Clone, PartialEq)]
pub struct Activity {
    pub what: What,
    pub author: User,
    pub at: Timestamp,
}

/// A feed unit as stored: the item, seen or not, its activities.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub item: Contribution,
    pub seen: bool,
    pub activities: Vec<Activity>,
}

/// `SCFeedUnitType`: the item under its type's name (`discussion`, `post` or `status`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = FeedUnit)]
pub struct UnitJson {
    /// discussion, post or status
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discussion: Option<ContributionJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post: Option<ContributionJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ContributionJson>,
    /// Whether the caller marked it read (`POST /api/v2/feed/read/`) since its last
    /// activity; false for anonymous callers
    pub seen: bool,
    /// hearth has no boosts
    pub has_boost: bool,
    /// Its newest comments and votes, newest first (at most 5)
    pub activities: Vec<ActivityJson>,
}

/// `SCFeedUnitActivityType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = FeedActivity)]
pub struct ActivityJson {
    /// comment or vote
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The comment, for a comment activity
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<ContributionJson>,
    pub author: UserMinimal,
    #[schema(format = DateTime)]
    pub active_at: String,
    /// Whether the caller has seen the item since this activity
    pub seen: bool,
}

impl Unit {
    /// The unit's JSON at `now`.
    pub fn to_json(&self, base: &PublicUrl, now: Timestamp) -> UnitJson {
        let item = self.item.to_json(base, now);
        let under = |k: Kind| (self.item.kind == k).then(|| item.clone());
        UnitJson {
            kind: self.item.kind.as_str(),
            discussion: under(Kind::Discussion),
            post: under(Kind::Post),
            status: under(Kind::Status),
            seen: self.seen,
            has_boost: false,
            activities: self
                .activities
                .iter()
                .map(|a| ActivityJson {
                    kind: match a.what {
                        What::Comment(_) => "comment",
                        What::Vote => "vote",
                    },
                    comment: match &a.what {
                        What::Comment(c) => Some(c.to_json(base, now)),
                        What::Vote => None,
                    },
                    author: a.author.minimal(base),
                    active_at: rfc3339(a.at),
                    seen: self.seen,
                })
                .collect(),
        }
    }
}

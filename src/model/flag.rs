//! Flags and moderation (SPEC §10 People): the five reasons a member flags a
//! contribution for and a moderator decides for (the kit's `SCFlagTypeEnum`), and the
//! state of a contribution under moderation (`SCContributeStatusType`).

use serde::Serialize;

/// Why a contribution is flagged, or was moderated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    Spam,
    Aggressive,
    Vulgar,
    Poor,
    Offtopic,
}

impl Reason {
    /// Every reason, by its number.
    pub const ALL: [Reason; 5] =
        [Reason::Spam, Reason::Aggressive, Reason::Vulgar, Reason::Poor, Reason::Offtopic];

    /// The reason numbered `n` (0 spam … 4 off-topic).
    pub fn from_number(n: i64) -> Option<Reason> {
        usize::try_from(n).ok().and_then(|i| Reason::ALL.get(i).copied())
    }

    /// Its number (`flag_type`).
    pub fn number(self) -> i64 {
        match self {
            Reason::Spam => 0,
            Reason::Aggressive => 1,
            Reason::Vulgar => 2,
            Reason::Poor => 3,
            Reason::Offtopic => 4,
        }
    }

    /// What the kit shows for it (`flag_type_description`).
    pub const fn description(self) -> &'static str {
        match self {
            Reason::Spam => "Spam",
            Reason::Aggressive => "Aggressive",
            Reason::Vulgar => "Vulgar",
            Reason::Poor => "Poor content",
            Reason::Offtopic => "Off-topic",
        }
    }
}

/// Where a contribution stands with the moderators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// No decision (flagged or not).
    Open,
    /// Its flags were looked at and dismissed.
    Ignored,
    /// Collapsed by a moderator.
    Hidden,
    /// Deleted by a moderator.
    Deleted,
}

impl Status {
    /// Its name in the table and in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Ignored => "ignored",
            Status::Hidden => "hidden",
            Status::Deleted => "deleted",
        }
    }

    /// The status named `s`.
    pub fn parse(s: &str) -> Option<Status> {
        [Status::Open, Status::Ignored, Status::Hidden, Status::Deleted]
            .into_iter()
            .find(|t| t.as_str() == s)
    }
}

/// A caller's flag on a contribution, or a contribution's moderation state, as JSON:
/// `{"flag_type": N|null, "flag_type_description": ...}` (with `status` for moderation).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FlagStatusJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    pub flag_type: Option<i64>,
    pub flag_type_description: Option<&'static str>,
}

impl FlagStatusJson {
    /// The JSON of a reason (none: nulls), with a moderation status or not.
    pub fn of(status: Option<Status>, reason: Option<Reason>) -> FlagStatusJson {
        FlagStatusJson {
            status: status.map(Status::as_str),
            flag_type: reason.map(Reason::number),
            flag_type_description: reason.map(Reason::description),
        }
    }
}

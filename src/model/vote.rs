//! Votes (SPEC §8): a reaction a user applied to a contribution, and what a
//! contribution shows of them.

use serde::Serialize;

use super::PublicUrl;
use super::reaction::{Reaction, ReactionJson};
use super::user::UserJson;

/// The id of the reaction a vote without one uses (`like`).
pub const DEFAULT_REACTION: i64 = 1;

/// What a contribution shows of its votes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Votes {
    /// Each reaction with live votes and how many, by count descending then reaction id.
    pub tally: Vec<(Reaction, i64)>,
    /// The caller's reaction, if the caller voted.
    pub mine: Option<Reaction>,
}

impl Votes {
    /// Every vote counted.
    pub fn count(&self) -> i64 {
        self.tally.iter().map(|(_, n)| n).sum()
    }

    /// `reactions_count`.
    pub fn reactions_count(&self, base: &PublicUrl) -> Vec<ReactionCount> {
        self.tally
            .iter()
            .map(|(r, n)| ReactionCount { reaction: reaction_json(base, r), count: *n })
            .collect()
    }
}

/// An item of `reactions_count`: `{"reaction": Reaction, "count": n}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = ReactionCount)]
pub struct ReactionCount {
    pub reaction: ReactionJson,
    pub count: i64,
}

/// An item of the vote list: `{"user": User, "reaction": Reaction, "voted_at"}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Vote)]
pub struct VoteJson {
    pub user: UserJson,
    pub reaction: ReactionJson,
    pub voted_at: String,
}

/// The JSON of a stored reaction.
pub fn reaction_json(base: &PublicUrl, r: &Reaction) -> ReactionJson {
    ReactionJson::new(base, r.id, r.label.clone(), r.sentiment, r.image.as_deref(), r.active)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reaction(id: i64, label: &str) -> Reaction {
        Reaction { id, label: label.into(), sentiment: 1, image: None, active: true }
    }

    #[test]
    fn counts_add_up() {
        let base = PublicUrl("http://h".into());
        let v =
            Votes { tally: vec![(reaction(2, "love"), 3), (reaction(1, "like"), 3)], mine: None };
        assert_eq!(v.count(), 6);
        let rc = v.reactions_count(&base);
        assert_eq!(
            rc.iter().map(|c| (c.reaction.id, c.count)).collect::<Vec<_>>(),
            [(2, 3), (1, 3)]
        );
        assert_eq!(Votes::default().count(), 0);
    }
}

//! What narrows an event list ([`Scope`], [`Filters`]): the lists' parameters, shared
//! by the walk over every row ([`super::list`]) and the kept order's ([`super::order`]).

use jiff::tz::TimeZone;

use crate::model::event::{JoinStatus, Location};
use crate::model::event_time::DateFilter;

/// Whose events a list walks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every event the viewer may list.
    All,
    /// Those in which `user` has one of `statuses` (and, with `going`, gave that
    /// answer).
    MemberOf { user: i64, statuses: Vec<JoinStatus>, going: Option<bool> },
    /// Those the viewer is not in at all (suggestions).
    NotIn,
}

/// What narrows a list.
#[derive(Debug, Clone)]
pub struct Filters {
    /// In the name or the description (case-insensitively).
    pub text: Option<String>,
    pub location: Option<Location>,
    pub created_by: Option<i64>,
    /// Only events that a user the viewer follows is a member of.
    pub follows: bool,
    pub date: Option<DateFilter>,
    /// The zone the date filter counts days in.
    pub zone: TimeZone,
    /// An event left out (an event's related events).
    pub except: Option<i64>,
}

impl Default for Filters {
    fn default() -> Self {
        Filters {
            text: None,
            location: None,
            created_by: None,
            follows: false,
            date: None,
            zone: TimeZone::UTC,
            except: None,
        }
    }
}

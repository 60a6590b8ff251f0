//! Events (SPEC §10 "Groups, events and private messages"; the kit's `SCEventType`):
//! the stored record, its JSON, and the body it is written with. Memberships are the
//! course and group statuses ([`JoinStatus`]) with a member's answer (going or not),
//! shown as the kit's [`EventStatus`]; times are [`super::event_time`].

use serde::Serialize;
use serde_json::Value;

use super::PublicUrl;
pub use super::course_enums::{
    EventStatus, GroupPrivacy as EventPrivacy, JoinStatus, Location, Recurrence,
};
pub use super::event_input::EventInput;
use super::event_time::{self, Schedule};
use super::user::UserMinimal;
use crate::clock::{Timestamp, rfc3339};

/// The default image of an event without one, served by hearth.
pub const DEFAULT_IMAGE: &str = "/static/default/cover.svg";
/// Longest name, in characters (the kit's `EVENT_TITLE_MAX_LENGTH`).
pub const NAME_MAX: usize = 50;
/// Longest description, in characters (the kit's `EVENT_DESCRIPTION_MAX_LENGTH`).
pub const DESCRIPTION_MAX: usize = 500;
/// Longest `geolocation` (an address), in characters.
pub const PLACE_MAX: usize = 500;
/// Longest `color`.
pub const COLOR_MAX: usize = 16;
/// The image field of an event form.
pub const IMAGE_FIELD: &str = "image_original";

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub description: String,
    pub color: String,
    pub privacy: EventPrivacy,
    pub visible: bool,
    /// The first occurrence, UTC.
    pub start_at: Timestamp,
    pub end_at: Timestamp,
    /// The IANA zone it was planned in (recurrences keep its wall-clock time).
    pub timezone: String,
    pub recurring: Recurrence,
    pub location: Location,
    pub geolocation: Option<String>,
    pub geolocation_lat: Option<f64>,
    pub geolocation_lng: Option<f64>,
    pub link: Option<String>,
    /// Media path of the image's squares with `{side}` left out; `None`: the default.
    pub image_key: Option<String>,
    pub show_on_feed: bool,
    pub created_at: Timestamp,
    pub created_by: i64,
    pub deleted: bool,
    pub subscribers_counter: i64,
    pub goings_counter: i64,
}

impl Event {
    /// A new event of `creator` (id 0 until stored; times set by its body).
    pub fn new(creator: i64, now: Timestamp) -> Self {
        Event {
            id: 0,
            name: String::new(),
            slug: String::new(),
            description: String::new(),
            color: String::new(),
            privacy: EventPrivacy::Public,
            visible: true,
            start_at: 0,
            end_at: 0,
            timezone: "UTC".into(),
            recurring: Recurrence::Never,
            location: Location::Person,
            geolocation: None,
            geolocation_lat: None,
            geolocation_lng: None,
            link: None,
            image_key: None,
            show_on_feed: true,
            created_at: now,
            created_by: creator,
            deleted: false,
            subscribers_counter: 0,
            goings_counter: 0,
        }
    }

    /// When it happens (a stored zone that the database no longer knows reads as UTC).
    pub fn schedule(&self) -> Schedule {
        Schedule {
            start: self.start_at,
            end: self.end_at,
            zone: event_time::zone(&self.timezone).unwrap_or(jiff::tz::TimeZone::UTC),
            recurring: self.recurring,
        }
    }

    /// The event's JSON at `now` for a caller whose membership is `status` (with its
    /// answer), `creator` its creator (also its admin, `managed_by`).
    pub fn to_json(
        &self,
        base: &PublicUrl,
        now: Timestamp,
        status: Option<(JoinStatus, Option<bool>)>,
        creator: UserMinimal,
    ) -> EventJson {
        let url = |side: u32| match &self.image_key {
            Some(k) => base.at(&format!("/media/{}", super::course::media_path(k, side))),
            None => base.at(DEFAULT_IMAGE),
        };
        let schedule = self.schedule();
        let running = schedule.running_at(now);
        let next = schedule.next_after(now);
        EventJson {
            id: self.id,
            name: self.name.clone(),
            description: self.description.clone(),
            slug: self.slug.clone(),
            color: self.color.clone(),
            privacy: self.privacy,
            visible: self.visible,
            active: !self.deleted,
            show_on_feed: self.show_on_feed,
            subscription_status: status.map(|(s, g)| EventStatus::of(s, g)),
            image_bigger: url(600),
            image_big: url(400),
            image_medium: url(200),
            image_small: url(100),
            subscribers_counter: self.subscribers_counter,
            goings_counter: self.goings_counter,
            start_date: rfc3339(self.start_at),
            end_date: Some(rfc3339(self.end_at)),
            timezone: self.timezone.clone(),
            running: running.is_some(),
            running_start_date: running.map(|o| rfc3339(o.0)),
            running_end_date: running.map(|o| rfc3339(o.1)),
            next_start_date: next.map(|o| rfc3339(o.0)),
            next_end_date: next.map(|o| rfc3339(o.1)),
            recurring: self.recurring,
            location: self.location,
            geolocation: self.geolocation.clone(),
            geolocation_lat: self.geolocation_lat,
            geolocation_lng: self.geolocation_lng,
            link: self.link.clone(),
            created_at: rfc3339(self.created_at),
            managed_by: creator.clone(),
            created_by: creator,
            paywalls: Vec::new(),
        }
    }
}

/// An event as one caller sees it beside something else (a notification about it):
/// the record, the caller's status and answer, its creator.
#[derive(Debug, Clone, PartialEq)]
pub struct EventSeen {
    pub event: Event,
    pub status: Option<(JoinStatus, Option<bool>)>,
    pub creator: super::user::User,
}

impl EventSeen {
    /// Its JSON at `now`.
    pub fn to_json(&self, base: &PublicUrl, now: Timestamp) -> EventJson {
        self.event.to_json(base, now, self.status, self.creator.minimal(base))
    }
}

/// Event JSON (`SCEventType`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Event)]
pub struct EventJson {
    pub id: i64,
    pub name: String,
    /// Plain text (the kit shows it as text)
    pub description: String,
    pub slug: String,
    pub color: String,
    pub privacy: EventPrivacy,
    /// Whether a private event is listed and seen by users who are not its members
    /// (a public event always is)
    pub visible: bool,
    /// Always true: a deleted event is not shown
    pub active: bool,
    /// False once its creator hid it (`POST hide/`): it leaves the lists and search of
    /// everyone but its members
    pub show_on_feed: bool,
    /// The caller's membership: going, not_going, subscribed (a member who has not
    /// answered), requested, invited; null for none or an anonymous caller
    pub subscription_status: Option<EventStatus>,
    /// 600×600 center-cropped square of the image under /media/; the default image
    /// /static/default/cover.svg when there is none
    #[schema(format = "uri")]
    pub image_bigger: String,
    #[schema(format = "uri")]
    pub image_big: String,
    #[schema(format = "uri")]
    pub image_medium: String,
    #[schema(format = "uri")]
    pub image_small: String,
    /// Members: the creator, admins and subscribed members
    pub subscribers_counter: i64,
    /// Members going
    pub goings_counter: i64,
    /// The first occurrence's start, UTC
    #[schema(format = DateTime)]
    pub start_date: String,
    #[schema(format = DateTime)]
    pub end_date: Option<String>,
    /// The IANA time zone the event was planned in (`UTC` unless the body named one):
    /// recurrences keep its wall-clock time
    pub timezone: String,
    /// Whether an occurrence is under way now
    pub running: bool,
    /// The occurrence under way, null when none is
    #[schema(format = DateTime)]
    pub running_start_date: Option<String>,
    #[schema(format = DateTime)]
    pub running_end_date: Option<String>,
    /// The next occurrence to start, null when there is none (a single event that has
    /// started)
    #[schema(format = DateTime)]
    pub next_start_date: Option<String>,
    #[schema(format = DateTime)]
    pub next_end_date: Option<String>,
    pub recurring: Recurrence,
    pub location: Location,
    /// The place of an event in person (plain text)
    pub geolocation: Option<String>,
    pub geolocation_lat: Option<f64>,
    pub geolocation_lng: Option<f64>,
    /// The link of an online event
    pub link: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub created_by: UserMinimal,
    /// The event's admin: its creator
    pub managed_by: UserMinimal,
    /// Always empty: hearth has no payments
    pub paywalls: Vec<Value>,
}

//! Events (SPEC §10 "Groups, events and private messages"; the kit's `SCEventType`):
//! the stored record, its JSON, and the body it is written with. Memberships are the
//! course and group statuses ([`JoinStatus`]) with a member's answer (going or not),
//! shown as the kit's [`EventStatus`]; times are [`super::event_time`].

use serde::Serialize;
use serde_json::{Map, Value};

use super::PublicUrl;
pub use super::course_enums::{
    EventStatus, GroupPrivacy as EventPrivacy, JoinStatus, Location, Recurrence,
};
use super::event_time::{self, Schedule};
use super::field::FieldError;
use super::group::{boolean, clears_image, invite_list, text, too_long};
use super::user::UserMinimal;
use crate::clock::{Timestamp, parse_rfc3339, rfc3339};

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

/// The writable fields of an event body (JSON, or the kit's multipart form as text);
/// `None` means "not in the body".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventInput {
    pub name: Option<String>,
    pub description: Option<String>,
    pub color: Option<String>,
    pub privacy: Option<EventPrivacy>,
    pub visible: Option<bool>,
    pub start_at: Option<Timestamp>,
    pub end_at: Option<Timestamp>,
    pub timezone: Option<String>,
    pub recurring: Option<Recurrence>,
    pub location: Option<Location>,
    /// `Some(None)`: cleared (an empty field).
    pub geolocation: Option<Option<String>>,
    pub geolocation_lat: Option<Option<f64>>,
    pub geolocation_lng: Option<Option<f64>>,
    pub link: Option<Option<String>>,
    /// `invite_users` (create only): users to invite.
    pub invite_users: Option<Vec<i64>>,
    /// `image_original: null` (or an empty form field): back to the default image.
    pub clear_image: bool,
}

/// An optional text field where empty (or null) clears it.
fn optional_text(
    map: &Map<String, Value>,
    field: &'static str,
    max: usize,
    e: &mut Vec<FieldError>,
) -> Option<Option<String>> {
    match map.get(field)? {
        Value::Null => Some(None),
        Value::String(s) if s.trim().is_empty() || s == "null" => Some(None),
        Value::String(s) if s.chars().count() > max => {
            e.push(too_long(field, max));
            None
        }
        Value::String(s) => Some(Some(s.trim().to_owned())),
        _ => {
            e.push(FieldError::new(field, "invalid", "Not a valid string."));
            None
        }
    }
}

/// A coordinate within ±`max` degrees (empty or null clears it).
fn coordinate(
    map: &Map<String, Value>,
    field: &'static str,
    max: f64,
    e: &mut Vec<FieldError>,
) -> Option<Option<f64>> {
    let v = match map.get(field)? {
        Value::Null => return Some(None),
        Value::String(s) if s.trim().is_empty() || s == "null" => return Some(None),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    match v {
        Some(v) if v.is_finite() && v.abs() <= max => Some(Some(v)),
        Some(v) if v.is_finite() => {
            let (code, bound) = if v > 0.0 { ("max_value", max) } else { ("min_value", -max) };
            e.push(FieldError::new(field, code, format!("Ensure this value is within {bound}.")));
            None
        }
        _ => {
            e.push(FieldError::new(field, "invalid", "A valid number is required."));
            None
        }
    }
}

/// A date-time field (RFC 3339 with an offset, as the kit's `toISOString()` sends).
fn date(
    map: &Map<String, Value>,
    field: &'static str,
    e: &mut Vec<FieldError>,
) -> Option<Timestamp> {
    let s = text(map, field, e)?;
    let t = parse_rfc3339(s.trim());
    if t.is_none() {
        e.push(FieldError::new(
            field,
            "invalid",
            "Datetime has wrong format. Use RFC 3339: YYYY-MM-DDThh:mm[:ss[.uuuuuu]] with Z or an offset.",
        ));
    }
    t
}

/// A choice field through its enum's `parse`.
fn choice<T>(
    map: &Map<String, Value>,
    field: &'static str,
    parse: fn(&str) -> Result<T, String>,
    e: &mut Vec<FieldError>,
) -> Option<T> {
    let s = text(map, field, e)?;
    parse(&s).map_err(|m| e.push(FieldError::new(field, "invalid_choice", m))).ok()
}

impl EventInput {
    /// Reads a body with every rule that needs no database: lengths, choices, dates
    /// and the zone, the place or link a location needs; `name`, `start_date`,
    /// `end_date`, `recurring` and `location` required when `full` (create and PUT).
    /// Read-only and unknown fields (`products`, `live_stream_settings`...) are ignored.
    pub fn parse(map: &Map<String, Value>, full: bool) -> (EventInput, Vec<FieldError>) {
        let mut e = Vec::new();
        let name = text(map, "name", &mut e).map(|s| s.trim().to_owned());
        let timezone = text(map, "timezone", &mut e).map(|s| s.trim().to_owned());
        let mut input = EventInput {
            name,
            description: text(map, "description", &mut e),
            color: text(map, "color", &mut e).map(|s| s.trim().to_owned()),
            privacy: choice(map, "privacy", EventPrivacy::parse, &mut e),
            visible: boolean(map, "visible", &mut e),
            start_at: date(map, "start_date", &mut e),
            end_at: date(map, "end_date", &mut e),
            timezone: None,
            recurring: choice(map, "recurring", Recurrence::parse, &mut e),
            location: choice(map, "location", Location::parse, &mut e),
            geolocation: optional_text(map, "geolocation", PLACE_MAX, &mut e),
            geolocation_lat: coordinate(map, "geolocation_lat", 90.0, &mut e),
            geolocation_lng: coordinate(map, "geolocation_lng", 180.0, &mut e),
            link: optional_text(map, "link", super::link::LINK_MAX, &mut e),
            invite_users: invite_list(map, &mut e),
            clear_image: clears_image(map, IMAGE_FIELD, &mut e),
        };
        match timezone {
            Some(z) if event_time::zone(&z).is_some() => input.timezone = Some(z),
            Some(_) => e.push(FieldError::new(
                "timezone",
                "invalid",
                "Not a known time zone: give an IANA name such as Europe/Rome, or UTC.",
            )),
            None => {}
        }
        match &input.name {
            Some(n) if n.is_empty() => {
                e.push(FieldError::new("name", "required", "This field may not be blank."));
            }
            Some(n) if n.chars().count() > NAME_MAX => e.push(too_long("name", NAME_MAX)),
            _ => {}
        }
        if full {
            for field in ["name", "start_date", "end_date", "recurring", "location"] {
                if !map.contains_key(field) {
                    e.push(FieldError::required(field));
                }
            }
        }
        if input.description.as_ref().is_some_and(|d| d.chars().count() > DESCRIPTION_MAX) {
            e.push(too_long("description", DESCRIPTION_MAX));
        }
        if input.color.as_ref().is_some_and(|c| c.chars().count() > COLOR_MAX) {
            e.push(too_long("color", COLOR_MAX));
        }
        if let Some(Some(l)) = &input.link
            && !super::link::is_safe(l)
        {
            e.push(FieldError::new("link", "invalid", "Enter a valid URL (http or https)."));
        }
        (input, e)
    }

    /// Applies the input to an event and checks what the fields say together: the end
    /// after the start, a place for an event in person, a link for an online one (the
    /// other's fields cleared). Errors leave `ev` half changed: the caller drops it.
    pub fn apply(&self, ev: &mut Event) -> Vec<FieldError> {
        use super::update;
        update(&mut ev.name, self.name.clone());
        update(&mut ev.description, self.description.clone());
        update(&mut ev.color, self.color.clone());
        update(&mut ev.privacy, self.privacy);
        update(&mut ev.visible, self.visible);
        update(&mut ev.start_at, self.start_at);
        update(&mut ev.end_at, self.end_at);
        update(&mut ev.timezone, self.timezone.clone());
        update(&mut ev.recurring, self.recurring);
        update(&mut ev.location, self.location);
        update(&mut ev.geolocation, self.geolocation.clone());
        update(&mut ev.geolocation_lat, self.geolocation_lat);
        update(&mut ev.geolocation_lng, self.geolocation_lng);
        update(&mut ev.link, self.link.clone());
        let mut e = Vec::new();
        if ev.end_at <= ev.start_at {
            e.push(FieldError::new("end_date", "invalid", "The end must be after the start."));
        }
        match ev.location {
            Location::Person => {
                if ev.geolocation.is_none() {
                    e.push(FieldError::new(
                        "geolocation",
                        "required",
                        "An event in person needs a place.",
                    ));
                }
                ev.link = None;
            }
            Location::Online => {
                if ev.link.is_none() {
                    e.push(FieldError::new("link", "required", "An online event needs a link."));
                }
                ev.geolocation = None;
                ev.geolocation_lat = None;
                ev.geolocation_lng = None;
            }
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(v: Value, full: bool) -> (EventInput, Vec<(String, &'static str)>) {
        let Value::Object(m) = v else { unreachable!() };
        let (i, e) = EventInput::parse(&m, full);
        (i, e.into_iter().map(|f| (f.field, f.messages[0].code)).collect())
    }

    #[test]
    fn the_kits_form_is_read_as_it_sends_it() {
        let (i, e) = parse(
            json!({"name": " Meetup ", "start_date": "2026-12-01T18:00:00.000Z",
                   "end_date": "2026-12-01T20:00:00.000Z", "recurring": "weekly",
                   "location": "virtual", "link": "https://meet.example/x",
                   "live_stream_settings": "null", "geolocation": "", "geolocation_lat": "",
                   "geolocation_lng": "", "privacy": "private", "visible": "true",
                   "products": "[]", "description": "d", "timezone": "Europe/Rome"}),
            true,
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(i.name.as_deref(), Some("Meetup"));
        assert_eq!(i.location, Some(Location::Online));
        assert_eq!(i.recurring, Some(Recurrence::Weekly));
        assert_eq!(i.geolocation, Some(None));
        assert_eq!(i.timezone.as_deref(), Some("Europe/Rome"));
        let mut ev = Event::new(1, 0);
        assert!(i.apply(&mut ev).is_empty());
        assert_eq!(ev.end_at - ev.start_at, 7_200_000_000);
    }

    #[test]
    fn every_rule_that_needs_no_database() {
        let (_, e) = parse(
            json!({"name": "x".repeat(51), "start_date": "tomorrow", "timezone": "Mars/Base",
                   "recurring": "yearly", "location": "live_stream", "geolocation_lat": "91",
                   "link": "javascript:alert(1)", "privacy": "secret"}),
            true,
        );
        let fields: Vec<&str> = e.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "privacy",
                "start_date",
                "recurring",
                "location",
                "geolocation_lat",
                "timezone",
                "name",
                "end_date",
                "link"
            ]
        );
        let (i, e) = parse(
            json!({"name": "n", "start_date": "2026-12-01T20:00:00Z", "end_date": "2026-12-01T18:00:00Z",
                   "recurring": "never", "location": "in person"}),
            true,
        );
        assert!(e.is_empty());
        let errs = i.apply(&mut Event::new(1, 0));
        let fields: Vec<&str> = errs.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(fields, ["end_date", "geolocation"]);
    }
}

//! The body an event is written with ([`EventInput`]): JSON, or the kit's multipart
//! form as text. Its schema is the events' documented request body (`EventWrite`).

use serde_json::{Map, Value};

use super::event::{
    COLOR_MAX, DESCRIPTION_MAX, Event, EventPrivacy, IMAGE_FIELD, Location, NAME_MAX, PLACE_MAX,
    Recurrence,
};
use super::event_time;
use super::field::FieldError;
use super::group::{boolean, clears_image, invite_list, text, too_long};
use crate::clock::{Timestamp, parse_rfc3339};

/// The writable fields of an event body (JSON, or the kit's multipart form as text);
/// `None` means "not in the body". Its schema is the event writes' request body
/// (`EventWrite`); the doc comments are its descriptions.
#[derive(Debug, Clone, Default, PartialEq, utoipa::ToSchema)]
#[schema(
    as = EventWrite,
    description = "The writable fields of an event, as JSON or as the kit's multipart/form-data text fields (booleans as true/false/1/0, coordinates as text, an empty text field for null, invite_users as invite_users[0], invite_users[1]...). On create and PUT name, start_date, end_date, recurring and location are required. Read-only and unknown fields (products, live_stream_settings: hearth has no live streams) are ignored. All field errors are reported at once."
)]
pub struct EventInput {
    /// 1-50 characters (blank is 400 required); leading and trailing spaces are trimmed.
    #[schema(nullable = false, min_length = 1, max_length = 50)]
    pub name: Option<String>,
    /// Plain text, at most 500 characters.
    #[schema(nullable = false, max_length = 500)]
    pub description: Option<String>,
    /// At most 16 characters (trimmed).
    #[schema(nullable = false, max_length = 16)]
    pub color: Option<String>,
    /// public (the default) or private: private only while
    /// configurations.events_private_enabled is true, else 400 invalid_choice. A private
    /// event never becomes public again (400 on privacy).
    #[schema(nullable = false)]
    pub privacy: Option<EventPrivacy>,
    /// Whether a private event is listed for non-members (default true); false only
    /// while configurations.events_visibility_enabled is true.
    #[schema(nullable = false)]
    pub visible: Option<bool>,
    /// The first occurrence's start: RFC 3339 with Z or an offset (as the kit's
    /// toISOString() sends); 400 invalid otherwise.
    #[schema(nullable = false, rename = "start_date", value_type = Option<String>, format = DateTime)]
    pub start_at: Option<Timestamp>,
    /// The first occurrence's end, after the start (400 on end_date otherwise); RFC 3339
    /// with Z or an offset.
    #[schema(nullable = false, rename = "end_date", value_type = Option<String>, format = DateTime)]
    pub end_at: Option<Timestamp>,
    /// The IANA zone the event is planned in (UTC when absent; recurrences keep its
    /// wall-clock time). An unknown name is 400 invalid.
    #[schema(nullable = false, max_length = 64)]
    pub timezone: Option<String>,
    /// never, daily, weekly or monthly (400 invalid_choice otherwise). A recurring event
    /// repeats forever at the same wall-clock time in its zone, each occurrence as long
    /// as the first; monthly on the same day, or the month's last day when it is shorter.
    #[schema(nullable = false)]
    pub recurring: Option<Recurrence>,
    /// in person (geolocation required) or virtual (link required); the other kind's
    /// fields are cleared. 400 invalid_choice otherwise.
    #[schema(nullable = false)]
    pub location: Option<Location>,
    /// The place of an event in person, plain text of at most 500 characters; null or
    /// empty clears it.
    #[schema(max_length = 500)]
    pub geolocation: Option<Option<String>>,
    /// The place's latitude, within ±90 (400 min_value/max_value otherwise; a number or
    /// numeric text); null or empty clears it.
    #[schema(minimum = -90, maximum = 90)]
    pub geolocation_lat: Option<Option<f64>>,
    /// The place's longitude, within ±180 (400 min_value/max_value otherwise; a number or
    /// numeric text); null or empty clears it.
    #[schema(minimum = -180, maximum = 180)]
    pub geolocation_lng: Option<Option<f64>>,
    /// The link of a virtual event: an http(s) URL or a /path of at most 2048 characters
    /// (400 invalid otherwise); null or empty clears it.
    #[schema(max_length = 2048)]
    pub link: Option<Option<String>>,
    /// Users to invite (create only; each notified with user_invited_to_join_event):
    /// integer ids or numeric strings, a lone id counts as a list of one, repeats
    /// collapse; an id that is no live user is 400. At most 1000 items (400 max_length).
    #[schema(max_items = 1000)]
    pub invite_users: Option<Vec<i64>>,
    /// `image_original` (described by [`image_field`]).
    #[schema(rename = "image_original", schema_with = image_field, required = false)]
    pub clear_image: bool,
}

/// `image_original`: null in JSON, a file in a multipart form.
fn image_field() -> utoipa::openapi::schema::Object {
    super::field::image_schema(
        "In JSON only null: back to the default image. In multipart/form-data the image \
         file: JPEG, PNG, WebP or GIF, at most 10 MiB and 8000x8000 pixels, through the \
         image pipeline (center-cropped squares of 600, 400, 200 and 100 px); an empty \
         field is null. Anything else is 400 invalid.",
    )
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

    /// The documented body is the one the parser reads; a PATCH may leave out each field.
    #[test]
    fn every_documented_field_is_read() {
        crate::model::field::assert_patch_body::<EventInput>(|m| EventInput::parse(m, false).1);
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

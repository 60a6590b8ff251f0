//! The event records of an import (SPEC §10 Events; `model::import` lists every
//! record): an event with the API body's fields, and a membership with its answer.

use serde::Deserialize;

use crate::clock::Timestamp;

/// `{"record":"event","id":1,"created_by":1,"name":"Meetup","start_date":"...",
/// "end_date":"...","recurring":"weekly","location":"virtual","link":"https://..."}`:
/// the API's event body (`model::event::EventInput`, the same rules: `timezone`,
/// `privacy`, `visible`, `description`, `color`, `geolocation`, `geolocation_lat`,
/// `geolocation_lng`), and `created_at`, `deleted`, `show_on_feed`. The slug comes
/// from the name. Other fields are refused.
#[derive(Debug, Deserialize)]
pub struct EventLine {
    pub id: i64,
    pub created_by: i64,
    #[serde(default, deserialize_with = "super::import::time")]
    pub created_at: Option<Timestamp>,
    #[serde(default)]
    pub deleted: bool,
    pub show_on_feed: Option<bool>,
    /// The body's fields.
    #[serde(flatten)]
    pub body: serde_json::Map<String, serde_json::Value>,
}

/// The body fields an event line may hold.
pub const EVENT_FIELDS: [&str; 14] = [
    "name",
    "description",
    "color",
    "privacy",
    "visible",
    "start_date",
    "end_date",
    "timezone",
    "recurring",
    "location",
    "geolocation",
    "geolocation_lat",
    "geolocation_lng",
    "link",
];

/// `{"record":"event_member","event":1,"user":2,"join_status":"joined","going":true}`
/// (`going`: a member's answer, absent for none; `manager`: an admin; `invited`,
/// `requested`, which do not answer).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventMemberLine {
    pub event: i64,
    pub user: i64,
    pub join_status: String,
    pub going: Option<bool>,
}

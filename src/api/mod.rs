//! The JSON API: one module per area (`feed/`, `search/`, `courses/`...) or URL prefix,
//! each exposing `endpoints()`; this module lists them in [`AREAS`] and builds the one
//! [`router`] from them, once, for the server, CORS, the replica layer and the OpenAPI
//! document alike.

pub mod account;
pub mod avatars;
pub mod categories;
pub mod community;
// the framework the areas' handlers are written with: the caller (call, auth), lists,
// toggles, people's JSON, the OpenAPI document (api/framework/)
mod framework;
pub use framework::{auth, call, openapi};
use framework::{listing, members, people, toggle, upload};
pub mod connections;
pub mod contribution_edit;
pub mod contributions;
pub mod contributors;
pub mod courses;
pub mod custom_content;
pub mod custom_menus;
pub mod data_export;
pub mod events;
pub mod features;
pub mod feed;
pub mod groups;
pub mod health;
pub mod jwt;
pub mod legal;
pub mod live;
pub mod media;
pub mod media_create;
pub mod media_items;
pub mod messages;
pub mod moderation;
pub mod notifications;
pub mod onboarding;
pub mod polls;
pub mod preferences;
pub mod reactions;
pub mod schema;
pub mod search;
pub mod sign_up;
pub mod sso;
pub mod tags;
pub mod user_courses;
pub mod user_directory;
pub mod user_facts;
pub mod user_hiding;
pub mod user_moderation;
pub mod user_providers;
pub mod user_settings;
pub mod users;
pub mod votes;

use crate::http::route::{Endpoint, Router};
use crate::state::AppState;

/// Every area's endpoints, in matching order: adding an area is one line here.
const AREAS: &[fn() -> Vec<Endpoint>] = &[
    courses::endpoints,
    groups::endpoints,
    events::endpoints,
    contributions::endpoints,
    health::endpoints,
    schema::endpoints,
    account::endpoints,
    avatars::endpoints,
    connections::endpoints,
    user_facts::endpoints,
    users::endpoints,
    // the users list, matching usernames, the control panel's link (issue 32)
    user_directory::endpoints,
    reactions::endpoints,
    preferences::endpoints,
    jwt::endpoints,
    crate::oauth::endpoints,
    crate::http::statics::endpoints,
    media::endpoints,
    media_items::endpoints,
    media_create::endpoints,
    features::endpoints,
    votes::endpoints,
    contributors::endpoints,
    categories::endpoints,
    user_courses::endpoints,
    user_hiding::endpoints,
    user_settings::endpoints,
    custom_menus::endpoints,
    feed::endpoints,
    search::endpoints,
    notifications::endpoints,
    moderation::endpoints,
    data_export::endpoints,
    legal::endpoints,
    sign_up::endpoints,
    user_moderation::endpoints,
    polls::endpoints,
    messages::endpoints,
    // tags and onboarding (issue 32)
    tags::endpoints,
    onboarding::endpoints,
    // custom advs and pages, community info, contact us (issue 32)
    custom_content::endpoints,
    community::endpoints,
    // single sign-on and linked identities (issue 32)
    sso::endpoints,
    user_providers::endpoints,
];

/// Every endpoint hearth serves, in one list (see [`crate::http::route`]).
fn endpoints() -> Vec<Endpoint> {
    AREAS.iter().flat_map(|area| area()).collect()
}

/// The one router over every endpoint, built on first use and shared (a clone is an
/// `Arc`'s).
pub fn router() -> &'static Router {
    static ROUTER: std::sync::OnceLock<Router> = std::sync::OnceLock::new();
    ROUTER.get_or_init(|| Router::new(endpoints()))
}

/// The service of every endpoint hearth serves (the live socket's upgrade,
/// `GET /ws/notify`, is taken before it, by `server.rs`: see [`live`]).
pub fn service(state: AppState) -> crate::http::service::Api {
    crate::http::service::Api::new(router(), state)
}

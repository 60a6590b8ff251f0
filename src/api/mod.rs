//! The JSON API: one module per URL prefix, each exposing `routes(state)`; this module
//! joins them into the one router.

pub mod auth;
pub mod call;
pub mod categories;
pub mod contributions;
pub mod contributors;
pub mod courses;
pub mod features;
pub mod health;
pub mod jwt;
mod listing;
pub mod media;
pub mod openapi;
mod people;
pub mod preferences;
pub mod reactions;
pub mod schema;
mod toggle;
pub mod user_courses;
pub mod user_hiding;
pub mod user_settings;
pub mod users;
pub mod votes;

use crate::http::Route;
use crate::http::route::{Endpoint, Router};
use crate::state::AppState;

/// Every endpoint hearth serves, in one list (see [`crate::http::route`]).
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = Vec::new();
    all.extend(courses::endpoints());
    all.extend(contributions::endpoints());
    all.extend(health::endpoints());
    all.extend(schema::endpoints());
    all.extend(users::endpoints());
    all.extend(reactions::endpoints());
    all.extend(preferences::endpoints());
    all.extend(jwt::endpoints());
    all.extend(crate::oauth::endpoints());
    all.extend(crate::http::statics::endpoints());
    all.extend(media::endpoints());
    all.extend(features::endpoints());
    all.extend(votes::endpoints());
    all.extend(contributors::endpoints());
    all.extend(categories::endpoints());
    all.extend(user_courses::endpoints());
    all.extend(user_hiding::endpoints());
    all.extend(user_settings::endpoints());
    all
}

/// Every route hearth serves.
pub fn routes(state: AppState) -> Route {
    Router::new(endpoints()).filter(state)
}

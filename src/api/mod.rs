//! The JSON API: one module per URL prefix, each exposing `endpoints()`; this module
//! joins them into the one router.

pub mod auth;
pub mod call;
pub mod categories;
pub mod contributions;
pub mod contributors;
pub mod courses;
pub mod custom_menus;
pub mod features;
pub mod feed;
pub mod health;
pub mod jwt;
mod listing;
pub mod media;
pub mod openapi;
mod people;
pub mod preferences;
pub mod reactions;
pub mod schema;
pub mod search;
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
    let groups: [fn() -> Vec<Endpoint>; 21] = [
        courses::endpoints,
        contributions::endpoints,
        health::endpoints,
        schema::endpoints,
        users::endpoints,
        reactions::endpoints,
        preferences::endpoints,
        jwt::endpoints,
        crate::oauth::endpoints,
        crate::http::statics::endpoints,
        media::endpoints,
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
    ];
    groups.iter().flat_map(|group| group()).collect()
}

/// Every route hearth serves.
pub fn routes(state: AppState) -> Route {
    Router::new(endpoints()).filter(state)
}

//! The JSON API: one module per URL prefix, each exposing `routes(state)`; this module
//! joins them into the one router.

pub mod auth;
pub mod call;
pub mod contributions;
pub mod courses;
pub mod health;
pub mod jwt;
pub mod media;
pub mod openapi;
pub mod preferences;
pub mod reactions;
pub mod schema;
pub mod users;

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
    all
}

/// Every route hearth serves.
pub fn routes(state: AppState) -> Route {
    Router::new(endpoints()).filter(state)
}

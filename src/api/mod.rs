//! The JSON API: one module per URL prefix, each exposing `routes(state)`; this module
//! joins them into the one router.

pub mod auth;
pub mod contributions;
pub mod courses;
pub mod health;
pub mod jwt;
pub mod media;
pub mod preferences;
pub mod reactions;
pub mod schema;
pub mod users;

use warp::Filter;

use crate::http::Route;
use crate::state::AppState;

/// Every route hearth serves.
pub fn routes(state: AppState) -> Route {
    health::routes(state.clone())
        .or(schema::routes())
        .unify()
        .or(users::routes(state.clone()))
        .unify()
        .or(reactions::routes(state.clone()))
        .unify()
        .or(preferences::routes(state.clone()))
        .unify()
        .or(jwt::routes(state.clone()))
        .unify()
        .or(contributions::routes(state.clone()))
        .unify()
        .or(courses::routes(state.clone()))
        .unify()
        .or(crate::oauth::routes(state.clone()))
        .unify()
        .or(crate::http::statics::static_files())
        .unify()
        .or(media::routes(state))
        .unify()
        .boxed()
}

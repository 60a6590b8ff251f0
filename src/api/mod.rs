//! The JSON API: one module per URL prefix, each exposing `routes(state)`; this module
//! joins them into the one router.

pub mod health;
pub mod schema;

use warp::Filter;

use crate::http::Route;
use crate::state::AppState;

/// Every route hearth serves.
pub fn routes(state: AppState) -> Route {
    health::routes(state.clone())
        .or(schema::routes())
        .unify()
        .or(crate::http::statics::static_files())
        .unify()
        .or(crate::http::statics::media(state))
        .unify()
        .boxed()
}

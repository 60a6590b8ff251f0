//! `/api/v2/dynamic_preference/...`: dynamic preferences.

use crate::http::Route;
use crate::state::AppState;

/// Routes of this module (none yet).
pub fn routes(_state: AppState) -> Route {
    crate::http::no_route()
}

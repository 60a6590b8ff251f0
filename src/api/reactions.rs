//! `/api/v2/reaction/...`: reactions.

use crate::http::Route;
use crate::state::AppState;

/// Routes of this module (none yet).
pub fn routes(_state: AppState) -> Route {
    crate::http::no_route()
}

//! `/api/v2/course/...`: courses, sections, membership.

use crate::http::Route;
use crate::state::AppState;

/// Routes of this module (none yet).
pub fn routes(_state: AppState) -> Route {
    crate::http::no_route()
}

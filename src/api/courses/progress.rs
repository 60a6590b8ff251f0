//! A course's members for its creator and managers: their progress (the kit's teacher
//! dashboard and the editor's user table) and the users they may add.

use warp::http::Method;
use warp::reply::Response;

use super::{managed_course, member_statuses_or};
use crate::api::call::{Call, user};
use crate::api::listing::list_page;
use crate::api::members::UserPrefix;
use crate::db::course_lessons as db;
use crate::db::members::Roster;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::course::JoinStatus;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/course/{id}/users/", "listCourseProgress", list)
            .list::<ProgressFilters>(),
        user(Method::GET, "/api/v2/course/{id}/user/", "suggestCourseUsers", suggest)
            .list::<UserPrefix>(),
    ]
}

crate::query_params! {
    /// Which members a course's progress list keeps.
    struct ProgressFilters {
        /// Join statuses, comma-separated or as a JSON array (the kit's editor sends
        /// `["joined","manager","creator"]`); default (also when empty) joined, the
        /// students. An unknown status is 400 invalid_choice.
        statuses: Option<String>,
        /// The start of a username, case-insensitively (empty: every member).
        search: Option<String>,
    }
}

/// `GET /api/v2/course/{id}/users/`: the members and their progress, in the order they
/// came; the creator and managers only (403 for others who see the course).
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        managed_course(c, id, who)?;
        let f = ProgressFilters::read(q)?;
        let statuses = member_statuses_or(f.statuses.as_deref(), &[JoinStatus::Joined])?;
        let page = Page::from_query(q)?;
        let prefix = f.search.unwrap_or_default();
        let (count, rows) =
            db::progress(c, id, &statuses, prefix.trim(), (page.limit, page.offset))?;
        let lessons = db::published(c, id)?;
        Ok((page, count, rows.iter().map(|m| m.to_json(&base, lessons)).collect()))
    })
    .await
}

/// `GET /api/v2/course/{id}/user/?search=`: live users the creator and managers may add
/// (the editor's "add users"): whose username starts with `search`, by username,
/// without the caller and anyone with a status in the course; 403 for others.
async fn suggest(call: Call<Principal>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        managed_course(c, id, who)?;
        crate::api::members::suggestions(c, Roster::Course, Some(id), who, q, &base)
    })
    .await
}

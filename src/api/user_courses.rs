//! `GET /api/v2/user/{id}/courses/` (SPEC §8): a user's courses, as the caller may see
//! them: visibility exactly as the course search's (`db::user_courses`).

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca};
use crate::api::courses::{MemberStatuses, course_json, member_statuses};
use crate::api::listing::list_page;
use crate::db::members::{self, Roster};
use crate::db::{courses, user_courses};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        ca(Method::GET, "/api/v2/user/{id}/courses/", "listUserCourses", list)
            .list::<MemberStatuses>(),
    ]
}

/// `GET /api/v2/user/{id}/courses/` (CA): the courses visible to the caller in which
/// user `{id}` has a `join_status` in `statuses` (default creator, manager, joined),
/// newest first, as Course JSON for the caller.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let statuses = member_statuses(q)?;
        let page = Page::from_query(q)?;
        if !crate::db::users::is_live(c, id)? {
            return Err(ApiError::NotFound);
        }
        let viewer = who.map(|w| w.user_id);
        let (count, ids) = user_courses::page(c, viewer, id, &statuses, page.limit, page.offset)?;
        let mut results = Vec::with_capacity(ids.len());
        for course_id in ids {
            if let Some(course) = courses::get(c, course_id)? {
                let status = members::status_of(c, Roster::Course, course_id, viewer)?;
                results.push(course_json(c, &course, viewer, status, &base)?);
            }
        }
        Ok((page, count, results))
    })
    .await
}

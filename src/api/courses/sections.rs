//! Course sections: listed in `sections_order`, written by the creator and managers,
//! visible as their course, each with the lessons the caller sees ([`super::outline`]).

use serde_json::Value;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::outline::Outline;
use super::{managed_course, visible_course};
use crate::api::call::{Call, ca, write};
use crate::db::course_lessons;
use crate::db::courses as db;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::course::{SECTION_NAME_MAX, SectionJson, same_ids};
use crate::model::ids;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    const SECTIONS: &str = "/api/v2/course/{id}/section/";
    const SECTION: &str = "/api/v2/course/{id}/section/{section_id}/";
    vec![
        ca(Method::GET, SECTIONS, "listCourseSections", list),
        write(Method::POST, SECTIONS, "createCourseSection", create).body::<SectionInput>(),
        ca(Method::GET, SECTION, "getCourseSection", get),
        write(Method::PUT, SECTION, "replaceCourseSection", |c| update(c, true))
            .body::<SectionInput>(),
        write(Method::PATCH, SECTION, "updateCourseSection", |c| update(c, false))
            .body::<SectionInput>(),
        write(Method::DELETE, SECTION, "deleteCourseSection", delete),
    ]
}

/// A section's body: what the section writes read.
#[derive(Debug, Default, utoipa::ToSchema)]
#[schema(as = CourseSectionWrite)]
struct SectionInput {
    /// 1-255 characters after trimming (blank: 400 required); required on create and
    /// PUT, optional on PATCH. Other fields are ignored.
    #[schema(min_length = 1, max_length = 255)]
    name: Option<String>,
    /// Exactly the ids of the section's lessons, in the new order (400 otherwise; ignored
    /// on create, where the section has none). At most 1000 items.
    #[schema(max_items = 1000)]
    lessons_order: Option<Vec<i64>>,
}

impl SectionInput {
    /// Reads `body`; `name` required when `required`.
    fn parse(body: &Value, required: bool) -> Result<SectionInput, ApiError> {
        let lessons_order = match body.get("lessons_order") {
            None => None,
            Some(Value::Array(items)) => Some(ids::from_values(items).map_err(|e| {
                ApiError::Invalid(vec![e.on("lessons_order", "Must be a list of integer ids.")])
            })?),
            Some(_) => {
                return Err(ApiError::field(
                    "lessons_order",
                    "invalid",
                    "Expected a list of items.",
                ));
            }
        };
        Ok(SectionInput { name: name_of(body, required)?, lessons_order })
    }
}

/// `name`: required when `required`, 1–255 characters.
fn name_of(body: &Value, required: bool) -> Result<Option<String>, ApiError> {
    match body.get("name") {
        None if required => {
            Err(ApiError::Invalid(vec![crate::model::field::FieldError::required("name")]))
        }
        None => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.is_empty() {
                Err(ApiError::field("name", "required", "This field may not be blank."))
            } else if s.chars().count() > SECTION_NAME_MAX {
                Err(ApiError::field(
                    "name",
                    "max_length",
                    format!("Ensure this field has no more than {SECTION_NAME_MAX} characters."),
                ))
            } else {
                Ok(Some(s.to_owned()))
            }
        }
        Some(Value::Null) => Err(ApiError::field("name", "null", "This field may not be null.")),
        Some(_) => Err(ApiError::field("name", "invalid", "Not a valid string.")),
    }
}

/// Most sections in one course (its page lists them all).
const SECTIONS_MAX: usize = 200;

/// Section `sid` of `course` as the caller sees it, its lessons with it; 404 when the
/// course has no such section.
fn section_json(
    c: &rusqlite::Connection,
    course: &crate::model::course::Course,
    status: Option<crate::model::course::JoinStatus>,
    user: Option<i64>,
    sid: i64,
) -> Result<SectionJson, ApiError> {
    Outline::read(c, course, status, user)?.section_json(sid).ok_or(ApiError::NotFound)
}

/// 401/403 (scope, not a manager) and 404 before anything about the body.
async fn pre_manage(call: &mut Call<Principal>) -> Result<(), ApiError> {
    let id = call.id();
    let who = call.read(move |c, who| managed_course(c, id, who).map(|_| who)).await?;
    call.req.body.authorised(&who);
    Ok(())
}

/// `GET /api/v2/course/{id}/section/`: a plain array in `sections_order` order.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    let out = call
        .read(move |c, who| {
            let (course, status) = visible_course(c, id, who)?;
            Ok(Outline::read(c, &course, status, who.map(|w| w.user_id))?.json())
        })
        .await?;
    Ok(ok(&out))
}

/// `GET /api/v2/course/{id}/section/{section_id}/`
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, sid) = (call.id(), call.params.id(1));
    let out = call
        .read(move |c, who| {
            let (course, status) = visible_course(c, id, who)?;
            section_json(c, &course, status, who.map(|w| w.user_id), sid)
        })
        .await?;
    Ok(ok(&out))
}

/// `POST /api/v2/course/{id}/section/` `{"name"}`: 201, appended to `sections_order`.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_manage(&mut call).await?;
    let (id, now) = (call.id(), call.now);
    let body = Value::Object(call.object().await?);
    let out = call
        .write(move |tx, who| {
            let (mut course, status) = managed_course(tx, id, who)?;
            let name = SectionInput::parse(&body, true)?.name.unwrap_or_default();
            if course.sections_order.len() >= SECTIONS_MAX {
                return Err(ApiError::field(
                    "non_field_errors",
                    "max_value",
                    format!("A course holds at most {SECTIONS_MAX} sections."),
                ));
            }
            let sid = db::insert_section(tx, id, &name, now)?;
            course.sections_order.push(sid);
            db::update(tx, &course)?;
            section_json(tx, &course, status, Some(who.user_id), sid)
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &out))
}

/// `PUT|PATCH /api/v2/course/{id}/section/{section_id}/` `{"name"}`.
async fn update(mut call: Call<Principal>, full: bool) -> Result<Response, ApiError> {
    pre_manage(&mut call).await?;
    let (id, sid) = (call.id(), call.params.id(1));
    let body = Value::Object(call.object().await?);
    let out = call
        .write(move |tx, who| {
            let (course, status) = managed_course(tx, id, who)?;
            let section = db::section(tx, id, sid)?.ok_or(ApiError::NotFound)?;
            let input = SectionInput::parse(&body, full)?;
            if let Some(order) = &input.lessons_order {
                let lessons: Vec<i64> = course_lessons::of_course(tx, id)?
                    .iter()
                    .filter(|l| l.section_id == sid)
                    .map(|l| l.id)
                    .collect();
                if !same_ids(order, &lessons) {
                    return Err(ApiError::field(
                        "lessons_order",
                        "invalid",
                        "lessons_order must list exactly the ids of the section's lessons.",
                    ));
                }
                db::set_lessons_order(tx, sid, order)?;
            }
            if let Some(name) = input.name {
                db::rename_section(tx, section.id, &name)?;
            }
            section_json(tx, &course, status, Some(who.user_id), sid)
        })
        .await?;
    Ok(ok(&out))
}

/// `DELETE /api/v2/course/{id}/section/{section_id}/`: the section and its lessons; 204.
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_manage(&mut call).await?;
    let (id, sid) = (call.id(), call.params.id(1));
    call.no_body().await?;
    call.write(move |tx, who| {
        let (mut course, _) = managed_course(tx, id, who)?;
        db::section(tx, id, sid)?.ok_or(ApiError::NotFound)?;
        db::delete_section(tx, sid)?;
        course.sections_order.retain(|x| *x != sid);
        db::update(tx, &course)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

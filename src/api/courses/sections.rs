//! Course sections: listed in `sections_order`, written by the creator and managers,
//! visible as their course.

use std::collections::HashMap;

use rusqlite::Connection;
use serde_json::Value;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::{managed_course, visible_course};
use crate::api::call::{Call, ca, write};
use crate::db::courses as db;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::course::{Course, SECTION_NAME_MAX, Section, SectionJson};

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

fn json(s: Section) -> SectionJson {
    SectionJson { id: s.id, name: s.name, num_lessons: s.num_lessons, lessons: Vec::new() }
}

/// The sections of `course` in its `sections_order` order: anything the order misses
/// goes last, by id (positions looked up in a map: one pass, however many sections).
pub(super) fn in_order(c: &Connection, course: &Course) -> Result<Vec<SectionJson>, ApiError> {
    let mut sections = db::sections(c, course.id)?;
    let rank: HashMap<i64, usize> =
        course.sections_order.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    sections.sort_by_key(|s| rank.get(&s.id).copied().unwrap_or(usize::MAX));
    Ok(sections.into_iter().map(json).collect())
}

/// A section's body: what the section writes read.
#[derive(Debug, Default, utoipa::ToSchema)]
#[schema(as = CourseSectionWrite)]
struct SectionInput {
    /// 1-255 characters after trimming (blank: 400 required); required on create and
    /// PUT, optional on PATCH. Other fields are ignored.
    #[schema(min_length = 1, max_length = 255)]
    name: Option<String>,
}

impl SectionInput {
    /// Reads `body`; `name` required when `required`.
    fn parse(body: &Value, required: bool) -> Result<SectionInput, ApiError> {
        Ok(SectionInput { name: name_of(body, required)? })
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
            let (course, _) = visible_course(c, id, who)?;
            in_order(c, &course)
        })
        .await?;
    Ok(ok(&out))
}

/// `GET /api/v2/course/{id}/section/{section_id}/`
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, sid) = (call.id(), call.params.id(1));
    let out = call
        .read(move |c, who| {
            visible_course(c, id, who)?;
            db::section(c, id, sid)?.map(json).ok_or(ApiError::NotFound)
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
            let (mut course, _) = managed_course(tx, id, who)?;
            let name = SectionInput::parse(&body, true)?.name.unwrap_or_default();
            let sid = db::insert_section(tx, id, &name, now)?;
            course.sections_order.push(sid);
            db::update(tx, &course)?;
            db::section(tx, id, sid)?
                .map(json)
                .ok_or_else(|| ApiError::internal("section vanished"))
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
            managed_course(tx, id, who)?;
            let section = db::section(tx, id, sid)?.ok_or(ApiError::NotFound)?;
            if let Some(name) = SectionInput::parse(&body, full)?.name {
                db::rename_section(tx, section.id, &name)?;
            }
            db::section(tx, id, sid)?
                .map(json)
                .ok_or_else(|| ApiError::internal("section vanished"))
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

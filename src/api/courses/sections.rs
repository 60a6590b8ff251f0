//! Course sections: listed in `sections_order`, written by the creator and managers,
//! visible as their course.

use std::collections::HashMap;

use serde_json::Value;
use warp::Filter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::{managed_course, visible_course};
use crate::api::auth;
use crate::db::courses as db;
use crate::error::ApiError;
use crate::http::{
    Req, Route, empty, json_response, method_not_allowed, ok, request, respond, slash,
};
use crate::model::course::{SECTION_NAME_MAX, Section, SectionJson};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    collection(state.clone()).or(item(state)).unify().boxed()
}

/// `GET|POST /api/v2/course/{id}/section/`
fn collection(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "section")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list(id, req).await),
                Method::POST => respond(create(id, req).await),
                _ => method_not_allowed("GET, HEAD, POST"),
            }
        })
        .boxed()
}

/// `GET|PUT|PATCH|DELETE /api/v2/course/{id}/section/{section_id}/`
fn item(state: AppState) -> Route {
    warp::path!("api" / "v2" / "course" / i64 / "section" / i64)
        .and(slash())
        .and(request(state))
        .then(|id: i64, sid: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(get(id, sid, req).await),
                Method::PUT => respond(update(id, sid, req, true).await),
                Method::PATCH => respond(update(id, sid, req, false).await),
                Method::DELETE => respond(delete(id, sid, req).await),
                _ => method_not_allowed("GET, HEAD, PUT, PATCH, DELETE"),
            }
        })
        .boxed()
}

fn json(s: Section) -> SectionJson {
    SectionJson {
        id: s.id,
        name: s.name,
        num_lessons: s.num_lessons,
    }
}

/// `name`: required when `required`, 1–255 characters.
fn name_of(body: &Value, required: bool) -> Result<Option<String>, ApiError> {
    match body.get("name") {
        None if required => Err(ApiError::Invalid(vec![
            crate::model::field::FieldError::required("name"),
        ])),
        None => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.is_empty() {
                Err(ApiError::field(
                    "name",
                    "required",
                    "This field may not be blank.",
                ))
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
        Some(Value::Null) => Err(ApiError::field(
            "name",
            "null",
            "This field may not be null.",
        )),
        Some(_) => Err(ApiError::field("name", "invalid", "Not a valid string.")),
    }
}

async fn pre_manage(id: i64, req: &mut Req) -> Result<(), ApiError> {
    let now = req.state.clock.now();
    let creds = req.credentials();
    let who = req
        .state
        .db
        .read(move |c| {
            let who = auth::require_write(c, &creds, now)?;
            managed_course(c, id, who).map(|_| who)
        })
        .await?;
    req.body.authorised(&who);
    Ok(())
}

/// `GET /api/v2/course/{id}/section/`: a plain array in `sections_order` order.
async fn list(id: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let out = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            let (course, _) = visible_course(c, id, who)?;
            let mut sections = db::sections(c, id)?;
            // sections_order lists every section; anything it misses goes last by id
            // (positions looked up in a map: one pass, however many sections)
            let rank: HashMap<i64, usize> = course
                .sections_order
                .iter()
                .enumerate()
                .map(|(i, id)| (*id, i))
                .collect();
            sections.sort_by_key(|s| rank.get(&s.id).copied().unwrap_or(usize::MAX));
            Ok::<_, ApiError>(sections.into_iter().map(json).collect::<Vec<_>>())
        })
        .await?;
    Ok(ok(&out))
}

/// `GET /api/v2/course/{id}/section/{section_id}/`
async fn get(id: i64, sid: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let out = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            visible_course(c, id, who)?;
            db::section(c, id, sid)?.map(json).ok_or(ApiError::NotFound)
        })
        .await?;
    Ok(ok(&out))
}

/// `POST /api/v2/course/{id}/section/` `{"name"}`: 201, appended to `sections_order`.
async fn create(id: i64, mut req: Req) -> Result<Response, ApiError> {
    pre_manage(id, &mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let body = Value::Object(crate::http::body::object(req.body, &req.headers).await?);
    let out = req
        .state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            let (mut course, _) = managed_course(tx, id, who)?;
            let name = name_of(&body, true)?.unwrap_or_default();
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
async fn update(id: i64, sid: i64, mut req: Req, full: bool) -> Result<Response, ApiError> {
    pre_manage(id, &mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let body = Value::Object(crate::http::body::object(req.body, &req.headers).await?);
    let out = req
        .state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            managed_course(tx, id, who)?;
            let section = db::section(tx, id, sid)?.ok_or(ApiError::NotFound)?;
            if let Some(name) = name_of(&body, full)? {
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
async fn delete(id: i64, sid: i64, mut req: Req) -> Result<Response, ApiError> {
    pre_manage(id, &mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    crate::http::body::none(req.body, &req.headers).await?;
    req.state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
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

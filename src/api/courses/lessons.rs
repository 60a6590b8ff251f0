//! A course's lessons: written by its creator and managers, opened and completed by its
//! members, in the order the course enforces when it does ([`Outline`]).

use serde_json::{Map, Value};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::outline::Outline;
use super::{managed_course, visible_course};
use crate::api::call::{Call, ca, user, write};
use crate::db::course_lessons as db;
use crate::db::courses;
use crate::db::users;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::PublicUrl;
use crate::model::course::{Course, JoinStatus, manages};
use crate::model::course_enums::LessonStatus;
use crate::model::course_lesson::{LESSONS_MAX, Lesson, LessonInput, LessonJson, Standing};
use crate::model::rich_text;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    const LESSONS: &str = "/api/v2/course/{id}/section/{section_id}/lesson/";
    const LESSON: &str = "/api/v2/course/{id}/section/{section_id}/lesson/{lesson_id}/";
    const COMPLETE: &str = "/api/v2/course/{id}/section/{section_id}/lesson/{lesson_id}/complete/";
    const INCOMPLETE: &str =
        "/api/v2/course/{id}/section/{section_id}/lesson/{lesson_id}/incomplete/";
    vec![
        ca(Method::GET, LESSONS, "listCourseLessons", list),
        write(Method::POST, LESSONS, "createCourseLesson", create).body::<LessonInput>(),
        user(Method::GET, LESSON, "getCourseLesson", get),
        write(Method::PUT, LESSON, "replaceCourseLesson", |c| update(c, true))
            .body::<LessonInput>(),
        write(Method::PATCH, LESSON, "updateCourseLesson", |c| update(c, false))
            .body::<LessonInput>(),
        write(Method::DELETE, LESSON, "deleteCourseLesson", delete),
        write(Method::POST, COMPLETE, "completeCourseLesson", |c| mark(c, true)),
        write(Method::POST, INCOMPLETE, "uncompleteCourseLesson", |c| mark(c, false)),
    ]
}

/// A lesson a caller may open, with the course and where the lesson stands for them.
pub(super) struct Opened {
    pub course: Course,
    pub lesson: Lesson,
    pub status: Option<JoinStatus>,
    pub standing: Standing,
}

/// Lesson `lid` of section `sid` of course `id`, when `who` may open it: 404 when the
/// course is not visible to them, the lesson not in that section, or a draft and they
/// do not manage the course; 403 when they are not a member (creator, manager or
/// joined), or the course enforces its order and an earlier lesson is not completed.
pub(super) fn open(
    c: &rusqlite::Connection,
    (id, sid, lid): (i64, i64, i64),
    who: Principal,
) -> Result<Opened, ApiError> {
    let (course, status) = visible_course(c, id, Some(who))?;
    let lesson = db::get(c, id, sid, lid)?.ok_or(ApiError::NotFound)?;
    if lesson.status == LessonStatus::Draft && !manages(status) {
        return Err(ApiError::NotFound);
    }
    if !status.is_some_and(|s| JoinStatus::MEMBERS.contains(&s)) {
        return Err(ApiError::Refused("Join the course to open its lessons."));
    }
    let standing = Outline::read(c, &course, status, Some(who.user_id))?
        .standing(lid)
        .ok_or_else(|| ApiError::internal("an open lesson has no standing"))?;
    if standing.locked {
        return Err(ApiError::Refused("Complete the course's earlier lessons first."));
    }
    Ok(Opened { course, lesson, status, standing })
}

/// A lesson's full JSON: with its text and its author.
fn full_json(
    c: &rusqlite::Connection,
    lesson: &Lesson,
    standing: Standing,
    base: &PublicUrl,
) -> Result<LessonJson, ApiError> {
    let author = match lesson.created_by {
        Some(u) => users::get(c, u)?.map(|u| u.minimal(base)),
        None => None,
    };
    Ok(lesson.to_json(standing, Some(author)))
}

/// The lesson `lid` as a manager sees it after a write (nothing is locked for them).
fn managed_json(
    c: &rusqlite::Connection,
    (id, sid, lid): (i64, i64, i64),
    who: i64,
    base: &PublicUrl,
) -> Result<LessonJson, ApiError> {
    let lesson = db::get(c, id, sid, lid)?.ok_or(ApiError::NotFound)?;
    let completed = db::completed(c, id, who)?.contains(&lid);
    full_json(c, &lesson, Standing { locked: false, completed }, base)
}

/// `GET …/section/{section_id}/lesson/`: the section's lessons the caller sees, in
/// `lessons_order` order, without their text (a plain array).
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, sid) = (call.id(), call.params.id(1));
    let out = call
        .read(move |c, who| {
            let (course, status) = visible_course(c, id, who)?;
            let outline = Outline::read(c, &course, status, who.map(|w| w.user_id))?;
            Ok(outline.section_json(sid).ok_or(ApiError::NotFound)?.lessons)
        })
        .await?;
    Ok(ok(&out))
}

/// `GET …/lesson/{lesson_id}/`: the lesson with its text, for whoever may open it
/// ([`open`]).
async fn get(call: Call<Principal>) -> Result<Response, ApiError> {
    let ids = (call.id(), call.params.id(1), call.params.id(2));
    let base = call.base();
    let out = call
        .read(move |c, who| {
            let o = open(c, ids, who)?;
            full_json(c, &o.lesson, o.standing, &base)
        })
        .await?;
    Ok(ok(&out))
}

/// 401/403 (scope, not a manager) and 404 before anything about the body.
async fn pre_manage(call: &mut Call<Principal>) -> Result<(), ApiError> {
    let (id, sid) = (call.id(), call.params.id(1));
    let who = call
        .read(move |c, who| {
            managed_course(c, id, who)?;
            courses::section(c, id, sid)?.ok_or(ApiError::NotFound)?;
            Ok(who)
        })
        .await?;
    call.req.body.authorised(&who);
    Ok(())
}

/// The lesson's fields from a body read with [`LessonInput::parse`] (`full`: create
/// and PUT), over `lesson`; 400 with every problem found.
fn apply(body: &Map<String, Value>, full: bool, lesson: &mut Lesson) -> Result<(), ApiError> {
    let (input, errors) = LessonInput::parse(body, full);
    if !errors.is_empty() {
        return Err(ApiError::Invalid(errors));
    }
    if let Some(name) = input.name {
        lesson.name = name;
    }
    if let Some(kind) = input.kind {
        lesson.kind = kind;
    }
    if let Some(status) = input.status {
        lesson.status = status;
    }
    if let Some(on) = input.comments_enabled {
        lesson.comments_enabled = on;
    }
    if let Some(text) = input.text {
        lesson.html = rich_text::render(&text).html;
        lesson.text = text;
    }
    Ok(())
}

/// `POST …/section/{section_id}/lesson/`: 201 with the lesson, last in the section's
/// `lessons_order`; a draft unless `status` says otherwise. A course holds at most
/// [`LESSONS_MAX`] lessons.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_manage(&mut call).await?;
    let (id, sid, now, base) = (call.id(), call.params.id(1), call.now, call.base());
    let body = call.object().await?;
    let lid = call
        .write(move |tx, who| {
            managed_course(tx, id, who)?;
            let section = courses::section(tx, id, sid)?.ok_or(ApiError::NotFound)?;
            let mut lesson = Lesson {
                section_id: sid,
                comments_enabled: true,
                created_at: now,
                created_by: Some(who.user_id),
                ..Lesson::default()
            };
            apply(&body, true, &mut lesson)?;
            if db::count(tx, id)? >= LESSONS_MAX {
                return Err(ApiError::field(
                    "non_field_errors",
                    "max_value",
                    format!("A course holds at most {LESSONS_MAX} lessons."),
                ));
            }
            let lid = db::insert(tx, &lesson)?;
            let mut order = section.lessons_order;
            order.push(lid);
            courses::set_lessons_order(tx, sid, &order)?;
            Ok((lid, who.user_id))
        })
        .await?;
    let (lid, who) = lid;
    let out = call.answer(move |c| managed_json(c, (id, sid, lid), who, &base)).await?;
    Ok(json_response(StatusCode::CREATED, &out))
}

/// `PUT|PATCH …/lesson/{lesson_id}/`: the creator and managers; 200 with the lesson.
async fn update(mut call: Call<Principal>, full: bool) -> Result<Response, ApiError> {
    pre_manage(&mut call).await?;
    let ids = (call.id(), call.params.id(1), call.params.id(2));
    let base = call.base();
    let body = call.object().await?;
    let who = call
        .write(move |tx, who| {
            managed_course(tx, ids.0, who)?;
            let mut lesson = db::get(tx, ids.0, ids.1, ids.2)?.ok_or(ApiError::NotFound)?;
            apply(&body, full, &mut lesson)?;
            db::update(tx, &lesson)?;
            Ok(who.user_id)
        })
        .await?;
    let out = call.answer(move |c| managed_json(c, ids, who, &base)).await?;
    Ok(ok(&out))
}

/// `DELETE …/lesson/{lesson_id}/`: the lesson, its completions and comments; 204.
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    pre_manage(&mut call).await?;
    let (id, sid, lid) = (call.id(), call.params.id(1), call.params.id(2));
    call.no_body().await?;
    call.write(move |tx, who| {
        managed_course(tx, id, who)?;
        let section = courses::section(tx, id, sid)?.ok_or(ApiError::NotFound)?;
        db::get(tx, id, sid, lid)?.ok_or(ApiError::NotFound)?;
        db::delete(tx, lid)?;
        let order: Vec<i64> = section.lessons_order.into_iter().filter(|x| *x != lid).collect();
        courses::set_lessons_order(tx, sid, &order)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `POST …/lesson/{lesson_id}/complete/` and `…/incomplete/`: the caller marks a
/// lesson they may open ([`open`]) complete or not; 204, also when it already was.
/// The creator and managers may too (the kit shows them no button).
async fn mark(mut call: Call<Principal>, done: bool) -> Result<Response, ApiError> {
    let ids = (call.id(), call.params.id(1), call.params.id(2));
    let now = call.now;
    let who = call.read(move |c, who| open(c, ids, who).map(|_| who)).await?;
    call.req.body.authorised(&who);
    call.no_body().await?;
    call.write(move |tx, who| {
        let o = open(tx, ids, who)?;
        if done {
            db::complete(tx, o.lesson.id, who.user_id, now)?;
        } else {
            db::incomplete(tx, o.lesson.id, who.user_id)?;
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

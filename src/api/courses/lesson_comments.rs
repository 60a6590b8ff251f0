//! Comments on a course's lessons: read and written by whoever may open the lesson
//! ([`super::lessons::open`]) while the lesson takes comments, edited by their author,
//! deleted by their author or the course's creator and managers; and every comment of
//! a course for its creator and managers (the kit's teacher dashboard).

use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::lessons::{Opened, open};
use super::managed_course;
use super::members::notify_managers;
use crate::api::call::{Call, user, write};
use crate::api::listing::list_page;
use crate::db::lesson_comments as db;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::PublicUrl;
use crate::model::course::manages;
use crate::model::course_lesson::{CommentInput, CommentJson, LessonComment};
use crate::model::rich_text;
use crate::model::user::User;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    const COMMENTS: &str = "/api/v2/course/{id}/section/{section_id}/lesson/{lesson_id}/comment/";
    const COMMENT: &str =
        "/api/v2/course/{id}/section/{section_id}/lesson/{lesson_id}/comment/{comment_id}/";
    vec![
        user(Method::GET, COMMENTS, "listCourseLessonComments", list).list::<CommentOrder>(),
        write(Method::POST, COMMENTS, "createCourseLessonComment", create).body::<CommentInput>(),
        user(Method::GET, COMMENT, "getCourseLessonComment", get),
        write(Method::PUT, COMMENT, "replaceCourseLessonComment", edit).body::<CommentInput>(),
        write(Method::PATCH, COMMENT, "updateCourseLessonComment", edit).body::<CommentInput>(),
        write(Method::DELETE, COMMENT, "deleteCourseLessonComment", delete),
        user(Method::GET, "/api/v2/course/{id}/comment/", "listCourseComments", course_list)
            .paged(),
    ]
}

crate::query_params! {
    /// The order of a lesson's comments.
    struct CommentOrder {
        /// -added_at (newest first, the default) or added_at (oldest first, what the
        /// kit's lesson page asks); anything else is 400.
        #[param(schema_with = orderings)]
        ordering: Option<String>,
    }
}

fn orderings() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["-added_at", "added_at"])
}

/// The path's course, section and lesson ids.
fn lesson_ids(call: &Call<Principal>) -> (i64, i64, i64) {
    (call.params.id(0), call.params.id(1), call.params.id(2))
}

fn json((comment, author): (LessonComment, Option<User>), base: &PublicUrl) -> CommentJson {
    comment.to_json(author.map(|u| u.minimal(base)))
}

/// `GET …/lesson/{lesson_id}/comment/`: paginated ([`CommentOrder`]).
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let (ids, base) = (lesson_ids(&call), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let newest_first = match CommentOrder::read(q)?.ordering.as_deref().map(str::trim) {
            None | Some("" | "-added_at") => true,
            Some("added_at") => false,
            Some(_) => {
                return Err(ApiError::field("ordering", "invalid", "One of added_at, -added_at."));
            }
        };
        let o = open(c, ids, who)?;
        let (count, rows) = db::of_lesson(c, o.lesson.id, newest_first, (page.limit, page.offset))?;
        Ok((page, count, rows.into_iter().map(|r| json(r, &base)).collect()))
    })
    .await
}

/// `GET …/comment/{comment_id}/`
async fn get(call: Call<Principal>) -> Result<Response, ApiError> {
    let (ids, cid, base) = (lesson_ids(&call), call.params.id(3), call.base());
    let out = call
        .read(move |c, who| {
            let o = open(c, ids, who)?;
            Ok(json(db::get(c, o.lesson.id, cid)?.ok_or(ApiError::NotFound)?, &base))
        })
        .await?;
    Ok(ok(&out))
}

/// The lesson, when the caller may open it and it takes comments (403 otherwise).
fn commentable(
    c: &rusqlite::Connection,
    ids: (i64, i64, i64),
    who: Principal,
) -> Result<Opened, ApiError> {
    let o = open(c, ids, who)?;
    if o.lesson.comments_enabled {
        Ok(o)
    } else {
        Err(ApiError::Refused("Comments are off for this lesson."))
    }
}

/// Reads a comment body (after the checks that need no body).
async fn body(call: &mut Call<Principal>) -> Result<(String, String), ApiError> {
    let map = call.object().await?;
    let input = CommentInput::parse(&map).map_err(ApiError::Invalid)?;
    let html = rich_text::render(&input.text).html;
    Ok((input.text, html))
}

/// `POST …/lesson/{lesson_id}/comment/` `{"text"}`: 201 with the comment.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (ids, now, base) = (lesson_ids(&call), call.now, call.base());
    let who = call.read(move |c, who| commentable(c, ids, who).map(|_| who)).await?;
    call.req.body.authorised(&who);
    let (text, html) = body(&mut call).await?;
    let (lesson, cid) = call
        .write(move |tx, who| {
            let o = commentable(tx, ids, who)?;
            let cid = db::insert(tx, o.course.id, o.lesson.id, who.user_id, (&text, &html), now)?;
            // the course's creator and managers, when they asked to be
            if o.course.new_comment_notification_enabled {
                let kind = crate::db::notifications::Type::LessonComment;
                notify_managers(tx, o.course.id, who.user_id, kind, Some(cid), now)?;
            }
            Ok((o.lesson.id, cid))
        })
        .await?;
    let out = call
        .answer(move |c| Ok(json(db::get(c, lesson, cid)?.ok_or(ApiError::NotFound)?, &base)))
        .await?;
    Ok(json_response(StatusCode::CREATED, &out))
}

/// The comment `cid` on the lesson, when the caller may open the lesson; 404 otherwise.
fn comment_of(
    c: &rusqlite::Connection,
    ids: (i64, i64, i64),
    cid: i64,
    who: Principal,
) -> Result<(Opened, LessonComment), ApiError> {
    let o = open(c, ids, who)?;
    let (comment, _) = db::get(c, o.lesson.id, cid)?.ok_or(ApiError::NotFound)?;
    Ok((o, comment))
}

/// `PUT|PATCH …/comment/{comment_id}/` `{"text"}`: its author only (403 otherwise),
/// while the lesson takes comments; 200 with the comment.
async fn edit(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (ids, cid, now, base) = (lesson_ids(&call), call.params.id(3), call.now, call.base());
    let check = move |c: &rusqlite::Connection, who: Principal| {
        let (o, comment) = comment_of(c, ids, cid, who)?;
        if comment.created_by != who.user_id {
            return Err(ApiError::PermissionDenied);
        }
        commentable(c, ids, who)?;
        Ok(o.lesson.id)
    };
    let who = call.read(move |c, who| check(c, who).map(|_lesson| who)).await?;
    call.req.body.authorised(&who);
    let (text, html) = body(&mut call).await?;
    let lesson = call
        .write(move |tx, who| {
            let lesson = check(tx, who)?;
            db::edit(tx, cid, (&text, &html), now)?;
            Ok(lesson)
        })
        .await?;
    let out = call
        .answer(move |c| Ok(json(db::get(c, lesson, cid)?.ok_or(ApiError::NotFound)?, &base)))
        .await?;
    Ok(ok(&out))
}

/// `DELETE …/comment/{comment_id}/`: its author, or the course's creator and managers;
/// 204. The comment is gone (comments on lessons have no replies to keep).
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (ids, cid) = (lesson_ids(&call), call.params.id(3));
    let check = move |c: &rusqlite::Connection, who: Principal| {
        let (o, comment) = comment_of(c, ids, cid, who)?;
        if comment.created_by == who.user_id || manages(o.status) {
            Ok(())
        } else {
            Err(ApiError::PermissionDenied)
        }
    };
    let who = call.read(move |c, who| check(c, who).map(|()| who)).await?;
    call.req.body.authorised(&who);
    call.no_body().await?;
    call.write(move |tx, who| {
        check(tx, who)?;
        db::delete(tx, cid)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/course/{id}/comment/`: every comment on the course's lessons, newest
/// first, for its creator and managers (403 for others who see the course).
async fn course_list(call: Call<Principal>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        managed_course(c, id, who)?;
        let (count, rows) = db::of_course(c, id, (page.limit, page.offset))?;
        Ok((page, count, rows.into_iter().map(|r| json(r, &base)).collect()))
    })
    .await
}

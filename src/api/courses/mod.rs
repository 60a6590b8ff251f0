//! `/api/v2/course/...`: courses (this file), membership ([`members`]) and sections
//! ([`sections`]), as SPEC §5 "Courses" describes them; lessons ([`lessons`]) and their
//! comments ([`lesson_comments`]), as the kit's course pages use them (docs/decisions.md),
//! each seen through the caller's [`outline`].

mod lesson_comments;
mod lessons;
mod members;
mod outline;
mod progress;
mod sections;

use rusqlite::Connection;
use warp::http::Method;
use warp::http::StatusCode;
use warp::reply::Response;

use self::outline::Outline;
use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::upload;
use crate::clock::Timestamp;
use crate::db::categories;
use crate::db::course_view::{self, Extras, View};
use crate::db::courses as db;
use crate::db::members::{Roster, status_of};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::images::Squares;
use crate::model::PublicUrl;
use crate::model::course::{
    Course, CourseJson, JoinStatus, Privacy, manages, new_course, parse_statuses, same_ids, visible,
};
use crate::model::course_input::CourseInput;
use crate::model::field::FieldError;

/// The endpoints of this module and its submodules.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/course/", "listMyCourses", list).list::<MemberStatuses>(),
        write(Method::POST, "/api/v2/course/", "createCourse", create).body::<CourseInput>(),
        ca(Method::GET, "/api/v2/course/search/", "searchCourses", search_courses)
            .list::<CourseSearch>(),
        ca(Method::GET, "/api/v2/course/{id}/", "getCourse", get).query::<CourseViewQuery>(),
        write(Method::PUT, "/api/v2/course/{id}/", "replaceCourse", |c| update(c, true))
            .body::<CourseInput>(),
        write(Method::PATCH, "/api/v2/course/{id}/", "updateCourse", |c| update(c, false))
            .body::<CourseInput>(),
        write(Method::DELETE, "/api/v2/course/{id}/", "deleteCourse", delete),
    ]
    .into_iter()
    .chain(members::endpoints())
    .chain(sections::endpoints())
    .chain(lessons::endpoints())
    .chain(lesson_comments::endpoints())
    .chain(progress::endpoints())
    .collect()
}

/// The course `id` and the caller's status in it, when the caller may see it (404
/// otherwise, SPEC §3: what the caller may not see does not exist for it).
pub(crate) fn visible_course(
    c: &Connection,
    id: i64,
    who: Option<Principal>,
) -> Result<(Course, Option<JoinStatus>), ApiError> {
    let course = db::get(c, id)?.ok_or(ApiError::NotFound)?;
    let status = status_of(c, Roster::Course, id, who.map(|w| w.user_id))?;
    if visible(&course, status) { Ok((course, status)) } else { Err(ApiError::NotFound) }
}

/// [`visible_course`] for an operation only the creator and managers may do: 403 for
/// a caller who sees the course but does not manage it.
pub(crate) fn managed_course(
    c: &Connection,
    id: i64,
    who: Principal,
) -> Result<(Course, Option<JoinStatus>), ApiError> {
    let (course, status) = visible_course(c, id, Some(who))?;
    if manages(status) { Ok((course, status)) } else { Err(ApiError::PermissionDenied) }
}

/// Course JSON for a caller who holds the record: its creator, counts and category ids
/// in one statement ([`course_view::extras`]), then one statement a category (by id).
pub(crate) fn course_json(
    c: &Connection,
    course: &Course,
    user: Option<i64>,
    status: Option<JoinStatus>,
    base: &PublicUrl,
) -> Result<CourseJson, ApiError> {
    let extras = course_view::extras(c, course, user)?;
    shown(c, course, status, extras, user, base)
}

/// The JSON of a course read with its status and extras ([`course_view::view`]).
fn view_json(
    c: &Connection,
    view: View,
    user: Option<i64>,
    base: &PublicUrl,
) -> Result<CourseJson, ApiError> {
    shown(c, &view.course, view.status, view.extras, user, base)
}

/// A course's JSON from the record, the caller's status and its extras; its categories
/// (marked for `user`) read here by the ids the course's row keeps.
fn shown(
    c: &Connection,
    course: &Course,
    status: Option<JoinStatus>,
    extras: Extras,
    user: Option<i64>,
    base: &PublicUrl,
) -> Result<CourseJson, ApiError> {
    let creator = extras
        .creator
        .ok_or_else(|| ApiError::internal(format!("course {} has no creator", course.id)))?;
    Ok(course.to_json(
        base,
        status,
        creator.minimal(base),
        categories::with_ids(c, &extras.category_ids, user)?,
        extras.counts,
    ))
}

/// The courses of `ids` that exist, in that order, as `user` sees them: per course, a
/// statement ([`course_view::view`]) and one a category.
fn course_jsons(
    c: &Connection,
    ids: &[i64],
    user: Option<i64>,
    base: &PublicUrl,
) -> Result<Vec<CourseJson>, ApiError> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(view) = course_view::view(c, *id, user)? {
            out.push(view_json(c, view, user, base)?);
        }
    }
    Ok(out)
}

crate::query_params! {
    /// The join statuses a course list or a member list keeps.
    pub(crate) struct MemberStatuses {
        /// Join statuses among creator, manager, joined, invited and requested,
        /// comma-separated or as a JSON array; default (also when empty)
        /// creator,manager,joined. An unknown status is 400 `invalid_choice`.
        statuses: Option<String>,
    }
}

/// The `statuses` query parameter of the course and member lists (default creator,
/// manager, joined); an unknown status is 400 `invalid_choice`.
pub(crate) fn member_statuses(q: &crate::http::query::Query) -> Result<Vec<JoinStatus>, ApiError> {
    member_statuses_or(MemberStatuses::read(q)?.statuses.as_deref(), &JoinStatus::MEMBERS)
}

/// A `statuses` parameter's statuses, `default` when it is absent or empty; an unknown
/// status is 400 `invalid_choice`.
pub(crate) fn member_statuses_or(
    statuses: Option<&str>,
    default: &[JoinStatus],
) -> Result<Vec<JoinStatus>, ApiError> {
    parse_statuses(statuses, default).map_err(|m| ApiError::field("statuses", "invalid_choice", m))
}

crate::query_params! {
    /// The course search's filters and order.
    struct CourseSearch {
        /// Substring of the name (case-insensitive, Unicode) or of the description
        /// (case-insensitive for ASCII letters).
        search: Option<String>,
        /// Category ids, comma-separated (also repeated, or as categories[]=); a course
        /// matches when it has any of them. A non-integer is 400.
        categories: Option<Vec<i64>>,
        /// The order, -id (newest first) unless named; anything else is 400
        /// invalid_choice. name orders case-insensitively.
        #[param(schema_with = search_orderings)]
        ordering: Option<String>,
    }
}

fn search_orderings() -> utoipa::openapi::schema::Object {
    let names: Vec<&str> = db::SEARCH_ORDERINGS.iter().map(|(k, _)| *k).collect();
    crate::http::query_params::one_of(&names)
}

/// 403 unless the caller may create courses (`courses_only_staff_enabled`).
fn may_create(c: &Connection, who: Principal) -> Result<(), ApiError> {
    crate::api::members::may_create(c, "course", who)
}

/// The rules that need the database, added to `errors`: unique name and slug, existing
/// categories, privacy never back to draft, `sections_order` listing exactly the
/// course's sections. `course` is the record before the change (id 0 when new).
fn check_against_db(
    c: &Connection,
    input: &CourseInput,
    course: &Course,
    errors: &mut Vec<FieldError>,
) -> Result<(), ApiError> {
    if let Some(name) = &input.name
        && !name.is_empty()
        && db::name_taken(c, &crate::model::course::name_key(name), course.id)?
    {
        errors.push(FieldError::new("name", "unique", "A course with this name already exists."));
    }
    if let Some(slug) = &input.slug
        && crate::model::slug::is_valid(slug)
        && db::slug_taken(c, slug, course.id)?
    {
        errors.push(FieldError::new("slug", "unique", "A course with this slug already exists."));
    }
    if let Some(ids) = &input.categories
        && let Some(id) = crate::db::categories::first_missing(c, ids)?
    {
        errors.push(FieldError::new(
            "categories",
            "invalid",
            format!("Invalid pk \"{id}\" - object does not exist."),
        ));
    }
    if input.privacy == Some(Privacy::Draft) && course.privacy != Privacy::Draft {
        errors.push(FieldError::new(
            "privacy",
            "invalid",
            "The privacy of a course cannot go back to draft (\"\") once it has been set.",
        ));
    }
    if let Some(order) = &input.sections_order {
        let ids: Vec<i64> = db::sections(c, course.id)?.iter().map(|s| s.id).collect();
        // a new course (id 0) has no sections: only [] fits
        if !same_ids(order, &ids) {
            errors.push(FieldError::new(
                "sections_order",
                "invalid",
                "sections_order must list exactly the ids of the course's sections.",
            ));
        }
    }
    Ok(())
}

/// Stores the squares of a new image under a fresh versioned key (so `/media/` can
/// cache them as immutable) and drops the previous ones.
fn store_image(
    c: &Connection,
    course: &mut Course,
    squares: &Squares,
    now: Timestamp,
) -> Result<(), ApiError> {
    crate::db::media::delete_prefix(c, &format!("course/{}/", course.id))?;
    let key = format!(
        "course/{}/{}.{}",
        course.id,
        crate::token::random_string(8).to_ascii_lowercase().replace(['-', '_'], "x"),
        squares.extension
    );
    for sq in &squares.squares {
        crate::db::media::put(
            c,
            &crate::model::course::media_path(&key, sq.side),
            squares.content_type,
            &sq.bytes,
            now,
        )?;
    }
    course.image_key = Some(key);
    Ok(())
}

crate::query_params! {
    /// Which page of the kit asks for a course, and for whom.
    struct CourseViewQuery {
        /// user (the course page), edit (its editor) or dashboard (its teacher's
        /// dashboard, which also reads `avg_completion_rate`): the answer then carries
        /// `sections`; absent: it does not. Anything else is 400 invalid_choice.
        #[param(schema_with = course_views)]
        view: Option<String>,
        /// A member's id (creator, manager or joined; 404 for anyone else): the course as
        /// they see it (their join_status, progress and locks, with `sections`): a
        /// student's progress, for the creator and managers only (403 for others who see
        /// the course). A non-integer is 400.
        #[param(value_type = Option<i64>)]
        user: Option<String>,
    }
}

fn course_views() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["user", "edit", "dashboard"])
}

/// `GET /api/v2/course/{id}/` (`?view=`, `?user=`: [`CourseViewQuery`])
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    let q = CourseViewQuery::read(&call.query()?)?;
    let view_name = q.view.clone();
    if !matches!(view_name.as_deref(), None | Some("user" | "edit" | "dashboard")) {
        return Err(ApiError::field(
            "view",
            "invalid_choice",
            "Expected one of user, edit, dashboard.",
        ));
    }
    let student = match q.user.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(u) => Some(
            u.parse::<i64>()
                .map_err(|_| ApiError::field("user", "invalid", "Must be an integer id."))?,
        ),
    };
    let with_sections = view_name.is_some() || student.is_some();
    let dashboard = view_name.as_deref() == Some("dashboard");
    let json = call
        .read(move |c, who| {
            let mut user = who.map(|w| w.user_id);
            // the record, the caller's status, creator and counts in one statement
            let mut view = course_view::view(c, id, user)?.ok_or(ApiError::NotFound)?;
            if !visible(&view.course, view.status) {
                return Err(ApiError::NotFound);
            }
            let manager = manages(view.status);
            if let Some(s) = student {
                if !manager {
                    return Err(ApiError::PermissionDenied);
                }
                user = Some(s);
                view = course_view::view(c, id, user)?.ok_or(ApiError::NotFound)?;
                // a member's progress: anyone else is not there to look at
                if !view.status.is_some_and(|st| JoinStatus::MEMBERS.contains(&st)) {
                    return Err(ApiError::NotFound);
                }
            }
            let sections = with_sections.then(|| Outline::read(c, &view.course, view.status, user));
            let average = (dashboard && manager)
                .then(|| crate::db::course_lessons::average_completion(c, id));
            let mut json = view_json(c, view, user, &base)?;
            json.sections = sections.transpose()?.map(Outline::json);
            json.avg_completion_rate = average.transpose()?;
            Ok(json)
        })
        .await?;
    Ok(ok(&json))
}

/// A course's form: its image, and its list fields.
const COURSE_FORM: upload::Form =
    upload::Form { file: "image_original", lists: &["categories", "sections_order"] };

/// A course body, read once `who` may send it: the input, the problems found without
/// the database, and the image's squares (`full`: PUT and create, `name` and `type`
/// required).
async fn course_body(
    call: &mut Call<Principal>,
    who: &Principal,
    full: bool,
) -> Result<(CourseInput, Vec<FieldError>, Option<crate::images::Squares>), ApiError> {
    call.req.body.authorised(who);
    let (map, image) = upload::read(call.take_body(), &call.req.headers, COURSE_FORM).await?;
    let (input, mut errors) = CourseInput::parse(&map, full);
    let squares =
        upload::process_image(image, COURSE_FORM.file, &call.state().body_budget, &mut errors)
            .await?;
    Ok((input, errors, squares))
}

/// `POST /api/v2/course/`
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (now, base) = (call.now, call.base());
    // who may create is answered before anything about the body
    let who = call.read(move |c, who| may_create(c, who).map(|()| who)).await?;
    let (input, mut errors, squares) = course_body(&mut call, &who, true).await?;
    let id = call
        .write(move |tx, who| {
            may_create(tx, who)?;
            let mut course = new_course(who.user_id, now);
            check_against_db(tx, &input, &course, &mut errors)?;
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            input.apply(&mut course);
            if input.slug.is_none() {
                let base_slug = crate::model::slug::slugify(&course.name, "course");
                course.slug = crate::model::slug::unique(&base_slug, |s| db::slug_taken(tx, s, 0))?;
            }
            course.sections_order.clear();
            let categories = input.categories.as_deref().unwrap_or_default();
            course.id = db::create(tx, &course, None, categories)?;
            if let Some(sq) = &squares {
                store_image(tx, &mut course, sq, now)?;
                db::update(tx, &course)?;
            }
            Ok::<_, ApiError>(course.id)
        })
        .await?;
    let user = who.user_id;
    let json = call.answer(move |c| as_read(c, id, user, &base)).await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `PUT|PATCH /api/v2/course/{id}/` (`full`: PUT, where `name` and `type` are required).
async fn update(mut call: Call<Principal>, full: bool) -> Result<Response, ApiError> {
    let (id, now, base) = (call.id(), call.now, call.base());
    let who = call.read(move |c, who| managed_course(c, id, who).map(|_| who)).await?;
    let (input, mut errors, squares) = course_body(&mut call, &who, full).await?;
    call.write(move |tx, who| {
        let (mut course, _) = managed_course(tx, id, who)?;
        check_against_db(tx, &input, &course, &mut errors)?;
        if !errors.is_empty() {
            return Err(ApiError::Invalid(errors));
        }
        input.apply(&mut course);
        if let Some(ids) = &input.categories {
            db::set_categories(tx, course.id, ids)?;
        }
        if let Some(sq) = &squares {
            store_image(tx, &mut course, sq, now)?;
        } else if input.clear_image && course.image_key.is_some() {
            crate::db::media::delete_prefix(tx, &format!("course/{}/", course.id))?;
            course.image_key = None;
        }
        db::update(tx, &course)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    let user = who.user_id;
    let json = call.answer(move |c| as_read(c, id, user, &base)).await?;
    Ok(ok(&json))
}

/// The answer to a course's create or update: the course as `user` reads it (read once
/// the write committed, `Call::answer`).
fn as_read(c: &Connection, id: i64, user: i64, base: &PublicUrl) -> Result<CourseJson, ApiError> {
    let view = course_view::view(c, id, Some(user))?.ok_or(ApiError::NotFound)?;
    view_json(c, view, Some(user), base)
}

/// `DELETE /api/v2/course/{id}/`: creator only, soft.
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let id = call.id();
    // read now, report only after the full authentication in the transaction (a
    // signed JWT of a deleted user is 401 whatever it sent)
    let no_body = call.no_body().await;
    call.write(move |tx, who| {
        no_body?;
        let (mut course, status) = visible_course(tx, id, Some(who))?;
        if status != Some(JoinStatus::Creator) {
            return Err(ApiError::PermissionDenied);
        }
        if !course.deleted {
            course.deleted = true;
            db::update(tx, &course)?;
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/course/`: the caller's courses by status, newest first.
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let statuses = member_statuses(q)?;
        let page = Page::from_query(q)?;
        let (count, ids) = db::list_for_user(c, who.user_id, &statuses, page.limit, page.offset)?;
        let results = course_jsons(c, &ids, Some(who.user_id), &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/course/search/`: visible courses.
async fn search_courses(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let p = CourseSearch::read(q)?;
        let ordering = p.ordering.as_deref().filter(|o| !o.is_empty()).unwrap_or("-id");
        let order_by =
            db::SEARCH_ORDERINGS.iter().find(|(k, _)| *k == ordering).map(|(_, v)| *v).ok_or_else(
                || {
                    ApiError::field(
                        "ordering",
                        "invalid_choice",
                        "ordering must be one of id, name, created_at, optionally prefixed with -.",
                    )
                },
            )?;
        let page = Page::from_query(q)?;
        let s = db::Search {
            user: who.map(|w| w.user_id),
            text: p.search.filter(|t| !t.is_empty()),
            categories: p.categories,
            order_by,
        };
        let (count, ids) = if s.text.is_none() && s.categories.is_none() && ordering == "-id" {
            db::search_newest(c, s.user, page.limit, page.offset)?
        } else {
            db::search(c, &s, page.limit, page.offset)?
        };
        let results = course_jsons(c, &ids, s.user, &base)?;
        Ok((page, count, results))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::route::Auth;

    #[test]
    fn course_operations_have_the_auth_classes_of_spec_5() {
        let all = endpoints();
        assert_eq!(all.len(), 39);
        // the reads a visitor may make while content is available; the member lists,
        // a lesson, its comments and the course's comments need a caller; every other
        // operation writes
        for e in &all {
            let expected = match (e.method.as_str(), e.path) {
                ("GET", "/api/v2/course/") => Auth::User,
                ("GET", p) if p.ends_with("/lesson/") => Auth::Ca,
                ("GET", p) if p.contains("/lesson/") || p.ends_with("/comment/") => Auth::User,
                ("GET", p) if p.ends_with("/users/") || p.ends_with("/user/") => Auth::User,
                ("GET", p) if p.ends_with("/join/") || p.ends_with("/invite/") => Auth::User,
                ("GET", p) if p.ends_with("/request_join/") => Auth::User,
                ("GET", _) => Auth::Ca,
                _ => Auth::Write,
            };
            assert_eq!(e.auth, expected, "{e:?}");
        }
    }
}

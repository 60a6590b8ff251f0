//! `/api/v2/{discussion,post,status,comment}/...`: create, read, list, soft delete and
//! restore. The four kinds share every handler, parameterised by [`Kind`]; the routes
//! are generated per kind.

use serde_json::{Map, Value};
use warp::Filter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::auth;
use crate::db::contributions::{self as store, NewContribution};
use crate::error::ApiError;
use crate::http::pagination::{Page, envelope};
use crate::http::{
    Req, Route, body, empty, json_response, method_not_allowed, no_slash, ok, request, respond,
    slash,
};
use crate::model::contribution::{self, Kind};
use crate::model::field::FieldError;
use crate::state::AppState;

/// Routes of this module: for each kind its collection, item and restore paths, plus
/// the slashless comment restore the SDK uses (SPEC §3).
pub fn routes(state: AppState) -> Route {
    let mut all = comment_restore_no_slash(state.clone());
    for kind in Kind::ALL {
        all = all
            .or(collection(kind, state.clone()))
            .unify()
            .or(item(kind, state.clone()))
            .unify()
            .or(restore_route(kind, state.clone()))
            .unify()
            .boxed();
    }
    all
}

/// `/api/v2/{kind}/` (without the trailing-slash check).
fn prefix(kind: Kind) -> impl Filter<Extract = (), Error = warp::Rejection> + Clone {
    warp::path("api")
        .and(warp::path("v2"))
        .and(warp::path(kind.as_str()))
}

/// `GET, POST /api/v2/{kind}/`: list (CA) and create (auth, write).
fn collection(kind: Kind, state: AppState) -> Route {
    prefix(kind)
        .and(warp::path::end())
        .and(slash())
        .and(request(state))
        .then(move |req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list(kind, req).await),
                Method::POST => respond(create(kind, req).await),
                _ => method_not_allowed("GET, HEAD, POST"),
            }
        })
        .boxed()
}

/// `GET, DELETE /api/v2/{kind}/{id}/`: read (CA) and soft delete (creator).
fn item(kind: Kind, state: AppState) -> Route {
    prefix(kind)
        .and(warp::path::param::<i64>())
        .and(warp::path::end())
        .and(slash())
        .and(request(state))
        .then(move |id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(read(kind, id, req).await),
                Method::DELETE => respond(set_deleted(kind, id, req, true).await),
                _ => method_not_allowed("GET, HEAD, DELETE"),
            }
        })
        .boxed()
}

/// `POST /api/v2/{kind}/{id}/restore/` (and `DELETE` for discussions: SEED-API lists
/// DELETE, its example uses POST; both are served).
fn restore_route(kind: Kind, state: AppState) -> Route {
    prefix(kind)
        .and(warp::path::param::<i64>())
        .and(warp::path("restore"))
        .and(warp::path::end())
        .and(slash())
        .and(request(state))
        .then(move |id: i64, req: Req| async move { restore_dispatch(kind, id, req).await })
        .boxed()
}

/// `POST /api/v2/comment/{id}/restore` without the trailing slash (SPEC §3).
fn comment_restore_no_slash(state: AppState) -> Route {
    warp::path!("api" / "v2" / "comment" / i64 / "restore")
        .and(no_slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move { restore_dispatch(Kind::Comment, id, req).await })
        .boxed()
}

async fn restore_dispatch(kind: Kind, id: i64, req: Req) -> Response {
    let discussion = kind == Kind::Discussion;
    match req.method {
        Method::POST => respond(set_deleted(kind, id, req, false).await),
        Method::DELETE if discussion => respond(set_deleted(kind, id, req, false).await),
        _ if discussion => method_not_allowed("DELETE, POST"),
        _ => method_not_allowed("POST"),
    }
}

/// `POST /api/v2/{kind}/`: 201 with the new object.
async fn create(kind: Kind, mut req: Req) -> Result<Response, ApiError> {
    auth::before_body(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    // read and checked now (nothing here needs the database, so none of it holds the
    // write lock); reported only after the full authentication in the transaction
    let checked = body::json::<Map<String, Value>>(req.body, &req.headers)
        .await
        .map(|body| contribution::validate(kind, &body));
    let json = req
        .state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            let (draft, mut errors) = checked?;
            // the checks that need the database, collected with the others
            let required = crate::db::prefs::get_bool(
                tx,
                "configurations",
                "post_category_required_enabled",
                false,
            )?;
            if required && let Some(e) = contribution::missing_categories(kind, &draft, &errors) {
                errors.push(e);
            }
            // the first unknown id, in the words courses (and DRF) use; one query
            if let Some(c) = crate::db::categories::first_missing(tx, &draft.categories)? {
                errors.push(FieldError::new(
                    "categories",
                    "invalid",
                    format!("Invalid pk \"{c}\" - object does not exist."),
                ));
            }
            let mut target_pk = None;
            if let Some((tk, tid)) = draft.target {
                match store::meta(tx, tk, tid)? {
                    Some(m) if !m.deleted => target_pk = Some(m.pk),
                    _ => errors.push(FieldError::new(
                        tk.as_str(),
                        "invalid",
                        format!("No {} with id {tid}.", tk.as_str()),
                    )),
                }
            }
            let mut parent_pk = None;
            if let Some(pid) = draft.parent {
                match store::meta(tx, Kind::Comment, pid)? {
                    Some(m) if !m.deleted && (target_pk.is_none() || m.target_pk == target_pk) => {
                        parent_pk = Some(m.pk);
                    }
                    _ => errors.push(FieldError::new(
                        "parent",
                        "invalid",
                        format!("No comment with id {pid} on the same item."),
                    )),
                }
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            let id = store::insert(
                tx,
                &NewContribution {
                    kind,
                    author_id: who.user_id,
                    title: draft.title,
                    action: draft.action,
                    text: draft.text,
                    added_at: now,
                    target_pk,
                    parent_pk,
                    categories: draft.categories,
                },
            )?;
            let created = store::get(tx, kind, id, Some(who.user_id))?
                .ok_or_else(|| ApiError::internal("contribution vanished after insert"))?;
            Ok::<_, ApiError>(created.to_json(&base))
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /api/v2/{kind}/{id}/`: a deleted item is 404 except for its creator.
async fn read(kind: Kind, id: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            let item =
                store::get(c, kind, id, who.map(|w| w.user_id))?.ok_or(ApiError::NotFound)?;
            if item.deleted && who.map(|w| w.user_id) != Some(item.author.id) {
                return Err(ApiError::NotFound);
            }
            Ok::<_, ApiError>(item.to_json(&base))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/{kind}/`: live items, newest first; comments narrowed by `discussion`,
/// `post` or `status`.
async fn list(kind: Kind, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let q = req.query();
    let url = req.state.config.public_url.at(&req.path);
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            let page = Page::from_query(&q)?;
            let mut filters = Vec::new();
            if kind == Kind::Comment {
                for tk in Kind::TARGETS {
                    if let Some(v) = q.get(tk.as_str()) {
                        let tid = v.trim().parse::<i64>().map_err(|_| {
                            ApiError::field(tk.as_str(), "invalid", "Must be an integer id.")
                        })?;
                        filters.push((tk, tid));
                    }
                }
            }
            // every filter must name the same live item; otherwise nothing matches
            let mut target = None;
            let mut nothing = false;
            for (tk, tid) in filters {
                match store::meta(c, tk, tid)? {
                    Some(m) if !m.deleted && target.is_none_or(|t| t == m.pk) => {
                        target = Some(m.pk);
                    }
                    _ => nothing = true,
                }
            }
            let (count, items) = if nothing {
                (0, Vec::new())
            } else {
                store::list(
                    c,
                    kind,
                    target,
                    who.map(|w| w.user_id),
                    page.limit,
                    page.offset,
                )?
            };
            let results = items.iter().map(|i| i.to_json(&base)).collect();
            Ok::<_, ApiError>(envelope(&url, &q, page, count, results))
        })
        .await?;
    Ok(ok(&json))
}

/// `DELETE /api/v2/{kind}/{id}/` (`deleted = true`) and the restore routes
/// (`deleted = false`): creator only, 204, idempotent.
async fn set_deleted(
    kind: Kind,
    id: i64,
    mut req: Req,
    deleted: bool,
) -> Result<Response, ApiError> {
    auth::before_body(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    let no_body = body::none(req.body, &req.headers).await;
    req.state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            no_body?;
            let m = store::meta(tx, kind, id)?.ok_or(ApiError::NotFound)?;
            if m.author_id != who.user_id {
                // another user's deleted item is invisible to the caller
                return Err(if m.deleted {
                    ApiError::NotFound
                } else {
                    ApiError::PermissionDenied
                });
            }
            store::set_deleted(tx, &m, deleted)?;
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

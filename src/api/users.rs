//! `/api/v2/user/...`: the caller, users, followings and followers.

use serde_json::json;
use warp::Filter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::auth;
use crate::db::follows::Direction;
use crate::error::ApiError;
use crate::http::pagination::{Page, envelope};
use crate::http::query::Query;
use crate::http::{Req, Route, body, empty, method_not_allowed, ok, request, respond, slash};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    me(state.clone())
        .or(detail(state.clone()))
        .unify()
        .or(connections(state.clone(), Direction::Followings))
        .unify()
        .or(connections(state.clone(), Direction::Followers))
        .unify()
        .or(follow(state.clone()))
        .unify()
        .or(relation(state.clone(), Relation::IsFollowed))
        .unify()
        .or(relation(state, Relation::IsFollower))
        .unify()
        .boxed()
}

/// `GET /api/v2/user/me/`: the caller as User JSON plus `email`.
fn me(state: AppState) -> Route {
    warp::path!("api" / "v2" / "user" / "me")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            if req.method != Method::GET && req.method != Method::HEAD {
                return method_not_allowed("GET, HEAD");
            }
            respond(get_me(req).await)
        })
        .boxed()
}

async fn get_me(req: Req) -> Result<warp::reply::Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::require(c, &creds, now)?;
            let user =
                crate::db::users::get(c, who.user_id)?.ok_or(ApiError::AuthenticationFailed)?;
            let mut j = user.to_json(&base, false, crate::db::users::tags(c, user.id)?);
            j.email = Some(user.email.clone().unwrap_or_default());
            Ok::<_, ApiError>(j)
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/user/{id}/` (CA): User JSON; deleted users are 404.
fn detail(state: AppState) -> Route {
    warp::path!("api" / "v2" / "user" / i64)
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(get_user(id, req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

async fn get_user(id: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            let user = crate::db::users::get(c, id)?
                .filter(|u| !u.deleted)
                .ok_or(ApiError::NotFound)?;
            let followed = match who {
                Some(p) => crate::db::follows::is_following(c, p.user_id, id)?,
                None => false,
            };
            Ok::<_, ApiError>(user.to_json(&base, followed, crate::db::users::tags(c, id)?))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/user/{id}/followings/` and `GET /api/v2/user/{id}/followers/` (CA).
fn connections(state: AppState, dir: Direction) -> Route {
    let path = match dir {
        Direction::Followings => warp::path!("api" / "v2" / "user" / i64 / "followings").boxed(),
        Direction::Followers => warp::path!("api" / "v2" / "user" / i64 / "followers").boxed(),
    };
    path.and(slash())
        .and(request(state))
        .then(move |id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list_connections(id, dir, req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// `mutual`: exactly `0` or `1` (SPEC §3: it is not a boolean).
fn mutual_param(q: &Query) -> Result<Option<bool>, ApiError> {
    match q.get("mutual") {
        None => Ok(None),
        Some("1") => Ok(Some(true)),
        Some("0") => Ok(Some(false)),
        Some(_) => Err(ApiError::field(
            "mutual",
            "invalid_choice",
            "Must be 0 or 1.",
        )),
    }
}

async fn list_connections(id: i64, dir: Direction, req: Req) -> Result<Response, ApiError> {
    let q = req.query();
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let parsed = Page::from_query(&q).and_then(|p| Ok((p, mutual_param(&q)?)));
    let (page, count, results) = req
        .state
        .db
        .read(move |c| {
            let who = auth::resolve_ca(c, &creds, now)?;
            let (page, mutual) = parsed?;
            let counters = crate::db::follows::live_counters(c, id)?.ok_or(ApiError::NotFound)?;
            let count = crate::db::follows::count(counters, dir, mutual);
            let rows = crate::db::follows::page(
                c,
                id,
                dir,
                mutual,
                who.map(|p| p.user_id),
                page.limit,
                page.offset,
            )?;
            let ids: Vec<i64> = rows.iter().map(|(u, _)| u.id).collect();
            let mut tags = crate::db::follows::tags_of(c, &ids)?;
            let results: Vec<_> = rows
                .into_iter()
                .map(|(u, followed)| {
                    let t = tags.remove(&u.id).unwrap_or_default();
                    u.to_json(&base, followed, t)
                })
                .collect();
            Ok::<_, ApiError>((page, count, results))
        })
        .await?;
    let url = req.state.config.public_url.at(&req.path);
    Ok(ok(&envelope(&url, &q, page, count, results)))
}

/// `POST /api/v2/user/{id}/follow/` (auth, write): follow or unfollow; 204.
fn follow(state: AppState) -> Route {
    warp::path!("api" / "v2" / "user" / i64 / "follow")
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::POST => respond(toggle_follow(id, req).await),
                _ => method_not_allowed("POST"),
            }
        })
        .boxed()
}

async fn toggle_follow(id: i64, mut req: Req) -> Result<Response, ApiError> {
    auth::before_body(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    // read now, judged after authentication (an anonymous call is 401 whatever its body)
    let no_body = body::none(req.body, &req.headers).await;
    req.state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            no_body?;
            if id == who.user_id {
                return Err(ApiError::field(
                    "user",
                    "invalid",
                    "You cannot follow yourself.",
                ));
            }
            if !crate::db::users::is_live(tx, id)? {
                return Err(ApiError::NotFound);
            }
            crate::db::follows::toggle(tx, who.user_id, id, now)?;
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// The two yes/no questions about the caller and `{id}`.
#[derive(Debug, Clone, Copy)]
enum Relation {
    /// Does the caller follow `{id}`?
    IsFollowed,
    /// Does `{id}` follow the caller?
    IsFollower,
}

/// `GET /api/v2/user/{id}/is_followed/` and `GET /api/v2/user/{id}/is_follower/` (auth).
fn relation(state: AppState, rel: Relation) -> Route {
    let path = match rel {
        Relation::IsFollowed => warp::path!("api" / "v2" / "user" / i64 / "is_followed").boxed(),
        Relation::IsFollower => warp::path!("api" / "v2" / "user" / i64 / "is_follower").boxed(),
    };
    path.and(slash())
        .and(request(state))
        .then(move |id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(get_relation(id, rel, req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

async fn get_relation(id: i64, rel: Relation, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let answer = req
        .state
        .db
        .read(move |c| {
            let who = auth::require(c, &creds, now)?;
            if !crate::db::users::is_live(c, id)? {
                return Err(ApiError::NotFound);
            }
            Ok::<_, ApiError>(match rel {
                Relation::IsFollowed => crate::db::follows::is_following(c, who.user_id, id)?,
                Relation::IsFollower => crate::db::follows::is_following(c, id, who.user_id)?,
            })
        })
        .await?;
    Ok(ok(&match rel {
        Relation::IsFollowed => json!({ "is_followed": answer }),
        Relation::IsFollower => json!({ "is_follower": answer }),
    }))
}

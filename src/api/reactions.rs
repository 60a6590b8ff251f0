//! `/api/v2/reaction/...`: reactions (SPEC §5). Public, but a bad token is still 401.

use warp::Filter;
use warp::http::Method;
use warp::reply::Response;

use crate::api::auth;
use crate::db::reactions::Filter as ReactionFilter;
use crate::error::ApiError;
use crate::http::pagination::{Page, envelope};
use crate::http::{Req, Route, method_not_allowed, ok, request, respond, slash};
use crate::model::PublicUrl;
use crate::model::reaction::{Reaction, ReactionJson};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    search(state.clone())
        .or(list(state.clone()))
        .unify()
        .or(detail(state))
        .unify()
        .boxed()
}

fn to_json(base: &PublicUrl, r: Reaction) -> ReactionJson {
    ReactionJson::new(
        base,
        r.id,
        r.label,
        r.sentiment,
        r.image.as_deref(),
        r.active,
    )
}

/// `GET /api/v2/reaction/search/`
fn search(state: AppState) -> Route {
    warp::path!("api" / "v2" / "reaction" / "search")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list_reactions(req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// `GET /api/v2/reaction/`
fn list(state: AppState) -> Route {
    warp::path!("api" / "v2" / "reaction")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list_reactions(req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// `GET /api/v2/reaction/{id}/`
fn detail(state: AppState) -> Route {
    warp::path!("api" / "v2" / "reaction" / i64)
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(get_reaction(id, req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

async fn list_reactions(req: Req) -> Result<Response, ApiError> {
    let q = req.query();
    let creds = req.credentials();
    let now = req.state.clock.now();
    let parsed = (|| {
        let page = Page::from_query(&q)?;
        let filter = ReactionFilter {
            search: q.text("search").map(str::to_owned),
            active: q.bool("active")?,
        };
        Ok::<_, ApiError>((page, filter))
    })();
    let (count, rows, page) = req
        .state
        .db
        .read(move |c| {
            // a bad token is 401 before any 400 about the parameters
            auth::resolve(c, &creds, now)?;
            let (page, filter) = parsed?;
            let (count, rows) = crate::db::reactions::search(c, &filter, page.limit, page.offset)?;
            Ok::<_, ApiError>((count, rows, page))
        })
        .await?;
    let base = &req.state.config.public_url;
    let results = rows.into_iter().map(|r| to_json(base, r)).collect();
    Ok(ok(&envelope(&base.at(&req.path), &q, page, count, results)))
}

async fn get_reaction(id: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let row = req
        .state
        .db
        .read(move |c| {
            auth::resolve(c, &creds, now)?;
            crate::db::reactions::get(c, id)?.ok_or(ApiError::NotFound)
        })
        .await?;
    Ok(ok(&to_json(&req.state.config.public_url, row)))
}

//! The feeds (SPEC §10, `db::feed`): home, explore, a category's and a user's feed, a
//! category's trending items and people, and the read marks. Every feed answers a page
//! of `SCFeedUnitType` units in §3's envelope.

mod read;

use rusqlite::Connection;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, Who, ca, user, write};
use crate::api::listing::list_page;
use crate::clock::Timestamp;
use crate::db::feed::{self, Feed};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::PublicUrl;
use crate::model::feed::UnitJson;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/feed/", "getHomeFeed", home).paged(),
        ca(Method::GET, "/api/v2/feed/explore/", "getExploreFeed", explore).paged(),
        write(Method::POST, "/api/v2/feed/read/", "markFeedRead", read::mark).body::<read::Marks>(),
        user(Method::GET, "/api/v2/feed/unseen/count/", "countFeedUnseen", read::unseen_count),
        ca(Method::GET, "/api/v2/category/{id}/feed/", "getCategoryFeed", category).paged(),
        ca(
            Method::GET,
            "/api/v2/category/{id}/feed/trending/",
            "getCategoryTrendingFeed",
            trending,
        )
        .paged(),
        ca(Method::GET, "/api/v2/user/{id}/feed/", "getUserFeed", author).paged(),
    ]
}

/// The JSON of the units of `pks`, in order.
pub(crate) fn units_json(
    c: &Connection,
    pks: &[i64],
    viewer: Option<i64>,
    base: &PublicUrl,
    now: Timestamp,
) -> Result<Vec<UnitJson>, ApiError> {
    Ok(feed::units(c, pks, viewer)?.iter().map(|u| u.to_json(base, now)).collect())
}

/// Answers one page of `feed` (`None`: 404, the feed's subject is not there).
pub(crate) async fn serve<W>(
    call: Call<W>,
    feed: impl Fn(&Connection, Option<i64>) -> Result<Feed, ApiError> + Send + 'static,
) -> Result<Response, ApiError>
where
    W: Who,
{
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let viewer = who.user_id();
        let (count, pks) = feed::page(c, feed(c, viewer)?, viewer, page.limit, page.offset)?;
        Ok((page, count, units_json(c, &pks, viewer, &base, now)?))
    })
    .await
}

/// `GET /api/v2/feed/` (auth): the caller's home feed.
async fn home(call: Call<Principal>) -> Result<Response, ApiError> {
    serve(call, |_, viewer| viewer.map(Feed::Home).ok_or(ApiError::NotFound)).await
}

/// `GET /api/v2/feed/explore/` (CA): every live item.
async fn explore(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    serve(call, |_, _| Ok(Feed::Explore)).await
}

/// `GET /api/v2/category/{id}/feed/` (CA): a live category's items; 404 otherwise.
async fn category(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    serve(call, move |c, _| {
        crate::api::categories::live(c, id)?;
        Ok(Feed::Category(id))
    })
    .await
}

/// `GET /api/v2/user/{id}/feed/` (CA): a live user's items; 404 otherwise.
async fn author(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    serve(call, move |c, _| {
        if !crate::db::users::is_live(c, id)? {
            return Err(ApiError::NotFound);
        }
        Ok(Feed::Author(id))
    })
    .await
}

/// `GET /api/v2/category/{id}/feed/trending/` (CA): a live category's trending items
/// (`db::feed::trending`), best first.
async fn trending(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, now) = (call.id(), call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        crate::api::categories::live(c, id)?;
        let all = feed::trending::items(c, id, viewer)?;
        let pks = crate::api::listing::window(&all, page);
        Ok((page, all.len() as i64, units_json(c, pks, viewer, &base, now)?))
    })
    .await
}

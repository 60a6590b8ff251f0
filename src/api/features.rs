//! `GET /api/v2/feature/` (SPEC §8): the platform features hearth implements, which
//! the UI kit loads before it renders anything.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::{MAX_LIMIT, Page, envelope};
use crate::http::route::Endpoint;
use crate::model::feature;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![public(
        Method::GET,
        "/api/v2/feature/",
        "listFeatures",
        list,
    )]
}

/// `GET /api/v2/feature/`: `name` (exact), `search` (case-insensitive substring of the
/// name), `limit`, `offset`; like preferences, every row in one page without `limit`.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let q = call.query();
    let page_base = call.base().at(&call.req.path);
    // a bad token is 401 whatever the parameters (resolved in the read)
    let json = call
        .read(move |_c, _who| {
            let page = Page::from_query_with(&q, None, MAX_LIMIT)?;
            let all = feature::matching(q.get("name"), q.text("search"));
            let count = i64::try_from(all.len()).unwrap_or(i64::MAX);
            let results: Vec<_> = all
                .into_iter()
                .skip(usize::try_from(page.offset).unwrap_or(usize::MAX))
                .take(usize::try_from(page.limit).unwrap_or(usize::MAX))
                .collect();
            Ok::<_, ApiError>(envelope(&page_base, &q, page, count, results))
        })
        .await?;
    Ok(ok(&json))
}

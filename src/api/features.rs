//! `GET /api/v2/feature/` (SPEC §8): the platform features hearth implements, which
//! the UI kit loads before it renders anything.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public};
use crate::api::listing::list_page;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::{MAX_LIMIT, Page};
use crate::http::route::Endpoint;
use crate::model::feature;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![public(Method::GET, "/api/v2/feature/", "listFeatures", list).list::<FeatureFilters>()]
}

crate::query_params! {
    /// The filters of the feature list.
    struct FeatureFilters {
        /// Only the feature with exactly this name (empty: none).
        name: Option<String>,
        /// A substring of the name, case-insensitively (empty: no filter).
        search: Option<String>,
    }
}

/// `GET /api/v2/feature/`: `name` (exact), `search` (case-insensitive substring of the
/// name), `limit`, `offset`; like preferences, every row in one page without `limit`.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    // a bad token is 401 whatever the parameters (resolved in the read)
    list_page(&call, |c, _who, q| {
        let page = Page::from_query_with(q, None, MAX_LIMIT)?;
        let mut on = Vec::new();
        for s in &feature::SWITCHED {
            let mut any = false;
            for name in s.names {
                any = any || crate::db::preferences::get_bool(c, s.section, name, false)?;
            }
            on.push(any);
        }
        let p = FeatureFilters::read(q)?;
        let search = p.search.as_deref().filter(|s| !s.is_empty());
        let all = feature::matching(p.name.as_deref(), search, |s| {
            feature::SWITCHED.iter().position(|x| x == s).is_some_and(|i| on[i])
        });
        let (count, results) = crate::model::listing::page(all, page.limit, page.offset);
        Ok((page, count, results))
    })
    .await
}

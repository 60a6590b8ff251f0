//! `/api/v2/reaction/...`: reactions (SPEC §5). Public, but a bad token is still 401.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public};
use crate::api::listing::list_page;
use crate::db::reactions::Filter as ReactionFilter;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::PublicUrl;
use crate::model::reaction::{Reaction, ReactionJson};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        public(Method::GET, "/api/v2/reaction/search/", "searchReactions", list_reactions)
            .list::<ReactionFilters>(),
        public(Method::GET, "/api/v2/reaction/", "listReactions", list_reactions)
            .list::<ReactionFilters>(),
        public(Method::GET, "/api/v2/reaction/{id}/", "getReaction", get_reaction),
    ]
}

crate::query_params! {
    /// The filters of the reaction list.
    struct ReactionFilters {
        /// A substring of the label, case-insensitively (Unicode case folding); empty: no
        /// filter.
        search: Option<String>,
        /// Only active (true/1) or inactive (false/0) reactions, in any letter case;
        /// anything else, the empty value included, is 400.
        active: Option<bool>,
    }
}

fn to_json(base: &PublicUrl, r: Reaction) -> ReactionJson {
    ReactionJson::new(base, r.id, r.label, r.sentiment, r.image.as_deref(), r.active)
}

/// `GET /api/v2/reaction/` and `GET /api/v2/reaction/search/`
async fn list_reactions(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    // the caller is resolved first: a bad token is 401 before any 400 about the
    // parameters
    list_page(&call, move |c, _who, q| {
        let page = Page::from_query(q)?;
        let p = ReactionFilters::read(q)?;
        let filter =
            ReactionFilter { search: p.search.filter(|s| !s.is_empty()), active: p.active };
        let (count, rows) = crate::db::reactions::search(c, &filter, page.limit, page.offset)?;
        Ok((page, count, rows.into_iter().map(|r| to_json(&base, r)).collect()))
    })
    .await
}

/// `GET /api/v2/reaction/{id}/`
async fn get_reaction(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let row = call.read_id(crate::db::reactions::get).await?;
    Ok(ok(&to_json(&call.base(), row)))
}

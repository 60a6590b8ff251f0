//! Search and suggestions (SPEC §10, `db::search`): the search of users, items and
//! categories, the navbar autocomplete, the user autocomplete of the composer's
//! audience, and who and what to follow.

mod suggest;

use rusqlite::Connection;
use serde_json::{Value, json};
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca, user};
use crate::api::listing::list_page;
use crate::db::search::{self, match_expr};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::model::PublicUrl;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        ca(Method::GET, "/api/v2/search/", "search", search_all)
            .query::<SearchText>()
            .list::<SearchTarget>(),
        ca(Method::GET, "/api/v2/suggestion/", "searchSuggestion", suggest::navbar)
            .list::<SearchText>(),
        user(Method::GET, "/api/v2/suggestion/user/", "suggestUsers", suggest::users).paged(),
        user(Method::GET, "/api/v2/suggestion/category/", "suggestCategories", suggest::categories)
            .paged(),
        user(Method::GET, "/api/v2/suggestion/poll/", "suggestPolls", suggest::polls).paged(),
        user(Method::GET, "/api/v2/user/autocomplete/", "autocompleteUsers", autocomplete)
            .list::<SearchText>(),
    ]
}

crate::query_params! {
    /// What a search looks for.
    pub(crate) struct SearchText {
        /// What was typed: words, each matched as a prefix, accents folded (at most 200
        /// characters, else 400 max_length). No word: an empty page.
        search: Option<String>,
    }
}

crate::query_params! {
    /// Where `GET /api/v2/search/` searches.
    struct SearchTarget {
        /// feed (the default: discussions, posts and statuses as feed units), user or
        /// category; anything else is 400.
        #[param(schema_with = targets)]
        r#type: Option<String>,
    }
}

fn targets() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["feed", "user", "category"])
}

/// The longest search text taken, in characters.
pub const SEARCH_MAX: usize = 200;

/// The FTS5 expression of the `search` parameter; `None` when it holds no word (the
/// answer is then an empty page). Longer than [`SEARCH_MAX`]: 400.
pub(crate) fn expr(q: &Query) -> Result<Option<String>, ApiError> {
    expr_of(&SearchText::read(q)?.search.unwrap_or_default())
}

/// [`expr`] of a `search` value already read.
pub(crate) fn expr_of(text: &str) -> Result<Option<String>, ApiError> {
    if text.chars().count() > SEARCH_MAX {
        return Err(ApiError::field(
            "search",
            "max_length",
            format!("At most {SEARCH_MAX} characters."),
        ));
    }
    Ok(match_expr(text))
}

/// What `GET /api/v2/search/` searches (`type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Items,
    Users,
    Categories,
}

/// One page of a search of `target`: the count and the results' JSON.
fn search_page(
    c: &Connection,
    target: Target,
    expr: &str,
    viewer: Option<i64>,
    page: Page,
    base: &PublicUrl,
    now: crate::clock::Timestamp,
) -> Result<(i64, Vec<Value>), ApiError> {
    Ok(match target {
        Target::Items => {
            let (count, pks) = search::items(c, expr, viewer, page.limit, page.offset)?;
            let units = crate::api::feed::units_json(c, &pks, viewer, base, now)?;
            (count, units.into_iter().map(|u| json!(u)).collect())
        }
        Target::Users => {
            let (count, users) = search::users(c, expr, viewer, page.limit, page.offset)?;
            let json = crate::api::people::users_json(c, users, viewer, base)?;
            (count, json.into_iter().map(|u| json!(u)).collect())
        }
        Target::Categories => {
            let (count, ids) = search::categories(c, expr, page.limit, page.offset)?;
            let cats = crate::api::categories::by_ids(c, &ids, viewer, base)?;
            (count, cats.into_iter().map(|k| json!(k)).collect())
        }
    })
}

/// `GET /api/v2/search/` (CA): `search` (words, each matched as a prefix, accents
/// folded) in `type`: `feed` (the default: live discussions, posts and statuses by
/// title and text, as feed units), `user` (by username and real name) or `category`
/// (by name); best match first, ties newest first; what the caller may not see is
/// never counted or shown. Ranks and counts the 1000 newest matches.
async fn search_all(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let target = match SearchTarget::read(q)?.r#type.as_deref().map(str::trim) {
            None | Some("" | "feed") => Target::Items,
            Some("user") => Target::Users,
            Some("category") => Target::Categories,
            Some(_) => {
                return Err(ApiError::field("type", "invalid", "One of feed, user, category."));
            }
        };
        let Some(expr) = expr(q)? else { return Ok((page, 0, Vec::new())) };
        let (count, results) =
            search_page(c, target, &expr, who.map(|w| w.user_id), page, &base, now)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/user/autocomplete/` (auth): live users matching `search` by username
/// or real name (each word a prefix), best first, without those the caller hides.
async fn autocomplete(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let Some(expr) = expr(q)? else { return Ok((page, 0, Vec::new())) };
        let (count, users) = search::users(c, &expr, Some(who.user_id), page.limit, page.offset)?;
        let json = crate::api::people::users_json(c, users, Some(who.user_id), &base)?;
        Ok((page, count, json))
    })
    .await
}

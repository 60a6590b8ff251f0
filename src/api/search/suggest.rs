//! `GET /api/v2/suggestion/...`: the navbar's autocomplete, who and what to follow, and
//! the polls to answer.

use serde_json::{Value, json};
use warp::reply::Response;

use crate::api::call::Call;
use crate::api::listing::list_page;
use crate::api::listing::window;
use crate::db::search;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;

/// `GET /api/v2/suggestion/` (CA): the search bar's autocomplete
/// (`SCSuggestionType`): the categories whose name matches `search`, then the users
/// whose username or real name does, each best first; `{"type": "category",
/// "category": {...}}` / `{"type": "user", "user": {...}}`. The kit's suggestion types
/// have no items: they are found with `GET /api/v2/search/`.
pub(super) async fn navbar(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let Some(expr) = super::expr(q)? else { return Ok((page, 0, Vec::new())) };
        let viewer = who.map(|w| w.user_id);
        let (n_cats, _) = search::categories(c, &expr, 0, 0)?;
        let mut results: Vec<Value> = Vec::new();
        if page.offset < n_cats {
            let (_, ids) = search::categories(c, &expr, page.limit, page.offset)?;
            for k in crate::api::categories::by_ids(c, &ids, viewer, &base)? {
                results.push(json!({ "type": "category", "category": k }));
            }
        }
        let left = page.limit - results.len() as i64;
        let from = (page.offset - n_cats).max(0);
        let (n_users, users) = search::users(c, &expr, viewer, left, from)?;
        for u in crate::api::people::users_json(c, users, viewer, &base)? {
            results.push(json!({ "type": "user", "user": u }));
        }
        Ok((page, n_cats + n_users, results))
    })
    .await
}

/// `GET /api/v2/suggestion/user/` (auth): users to follow (`db::search::suggest`): the
/// most followed live users the caller does not follow, at most 100.
pub(super) async fn users(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let all = search::suggest::users(c, who.user_id)?;
        let mut users = Vec::new();
        for id in window(&all, page) {
            users.extend(crate::db::users::get(c, *id)?);
        }
        let json = crate::api::people::users_json(c, users, Some(who.user_id), &base)?;
        Ok((page, all.len() as i64, json))
    })
    .await
}

/// `GET /api/v2/suggestion/category/` (auth): categories to follow: the most followed
/// active categories the caller does not follow, at most 100.
pub(super) async fn categories(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let all = search::suggest::categories(c, who.user_id)?;
        let json = crate::api::categories::by_ids(c, window(&all, page), Some(who.user_id), &base)?;
        Ok((page, all.len() as i64, json))
    })
    .await
}

/// `GET /api/v2/suggestion/poll/` (auth): the kit's poll suggestion widget: the
/// discussions and posts with an open poll the caller has not answered nor written,
/// the newest first, at most 100 (`db::search::suggest::polls`), as items.
pub(super) async fn polls(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let all = search::suggest::polls(c, who.user_id, now)?;
        let items = crate::db::contributions::by_pks(c, window(&all, page), Some(who.user_id))?;
        let json = items.iter().map(|i| i.to_json(&base, now)).collect::<Vec<_>>();
        Ok((page, all.len() as i64, json))
    })
    .await
}

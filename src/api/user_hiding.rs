//! Hiding users (SPEC §8): `POST /api/v2/user/{id}/hide/`, the two questions about it,
//! and the caller's hidden users (the kit loads `hidden_users_id/` for every signed-in
//! user). A hidden user's contributions leave the caller's lists
//! (`db::contributions::list`) and contributors (`db::contributors`).

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::listing::list_page;
use crate::api::people::users_json;
use crate::api::toggle::{both_ways, other_live_user, toggle};
use crate::db::hides;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = vec![write(Method::POST, "/api/v2/user/{id}/hide/", "hideUser", hide)];
    // does the caller hide `{id}`; does `{id}` hide the caller
    all.extend(both_ways(
        ("/api/v2/user/{id}/is_hidden/", "isUserHidden"),
        ("/api/v2/user/{id}/is_hidden_by/", "isUserHiddenBy"),
        hides::is_hiding,
    ));
    all.extend([
        user(Method::GET, "/api/v2/user/hidden_users_id/", "listHiddenUserIds", hidden_ids),
        user(Method::GET, "/api/v2/user/hidden_users/", "listHiddenUsers", hidden_users).paged(),
    ]);
    all
}

/// `POST /api/v2/user/{id}/hide/` (auth, write): hides `{id}`, or shows it again when
/// hidden; 204. Hiding yourself is 400.
async fn hide(call: Call<Principal>) -> Result<Response, ApiError> {
    toggle(call, |tx, caller, id, now| {
        other_live_user(tx, caller, id, "You cannot hide yourself.")?;
        hides::toggle(tx, caller, id, now)?;
        Ok(())
    })
    .await
}

/// `GET /api/v2/user/hidden_users_id/` (auth): the ids the caller hides, a plain JSON
/// array, most recently hidden first.
async fn hidden_ids(call: Call<Principal>) -> Result<Response, ApiError> {
    let ids = call.read(|c, who| Ok::<_, ApiError>(hides::hidden_ids(c, who.user_id)?)).await?;
    Ok(ok(&ids))
}

/// `GET /api/v2/user/hidden_users/` (auth): the same users as a paginated User list.
async fn hidden_users(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let (count, users) = hides::hidden_page(c, who.user_id, page.limit, page.offset)?;
        let results = users_json(c, users, Some(who.user_id), &base)?;
        Ok((page, count, results))
    })
    .await
}

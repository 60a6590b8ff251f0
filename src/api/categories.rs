//! `/api/v2/category/...` and `GET /api/v2/user/{id}/categories/` (SPEC §8): categories
//! as the UI kit reads them, following them, and the popular ones.

use rusqlite::Connection;
use serde_json::json;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::toggle::toggle;
use crate::db::{categories, category_follows};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::{Page, Paging, envelope};
use crate::http::route::Endpoint;
use crate::model::PublicUrl;
use crate::model::category::{Category, CategoryJson};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        ca(Method::GET, "/api/v2/category/", "listCategories", list).list::<CategoryFilters>(),
        // api-services' `searchCategory` (the editor's #hashtag typeahead asks it): the
        // same list, filters and pages under the name the hosted platform gives it
        ca(Method::GET, "/api/v2/category/search/", "searchCategories", list)
            .list::<CategoryFilters>(),
        ca(Method::GET, "/api/v2/category/popular/", "listPopularCategories", popular).paged(),
        ca(Method::GET, "/api/v2/category/{id}/", "getCategory", get),
        ca(Method::GET, "/api/v2/category/{id}/followers/", "listCategoryFollowers", followers)
            .paged(),
        ca(
            Method::GET,
            "/api/v2/category/{id}/followers/trending/",
            "listCategoryTrendingPeople",
            trending_people,
        )
        .paged(),
        write(Method::POST, "/api/v2/category/{id}/follow/", "followCategory", follow),
        user(Method::GET, "/api/v2/category/{id}/is_followed/", "isCategoryFollowed", is_followed),
        ca(Method::GET, "/api/v2/user/{id}/categories/", "listUserCategories", of_user).paged(),
    ]
}

/// A live category, 404 otherwise.
pub(crate) fn live(c: &Connection, id: i64) -> Result<Category, ApiError> {
    categories::get(c, id)?.filter(|k| !k.deleted).ok_or(ApiError::NotFound)
}

fn jsons(
    c: &Connection,
    cats: Vec<Category>,
    viewer: Option<i64>,
    base: &PublicUrl,
) -> Result<Vec<CategoryJson>, ApiError> {
    Ok(category_follows::mark(c, cats, viewer)?.iter().map(|k| k.to_json(base)).collect())
}

/// The JSON of the live categories among `ids`, in that order, marked followed for
/// `viewer`.
pub(crate) fn by_ids(
    c: &Connection,
    ids: &[i64],
    viewer: Option<i64>,
    base: &PublicUrl,
) -> Result<Vec<CategoryJson>, ApiError> {
    let mut cats = Vec::with_capacity(ids.len());
    for id in ids {
        cats.extend(categories::get(c, *id)?.filter(|k| !k.deleted));
    }
    jsons(c, cats, viewer, base)
}

/// `GET /api/v2/category/{id}/followers/trending/` (CA): a live category's trending
/// people (`db::feed::trending`): the authors of its most recently active items who
/// follow it, by how many of them they wrote.
async fn trending_people(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        live(c, id)?;
        let all = crate::db::feed::trending::people(c, id, viewer)?;
        let mut users = Vec::new();
        for u in crate::api::listing::window(&all, page) {
            users.extend(crate::db::users::get(c, *u)?);
        }
        let results = crate::api::people::users_json(c, users, viewer, &base)?;
        Ok((page, all.len() as i64, results))
    })
    .await
}

crate::query_params! {
    /// The filters of the category list.
    struct CategoryFilters {
        /// A substring of the name, case-insensitively (Unicode lowercase).
        search: Option<String>,
        /// Only active (true) or inactive (false) categories: true, false, 1 or 0 in any
        /// case; anything else is 400.
        active: Option<bool>,
    }
}

/// `GET /api/v2/category/` and `GET /api/v2/category/search/` (CA): live categories by
/// `order` then id; `search` (case-insensitive substring of the name) and `active`
/// (boolean) filter.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let p = CategoryFilters::read(q)?;
        let filter =
            categories::Filter { search: p.search.filter(|s| !s.is_empty()), active: p.active };
        let (count, cats) = categories::page(c, &filter, page.limit, page.offset)?;
        let results = jsons(c, cats, who.map(|w| w.user_id), &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/category/popular/` (CA): active categories, most followed first.
async fn popular(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let (count, cats) = category_follows::popular(c, page.limit, page.offset)?;
        let results = jsons(c, cats, who.map(|w| w.user_id), &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/category/{id}/` (CA).
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    let json = call
        .read(move |c, who| {
            let cat = live(c, id)?;
            let mut out = jsons(c, vec![cat], who.map(|w| w.user_id), &base)?;
            out.pop().ok_or(ApiError::NotFound)
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/category/{id}/followers/` (CA): the live users following a live
/// category, the most recent follow first, as User JSON; 404 for another category.
async fn followers(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let cat = live(c, id)?;
        let users = category_follows::followers(c, id, page.limit, page.offset)?;
        let results = crate::api::people::users_json(c, users, who.map(|w| w.user_id), &base)?;
        Ok((page, cat.followers_counter, results))
    })
    .await
}

/// `POST /api/v2/category/{id}/follow/` (auth, write): follows, or unfollows when
/// already following; 204.
async fn follow(call: Call<Principal>) -> Result<Response, ApiError> {
    toggle(call, |tx, caller, id, now| {
        live(tx, id)?;
        category_follows::toggle(tx, caller, id, now)?;
        Ok(())
    })
    .await
}

/// `GET /api/v2/category/{id}/is_followed/` (auth) → `{"is_followed": bool}`.
async fn is_followed(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let answer = call
        .read(move |c, who| {
            live(c, id)?;
            Ok::<_, ApiError>(category_follows::is_following(c, who.user_id, id)?)
        })
        .await?;
    Ok(ok(&json!({ "is_followed": answer })))
}

/// `GET /api/v2/user/{id}/categories/` (CA): the live categories user `{id}` follows,
/// by `order` then id. Paginated when `limit` or `offset` is given; without either,
/// every one as a plain JSON array, which is what the platform's SDK reads
/// (`UserService.getUserFollowedCategories` returns `SCCategoryType[]`, and the kit's
/// user provider maps over it for every signed-in user).
async fn of_user(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, q) = (call.id(), call.base(), call.query()?);
    let page_base = base.at(&call.req.path);
    let paging = Paging::read(&q)?;
    let paginated = paging.limit.is_some() || paging.offset.is_some();
    let json = call
        .read(move |c, who| {
            let page =
                if paginated { Page::from_query(&q)? } else { Page { limit: i64::MAX, offset: 0 } };
            if !crate::db::users::is_live(c, id)? {
                return Err(ApiError::NotFound);
            }
            let (count, cats) = category_follows::followed_by(c, id, page.limit, page.offset)?;
            let results = jsons(c, cats, who.map(|w| w.user_id), &base)?;
            if paginated {
                serde_json::to_value(envelope(&page_base, &q, page, count, results))
            } else {
                serde_json::to_value(results)
            }
            .map_err(ApiError::internal)
        })
        .await?;
    Ok(ok(&json))
}

/// The field errors of a contribution's categories (its create or edit body) that need
/// the database: none given while `configurations.post_category_required_enabled` is
/// on, and the first unknown id, in the words courses (and DRF) use (one query).
pub(crate) fn item_errors(
    tx: &rusqlite::Connection,
    kind: crate::model::contribution::Kind,
    draft: &crate::model::contribution::Draft,
    errors: &mut Vec<crate::model::field::FieldError>,
) -> Result<(), ApiError> {
    let required = crate::db::preferences::get_bool(
        tx,
        "configurations",
        "post_category_required_enabled",
        false,
    )?;
    if required && let Some(e) = crate::model::contribution::missing_categories(kind, draft, errors)
    {
        errors.push(e);
    }
    if let Some(c) = crate::db::categories::first_missing(tx, &draft.categories)? {
        errors.push(crate::model::field::FieldError::new(
            "categories",
            "invalid",
            format!("Invalid pk \"{c}\" - object does not exist."),
        ));
    }
    Ok(())
}

//! `/api/v2/custom_adv/...` and `/api/v2/custom_page/...` (SPEC §10, "Custom ADV, menus &
//! pages"): the advs the kit's `CustomAdv` widget shows and the community's own pages,
//! kept by staff (`hearth adv`, `hearth page`), none by default. Public reads like the
//! menus' ([`super::custom_menus`]): the list and its search are one handler. Anyone
//! but staff sees only active advs and published pages (active, inside their validity
//! window); the `active` filter narrows that, it never widens it.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, Who, public};
use crate::api::listing::list_page;
use crate::db::custom_content::{self, AdvFilter, PageFilter};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::route::Endpoint;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        public(Method::GET, "/api/v2/custom_adv/", "listCustomAdvs", advs),
        public(Method::GET, "/api/v2/custom_adv/search/", "searchCustomAdvs", advs),
        public(Method::GET, "/api/v2/custom_adv/{id}/", "getCustomAdv", adv),
        public(Method::GET, "/api/v2/custom_page/", "listCustomPages", pages),
        public(Method::GET, "/api/v2/custom_page/search/", "searchCustomPages", pages),
        public(Method::GET, "/api/v2/custom_page/{id}/", "getCustomPage", page),
    ]
}

/// The kit's `categories` list: `[1,2]` (as its `CustomAdv` widget writes it), `1,2`,
/// or repeated; `[]` names no category (advs of no category alone); absent: no filter.
fn categories(q: &Query) -> Result<Option<Vec<i64>>, ApiError> {
    let mut out = Vec::new();
    let mut given = false;
    for (k, v) in q.pairs().iter().filter(|(k, _)| k == "categories" || k == "categories[]") {
        given = true;
        let v = v.trim().strip_prefix('[').map_or(v.trim(), |v| v.strip_suffix(']').unwrap_or(v));
        for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            out.push(part.parse().map_err(|_| {
                ApiError::field(k, "invalid", "Must be a list of category ids, as [1,2].")
            })?);
        }
    }
    Ok(given.then_some(out))
}

/// An integer query parameter (400 on it when it is not one).
fn int(q: &Query, name: &str) -> Result<Option<i64>, ApiError> {
    q.text(name)
        .map(|v| {
            v.parse().map_err(|_| ApiError::field(name, "invalid", "A valid integer is required."))
        })
        .transpose()
}

/// `GET /api/v2/custom_adv/` and `.../search/`: `position`, `category`, `categories`,
/// `active`, `search` (in the title), by id.
async fn advs(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    list_page(&call, |c, who, q| {
        let page = Page::from_query(q)?;
        let position = q.text("position").map(str::to_owned);
        if let Some(p) = &position
            && !crate::model::custom_adv::POSITIONS.contains(&p.as_str())
        {
            return Err(ApiError::field(
                "position",
                "invalid_choice",
                format!("{p:?} is not a valid choice."),
            ));
        }
        let f = AdvFilter {
            staff: who.is_staff(),
            active: q.bool("active")?,
            position,
            category: int(q, "category")?,
            categories: categories(q)?,
            search: q.text("search").map(str::to_owned),
        };
        let (count, rows) = custom_content::advs(c, &f, page.limit, page.offset)?;
        Ok((page, count, rows.iter().map(|a| a.to_json()).collect()))
    })
    .await
}

/// `GET /api/v2/custom_adv/{id}/`: an active adv (any, for staff); `active` as in the
/// list.
async fn adv(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, q) = (call.id(), call.query()?);
    let json = call
        .read(move |c, who| {
            let wanted = q.bool("active")?;
            let a = custom_content::adv(c, id)?
                .filter(|a| (who.is_staff() || a.active) && wanted.is_none_or(|w| w == a.active))
                .ok_or(ApiError::NotFound)?;
            Ok(a.to_json())
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/custom_page/` and `.../search/`: `active`, `search` (in the title or
/// the slug), by id.
async fn pages(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let now = call.now;
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let f = PageFilter {
            staff: who.is_staff(),
            active: q.bool("active")?,
            search: q.text("search").map(str::to_owned),
            now,
        };
        let (count, rows) = custom_content::pages(c, &f, page.limit, page.offset)?;
        Ok((page, count, rows.iter().map(|p| p.to_json()).collect()))
    })
    .await
}

/// `GET /api/v2/custom_page/{id}/`: a published page (any, for staff).
async fn page(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, now) = (call.id(), call.now);
    let json = call
        .read(move |c, who| {
            let p = custom_content::page(c, id)?
                .filter(|p| who.is_staff() || p.published(now))
                .ok_or(ApiError::NotFound)?;
            Ok(p.to_json())
        })
        .await?;
    Ok(ok(&json))
}

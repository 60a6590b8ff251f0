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
use crate::http::query_params::FromQuery;
use crate::http::route::Endpoint;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        public(Method::GET, "/api/v2/custom_adv/", "listCustomAdvs", advs).list::<AdvFilters>(),
        public(Method::GET, "/api/v2/custom_adv/search/", "searchCustomAdvs", advs)
            .list::<AdvFilters>(),
        public(Method::GET, "/api/v2/custom_adv/{id}/", "getCustomAdv", adv).query::<AdvState>(),
        public(Method::GET, "/api/v2/custom_page/", "listCustomPages", pages).list::<PageFilters>(),
        public(Method::GET, "/api/v2/custom_page/search/", "searchCustomPages", pages)
            .list::<PageFilters>(),
        public(Method::GET, "/api/v2/custom_page/{id}/", "getCustomPage", page),
    ]
}

crate::query_params! {
    /// The filters of the adv list (read in this order: with several bad values, the
    /// first malformed boolean or list is the 400, then the position, then the category).
    struct AdvFilters {
        /// Only this slot: one of the kit's `SCCustomAdvPosition` values (anything else is
        /// 400 `invalid_choice`; empty: no filter).
        #[param(schema_with = positions)]
        position: Option<String>,
        /// Only the advs of this category (not an integer: 400; empty: no filter).
        #[param(value_type = Option<i64>)]
        category: Option<String>,
        /// Only active (true) or inactive (false) advs (true, false, 1 or 0 in any case,
        /// else 400); it narrows what the caller may see, never widens it.
        active: Option<bool>,
        /// The categories of the page the adv goes on, as the kit's `CustomAdv` widget
        /// writes them: `[1,2]` (also `1,2`, repeated, or `categories[]=`). Advs of no
        /// category show on every page; an adv of a category only where that category is
        /// named. `[]`: advs of no category alone. Absent: no filter. A part that is not
        /// an integer is 400.
        #[param(value_type = Option<String>)]
        categories: Option<CategoryList>,
        /// Case-insensitive text in the title.
        search: Option<String>,
    }
}

fn positions() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&crate::model::custom_adv::POSITIONS)
}

crate::query_params! {
    /// The state one adv is asked in.
    struct AdvState {
        /// Only when the adv is active (true) or inactive (false): else 404 (true, false, 1
        /// or 0 in any case, else 400).
        active: Option<bool>,
    }
}

crate::query_params! {
    /// The filters of the page list.
    struct PageFilters {
        /// Only active (true) or inactive (false) pages (true, false, 1 or 0 in any case,
        /// else 400); it narrows what the caller may see, never widens it.
        active: Option<bool>,
        /// Case-insensitive text in the title or the slug.
        search: Option<String>,
    }
}

/// The kit's `categories` list: `[1,2]` (as its `CustomAdv` widget writes it), `1,2`,
/// or repeated; `[]` names no category (advs of no category alone); absent: no filter.
#[derive(Debug, Clone)]
struct CategoryList(Vec<i64>);

impl FromQuery for Option<CategoryList> {
    fn from_query(q: &Query, name: &str) -> Result<Self, ApiError> {
        let bracketed = format!("{name}[]");
        let mut out = Vec::new();
        let mut given = false;
        for (k, v) in q.pairs().iter().filter(|(k, _)| *k == name || *k == bracketed) {
            given = true;
            let v =
                v.trim().strip_prefix('[').map_or(v.trim(), |v| v.strip_suffix(']').unwrap_or(v));
            for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                out.push(part.parse().map_err(|_| {
                    ApiError::field(k, "invalid", "Must be a list of category ids, as [1,2].")
                })?);
            }
        }
        Ok(given.then_some(CategoryList(out)))
    }
}

/// A non-empty value.
fn text(v: Option<String>) -> Option<String> {
    v.filter(|v| !v.is_empty())
}

/// `GET /api/v2/custom_adv/` and `.../search/`: `position`, `category`, `categories`,
/// `active`, `search` (in the title), by id.
async fn advs(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    list_page(&call, |c, who, q| {
        let page = Page::from_query(q)?;
        let p = AdvFilters::read(q)?;
        let position = text(p.position);
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
            active: p.active,
            position,
            category: text(p.category)
                .map(|v| {
                    v.parse().map_err(|_| {
                        ApiError::field("category", "invalid", "A valid integer is required.")
                    })
                })
                .transpose()?,
            categories: p.categories.map(|l| l.0),
            search: text(p.search),
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
            let wanted = AdvState::read(&q)?.active;
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
        let p = PageFilters::read(q)?;
        let f = PageFilter { staff: who.is_staff(), active: p.active, search: text(p.search), now };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every documented position is one the list takes; the categories read as before.
    #[test]
    fn documented_positions_and_categories_parse() {
        let doc = serde_json::to_value(positions()).unwrap_or_default();
        let values = doc["enum"].as_array().cloned().unwrap_or_default();
        assert_eq!(values.len(), crate::model::custom_adv::POSITIONS.len());
        for v in values {
            let v = v.as_str().unwrap_or_default();
            assert!(crate::model::custom_adv::POSITIONS.contains(&v), "{v}");
        }
        let read =
            |raw: &str| AdvFilters::read(&Query::parse(raw)).map(|p| p.categories.map(|l| l.0));
        assert_eq!(read("categories=[1,2]").ok(), Some(Some(vec![1, 2])));
        assert_eq!(read("categories[]=3&categories=4,5").ok(), Some(Some(vec![3, 4, 5])));
        assert_eq!(read("categories=[]").ok(), Some(Some(vec![])));
        assert_eq!(read("").ok(), Some(None));
        assert!(read("categories=[1,x]").is_err());
    }
}
